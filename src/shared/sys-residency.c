// SPDX-License-Identifier: GPL-2.0-or-later
/* Page-cache residency of a file range: cachestat(2), and mincore(2) where it is missing */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ura/pack.h>

#include "sys-residency.h"

#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif

/* cachestat(2), defined here since the installed kernel headers may predate it */
struct cs_range {
	uint64_t off;
	uint64_t len;
};

struct cs_stat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

int residency_cached(int fd, uint64_t off, uint64_t len, uint64_t *ret)
{
	static int no_cachestat;
	struct cs_range range = { off, len };
	struct cs_stat cs;

	if (__atomic_load_n(&no_cachestat, __ATOMIC_RELAXED))
		return -ENOSYS;
	if (syscall(SYS_cachestat, fd, &range, &cs, 0) == 0) {
		*ret = cs.nr_cache * URA_PACK_PAGE_SIZE > len ? len : cs.nr_cache * URA_PACK_PAGE_SIZE;
		return 0;
	}
	if (errno == ENOSYS)
		__atomic_store_n(&no_cachestat, 1, __ATOMIC_RELAXED);
	return -errno;
}

int residency_map(int fd, uint64_t off, uint64_t len, unsigned char *ret)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t pages = (len + URA_PACK_PAGE_SIZE - 1) / URA_PACK_PAGE_SIZE;
	uint64_t moff = off / psz * psz, mlen = off + len - moff;
	unsigned char *vec = ret;
	void *map = MAP_FAILED;
	int r = 0;

	if (!len)
		return 0;
	/* the system's pages are the pack's (x86): mincore() fills @ret itself */
	if (psz != URA_PACK_PAGE_SIZE) {
		vec = malloc((mlen + psz - 1) / psz);
		if (!vec)
			return -ENOMEM;
	}
	/* PROT_NONE: mincore() needs no access, and valgrind reads files mapped readable */
	map = mmap(NULL, (size_t)mlen, PROT_NONE, MAP_SHARED, fd, (off_t)moff);
	if (map == MAP_FAILED || mincore(map, (size_t)mlen, vec) < 0) {
		r = -errno;
		goto out;
	}
	if (vec == ret)
		for (uint64_t p = 0; p < pages; p++)
			ret[p] &= 1;
	else
		for (uint64_t p = 0; p < pages; p++)
			ret[p] = vec[(off + p * URA_PACK_PAGE_SIZE - moff) / psz] & 1;
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)mlen);
	if (vec != ret)
		free(vec);
	return r;
}

int residency_uptodate(int fd, uint64_t off, uint64_t len, uint64_t *ret)
{
	size_t pages = (size_t)((len + URA_PACK_PAGE_SIZE - 1) / URA_PACK_PAGE_SIZE);
	unsigned char *vec;
	uint64_t n = 0;
	int r;

	if (!len) {
		*ret = 0;
		return 0;
	}
	vec = calloc(pages, 1);
	if (!vec)
		return -ENOMEM;
	r = residency_map(fd, off, len, vec);
	if (r == 0) {
		for (size_t p = 0; p < pages; p++)
			if (vec[p])
				n += p + 1 == pages && len % URA_PACK_PAGE_SIZE ?
				     len % URA_PACK_PAGE_SIZE : URA_PACK_PAGE_SIZE;
		*ret = n;
	}
	free(vec);
	return r;
}

int residency_bytes(int fd, uint64_t off, uint64_t len, uint64_t *ret)
{
	int r = residency_cached(fd, off, len, ret);

	return r == -ENOSYS ? residency_uptodate(fd, off, len, ret) : r;
}
