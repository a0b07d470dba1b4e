// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Merging packs of several runs: runs ordered and forgotten (--keep-runs), files
 * and filesystems matched across runs, then each page kept or dropped by the
 * number of runs that had it (the confidence rule), with the median first access
 * on one timeline (each input's times scaled to the fastest input's, by the pages
 * both had).
 * Reads its inputs, parsed packs or builders, through merge-input.h; the result
 * is a builder, written by the caller.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "merge-input.h"

#define PAGE URA_PACK_PAGE_SIZE

/* One run of one input. */
struct run {
	int64_t created_ns;
	uint64_t duration_ns;
	size_t input, local;	/* input pack, and the run's bit in that pack */
};

/* Records of an input by file: those of file f are idx[start[f] .. start[f + 1]). */
struct by_file {
	size_t *start;
	uint32_t *idx;
};

/* Per input: where its runs went, and its tables mapped onto the merged ones. */
struct input {
	const struct merge_input *src;
	int bit[URA_PACK_MAX_RUNS];	/* merged run of each local run, -1 when forgotten */
	size_t nruns;
	uint64_t kept;			/* merged runs of this input */
	double time_scale;		/* its times onto the merged timeline */
	uint64_t fastest;		/* its fastest run's duration, 0: unknown */
	uint32_t *fs;			/* merged filesystem of each filesystem */
	struct by_file ranges, pend;	/* its ranges and pending ranges by file */
};

/* A filesystem of the merged pack: the record of the newest input that has it. */
struct mfs {
	struct ura_pack_fs rec;		/* strings point into an input */
	int rank;			/* newest merged run of that input */
	uint32_t out;			/* index in the builder, URA_PACK_NO_INDEX until used */
};

/* A file of one input, to be grouped with the same file of the other inputs. */
struct entry {
	uint32_t fs;			/* merged filesystem */
	const char *path;
	size_t input, file;
	uint64_t had;			/* merged runs that had it */
	int rank;			/* the newest of them */
};

/* Pages [first, end) that the runs of @mask had, first accessed at @time, @dem of them used. */
struct seg {
	uint64_t first, end, time, mask;
	unsigned dem;
};

struct segs {
	struct seg *v;
	size_t n, cap;
};

/* A piece of merged output, handed to emit(): kept, or pending when too few runs had it. */
struct piece {
	uint64_t first, end, time, mask;
	bool demanded, pending;
};

struct merger {
	const struct merge_opts *o;
	struct input *in;
	size_t n;
	struct mfs *fs;
	size_t nfs;
	size_t runs;
	struct ura_pack_builder *b;
	struct merge_stats st;
};

size_t merge_need(double c, size_t runs)
{
	double x = c * (double)runs - 1e-9;	/* 0.6 * 5 is 3, not 3.0000000000000004 */
	size_t k = x <= 0 ? 0 : (size_t)x;

	if ((double)k < x)
		k++;
	return k ? k : 1;
}

static int segs_push(struct segs *s, const struct seg *g)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct seg *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *g;
	return 0;
}

/* Local run mask of input @i -> merged run mask (forgotten runs dropped). */
static uint64_t remap(const struct input *in, uint64_t local)
{
	uint64_t out = 0;

	for (size_t j = 0; j < in->nruns; j++)
		if ((local >> j & 1) && in->bit[j] >= 0)
			out |= UINT64_C(1) << in->bit[j];
	return out;
}

static int cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->created_ns != y->created_ns)
		return x->created_ns > y->created_ns ? -1 : 1;	/* newest first */
	if (x->input != y->input)
		return x->input > y->input ? -1 : 1;		/* then the later input */
	return x->local < y->local ? -1 : x->local > y->local;	/* bit 0 is a pack's newest */
}

/* A first access of input @in on the merged timeline. */
static uint64_t on_timeline(const struct input *in, uint64_t t)
{
	double x = (double)t * in->time_scale;

	return x >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)x;
}

