// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A traced pageset -> a pack. Two stages: gather (name the inodes, check that
 * each name is still the traced file, read what the pack records of files and
 * filesystems: statx, read_ahead_kb, residency) and build (the pack from those
 * facts alone, then an atomic write).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <ura/pack.h>

#include "sys-fileid.h"
#include "sys-kernel-mm.h"
#include "util-log.h"
#include "sys-mountinfo.h"
#include "sys-view.h"
#include "trace-pageset.h"
#include "trace-rakb.h"
#include "trace-resolve.h"
#include "sys-residency.h"
#include "sys-safeopen.h"
#include "trace-access.h"
#include "trace-assemble.h"
#include "trace-btrfs.h"
#include "trace-demand.h"
#include "trace-ext4.h"
#include "trace-root.h"
#include "trace-summary.h"
#include "util.h"

#define RESOLVE_METHODS		(RESOLVE_HANDLE | RESOLVE_WALK)
#define REUSE_SLACK_NS		(10ll * 1000 * 1000)	/* clock skew allowed in that check */

/* Linux 6.5: the filesystem's UUID, on any of its files (not in older headers) */
#ifndef FS_IOC_GETFSUUID
struct fsuuid2 {
	uint8_t len;
	uint8_t uuid[16];
};
#define FS_IOC_GETFSUUID	_IOR(0x15, 0, struct fsuuid2)
#endif

/* Kernel dev_t (as in tracepoints): major << 20 | minor. */
#define KDEV_MAJOR(d)		((unsigned)((d) >> 20))
#define KDEV_MINOR(d)		((unsigned)((d) & 0xfffff))

/* A filesystem record of the pack, gathered: one per (device, mount point as recorded). */
struct found_fs {
	uint32_t kdev;
	struct ura_pack_fs rec;		/* strings point into the mount table or the root */
	unsigned max_sectors_kb;	/* of its block device, 0 unknown (for the access log) */
	unsigned max_segments, max_segment_kb;	/* of its block device, 0 unknown */
	const char *host_dir;		/* where the tracer reaches it (the mount table's), or NULL */
	const char *host_strip;		/* under --root: the root's path below host_dir, or "" */
};

/* A file of the pack, gathered: its name, its statx, the ranges that go in. */
struct found_file {
	size_t fs;			/* index in found_fs */
	uint32_t traced_dev;		/* the inode traced (its accesses are logged by it) */
	uint64_t traced_ino;
	char *path;			/* relative to the recorded mount point, owned */
	struct statx stx;
	bool has_generation;
	uint32_t generation;		/* the inode generation (FS_IOC_GETVERSION) */
	struct pageset_range *ranges;	/* owned */
	size_t nranges;
};

/* Metadata ranges of one block device's own page cache. */
struct found_meta {
	size_t fs;			/* index in found_fs, or SIZE_MAX */
	unsigned major, minor;
	struct pageset_range *ranges;	/* owned */
	size_t nranges;
};

struct assembly {
	const struct assemble_opts *o;
	const struct trace_demand *demand;
	struct sys_view *view;		/* the system after the trace: devices are read into it */
	const struct mount_table *mt;	/* its mounts */
	const struct rakb_state *ra;	/* read_ahead_kb forced during the trace, or NULL */
	uint64_t demanded_pages;	/* of the files gathered (note_resolution()) */
	struct trace_summary *sum;
	unsigned range_flags;		/* PAGESET_* for ranges */
	dev_t pack_dev;			/* the pack's old file, left out */
	ino_t pack_ino;
	char *pack_abs;
	dev_t self_dev;			/* ura-trace's own executable */
	ino_t self_ino;
	struct found_fs *fs;
	size_t nfs;
	struct found_file *files;
	size_t nfiles;
	struct found_meta *meta;
	size_t nmeta;
	struct dev_mount *devs;		/* mountinfo_find_dev() answers so far */
	size_t ndevs;
};

/* A device and the mount its files are best reached through (NULL: not mounted). */
struct dev_mount {
	unsigned major, minor;
	const struct mount_entry *mount;
};

/* mountinfo_find_dev(), asked once per device. */
static int find_mount(struct assembly *a, unsigned major, unsigned minor,
		      const struct mount_entry **ret)
{
	struct dev_mount *n;

	for (size_t i = 0; i < a->ndevs; i++)
		if (a->devs[i].major == major && a->devs[i].minor == minor) {
			*ret = a->devs[i].mount;
			return 0;
		}
	n = realloc(a->devs, (a->ndevs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	a->devs = n;
	n[a->ndevs] = (struct dev_mount){ major, minor, mountinfo_find_dev(a->mt, major, minor) };
	*ret = n[a->ndevs++].mount;
	return 0;
}

/* What take_candidate() made of a name found for a traced inode. */
enum candidate_verdict {
	NOT_THE_FILE,		/* another inode now, not a regular file, or reused since */
	FILE_TAKEN,		/* in the pack, with ranges */
	FILE_EMPTY,		/* the file, but no range left (clipped, or none resident) */
	FILE_LEFT_OUT,		/* the pack itself, or ura-trace */
	FILE_OUTSIDE_ROOT,	/* not below --root */
};

/* A UUID written as 32 hex digits, dashes allowed between them; false for anything else. */
static bool parse_uuid(const char *s, uint8_t ret[16])
{
	uint8_t u[16];
	int n = 0;

	for (; *s; s++) {
		int v;

		if (*s == '-')
			continue;
		if (!isxdigit((unsigned char)*s) || n == 32)
			return false;
		v = isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10);
		u[n / 2] = (uint8_t)(n % 2 ? (u[n / 2] << 4) | v : v);
		n++;
	}
	if (n != 32)
		return false;
	memcpy(ret, u, 16);
	return true;
}

/*
 * The UUID of the filesystem mounted at @mount_dir on @major:@minor: asked of
 * the filesystem (FS_IOC_GETFSUUID, Linux 6.5), else the /dev/disk/by-uuid
 * link to its device when the name is a 16-byte UUID (not a FAT serial). An
 * all-zero UUID counts as none.
 */
static bool fs_uuid(const char *mount_dir, unsigned major, unsigned minor, uint8_t ret[16])
{
	struct fsuuid2 fu = { .len = sizeof(fu.uuid) };
	struct dirent *de;
	bool found = false;
	DIR *d;
	int fd;

	fd = open(mount_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		int r = ioctl(fd, FS_IOC_GETFSUUID, &fu);

		close(fd);
		/* an all-zero UUID (some images are made so) tells filesystems apart no better */
		if (r == 0 && fu.len == sizeof(fu.uuid) &&
		    memcmp(fu.uuid, (uint8_t[16]){ 0 }, sizeof(fu.uuid)) != 0) {
			memcpy(ret, fu.uuid, sizeof(fu.uuid));
			return true;
		}
	}
	d = opendir("/dev/disk/by-uuid");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISBLK(st.st_mode) ||
		    st.st_rdev != makedev(major, minor))
			continue;
		found = parse_uuid(de->d_name, ret);
	}
	closedir(d);
	return found;
}

