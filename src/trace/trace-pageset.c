// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-(device, inode) sets of pages: added to the page cache, and used, with first times */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace-pageset.h"

/*
 * Pages are kept in chunks of 64 consecutive pages of one file: three bitmaps
 * (added, strong use, weak use) and the first add and first use time of each
 * page. One open-addressing hash on (dev, ino, chunk number) finds a chunk, so
 * an event costs one lookup whatever the file size; sparse files cost nothing
 * for the pages never touched.
 */
#define CHUNK_SHIFT	6
#define CHUNK_PAGES	(1u << CHUNK_SHIFT)
#define NO_TS		UINT64_MAX

struct chunk {
	uint64_t ino;
	uint64_t cno;			/* first page >> CHUNK_SHIFT */
	uint32_t dev;
	uint64_t added;			/* bit i: page cno * 64 + i entered the cache */
	uint64_t strong;
	uint64_t weak;
	uint64_t add_ts[CHUNK_PAGES];
	uint64_t use_ts[CHUNK_PAGES];
};

struct pageset {
	struct chunk *chunks;
	size_t nchunks, cap_chunks;
	uint32_t *table;		/* chunk index + 1, 0 = empty */
	size_t table_size;		/* power of two */
	size_t last;			/* chunk index of the last hit + 1, 0 = none */
};

static uint64_t hash_key(uint32_t dev, uint64_t ino, uint64_t cno)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ull;

	h ^= (cno + ((uint64_t)dev << 32)) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 32);
}

static bool chunk_is(const struct chunk *c, uint32_t dev, uint64_t ino, uint64_t cno)
{
	return c->cno == cno && c->ino == ino && c->dev == dev;
}

static size_t find_slot(const struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t cno)
{
	size_t mask = ps->table_size - 1;
	size_t i = hash_key(dev, ino, cno) & mask;

	while (ps->table[i] && !chunk_is(&ps->chunks[ps->table[i] - 1], dev, ino, cno))
		i = (i + 1) & mask;
	return i;
}

static int rehash(struct pageset *ps, size_t size)
{
	uint32_t *table = calloc(size, sizeof(*table));

	if (!table)
		return -ENOMEM;
	free(ps->table);
	ps->table = table;
	ps->table_size = size;
	for (size_t k = 0; k < ps->nchunks; k++) {
		const struct chunk *c = &ps->chunks[k];

		ps->table[find_slot(ps, c->dev, c->ino, c->cno)] = (uint32_t)(k + 1);
	}
	ps->last = 0;
	return 0;
}

int pageset_new(struct pageset **ret)
{
	struct pageset *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return -ENOMEM;
	if (rehash(ps, 1024) < 0) {
		free(ps);
		return -ENOMEM;
	}
	*ret = ps;
	return 0;
}

void pageset_free(struct pageset *ps)
{
	if (!ps)
		return;
	free(ps->chunks);
	free(ps->table);
	free(ps);
}

static const struct chunk *lookup(const struct pageset *ps, uint32_t dev, uint64_t ino,
				  uint64_t cno)
{
	size_t slot;

	if (ps->last && chunk_is(&ps->chunks[ps->last - 1], dev, ino, cno))
		return &ps->chunks[ps->last - 1];
	slot = find_slot(ps, dev, ino, cno);
	return ps->table[slot] ? &ps->chunks[ps->table[slot] - 1] : NULL;
}

/* The chunk for (dev, ino, cno), created if needed; NULL on -ENOMEM. */
static struct chunk *get_chunk(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t cno)
{
	struct chunk *c;
	size_t slot;

	if (ps->last && chunk_is(&ps->chunks[ps->last - 1], dev, ino, cno))
		return &ps->chunks[ps->last - 1];
	slot = find_slot(ps, dev, ino, cno);
	if (ps->table[slot]) {
		ps->last = ps->table[slot];
		return &ps->chunks[ps->last - 1];
	}
	if (ps->nchunks >= UINT32_MAX - 1)
		return NULL;
	/* keep the load under one half */
	if ((ps->nchunks + 1) * 2 > ps->table_size) {
		if (rehash(ps, ps->table_size * 2) < 0)
			return NULL;
		slot = find_slot(ps, dev, ino, cno);
	}
	if (ps->nchunks == ps->cap_chunks) {
		size_t cap = ps->cap_chunks ? ps->cap_chunks * 2 : 256;
		struct chunk *n = realloc(ps->chunks, cap * sizeof(*n));

		if (!n)
			return NULL;
		ps->chunks = n;
		ps->cap_chunks = cap;
	}
	c = &ps->chunks[ps->nchunks];
	memset(c, 0, offsetof(struct chunk, add_ts));
	c->dev = dev;
	c->ino = ino;
	c->cno = cno;
	for (unsigned i = 0; i < CHUNK_PAGES; i++)
		c->add_ts[i] = c->use_ts[i] = NO_TS;
	ps->table[slot] = (uint32_t)++ps->nchunks;
	ps->last = ps->nchunks;
	return c;
}

/* Bits lo..hi (inclusive, < 64) set. */
static uint64_t bit_span(unsigned lo, unsigned hi)
{
	uint64_t upto = hi == 63 ? UINT64_MAX : (1ull << (hi + 1)) - 1;

	return upto & ~((1ull << lo) - 1);
}

