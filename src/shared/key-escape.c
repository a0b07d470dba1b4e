// SPDX-License-Identifier: GPL-2.0-or-later
/* systemd's path escaping (systemd-escape --path), written from its documented rules */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "key-escape.h"

static bool plain(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == ':' || c == '_' || c == '.';
}

static char *hex(char *t, unsigned char c)
{
	static const char digits[] = "0123456789abcdef";

	*t++ = '\\';
	*t++ = 'x';
	*t++ = digits[c >> 4];
	*t++ = digits[c & 15];
	return t;
}

int key_escape_path(const char *path, char **ret)
{
	size_t n = strlen(path);
	char *clean = NULL, *out = NULL, *t;
	const char *p = path;
	size_t k = 0;
	int r = 0;

	/* simplify: components joined by single slashes, "." dropped, ".." refused */
	clean = malloc(n + 1);
	if (!clean)
		return -ENOMEM;
	while (*p) {
		const char *end;
		size_t len;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			r = -EINVAL;
			goto out;
		}
		if (len && !(len == 1 && p[0] == '.')) {
			if (k)
				clean[k++] = '/';
			memcpy(clean + k, p, len);
			k += len;
		}
		p = end;
	}
	clean[k] = '\0';
	if (!k) {
		out = strdup("-");
		r = out ? 0 : -ENOMEM;
		goto out;
	}
	out = malloc(4 * k + 1);
	if (!out) {
		r = -ENOMEM;
		goto out;
	}
	t = out;
	for (size_t i = 0; i < k; i++) {
		char c = clean[i];

		if (c == '/')
			*t++ = '-';
		else if (!plain(c) || (i == 0 && c == '.'))	/* no name starts with '.' */
			t = hex(t, (unsigned char)c);
		else
			*t++ = c;
	}
	*t = '\0';
out:
	free(clean);
	if (r == 0)
		*ret = out;
	return r;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int key_unescape_path(const char *name, size_t len, char *buf, size_t size)
{
	size_t k = 0;

	if (!len || size < 2)
		return -EINVAL;
	if (len == 1 && name[0] == '-') {
		buf[0] = '/';
		buf[1] = '\0';
		return 1;
	}
	buf[k++] = '/';
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		int hi, lo;

		if (c == '\\') {
			if (i + 3 >= len || name[i + 1] != 'x' ||
			    (hi = hexval(name[i + 2])) < 0 || (lo = hexval(name[i + 3])) < 0)
				return -EINVAL;
			c = (char)(hi << 4 | lo);
			if (!c)
				return -EINVAL;
			i += 3;
		} else if (c == '-') {
			c = '/';
		} else if (!plain(c)) {
			return -EINVAL;
		}
		if (k + 1 >= size)
			return -ENAMETOOLONG;
		buf[k++] = c;
	}
	buf[k] = '\0';
	return (int)k;
}
