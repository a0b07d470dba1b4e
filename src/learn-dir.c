// SPDX-License-Identifier: GPL-2.0-or-later
/* The directory of learned packs: private, locked around read-merge-write, bounded */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "learn-dir.h"

int packdir_make(const char *dir)
{
	struct stat st;
	int fd, r = 0;

	if (mkdir(dir, PACKDIR_MODE) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (st.st_uid != 0 && st.st_uid != geteuid())
		r = -EPERM;
	else if ((st.st_mode & 07777) != PACKDIR_MODE)
		r = fchmod(fd, PACKDIR_MODE) < 0 ? -errno : 0;
	close(fd);
	return r;
}

int packdir_lock(const char *dir, int *ret_fd)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0) {
		int r = -errno;

		if (r == -EINTR)
			continue;
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

char *packdir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}
