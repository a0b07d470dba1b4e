// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by the tools: number parsing, clocks, UTF-8, paths, "is this ura-trace" */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sys-proc.h"
#include "util.h"

int parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_seconds(const char *s, uint64_t *ret_ns)
{
	uint64_t whole = 0, frac = 0, scale = 1000000000;
	const char *p = s;

	if (!s || !*s || (*s == '.' && !s[1]))
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX / 1000000000 - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
	if (*p || p == s)
		return -EINVAL;
	*ret_ns = whole * 1000000000 + frac;
	return 0;
}

int parse_size(const char *s, uint64_t *ret)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && strcmp(end + 1, "iB") != 0 && strcmp(end + 1, "B") != 0)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*ret = (uint64_t)v << shift;
	return 0;
}

uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

uint64_t now_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

int64_t now_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *ret_cp)
{
	size_t len;
	uint32_t cp;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		len = 1;
		cp = p[0];
		goto out;
	}
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
out:
	if (ret_cp)
		*ret_cp = cp;
	return len;
}

char *path_join(const char *dir, const char *rel)
{
	size_t dl = strlen(dir), rl = strlen(rel);
	char *s;

	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	s = malloc(dl + 1 + rl + 1);
	if (!s)
		return NULL;
	memcpy(s, dir, dl);
	if (!(dl == 1 && dir[0] == '/'))
		s[dl++] = '/';
	memcpy(s + dl, rel, rl + 1);
	return s;
}

bool pid_is_ura_trace(pid_t pid)
{
	char comm[32];

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	if (proc_read(pid, "comm", comm, sizeof(comm)) < 0)
		return true;	/* cannot tell: assume it runs */
	return strncmp(comm, "ura-trace", 9) == 0;
}
