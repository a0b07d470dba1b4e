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
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (v[i].off != v[j].off)
		return v[i].off < v[j].off ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * Sort one object's ranges (indices into @in) by offset, unless they already are;
 * a file has a few ranges as a rule, where insertion sort beats qsort's set-up.
 */
static void sort_group(size_t *idx, size_t k, const struct sched_item *in)
{
	size_t i;

	for (i = 1; i < k; i++)
		if (in[idx[i]].off < in[idx[i - 1]].off)
			break;
	if (i == k)
		return;
	if (k > 32) {
		qsort_r(idx, k, sizeof(*idx), cmp_off, (void *)in);
		return;
	}
	for (i = 1; i < k; i++) {
		size_t v = idx[i], j = i;

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

int sched_build(struct sched_item **items, size_t n, uint32_t nobj, const struct sched_dev *devs,
		size_t ndev, uint64_t window_ns, size_t *ret_n)
{
	struct sched_item *in = *items, *merged = NULL, *out = NULL;
	size_t *start = NULL, *idx = NULL, total = 0, k = 0;
	int r = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		if (in[i].obj >= nobj || in[i].dev >= ndev || !in[i].len || !devs[in[i].dev].chunk)
			return -EINVAL;

	/* Counting sort by object, stable: each object's ranges stay in first-access order. */
	start = calloc((size_t)nobj + 2, sizeof(*start));
	idx = malloc((n ? n : 1) * sizeof(*idx));
	merged = calloc(n ? n : 1, sizeof(*merged));
	if (!start || !idx || !merged)
		goto out;
	for (size_t i = 0; i < n; i++)
		start[in[i].obj + 2]++;
	for (size_t o = 2; o < (size_t)nobj + 2; o++)
		start[o] += start[o - 1];
	for (size_t i = 0; i < n; i++)
		idx[start[in[i].obj + 1]++] = i;

	/*
	 * Merge within each object. A merged request takes the place of its earliest
	 * range (the smallest index, since the input is in first-access order), so
	 * writing it at merged[that index] and compacting keeps the global order.
	 */
	for (uint32_t o = 0; o < nobj; o++) {
		size_t s = o ? start[o] : 0, e = start[o + 1];
		struct sched_item cur;
		uint64_t gap, tmin, tmax;
		size_t first;

		if (s == e)
			continue;
		sort_group(idx + s, e - s, in);
		gap = sched_max_gap(&devs[in[idx[s]].dev]);
		cur = in[idx[s]];
		first = idx[s];
		tmin = tmax = cur.time_ns;
		for (size_t p = s + 1; p <= e; p++) {
			const struct sched_item *it = p < e ? &in[idx[p]] : NULL;
			uint64_t end = cur.off + cur.len;

			if (it && it->off <= end + gap && it->off >= cur.off &&
			    (it->time_ns > tmax ? it->time_ns : tmax) -
			    (it->time_ns < tmin ? it->time_ns : tmin) <= window_ns) {
				if (it->off + it->len > end)
					cur.len = it->off + it->len - cur.off;
				if (it->time_ns < tmin)
					tmin = it->time_ns;
				if (it->time_ns > tmax)
					tmax = it->time_ns;
				if (idx[p] < first)
					first = idx[p];
				continue;
			}
			cur.time_ns = in[first].time_ns;
			merged[first] = cur;
			total += chunks_of(cur.len, devs[cur.dev].chunk);
			if (it) {
				cur = *it;
				first = idx[p];
				tmin = tmax = cur.time_ns;
			}
		}
	}

	out = malloc((total ? total : 1) * sizeof(*out));
	if (!out)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct sched_item *m = &merged[i];
		uint64_t chunk;

		if (!m->len)
			continue;
		chunk = devs[m->dev].chunk;
		for (uint64_t off = 0; off < m->len; off += chunk) {
			out[k] = *m;
			out[k].off = m->off + off;
			out[k].len = m->len - off < chunk ? m->len - off : chunk;
			k++;
		}
	}
	free(in);
	*items = out;
	*ret_n = k;
	out = NULL;
	r = 0;
out:
	free(out);
	free(merged);
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
	size_t i = 0;
	int r = -ENOMEM;

	if (!bin_ns)
		bin_ns = 1;
	keys = malloc((n ? n : 1) * sizeof(*keys));
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	copy = malloc((n ? n : 1) * sizeof(*copy));
	if (!keys || !tmp || !copy)
		goto out;
	memcpy(copy, items, n * sizeof(*items));
	while (i < n) {
		uint64_t bin = items[i].time_ns / bin_ns;
		struct sort_key *sorted;
		size_t j = i, m;

		while (j < n && copy[j].time_ns / bin_ns == bin) {
			uint64_t page = copy[j].phys >> 12;

			/* device first, then position on it; equal keys keep first-access order */
			keys[j - i].key = (uint64_t)(copy[j].dev & 0xffff) << 48 |
					  (page < (1ull << 48) ? page : (1ull << 48) - 1);
			keys[j - i].idx = j;
			j++;
		}
		m = j - i;
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
