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

/*
 * An access of more pages than this is kept as a span (file, first, last, time)
 * and becomes pages only in pageset_file_ranges(), cut at the file's size: a
 * read event names the pages asked for, not those the file has (any program
 * can ask 2 GiB of a one-byte file), and chunks for all of them would let a
 * traced program take the tracer's memory (8 MiB per such read).
 */
#define SPAN_PAGES	(2ull * CHUNK_PAGES)

struct span {
	uint64_t ino;
	uint64_t first, last;		/* pages, inclusive */
	uint64_t ts;
	uint32_t dev;
	bool weak;
};

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
	struct span *spans;		/* long accesses, in event order until pageset_files() */
	size_t nspans, cap_spans;
	uint32_t *span_table;		/* file -> its last span's index + 1 (open addressing) */
	size_t span_table_size;		/* power of two, or 0 */
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

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t diff_u64(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
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
	free(ps->spans);
	free(ps->span_table);
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

/* What an event says of pages lo..hi of one chunk. */
enum mark_what { MARK_ADDED, MARK_STRONG, MARK_WEAK };

static void mark_chunk(struct chunk *c, unsigned lo, unsigned hi, uint64_t ts, enum mark_what what)
{
	uint64_t *times = what == MARK_ADDED ? c->add_ts : c->use_ts;
	uint64_t *bits = what == MARK_ADDED ? &c->added : what == MARK_STRONG ? &c->strong : &c->weak;

	*bits |= bit_span(lo, hi);
	for (unsigned i = lo; i <= hi; i++)
		if (ts < times[i])
			times[i] = ts;
}

/* Chunk @cno's part of pages @first..@last: *lo..*hi. */
static void chunk_part(uint64_t cno, uint64_t first, uint64_t last, unsigned *lo, unsigned *hi)
{
	uint64_t base = cno << CHUNK_SHIFT;

	*lo = first > base ? (unsigned)(first - base) : 0;
	*hi = last - base < CHUNK_PAGES ? (unsigned)(last - base) : CHUNK_PAGES - 1;
}

static int mark(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t first, uint64_t last,
		uint64_t ts, enum mark_what what)
{
	for (uint64_t cno = first >> CHUNK_SHIFT; cno <= last >> CHUNK_SHIFT; cno++) {
		struct chunk *c = get_chunk(ps, dev, ino, cno);
		unsigned lo, hi;

		if (!c)
			return -ENOMEM;
		chunk_part(cno, first, last, &lo, &hi);
		mark_chunk(c, lo, hi, ts, what);
	}
	return 0;
}

/* The slot of file (@dev, @ino) in the span table: its entry, or the empty slot for it. */
static size_t span_slot(const struct pageset *ps, uint32_t dev, uint64_t ino)
{
	size_t mask = ps->span_table_size - 1, i = hash_key(dev, ino, UINT64_MAX) & mask;

	while (ps->span_table[i]) {
		const struct span *sp = &ps->spans[ps->span_table[i] - 1];

		if (sp->dev == dev && sp->ino == ino)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/* The span table made again at @size slots, each file at its last span. */
static int span_table_make(struct pageset *ps, size_t size)
{
	uint32_t *t = calloc(size, sizeof(*t));

	if (!t)
		return -ENOMEM;
	free(ps->span_table);
	ps->span_table = t;
	ps->span_table_size = size;
	for (size_t k = 0; k < ps->nspans; k++)	/* in order: the last one of a file stays */
		ps->span_table[span_slot(ps, ps->spans[k].dev, ps->spans[k].ino)] = (uint32_t)(k + 1);
	return 0;
}

static int span_table_grow(struct pageset *ps)
{
	return span_table_make(ps, ps->span_table_size ? ps->span_table_size * 2 : 64);
}

/*
 * A long access: the file's last span grown when this one continues or
 * overlaps it, of the same evidence, within PAGESET_SPLIT_NS of its time (a
 * file read again and again costs one span, whatever is read in between;
 * reads far apart in time keep their own times); else one more span.
 */
static int add_span(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t first, uint64_t last,
		    uint64_t ts, bool weak)
{
	struct span *sp = NULL;
	size_t slot;

	if (ps->nspans >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((ps->nspans + 1) * 2 > ps->span_table_size && span_table_grow(ps) < 0)
		return -ENOMEM;
	slot = span_slot(ps, dev, ino);
	if (ps->span_table[slot])
		sp = &ps->spans[ps->span_table[slot] - 1];
	if (sp && sp->weak == weak && first <= sp->last + 1 && last + 1 >= sp->first &&
	    diff_u64(ts, sp->ts) <= PAGESET_SPLIT_NS) {
		sp->first = first < sp->first ? first : sp->first;
		sp->last = last > sp->last ? last : sp->last;
		sp->ts = ts < sp->ts ? ts : sp->ts;
		return 0;
	}
	if (ps->nspans == ps->cap_spans) {
		size_t cap = ps->cap_spans ? ps->cap_spans * 2 : 16;
		struct span *n = realloc(ps->spans, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ps->spans = n;
		ps->cap_spans = cap;
	}
	ps->spans[ps->nspans++] = (struct span){ .dev = dev, .ino = ino, .first = first,
						 .last = last, .ts = ts, .weak = weak };
	ps->span_table[slot] = (uint32_t)ps->nspans;
	return 0;
}

int pageset_add(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index, uint64_t nr,
		uint64_t ts)
{
	if (nr == 0 || nr > (1ull << 32) || index > UINT64_MAX - nr)
		return -EINVAL;
	return mark(ps, dev, ino, index, index + nr - 1, ts, MARK_ADDED);
}

int pageset_access(struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t first, uint64_t last,
		   uint64_t ts, enum pageset_evidence ev)
{
	if (last < first || last - first >= (1ull << 32))
		return -EINVAL;
	if (last - first >= SPAN_PAGES)
		return add_span(ps, dev, ino, first, last, ts, ev != PAGESET_STRONG);
	return mark(ps, dev, ino, first, last, ts, ev == PAGESET_STRONG ? MARK_STRONG : MARK_WEAK);
}

size_t pageset_chunks(const struct pageset *ps)
{
	return ps->nchunks + ps->nspans;
}

size_t pageset_bytes(const struct pageset *ps)
{
	return sizeof(*ps) + ps->cap_chunks * sizeof(*ps->chunks) +
	       ps->table_size * sizeof(*ps->table) + ps->cap_spans * sizeof(*ps->spans);
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

bool pageset_is_weak_only(const struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index)
{
	const struct chunk *c = lookup(ps, dev, ino, index >> CHUNK_SHIFT);
	uint64_t bit = 1ull << (index & (CHUNK_PAGES - 1));

	if (!c || !(c->weak & bit) || (c->strong & bit))
		return false;
	return !pageset_is_used(ps, dev, ino, index);	/* nor a long access's */
}

bool pageset_is_used(const struct pageset *ps, uint32_t dev, uint64_t ino, uint64_t index)
{
	const struct chunk *c = lookup(ps, dev, ino, index >> CHUNK_SHIFT);

	if (c && (c->strong & (1ull << (index & (CHUNK_PAGES - 1)))))
		return true;
	/* a linear look over every span: tests ask this, and the assembly of each page with
	 * weak evidence alone (pageset_is_weak_only(): most of a command's trace at 64 KiB,
	 * 40,000 pages of chromium's; its trace took no longer for it: 4.2-4.7 s) */
	for (size_t i = 0; i < ps->nspans; i++) {
		const struct span *sp = &ps->spans[i];

		if (sp->dev == dev && sp->ino == ino && !sp->weak && sp->first <= index &&
		    index <= sp->last)
			return true;
	}
	return false;
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

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return 0;
}

/* Whether file (@dev, @ino) sorts before (@dev2, @ino2). */
static bool file_before(uint32_t dev, uint64_t ino, uint32_t dev2, uint64_t ino2)
{
	return dev != dev2 ? dev < dev2 : ino < ino2;
}

/* Chunk @c's pages and first time into @f. */
static void count_chunk(struct pageset_file *f, const struct chunk *c)
{
	f->nchunks++;
	f->added_pages += (uint64_t)__builtin_popcountll(c->added);
	f->used_pages += (uint64_t)__builtin_popcountll(c->strong);
	f->weak_only_pages += (uint64_t)__builtin_popcountll(c->weak & ~c->strong);
	for (unsigned i = 0; i < CHUNK_PAGES; i++)
		f->first_ns = min_u64(f->first_ns, min_u64(c->add_ts[i], c->use_ts[i]));
}

int pageset_files(struct pageset *ps, struct pageset_file **ret, size_t *ret_n)
{
	struct pageset_file *files = NULL;
	size_t n = 0, cap = 0, k = 0, s = 0;
	int r;

	if (ps->nchunks)
		qsort(ps->chunks, ps->nchunks, sizeof(*ps->chunks), chunk_cmp);
	if (ps->nspans) {
		qsort(ps->spans, ps->nspans, sizeof(*ps->spans), span_cmp);
		r = span_table_make(ps, ps->span_table_size);	/* the spans moved */
		if (r < 0)
			return r;
	}
	r = rehash(ps, ps->table_size);
	if (r < 0)
		return r;
	/* the files of the chunks and of the spans, both sorted by file */
	while (k < ps->nchunks || s < ps->nspans) {
		bool has_c = k < ps->nchunks, has_s = s < ps->nspans;
		struct pageset_file *f;
		uint32_t dev;
		uint64_t ino;

		/* the next file: the lower of the next chunk's and the next span's */
		if (has_c && (!has_s || !file_before(ps->spans[s].dev, ps->spans[s].ino,
						     ps->chunks[k].dev, ps->chunks[k].ino))) {
			dev = ps->chunks[k].dev;
			ino = ps->chunks[k].ino;
		} else {
			dev = ps->spans[s].dev;
			ino = ps->spans[s].ino;
		}

		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			f = realloc(files, cap * sizeof(*files));
			if (!f) {
				free(files);
				return -ENOMEM;
			}
			files = f;
		}
		f = &files[n++];
		*f = (struct pageset_file){ .dev = dev, .ino = ino, .first_chunk = k, .first_span = s,
					    .first_ns = NO_TS };
		for (; k < ps->nchunks && ps->chunks[k].dev == f->dev && ps->chunks[k].ino == f->ino;
		     k++)
			count_chunk(f, &ps->chunks[k]);
		for (; s < ps->nspans && ps->spans[s].dev == f->dev && ps->spans[s].ino == f->ino;
		     s++) {
			f->nspans++;
			f->first_ns = min_u64(f->first_ns, ps->spans[s].ts);
		}
	}
	*ret = files;
	*ret_n = n;
	return 0;
}

static int cno_cmp(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;

	return x->cno < y->cno ? -1 : x->cno > y->cno;
}

/* The first of the @n chunks of @c (sorted by number) numbered @cno or more. */
static size_t lower_cno(const struct chunk *c, size_t n, uint64_t cno)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].cno < cno)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * File @f's chunks with its spans applied, pages from 0 to @max_pages - 1 (a
 * span's pages past the file's end are never made; with no size known, a span
 * marks only the chunks the file has): a malloc()ed copy the caller frees.
 * The spans are sorted by first page (pageset_files()), so the chunks made
 * for them are at most the file's size in chunks; each span then costs the
 * chunks it covers.
 */
static int apply_spans(const struct pageset *ps, const struct pageset_file *f, uint64_t max_pages,
		       struct chunk **ret, size_t *ret_n)
{
	const struct chunk *own = &ps->chunks[f->first_chunk];
	const struct span *spans = &ps->spans[f->first_span];
	bool sized = max_pages != UINT64_MAX;
	size_t n = f->nchunks, cap = n;
	uint64_t next = 0;		/* the first chunk number no span looked at yet */
	struct chunk *w;

	for (size_t i = 0; sized && i < f->nspans; i++) {
		uint64_t lo = spans[i].first >> CHUNK_SHIFT, hi;

		if (spans[i].first >= max_pages)
			break;
		hi = min_u64(spans[i].last, max_pages - 1) >> CHUNK_SHIFT;
		lo = lo > next ? lo : next;
		if (hi >= lo)
			cap += hi - lo + 1;
		next = hi + 1 > next ? hi + 1 : next;
	}
	w = malloc((cap ? cap : 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	if (n)
		memcpy(w, own, n * sizeof(*w));
	next = 0;
	for (size_t i = 0; sized && i < f->nspans; i++) {
		uint64_t cno = spans[i].first >> CHUNK_SHIFT, hi;
		size_t k;

		if (spans[i].first >= max_pages)
			break;
		hi = min_u64(spans[i].last, max_pages - 1) >> CHUNK_SHIFT;
		cno = cno > next ? cno : next;
		k = lower_cno(own, f->nchunks, cno);
		for (; cno <= hi; cno++) {
			struct chunk *c = &w[n];

			while (k < f->nchunks && own[k].cno < cno)
				k++;
			if (k < f->nchunks && own[k].cno == cno)
				continue;	/* the file has it */
			*c = (struct chunk){ .dev = f->dev, .ino = f->ino, .cno = cno };
			for (unsigned j = 0; j < CHUNK_PAGES; j++)
				c->add_ts[j] = c->use_ts[j] = NO_TS;
			n++;
		}
		next = hi + 1 > next ? hi + 1 : next;
	}
	if (n > 1)
		qsort(w, n, sizeof(*w), cno_cmp);
	for (size_t i = 0; max_pages && i < f->nspans; i++) {
		const struct span *sp = &spans[i];
		uint64_t last = min_u64(sp->last, max_pages - 1);

		if (sp->first > last)
			continue;
		for (size_t k = lower_cno(w, n, sp->first >> CHUNK_SHIFT);
		     k < n && w[k].cno <= last >> CHUNK_SHIFT; k++) {
			unsigned lo, hi;

			chunk_part(w[k].cno, sp->first, last, &lo, &hi);
			mark_chunk(&w[k], lo, hi, sp->ts, sp->weak ? MARK_WEAK : MARK_STRONG);
		}
	}
	*ret = w;
	*ret_n = n;
	return 0;
}

int pageset_file_ranges(const struct pageset *ps, const struct pageset_file *f, uint64_t max_pages,
			unsigned flags, struct pageset_range **ret, size_t *ret_n)
{
	struct pageset_range *out = NULL, *cur = NULL;
	const struct chunk *chunks = &ps->chunks[f->first_chunk];
	struct chunk *applied = NULL;
	size_t n = 0, cap = 0, nchunks = f->nchunks;
	uint64_t prev_ts = 0;

	if (f->nspans) {
		int r = apply_spans(ps, f, max_pages, &applied, &nchunks);

		if (r < 0)
			return r;
		chunks = applied;
	}
	for (size_t k = 0; k < nchunks; k++) {
		const struct chunk *c = &chunks[k];
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
			/*
			 * A used page is needed when it was first used: added earlier, it
			 * was read ahead (a cold start under the device's read_ahead_kb of
			 * 2.5 MiB placed a window's pages at the fault that read them, and
			 * the replay read them ahead of pages needed sooner).
			 */
			ts = dem && c->use_ts[i] != NO_TS ? c->use_ts[i] :
			     min_u64(c->add_ts[i], c->use_ts[i]);
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
					free(applied);
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
	free(applied);
	*ret = out;
	*ret_n = n;
	return 0;
}
