// SPDX-License-Identifier: GPL-2.0-or-later
/* The plan's requests: ranges -> reads of least device time, chunked, in first-access order */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ura/pack.h>

#include "replay-schedule.h"


/* Device time of reading @len bytes as requests of at most the device's chunk. */
uint64_t schedule_cost(const struct sched_dev *dev, uint64_t len)
{
	uint64_t whole = len / dev->chunk, rest = len % dev->chunk, c = 0;

	if (whole)
		c = whole > UINT64_MAX / 4 / (dev_model_cost(&dev->model, dev->chunk) + 1) ?
			    UINT64_MAX / 4 : whole * dev_model_cost(&dev->model, dev->chunk);
	return c + dev_model_cost(&dev->model, rest);
}

/* The largest hole between two pages cheaper to read than a second request. */
uint64_t schedule_max_gap(const struct sched_dev *dev)
{
	uint64_t two = 2 * dev_model_cost(&dev->model, URA_PACK_PAGE_SIZE), lo = 0, hi = 1ull << 40;

	if (schedule_cost(dev, 2 * URA_PACK_PAGE_SIZE) > two)
		return 0;
	while (hi - lo > URA_PACK_PAGE_SIZE) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (schedule_cost(dev, 2 * URA_PACK_PAGE_SIZE + mid) <= two)
			lo = mid;
		else
			hi = mid;
	}
	return lo & ~(URA_PACK_PAGE_SIZE - 1);
}

