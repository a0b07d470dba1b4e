// SPDX-License-Identifier: GPL-2.0-or-later
/* (device, inode) -> path: open_by_handle_at fast path and getdents64 walk */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sys-mountinfo.h"
#include "trace-resolve.h"
#include "util-log.h"
#include "sys-safeopen.h"

/* BTRFS_FIRST_FREE_OBJECTID: the inode number of every btrfs subvolume's root */
#define BTRFS_SUBVOL_ROOT_INO	256

/* Deeper directories are not walked: each level holds one open descriptor. */
#define WALK_MAX_DEPTH	256
#define DENTS_BUF_SIZE	((size_t)64 * 1024)

/* FILEID_INO32_GEN in the kernel's exportfs.h: a 32-bit inode and a generation. */
#define HANDLE_INO32_GEN	1

#define DELETED_SUFFIX	" (deleted)"

/* After this many handle lookups, go on only if at least a quarter gave an answer. */
#define HANDLE_SAMPLE	64

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* One distinct wanted inode; the items asking for it are chained through wantset.next. */
struct want {
	uint64_t ino;		/* 0: empty slot (no inode is numbered 0) */
	size_t first;		/* first item asking for it */
	bool found;
};

struct wantset {
	struct want *slots;
	size_t mask;
	size_t *next;		/* per item: the next item with the same inode, or SIZE_MAX */
	size_t left;		/* distinct inodes still to find */
	struct resolve_item *items;
};

static size_t hash_ino(uint64_t ino)
{
	ino ^= ino >> 33;
	ino *= 0xff51afd7ed558ccdULL;
	ino ^= ino >> 33;
	return (size_t)ino;
}

static struct want *wantset_lookup(const struct wantset *ws, uint64_t ino)
{
	size_t i = hash_ino(ino) & ws->mask;

	if (ino == 0)
		return NULL;	/* 0 marks an empty slot */

	for (;;) {
		struct want *w = &ws->slots[i];

		if (w->ino == ino)
			return w;
		if (w->ino == 0)
			return NULL;
		i = (i + 1) & ws->mask;
	}
}

static void wantset_free(struct wantset *ws)
{
	free(ws->slots);
	free(ws->next);
	ws->slots = NULL;
	ws->next = NULL;
}

/* Items that already have a path, or name inode 0, are not looked for. */
static int wantset_init(struct wantset *ws, struct resolve_item *items, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	*ws = (struct wantset){ .mask = cap - 1, .items = items };
	ws->slots = calloc(cap, sizeof(*ws->slots));
	ws->next = malloc((n ? n : 1) * sizeof(*ws->next));
	if (!ws->slots || !ws->next) {
		wantset_free(ws);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t s;

		ws->next[i] = SIZE_MAX;
		if (items[i].path || items[i].ino == 0)
			continue;
		s = hash_ino(items[i].ino) & ws->mask;
		while (ws->slots[s].ino && ws->slots[s].ino != items[i].ino)
			s = (s + 1) & ws->mask;
		if (ws->slots[s].ino) {
			ws->next[i] = ws->slots[s].first;
			ws->slots[s].first = i;
		} else {
			ws->slots[s] = (struct want){ .ino = items[i].ino, .first = i };
			ws->left++;
		}
	}
	return 0;
}

/* Give @path (relative to the mount directory) to every item asking for @w. */
static int wantset_found(struct wantset *ws, struct want *w, const char *path)
{
	for (size_t i = w->first; i != SIZE_MAX; i = ws->next[i]) {
		if (ws->items[i].path)
			continue;
		ws->items[i].path = strdup(path);
		if (!ws->items[i].path)
			return -ENOMEM;
	}
	w->found = true;
	ws->left--;
	return 0;
}

/* @w has no name to find: stop looking for it (its items stay unresolved). */
static void wantset_gone(struct wantset *ws, struct want *w)
{
	w->found = true;
	ws->left--;
}

/* ---- fast path: open_by_handle_at, then ask /proc where the file is ---- */

/*
 * With CAP_DAC_READ_SEARCH in the initial user namespace the kernel takes any
 * dentry a handle decodes to, so ESTALE comes from the filesystem alone. Other
 * callers that may use handles (6.9+, inside a user namespace) get ESTALE also
 * for a live file that is merely not connected below the mount: no conclusion.
 */
