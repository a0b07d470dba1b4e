// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's readahead replayed over a pack's access log, for any maximum
 * window (read_ahead_kb). It follows mm/readahead.c and mm/filemap.c of Linux
 * 6.18 decision by decision: page_cache_sync_ra() (initial window from the
 * request, the sequential and "cached history" tests), page_cache_async_ra()
 * (the PG_readahead marker, ramp-up, alignment by folio order),
 * page_cache_ra_order() (large folios, where the filesystem has them),
 * page_cache_ra_unbounded() (a batch per run of missing pages), the read path
 * of filemap_get_pages(), and for mmap: fault-around (maps cached pages, never
 * reads, skips marked ones), mmap read-around and its miss counter, and exec
 * mappings (read forward, no marker). Per-open-file state is per task and file.
 *
 * Reads complete at once (nothing is ever in flight), a request holds at most
 * max_sectors_kb of contiguous file pages (the file is taken as contiguous on
 * the device), and an exec mapping is taken to end at the end of the file.
 * Nothing here reads the system: a pack in, counts out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dev-model.h"
#include "sys-kernel-mm.h"
#include "ra-emulate.h"

#define PAGE			URA_PACK_PAGE_SIZE
#define MMAP_LOTSAMISS		100u
#define MAX_ORDER		9u	/* MAX_PAGECACHE_ORDER on x86-64: a PMD */
#define DEFAULT_REQUEST_KB	512u	/* a pack that did not record max_sectors_kb */
#define MAX_AROUND_PAGES	512u	/* one page table */
/*
 * Pages the accesses and ranges of one pack may span (clipped at the ends of
 * the files): 2^27 pages is 512 GiB, far past any start-up, and bounds the
 * work and memory a hostile pack can cost.
 */
#define MAX_SPAN_PAGES		(UINT64_C(1) << 27)

/* Per-page state: bits, and a folio order above them. */
#define PG_CACHED	(1u << 0)
#define PG_MARKER	(1u << 1)	/* PG_readahead */
#define PG_USED		(1u << 2)	/* demanded in the trace */
#define PG_INITIAL	(1u << 3)	/* cached before the trace began */
#define PG_ADDED	(1u << 4)	/* the trace saw it added (preparation only) */
#define PG_ORDER_SHIFT	8

#define CHUNK_SHIFT	10
#define CHUNK_PAGES	(1u << CHUNK_SHIFT)

struct chunk {
	uint32_t file;
	uint64_t index;			/* page >> CHUNK_SHIFT */
	uint16_t pg[CHUNK_PAGES];
};

/* Pages of every file, in chunks found by hash (a file may be huge and sparse). */
struct pagemap {
	struct chunk **slot;
	size_t cap, n;
	struct chunk *last;		/* the chunk of the last lookup */
};

struct efile {
	uint64_t size;			/* bytes */
	uint64_t ino;
	uint32_t major, minor;
	uint32_t request_pages;		/* max_sectors_kb in pages */
	uint32_t max_segments;		/* segments a request holds, UINT32_MAX unknown */
	uint32_t segment_pages;		/* pages a segment holds, 0 unknown (a whole folio) */
	uint32_t around_pages;
	bool large;			/* large folios */
};

/* The readahead state of one open file (struct file_ra_state), and where a read() stands. */
struct ra_state {
	uint32_t stream, file;
	bool used;
	uint64_t start, size, async_size;
	int64_t prev_pos;
	unsigned mmap_miss, order;
	bool in_call;			/* a read() whose get_pages may go on */
	uint64_t call_first, call_last;
};

struct statetab {
	struct ra_state *s;
	size_t cap, n;
};

struct ra_emulation {
	const struct ura_pack *pack;
	size_t nfiles, naccess;
	struct efile *files;
	struct pagemap base;		/* PG_USED and PG_INITIAL */
	uint64_t *mapped;		/* per access: used pages its fault-around mapped in the trace */
	bool reference;			/* the run now is ra_emulate_reference()'s */
	bool warm;			/* URA_PACK_INFO_WARM: the pack's pages were cached */
};

struct run {
	struct ra_emulation *e;
	const struct ra_emulate_opts *o;
	struct pagemap pm;
	struct statetab st;
	uint64_t ra_pages;		/* the window, in pages */
	bool reference;			/* note what each fault-around mapped */
	size_t index;			/* of the access being served */
	struct ra_counts *per_file, total;
	uint32_t req_file;		/* the access being served: its pages are asked for */
	uint64_t req_first, req_last;
	int error;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

static void pagemap_free(struct pagemap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slot[i]);
	free(m->slot);
	*m = (struct pagemap){ 0 };
}

