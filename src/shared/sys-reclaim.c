// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/vmstat's reclaim counters, summed: while the sum stays the same, no
 * page of the page cache was reclaimed or dropped, so what was resident is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys-reclaim.h"

/* pgsteal_file is 5.8's; before it, pgsteal_kswapd and _direct (anonymous pages too) */
static const char *const counters[] = {
	"pgsteal_file", "pgsteal_kswapd", "pgsteal_direct", "pginodesteal", "kswapd_inodesteal",
	"drop_pagecache",
};

int reclaim_parse(const char *text, size_t len, uint64_t *ret)
{
	const char *p = text, *end = text + len;
	uint64_t sum = 0;
	bool any = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;
		const char *eol = nl ? nl : end;

		sp = memchr(p, ' ', (size_t)(eol - p));
		for (size_t i = 0; sp && i < sizeof(counters) / sizeof(counters[0]); i++) {
			size_t n = strlen(counters[i]);

			if ((size_t)(sp - p) == n && memcmp(p, counters[i], n) == 0) {
				uint64_t v = 0;

				for (const char *d = sp + 1; d < eol && *d >= '0' && *d <= '9'; d++)
					v = v * 10 + (uint64_t)(*d - '0');
				sum += v;
				any = true;
				break;
			}
		}
		p = eol + 1;
	}
	*ret = sum;
	return any ? 0 : -ENOENT;
}

int reclaim_count(uint64_t *ret)
{
	char buf[16384];
	size_t len = 0;
	ssize_t n = 0;
	int fd, r;

	fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += (size_t)n;
	r = n < 0 ? -errno : 0;
	close(fd);
	return r < 0 ? r : reclaim_parse(buf, len, ret);
}