static bool handles_unrestricted(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };
	char map[128] = "", *nl;
	unsigned long a = 1, b = 1, c = 0;
	ssize_t n;
	int fd;

	if (syscall(SYS_capget, &hdr, data) < 0 || !(data[0].effective & (1u << CAP_DAC_READ_SEARCH)))
		return false;
	/* The initial user namespace maps every id to itself: "0 0 4294967295" */
	fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return false;
	n = read(fd, map, sizeof(map) - 1);
	close(fd);
	if (n <= 0)
		return false;
	map[n] = '\0';
	nl = strchr(map, '\n');
	if (nl && nl[1] != '\0')
		return false;	/* several ranges: not the initial namespace */
	return sscanf(map, "%lu %lu %lu", &a, &b, &c) == 3 && a == 0 && b == 0 &&
	       c == 4294967295UL;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t sl = strlen(suffix);

	return len >= sl && memcmp(s + len - sl, suffix, sl) == 0;
}

static int fd_path(int fd, char *buf, size_t size, size_t *ret_len)
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, size);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	*ret_len = (size_t)n;
	return 0;
}

/*
 * Name one inode through a handle. The answer is used only when it lies under
 * the mount directory and, looked up again from there, leads back to the same
 * (device, inode): a disconnected dentry reads "/", a deleted file ends in
 * " (deleted)", and with a bind mount of a subdirectory the file may be outside.
 *
 * A handle also tells when no name can exist: ESTALE (ext4 refuses free,
 * deleted, reserved and xattr inodes) or a link count of 0 (deleted, still
 * open); or none a pack can hold: a path longer than PATH_MAX. Such inodes are dropped from the walk's list, so one deleted file
 * does not cost a walk of the whole filesystem.
 *
 * Returns 1 named, 2 nameless, 0 not known (the walk will try), or -errno to
 * stop using handles.
 */
static int handle_one(int root_fd, const char *prefix, size_t prefix_len, dev_t dev,
		      bool estale_is_gone, struct wantset *ws, struct want *w, char *buf,
		      size_t size, const struct mount_table *mounts)
{
	union {
		struct file_handle fh;
		char space[sizeof(struct file_handle) + 2 * sizeof(uint32_t)];
	} h;
	uint32_t words[2] = { (uint32_t)w->ino, 0 };	/* generation 0: ext4 skips the check */
	struct stat st;
	const char *rel;
	size_t len = 0;
	int fd, r;

	if (w->ino > UINT32_MAX)
		return 0;
	h.fh.handle_bytes = sizeof(words);
	h.fh.handle_type = HANDLE_INO32_GEN;
	memcpy(h.fh.f_handle, words, sizeof(words));
	fd = open_by_handle_at(root_fd, &h.fh, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* No privilege or no export support: no handle will work, stop trying. */
		if (errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL)
			return -errno;
		if (errno == ESTALE && estale_is_gone) {
			wantset_gone(ws, w);
			return 2;
		}
		return 0;	/* this inode only */
	}
	r = 0;
	if (fstat(fd, &st) < 0 || st.st_ino != w->ino || st.st_dev != dev)
		goto out;
	if (st.st_nlink == 0) {
		wantset_gone(ws, w);
		r = 2;
		goto out;
	}
	r = fd_path(fd, buf, size, &len);
	if (r == -ENAMETOOLONG) {
		/* deeper than a path can name (PATH_MAX): no pack can hold it, nor the walk find it */
		wantset_gone(ws, w);
		r = 2;
		goto out;
	}
	r = 0;
	if (len == 0 || has_suffix(buf, len, DELETED_SUFFIX))
		goto out;
	if (len <= prefix_len + 1 || memcmp(buf, prefix, prefix_len) != 0 || buf[prefix_len] != '/')
		goto out;
	rel = buf + prefix_len + 1;
	/*
	 * The name leads back to the inode, from @root_fd following no symlink and
	 * entering only mounts of the table that are not FUSE nor a network's
	 * (another of the same filesystem, a bind mount, is crossed): the name is
	 * the kernel's, but what is at it now is a user's choice (a FUSE mount whose
	 * server never answers, put over a directory of the path, would hang a
	 * lookup; a symlink put in its place would lead elsewhere). Without the
	 * table, no mount is crossed.
	 */
	close(fd);
	fd = mounts ? safeopen_walk_mounts(root_fd, rel, O_PATH, mountinfo_walk_ok, (void *)mounts) :
		      safeopen_beneath(root_fd, rel, O_PATH);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_ino != w->ino || st.st_dev != dev)
		goto out;
	r = wantset_found(ws, w, rel);
	if (r == 0)
		r = 1;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

