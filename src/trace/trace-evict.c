// SPDX-License-Identifier: GPL-2.0-or-later
/* Before a trace: the files of the pack it replaces, out of the page cache where nothing maps them */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <ura/pack.h>

#include "sys-mountinfo.h"
#include "sys-safeopen.h"
#include "trace-evict.h"

/* Is a filesystem of the pack mounted here as a local disk filesystem (not FUSE)? */
static bool local_disk_fs(const struct mount_table *mt, const struct ura_pack_fs *fs)
{
	if (fs->major == 0)
		return false;
	for (size_t i = 0; i < mt->count; i++) {
		const struct mount_entry *e = &mt->entries[i];

		if (e->major == fs->major && e->minor == fs->minor)
			return !mountinfo_is_pseudo_fs(e->fstype) && !mountinfo_is_fuse(e->fstype);
	}
	return false;
}

/*
 * The directory of filesystem @fs of the pack, as seen from @rootfd (--root) or
 * from /: O_PATH (nothing of the filesystem's is called to open it), no
 * symlink followed, and on the device the pack names.
 */
static int open_fs_dir(const struct ura_pack_fs *fs, int rootfd)
{
	struct stat st;
	int fd;

	if (rootfd >= 0)
		fd = safeopen_in_root(rootfd, fs->mount_point, O_PATH | O_DIRECTORY | O_CLOEXEC);
	else
		fd = safeopen_openat2(AT_FDCWD, fs->mount_point, O_PATH | O_DIRECTORY | O_CLOEXEC,
				      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd == -ENOSYS) {
		fd = open(fs->mount_point, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		fd = fd < 0 ? -errno : fd;
	}
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || st.st_dev != makedev(fs->major, fs->minor)) {
		close(fd);
		return -EXDEV;
	}
	return fd;
}

int trace_evict_pack_files(const char *pack_path, const char *root, const struct mount_table *mt,
			   struct trace_evicted *ret)
{
	struct ura_pack *pack = NULL;
	size_t nfs, nfiles;
	int *dirs = NULL;
	int fd, rootfd = -1, r;
	struct stat st;

	memset(ret, 0, sizeof(*ret));
	/* only a pack of ours says which files to drop (a planted one could name any) */
	fd = ura_pack_open_file(pack_path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	r = ura_pack_open_fd(fd, &pack);
	close(fd);
	if (r < 0)
		return r;
	if (root) {
		rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rootfd < 0) {
			ura_pack_free(pack);
			return -errno;
		}
	}
	nfs = ura_pack_fs_count(pack);
	nfiles = ura_pack_file_count(pack);
	dirs = malloc((nfs ? nfs : 1) * sizeof(*dirs));
	if (!dirs) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nfs; i++) {
		struct ura_pack_fs fs;

		dirs[i] = ura_pack_get_fs(pack, i, &fs) < 0 ? -EBADMSG :
			  !local_disk_fs(mt, &fs) ? -EXDEV : open_fs_dir(&fs, rootfd);
	}
	for (size_t i = 0; i < nfiles; i++) {
		struct ura_pack_file f;
		struct statx stx;

		if (ura_pack_get_file(pack, i, &f) < 0 || f.fs_index >= nfs || dirs[f.fs_index] < 0)
			continue;
		/* a regular file, beneath its mount, and still the inode traced */
		fd = safeopen_file(dirs[f.fs_index], f.path, &stx);
		if (fd < 0)
			continue;
		if (stx.stx_ino == f.ino && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
			ret->files++;
		close(fd);
	}
	for (size_t i = 0; i < nfs; i++)
		if (dirs[i] >= 0)
			close(dirs[i]);
	r = 0;
out:
	free(dirs);
	if (rootfd >= 0)
		close(rootfd);
	ura_pack_free(pack);
	return r;
}
