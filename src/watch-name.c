// SPDX-License-Identifier: GPL-2.0-or-later
/* The pack file name of a program: $(systemd-escape --path EXE).pack (escaping: watch-escape.c) */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "watch-name.h"
#include "watch-escape.h"

int pack_name_for_exe(const char *exe, char *buf, size_t size)
{
	char *name = NULL;
	size_t n;
	int r;

	if (!exe || exe[0] != '/')
		return -EINVAL;
	r = path_escape(exe, &name);
	if (r < 0)
		return r;
	n = strlen(name);
	if (n + strlen(PACK_NAME_SUFFIX) > NAME_MAX || n + strlen(PACK_NAME_SUFFIX) + 1 > size) {
		free(name);
		return -ENAMETOOLONG;
	}
	memcpy(buf, name, n);
	memcpy(buf + n, PACK_NAME_SUFFIX, strlen(PACK_NAME_SUFFIX) + 1);
	free(name);
	return (int)(n + strlen(PACK_NAME_SUFFIX));
}
