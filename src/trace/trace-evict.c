// SPDX-License-Identifier: GPL-2.0-or-later
/* Before a trace: the files of the pack it replaces, out of the page cache where nothing maps them */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ura/pack.h>

#include "sys-safeopen.h"
#include "trace-evict.h"
#include "util-log.h"
#include "util.h"

/* The directory of filesystem @fs of the pack, as seen from @root (NULL: /). */
static int open_fs_dir(const struct ura_pack_fs *fs, const char *root)
{
	char *dir = path_join(root ? root : "/", fs->mount_point);
	int fd;

	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	free(dir);
	return fd < 0 ? -errno : fd;
}

int trace_evict_pack_files(const char *pack_path, const char *root, struct trace_evicted *ret)
{
	struct ura_pack *pack = NULL;
	size_t nfs, nfiles;
	struct stat st;
	int *dirs = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	/* only a pack of ours says which files to drop (a planted one could name any) */
	if (lstat(pack_path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	r = ura_pack_open(pack_path, &pack);
	if (r < 0)
		return r;
	nfs = ura_pack_fs_count(pack);
	nfiles = ura_pack_file_count(pack);
	dirs = malloc((nfs ? nfs : 1) * sizeof(*dirs));
	if (!dirs) {
		ura_pack_free(pack);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nfs; i++) {
		struct ura_pack_fs fs;

		dirs[i] = ura_pack_get_fs(pack, i, &fs) < 0 ? -EBADMSG : open_fs_dir(&fs, root);
	}
	for (size_t i = 0; i < nfiles; i++) {
		struct ura_pack_file f;
		struct statx stx;
		int fd;

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
	free(dirs);
	ura_pack_free(pack);
	return 0;
}
