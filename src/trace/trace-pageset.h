/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-(device, inode) sets of pages: added to the page cache, and used, with first times */
#ifndef URA_TRACE_PAGESET_H
#define URA_TRACE_PAGESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How sure an access event is that the pages were really used.
 * PAGESET_STRONG: read() ranges, faults on one page, a fault address.
 * PAGESET_WEAK: pages a fault-around window mapped; maybe never touched.
 */
enum pageset_evidence {
	PAGESET_STRONG,
	PAGESET_WEAK,
};

/* pageset_file_ranges() flags */
#define PAGESET_WEAK_IS_DEMAND	(1u << 0)	/* count weak evidence as demand */
#define PAGESET_ALL_DEMANDED	(1u << 1)	/* no access events: every page demanded */
#define PAGESET_UNSEEN_IS_DEMAND (1u << 2)	/* added pages without any evidence: demanded */

/* Ranges split where the first times of neighbouring pages differ by more than this. */
#define PAGESET_SPLIT_NS	(250ull * 1000 * 1000)

struct pageset;

/* One file of the set, from pageset_files(). */
struct pageset_file {
	uint32_t dev;		/* kernel dev_t: major << 20 | minor */
	uint64_t ino;
	uint64_t added_pages;	/* pages that entered the page cache */
	uint64_t used_pages;	/* pages with strong evidence of use (long accesses not counted) */
	uint64_t weak_only_pages; /* pages with weak evidence of use alone (a window's) */
	uint64_t first_ns;	/* earliest event on the file */
	size_t first_chunk;	/* private: where its pages are */
	size_t nchunks;
	size_t first_span;	/* private: its long accesses, made pages by pageset_file_ranges() */
	size_t nspans;
};

/* A run of pages of one file, all demanded or all speculative. */
struct pageset_range {
	uint64_t first_page;
	uint64_t page_count;
	bool demanded;
	uint64_t first_ns;	/* earliest first time of its pages: a demanded page's first
				 * use, another's earliest add or use */
};

/**
 * pageset_new() - an empty set
 * @ret: on success the set; free with pageset_free()
 *
 * Return: 0 or -ENOMEM.
 */
int pageset_new(struct pageset **ret);

/** pageset_free() - release a set; NULL is allowed */
void pageset_free(struct pageset *ps);

/**
 * pageset_add() - pages entered the page cache
 * @ps: the set
 * @dev: kernel dev_t of the file's filesystem
 * @ino: inode number
 * @index: first page
 * @nr: number of pages (1 << folio order)
 * @ts: time of the event, ns since the trace began
 *
 * Return: 0, -EINVAL (@nr is 0 or the range overflows), -ENOMEM.
 */
int pageset_add(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index, uint64_t nr,
		uint64_t ts);

/**
 * pageset_access() - pages @first..@last (inclusive) were used
 * @ev: how sure the event is (see enum pageset_evidence)
 *
 * Pages need not have been added: a page used while already cached is recorded
 * too, so a trace of a warm run is complete. A long range (more than 128
 * pages) is kept as it is and cut at the file's size by pageset_file_ranges():
 * a read event names what was asked, which may be far past the end.
 *
 * Return: 0, -EINVAL (@last < @first or a range of more than 2^32 pages), -ENOMEM.
 */
int pageset_access(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t first, uint64_t last,
		   uint64_t ts, enum pageset_evidence ev);

/** pageset_chunks() - how many 64-page chunks the set holds (pages touched, to 64) */
size_t pageset_chunks(const struct pageset *ps);

/** pageset_bytes() - the memory the set holds (a traced run's cost, to bound it) */
size_t pageset_bytes(const struct pageset *ps);

/**
 * pageset_is_added() - whether page @index of a file entered the cache during the trace
 * @ret_ts: if not NULL and the page was added, set to the time it was
 */
bool pageset_is_added(const struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index,
		      uint64_t *ret_ts);

/** pageset_is_used() - whether page @index has strong evidence of use */
bool pageset_is_used(const struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index);

/**
 * pageset_is_weak_only() - whether page @index has weak evidence of use and no
 * strong one: only mapped by fault-around windows beside the page touched
 */
bool pageset_is_weak_only(const struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index);

/**
 * pageset_files() - the files of the set, sorted by (dev, ino)
 * @ret: on success a malloc()ed array the caller frees
 * @ret_n: its length
 *
 * Call it after the last event: adding more pages afterwards invalidates the
 * array (the set itself stays usable).
 *
 * Return: 0 or -ENOMEM.
 */
int pageset_files(struct pageset *ps, struct pageset_file **ret, size_t *ret_n);

/**
 * pageset_file_ranges() - the pages of one file as ranges, in page order
 * @f: an entry of the last pageset_files() array
 * @max_pages: pages past this are left out (file size in pages); UINT64_MAX for no limit
 *	(then a long access marks only the pages the file has otherwise)
 * @flags: PAGESET_WEAK_IS_DEMAND, PAGESET_ALL_DEMANDED, PAGESET_UNSEEN_IS_DEMAND
 * @ret: on success a malloc()ed array the caller frees (NULL when empty)
 * @ret_n: its length
 *
 * A page is listed if it was added or used, with strong or weak evidence (a
 * page that only a fault-around window mapped was in the cache, and a warm
 * trace must list it). It is demanded if it has strong evidence (or weak, with
 * PAGESET_WEAK_IS_DEMAND); otherwise speculative.
 *
 * Return: 0 or -ENOMEM.
 */
int pageset_file_ranges(const struct pageset *ps, const struct pageset_file *f, uint64_t max_pages,
			unsigned flags, struct pageset_range **ret, size_t *ret_n);

#endif
