/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Page-cache residency of a file range: cachestat(2), and mincore(2) where it is missing */
#ifndef URA_SYS_RESIDENCY_H
#define URA_SYS_RESIDENCY_H

#include <stdint.h>

/*
 * Pages here are URA_PACK_PAGE_SIZE bytes, whatever the system's page size;
 * offsets are multiples of it (mmap needs them aligned to the system's page).
 */

/**
 * residency_cached() - bytes of [@off, @off + @len) of @fd in the page cache
 * @ret: the bytes, at most @len; pages still being read count
 *
 * One cachestat(2) (Linux 6.5): cheap for any length.
 * Return: 0, -ENOSYS (for good once seen) where cachestat is missing, or -errno.
 */
int residency_cached(int fd, uint64_t off, uint64_t len, uint64_t *ret);

/**
 * residency_map() - which pages of [@off, @off + @len) of @fd are resident and up to date
 * @ret: one byte per page, (@len + URA_PACK_PAGE_SIZE - 1) / URA_PACK_PAGE_SIZE of
 *	them: 1 if resident, else 0
 *
 * mincore(2) on a PROT_NONE mapping of only that window (valgrind reads files
 * mapped readable). A page past the end of the file reads as not resident.
 * Return: 0 or -errno (mmap's or mincore's, -ENOMEM).
 */
int residency_map(int fd, uint64_t off, uint64_t len, unsigned char *ret);

/**
 * residency_uptodate() - bytes of [@off, @off + @len) of @fd resident and up to date
 * @ret: the bytes, at most @len (the last page counts only its part of @len)
 *
 * mincore(2), by residency_map(): a page still being read does not count.
 * Return: 0 or -errno.
 */
int residency_uptodate(int fd, uint64_t off, uint64_t len, uint64_t *ret);

/**
 * residency_bytes() - bytes of [@off, @off + @len) of @fd in the page cache
 *
 * residency_cached(), else residency_uptodate() where cachestat is missing.
 * Return: 0 or -errno.
 */
int residency_bytes(int fd, uint64_t off, uint64_t len, uint64_t *ret);

#endif