static size_t chunk_slot(const struct pagemap *m, uint32_t file, uint64_t index)
{
	size_t i = hash64(index * 0x9e3779b97f4a7c15ull ^ file) & (m->cap - 1);

	while (m->slot[i] && (m->slot[i]->file != file || m->slot[i]->index != index))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int pagemap_grow(struct pagemap *m)
{
	struct pagemap bigger = { .cap = m->cap ? m->cap * 2 : 1024 };

	bigger.slot = calloc(bigger.cap, sizeof(struct chunk *));
	if (!bigger.slot)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i])
			bigger.slot[chunk_slot(&bigger, m->slot[i]->file, m->slot[i]->index)] = m->slot[i];
	bigger.n = m->n;
	free(m->slot);
	*m = bigger;
	return 0;
}

/* The chunk of @page, made if @create (NULL: absent, or -ENOMEM in @err). */
static struct chunk *chunk_of(struct pagemap *m, uint32_t file, uint64_t page, bool create,
			      int *err)
{
	uint64_t index = page >> CHUNK_SHIFT;
	struct chunk *c;
	size_t i;

	if (m->last && m->last->file == file && m->last->index == index)
		return m->last;
	if (m->cap && m->slot) {
		i = chunk_slot(m, file, index);
		if (m->slot[i])
			return m->last = m->slot[i];
	}
	if (!create)
		return NULL;
	if (((m->n + 1) * 2 > m->cap || !m->slot) && pagemap_grow(m) < 0)
		goto nomem;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	c->file = file;
	c->index = index;
	m->slot[chunk_slot(m, file, index)] = c;
	m->n++;
	return m->last = c;
nomem:
	*err = -ENOMEM;
	return NULL;
}

static unsigned pg_get(struct pagemap *m, uint32_t file, uint64_t page)
{
	struct chunk *c = chunk_of(m, file, page, false, NULL);

	return c ? c->pg[page & (CHUNK_PAGES - 1)] : 0;
}

static void pg_set(struct pagemap *m, uint32_t file, uint64_t page, unsigned set, int *err)
{
	struct chunk *c = chunk_of(m, file, page, true, err);

	if (c)
		c->pg[page & (CHUNK_PAGES - 1)] |= (uint16_t)set;
}

static void pg_put(struct pagemap *m, uint32_t file, uint64_t page, unsigned value, int *err)
{
	struct chunk *c = chunk_of(m, file, page, true, err);

	if (c)
		c->pg[page & (CHUNK_PAGES - 1)] = (uint16_t)value;
}

static int pagemap_copy(const struct pagemap *from, struct pagemap *ret)
{
	struct pagemap m = { .cap = from->cap, .n = from->n };

	if (!from->cap) {
		*ret = m;
		return 0;
	}
	m.slot = calloc(m.cap, sizeof(struct chunk *));
	if (!m.slot)
		return -ENOMEM;
	for (size_t i = 0; i < m.cap; i++) {
		if (!from->slot[i])
			continue;
		m.slot[i] = malloc(sizeof(*m.slot[i]));
		if (!m.slot[i]) {
			pagemap_free(&m);
			return -ENOMEM;
		}
		memcpy(m.slot[i], from->slot[i], sizeof(*m.slot[i]));
	}
	*ret = m;
	return 0;
}

/* ---- preparation ---- */

void ra_emulate_free(struct ra_emulation *e)
{
	if (!e)
		return;
	pagemap_free(&e->base);
	free(e->mapped);
	free(e->files);
	free(e);
}

static uint64_t eof_page(const struct efile *f)
{
	return (f->size - 1) / PAGE;	/* callers check size > 0 */
}

static void mark_initial(struct ra_emulation *e, uint32_t file, uint64_t first, uint64_t last,
			 int *err)
{
	const struct efile *f = &e->files[file];

	if (!f->size || first > eof_page(f))
		return;
	if (last > eof_page(f))
		last = eof_page(f);
	for (uint64_t p = first; p <= last && !*err; p++) {
		unsigned v = pg_get(&e->base, file, p);

		if (!(v & PG_ADDED))
			pg_set(&e->base, file, p, PG_INITIAL | PG_CACHED, err);
	}
}

/* Pages of [@first, @last] inside file @f, for the span budget. */
static uint64_t span(const struct efile *f, uint64_t first, uint64_t last)
{
	if (!f->size || first > eof_page(f) || last < first)
		return 0;
	return (last < eof_page(f) ? last : eof_page(f)) - first + 1;
}

