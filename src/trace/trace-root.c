// SPDX-License-Identifier: GPL-2.0-or-later
/* --root: the canonical root directory, and how a mount and its paths look from it */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "trace-root.h"

int root_canonical(const char *root, char **ret)
{
	char *canon;

	if (!root) {
		*ret = NULL;
		return 0;
	}
	canon = realpath(root, NULL);
	if (!canon)
		return -errno;
	if (strcmp(canon, "/") == 0) {
		free(canon);
		canon = NULL;
	}
	*ret = canon;
	return 0;
}

bool root_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int root_view(const char *root, const char *mount_point, const char **ret_mount_point,
	      const char **ret_strip)
{
	const char *mp = mount_point;
	size_t rl, ml;

	if (!root) {
		*ret_mount_point = mp;
		*ret_strip = "";
		return 0;
	}
	rl = strlen(root);
	if (strncmp(mp, root, rl) == 0 && (mp[rl] == '/' || mp[rl] == '\0')) {
		*ret_mount_point = mp[rl] ? mp + rl : "/";	/* a mount inside the root */
		*ret_strip = "";
		return 0;
	}
	if (strcmp(mp, "/") == 0) {
		*ret_mount_point = "/";				/* the root is a directory of this fs */
		*ret_strip = root + 1;
		return 0;
	}
	ml = strlen(mp);
	if (strncmp(root, mp, ml) == 0 && root[ml] == '/') {
		*ret_mount_point = "/";
		*ret_strip = root + ml + 1;
		return 0;
	}
	return -ENOENT;						/* not visible from the root */
}