static int cmp_off(const void *a, const void *b, void *ctx)
{
	const struct sched_item *v = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (v[i].off != v[j].off)
		return v[i].off < v[j].off ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * Sort one object's ranges (indices into @in) by offset, unless they already are;
 * a file has a few ranges as a rule, where insertion sort beats qsort's set-up.
 */
static void sort_group(uint32_t *idx, size_t k, const struct sched_item *in)
{
	size_t i;

	/* idx[0..k) is filled by the caller; the analyzer cannot see it */
	for (i = 1; i < k; i++)
		if (in[idx[i]].off < in[idx[i - 1]].off) /* NOLINT(clang-analyzer-core.uninitialized.ArraySubscript) */
			break;
	if (i == k)
		return;
	if (k > 32) {
		qsort_r(idx, k, sizeof(*idx), cmp_off, (void *)in);
		return;
	}
	for (i = 1; i < k; i++) {
		uint32_t v = idx[i];
		size_t j = i;

		/* indices are increasing within a group: equal offsets keep their order */
		while (j > 0 && in[idx[j - 1]].off > in[v].off) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

static uint64_t chunks_of(uint64_t len, uint64_t chunk)
{
	return len / chunk + (len % chunk != 0);
}

static uint64_t last_of(const struct sched_item *it)
{
	return it->last_ns > it->time_ns ? it->last_ns : it->time_ns;
}

bool schedule_can_merge(const struct sched_item *a, const struct sched_item *b,
		     const struct sched_dev *dev)
{
	uint64_t end = a->off + a->len, merged;

	if (a->obj != b->obj || b->off < a->off)
		return false;
	if (b->off <= end)
		return true;		/* overlapping or touching: always one read */
	merged = (b->off + b->len > end ? b->off + b->len : end) - a->off;
	return schedule_cost(dev, merged) <= schedule_cost(dev, a->len) + schedule_cost(dev, b->len);
}

void schedule_merge(struct sched_item *a, const struct sched_item *b)
{
	uint64_t last = last_of(a) > last_of(b) ? last_of(a) : last_of(b);

	if (b->off + b->len > a->off + a->len)
		a->len = b->off + b->len - a->off;
	if (b->time_ns < a->time_ns)
		a->time_ns = b->time_ns;
	a->last_ns = last;
}

/* A stretch of one object's bytes to read: ranges that overlap or touch, as one. */
struct run {
	uint64_t off, end;
	size_t first;		/* its first range, in the object's list sorted by offset */
};

/*
 * The cheapest way to read @k runs (sorted, disjoint) as requests, each a
 * span of consecutive runs and the holes between them: dynamic programming over
 * where requests start. best[j] is the least device time of runs [0, j) and
 * from[j] where the last request of that choice starts. A request looks back
 * at most SCHED_LOOKBACK runs and SCHED_MAX_SPAN bytes, and never across a hole
 * larger than @max_hole (a heuristic bound: twice the largest hole worth one
 * request between two pages, plus slack; exact for models whose cost grows
 * linearly past a knee, as measured devices' do).
 */
static void partition(const struct run *runs, size_t k, const struct sched_dev *dev,
		      uint64_t max_hole, uint64_t *best, uint32_t *from)
{
	best[0] = 0;
	for (size_t j = 0; j < k; j++) {
		uint64_t b = UINT64_MAX;
		uint32_t f = (uint32_t)j;

		for (size_t i = j + 1, steps = 0; i-- > 0 && steps < SCHED_LOOKBACK; steps++) {
			uint64_t span = runs[j].end - runs[i].off, c;

			if (span > SCHED_MAX_SPAN && i != j)
				break;
			c = best[i] + schedule_cost(dev, span);
			if (c < b) {
				b = c;
				f = (uint32_t)i;
			}
			if (i && runs[i].off - runs[i - 1].end > max_hole)
				break;
		}
		best[j + 1] = b;
		from[j + 1] = f;
	}
}

/*
 * Emit the requests of one object: the spans partition() chose, cut to the
 * device's chunk; each piece is placed at the earliest first access among the
 * ranges it holds (not the run's: a run of touching ranges may reach far), so
 * a span that reaches late data does not make early data wait, nor pulls late
 * data ahead of its turn by more than one piece. @best is reused to hold where
 * each span ends. @in, @idx: the object's ranges, sorted by offset. @out: room
 * for the pieces; returns how many were written, in offset order.
 */
static size_t emit(const struct run *runs, size_t k, const uint32_t *from, uint64_t *best,
		   const struct sched_item *in, const uint32_t *idx, size_t nidx,
		   const struct sched_dev *dev, struct sched_item *out)
{
	size_t n = 0;

	for (size_t j = k; j > 0; j = from[j])
		best[from[j]] = j;
	for (size_t i = 0, j; i < k; i = j) {
		uint64_t off = runs[i].off, end;
		size_t n0 = n, last, r = i;

		j = (size_t)best[i];
		end = runs[j - 1].end;
		last = j < k ? runs[j].first : nidx;
		for (uint64_t p = off; p < end; p += dev->chunk) {
			uint64_t pend = end - p > dev->chunk ? p + dev->chunk : end;

			while (r < j && runs[r].end <= p)
				r++;
			if (r == j || runs[r].off >= pend)
				continue;	/* a piece of hole only: nothing wanted there */
			out[n] = in[idx[runs[i].first]];
			out[n].off = p;
			out[n].len = pend - p;
			out[n].time_ns = UINT64_MAX;
			out[n].last_ns = 0;
			n++;
		}
		/* each range marks the pieces it overlaps (pieces are in offset order) */
		for (size_t x = runs[i].first; x < last; x++) {
			const struct sched_item *it = &in[idx[x]];
			size_t lo = n0, hi = n;

			while (lo < hi) {	/* the first piece that ends past the range's start */
				size_t mid = lo + (hi - lo) / 2;

				if (out[mid].off + out[mid].len <= it->off)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < n && out[lo].off < it->off + it->len; lo++)
				if (it->time_ns < out[lo].time_ns)
					out[lo].time_ns = it->time_ns;
		}
	}
	return n;
}

/* One object's ranges (@idx, sorted by offset) as runs: those that overlap or touch, as one. */
static size_t make_runs(const struct sched_item *in, const uint32_t *idx, size_t n,
			struct run *runs)
{
	size_t k = 0;

	for (size_t x = 0; x < n; x++) {
		const struct sched_item *it = &in[idx[x]];

		if (k && it->off <= runs[k - 1].end) {
			if (it->off + it->len > runs[k - 1].end)
				runs[k - 1].end = it->off + it->len;
			continue;
		}
		runs[k++] = (struct run){ it->off, it->off + it->len, x };
	}
	return k;
}

/* The device's largest request: a longer read is split into such (max_sectors_kb). */
static uint64_t max_request(const struct sched_dev *dev)
{
	return dev->max_request && dev->max_request < dev->chunk ? dev->max_request : dev->chunk;
}

/*
 * The device requests a cold start issues for these runs, as the kernel's
 * readahead would: a miss outside the last window reads read_ahead_kb around
 * it (mmap read-around; a read() miss reads ahead as much), a run that goes
 * on past the window reads on read_ahead_kb at a time, each window in
 * requests of at most the device's largest.
 */
static size_t cold_requests(const struct run *runs, size_t k, const struct sched_dev *dev)
{
	uint64_t ra = dev->readahead, per = chunks_of(ra, max_request(dev)), wend = 0;
	size_t n = 0;

	for (size_t i = 0; i < k; i++) {
		if (runs[i].off >= wend) {	/* a miss: a window around it */
			uint64_t wstart = runs[i].off > ra / 2 ? runs[i].off - ra / 2 : 0;

			wend = wstart + ra;
			n += (size_t)per;
		}
		if (runs[i].end > wend) {	/* read on, a window at a time */
			uint64_t more = chunks_of(runs[i].end - wend, ra);

			wend += more * ra;
			n += (size_t)(more * per);
		}
	}
	return n;
}

/*
 * Plan every object on device @d by its model; return the device requests
 * (reads split at the largest request), and in @ret_bytes what they read.
 */
static size_t plan_pass(const struct sched_item *in, const uint32_t *idx, const size_t *start,
			uint32_t nobj, const struct sched_dev *devs, size_t d, struct run *runs,
			uint64_t *best, uint32_t *from, uint64_t *ret_bytes)
{
	const struct sched_dev *dev = &devs[d];
	uint64_t max_hole = 2 * schedule_max_gap(dev) + SCHED_HOLE_SLACK, bytes = 0;
	size_t total = 0;

	for (uint32_t o = 0; o < nobj; o++) {
		size_t s = o ? start[o] : 0, e = start[o + 1], k;

		/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.ArraySubscript): filled by the caller */
		if (s == e || in[idx[s]].dev != d)
			continue;
		k = make_runs(in, idx + s, e - s, runs);
		partition(runs, k, dev, max_hole, best, from);
		for (size_t j = k; j > 0; j = from[j]) {
			total += (size_t)chunks_of(runs[j - 1].end - runs[from[j]].off,
						   max_request(dev));
			bytes += runs[j - 1].end - runs[from[j]].off;
		}
	}
	*ret_bytes = bytes;
	return total;
}

/* What plan_budgets() has tried: the best price so far and its device time. */
struct budget_search {
	struct devmodel measured;
	uint64_t price, time_ns;
};

/* Plan device @d with reads at @price; true when its reads bind (more than its bytes). */
static bool try_price(const struct sched_item *in, const uint32_t *idx, const size_t *start,
		      uint32_t nobj, struct sched_dev *devs, size_t d, struct run *runs,
		      uint64_t *best, uint32_t *from, uint64_t price, struct budget_search *s)
{
	const struct devmodel *m = &s->measured;
	uint64_t bytes = 0, t, by_reads, by_bytes;
	size_t cnt;

	dev_model_from_costs(&devs[d].model, price, m->bps, m->rotational, m->source);
	cnt = plan_pass(in, idx, start, nobj, devs, d, runs, best, from, &bytes);
	t = dev_model_total(m, bytes, cnt, 0);
	if (t < s->time_ns) {
		s->time_ns = t;
		s->price = price;
	}
	by_reads = dev_model_total(m, 0, cnt, 0);
	by_bytes = dev_model_total(m, bytes, 0, 0);
	return by_reads > by_bytes;
}

/*
 * A two-budget device: the plan of least max(bytes / bps, reads / iops). The
 * plan is made with a linear model, each byte at the bytes budget's price and
 * each read at a price; at price 0 no hole is ever read (a hole is bytes, and
 * a read costs nothing more). When reads then bind, the price goes up until
 * the two budgets meet, so holes are read only to save reads the reads budget
 * cannot pay for. Leaves devs[d].model the linear model of the best price
 * (schedule_build() puts the measured one back).
 */
static void plan_budgets(const struct sched_item *in, const uint32_t *idx, const size_t *start,
			 uint32_t nobj, struct sched_dev *devs, size_t d, struct run *runs,
			 uint64_t *best, uint32_t *from)
{
	struct budget_search s = { .measured = devs[d].model, .time_ns = UINT64_MAX };
	uint64_t read_ns = 1000000000u / s.measured.iops, lo = 0, hi;

	if (!read_ns)
		read_ns = 1;
	if (try_price(in, idx, start, nobj, devs, d, runs, best, from, 0, &s)) {
		/* reads bind: raise their price until bytes do */
		for (hi = read_ns; hi < (1ull << 40) &&
		     try_price(in, idx, start, nobj, devs, d, runs, best, from, hi, &s);
		     lo = hi, hi *= 4)
			;
		for (int it = 0; it < 16 && hi - lo > read_ns / 64 + 1; it++) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (try_price(in, idx, start, nobj, devs, d, runs, best, from, mid, &s))
				lo = mid;
			else
				hi = mid;
		}
	}
	dev_model_from_costs(&devs[d].model, s.price, s.measured.bps, s.measured.rotational,
			    s.measured.source);
}

struct sort_key {
	uint64_t key;
	size_t idx;
};

static struct sort_key *sort_keys(struct sort_key *k, struct sort_key *tmp, size_t n);

int schedule_build(struct sched_item **items, size_t n, uint32_t nobj, struct sched_dev *devs,
		size_t ndev, size_t *ret_n)
{
	struct sched_item *in = *items, *out = NULL;
	struct devmodel *measured = NULL;	/* of two-budget devices, while planned linear */
	struct sort_key *keys = NULL, *tmp = NULL, *sorted;
	size_t *start = NULL, most = 0, total = 0, cap = 0;
	struct run *runs = NULL;
	uint64_t *best = NULL;
	uint32_t *idx = NULL, *from = NULL;
	int r = -ENOMEM;

	if (n > UINT32_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (in[i].obj >= nobj || in[i].dev >= ndev || !in[i].len || !devs[in[i].dev].chunk)
			return -EINVAL;

	/* Counting sort by object, stable: each object's ranges stay in first-access order. */
	start = calloc((size_t)nobj + 2, sizeof(*start));
	idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!start || !idx)
		goto out;
	for (size_t i = 0; i < n; i++)
		start[in[i].obj + 2]++;
	for (size_t o = 2; o < (size_t)nobj + 2; o++)
		start[o] += start[o - 1];
	for (size_t i = 0; i < n; i++)
		idx[start[in[i].obj + 1]++] = (uint32_t)i;
	for (uint32_t o = 0; o < nobj; o++) {
		size_t s = o ? start[o] : 0, e = start[o + 1];

		sort_group(idx + s, e - s, in);
		if (e - s > most)
			most = e - s;
	}
	measured = calloc(ndev ? ndev : 1, sizeof(*measured));
	runs = malloc((most + 1) * sizeof(*runs));
	best = malloc((most + 1) * sizeof(*best));
	from = malloc((most + 1) * sizeof(*from));
	cap = 16;
	out = malloc(cap * sizeof(*out));
	if (!measured || !runs || !best || !from || !out)
		goto out;

	/*
	 * The plan of least device time by each device's model, nothing else: no
	 * cap on requests that the model does not price (a cap at a cold start's
	 * count made the plan read holes where bytes bind, 1.6 times the data).
	 * A cold start's requests are estimated for the report only, from the runs
	 * made below.
	 */
	for (size_t d = 0; d < ndev; d++) {
		devs[d].cold_requests = 0;
		if (devs[d].model.combine == DEVMODEL_BUDGETS && devs[d].model.bps &&
		    devs[d].model.iops) {
			measured[d] = devs[d].model;
			plan_budgets(in, idx, start, nobj, devs, d, runs, best, from);
		}
	}
	for (uint32_t o = 0; o < nobj; o++) {
		size_t s = o ? start[o] : 0, e = start[o + 1], k, want;
		struct sched_dev *dev;

		if (s == e)
			continue;
		/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.ArraySubscript): as above */
		dev = &devs[in[idx[s]].dev];
		/* room for its requests: a range's pieces, once per chunk at most */
		want = total;
		for (size_t x = s; x < e; x++) {
			uint64_t pieces = chunks_of(in[idx[x]].len, dev->chunk) + 1;

			if (pieces > SIZE_MAX / sizeof(*out) - want)
				goto out;	/* -ENOMEM: no array holds that */
			want += (size_t)pieces;
		}
		if (want > SIZE_MAX / sizeof(*out) / 2)
			goto out;
		if (want > cap) {
			size_t nc = want > cap * 2 ? want : cap * 2;
			void *p = realloc(out, nc * sizeof(*out));

			if (!p)
				goto out;
			out = p;
			cap = nc;
		}
		k = make_runs(in, idx + s, e - s, runs);
		if (dev->readahead)
			dev->cold_requests += cold_requests(runs, k, dev);
		partition(runs, k, dev, 2 * schedule_max_gap(dev) + SCHED_HOLE_SLACK, best, from);
		total += emit(runs, k, from, best, in, idx + s, e - s, dev, out + total);
	}

	/* the ranges are requests now: give their memory back before sorting */
	free(runs);
	free(best);
	free(from);
	free(idx);
	runs = NULL;
	best = NULL;
	from = NULL;
	idx = NULL;
	free(in);
	in = realloc(out, (total ? total : 1) * sizeof(*out));
	if (!in)
		in = out;
	out = NULL;
	*items = in;
	*ret_n = total;

	/* first-access order; ties keep object, then offset order (stable) */
	keys = malloc((total ? total : 1) * sizeof(*keys));
	tmp = malloc((total ? total : 1) * sizeof(*tmp));
	if (!keys || !tmp)
		goto out;
	for (size_t i = 0; i < total; i++)
		keys[i] = (struct sort_key){ in[i].time_ns, i };
	sorted = sort_keys(keys, tmp, total);
	/* apply the order in place, cycle by cycle; a done slot's idx is SIZE_MAX */
	for (size_t i = 0; i < total; i++) {
		struct sched_item first;
		size_t j = i;

		if (sorted[i].idx == SIZE_MAX || sorted[i].idx == i) {
			sorted[i].idx = SIZE_MAX;
			continue;
		}
		first = in[i];
		for (;;) {
			size_t from_j = sorted[j].idx;

			sorted[j].idx = SIZE_MAX;
			if (from_j == i) {
				in[j] = first;
				break;
			}
			in[j] = in[from_j];
			j = from_j;
		}
	}
	r = 0;
out:
	/* the devices as measured again (the plan was made with a linear stand-in) */
	for (size_t d = 0; measured && d < ndev; d++)
		if (measured[d].n)
			devs[d].model = measured[d];
	free(measured);
	free(keys);
	free(tmp);
	free(out);
	free(runs);
	free(best);
	free(from);
	free(idx);
	free(start);
	return r;
}