static int resolve_by_handle(int root_fd, dev_t dev, struct wantset *ws,
			     const struct mount_table *mounts)
{
	size_t size = PATH_MAX + sizeof(DELETED_SUFFIX) + 1, prefix_len = 0, tried = 0, answered = 0;
	char *prefix = NULL, *buf = NULL;
	struct statfs sfs;
	bool estale_is_gone;
	int r;

	/* Generation 0 means "any generation" only to ext2/3/4 (ext4_nfs_get_inode). */
	if (fstatfs(root_fd, &sfs) < 0 || sfs.f_type != EXT4_SUPER_MAGIC)
		return 0;
	prefix = malloc(size);
	buf = malloc(size);
	if (!prefix || !buf) {
		r = -ENOMEM;
		goto out;
	}
	r = fd_path(root_fd, prefix, size, &prefix_len);
	if (r < 0) {
		r = 0;		/* no /proc: the walk will do */
		goto out;
	}
	if (strcmp(prefix, "/") == 0)
		prefix_len = 0;
	estale_is_gone = handles_unrestricted();
	r = 0;
	for (size_t i = 0; i <= ws->mask && ws->left; i++) {
		struct want *w = &ws->slots[i];

		if (!w->ino || w->found)
			continue;
		/*
		 * Handles name only files whose dentries are cached; each miss reads an
		 * inode from disk for nothing. When most of a first sample misses, the
		 * cache is cold: leave everything to the walk.
		 */
		if (tried == HANDLE_SAMPLE && answered * 4 < tried)
			break;
		r = handle_one(root_fd, prefix, prefix_len, dev, estale_is_gone, ws, w, buf, size,
			       mounts);
		if (r < 0)
			break;
		tried++;
		answered += r > 0;
	}
	/* Only running out of memory is an error; anything else leaves work for the walk. */
	r = r == -ENOMEM ? r : 0;
out:
	free(prefix);
	free(buf);
	return r;
}

/* ---- the walk ---- */

struct frame {
	int fd;
	char *subdirs;		/* names of the subdirectories, each NUL-terminated */
	size_t len, cap, pos;
	size_t path_len;	/* length of this directory's path in walk.path */
};

struct walk {
	dev_t dev;
	struct wantset *ws;
	char *path;		/* the current directory, relative to the mount directory */
	size_t path_cap;
	bool no_noatime;
	bool files_only;	/* btrfs: regular files only (a subvolume's entry holds its id) */
	bool list_subvols;	/* note nested btrfs subvolumes, walk everything */
	char **subvols;
	size_t nsubvols;
};

static int path_set(struct walk *wk, size_t at, const char *name)
{
	size_t nl = strlen(name), need = at + 1 + nl + 1;

	if (need > wk->path_cap) {
		size_t cap = wk->path_cap ? wk->path_cap : 256;
		char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(wk->path, cap);
		if (!p)
			return -ENOMEM;
		wk->path = p;
		wk->path_cap = cap;
	}
	if (at > 0)
		wk->path[at++] = '/';
	memcpy(wk->path + at, name, nl + 1);
	return (int)(at + nl);
}

static int frame_add_subdir(struct frame *f, const char *name)
{
	size_t nl = strlen(name) + 1;

	if (f->len + nl > f->cap) {
		size_t cap = f->cap ? f->cap : 1024;
		char *p;

		while (cap < f->len + nl)
			cap *= 2;
		p = realloc(f->subdirs, cap);
		if (!p)
			return -ENOMEM;
		f->subdirs = p;
		f->cap = cap;
	}
	memcpy(f->subdirs + f->len, name, nl);
	f->len += nl;
	return 0;
}