/* The filesystem record for (@kdev, @mount_point), made on first use. */
static int fs_slot(struct assembly *a, uint32_t kdev, const struct mount_entry *me,
		   const char *mount_point, size_t *ret)
{
	struct found_fs *n;

	for (size_t i = 0; i < a->nfs; i++)
		if (a->fs[i].kdev == kdev && strcmp(a->fs[i].rec.mount_point, mount_point) == 0) {
			*ret = i;
			return 0;
		}
	n = realloc(a->fs, (a->nfs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	a->fs = n;
	n = &a->fs[a->nfs];
	*n = (struct found_fs){ .kdev = kdev };
	n->rec.major = KDEV_MAJOR(kdev);
	n->rec.minor = KDEV_MINOR(kdev);
	n->rec.mount_point = mount_point;
	n->rec.fstype = me ? me->fstype : "";
	n->rec.source = me ? me->source : "";
	n->host_dir = me ? me->mount_point : NULL;
	n->rec.read_ahead_kb = rakb_during_trace(a->ra, n->rec.major, n->rec.minor);
	if (me && fs_uuid(me->mount_point, n->rec.major, n->rec.minor, n->rec.uuid))
		n->rec.flags |= URA_PACK_FS_HAS_UUID;
	if (a->o->access) {	/* not a block device (btrfs, NFS, ...): 0, unknown */
		struct sys_device dev;
		int r = sys_view_device(a->view, n->rec.major, n->rec.minor, &dev);

		if (r < 0)
			return r;
		n->max_sectors_kb = dev.max_sectors_kb;
		n->max_segments = dev.max_segments;
		n->max_segment_kb = dev.max_segment_kb;
	}
	*ret = a->nfs++;
	return 0;
}

/* What the pack would have listed of @f: pages added, or used (a window's too where they
 * are demanded), whichever is more */
static uint64_t listed_pages(const struct assembly *a, const struct pageset_file *f)
{
	uint64_t used = f->used_pages +
			(a->range_flags & PAGESET_WEAK_IS_DEMAND ? f->weak_only_pages : 0);

	return f->added_pages > used ? f->added_pages : used;
}

/*
 * Which 4 KiB pages of [@first, @first + @count) of @fd are in the page cache:
 * @ret[i] is 1 or 0. Only that window is mapped, whatever the file's size.
 * Return: 0, or -errno when it cannot tell.
 */
static int range_resident(int fd, uint64_t size, uint64_t first, uint64_t count,
			  unsigned char *ret)
{
	uint64_t off = first * URA_PACK_PAGE_SIZE, end = (first + count) * URA_PACK_PAGE_SIZE;

	if (end > size)
		end = size;
	memset(ret, 0, count);
	if (off >= end)
		return 0;	/* past the end now */
	return residency_map(fd, off, end - off, ret);
}

static int push_range(struct pageset_range **out, size_t *n, size_t *cap,
		      const struct pageset_range *rg, uint64_t page, uint64_t count)
{
	struct pageset_range *last = *n ? &(*out)[*n - 1] : NULL;

	if (last && last->first_page + last->page_count == page &&
	    last->demanded == rg->demanded && last->first_ns == rg->first_ns) {
		last->page_count += count;
		return 0;
	}
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct pageset_range *p = realloc(*out, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*out = p;
		*cap = c;
	}
	(*out)[(*n)++] = (struct pageset_range){ .first_page = page, .page_count = count,
						 .demanded = rg->demanded, .first_ns = rg->first_ns };
	return 0;
}

long assemble_keep_resident(int fd, uint64_t size, struct pageset_range **ranges, size_t *n)
{
	struct pageset_range *out = NULL;
	unsigned char *flags = NULL;
	size_t nout = 0, cap = 0;
	long kept = 0;
	int r = 0;

	for (size_t i = 0; i < *n && r == 0; i++) {
		const struct pageset_range *rg = &(*ranges)[i];
		unsigned char *f;

		f = realloc(flags, rg->page_count ? rg->page_count : 1);
		if (!f) {
			r = -ENOMEM;
			break;
		}
		flags = f;
		if (fd < 0 || range_resident(fd, size, rg->first_page, rg->page_count, flags) < 0) {
			r = push_range(&out, &nout, &cap, rg, rg->first_page, rg->page_count);
			kept += (long)rg->page_count;
			continue;
		}
		for (uint64_t p = 0; p < rg->page_count && r == 0; p++) {
			if (!flags[p])
				continue;
			r = push_range(&out, &nout, &cap, rg, rg->first_page + p, 1);
			kept++;
		}
	}
	if (r == 0) {
		free(*ranges);
		*ranges = out;
		*n = nout;
		out = NULL;
	}
	free(out);
	free(flags);
	return r < 0 ? r : kept;
}
/*
 * Which listed pages of a file on @fs are demanded. Where the trace ran at a
 * read_ahead_kb of one page, every page added is one the run read, and a page
 * that a fault-around window mapped from the cache (cached before the trace)
 * may have been used without a fault: all are demanded. A page left out costs
 * the program a read of the device's read_ahead_kb; one too many, a page.
 * Elsewhere the access events decide (a->range_flags).
 */
static unsigned range_flags(const struct assembly *a, size_t fs)
{
	unsigned kb = a->fs[fs].rec.read_ahead_kb;

	return kb && (uint64_t)kb * 1024 <= URA_PACK_PAGE_SIZE ? PAGESET_ALL_DEMANDED : a->range_flags;
}

/*
 * How finely the pages of @file were seen (the summary's resolution): a page
 * counts as demanded with those read and mapped with a touched one, that is
 * within the device's read_ahead_kb during the trace, and never more than a
 * fault-around window. Pages cached before the trace (a warm start) are seen
 * to the window alone, whatever read_ahead_kb was: counted apart.
 */
static void note_resolution(struct assembly *a, const struct found_file *file,
			    const struct pageset_file *traced, size_t fs)
{
	unsigned around_kb = KERNEL_FAULT_AROUND_PAGES * (URA_PACK_PAGE_SIZE / 1024);
	unsigned kb = a->fs[fs].rec.read_ahead_kb;
	uint64_t cached = 0, mapped = 0;

	if (!kb || kb > around_kb)
		kb = around_kb;
	for (size_t i = 0; i < file->nranges; i++) {
		const struct pageset_range *rg = &file->ranges[i];

		a->demanded_pages += rg->demanded ? rg->page_count : 0;
		for (uint64_t p = rg->first_page; rg->demanded && p < rg->first_page + rg->page_count;
		     p++) {
			if (!pageset_is_added(a->demand->pages, traced->dev, traced->ino, p, NULL))
				cached++;
			else if (pageset_is_weak_only(a->demand->pages, traced->dev, traced->ino,
						      p))
				mapped++;	/* read ahead, mapped beside a touched page */
		}
	}
	a->sum->cached_demanded_bytes += cached * URA_PACK_PAGE_SIZE;
	a->sum->mapped_demanded_bytes += mapped * URA_PACK_PAGE_SIZE;
	if (kb > a->sum->resolution_kb)
		a->sum->resolution_kb = kb;
}

/*
 * The ranges and inode generation of one named file (@fd: it, open for reading,
 * closed here); with @resident, only its pages now in the page cache.
 * Return: 1 if it has ranges, 0 if none, -errno.
 */
static int gather_file(struct assembly *a, const struct pageset_file *traced, size_t fs,
		       const char *path, const struct statx *stx, int fd, bool resident)
{
	struct found_file file = { .fs = fs, .traced_dev = traced->dev, .traced_ino = traced->ino,
				   .stx = *stx };
	struct found_file *m;
	int r;

	r = pageset_file_ranges(a->demand->pages, traced,
				(stx->stx_size + URA_PACK_PAGE_SIZE - 1) / URA_PACK_PAGE_SIZE,
				range_flags(a, fs), &file.ranges, &file.nranges);
	if (r < 0)
		goto out;
	if (resident) {
		long kept = assemble_keep_resident(fd, stx->stx_size, &file.ranges,
						   &file.nranges);

		if (kept < 0) {
			r = (int)kept;
			goto out;
		}
	}
	if (file.nranges == 0) {
		r = 0;
		goto out;
	}
	note_resolution(a, &file, traced, fs);
	file.has_generation = fd >= 0 && fileid_generation(fd, &file.generation) == 0;
	m = realloc(a->files, (a->nfiles + 1) * sizeof(*m));
	file.path = strdup(path);
	if (!m || !file.path) {
		if (m)
			a->files = m;
		r = -ENOMEM;
		goto out;
	}
	a->files = m;
	a->files[a->nfiles++] = file;
	if (fd >= 0)
		close(fd);
	return 1;
out:
	if (fd >= 0)
		close(fd);
	free(file.path);
	free(file.ranges);
	return r;
}

/*
 * Open @rel below @me's mount point to read: reached one component at a time,
 * following no symlink and entering only the table's mounts that are not FUSE
 * nor a network's (a bind mount of the same filesystem is crossed); a regular
 * file only (a FIFO or a device is never opened). Return: a descriptor, its
 * statx in @stx, or -errno.
 */
static int open_named(const struct assembly *a, const struct mount_entry *me, const char *rel,
		      struct statx *stx)
{
	struct stat st;
	int mfd, pfd, fd;

	mfd = resolve_open_dir(me->mount_point, a->mt);
	if (mfd < 0)
		return mfd;
	if (!a->mt) {
		fd = safeopen_file(mfd, rel, stx);
		close(mfd);
		return fd;
	}
	pfd = safeopen_walk_mounts(mfd, rel, O_PATH, mountinfo_walk_ok, (void *)a->mt);
	close(mfd);
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(pfd);
		return -EBADFD;
	}
	fd = safeopen_reopen(pfd, O_RDONLY | O_NOATIME | O_NONBLOCK);
	close(pfd);
	if (fd < 0)
		return fd;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, stx) < 0 ||
	    !S_ISREG(stx->stx_mode) || stx->stx_ino != st.st_ino) {
		close(fd);
		return -EBADFD;
	}
	return fd;
}