/*
 * Stable LSD radix sort by key, 8 bits a pass; passes where all keys agree are
 * skipped. Return: @k or @tmp, whichever holds the result.
 */
static struct sort_key *sort_keys(struct sort_key *k, struct sort_key *tmp, size_t n)
{
	if (!n)
		return k;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, pos = 0;
		struct sort_key *t;

		for (size_t i = 0; i < n; i++)
			count[(k[i].key >> shift) & 0xff]++;
		if (count[(k[0].key >> shift) & 0xff] == n)
			continue;
		for (unsigned b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(k[i].key >> shift) & 0xff]++] = k[i];
		t = k;
		k = tmp;
		tmp = t;
	}
	return k;
}

int schedule_order_physical(struct sched_item *items, size_t n, uint64_t bin_ns)
{
	struct sort_key *keys = NULL, *tmp = NULL;
	struct sched_item *copy = NULL;
	size_t i = 0, most = 0;
	int r = -ENOMEM;

	if (!bin_ns)
		bin_ns = 1;
	/* room for the largest bin only */
	for (size_t j = 0; i < n; i = j) {
		while (j < n && items[j].time_ns / bin_ns == items[i].time_ns / bin_ns)
			j++;
		if (j - i > most)
			most = j - i;
	}
	keys = malloc((most ? most : 1) * sizeof(*keys));
	tmp = malloc((most ? most : 1) * sizeof(*tmp));
	copy = malloc((most ? most : 1) * sizeof(*copy));
	if (!keys || !tmp || !copy)
		goto out;
	for (i = 0; i < n;) {
		uint64_t bin = items[i].time_ns / bin_ns;
		struct sort_key *sorted;
		size_t j = i, m;

		while (j < n && items[j].time_ns / bin_ns == bin) {
			uint64_t page = items[j].phys >> 12;

			/* device first, then position on it; equal keys keep first-access order */
			keys[j - i].key = (uint64_t)(items[j].dev & 0xffff) << 48 |
					  (page < (1ull << 48) ? page : (1ull << 48) - 1);
			keys[j - i].idx = j - i;
			j++;
		}
		m = j - i;
		memcpy(copy, items + i, m * sizeof(*items));
		sorted = sort_keys(keys, tmp, m);
		for (size_t k = 0; k < m; k++)
			items[i + k] = copy[sorted[k].idx];
		i = j;
	}
	r = 0;
out:
	free(copy);
	free(tmp);
	free(keys);
	return r;
}