static bool is_dot(const char *name)
{
	return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* Read one directory: name the wanted inodes in it, note its subdirectories. */
static int scan_dir(struct walk *wk, struct frame *f, char *dents)
{
	for (;;) {
		long n = syscall(SYS_getdents64, f->fd, dents, DENTS_BUF_SIZE);

		if (n < 0)
			return errno == ENOENT ? 0 : -errno;	/* ENOENT: removed meanwhile */
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(dents + off);
			unsigned char type = d->d_type;
			struct want *w;
			int r;

			off += d->d_reclen;
			if (is_dot(d->d_name))
				continue;
			w = wantset_lookup(wk->ws, d->d_ino);
			if (w && !w->found &&
			    !(wk->files_only && type != DT_REG && type != DT_UNKNOWN)) {
				r = path_set(wk, f->path_len, d->d_name);
				if (r < 0)
					return r;
				r = wantset_found(wk->ws, w, wk->path);
				if (r < 0)
					return r;
				if (wk->ws->left == 0)
					return 0;
			}
			if (type == DT_UNKNOWN) {	/* filesystems without d_type: ask */
				struct stat st;

				if (fstatat(f->fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				    S_ISDIR(st.st_mode))
					type = DT_DIR;
			}
			if (type == DT_DIR) {
				r = frame_add_subdir(f, d->d_name);
				if (r < 0)
					return r;
			}
		}
	}
}

/*
 * Open a subdirectory without following symlinks or crossing into another
 * mount; RESOLVE_NO_XDEV refuses a mount point before the other filesystem is
 * read. The caller still compares st_dev (btrfs subvolumes are not mounts).
 * Without openat2 (old kernels, valgrind, seccomp filters), a mount point is
 * told by its mount id: a bind mount of the same filesystem keeps st_dev.
 * (safeopen_walk() would also refuse a btrfs subvolume where the kernel tells
 * no mount ids; here they are walked into.)
 */
static int open_subdir(struct walk *wk, int dir_fd, const char *name)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
	int fd;

	if (!wk->no_noatime)
		flags |= O_NOATIME;
	for (;;) {
		fd = safeopen_openat2(dir_fd, name, flags, RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS |
					RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH);
		if (fd == -ENOSYS) {
			uint64_t up, here;

			fd = openat(dir_fd, name, flags);
			if (fd < 0)
				fd = -errno;
			else if (safeopen_mount_id(dir_fd, &up) == 0 &&
				 safeopen_mount_id(fd, &here) == 0 && up != here) {
				close(fd);
				return -EXDEV;
			}
		}
		if (fd == -EPERM && (flags & O_NOATIME)) {
			/* O_NOATIME needs ownership or CAP_FOWNER */
			wk->no_noatime = true;
			flags &= ~O_NOATIME;
			continue;
		}
		return fd;
	}
}

static void frame_release(struct frame *f, int keep_fd)
{
	if (f->fd >= 0 && f->fd != keep_fd)
		close(f->fd);
	free(f->subdirs);
	*f = (struct frame){ .fd = -1 };
}