/* @set on every page of the pack's ranges in @m, and @demanded too on the demanded ones. */
static void set_pack_pages(struct ra_emulation *e, struct pagemap *m, unsigned set,
			   unsigned demanded, int *err)
{
	for (size_t i = 0, n = ura_pack_range_count(e->pack); i < n && !*err; i++) {
		struct ura_pack_range r;

		if (ura_pack_get_range(e->pack, i, &r) < 0 || r.file_index >= e->nfiles)
			continue;
		uint64_t end = r.first_page + span(&e->files[r.file_index], r.first_page,
						   r.first_page + r.page_count - 1);

		for (uint64_t p = r.first_page; p < end && !*err; p++)
			pg_set(m, r.file_index, p,
			       set | (r.flags & URA_PACK_RANGE_DEMANDED ? demanded : 0), err);
	}
}

/* Whether the pack's ranges and accesses stay within MAX_SPAN_PAGES. */
static bool within_budget(const struct ra_emulation *e)
{
	uint64_t total = 0;

	for (size_t i = 0, n = ura_pack_range_count(e->pack); i < n; i++) {
		struct ura_pack_range r;

		if (ura_pack_get_range(e->pack, i, &r) < 0 || r.file_index >= e->nfiles)
			continue;
		total += span(&e->files[r.file_index], r.first_page,
			      r.first_page + r.page_count - 1);
		if (total > MAX_SPAN_PAGES)
			return false;
	}
	for (size_t i = 0; i < e->naccess; i++) {
		struct ura_pack_access a;

		if (ura_pack_get_access(e->pack, i, &a) < 0 || a.file_index >= e->nfiles)
			continue;
		total += span(&e->files[a.file_index], a.first, a.last);
		if (total > MAX_SPAN_PAGES)
			return false;
	}
	return true;
}

int ra_emulate_new(const struct ura_pack *pack, struct ra_emulation **ret)
{
	struct ura_pack_info info;
	struct ra_emulation *e;
	int err = 0;

	if (!ura_pack_access_count(pack))
		return -ENODATA;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->pack = pack;
	ura_pack_get_info(pack, &info);
	e->warm = info.flags & URA_PACK_INFO_WARM;
	e->nfiles = ura_pack_file_count(pack);
	e->naccess = ura_pack_access_count(pack);
	e->files = calloc(e->nfiles ? e->nfiles : 1, sizeof(*e->files));
	if (!e->files)
		goto nomem;
	for (size_t i = 0; i < e->nfiles; i++) {
		struct ura_pack_file pf;
		struct ura_pack_fs fs = { 0 };
		struct ura_pack_ra_fs ra = { 0 };
		struct efile *f = &e->files[i];

		if (ura_pack_get_file(pack, i, &pf) < 0)
			continue;
		(void)ura_pack_get_fs(pack, pf.fs_index, &fs);
		(void)ura_pack_get_ra_fs(pack, pf.fs_index, &ra);
		f->size = pf.size;
		f->ino = pf.ino;
		f->major = fs.major;
		f->minor = fs.minor;
		f->request_pages = (ra.max_sectors_kb ? ra.max_sectors_kb : DEFAULT_REQUEST_KB) / 4;
		if (!f->request_pages)
			f->request_pages = 1;
		f->around_pages = ra.fault_around_pages ? ra.fault_around_pages : KERNEL_FAULT_AROUND_PAGES;
		f->max_segments = ra.max_segments ? ra.max_segments : UINT32_MAX;
		f->segment_pages = ra.max_segment_kb / 4;
		f->large = ra.flags & URA_PACK_RA_FS_LARGE_FOLIOS;
	}
	if (!within_budget(e)) {
		ra_emulate_free(e);
		return -EFBIG;
	}
	/* the pages the trace saw added, and which of them the run used */
	set_pack_pages(e, &e->base, PG_ADDED, PG_USED, &err);
	/* pages asked for and never added were cached before the trace */
	for (size_t i = 0; i < e->naccess && !err; i++) {
		struct ura_pack_access a;

		if (ura_pack_get_access(pack, i, &a) < 0 || a.file_index >= e->nfiles)
			continue;
		mark_initial(e, a.file_index, a.first, a.last, &err);
	}
	if (err)
		goto nomem;
	*ret = e;
	return 0;
nomem:
	ra_emulate_free(e);
	return -ENOMEM;
}

/* ---- per-open-file state ---- */

static struct ra_state *state_of(struct run *r, uint32_t stream, uint32_t file)
{
	struct statetab *t = &r->st;
	size_t i;

