// SPDX-License-Identifier: GPL-2.0-or-later
/* The pack file name of a program: $(systemd-escape --path EXE).pack */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "pack-name.h"

static bool plain_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == ':' || c == '_' || c == '.';
}

/* Append @c to @out (at *@n, at most @cap bytes); false when it does not fit. */
static bool put(char *out, size_t cap, size_t *n, char c)
{
	if (*n >= cap)
		return false;
	out[(*n)++] = c;
	return true;
}

static bool put_escaped(char *out, size_t cap, size_t *n, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	return put(out, cap, n, '\\') && put(out, cap, n, 'x') && put(out, cap, n, hex[c >> 4]) &&
	       put(out, cap, n, hex[c & 15]);
}

int pack_name_for_exe(const char *exe, char *buf, size_t size)
{
	char out[NAME_MAX + 1];
	const size_t cap = NAME_MAX - strlen(PACK_NAME_SUFFIX);
	const char *p = exe;
	size_t n = 0;

	if (!exe || exe[0] != '/')
		return -EINVAL;
	/* one path component at a time: simplified as systemd's path_simplify() does */
	while (*p) {
		const char *start, *end;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		start = p;
		end = strchrnul(p, '/');
		p = end;
		if (end - start == 1 && start[0] == '.')
			continue;
		if (end - start == 2 && start[0] == '.' && start[1] == '.')
			return -EINVAL;
		if (n > 0 && !put(out, cap, &n, '-'))
			return -ENAMETOOLONG;
		for (const char *c = start; c < end; c++) {
			/* a leading '.' is escaped: no hidden unit names */
			bool ok = plain_char(*c) && !(n == 0 && *c == '.');

			if (ok ? !put(out, cap, &n, *c) : !put_escaped(out, cap, &n, (unsigned char)*c))
				return -ENAMETOOLONG;
		}
	}
	if (n == 0)
		out[n++] = '-';		/* "/" */
	if (n + strlen(PACK_NAME_SUFFIX) + 1 > size)
		return -ENAMETOOLONG;
	memcpy(buf, out, n);
	memcpy(buf + n, PACK_NAME_SUFFIX, strlen(PACK_NAME_SUFFIX) + 1);
	return (int)(n + strlen(PACK_NAME_SUFFIX));
}
