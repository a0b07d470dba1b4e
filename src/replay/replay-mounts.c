// SPDX-License-Identifier: GPL-2.0-or-later
/* Where the filesystems of a pack are now: the live mounts, or below --root */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "util-log.h"
#include "sys-mountinfo.h"
#include "replay-mounts.h"
#include "sys-safeopen.h"
#include "sys-view.h"
#include "util.h"

/* Is device @major:@minor mounted as a FUSE filesystem anywhere in @t? */
static bool fuse_dev(const struct mount_table *t, unsigned major, unsigned minor)
{
	for (size_t i = 0; t && i < t->count; i++)
		if (t->entries[i].major == major && t->entries[i].minor == minor &&
		    mountinfo_is_fuse(t->entries[i].fstype))
			return true;
	return false;
}

/* Is @path (canonical) a FUSE mount point of @t or below one? Looked up lexically. */
static bool under_fuse(const struct mount_table *t, const char *path)
{
	for (size_t i = 0; t && i < t->count; i++) {
		const char *mp = t->entries[i].mount_point;
		size_t n = strlen(mp);

		if (mountinfo_is_fuse(t->entries[i].fstype) && strncmp(path, mp, n) == 0 &&
		    (path[n] == '/' || path[n] == '\0' || (n == 1 && mp[0] == '/')))
			return true;
	}
	return false;
}

/*
 * Open the directory @path (a mount point: canonical, from mountinfo or the
 * pack) for lookups beneath it: no symlink followed on the way (a user's
 * symlink could lead anywhere, a FUSE mount included), nor a FUSE mount
 * entered, as far as @t tells. Return: a descriptor or -errno (-EREMOTE: FUSE).
 */
static int open_mount_dir(const char *path, const struct mount_table *t)
{
	int fd;

	if (under_fuse(t, path))
		return -EREMOTE;
	fd = safeopen_openat2(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC,
			      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd == -ENOSYS) {
		fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

/*
 * The device of the directory @fd, asking nothing of its filesystem
 * (AT_STATX_DONT_SYNC), and whether it may be used: not on a FUSE mount (by its
 * mount id in @t), where every lookup would wait for a server that may never
 * answer. Return: 0, -EREMOTE (FUSE) or -errno.
 */
static int dir_device(int fd, const struct mount_table *t, unsigned *major, unsigned *minor)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_MNT_ID, &stx) < 0)
		return -errno;
	if (fuse_dev(t, stx.stx_dev_major, stx.stx_dev_minor))
		return -EREMOTE;
	for (size_t i = 0; t && (stx.stx_mask & STATX_MNT_ID) && i < t->count; i++)
		if (t->entries[i].id == stx.stx_mnt_id && mountinfo_is_fuse(t->entries[i].fstype))
			return -EREMOTE;
	*major = stx.stx_dev_major;
	*minor = stx.stx_dev_minor;
	return 0;
}

/*
 * The mount found by device number is not a usable directory (a file bind
 * mount, as /run/host/os-release in a container): try the recorded mount
 * point, if it is that filesystem. Return: 0 or -ENOMEM.
 */
static int try_recorded_mount_point(struct replay_fs *fs, const struct ura_pack_fs *pf,
				    const struct mount_table *t)
{
	int fd = open_mount_dir(pf->mount_point, t), r = 0;
	unsigned maj = 0, min = 0;

	if (fd >= 0 && dir_device(fd, t, &maj, &min) == 0 && maj == pf->major && min == pf->minor) {
		log_debug("filesystem %u:%u: '%s' is not a directory, using '%s'",
			  pf->major, pf->minor, fs->dir, pf->mount_point);
		free(fs->dir);
		fs->dir = strdup(pf->mount_point);
		fs->dirfd = fd;
		fd = -1;
		if (!fs->dir)
			r = -ENOMEM;
	}
	if (fd >= 0)
		close(fd);
	return r;
}