	if ((t->n + 1) * 2 > t->cap) {
		struct statetab bigger = { .cap = t->cap ? t->cap * 2 : 256 };

		bigger.s = calloc(bigger.cap, sizeof(*bigger.s));
		if (!bigger.s) {
			r->error = -ENOMEM;
			return NULL;
		}
		for (size_t j = 0; j < t->cap; j++) {
			if (!t->s[j].used)
				continue;
			i = hash64(((uint64_t)t->s[j].stream << 32) | t->s[j].file) & (bigger.cap - 1);
			while (bigger.s[i].used)
				i = (i + 1) & (bigger.cap - 1);
			bigger.s[i] = t->s[j];
		}
		bigger.n = t->n;
		free(t->s);
		*t = bigger;
	}
	i = hash64(((uint64_t)stream << 32) | file) & (t->cap - 1);
	while (t->s[i].used && (t->s[i].stream != stream || t->s[i].file != file))
		i = (i + 1) & (t->cap - 1);
	if (!t->s[i].used) {
		t->s[i] = (struct ra_state){ .stream = stream, .file = file, .used = true,
					     .prev_pos = -1 };
		t->n++;
	}
	return &t->s[i];
}

/* ---- the page cache ---- */

static unsigned pg(struct run *r, uint32_t file, uint64_t page)
{
	return pg_get(&r->pm, file, page);
}

static bool cached(struct run *r, uint32_t file, uint64_t page)
{
	return pg(r, file, page) & PG_CACHED;
}

static void log_state(struct run *r, const struct efile *f, const char *event, uint64_t index)
{
	fprintf(r->o->decisions, "%s: dev=%" PRIu32 ":%" PRIu32 " ino=%" PRIx64 " index=%" PRIu64,
		event, f->major, f->minor, f->ino, index);
}

static uint64_t folio_head(struct run *r, uint32_t file, uint64_t page, uint64_t *ret_pages);

static void request(struct run *r, uint64_t pages, struct ra_counts *add)
{
	add->requests++;
	if (r->o->model)
		add->io_ns += dev_model_cost(r->o->model, pages * PAGE);
}

/*
 * The requests of contiguous pages [@first, @first + @n): each folio is one
 * memory segment (or several of the device's largest), a page of its own
 * when it is a single page; a request ends at max_segments segments or
 * max_sectors_kb, as the block layer splits them.
 */
static void split_requests(struct run *r, const struct efile *f, uint32_t file, uint64_t first,
			   uint64_t n, struct ra_counts *add)
{
	uint64_t cur_pages = 0, cur_segs = 0;

	for (uint64_t p = first; p < first + n; ) {
		uint64_t len, head = folio_head(r, file, p, &len);
		uint64_t left = head + len - p;

		if (p + left > first + n)
			left = first + n - p;
		p += left;
		while (left) {
			uint64_t seg = f->segment_pages && f->segment_pages < left ? f->segment_pages : left;

			if (cur_pages == f->request_pages || cur_segs == f->max_segments) {
				request(r, cur_pages, add);
				cur_pages = cur_segs = 0;
			}
			if (seg > f->request_pages - cur_pages)
				seg = f->request_pages - cur_pages;
			cur_pages += seg;
			cur_segs++;
			left -= seg;
		}
	}
	if (cur_pages)
		request(r, cur_pages, add);
}

/* read_pages(): the pages [@first, @first + @n) just added go to the device. */
static void read_pages(struct run *r, uint32_t file, uint64_t first, uint64_t n)
{
	const struct efile *f = &r->e->files[file];
	struct ra_counts *c = r->per_file ? &r->per_file[file] : NULL;
	struct ra_counts add = { 0 };

	if (!n)
		return;
	split_requests(r, f, file, first, n, &add);
	add.pages_read = n;
	for (uint64_t p = first; p < first + n; p++) {
		bool used = pg(r, file, p) & PG_USED;
		bool asked = file == r->req_file && p >= r->req_first && p <= r->req_last;

		if (!used)
			add.unused++;
		if (!asked) {
			add.ra_pages++;
			add.ra_used += used;
		}
	}
#define ADD(x) do { r->total.x += add.x; if (c) c->x += add.x; } while (0)
	ADD(requests);
	ADD(io_ns);
	ADD(pages_read);
	ADD(unused);
	ADD(ra_pages);
	ADD(ra_used);
#undef ADD
}

/* filemap_add_folio(): -EEXIST when a page of it is cached */
static int add_folio(struct run *r, uint32_t file, uint64_t index, unsigned order, bool mark)
{
	uint64_t n = UINT64_C(1) << order;

	for (uint64_t p = index; p < index + n; p++)
		if (cached(r, file, p))
			return -EEXIST;
	for (uint64_t p = index; p < index + n; p++) {
		unsigned v = pg(r, file, p) & (PG_USED | PG_INITIAL);

		pg_put(&r->pm, file, p, v | PG_CACHED | (mark ? PG_MARKER : 0) |
		       (order << PG_ORDER_SHIFT), &r->error);
	}
	return r->error;
}