/*
 * Check that @rel, below @me's mount point, still is the traced inode, a
 * regular file on @dev, and gather it (see gather_file() for @resident). @fs
 * is the filesystem record of @me, made on first use (SIZE_MAX until then).
 * Return: enum candidate_verdict, or -errno.
 */
static int take_candidate(struct assembly *a, const struct pageset_file *traced,
			  const struct mount_entry *me, const char *rel, dev_t dev, bool resident,
			  size_t *fs)
{
	const char *mp, *strip;
	char *full = NULL;
	struct statx stx;
	size_t strip_len;
	int fd = -1, r;

	if (root_view(a->o->root, me->mount_point, &mp, &strip) < 0)
		return NOT_THE_FILE;	/* the caller checked */
	strip_len = strlen(strip);
	full = path_join(me->mount_point, rel);
	if (!full)
		return -ENOMEM;
	/*
	 * The name found must still be that inode, a regular file, looked at safely
	 * (what is at the name now may be a user's: a FUSE mount whose server never
	 * answers, put over a directory of it, would hang a lookup), opened once for
	 * its residency and its generation
	 */
	fd = open_named(a, me, rel, &stx);
	if (fd < 0 || stx.stx_ino != traced->ino ||
	    makedev(stx.stx_dev_major, stx.stx_dev_minor) != dev) {
		r = NOT_THE_FILE;
		goto out;
	}
	/*
	 * Inode numbers are reused: a file born after the trace saw its pages
	 * is another file than the one that had them (deleted since).
	 */
	if (a->demand->t0_real && (stx.stx_mask & STATX_BTIME) &&
	    (int64_t)stx.stx_btime.tv_sec * 1000000000 + stx.stx_btime.tv_nsec >
		    a->demand->t0_real + (int64_t)traced->first_ns + REUSE_SLACK_NS) {
		log_debug("'%s' is newer than the pages traced: inode reused", full);
		r = NOT_THE_FILE;
		goto out;
	}
	r = FILE_LEFT_OUT;
	if (a->o->leave_out && a->o->leave_out(a->o->leave_out_ctx, full)) {
		a->sum->skipped_private++;
		goto out;
	}
	if ((a->pack_ino && stx.stx_ino == a->pack_ino &&
	     makedev(stx.stx_dev_major, stx.stx_dev_minor) == a->pack_dev) ||
	    (a->pack_abs && strcmp(full, a->pack_abs) == 0) ||
	    (a->self_ino && stx.stx_ino == a->self_ino &&
	     makedev(stx.stx_dev_major, stx.stx_dev_minor) == a->self_dev))
		goto out;	/* the pack itself, or ura-trace (run by the child before exec) */
	if (strip_len) {
		/* under --root: only files below it, named from it */
		if (strncmp(rel, strip, strip_len) != 0 || rel[strip_len] != '/') {
			r = FILE_OUTSIDE_ROOT;
			goto out;
		}
		rel += strip_len + 1;
	}
	if (*fs == SIZE_MAX) {
		r = fs_slot(a, traced->dev, me, mp, fs);
		if (r < 0)
			goto out;
		a->fs[*fs].host_strip = strip;
	}
	r = gather_file(a, traced, *fs, rel, &stx, fd, resident);
	fd = -1;		/* gather_file() closed it */
	if (r >= 0)
		r = r ? FILE_TAKEN : FILE_EMPTY;
out:
	if (fd >= 0)
		close(fd);
	free(full);
	return r;
}

