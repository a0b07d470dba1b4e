// SPDX-License-Identifier: GPL-2.0-or-later
/* Where the filesystems of a pack are now: the live mounts, or below --root */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util-log.h"
#include "sys-mountinfo.h"
#include "replay-mounts.h"
#include "sys-safeopen.h"
#include "sys-view.h"
#include "util.h"

/*
 * The mount found by device number is not a usable directory (a file bind
 * mount, as /run/host/os-release in a container): try the recorded mount
 * point, if it is that filesystem. Return: 0 or -ENOMEM.
 */
static int try_recorded_mount_point(struct replay_fs *fs, const struct ura_pack_fs *pf)
{
	struct stat st;
	int fd = open(pf->mount_point, O_PATH | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == makedev(pf->major, pf->minor)) {
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
	if (!root && !dry_run) {
		tab = sys_view_mounts(view);
		if (!tab)
			log_warn("cannot read '/proc/self/mountinfo': %s, using the pack's mount points",
				 strerror(-sys_view_mounts_error(view)));
	}
	for (size_t i = 0; i < nfs; i++) {
		struct replay_fs *fs = &all[i];
		const struct mount_entry *e = NULL;
		struct ura_pack_fs pf;
		struct stat st;

		if (ura_pack_get_fs(pack, i, &pf) < 0)
			continue;
		fs->major = pf.major;
		fs->minor = pf.minor;
		if (dry_run)
			continue;
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
			fs->dirfd = open(fs->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		}
		if (fs->dirfd < 0 && e && strcmp(fs->dir, pf.mount_point) != 0) {
			r = try_recorded_mount_point(fs, &pf);
			if (r < 0)
				goto out;
		}
		/* the device the files are on now (--root, device numbers changed since the trace) */
		if (fs->dirfd >= 0 && fstat(fs->dirfd, &st) == 0) {
			fs->major = major(st.st_dev);
			fs->minor = minor(st.st_dev);
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