/* Order every input's runs, newest first, and keep the newest keep_runs. */
static int order_runs(struct merger *m)
{
	size_t total = 0, k = 0, keep = m->o->keep_runs ? m->o->keep_runs : URA_PACK_MAX_RUNS;
	struct run *runs;
	int r = 0;

	for (size_t i = 0; i < m->n; i++)
		total += m->in[i].nruns = merge_input_runs(m->in[i].src);
	runs = calloc(total + 1, sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->in[i].nruns; j++) {
			runs[k] = (struct run){ .input = i, .local = j };
			merge_input_get_run(m->in[i].src, j, &runs[k].created_ns,
					    &runs[k].duration_ns);
			m->in[i].bit[j] = -1;
			if (runs[k].duration_ns && (!m->in[i].fastest ||
						    runs[k].duration_ns < m->in[i].fastest))
				m->in[i].fastest = runs[k].duration_ns;
			k++;
		}
	qsort(runs, total, sizeof(*runs), cmp_run);
	m->runs = total < keep ? total : keep;
	m->st.runs_in = total;
	m->st.runs = m->runs;
	for (size_t g = 0; g < m->runs; g++) {
		struct input *in = &m->in[runs[g].input];

		in->bit[runs[g].local] = (int)g;
		in->kept |= UINT64_C(1) << g;
		if ((r = ura_pack_builder_add_run(m->b, runs[g].created_ns, runs[g].duration_ns)) < 0)
			break;
	}
	free(runs);
	return m->runs == 0 ? -EINVAL : r < 0 ? r : 0;
}

static int newest(uint64_t mask)
{
	return mask ? __builtin_ctzll(mask) : URA_PACK_MAX_RUNS;
}

bool merge_same_fs(const struct ura_pack_fs *a, const struct ura_pack_fs *b)
{
	if (!a->mount_point || !b->mount_point || strcmp(a->mount_point, b->mount_point) != 0)
		return false;
	if ((a->flags & b->flags & URA_PACK_FS_HAS_UUID) && memcmp(a->uuid, b->uuid, 16) != 0)
		return false;
	return true;
}

/* The file of range (or pending range) @i of @src. */
static uint32_t file_of(const struct merge_input *src, bool pending, size_t i)
{
	struct ura_pack_range rg;

	if (pending)
		merge_input_get_pending(src, i, &rg, NULL);
	else
		merge_input_get_range(src, i, &rg, NULL);
	return rg.file_index;
}

/* An input's ranges (or pending ranges) by file, each file's in table order: a counting sort. */
static int index_by_file(const struct merge_input *src, bool pending, struct by_file *ret)
{
	size_t nf = merge_input_file_count(src);
	size_t n = pending ? merge_input_pending_count(src) : merge_input_range_count(src);
	size_t *fill = calloc(nf + 1, sizeof(*fill));

	ret->start = calloc(nf + 2, sizeof(*ret->start));
	ret->idx = malloc((n ? n : 1) * sizeof(*ret->idx));
	if (!fill || !ret->start || !ret->idx) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ret->start[file_of(src, pending, i) + 1]++;
	for (size_t f = 0; f < nf; f++)
		ret->start[f + 1] += ret->start[f];
	for (size_t i = 0; i < n; i++) {
		uint32_t f = file_of(src, pending, i);

		ret->idx[ret->start[f] + fill[f]++] = (uint32_t)i;
	}
	free(fill);
	return 0;
}

static int map_filesystems(struct merger *m)
{
	size_t total = 0;

	for (size_t i = 0; i < m->n; i++)
		total += merge_input_fs_count(m->in[i].src);
	m->fs = calloc(total ? total : 1, sizeof(*m->fs));
	if (!m->fs)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		struct input *in = &m->in[i];
		size_t nf = merge_input_fs_count(in->src);
		int rank = newest(in->kept);

		in->fs = calloc(nf ? nf : 1, sizeof(*in->fs));
		if (!in->fs)
			return -ENOMEM;
		for (size_t f = 0; f < nf; f++) {
			struct ura_pack_fs fs;
			size_t g;

			merge_input_get_fs(in->src, f, &fs);
			for (g = 0; g < m->nfs; g++)
				if (merge_same_fs(&m->fs[g].rec, &fs))
					break;
			if (g == m->nfs)
				m->fs[m->nfs++] = (struct mfs){ .rec = fs, .rank = rank,
								.out = URA_PACK_NO_INDEX };
			else if (rank < m->fs[g].rank) {
				m->fs[g].rec = fs;
				m->fs[g].rank = rank;
			}
			in->fs[f] = (uint32_t)g;
		}
	}
	return 0;
}