static void count_unresolved(struct assembly *a, const struct pageset_file *traced)
{
	/* deleted before it could be named, or out of reach */
	a->sum->unresolved_inodes++;
	a->sum->unresolved_bytes += listed_pages(a, traced) * URA_PACK_PAGE_SIZE;
}

/* Name the traced inodes of one (non-btrfs) filesystem and gather them. */
static int name_fs_files(struct assembly *a, const struct pageset_file *files, size_t n,
			 const struct mount_entry *me)
{
	struct resolve_item *items = NULL;
	const char *mp, *strip;
	size_t fs = SIZE_MAX;
	long found;
	int r = 0;

	if (root_view(a->o->root, me->mount_point, &mp, &strip) < 0) {
		a->sum->outside_root += n;
		return 0;
	}
	items = calloc(n, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		items[i].ino = files[i].ino;
	found = resolve_inodes(me->mount_point, me->major, me->minor, items, n, RESOLVE_METHODS,
			       a->mt);
	if (found < 0) {
		log_warn("cannot look for files in '%s': %s, skipping", me->mount_point,
			 strerror((int)-found));
		found = 0;
	}
	log_debug("'%s': %ld of %zu inodes named", me->mount_point, found, n);
	for (size_t i = 0; i < n; i++) {
		r = items[i].path ? take_candidate(a, &files[i], me, items[i].path,
						   makedev(me->major, me->minor), false, &fs) :
				    NOT_THE_FILE;
		if (r < 0)
			goto out;
		if (r == NOT_THE_FILE)
			count_unresolved(a, &files[i]);
		else if (r == FILE_OUTSIDE_ROOT)
			a->sum->outside_root++;
	}
	r = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(items[i].path);
	free(items);
	return r;
}

/*
 * btrfs: the traced inode numbers may name files in several subvolumes
 * (trace-btrfs.c lists them). When an inode number names several files, each
 * gets the traced pages it has in the page cache right after the trace (the
 * files traced had them brought in).
 */
static int name_btrfs_files(struct assembly *a, const struct pageset_file *files, size_t n,
			    const struct mount_entry *best)
{
	struct btrfs_candidate *cands = NULL;
	size_t ncands = 0, nviews = 0;
	size_t *fs = NULL;
	int r;

	r = btrfs_candidates(a->mt, best, a->o->root, files, n, &cands, &ncands, &nviews);
	if (r < 0)
		return r;
	fs = malloc((nviews ? nviews : 1) * sizeof(*fs));
	if (!fs) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t v = 0; v < nviews; v++)
		fs[v] = SIZE_MAX;
	for (size_t i = 0, m = 0; i < n; i++) {
		size_t first = m, count = 0;
		bool resident, handled = false, outside = false;

		for (; m < ncands && cands[m].file == i; m++)
			count += !cands[m].duplicate;
		/*
		 * One candidate: it is the file. Several: tell them by the pages they
		 * have cached now (not for --input: the trace is from another time).
		 */
		resident = count > 1 && !a->o->from_recording;
		for (int pass = 0; pass < 2 && !handled; pass++) {
			for (size_t k = first; k < m; k++) {
				if (cands[k].duplicate)
					continue;
				r = take_candidate(a, &files[i], cands[k].mount, cands[k].rel,
						   cands[k].dev, resident, &fs[cands[k].view]);
				if (r < 0)
					goto out;
				/* with the cache as judge, a file it gave nothing to is not it */
				handled |= r == FILE_TAKEN || r == FILE_LEFT_OUT ||
					   (r == FILE_EMPTY && !resident);
				outside |= r == FILE_OUTSIDE_ROOT;
			}
			if (!resident)
				break;
			/* none has them cached any more: keep them all */
			resident = false;
		}
		if (handled)
			continue;
		if (outside)
			a->sum->outside_root++;
		else
			count_unresolved(a, &files[i]);
	}
	r = 0;
out:
	btrfs_candidates_free(cands, ncands);
	free(fs);
	return r;
}