/* Note the subvolume at @name, a subdirectory of the current frame's directory. */
static int subvol_add(struct walk *wk, size_t at, const char *name)
{
	char **p;
	int r;

	r = path_set(wk, at, name);
	if (r < 0)
		return r;
	p = realloc(wk->subvols, (wk->nsubvols + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	wk->subvols = p;
	p[wk->nsubvols] = strdup(wk->path);
	if (!p[wk->nsubvols])
		return -ENOMEM;
	wk->nsubvols++;
	return 0;
}

/* The walk itself: @wk->dev and @wk->ws set; with @wk->list_subvols, to the end. */
static int walk_tree(struct walk *wk, int root_fd)
{
	struct wantset *ws = wk->ws;
	dev_t dev = wk->dev;
	struct frame *stack = NULL;
	char *dents = NULL;
	size_t depth = 0;
	int r;

	dents = malloc(DENTS_BUF_SIZE);
	stack = calloc(WALK_MAX_DEPTH, sizeof(*stack));
	if (!dents || !stack) {
		r = -ENOMEM;
		goto out;
	}
	r = path_set(wk, 0, "");
	if (r < 0)
		goto out;
	/* The root: its own inode has the path "." */
	{
		struct stat st;
		struct want *w;

		if (fstat(root_fd, &st) == 0 && (w = wantset_lookup(ws, st.st_ino)) && !w->found) {
			r = wantset_found(ws, w, ".");
			if (r < 0)
				goto out;
		}
	}
	if (ws->left == 0 && !wk->list_subvols) {
		r = 0;
		goto out;
	}
	stack[0] = (struct frame){ .fd = root_fd };
	depth = 1;
	r = scan_dir(wk, &stack[0], dents);
	if (r < 0)
		goto out;
	while (depth > 0 && (ws->left > 0 || wk->list_subvols)) {
		struct frame *top = &stack[depth - 1];
		const char *name;
		struct stat st;
		int fd;

		if (top->pos >= top->len) {
			frame_release(top, root_fd);
			depth--;
			continue;
		}
		name = top->subdirs + top->pos;
		top->pos += strlen(name) + 1;
		if (depth == WALK_MAX_DEPTH)
			continue;
		fd = open_subdir(wk, top->fd, name);
		if (fd < 0) {
			if (fd == -ENOMEM)
				goto out;
			continue;	/* a mount point, removed, or unreadable: skip it */
		}
		if (fstat(fd, &st) < 0) {
			close(fd);
			continue;
		}
		if (st.st_dev != dev) {
			close(fd);
			/* not a mount point (open_subdir said so): a btrfs subvolume */
			if (wk->list_subvols && st.st_ino == BTRFS_SUBVOL_ROOT_INO) {
				r = subvol_add(wk, top->path_len, name);
				if (r < 0)
					goto out;
			}
			continue;
		}
		r = path_set(wk, top->path_len, name);
		if (r < 0) {
			close(fd);
			goto out;
		}
		stack[depth] = (struct frame){ .fd = fd, .path_len = (size_t)r };
		depth++;
		r = scan_dir(wk, &stack[depth - 1], dents);
		if (r == -ENOMEM)
			goto out;
	}
	r = 0;
out:
	for (size_t i = 0; i < depth; i++)
		frame_release(&stack[i], root_fd);
	free(stack);
	free(dents);
	return r;
}

static int resolve_by_walk(int root_fd, dev_t dev, struct wantset *ws)
{
	struct walk wk = { .dev = dev, .ws = ws };
	struct statfs sfs;
	int r;

	wk.files_only = fstatfs(root_fd, &sfs) == 0 && sfs.f_type == BTRFS_SUPER_MAGIC;
	r = walk_tree(&wk, root_fd);
	free(wk.path);
	free(wk.subvols);	/* none: list_subvols is off */
	return r;
}

/*
 * Is the mount holding @fd numbered @dev in the mount table? For btrfs, whose
 * st_dev is a subvolume's own anonymous device, this is how to tell that @dev
 * (the superblock's, as in the trace) is right. 0 yes, -EXDEV no, other
 * -errno: no way to know (no statx mount id, no table: @t is NULL).
 */
static int mount_dev_matches(int fd, dev_t dev, const struct mount_table *t)
{
	uint64_t id;
	int r;

	if (!t)
		return -ENOENT;
	r = safeopen_mount_id(fd, &id);
	if (r < 0)
		return r;
	r = -ENOENT;
	for (size_t i = 0; i < t->count; i++) {
		const struct mount_entry *e = &t->entries[i];

		if (e->id == id) {
			r = makedev(e->major, e->minor) == dev ? 0 : -EXDEV;
			break;
		}
	}
	return r;
}

int resolve_open_dir(const char *dir, const struct mount_table *mounts)
{
	int root_fd, pfd, fd;

	if (!mounts || strcmp(dir, "/") == 0 || dir[0] != '/') {
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
		return fd < 0 ? -errno : fd;
	}
	root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	pfd = safeopen_walk_mounts(root_fd, dir + 1, O_PATH | O_DIRECTORY, mountinfo_walk_ok,
				   (void *)mounts);
	close(root_fd);
	if (pfd < 0)
		return pfd;
	fd = safeopen_reopen(pfd, O_RDONLY | O_DIRECTORY);
	close(pfd);
	return fd;
}

long resolve_inodes(const char *mount_dir, unsigned major, unsigned minor,
		    struct resolve_item *items, size_t n, unsigned methods,
		    const struct mount_table *mounts)
{
	struct wantset ws = { 0 };
	struct statfs sfs;
	struct stat st;
	dev_t dev = makedev(major, minor);
	long count = 0;
	int root_fd, r;

	root_fd = resolve_open_dir(mount_dir, mounts);
	if (root_fd < 0)
		return root_fd;
	if (fstat(root_fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (st.st_dev != dev) {
		/*
		 * btrfs reports a subvolume's own anonymous device in st_dev, not the
		 * one in mountinfo and the trace: walk the subvolume mounted here.
		 * Anything else is another filesystem (say, mounted over this one).
		 */
		if (fstatfs(root_fd, &sfs) < 0 || sfs.f_type != BTRFS_SUPER_MAGIC ||
		    mount_dev_matches(root_fd, dev, mounts) == -EXDEV) {
			r = -EXDEV;
			goto out;
		}
		dev = st.st_dev;
	}
	r = wantset_init(&ws, items, n);
	if (r < 0)
		goto out;
	if ((methods & RESOLVE_HANDLE) && ws.left > 0) {
		r = resolve_by_handle(root_fd, dev, &ws, mounts);
		if (r < 0)
			goto out;
	}
	if ((methods & RESOLVE_WALK) && ws.left > 0) {
		log_debug("'%s': walking the filesystem for %zu inodes", mount_dir, ws.left);
		r = resolve_by_walk(root_fd, dev, &ws);
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	wantset_free(&ws);
	close(root_fd);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		count += items[i].path != NULL;
	return count;
}

/* Give the subvolumes noted since @from the prefix @dir (a subvolume's path). */
static int subvols_prefix(struct walk *wk, size_t from, const char *dir)
{
	for (size_t i = from; i < wk->nsubvols; i++) {
		char *p;

		if (asprintf(&p, "%s/%s", dir, wk->subvols[i]) < 0)
			return -ENOMEM;
		free(wk->subvols[i]);
		wk->subvols[i] = p;
	}
	return 0;
}

long resolve_subvolumes(const char *mount_dir, char ***ret, const struct mount_table *mounts)
{
	struct wantset ws = { 0 };
	struct walk wk = { .list_subvols = true, .ws = &ws };
	struct statfs sfs;
	int root_fd, r;

	root_fd = resolve_open_dir(mount_dir, mounts);
	if (root_fd < 0)
		return root_fd;
	if (fstatfs(root_fd, &sfs) < 0) {
		r = -errno;
		goto out;
	}
	r = subvol_add(&wk, 0, ".");
	if (r < 0)
		goto out;
	r = wantset_init(&ws, NULL, 0);
	if (r < 0)
		goto out;
	/* each subvolume found is walked in turn, for the ones nested in it */
	for (size_t i = 0; sfs.f_type == BTRFS_SUPER_MAGIC && i < wk.nsubvols; i++) {
		size_t from = wk.nsubvols;
		struct stat st;
		int fd;

		fd = i == 0 ? root_fd : openat(root_fd, wk.subvols[i],
					       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;	/* removed meanwhile */
		if (fstat(fd, &st) < 0) {
			r = -errno;
			if (fd != root_fd)
				close(fd);
			goto out;
		}
		wk.dev = st.st_dev;
		r = walk_tree(&wk, fd);
		if (fd != root_fd)
			close(fd);
		if (r < 0)
			goto out;
		if (i > 0) {
			r = subvols_prefix(&wk, from, wk.subvols[i]);
			if (r < 0)
				goto out;
		}
	}
	*ret = wk.subvols;
	r = (int)wk.nsubvols;
	wk.subvols = NULL;
	wk.nsubvols = 0;
out:
	for (size_t i = 0; i < wk.nsubvols; i++)
		free(wk.subvols[i]);
	free(wk.subvols);
	free(wk.path);
	wantset_free(&ws);
	close(root_fd);
	return r;
}
