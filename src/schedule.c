// SPDX-License-Identifier: GPL-2.0-or-later
/* Replay scheduling: coalesce ranges by a per-device cost model, chunk them, order them */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"

#define PAGE_BYTES 4096ull

uint64_t sched_max_gap(const struct sched_dev *dev)
{
	unsigned __int128 gap;

	if (!dev->bandwidth)
		return 0;
	gap = (unsigned __int128)dev->request_ns * dev->bandwidth / 1000000000u;
	if (gap > UINT64_MAX / 2)
		gap = UINT64_MAX / 2;
	return (uint64_t)gap & ~(PAGE_BYTES - 1);
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

bool sched_can_merge(const struct sched_item *a, const struct sched_item *b, uint64_t gap,
		     uint64_t window_ns)
{
	uint64_t end = a->off + a->len, lo, hi;

	if (a->obj != b->obj || b->off < a->off || b->off > end + gap)
		return false;
	lo = a->time_ns < b->time_ns ? a->time_ns : b->time_ns;
	hi = last_of(a) > last_of(b) ? last_of(a) : last_of(b);
	return hi - lo <= window_ns;
}

void sched_merge(struct sched_item *a, const struct sched_item *b)
{
	uint64_t last = last_of(a) > last_of(b) ? last_of(a) : last_of(b);

	if (b->off + b->len > a->off + a->len)
		a->len = b->off + b->len - a->off;
	if (b->time_ns < a->time_ns)
		a->time_ns = b->time_ns;
	a->last_ns = last;
}

/*
 * Merge within each object, in the order of @idx (each object's ranges sorted
 * by offset). With @write, each merged request is written over its earliest
 * range (the smallest index, since the input is in first-access order) and the
 * other ranges it took in get length 0, so that compacting keeps the global
 * order; the ranges of one group are all read before it is written. Return:
 * the number of requests after chunking.
 */
static uint64_t merge(struct sched_item *in, const uint32_t *idx, const size_t *start,
		      uint32_t nobj, const struct sched_dev *devs, uint64_t window_ns, bool write)
{
	uint64_t total = 0;

	for (uint32_t o = 0; o < nobj; o++) {
		size_t s = o ? start[o] : 0, e = start[o + 1], gs = s;
		struct sched_item cur;
		uint64_t gap;
		uint32_t first;

		if (s == e)
			continue;
		/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.ArraySubscript): as above */
		gap = sched_max_gap(&devs[in[idx[s]].dev]);
		cur = in[idx[s]];
		first = idx[s];
		for (size_t p = s + 1; p <= e; p++) {
			const struct sched_item *it = p < e ? &in[idx[p]] : NULL;

			if (it && sched_can_merge(&cur, it, gap, window_ns)) {
				sched_merge(&cur, it);
				if (idx[p] < first)
					first = idx[p];
				continue;
			}
			total += chunks_of(cur.len, devs[cur.dev].chunk);
			if (write) {
				for (size_t q = gs; q < p; q++)
					in[idx[q]].len = 0;
				cur.last_ns = 0;	/* phys from here on */
				in[first] = cur;
			}
			if (it) {
				cur = *it;
				first = idx[p];
				gs = p;
			}
		}
	}
	return total;
}

int sched_build(struct sched_item **items, size_t n, uint32_t nobj, const struct sched_dev *devs,
		size_t ndev, uint64_t window_ns, size_t *ret_n)
{
	struct sched_item *in = *items, *p;
	size_t *start = NULL, k = 0, m = 0;
	uint32_t *idx = NULL;
	uint64_t total;
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
	for (uint32_t o = 0; o < nobj; o++)
		sort_group(idx + (o ? start[o] : 0), start[o + 1] - (o ? start[o] : 0), in);

	/*
	 * Requests are built in place (a pack may hold 10^7 ranges): count them
	 * first, so that the only allocation that can fail comes before any change.
	 */
	total = merge(in, idx, start, nobj, devs, window_ns, false);
	if (total > SIZE_MAX / sizeof(*in))
		goto out;
	if (total > n) {
		p = realloc(in, (size_t)total * sizeof(*in));
		if (!p)
			goto out;
		in = p;
		*items = in;
	}
	merge(in, idx, start, nobj, devs, window_ns, true);
	for (size_t i = 0; i < n; i++)		/* compact, keeping the order */
		if (in[i].len)
			in[m++] = in[i];
	/*
	 * Cut to chunks from the back: request i goes to [pos, pos + its chunks)
	 * with pos >= i, over requests already moved or itself (copied first).
	 */
	k = (size_t)total;
	for (size_t i = m; i-- > 0;) {
		const struct sched_item it = in[i];
		uint64_t chunk = devs[it.dev].chunk, c = chunks_of(it.len, chunk);

		for (uint64_t j = c; j-- > 0;) {
			in[--k] = it;
			in[k].off = it.off + j * chunk;
			in[k].len = j + 1 < c ? chunk : it.len - j * chunk;
		}
	}
	if (total < n) {			/* give back what merging freed */
		p = realloc(in, (total ? (size_t)total : 1) * sizeof(*in));
		if (p)
			in = p;
	}
	*items = in;
	*ret_n = (size_t)total;
	r = 0;
out:
	free(idx);
	free(start);
	return r;
}

struct sort_key {
	uint64_t key;
	size_t idx;
};

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

int sched_order_physical(struct sched_item *items, size_t n, uint64_t bin_ns)
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