static int mark(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t first, uint64_t last,
		uint64_t ts, int what)
{
	for (uint64_t cno = first >> CHUNK_SHIFT; cno <= last >> CHUNK_SHIFT; cno++) {
		uint64_t base = cno << CHUNK_SHIFT;
		unsigned lo = first > base ? (unsigned)(first - base) : 0;
		unsigned hi = last - base < CHUNK_PAGES ? (unsigned)(last - base) : CHUNK_PAGES - 1;
		struct chunk *c = get_chunk(ps, dev, ino, cno);
		uint64_t *times;

		if (!c)
			return -ENOMEM;
		switch (what) {
		case 0:
			c->added |= bit_span(lo, hi);
			times = c->add_ts;
			break;
		case 1:
			c->strong |= bit_span(lo, hi);
			times = c->use_ts;
			break;
		default:
			c->weak |= bit_span(lo, hi);
			times = c->use_ts;
			break;
		}
		for (unsigned i = lo; i <= hi; i++)
			if (ts < times[i])
				times[i] = ts;
	}
	return 0;
}

int pageset_add(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index, uint64_t nr,
		uint64_t ts)
{
	if (nr == 0 || nr > (1ull << 32) || index > UINT64_MAX - nr)
		return -EINVAL;
	return mark(ps, dev, ino, index, index + nr - 1, ts, 0);
}

int pageset_access(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t first, uint64_t last,
		   uint64_t ts, enum pageset_evidence ev)
{
	if (last < first || last - first >= (1ull << 32))
		return -EINVAL;
	return mark(ps, dev, ino, first, last, ts, ev == PAGESET_STRONG ? 1 : 2);
}

bool pageset_is_added(const struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index,
		      uint64_t *ret_ts)
{
	const struct chunk *c = lookup(ps, dev, ino, index >> CHUNK_SHIFT);
	unsigned i = index & (CHUNK_PAGES - 1);

	if (!c || !(c->added & (1ull << i)))
		return false;
	if (ret_ts)
		*ret_ts = c->add_ts[i];
	return true;
}

bool pageset_is_used(const struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index)
{
	const struct chunk *c = lookup(ps, dev, ino, index >> CHUNK_SHIFT);

	return c && (c->strong & (1ull << (index & (CHUNK_PAGES - 1))));
}

static int chunk_cmp(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->cno != y->cno)
		return x->cno < y->cno ? -1 : 1;
	return 0;
}

int pageset_files(struct pageset *ps, struct pageset_file **ret, size_t *ret_n)
{
	struct pageset_file *files = NULL;
	size_t n = 0;
	int r;

	if (ps->nchunks)
		qsort(ps->chunks, ps->nchunks, sizeof(*ps->chunks), chunk_cmp);
	r = rehash(ps, ps->table_size);
	if (r < 0)
		return r;
	for (size_t k = 0; k < ps->nchunks; k++) {
		const struct chunk *c = &ps->chunks[k];
		struct pageset_file *f;

		if (!n || files[n - 1].dev != c->dev || files[n - 1].ino != c->ino) {
			f = realloc(files, (n + 1) * sizeof(*files));
			if (!f) {
				free(files);
				return -ENOMEM;
			}
			files = f;
			f = &files[n++];
			*f = (struct pageset_file){ .dev = c->dev, .ino = c->ino, .first_chunk = k,
						    .first_ns = NO_TS };
		}
		f = &files[n - 1];
		f->nchunks++;
		f->added_pages += (uint64_t)__builtin_popcountll(c->added);
		f->used_pages += (uint64_t)__builtin_popcountll(c->strong);
		for (unsigned i = 0; i < CHUNK_PAGES; i++) {
			if (c->add_ts[i] < f->first_ns)
				f->first_ns = c->add_ts[i];
			if (c->use_ts[i] < f->first_ns)
				f->first_ns = c->use_ts[i];
		}
	}
	*ret = files;
	*ret_n = n;
	return 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t diff_u64(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

int pageset_file_ranges(const struct pageset *ps, const struct pageset_file *f, uint64_t max_pages,
			unsigned flags, struct pageset_range **ret, size_t *ret_n)
{
	struct pageset_range *out = NULL, *cur = NULL;
	size_t n = 0, cap = 0;
	uint64_t prev_ts = 0;

	for (size_t k = f->first_chunk; k < f->first_chunk + f->nchunks; k++) {
		const struct chunk *c = &ps->chunks[k];
		uint64_t demand = c->strong;
		uint64_t listed;

		if (flags & (PAGESET_WEAK_IS_DEMAND | PAGESET_ALL_DEMANDED))
			demand |= c->weak;
		if (flags & PAGESET_ALL_DEMANDED)
			demand |= c->added;
		if (flags & PAGESET_UNSEEN_IS_DEMAND)
			demand |= c->added & ~c->weak;
		listed = c->added | c->weak | demand;
		for (unsigned i = 0; listed && i < CHUNK_PAGES; i++) {
			uint64_t page = (c->cno << CHUNK_SHIFT) + i;
			bool dem = demand & (1ull << i);
			uint64_t ts;

			if (!(listed & (1ull << i)))
				continue;
			if (page >= max_pages)
				break;
			ts = min_u64(c->add_ts[i], c->use_ts[i]);
			if (ts == NO_TS)
				ts = 0;
			if (cur && cur->first_page + cur->page_count == page && cur->demanded == dem &&
			    diff_u64(ts, prev_ts) <= PAGESET_SPLIT_NS) {
				cur->page_count++;
				if (ts < cur->first_ns)
					cur->first_ns = ts;
				prev_ts = ts;
				continue;
			}
			if (n == cap) {
				struct pageset_range *m;

				cap = cap ? cap * 2 : 8;
				m = realloc(out, cap * sizeof(*out));
				if (!m) {
					free(out);
					return -ENOMEM;
				}
				out = m;
			}
			cur = &out[n++];
			*cur = (struct pageset_range){ .first_page = page, .page_count = 1,
						       .demanded = dem, .first_ns = ts };
			prev_ts = ts;
		}
	}
	*ret = out;
	*ret_n = n;
	return 0;
}
