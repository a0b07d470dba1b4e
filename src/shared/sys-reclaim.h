/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether the kernel has dropped page-cache pages since a moment: /proc/vmstat's counters */
#ifndef URA_SYS_RECLAIM_H
#define URA_SYS_RECLAIM_H

#include <stddef.h>
#include <stdint.h>

/**
 * reclaim_parse() - the page-cache reclaim count in a /proc/vmstat text
 * @text: its contents, @len bytes ("name value" lines)
 * @ret: the sum of the counters that move when the kernel takes file pages
 *	out of the cache: pgsteal_file (reclaim, a cgroup's too; Linux 5.8),
 *	pgsteal_kswapd and pgsteal_direct (reclaim outside cgroups, older
 *	kernels too), pginodesteal and kswapd_inodesteal (inodes freed with
 *	their pages), drop_pagecache (each write to drop_caches)
 *
 * What does not move them: POSIX_FADV_DONTNEED, truncation, a file deleted.
 * Return: 0, or -ENOENT when the text has none of the counters (not vmstat's).
 */
int reclaim_parse(const char *text, size_t len, uint64_t *ret);

/**
 * reclaim_count() - reclaim_parse() of /proc/vmstat now
 * Return: 0 or -errno.
 */
int reclaim_count(uint64_t *ret);

#endif