static bool is_block_device(unsigned major, unsigned minor)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major, minor);
	return major != 0 && access(path, F_OK) == 0;
}

/*
 * Metadata: pages of a block device's own page cache. Their inode lives on the
 * kernel-internal bdev filesystem (an anonymous device, absent from
 * mountinfo), and its inode number is the block device's dev_t.
 */
static int gather_meta(struct assembly *a, const struct pageset_file *traced)
{
	unsigned major = KDEV_MAJOR(traced->ino), minor = KDEV_MINOR(traced->ino);
	struct found_meta meta = { .fs = SIZE_MAX, .major = major, .minor = minor };
	const struct mount_entry *me;
	struct found_meta *m;
	int r;

	r = find_mount(a, major, minor, &me);
	if (r < 0)
		return r;
	if (me && !mountinfo_is_pseudo_fs(me->fstype)) {
		const char *mp, *strip;

		if (root_view(a->o->root, me->mount_point, &mp, &strip) == 0) {
			r = fs_slot(a, (uint32_t)traced->ino, me, mp, &meta.fs);
			if (r < 0)
				return r;
		}
	}
	r = pageset_file_ranges(a->demand->pages, traced, UINT64_MAX, PAGESET_ALL_DEMANDED,
				&meta.ranges, &meta.nranges);
	if (r < 0)
		return r;
	m = realloc(a->meta, (a->nmeta + 1) * sizeof(*m));
	if (!m) {
		free(meta.ranges);
		return -ENOMEM;
	}
	a->meta = m;
	a->meta[a->nmeta++] = meta;
	return 0;
}

/* The gather stage: every traced file named, checked and described, or counted as not. */
static int gather(struct assembly *a, const struct pageset_file *files, size_t nfiles)
{
	int r;

	for (size_t i = 0; i < nfiles;) {
		uint32_t dev = files[i].dev;
		size_t j = i;
		const struct mount_entry *me;

		while (j < nfiles && files[j].dev == dev)
			j++;
		r = find_mount(a, KDEV_MAJOR(dev), KDEV_MINOR(dev), &me);
		if (r < 0)
			return r;
		if (me && mountinfo_is_pseudo_fs(me->fstype)) {
			a->sum->skipped_pseudo += j - i;
		} else if (me && a->o->leave_out && mountinfo_is_fuse(me->fstype)) {
			/*
			 * A user's (learn-private.h), left out unnamed: naming them would
			 * read a directory of a server that may never answer (one the
			 * user stopped after the read)
			 */
			a->sum->skipped_private += j - i;
		} else if (me && strcmp(me->fstype, "btrfs") == 0) {
			r = name_btrfs_files(a, &files[i], j - i, me);
			if (r < 0)
				return r;
		} else if (me) {
			r = name_fs_files(a, &files[i], j - i, me);
			if (r < 0)
				return r;
		} else {
			for (size_t k = i; k < j; k++) {
				if (KDEV_MAJOR(dev) == 0 &&
				    is_block_device(KDEV_MAJOR(files[k].ino), KDEV_MINOR(files[k].ino))) {
					r = gather_meta(a, &files[k]);
					if (r < 0)
						return r;
					continue;
				}
				/* a filesystem unmounted since, or an internal inode */
				count_unresolved(a, &files[k]);
			}
		}
		i = j;
	}
	return 0;
}