/* The builder's index of merged filesystem @g, added on first use. */
static int out_fs(struct merger *m, uint32_t g, uint32_t *ret)
{
	int r;

	if (m->fs[g].out == URA_PACK_NO_INDEX) {
		r = ura_pack_builder_add_fs(m->b, &m->fs[g].rec, &m->fs[g].out);
		if (r < 0)
			return r;
	}
	*ret = m->fs[g].out;
	return 0;
}

bool merge_same_content(const struct ura_pack_file *a, const struct ura_pack_file *b)
{
	if (a->size != b->size || a->mtime_ns != b->mtime_ns)
		return false;
	if ((a->flags & b->flags & URA_PACK_FILE_HAS_GENERATION) && a->generation != b->generation)
		return false;
	if ((a->flags & b->flags & URA_PACK_FILE_HAS_BTIME) && a->btime_ns != b->btime_ns)
		return false;
	return true;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c;

	if (x->fs != y->fs)
		return x->fs < y->fs ? -1 : 1;
	if ((c = strcmp(x->path, y->path)) != 0)
		return c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->input != y->input)
		return x->input > y->input ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct timed {
	uint64_t time;
	unsigned weight;
};

static int cmp_timed(const void *a, const void *b)
{
	const struct timed *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* The value at rank @k (0-based) of the weighted times, which are sorted. */
static uint64_t nth(const struct timed *t, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++) {
		if (k < t[i].weight)
			return t[i].time;
		k -= t[i].weight;
	}
	return t[n - 1].time;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* The mean of two times, without overflow. */
static uint64_t mean(uint64_t a, uint64_t b)
{
	return a / 2 + b / 2 + (a % 2 + b % 2) / 2;
}

typedef int (*emit_fn)(struct merger *m, const void *key, const struct piece *p);

/*
 * Pages of one file (or metadata of one device), from every run: between two
 * consecutive range boundaries the runs that had the page are the union of the
 * masks of the segments over it; the page is kept when there are @need of
 * them. Neighbouring kept pages of the same runs, time and flag become one piece.
 */
static int sweep(struct merger *m, struct segs *s, size_t need, emit_fn emit, const void *key)
{
	uint64_t *bound = calloc(2 * s->n + 1, sizeof(*bound));
	size_t *active = calloc(s->n + 1, sizeof(*active));
	struct timed *times = calloc(s->n + 1, sizeof(*times));
	size_t nb = 0, na = 0, next = 0;
	struct piece cur = { 0 };
	bool have = false;
	int r = -ENOMEM;

	if (s->n == 0) {
		r = 0;
		goto out;
	}
	if (!bound || !active || !times)
		goto out;
	for (size_t i = 0; i < s->n; i++) {
		bound[nb++] = s->v[i].first;
		bound[nb++] = s->v[i].end;
	}
	qsort(bound, nb, sizeof(*bound), cmp_u64);
	/* segments by first page: those starting at or before a boundary become active */
	qsort(s->v, s->n, sizeof(*s->v), cmp_seg);
	for (size_t i = 0; i + 1 < nb; i++) {
		uint64_t lo = bound[i], hi = bound[i + 1], mask = 0;
		size_t nt = 0, k = 0;
		unsigned weight = 0, dem = 0;
		struct piece p;

		if (lo == hi)
			continue;
		while (next < s->n && s->v[next].first <= lo)
			active[na++] = next++;
		for (size_t a = 0; a < na; a++)		/* drop the segments that ended */
			if (s->v[active[a]].end > lo)
				active[k++] = active[a];
		na = k;
		for (size_t a = 0; a < na; a++) {
			const struct seg *g = &s->v[active[a]];
			unsigned w = (unsigned)__builtin_popcountll(g->mask);

			mask |= g->mask;
			times[nt++] = (struct timed){ g->time, w };
			weight += w;
			dem += g->dem < w ? g->dem : w;
		}
		if (!mask)
			continue;
		qsort(times, nt, sizeof(*times), cmp_timed);
		p = (struct piece){ .first = lo, .end = hi, .mask = mask,
				    .pending = (size_t)__builtin_popcountll(mask) < need };
		/* demanded by as many runs as keep it; a pending page, by most of its runs */
		p.demanded = p.pending ? 2 * dem > weight : dem >= need;
		/* the median; of an even count, the mean of the middle two */
		p.time = weight % 2 ? nth(times, nt, weight / 2) :
			 mean(nth(times, nt, weight / 2 - 1), nth(times, nt, weight / 2));
		if (have && cur.end == p.first && cur.mask == p.mask && cur.time == p.time &&
		    cur.demanded == p.demanded && cur.pending == p.pending &&
		    p.end - cur.first <= UINT32_MAX) {
			cur.end = p.end;
			continue;
		}
		if (have && (r = emit(m, key, &cur)) < 0)
			goto out;
		cur = p;
		have = true;
	}
	r = have ? emit(m, key, &cur) : 0;
out:
	free(bound);
	free(active);
	free(times);
	return r;
}

/* A file of the merged pack: added to the builder with its first kept range. */
struct out_file {
	const struct ura_pack_file *rec;
	uint32_t fs;		/* merged filesystem */
	uint32_t index;		/* in the builder, URA_PACK_NO_INDEX until then */
	bool kept;		/* has a range that is not pending */
};

static int emit_range(struct merger *m, const void *key, const struct piece *p)
{
	struct out_file *f = (struct out_file *)key;
	struct ura_pack_range r;
	int k;

	if (f->index == URA_PACK_NO_INDEX) {
		struct ura_pack_file rec = *f->rec;

		if ((k = out_fs(m, f->fs, &rec.fs_index)) < 0 ||
		    (k = ura_pack_builder_add_file(m->b, &rec, &f->index)) < 0)
			return k;
	}
	r = (struct ura_pack_range){ .file_index = f->index, .first_page = p->first,
				     .page_count = (uint32_t)(p->end - p->first),
				     .first_access_ns = p->time,
				     .flags = p->demanded ? URA_PACK_RANGE_DEMANDED : 0 };
	if (p->pending) {
		m->st.pending_ranges++;
		return ura_pack_builder_add_pending(m->b, &r, p->mask);
	}
	if (!f->kept) {
		f->kept = true;
		m->st.files++;
	}
	m->st.ranges++;
	m->st.bytes += (p->end - p->first) * PAGE;
	return ura_pack_builder_add_range_runs(m->b, &r, p->mask);
}

/*
 * How many of the runs of @mask (input @in's own runs that had range @rg) used
 * its pages. A pack keeps one mark for all its runs: marked, all of them (at
 * least as many as its merge needed); not marked, as many as could be without
 * the mark, by the rule that set it (sweep(): fewer than the merge's need, or
 * half of a pending range's runs at most). Counting none made a page that one
 * run had read ahead, unused, never demanded again when the program's pack was
 * learned a run at a time: the later runs' use never outweighed the first
 * run's weight (chromium's learned pack left 10 MiB its warm runs used to the
 * program's own faults, and closed 15% of the gap against 72%).
 */
static unsigned runs_demanding(const struct merger *m, const struct input *in,
			       const struct ura_pack_range *rg, uint64_t mask, bool pending)
{
	unsigned w = (unsigned)__builtin_popcountll(mask);
	size_t need;

	if (rg->flags & URA_PACK_RANGE_DEMANDED)
		return w;
	if (pending)
		return w / 2;
	need = merge_need(m->o->min_confidence, in->nruns);
	return need - 1 < w ? (unsigned)(need - 1) : w;
}

/* The segments of file @e's ranges (merged run masks; runs forgotten dropped). */
static int file_segments(const struct merger *m, const struct entry *e, struct segs *s)
{
	const struct input *in = &m->in[e->input];
	int r;

	for (size_t k = in->ranges.start[e->file]; k < in->ranges.start[e->file + 1]; k++) {
		struct ura_pack_range rg;
		uint64_t mask;
		struct seg g;

		merge_input_get_range(in->src, in->ranges.idx[k], &rg, &mask);
		g = (struct seg){ .first = rg.first_page, .end = rg.first_page + rg.page_count,
				  .time = on_timeline(in, rg.first_access_ns),
				  .mask = remap(in, mask),
				  .dem = runs_demanding(m, in, &rg, mask, false) };
		if (g.mask && (r = segs_push(s, &g)) < 0)
			return r;
	}
	for (size_t k = in->pend.start[e->file]; k < in->pend.start[e->file + 1]; k++) {
		struct ura_pack_range rg;
		uint64_t mask;
		struct seg g;

		merge_input_get_pending(in->src, in->pend.idx[k], &rg, &mask);
		g = (struct seg){ .first = rg.first_page, .end = rg.first_page + rg.page_count,
				  .time = on_timeline(in, rg.first_access_ns),
				  .mask = remap(in, mask),
				  .dem = runs_demanding(m, in, &rg, mask, true) };
		if (g.mask && (r = segs_push(s, &g)) < 0)
			return r;
	}
	return 0;
}

/* Which merged runs had file @file of input @in: those of its ranges. */
static uint64_t file_runs(const struct input *in, size_t file)
{
	struct ura_pack_range rg;
	uint64_t had = 0, mask;

	if (in->ranges.start[file] == in->ranges.start[file + 1] &&
	    in->pend.start[file] == in->pend.start[file + 1])
		return in->kept;	/* listed without pages: every run of the input had it */
	for (size_t k = in->ranges.start[file]; k < in->ranges.start[file + 1]; k++) {
		merge_input_get_range(in->src, in->ranges.idx[k], &rg, &mask);
		had |= remap(in, mask);
	}
	for (size_t k = in->pend.start[file]; k < in->pend.start[file + 1]; k++) {
		merge_input_get_pending(in->src, in->pend.idx[k], &rg, &mask);
		had |= remap(in, mask);
	}
	return had;
}

/*
 * One timeline for the first accesses of all inputs. A run's times are its own:
 * a cold start of 3 s and a warm one of 0.4 s reach the same page at very
 * different times, and a median across them mixed the two scales (a page the
 * warm runs reached early got the mean of a cold time and a warm one, and was
 * placed after pages they reached late). Each input's times are scaled to those
 * of the reference input, the one with the fastest run (the program's own pace,
 * as a warm start shows it: the timeline the ordered limit and --lead take), by
 * the median ratio of the two's first accesses over the pages both had. The
 * scale is measured on the pages, not taken from the runs' durations, which say
 * nothing of a run of other arguments (a quick "--version" of a program learned
 * from long runs: its start-up pages are reached at the same times) or one that
 * waited for input. Too few pages in common, or a ratio past TIMELINE_MAX_SCALE,
 * and the input's times are left as they are.
 */
#define TIMELINE_MIN_PAIRS	8
#define TIMELINE_MAX_PAIRS	(1u << 16)	/* per input: bounds the work and the memory */
#define TIMELINE_MAX_SCALE	64.0

struct span {
	uint64_t first, end, time;
};

struct ratios {
	double *v;
	size_t n, cap;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The ranges of file @file of input @in, sorted by page, into @v (grown as needed). */
static int spans_of(const struct input *in, size_t file, struct span **v, size_t *cap,
		    size_t *ret_n)
{
	size_t n = in->ranges.start[file + 1] - in->ranges.start[file];

	if (n > *cap) {
		struct span *p = realloc(*v, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = n;
	}
	for (size_t k = 0; k < n; k++) {
		struct ura_pack_range rg;

		merge_input_get_range(in->src, in->ranges.idx[in->ranges.start[file] + k], &rg, NULL);
		(*v)[k] = (struct span){ rg.first_page, rg.first_page + rg.page_count,
					 rg.first_access_ns };
	}
	if (n > 1)
		qsort(*v, n, sizeof(**v), cmp_span);
	*ret_n = n;
	return 0;
}

/* Ratios of the reference's first accesses to @x's, over the pages both have. */
static int add_ratios(const struct span *ref, size_t nref, const struct span *x, size_t nx,
		      struct ratios *r)
{
	for (size_t a = 0, b = 0; a < nref && b < nx && r->n < TIMELINE_MAX_PAIRS;) {
		if (ref[a].first < x[b].end && x[b].first < ref[a].end && ref[a].time && x[b].time) {
			if (r->n == r->cap) {
				size_t cap = r->cap ? 2 * r->cap : 256;
				double *v = realloc(r->v, cap * sizeof(*v));

				if (!v)
					return -ENOMEM;
				r->v = v;
				r->cap = cap;
			}
			r->v[r->n++] = (double)ref[a].time / (double)x[b].time;
		}
		if (ref[a].end < x[b].end)
			a++;
		else
			b++;
	}
	return 0;
}

static void set_time_scales(struct merger *m, const struct entry *e, size_t ne)
{
	struct ratios *r = calloc(m->n ? m->n : 1, sizeof(*r));
	struct span *sref = NULL, *sx = NULL;
	size_t cref = 0, cx = 0, ref = 0;
	int err = 0;

	for (size_t i = 0; i < m->n; i++) {
		m->in[i].time_scale = 1.0;
		if (m->in[i].fastest && (!m->in[ref].fastest || m->in[i].fastest < m->in[ref].fastest))
			ref = i;
	}
	if (!r || m->n < 2)
		goto out;
	for (size_t a = 0, b; a < ne && !err; a = b) {
		const struct entry *er = NULL;
		size_t nref = 0;

		for (b = a; b < ne && e[b].fs == e[a].fs && strcmp(e[b].path, e[a].path) == 0; b++)
			if (e[b].input == ref && !er)
				er = &e[b];
		if (!er || (err = spans_of(&m->in[ref], er->file, &sref, &cref, &nref)) < 0)
			continue;
		for (size_t k = a; k < b && !err; k++) {
			struct ura_pack_file fr, fx;
			size_t nx;

			if (e[k].input == ref)
				continue;
			merge_input_get_file(m->in[ref].src, er->file, &fr);
			merge_input_get_file(m->in[e[k].input].src, e[k].file, &fx);
			if (!merge_same_content(&fr, &fx))
				continue;
			if ((err = spans_of(&m->in[e[k].input], e[k].file, &sx, &cx, &nx)) == 0)
				err = add_ratios(sref, nref, sx, nx, &r[e[k].input]);
		}
	}
	for (size_t i = 0; i < m->n && !err; i++) {
		double q;

		if (r[i].n < TIMELINE_MIN_PAIRS)
			continue;
		qsort(r[i].v, r[i].n, sizeof(*r[i].v), cmp_double);
		q = r[i].n % 2 ? r[i].v[r[i].n / 2] :
				 (r[i].v[r[i].n / 2 - 1] + r[i].v[r[i].n / 2]) / 2;
		if (q >= 1 / TIMELINE_MAX_SCALE && q <= TIMELINE_MAX_SCALE)
			m->in[i].time_scale = q;
	}
out:
	for (size_t i = 0; r && i < m->n; i++)
		free(r[i].v);
	free(r);
	free(sref);
	free(sx);
}

/* The @count entries at @e are one file in several inputs, newest first. */
static int merge_file(struct merger *m, const struct entry *e, size_t count, struct segs *s)
{
	struct ura_pack_file newest_rec, rec;
	struct out_file f = { .rec = &newest_rec, .fs = e[0].fs, .index = URA_PACK_NO_INDEX,
			      .kept = false };
	uint64_t had = 0, current = 0;
	int r;

	merge_input_get_file(m->in[e[0].input].src, e[0].file, &newest_rec);
	s->n = 0;
	for (size_t k = 0; k < count; k++) {
		had |= e[k].had;
		merge_input_get_file(m->in[e[k].input].src, e[k].file, &rec);
		if (!merge_same_content(&newest_rec, &rec))
			continue;	/* another content of the file: not averaged with it */
		current |= e[k].had;
		if ((r = file_segments(m, &e[k], s)) < 0)
			return r;
	}
	if (had != current)
		m->st.files_changed++;
	/* runs that had only an older content say nothing about today's pages */
	return sweep(m, s, merge_need(m->o->min_confidence,
				      m->runs - (size_t)__builtin_popcountll(had & ~current)),
		     emit_range, &f);
}

static int merge_files(struct merger *m)
{
	struct segs s = { 0 };
	struct entry *e;
	size_t total = 0, ne = 0;
	int r = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->in[i].kept)
			total += merge_input_file_count(m->in[i].src);
	e = calloc(total ? total : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		const struct input *in = &m->in[i];

		if (!in->kept)
			continue;
		for (size_t f = 0; f < merge_input_file_count(in->src); f++) {
			struct ura_pack_file rec;
			uint64_t had = file_runs(in, f);

			if (!had)
				continue;	/* only forgotten runs had it */
			merge_input_get_file(in->src, f, &rec);
			e[ne++] = (struct entry){ .fs = in->fs[rec.fs_index], .path = rec.path,
						  .input = i, .file = f, .had = had,
						  .rank = newest(had) };
		}
	}
	qsort(e, ne, sizeof(*e), cmp_entry);
	set_time_scales(m, e, ne);
	for (size_t a = 0, b; a < ne; a = b) {
		for (b = a + 1; b < ne && e[b].fs == e[a].fs && strcmp(e[b].path, e[a].path) == 0;)
			b++;
		m->st.files_in++;
		if ((r = merge_file(m, &e[a], b - a, &s)) < 0)
			break;
	}
	free(s.v);
	free(e);
	return r;
}

/* Metadata of one device: (merged filesystem, or none and the device number). */
struct meta_key {
	uint32_t fs;		/* merged filesystem or URA_PACK_NO_INDEX */
	uint32_t major, minor;
};

static int emit_meta(struct merger *m, const void *key, const struct piece *p)
{
	const struct meta_key *k = key;
	struct ura_pack_meta rec = { .fs_index = URA_PACK_NO_INDEX, .major = k->major,
				     .minor = k->minor, .offset = p->first * PAGE,
				     .length = (p->end - p->first) * PAGE,
				     .first_access_ns = p->time };
	int r;

	if (p->pending)
		return 0;	/* no pending metadata: too few runs read it, it is forgotten */
	if (k->fs != URA_PACK_NO_INDEX && (r = out_fs(m, k->fs, &rec.fs_index)) < 0)
		return r;
	m->st.meta_ranges++;
	m->st.meta_bytes += rec.length;
	return ura_pack_builder_add_meta_runs(m->b, &rec, p->mask);
}

static struct meta_key meta_key_of(const struct merger *m, const struct input *in,
				   const struct ura_pack_meta *mt)
{
	struct meta_key k = { .fs = URA_PACK_NO_INDEX, .major = mt->major, .minor = mt->minor };

	if (mt->fs_index != URA_PACK_NO_INDEX) {
		k.fs = in->fs[mt->fs_index];
		k.major = m->fs[k.fs].rec.major;	/* the device of the newest run */
		k.minor = m->fs[k.fs].rec.minor;
	}
	return k;
}

struct witnesses {
	uint64_t all;		/* the runs that had some metadata of the device */
	uint64_t mask;		/* of them, those that had a page some other one did not */
};

static int note_witness(struct merger *m, const void *key, const struct piece *p)
{
	struct witnesses *w = (struct witnesses *)key;

	(void)m;
	if (p->mask != w->all)
		w->mask |= p->mask;
	return 0;
}

/*
 * The witnesses of a device's metadata @s: the runs whose pages say what a
 * cold start reads. A warm start reads none from the device; its pack holds
 * what the layout says a cold start of its files needs (trace-assemble.c),
 * as every run's pack does, so that a run which had no other page is no
 * witness: it neither supports nor opposes a page that only cold runs read (a
 * directory searched in vain, an inode table block read ahead). A cold run
 * that read that very core and nothing more is taken for a warm one: it
 * opposes nothing either, and the pack keeps a little more metadata.
 */
static int meta_witnesses(struct merger *m, struct segs *s, uint64_t *ret)
{
	struct witnesses w = { 0 };
	int r;

	for (size_t i = 0; i < s->n; i++)
		w.all |= s->v[i].mask;
	r = sweep(m, s, 1, note_witness, &w);
	*ret = w.mask;
	return r;
}

static int merge_meta(struct merger *m)
{
	struct meta_key *keys = NULL;
	uint64_t witness;
	struct segs s = { 0 };
	size_t nk = 0, cap = 0;
	int r = 0;

	/* the devices: few, so a list */
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; m->in[i].kept && j < merge_input_meta_count(m->in[i].src); j++) {
			struct ura_pack_meta mt;
			struct meta_key k;
			uint64_t mask;
			size_t x;

			merge_input_get_meta(m->in[i].src, j, &mt, &mask);
			k = meta_key_of(m, &m->in[i], &mt);
			for (x = 0; x < nk && memcmp(&keys[x], &k, sizeof(k)) != 0; x++)
				;
			if (x < nk)
				continue;
			if (nk == cap) {
				struct meta_key *v = realloc(keys, (cap = cap ? 2 * cap : 8) * sizeof(*v));

				if (!v) {
					r = -ENOMEM;
					goto out;
				}
				keys = v;
			}
			keys[nk++] = k;
		}
	for (size_t x = 0; x < nk; x++) {
		s.n = 0;
		for (size_t i = 0; i < m->n; i++)
			for (size_t j = 0; m->in[i].kept && j < merge_input_meta_count(m->in[i].src);
			     j++) {
				struct ura_pack_meta mt;
				struct meta_key k;
				uint64_t mask;
				struct seg g;

				merge_input_get_meta(m->in[i].src, j, &mt, &mask);
				k = meta_key_of(m, &m->in[i], &mt);
				if (memcmp(&keys[x], &k, sizeof(k)) != 0)
					continue;
				g = (struct seg){ .first = mt.offset / PAGE,
						  .end = (mt.offset + mt.length) / PAGE,
						  .time = on_timeline(&m->in[i],
								       mt.first_access_ns),
						  .mask = remap(&m->in[i], mask) };
				if (g.mask && (r = segs_push(&s, &g)) < 0)
					goto out;
			}
		r = meta_witnesses(m, &s, &witness);
		if (r >= 0)
			r = sweep(m, &s, merge_need(m->o->min_confidence,
						    (size_t)__builtin_popcountll(witness)),
				  emit_meta, &keys[x]);
		if (r < 0)
			goto out;
	}
out:
	free(keys);
	free(s.v);
	return r;
}

/* The newest run's trace info, with the events lost by all the runs kept. */
static int merge_info(struct merger *m)
{
	struct ura_pack_info info, other;
	size_t newest_input = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->in[i].kept & 1)
			newest_input = i;
	merge_input_get_info(m->in[newest_input].src, &info);
	for (size_t j = 0; j < m->in[newest_input].nruns; j++)
		if (m->in[newest_input].bit[j] == 0)
			merge_input_get_run(m->in[newest_input].src, j, &info.created_ns,
					    &info.duration_ns);
	info.lost_events = 0;
	info.flags &= ~URA_PACK_INFO_ACCESS_TRUNCATED;	/* no access log: runs cannot share one */
	for (size_t i = 0; i < m->n; i++)
		if (m->in[i].kept) {
			merge_input_get_info(m->in[i].src, &other);
			info.lost_events += other.lost_events;
		}
	return ura_pack_builder_set_info(m->b, &info);
}