int replay_mounts_find(const struct ura_pack *pack, const struct sys_view *view, const char *root,
		       bool dry_run, struct replay_fs **ret)
{
	size_t nfs = ura_pack_fs_count(pack);
	const struct mount_table *tab = NULL;
	struct replay_fs *all = NULL;
	int rootfd = -1, root_err = 0, r;

	all = calloc(nfs ? nfs : 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < nfs; i++)
		all[i].dirfd = -1;
	*ret = all;
	if (root && !dry_run) {
		rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		root_err = errno;
	}
	if (!dry_run) {
		/* also under --root: which mounts are FUSE */
		tab = sys_view_mounts(view);
		if (!tab && !root)
			log_warn("cannot read '/proc/self/mountinfo': %s, using the pack's mount points",
				 strerror(-sys_view_mounts_error(view)));
	}
	for (size_t i = 0; i < nfs; i++) {
		struct replay_fs *fs = &all[i];
		const struct mount_entry *e = NULL;
		struct ura_pack_fs pf;
		unsigned maj = 0, min = 0;
		int k;

		if (ura_pack_get_fs(pack, i, &pf) < 0)
			continue;
		fs->major = pf.major;
		fs->minor = pf.minor;
		if (dry_run)
			continue;
		if (!root && fuse_dev(tab, pf.major, pf.minor)) {
			log_info("filesystem %u:%u is a FUSE filesystem (its server may never answer), "
				 "skipping its files", pf.major, pf.minor);
			continue;
		}
		if (root)
			fs->dir = path_join(root, pf.mount_point);
		else if (tab && (e = mountinfo_find_dev_at(tab, pf.major, pf.minor, pf.mount_point)))
			fs->dir = strdup(e->mount_point);
		else
			fs->dir = strdup(pf.mount_point);
		if (!fs->dir) {
			r = -ENOMEM;
			goto out;
		}
		if (root) {
			/* no symlink inside the root may lead out of it */
			fs->dirfd = rootfd < 0 ? -root_err :
				    safeopen_in_root(rootfd, pf.mount_point,
						     O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fs->dirfd < 0) {
				errno = -fs->dirfd;
				fs->dirfd = -1;
			}
		} else {
			fs->dirfd = open_mount_dir(fs->dir, tab);
			if (fs->dirfd < 0) {
				errno = -fs->dirfd;
				fs->dirfd = -1;
			}
		}
		if (fs->dirfd < 0 && e && strcmp(fs->dir, pf.mount_point) != 0) {
			r = try_recorded_mount_point(fs, &pf, tab);
			if (r < 0)
				goto out;
		}
		/*
		 * The device the files are on now (--root, device numbers changed since
		 * the trace); and never a FUSE mount (one on top of the mount point, or
		 * where a recorded mount point or --root leads): every lookup there would
		 * wait for its server.
		 */
		if (fs->dirfd >= 0) {
			k = dir_device(fs->dirfd, tab, &maj, &min);
			if (k == 0) {
				fs->major = maj;
				fs->minor = min;
			} else if (k == -EREMOTE) {
				close(fs->dirfd);
				fs->dirfd = -1;
				errno = EREMOTE;
			}
		}
		if (fs->dirfd < 0 && errno == EREMOTE) {
			log_info("filesystem %u:%u: '%s' is on a FUSE filesystem (its server may never "
				 "answer), skipping its files", pf.major, pf.minor, fs->dir);
			continue;
		}
		if (fs->dirfd < 0) {
			log_info("filesystem %u:%u is not at '%s' (%s), skipping its files",
				 pf.major, pf.minor, fs->dir, strerror(errno));
			continue;
		}
		if (!root && !e)
			log_debug("filesystem %u:%u is not mounted, trying its old mount point '%s'",
				  pf.major, pf.minor, fs->dir);
	}
	r = 0;
out:
	if (rootfd >= 0)
		close(rootfd);
	return r;
}

void replay_mounts_free(struct replay_fs *fs, size_t n)
{
	for (size_t i = 0; fs && i < n; i++) {
		if (fs[i].dirfd >= 0)
			close(fs[i].dirfd);
		free(fs[i].dir);
	}
	free(fs);
}