/* @add merged into the sorted ranges of @m (both sorted by page; ranges that touch joined). */
static int merge_meta(struct found_meta *m, const struct pageset_range *add, size_t nadd)
{
	size_t n = m->nranges + nadd, k = 0, i = 0, j = 0;
	struct pageset_range *out = malloc((n ? n : 1) * sizeof(*out));

	if (!out)
		return -ENOMEM;
	while (i < m->nranges || j < nadd) {
		const struct pageset_range *r = j >= nadd || (i < m->nranges &&
				m->ranges[i].first_page <= add[j].first_page) ? &m->ranges[i++] : &add[j++];
		struct pageset_range *last = k ? &out[k - 1] : NULL;

		if (last && r->first_page <= last->first_page + last->page_count) {
			if (r->first_page + r->page_count > last->first_page + last->page_count)
				last->page_count = r->first_page + r->page_count - last->first_page;
			if (r->first_ns < last->first_ns)
				last->first_ns = r->first_ns;
			continue;
		}
		out[k] = *r;
		out[k++].demanded = true;
	}
	free(m->ranges);
	m->ranges = out;
	m->nranges = k;
	return 0;
}

/*
 * The derive stage: the metadata a cold start of the pack's files needs, on
 * each ext4 filesystem, from its layout (trace-ext4.c), added to what the trace
 * saw enter the block device's cache: a trace of a warm start sees none.
 */
static int derive_meta(struct assembly *a)
{
	int r = 0;

	for (size_t f = 0; f < a->nfs && r >= 0; f++) {
		const struct found_fs *fs = &a->fs[f];
		struct pageset_range *add = NULL;
		struct ext4_layout *l = NULL;
		struct found_meta *m = NULL;
		size_t nadd = 0;
		char *dir;

		if (!fs->host_dir || strcmp(fs->rec.fstype, "ext4") != 0)
			continue;
		/* under --root, paths are looked up from the root, not from the mount */
		dir = path_join(fs->host_dir, fs->host_strip ? fs->host_strip : "");
		if (!dir)
			return -ENOMEM;
		if (ext4_layout_open(fs->rec.major, fs->rec.minor, &l) < 0) {
			free(dir);
			continue;
		}
		for (size_t i = 0; i < a->nfiles && r >= 0; i++) {
			const struct found_file *ff = &a->files[i];
			uint64_t t = UINT64_MAX;

			if (ff->fs != f)
				continue;
			for (size_t k = 0; k < ff->nranges; k++)
				if (ff->ranges[k].first_ns < t)
					t = ff->ranges[k].first_ns;
			r = ext4_layout_note(l, dir, ff->path, ff->stx.stx_ino, t);
		}
		if (r >= 0)
			r = ext4_layout_ranges(l, &add, &nadd);
		ext4_layout_free(l);
		free(dir);
		for (size_t i = 0; i < a->nmeta && r >= 0; i++)
			if (a->meta[i].major == fs->rec.major && a->meta[i].minor == fs->rec.minor)
				m = &a->meta[i];
		if (r >= 0 && nadd && !m) {
			m = realloc(a->meta, (a->nmeta + 1) * sizeof(*m));
			if (!m) {
				r = -ENOMEM;
			} else {
				a->meta = m;
				m = &a->meta[a->nmeta++];
				*m = (struct found_meta){ .fs = f, .major = fs->rec.major,
							  .minor = fs->rec.minor };
			}
		}
		if (r >= 0 && nadd) {
			if (m->fs == SIZE_MAX)
				m->fs = f;
			r = merge_meta(m, add, nadd);
		}
		free(add);
	}
	return r < 0 ? r : 0;
}

static int build_file(struct assembly *a, struct ura_pack_builder *b, const struct found_file *f,
		      const uint32_t *fs_index, uint32_t *ret_index)
{
	const struct statx *stx = &f->stx;
	struct ura_pack_file file = { 0 };
	uint32_t fi;
	int r;

	fileid_from_statx(&file, stx);		/* inode, size, mtime, birth time */
	file.fs_index = fs_index[f->fs];
	file.path = f->path;
	file.path_len = strlen(f->path);
	if (f->has_generation) {
		file.flags |= URA_PACK_FILE_HAS_GENERATION;
		file.generation = f->generation;
	}
	r = ura_pack_builder_add_file(b, &file, &fi);
	if (r < 0)
		return r;
	*ret_index = fi;
	a->sum->files++;
	for (size_t i = 0; i < f->nranges; i++) {
		const struct pageset_range *rg = &f->ranges[i];
		struct ura_pack_range pr = {
			.file_index = fi,
			.flags = rg->demanded ? URA_PACK_RANGE_DEMANDED : 0,
			.first_page = rg->first_page,
			.first_access_ns = rg->first_ns,
		};
		uint64_t left = rg->page_count;

		/* the format counts pages in 32 bits */
		while (left) {
			pr.page_count = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
			r = ura_pack_builder_add_range(b, &pr);
			if (r < 0)
				return r;
			a->sum->ranges++;
			a->sum->bytes += pr.page_count * URA_PACK_PAGE_SIZE;
			if (rg->demanded)
				a->sum->demanded_bytes += pr.page_count * URA_PACK_PAGE_SIZE;
			else
				a->sum->speculative_bytes += pr.page_count * URA_PACK_PAGE_SIZE;
			pr.first_page += pr.page_count;
			left -= pr.page_count;
		}
	}
	return 0;
}