int merge_inputs(const struct merge_input *in, size_t n, const struct merge_opts *o,
		 struct merge_stats *stats, struct ura_pack_builder **ret)
{
	struct merger m = { .o = o, .n = n };
	int r;

	if (n == 0 || !(o->min_confidence > 0 && o->min_confidence <= 1) ||
	    o->keep_runs > URA_PACK_MAX_RUNS)
		return -EINVAL;
	m.in = calloc(n, sizeof(*m.in));
	if (!m.in)
		return -ENOMEM;
	r = ura_pack_builder_new(&m.b);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		m.in[i].src = &in[i];
		if ((r = merge_input_prepare(&in[i])) < 0 ||
		    (r = index_by_file(&in[i], false, &m.in[i].ranges)) < 0 ||
		    (r = index_by_file(&in[i], true, &m.in[i].pend)) < 0)
			goto out;
	}
	if ((r = order_runs(&m)) < 0 || (r = map_filesystems(&m)) < 0 ||
	    (r = merge_info(&m)) < 0 || (r = merge_files(&m)) < 0 || (r = merge_meta(&m)) < 0)
		goto out;
	m.st.need = merge_need(o->min_confidence, m.runs);
	if (stats)
		*stats = m.st;
	*ret = m.b;
	m.b = NULL;
out:
	for (size_t i = 0; i < n; i++) {
		free(m.in[i].fs);
		free(m.in[i].ranges.start);
		free(m.in[i].ranges.idx);
		free(m.in[i].pend.start);
		free(m.in[i].pend.idx);
	}
	free(m.in);
	free(m.fs);
	ura_pack_builder_free(m.b);
	return r;
}

int merge_packs(const struct ura_pack *const *in, size_t n, const struct merge_opts *o,
		struct merge_stats *stats, struct ura_pack_builder **ret)
{
	struct merge_input *src = calloc(n ? n : 1, sizeof(*src));
	int r;

	if (!src)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		src[i].pack = in[i];
	r = merge_inputs(src, n, o, stats, ret);
	free(src);
	return r;
}