/* The folio holding @page: its first page and its length. */
static uint64_t folio_head(struct run *r, uint32_t file, uint64_t page, uint64_t *ret_pages)
{
	unsigned order = pg(r, file, page) >> PG_ORDER_SHIFT;

	*ret_pages = UINT64_C(1) << order;
	return page & ~(*ret_pages - 1);
}

static void clear_marker(struct run *r, uint32_t file, uint64_t page)
{
	uint64_t n, head = folio_head(r, file, page, &n);

	for (uint64_t p = head; p < head + n; p++) {
		struct chunk *c = chunk_of(&r->pm, file, p, false, NULL);

		if (c)
			c->pg[p & (CHUNK_PAGES - 1)] &= (uint16_t)~PG_MARKER;
	}
}

/* ---- mm/readahead.c ---- */

static void ra_unbounded(struct run *r, uint32_t file, uint64_t index, uint64_t nr,
			 uint64_t lookahead)
{
	uint64_t mark = lookahead <= nr ? nr - lookahead : UINT64_MAX;
	uint64_t batch = index;

	if (r->o->decisions) {
		log_state(r, &r->e->files[file], "page_cache_ra_unbounded", index);
		fprintf(r->o->decisions, " nr_to_read=%" PRIu64 " lookahead_size=%" PRIu64 "\n",
			nr, lookahead);
	}
	for (uint64_t i = 0; i < nr && !r->error; i++) {
		uint64_t p = index + i;

		if (cached(r, file, p)) {
			read_pages(r, file, batch, p - batch);
			batch = p + 1;
			continue;
		}
		add_folio(r, file, p, 0, i == mark);
	}
	read_pages(r, file, batch, index + nr - batch);
}

static void do_page_cache_ra(struct run *r, uint32_t file, uint64_t index, uint64_t nr,
			     uint64_t lookahead)
{
	const struct efile *f = &r->e->files[file];
	uint64_t end;

	if (!f->size)
		return;
	end = eof_page(f);
	if (index > end)
		return;
	if (nr > end - index)
		nr = end - index + 1;
	ra_unbounded(r, file, index, nr, lookahead);
}

static unsigned ilog2_u64(uint64_t x)
{
	return 63u - (unsigned)__builtin_clzll(x);
}

static void ra_order(struct run *r, uint32_t file, struct ra_state *st)
{
	const struct efile *f = &r->e->files[file];
	uint64_t start = st->start, index = start, limit, mark;
	unsigned new_order;
	bool failed = false;

	if (r->o->decisions) {
		log_state(r, f, "page_cache_ra_order", start);
		fprintf(r->o->decisions, " order=%u size=%" PRIu64 " async_size=%" PRIu64
			" ra_pages=%" PRIu64 "\n", st->order, st->size, st->async_size, r->ra_pages);
	}
	if (!f->large || !f->size || !st->size) {
		st->order = 0;
		do_page_cache_ra(r, file, start, st->size, st->async_size);
		return;
	}
	limit = eof_page(f);
	if (limit > start + st->size - 1)
		limit = start + st->size - 1;
	new_order = st->order < MAX_ORDER ? st->order : MAX_ORDER;
	if (new_order > ilog2_u64(st->size))
		new_order = ilog2_u64(st->size);
	st->order = new_order;
	mark = start + st->size - st->async_size;
	while (index <= limit && !r->error) {
		unsigned order = new_order;

		if (index & ((UINT64_C(1) << order) - 1))
			order = (unsigned)__builtin_ctzll(index);
		while (order > 0 && index + (UINT64_C(1) << order) - 1 > limit)
			order--;
		if (add_folio(r, file, index, order,
			      index == (mark & ~((UINT64_C(1) << order) - 1))) < 0) {
			failed = true;
			break;
		}
		index += UINT64_C(1) << order;
	}
	read_pages(r, file, start, index - start);
	if (failed && st->size > index - start)
		do_page_cache_ra(r, file, index, st->size - (index - start), st->async_size);
}

static uint64_t init_ra_size(uint64_t size, uint64_t max)
{
	uint64_t n = 1;

	while (n < size)
		n <<= 1;
	if (n <= max / 32)
		return n * 4;
	if (n <= max / 4)
		return n * 2;
	return max;
}