static int build_meta(struct assembly *a, struct ura_pack_builder *b, const struct found_meta *fm,
		      const uint32_t *fs_index)
{
	for (size_t i = 0; i < fm->nranges; i++) {
		struct ura_pack_meta m = {
			.fs_index = fm->fs == SIZE_MAX ? URA_PACK_NO_INDEX : fs_index[fm->fs],
			.major = fm->major,
			.minor = fm->minor,
			.offset = fm->ranges[i].first_page * URA_PACK_PAGE_SIZE,
			.length = fm->ranges[i].page_count * URA_PACK_PAGE_SIZE,
			.first_access_ns = fm->ranges[i].first_ns,
		};
		int r = ura_pack_builder_add_meta(b, &m);

		if (r < 0)
			return r;
		a->sum->meta_ranges++;
		a->sum->meta_bytes += m.length;
	}
	return 0;
}

/* A traced inode and the pack's file named for it. */
struct traced_key {
	uint32_t dev;
	uint64_t ino;
	uint32_t index;
};

static int cmp_traced(const void *x, const void *y)
{
	const struct traced_key *a = x, *b = y;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/*
 * The access log: each logged file is the pack's file named for its inode
 * (of several, on btrfs, the first); accesses to files not in the pack are
 * dropped, and so are those the builder refuses (a window past 2^51 pages).
 * With some accesses, each filesystem's readahead facts.
 */
static int build_access(struct assembly *a, struct ura_pack_builder *b, const uint32_t *fs_index,
			const uint32_t *file_index)
{
	const struct access_log *log = a->o->access;
	size_t nlog = access_file_count(log), n = access_count(log);
	struct traced_key *keys = NULL;
	uint32_t *map = NULL;
	uint64_t dropped = 0, refused = 0;
	int r = -ENOMEM;

	keys = malloc((a->nfiles ? a->nfiles : 1) * sizeof(*keys));
	map = malloc((nlog ? nlog : 1) * sizeof(*map));
	if (!keys || !map)
		goto out;
	for (size_t i = 0; i < a->nfiles; i++)
		keys[i] = (struct traced_key){ a->files[i].traced_dev, a->files[i].traced_ino,
					       file_index[i] };
	qsort(keys, a->nfiles, sizeof(*keys), cmp_traced);
	for (uint32_t id = 0; id < nlog; id++) {
		struct traced_key k = { .index = 0 }, *found;
		size_t lo = 0, hi = a->nfiles;

		access_file(log, id, &k.dev, &k.ino);
		while (lo < hi) {	/* the first key not below (dev, ino, 0) */
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_traced(&keys[mid], &k) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		found = lo < a->nfiles ? &keys[lo] : NULL;
		map[id] = found && found->dev == k.dev && found->ino == k.ino ? found->index :
			  URA_PACK_NO_INDEX;
	}
	for (size_t i = 0; i < n; i++) {
		struct ura_pack_access acc;

		access_get(log, i, &acc);
		if (map[acc.file_index] == URA_PACK_NO_INDEX) {
			dropped++;
			continue;
		}
		acc.file_index = map[acc.file_index];
		r = ura_pack_builder_add_access(b, &acc);
		if (r == -EINVAL) {
			log_debug("access %zu left out of the log: %s", i, ura_pack_builder_error(b));
			refused++;
			continue;
		}
		if (r < 0)
			goto out;
		a->sum->access_records++;
	}
	log_debug("access log: %" PRIu64 " of %zu accesses kept, %" PRIu64 " to files not in "
		  "the pack, %" PRIu64 " refused", a->sum->access_records, n, dropped, refused);
	r = 0;
	for (size_t i = 0; i < a->nfs && a->sum->access_records && r == 0; i++) {
		struct ura_pack_ra_fs ra = {
			.max_sectors_kb = a->fs[i].max_sectors_kb,
			.max_segments = a->fs[i].max_segments,
			.max_segment_kb = a->fs[i].max_segment_kb,
			.fault_around_pages = access_fault_around(log),
			.flags = access_large_folios(log, a->fs[i].kdev) ?
				 URA_PACK_RA_FS_LARGE_FOLIOS : 0,
		};

		r = ura_pack_builder_set_ra_fs(b, fs_index[i], &ra);
	}
	a->sum->access_truncated = a->sum->access_records && access_truncated(log);
out:
	free(keys);
	free(map);
	return r;
}

static char *join_argv(char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (char **a = argv; a && *a; a++)
		len += strlen(*a) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	*p = '\0';
	for (char **a = argv; a && *a; a++)
		p += sprintf(p, "%s%s", a == argv ? "" : " ", *a);
	return s;
}

/* The build stage: the pack from the gathered facts only. */
static int build(struct assembly *a, struct ura_pack_builder *b)
{
	struct ura_pack_info info = { 0 };
	struct trace_summary *sum = a->sum;
	uint32_t *fs_index = NULL, *file_index = NULL;
	char *command = NULL;
	struct utsname un;
	int r = 0;

	fs_index = calloc(a->nfs ? a->nfs : 1, sizeof(*fs_index));
	file_index = calloc(a->nfiles ? a->nfiles : 1, sizeof(*file_index));
	if (!fs_index || !file_index) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < a->nfs && r == 0; i++)
		r = ura_pack_builder_add_fs(b, &a->fs[i].rec, &fs_index[i]);
	for (size_t i = 0; i < a->nfiles && r == 0; i++)
		r = build_file(a, b, &a->files[i], fs_index, &file_index[i]);
	for (size_t i = 0; i < a->nmeta && r == 0; i++)
		r = build_meta(a, b, &a->meta[i], fs_index);
	if (r == 0 && a->o->access)
		r = build_access(a, b, fs_index, file_index);
	if (r < 0)
		goto out;
	command = join_argv(a->o->argv);
	if (!command) {
		r = -ENOMEM;
		goto out;
	}
	info.created_ns = now_realtime_ns();
	info.duration_ns = a->o->duration_ns;
	info.lost_events = sum->lost_events;
	info.unresolved_inodes = sum->unresolved_inodes;
	info.unresolved_bytes = sum->unresolved_bytes;
	info.flags = a->o->info_flags | (sum->access_truncated ? URA_PACK_INFO_ACCESS_TRUNCATED : 0);
	/* most of what the run used was cached before it: ura-dump --ra-advise needs to know */
	if (sum->cached_demanded_bytes / URA_PACK_PAGE_SIZE * 2 > a->demanded_pages)
		info.flags |= URA_PACK_INFO_WARM;
	info.read_ahead_kb = a->o->read_ahead_kb;
	info.kernel_release = uname(&un) == 0 ? un.release : "";
	info.command = command;
	r = ura_pack_builder_set_info(b, &info);
out:
	free(command);
	free(fs_index);
	free(file_index);
	return r;
}

void assemble_devices_free(struct assemble_devices *d)
{
	free(d->dev);
	*d = (struct assemble_devices){ 0 };
}

/* The devices of the filesystems gathered, each once, in order (the pack's). */
static int devices_used(const struct assembly *a, struct assemble_devices *ret)
{
	struct assemble_devices d = { .dev = calloc(a->nfs ? a->nfs : 1, sizeof(*d.dev)) };

	if (!d.dev)
		return -ENOMEM;
	for (size_t i = 0; i < a->nfs; i++) {
		unsigned major = a->fs[i].rec.major, minor = a->fs[i].rec.minor;
		bool seen = !major && !minor;

		for (size_t k = 0; k < d.n && !seen; k++)
			seen = d.dev[k][0] == major && d.dev[k][1] == minor;
		if (seen)
			continue;
		d.dev[d.n][0] = major;
		d.dev[d.n++][1] = minor;
	}
	*ret = d;
	return 0;
}

/*
 * Gather and build; then write @o->pack, or hand the builder over (@ret, when
 * not NULL). @ret_devs: the devices of the pack's filesystems, if not NULL.
 */
static int assemble(const struct assemble_opts *o, const struct trace_demand *d,
		    struct sys_view *view, const struct rakb_state *ra,
		    struct trace_summary *sum, struct ura_pack_builder **ret,
		    struct assemble_devices *ret_devs)
{
	struct assembly a = { .o = o, .demand = d, .view = view, .mt = sys_view_mounts(view),
			      .ra = ra, .sum = sum };
	struct assemble_devices devs = { 0 };
	struct ura_pack_builder *b = NULL;
	struct pageset_file *files = NULL;
	bool logged = false;
	struct stat st;
	size_t nfiles = 0;
	int r;

	a.range_flags = (o->info_flags & URA_PACK_INFO_NO_ACCESS_EVENTS) ? PAGESET_ALL_DEMANDED :
			demand_pack_flags(d);
	if (stat(o->pack, &st) == 0) {
		a.pack_dev = st.st_dev;
		a.pack_ino = st.st_ino;
	}
	a.pack_abs = realpath(o->pack, NULL);
	if (stat("/proc/self/exe", &st) == 0) {
		a.self_dev = st.st_dev;
		a.self_ino = st.st_ino;
	}
	r = pageset_files(d->pages, &files, &nfiles);
	if (r < 0)
		goto out;
	r = gather(&a, files, nfiles);
	if (r < 0)
		goto out;
	r = o->recorded_meta_only ? 0 : derive_meta(&a);
	if (r < 0)
		goto out;
	r = ura_pack_builder_new(&b);
	if (r < 0)
		goto out;
	r = build(&a, b);
	if (r < 0)
		goto out;
	if (ret_devs) {
		r = devices_used(&a, &devs);
		if (r < 0)
			goto out;
	}
	if (ret) {
		*ret = b;
		b = NULL;
		goto out;
	}
	r = ura_pack_builder_write(b, o->pack, 0644);
	if (r < 0) {
		if (r == -E2BIG)
			log_err("cannot write pack '%s': %s", o->pack, ura_pack_builder_error(b));
		else
			log_err("cannot write pack '%s': %s", o->pack, strerror(-r));
		logged = true;
		goto out;
	}
	sum->pack_written = true;
	if (ret_devs) {
		*ret_devs = devs;
		devs = (struct assemble_devices){ 0 };
	}
out:
	if (r < 0 && !logged && b && (r == -EINVAL || r == -E2BIG) &&
	    strcmp(ura_pack_builder_error(b), "no error") != 0)
		log_err("cannot build the pack: %s", ura_pack_builder_error(b));
	else if (r < 0 && !logged)
		log_err("cannot build the pack: %s", strerror(-r));
	for (size_t i = 0; i < a.nfiles; i++) {
		free(a.files[i].path);
		free(a.files[i].ranges);
	}
	for (size_t i = 0; i < a.nmeta; i++)
		free(a.meta[i].ranges);
	free(a.files);
	free(a.meta);
	free(a.fs);
	free(a.devs);
	assemble_devices_free(&devs);
	free(files);
	free(a.pack_abs);
	ura_pack_builder_free(b);
	return r;
}

int assemble_pack(const struct assemble_opts *o, const struct trace_demand *d,
		  struct sys_view *view, const struct rakb_state *ra, struct trace_summary *sum,
		  struct assemble_devices *ret_devs)
{
	return assemble(o, d, view, ra, sum, NULL, ret_devs);
}

int assemble_build(const struct assemble_opts *o, const struct trace_demand *d,
		   struct sys_view *view, const struct rakb_state *ra,
		   struct trace_summary *sum, struct ura_pack_builder **ret)
{
	return assemble(o, d, view, ra, sum, ret, NULL);
}