static uint64_t next_ra_size(uint64_t cur, uint64_t max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

static uint64_t max_pages(struct run *r, uint32_t file, uint64_t req)
{
	uint64_t max = r->ra_pages, io = r->e->files[file].request_pages;

	if (req > max && io > max)
		max = req < io ? req : io;
	return max;
}

/* page_cache_prev_miss(): the first gap at or below @index, scanning @max pages */
static uint64_t prev_miss(struct run *r, uint32_t file, uint64_t index, uint64_t max)
{
	for (uint64_t k = 0; k < max; k++) {
		if (!cached(r, file, index - k))
			return index - k;
		if (index - k == 0)
			return UINT64_MAX;
	}
	return index - max;
}

/* page_cache_next_miss(): the first gap at or above @index, scanning @max pages */
static uint64_t next_miss(struct run *r, uint32_t file, uint64_t index, uint64_t max)
{
	for (uint64_t k = 0; k < max; k++)
		if (!cached(r, file, index + k))
			return index + k;
	return index + max;
}

static void log_ra(struct run *r, uint32_t file, const struct ra_state *st, const char *event,
		   uint64_t index, uint64_t req)
{
	log_state(r, &r->e->files[file], event, index);
	fprintf(r->o->decisions, " req_count=%" PRIu64 " order=%u size=%" PRIu64 " async_size=%"
		PRIu64 " ra_pages=%" PRIu64 " mmap_miss=%u prev_pos=%" PRId64 "\n", req, st->order,
		st->size, st->async_size, r->ra_pages, st->mmap_miss, st->prev_pos);
}

static void sync_ra(struct run *r, uint32_t file, struct ra_state *st, uint64_t index,
		    uint64_t req)
{
	uint64_t max, prev_index, miss, contig;

	if (r->o->decisions)
		log_ra(r, file, st, "page_cache_sync_ra", index, req);
	if (!r->ra_pages) {
		do_page_cache_ra(r, file, index, 1, 0);	/* force_page_cache_ra() of one page */
		return;
	}
	max = max_pages(r, file, req);
	prev_index = (uint64_t)st->prev_pos >> 12;
	if (!index || req > max || index - prev_index <= 1) {
		st->start = index;
		st->size = init_ra_size(req, max);
		st->async_size = st->size > req ? st->size - req : st->size >> 1;
		goto readit;
	}
	miss = prev_miss(r, file, index - 1, max);
	contig = index - miss - 1;
	if (contig <= req) {
		do_page_cache_ra(r, file, index, req, 0);
		return;
	}
	if (miss == UINT64_MAX)
		contig *= 2;
	st->start = index;
	st->size = contig + req < max ? contig + req : max;
	st->async_size = 1;
readit:
	st->order = 0;
	ra_order(r, file, st);
}

static void async_ra(struct run *r, uint32_t file, struct ra_state *st, uint64_t index,
		     uint64_t req)
{
	uint64_t max, expected, folio_pages, start, end, align;

	if (!r->ra_pages)
		return;
	if (r->o->decisions)
		log_ra(r, file, st, "page_cache_async_ra", index, req);
	(void)folio_head(r, file, index, &folio_pages);
	clear_marker(r, file, index);
	max = max_pages(r, file, req);
	expected = (st->start + st->size - st->async_size) & ~(folio_pages - 1);
	if (index == expected) {
		uint64_t next = next_ra_size(st->size, max);

		st->start += st->size;
		st->size = st->size > next ? st->size : next;
	} else {
		start = next_miss(r, file, index + 1, max);
		if (!start || start - index > max)
			return;
		st->start = start;
		st->size = next_ra_size(start - index + req, max);
	}
	st->order += 2;
	align = UINT64_C(1) << (st->order < (unsigned)__builtin_ctzll(max) ?
				 st->order : (unsigned)__builtin_ctzll(max));
	end = st->start + st->size;
	if ((end & ~(align - 1)) > st->start)
		st->size -= end - (end & ~(align - 1));
	st->async_size = st->size;
	ra_order(r, file, st);
}

/* ---- mm/filemap.c ---- */

static void count_access(struct run *r, uint32_t file, uint64_t first, uint64_t last)
{
	const struct efile *f = &r->e->files[file];
	struct ra_counts *c = r->per_file ? &r->per_file[file] : NULL;

	if (!f->size || first > eof_page(f))
		return;
	if (last > eof_page(f))
		last = eof_page(f);
	for (uint64_t p = first; p <= last; p++) {
		bool hit = cached(r, file, p);

		r->total.accessed++;
		r->total.hits += hit;
		if (c) {
			c->accessed++;
			c->hits += hit;
		}
	}
}

/* filemap_get_read_batch(): cached pages from @index on; stops after a marked folio */
static uint64_t read_batch(struct run *r, uint32_t file, uint64_t index, uint64_t last,
			   uint64_t *ret_last_page)
{
	uint64_t p = index;

	while (p <= last) {
		unsigned v = pg(r, file, p);
		uint64_t n, head;

		if (!(v & PG_CACHED))
			break;
		head = folio_head(r, file, p, &n);
		*ret_last_page = p;
		if (v & PG_MARKER)
			return head + n - index;
		p = head + n;
	}
	return p - index;
}

/* The position after a read() that got to page @last: mid-page only at a ragged end of file. */
static int64_t end_pos(const struct efile *f, uint64_t last)
{
	if (f->size && last >= eof_page(f) && f->size % PAGE)
		return (int64_t)f->size;
	return (int64_t)((last + 1) * PAGE);
}

static void get_pages(struct run *r, const struct ura_pack_access *a, struct ra_state *st)
{
	const struct efile *f = &r->e->files[a->file_index];
	uint32_t file = a->file_index;
	uint64_t index = a->first, last_page = index;

	/* a read() goes on with the next get_pages at a higher index and the same end */
	if (!(st->in_call && a->last == st->call_last && a->first > st->call_first) && st->in_call)
		st->prev_pos = end_pos(f, st->call_last);
	st->in_call = true;
	st->call_first = a->first;
	st->call_last = a->last;
	if (!f->size || index > eof_page(f))
		return;
	count_access(r, file, a->first, a->last);
	if (!read_batch(r, file, index, a->last, &last_page)) {
		sync_ra(r, file, st, index, a->last - index + 1);
		if (!read_batch(r, file, index, a->last, &last_page)) {
			add_folio(r, file, index, 0, false);	/* filemap_create_folio() */
			read_pages(r, file, index, 1);
			return;
		}
	}
	if (pg(r, file, last_page) & PG_MARKER) {
		uint64_t n, head = folio_head(r, file, last_page, &n);

		async_ra(r, file, st, head, a->last + 1 - head);
	}
}

static void fault_one(struct run *r, const struct ura_pack_access *a, struct ra_state *st)
{
	const struct efile *f = &r->e->files[a->file_index];
	uint32_t file = a->file_index;
	uint64_t page = a->first;
	unsigned v;

	count_access(r, file, page, page);
	if (!(a->flags & URA_PACK_ACCESS_NO_AROUND) && a->around_first <= a->around_last) {
		/* filemap_map_pages(): maps cached pages that carry no marker */
		uint64_t mapped = 0, last = a->around_last;

		if (last > eof_page(f))
			last = eof_page(f);
		if (last - a->around_first >= MAX_AROUND_PAGES)	/* PTRS_PER_PTE */
			last = a->around_first + MAX_AROUND_PAGES - 1;
		for (uint64_t p = a->around_first; p <= last; p++)
			if ((pg(r, file, p) & (PG_CACHED | PG_MARKER)) == PG_CACHED)
				mapped++;
		st->mmap_miss = mapped >= st->mmap_miss ? 0 : st->mmap_miss - (unsigned)mapped;
		if ((pg(r, file, page) & (PG_CACHED | PG_MARKER)) == PG_CACHED)
			return;
	}
	v = pg(r, file, page);
	if (v & PG_CACHED) {
		/* do_async_mmap_readahead() */
		if (!r->ra_pages)
			return;
		if (st->mmap_miss)
			st->mmap_miss--;
		if (v & PG_MARKER)
			async_ra(r, file, st, page, r->ra_pages);
		return;
	}
	/* do_sync_mmap_readahead() */
	if (r->ra_pages) {
		if (st->mmap_miss < MMAP_LOTSAMISS * 10)
			st->mmap_miss++;
		if (st->mmap_miss <= MMAP_LOTSAMISS) {
			if (a->flags & URA_PACK_ACCESS_EXEC) {
				uint64_t end = eof_page(f) + 1;

				st->order = 0;
				st->start = page;
				st->size = (page + r->ra_pages < end ? page + r->ra_pages : end) - page;
				st->async_size = 0;
			} else {
				st->start = page > r->ra_pages / 2 ? page - r->ra_pages / 2 : 0;
				st->size = r->ra_pages;
				st->async_size = r->ra_pages / 4;
				st->order = 0;
			}
			ra_order(r, file, st);
		}
	}
	if (!cached(r, file, page)) {
		/* __filemap_get_folio(FGP_CREAT) and read_folio(): the page alone */
		add_folio(r, file, page, 0, false);
		read_pages(r, file, page, 1);
	}
}

/*
 * The pages of @a's fault-around window, but the faulting one, that are mapped
 * now (cached, no marker) and that the run used: a bit each from around_first
 * (windows of more than 64 pages have none).
 */
static uint64_t mapped_used(struct run *r, const struct ura_pack_access *a)
{
	const struct efile *f = &r->e->files[a->file_index];
	uint64_t mask = 0, last = a->around_last;

	if ((a->flags & URA_PACK_ACCESS_NO_AROUND) || a->around_first > a->around_last ||
	    a->around_first > eof_page(f) || a->around_last - a->around_first >= 64)
		return 0;
	if (last > eof_page(f))
		last = eof_page(f);
	for (uint64_t p = a->around_first; p <= last; p++)
		if (p != a->first &&
		    (pg(r, a->file_index, p) & (PG_CACHED | PG_MARKER | PG_USED)) ==
		    (PG_CACHED | PG_USED))
			mask |= UINT64_C(1) << (p - a->around_first);
	return mask;
}

/*
 * A fault, and the faults the traced run did not need: pages its fault-around
 * mapped, which it then used without a fault (no event tells of them). The
 * run at the trace's own window notes them; at another window each one that
 * this fault-around did not map faults in its turn, right after.
 */
static void fault(struct run *r, const struct ura_pack_access *a, struct ra_state *st)
{
	const struct efile *f = &r->e->files[a->file_index];
	uint64_t now, later;

	if (!f->size || a->first > eof_page(f))
		return;
	now = mapped_used(r, a);
	fault_one(r, a, st);
	if (r->reference)
		r->e->mapped[r->index] = now;
	later = r->e->mapped ? r->e->mapped[r->index] : 0;
	for (unsigned q = 0; q < 64; q++) {
		struct ura_pack_access s = *a;

		if (!(later & (UINT64_C(1) << q)))
			continue;
		s.first = s.last = a->around_first + q;
		s.flags &= ~(URA_PACK_ACCESS_MISSED | URA_PACK_ACCESS_GUESSED);
		r->req_first = r->req_last = s.first;
		if (now & (UINT64_C(1) << q))
			count_access(r, a->file_index, s.first, s.first);	/* mapped: a hit */
		else
			fault_one(r, &s, st);
	}
}

int ra_emulate_reference(struct ra_emulation *e, const struct ra_emulate_opts *o,
			 struct ra_counts *per_file, struct ra_counts *ret)
{
	int r;

	free(e->mapped);
	e->mapped = calloc(e->naccess ? e->naccess : 1, sizeof(*e->mapped));
	if (!e->mapped)
		return -ENOMEM;
	e->reference = true;
	r = ra_emulate_run(e, o, per_file, ret);
	e->reference = false;
	/*
	 * A warm trace: its run found its pages cached, and the notes above are of
	 * that run; the counts at its window are of a cold start, like the others.
	 */
	if (r == 0 && e->warm)
		r = ra_emulate_run(e, o, per_file, ret);
	if (r < 0) {
		free(e->mapped);
		e->mapped = NULL;
	}
	return r;
}

int ra_emulate_run(struct ra_emulation *e, const struct ra_emulate_opts *o,
		   struct ra_counts *per_file, struct ra_counts *ret)
{
	struct run r = { .e = e, .o = o, .per_file = per_file, .req_file = UINT32_MAX,
			 .reference = e->reference };
	int err;

	if (o->window_kb > RA_EMULATE_MAX_KB)
		return -EINVAL;
	r.ra_pages = o->window_kb / 4;
	err = pagemap_copy(&e->base, &r.pm);
	if (err < 0)
		return err;
	/* the reference run of a warm trace: the pack's pages as the trace found them */
	if (r.reference && e->warm)
		set_pack_pages(e, &r.pm, PG_CACHED, 0, &err);
	if (err < 0) {
		pagemap_free(&r.pm);
		return err;
	}
	if (per_file)
		memset(per_file, 0, e->nfiles * sizeof(*per_file));
	for (size_t i = 0; i < e->naccess && !r.error; i++) {
		struct ura_pack_access a;
		struct ra_state *st;

		if (ura_pack_get_access(e->pack, i, &a) < 0 || a.file_index >= e->nfiles ||
		    a.last < a.first)
			continue;
		st = state_of(&r, a.stream, a.file_index);
		if (!st)
			break;
		r.index = i;
		r.req_file = a.file_index;
		r.req_first = a.first;
		r.req_last = a.last;
		if (a.kind == URA_PACK_ACCESS_READ)
			get_pages(&r, &a, st);
		else if (a.kind == URA_PACK_ACCESS_FAULT)
			fault(&r, &a, st);
	}
	err = r.error;
	pagemap_free(&r.pm);
	free(r.st.s);
	if (err < 0)
		return err;
	*ret = r.total;
	return 0;
}

void ra_emulate_metadata(const struct ra_emulation *e, const struct devmodel *model,
			 struct ra_counts *ret)
{
	struct ra_counts c = { 0 };

	for (size_t i = 0, n = ura_pack_meta_count(e->pack); i < n; i++) {
		struct ura_pack_meta m;

		if (ura_pack_get_meta(e->pack, i, &m) < 0)
			continue;
		c.requests++;
		c.pages_read += (m.length + PAGE - 1) / PAGE;
		if (model)
			c.io_ns += dev_model_cost(model, m.length);
	}
	*ret = c;
}
