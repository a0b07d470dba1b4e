// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/replay-schedule.c and src/replay-engine.c: merging, chunking, order, safe opening, report */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "util-log.h"
#include "replay-report.h"
#include "replay-engine.h"
#include "replay-follow.h"
#include "replay-inflight.h"
#include "replay-mounts.h"
#include "sys-residency.h"
#include "replay-schedule.h"
#include "sys-view.h"
#include "unit.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

/* ---- schedule ---- */

static struct sched_dev dev_costs(uint64_t request_ns, uint64_t bandwidth, uint64_t chunk)
{
	struct sched_dev d = { .chunk = chunk };

	dev_model_from_costs(&d.model, request_ns, bandwidth, false, DEVMODEL_OPTIONS);
	return d;
}

static struct sched_dev ssd;

static void setup_ssd(void)
{
	ssd = dev_costs(DEVMODEL_SSD_REQUEST_NS, DEVMODEL_SSD_BANDWIDTH, 4 * MiB);
}

static struct sched_item *items(size_t n, const struct sched_item *v)
{
	struct sched_item *p = malloc(n * sizeof(*p));

	ck_assert_ptr_nonnull(p);
	memcpy(p, v, n * sizeof(*p));
	return p;
}

START_TEST(test_max_gap)
{
	struct sched_dev hdd = dev_costs(8000000, 120 * MiB, MiB);
	struct sched_dev free_req = dev_costs(0, 120 * MiB, MiB);

	setup_ssd();
	/* 8 ms at 120 MiB/s is 1006632 bytes: whole pages, within a page of it */
	ck_assert_uint_le(schedule_max_gap(&hdd), 1006632);
	ck_assert_uint_ge(schedule_max_gap(&hdd), 1006632 - 8192);
	ck_assert_uint_eq(schedule_max_gap(&hdd) % 4096, 0);
	ck_assert_uint_eq(schedule_max_gap(&free_req), 0);
	/* flash: 100 us at 500 MiB/s is about 51 KiB */
	ck_assert_uint_le(schedule_max_gap(&ssd), 52428);
	ck_assert_uint_ge(schedule_max_gap(&ssd), 45056);
}
END_TEST

START_TEST(test_merge_gap)
{
	uint64_t gap;
	struct sched_item *v;
	size_t n = 0;

	setup_ssd();
	gap = schedule_max_gap(&ssd);
	{
		struct sched_item in[] = {
			{ .off = 0, .len = 8 * KiB, .time_ns = 0, .obj = 0 },
			{ .off = 8 * KiB + gap, .len = 4 * KiB, .time_ns = 10, .obj = 0 },	/* merged */
			{ .off = 20 * KiB + 2 * gap + 4096, .len = 4 * KiB, .time_ns = 20, .obj = 0 },
		};

		v = items(3, in);
		ck_assert_int_eq(schedule_build(&v, 3, 1, &ssd, 1, &n), 0);
		ck_assert_uint_eq(n, 2);
		ck_assert_uint_eq(v[0].off, 0);
		ck_assert_uint_eq(v[0].len, 12 * KiB + gap);
		ck_assert_uint_eq(v[1].off, in[2].off);
		ck_assert_uint_eq(v[1].len, 4 * KiB);
	}
	free(v);
}
END_TEST

START_TEST(test_merge_overlap_and_objects)
{
	struct sched_item in[] = {
		{ .off = 0, .len = 64 * KiB, .time_ns = 0, .obj = 0 },
		{ .off = 0, .len = 64 * KiB, .time_ns = 1, .obj = 1 },		/* other file */
		{ .off = 16 * KiB, .len = 16 * KiB, .time_ns = 2, .obj = 0 },	/* inside */
		{ .off = 32 * KiB, .len = 64 * KiB, .time_ns = 3, .obj = 0 },	/* overlaps */
	};
	struct sched_item *v = items(4, in);
	size_t n = 0;

	setup_ssd();
	ck_assert_int_eq(schedule_build(&v, 4, 2, &ssd, 1, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(v[0].obj, 0);
	ck_assert_uint_eq(v[0].off, 0);
	ck_assert_uint_eq(v[0].len, 96 * KiB);
	ck_assert_uint_eq(v[1].obj, 1);
	ck_assert_uint_eq(v[1].len, 64 * KiB);
	free(v);
}
END_TEST

/* A merged request goes where its earliest range was; the rest keep first-access order. */
START_TEST(test_order_kept)
{
	struct sched_item in[] = {
		{ .off = 100 * KiB, .len = 4 * KiB, .time_ns = 5, .obj = 0 },
		{ .off = 0, .len = 4 * KiB, .time_ns = 6, .obj = 1 },
		{ .off = 96 * KiB, .len = 4 * KiB, .time_ns = 7, .obj = 0 },	/* before the first */
		{ .off = 0, .len = 4 * KiB, .time_ns = 8, .obj = 2 },
	};
	struct sched_item *v = items(4, in);
	size_t n = 0;

	setup_ssd();
	ck_assert_int_eq(schedule_build(&v, 4, 3, &ssd, 1, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(v[0].obj, 0);
	ck_assert_uint_eq(v[0].off, 96 * KiB);
	ck_assert_uint_eq(v[0].len, 8 * KiB);
	ck_assert_uint_eq(v[0].time_ns, 5);
	ck_assert_uint_eq(v[1].obj, 1);
	ck_assert_uint_eq(v[2].obj, 2);
	free(v);
}
END_TEST

/* Time plays no part in merging: a large library touched early and late is read once. */
START_TEST(test_merge_across_time)
{
	struct sched_dev hdd = dev_costs(8000000, 120 * MiB, MiB);
	struct sched_item in[] = {
		{ .off = 0, .len = 4 * KiB, .time_ns = 0, .obj = 0 },
		{ .off = 0, .len = 4 * KiB, .time_ns = 1000000000ull, .obj = 1 },
		{ .off = 64 * KiB, .len = 4 * KiB, .time_ns = 22000000000ull, .obj = 0 },
	};
	struct sched_item *v = items(3, in);
	size_t n = 0;

	ck_assert_int_eq(schedule_build(&v, 3, 2, &hdd, 1, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(v[0].obj, 0);
	ck_assert_uint_eq(v[0].len, 68 * KiB);
	ck_assert_uint_eq(v[0].time_ns, 0);
	ck_assert_uint_eq(v[1].obj, 1);
	free(v);
}
END_TEST

/* A device of two budgets: @bps bytes and @iops reads a second, granted apart. */
static struct sched_dev dev_budgets(uint64_t bps, uint64_t iops, uint64_t chunk)
{
	struct sched_dev d = dev_costs(1000000000ull / iops, bps, chunk);

	d.model.combine = DEVMODEL_BUDGETS;
	d.model.bps = bps;
	d.model.iops = iops;
	return d;
}

/* @k ranges of @len bytes, @gap bytes apart, in one file, in order. */
static struct sched_item *spaced(size_t k, uint64_t len, uint64_t gap)
{
	struct sched_item *v = calloc(k, sizeof(*v));

	for (size_t i = 0; i < k; i++)
		v[i] = (struct sched_item){ .off = i * (len + gap), .len = len,
					    .time_ns = i * 1000, .obj = 0 };
	return v;
}

static uint64_t bytes_of(const struct sched_item *v, size_t n)
{
	uint64_t b = 0;

	for (size_t i = 0; i < n; i++)
		b += v[i].len;
	return b;
}

/*
 * Two budgets, bytes binding (emmc-like: 150 MB/s, 1500 reads/s; 256 KiB ranges
 * 16 KiB apart): reading a hole saves a read that costs nothing, so no hole is
 * read. The same figures as additive costs (a read 0.67 ms plus its bytes) do
 * read the holes: the test tells the two models apart.
 */
START_TEST(test_budgets_bytes_bind)
{
	struct sched_dev bud = dev_budgets(150000000ull, 1500, MiB);
	struct sched_dev add = dev_costs(1000000000ull / 1500, 150000000ull, MiB);
	struct sched_item *v = spaced(64, 256 * KiB, 16 * KiB);
	size_t n = 0;

	ck_assert_int_eq(schedule_build(&v, 64, 1, &bud, 1, &n), 0);
	ck_assert_uint_eq(bytes_of(v, n), 64 * 256 * KiB);	/* the ranges, no hole */
	ck_assert_uint_eq(n, 64);
	ck_assert_int_eq(bud.model.combine, DEVMODEL_BUDGETS);	/* the model given back */
	ck_assert_uint_eq(bud.model.iops, 1500);
	free(v);
	v = spaced(64, 256 * KiB, 16 * KiB);
	ck_assert_int_eq(schedule_build(&v, 64, 1, &add, 1, &n), 0);
	ck_assert_uint_gt(bytes_of(v, n), 64 * 256 * KiB);
	ck_assert_uint_lt(n, 64);
	free(v);
}
END_TEST

/*
 * Two budgets, reads binding (8 KiB ranges 8 KiB apart at 100 reads/s and
 * 100 MB/s): holes are read until the reads no longer bind, and the plan's
 * device time, the larger budget, is far below one read per range.
 */
START_TEST(test_budgets_reads_bind)
{
	struct sched_dev bud = dev_budgets(100000000ull, 100, MiB);
	struct sched_item *v = spaced(512, 8 * KiB, 8 * KiB);
	uint64_t t_plan, t_each;
	size_t n = 0;

	ck_assert_int_eq(schedule_build(&v, 512, 1, &bud, 1, &n), 0);
	ck_assert_uint_lt(n, 512);
	t_plan = dev_model_total(&bud.model, bytes_of(v, n), n, 0);
	t_each = dev_model_total(&bud.model, 512 * 8 * KiB, 512, 0);
	ck_assert_uint_lt(t_plan * 10, t_each);
	free(v);
}
END_TEST

/*
 * Requests follow the first access of what they hold, interleaving files: the
 * late part of a file that is not worth merging comes after another file's
 * early part; a chunk of a long span is placed by the runs inside it.
 */
START_TEST(test_order_by_first_access)
{
	struct sched_dev d;
	struct sched_item in[] = {
		{ .off = 0, .len = 4 * KiB, .time_ns = 0, .obj = 0 },
		{ .off = 512 * MiB, .len = 4 * KiB, .time_ns = 30, .obj = 0 },
		{ .off = 0, .len = 4 * KiB, .time_ns = 10, .obj = 1 },
		{ .off = 8 * MiB - 4 * KiB, .len = 8 * KiB, .time_ns = 40, .obj = 1 },
		{ .off = 4 * MiB + 4 * KiB, .len = 4 * KiB, .time_ns = 20, .obj = 1 },
	};
	struct sched_item *v = items(5, in);
	size_t n = 0;

	/*
	 * A request costs as much as 64 MiB, chunks are 4 MiB: file 1 is best read
	 * as [0, 4K) and [4M + 4K, 8M + 4K), one chunk, which holds the ranges
	 * first used at 20 and 40 and is placed at 20.
	 */
	d = dev_costs(1000000000ull, 64 * MiB, 4 * MiB);
	ck_assert_int_eq(schedule_build(&v, 5, 2, &d, 1, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(v[0].obj, 0);
	ck_assert_uint_eq(v[0].time_ns, 0);
	ck_assert_uint_eq(v[1].obj, 1);
	ck_assert_uint_eq(v[1].off, 0);
	ck_assert_uint_eq(v[1].len, 4 * KiB);
	ck_assert_uint_eq(v[1].time_ns, 10);
	ck_assert_uint_eq(v[2].obj, 1);
	ck_assert_uint_eq(v[2].off, 4 * MiB + 4 * KiB);
	ck_assert_uint_eq(v[2].len, 4 * MiB);
	ck_assert_uint_eq(v[2].time_ns, 20);
	ck_assert_uint_eq(v[3].obj, 0);			/* 512 MiB away: its own request */
	ck_assert_uint_eq(v[3].time_ns, 30);
	free(v);
}
END_TEST

/* A device whose reads cost the larger of a request cost and bytes (a throttle) */
START_TEST(test_throttle_model)
{
	struct sched_dev d = { .chunk = 4 * MiB };
	struct sched_item in[] = {
		{ .off = 0, .len = 4 * KiB, .time_ns = 0, .obj = 0 },
		{ .off = 160 * KiB, .len = 4 * KiB, .time_ns = 1, .obj = 0 },	/* free to merge */
		{ .off = 2 * MiB, .len = 4 * KiB, .time_ns = 2, .obj = 0 },	/* too far */
	};
	struct sched_item *v = items(3, in);
	size_t n = 0;

	/* 1500 requests/s, 150 MB/s: 667 us up to 100 KB, then bytes */
	d.model = (struct devmodel){ .n = 4, .size = { 4096, 65536, 262144, 1048576 },
				     .ns = { 666667, 666667, 1747627, 6990507 } };
	ck_assert(dev_model_valid(&d.model));
	ck_assert_int_eq(schedule_build(&v, 3, 1, &d, 1, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(v[0].len, 164 * KiB);
	ck_assert_uint_eq(v[1].off, 2 * MiB);
	free(v);
}
END_TEST

START_TEST(test_chunks)
{
	struct sched_dev d;
	struct sched_item in[] = { { .off = 4096, .len = 10 * MiB, .time_ns = 1, .obj = 0 } };
	struct sched_item *v = items(1, in);
	uint64_t next = 4096;
	size_t n = 0;

	setup_ssd();
	d = ssd;
	d.chunk = 4 * MiB;
	ck_assert_int_eq(schedule_build(&v, 1, 1, &d, 1, &n), 0);
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(v[i].off, next);
		ck_assert_uint_le(v[i].len, d.chunk);
		next += v[i].len;
	}
	ck_assert_uint_eq(next, 4096 + 10 * MiB);
	free(v);
}
END_TEST

START_TEST(test_invalid)
{
	struct sched_item in[] = { { .off = 0, .len = 4096, .obj = 5 } };
	struct sched_item *v = items(1, in), *keep = v;
	size_t n = 7;

	setup_ssd();
	ck_assert_int_eq(schedule_build(&v, 1, 2, &ssd, 1, &n), -EINVAL);
	ck_assert_ptr_eq(v, keep);
	ck_assert_uint_eq(n, 7);
	v[0].obj = 0;
	v[0].dev = 3;
	ck_assert_int_eq(schedule_build(&v, 1, 2, &ssd, 1, &n), -EINVAL);
	free(v);
}
END_TEST

START_TEST(test_many)
{
	size_t n = 100000, got = 0;
	struct sched_item *v = malloc(n * sizeof(*v));
	uint64_t prev = 0, bytes = 0;

	setup_ssd();
	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct sched_item){ .off = (i * 7919 % 1000) * 4 * MiB, .len = 4096,
					    .time_ns = i, .obj = (uint32_t)(i % 1000) };
	ck_assert_int_eq(schedule_build(&v, n, 1000, &ssd, 1, &got), 0);
	ck_assert_uint_gt(got, 0);
	for (size_t i = 0; i < got; i++) {
		ck_assert_uint_ge(v[i].time_ns, prev);	/* first-access order */
		prev = v[i].time_ns;
		bytes += v[i].len;
	}
	ck_assert_uint_le(got, n);
	ck_assert_uint_ge(bytes, got * 4096);
	free(v);
}
END_TEST

static int cmp_piece(const void *a, const void *b)
{
	const struct sched_item *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The order is applied in place: the requests are the same set whatever the
 * times, each once. Times in reverse of offsets make every cycle of the
 * permutation longer than one.
 */
START_TEST(test_order_is_a_permutation)
{
	struct sched_dev d = dev_costs(0, 1000 * MiB, 64 * KiB);
	size_t n = 3000, got = 0, got2 = 0;
	struct sched_item *v = malloc(n * sizeof(*v)), *w = malloc(n * sizeof(*w));

	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(w);
	/* requests cost nothing: no hole is read, every range is its own request */
	for (size_t i = 0; i < n; i++)
		v[i] = (struct sched_item){ .off = (i % 1000) * 1 * MiB, .len = 4096,
					    .time_ns = (n - i) * 7 % 1009, .obj = (uint32_t)(i / 1000) };
	memcpy(w, v, n * sizeof(*v));
	ck_assert_int_eq(schedule_build(&v, n, 3, &d, 1, &got), 0);
	ck_assert_uint_eq(got, n);
	for (size_t i = 1; i < got; i++)
		ck_assert_uint_ge(v[i].time_ns, v[i - 1].time_ns);
	/* the same set as the ranges */
	for (size_t i = 0; i < n; i++)
		w[i].time_ns = 0;
	got2 = got;
	qsort(v, got2, sizeof(*v), cmp_piece);
	qsort(w, n, sizeof(*w), cmp_piece);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(v[i].obj, w[i].obj);
		ck_assert_uint_eq(v[i].off, w[i].off);
		ck_assert_uint_eq(v[i].len, w[i].len);
	}
	free(v);
	free(w);
}
END_TEST

/*
 * The order rule, on random plans: ranges used one after another (times
 * increasing) are never reordered beyond one merge. Each request is placed at the
 * earliest first access among the ranges it holds, requests go in that order,
 * and a request is at most a chunk: so a range comes ahead of one used before it
 * only inside a request that holds a range used earlier still, and never more
 * than a chunk of such data ahead of it. Every range's bytes are read.
 */
START_TEST(test_order_rule)
{
	uint64_t seed = 12345;

	for (int trial = 0; trial < 200; trial++) {
		size_t n = 1 + trial % 97, got = 0;
		uint32_t nobj = 1 + (uint32_t)(trial % 5);
		struct sched_dev d = trial % 2 ?
			dev_budgets(150000000, 1500, (1 + trial % 4) * 256 * KiB) :
			dev_costs(50000 + (uint64_t)trial * 20000, 200 * MiB, (1 + trial % 3) * MiB);
		struct sched_item *in = calloc(n, sizeof(*in)), *v;

		ck_assert_ptr_nonnull(in);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			in[i] = (struct sched_item){ .off = (seed >> 33) % 512 * 4096,
						     .len = ((seed >> 20) % 40 + 1) * 4096,
						     .time_ns = i * 1000,
						     .obj = (uint32_t)((seed >> 12) % nobj) };
		}
		v = items(n, in);
		ck_assert_int_eq(schedule_build(&v, n, nobj, &d, 1, &got), 0);
		for (size_t r = 1; r < got; r++)
			ck_assert_uint_ge(v[r].time_ns, v[r - 1].time_ns);
		for (size_t r = 0; r < got; r++) {
			uint64_t first = UINT64_MAX;

			ck_assert_uint_le(v[r].len, d.chunk);
			for (size_t i = 0; i < n; i++)
				if (in[i].obj == v[r].obj && in[i].off < v[r].off + v[r].len &&
				    v[r].off < in[i].off + in[i].len && in[i].time_ns < first)
					first = in[i].time_ns;
			/* placed at the first use of what it holds: not earlier, not later */
			ck_assert_uint_eq(v[r].time_ns, first);
		}
		/* every page of every range is in a request */
		for (size_t i = 0; i < n; i++)
			for (uint64_t p = in[i].off; p < in[i].off + in[i].len; p += 4096) {
				size_t r = 0;

				while (r < got && !(v[r].obj == in[i].obj && v[r].off <= p &&
						    p < v[r].off + v[r].len))
					r++;
				ck_assert_uint_lt(r, got);
			}
		free(in);
		free(v);
	}
}
END_TEST

/*
 * The device's read_ahead_kb does not bound the plan: the kernel would read
 * these 64 pages in one 2 MiB window, but where a request is cheaper than the
 * holes (10 us against 30 KiB at 500 MB/s), the plan reads the pages alone,
 * whatever read_ahead_kb is. A cold start's requests are still estimated.
 */
START_TEST(test_no_cold_cap)
{
	struct sched_dev d = dev_costs(10000, 500 * MiB, 2 * MiB);
	struct sched_item in[64];
	struct sched_item *v;
	size_t n = 0, bytes = 0;

	/* 64 single pages 32 KiB apart: holes cost more than requests (10 us each) */
	for (size_t i = 0; i < 64; i++)
		in[i] = (struct sched_item){ .off = i * 32 * KiB, .len = 4096, .time_ns = i };
	v = items(64, in);
	ck_assert_int_eq(schedule_build(&v, 64, 1, &d, 1, &n), 0);
	ck_assert_uint_eq(n, 64);
	ck_assert_uint_eq(d.cold_requests, 0);
	free(v);

	d.readahead = 2 * MiB;
	d.max_request = 2 * MiB;
	v = items(64, in);
	ck_assert_int_eq(schedule_build(&v, 64, 1, &d, 1, &n), 0);
	ck_assert_uint_eq(d.cold_requests, 1);
	ck_assert_uint_eq(n, 64);
	for (size_t i = 0; i < n; i++)
		bytes += v[i].len;
	ck_assert_uint_eq(bytes, 64 * 4096);
	free(v);
}
END_TEST

/*
 * A two-budget device (sdcard-like: 2000 reads/s, 20 MB/s) and fragmented
 * demand, as a large program's start has (thousands of ranges of a few pages
 * with holes of every size between): the plan reaches the balance of the two
 * budgets, no worse than the best plan that merges every hole up to one size
 * (swept), and the device's read_ahead_kb changes nothing.
 */
static uint64_t budgets_total(const struct devmodel *m, const struct sched_item *v, size_t n)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < n; i++)
		bytes += v[i].len;
	return dev_model_total(m, bytes, n, 0);
}

START_TEST(test_budgets_balance)
{
	enum { N = 6000 };
	struct sched_dev d = { .chunk = 512 * KiB };
	struct sched_item *in = malloc(N * sizeof(*in)), *v;
	uint64_t off = 0, seed = 1, best = UINT64_MAX, got_ns[2], got_bytes[2];
	size_t n = 0;

	ck_assert_ptr_nonnull(in);
	d.model = (struct devmodel){ .combine = DEVMODEL_BUDGETS, .bps = 20000000, .iops = 2000,
				     .source = DEVMODEL_PROBE };
	dev_model_from_costs(&d.model, 500000, 20000000, false, DEVMODEL_PROBE);
	d.model.combine = DEVMODEL_BUDGETS;
	d.model.bps = 20000000;
	d.model.iops = 2000;
	for (size_t i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		off += (1 + (seed >> 33) % 24) * 4096;		/* holes of 4 to 96 KiB */
		in[i] = (struct sched_item){ .off = off, .len = (1 + (seed >> 40) % 6) * 4096,
					     .time_ns = seed >> 20 };
		off += in[i].len;
	}
	/* the reference: every hole up to h merged, for each h */
	for (uint64_t h = 0; h <= 128 * KiB; h += 4096) {
		uint64_t bytes = 0, reads = 0, end = 0, t;

		for (size_t i = 0; i < N; i++) {
			if (!i || in[i].off - end > h)
				reads++;
			bytes += in[i].len + (i && in[i].off - end <= h ? in[i].off - end : 0);
			end = in[i].off + in[i].len;
		}
		t = dev_model_total(&d.model, bytes, reads, 0);
		if (t < best)
			best = t;
	}
	for (int ra = 0; ra < 2; ra++) {
		struct devmodel m = d.model;

		d.readahead = ra ? 2560 * KiB : 0;
		d.max_request = ra ? 512 * KiB : 0;
		v = items(N, in);
		ck_assert_int_eq(schedule_build(&v, N, 1, &d, 1, &n), 0);
		got_ns[ra] = budgets_total(&m, v, n);
		got_bytes[ra] = 0;
		for (size_t i = 0; i < n; i++)
			got_bytes[ra] += v[i].len;
		d.model = m;
		free(v);
		/* at the balance: within 2% of the best single threshold, or better */
		ck_assert_uint_le(got_ns[ra], best + best / 50);
	}
	ck_assert_uint_eq(got_bytes[0], got_bytes[1]);
	ck_assert_uint_eq(got_ns[0], got_ns[1]);
	free(in);
}
END_TEST

/* Merging as the pack is read: overlapping or touching, or a hole cheaper than a request. */
START_TEST(test_merge_as_read)
{
	struct sched_item a = { .off = 0, .len = 8 * KiB, .time_ns = 0, .obj = 0 };
	struct sched_item b = { .off = 8 * KiB, .len = 4 * KiB, .time_ns = 900000000, .obj = 0 };
	struct sched_item c = { .off = 12 * KiB + 16 * MiB, .len = 4 * KiB, .time_ns = 1, .obj = 0 };
	struct sched_item other = b;

	setup_ssd();
	other.obj = 1;
	ck_assert(!schedule_can_merge(&a, &other, &ssd));
	ck_assert(!schedule_can_merge(&b, &a, &ssd));	/* starts before */
	ck_assert(schedule_can_merge(&a, &b, &ssd));	/* touching */
	ck_assert(!schedule_can_merge(&a, &c, &ssd));	/* a hole of 16 MiB */
	schedule_merge(&a, &b);
	ck_assert_uint_eq(a.len, 12 * KiB);
	ck_assert_uint_eq(a.time_ns, 0);
	ck_assert_uint_eq(a.last_ns, 900000000);
	c.off = a.off + a.len + 4096;
	ck_assert(schedule_can_merge(&a, &c, &ssd));	/* a hole of 4 KiB */
}
END_TEST

/* Merging and chunking in place: fewer requests than ranges, and more. */
START_TEST(test_in_place)
{
	struct sched_dev d = dev_costs(DEVMODEL_SSD_REQUEST_NS, DEVMODEL_SSD_BANDWIDTH, 4 * MiB);
	struct sched_item in[] = {
		{ .off = 0, .len = 4 * KiB, .time_ns = 0, .obj = 0 },
		{ .off = 0, .len = 9 * MiB, .time_ns = 1, .obj = 1 },		/* 3 chunks */
		{ .off = 4 * KiB, .len = 4 * KiB, .time_ns = 2, .obj = 0 },	/* merged */
		{ .off = 8 * KiB, .len = 4 * KiB, .time_ns = 3, .obj = 0 },	/* merged */
		{ .off = 0, .len = 4 * MiB + 4096, .time_ns = 4, .obj = 2 },	/* 2 chunks */
	};
	static const uint32_t want_obj[] = { 0, 1, 1, 1, 2, 2 };
	struct sched_item *v = items(5, in);
	size_t n = 0;

	d.chunk = 4 * MiB;
	ck_assert_int_eq(schedule_build(&v, 5, 3, &d, 1, &n), 0);
	ck_assert_uint_eq(n, 6);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(v[i].obj, want_obj[i]);
	ck_assert_uint_eq(v[0].len, 12 * KiB);
	ck_assert_uint_eq(v[1].off, 0);
	ck_assert_uint_eq(v[2].off, 4 * MiB);
	ck_assert_uint_eq(v[3].off, 8 * MiB);
	ck_assert_uint_eq(v[3].len, 1 * MiB);
	ck_assert_uint_eq(v[5].off, 4 * MiB);
	ck_assert_uint_eq(v[5].len, 4096);
	free(v);
}
END_TEST

START_TEST(test_physical_bins)
{
	struct sched_item v[] = {
		{ .time_ns = 0, .phys = 900, .obj = 0 },
		{ .time_ns = 10, .phys = 100 << 12, .obj = 1 },
		{ .time_ns = 20, .phys = 50 << 12, .obj = 2 },
		{ .time_ns = 1000, .phys = 1, .obj = 3 },	/* next bin: stays after */
		{ .time_ns = 1010, .phys = 0, .obj = 4 },
	};

	ck_assert_int_eq(schedule_order_physical(v, 5, 1000), 0);
	ck_assert_uint_eq(v[0].obj, 0);
	ck_assert_uint_eq(v[1].obj, 2);
	ck_assert_uint_eq(v[2].obj, 1);
	/* 1 and 0 are in the same page: equal keys keep first-access order */
	ck_assert_uint_eq(v[3].obj, 3);
	ck_assert_uint_eq(v[4].obj, 4);
}
END_TEST

/* ---- the engine, on files in a temporary directory (--root) ---- */

static char *dir;

static void setup(void)
{
	dir = unit_mkdtemp();
	log_set_level(LOG_LVL_ERR - 1);
}

static void teardown(void)
{
	unit_rmtree(dir);
	free(dir);
	dir = NULL;
}

static char *in_dir(const char *name)
{
	char *p;

	ck_assert_int_ne(asprintf(&p, "%s/%s", dir, name), -1);
	return p;
}

static void write_file(const char *name, size_t len)
{
	char *p = in_dir(name), *buf = malloc(len ? len : 1);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 31 + 7);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	ck_assert_int_eq(fsync(fd), 0);
	close(fd);
	free(buf);
	free(p);
}

/* A new file @name of @len bytes renamed over the old one, as a package update replaces it. */
static void replace_file(const char *name, size_t len)
{
	char *tmp, *from, *to = in_dir(name);

	ck_assert_int_ne(asprintf(&tmp, "%s.new", name), -1);
	write_file(tmp, len);
	from = in_dir(tmp);
	ck_assert_int_eq(rename(from, to), 0);
	free(from);
	free(tmp);
	free(to);
}

static void evict(const char *name)
{
	char *p = in_dir(name);
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	free(p);
}

static size_t resident_pages(const char *name)
{
	char *p = in_dir(name);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	struct stat st;
	unsigned char *vec;
	size_t pages, n = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	pages = ((size_t)st.st_size + 4095) / 4096;
	vec = malloc(pages + 1);
	ck_assert_int_eq(residency_map(fd, 0, (uint64_t)st.st_size, vec), 0);
	for (size_t i = 0; i < pages; i++)
		n += vec[i];
	free(vec);
	close(fd);
	free(p);
	return n;
}

/* Write a pack naming @names (whole files) under the temporary directory, taken as "/". */
static char *make_pack(const char *const *names, size_t count)
{
	struct ura_pack_builder *b = NULL;
	struct stat st;
	char *pack = in_dir("test.pack");
	uint32_t fsi;

	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.major = major(st.st_dev), .minor = minor(st.st_dev), .mount_point = "/",
		.fstype = "", .source = "" }, &fsi), 0);
	for (size_t i = 0; i < count; i++) {
		char *p = in_dir(names[i]);
		struct ura_pack_file f = { .fs_index = fsi, .path = names[i] };
		struct ura_pack_range rg = { .flags = URA_PACK_RANGE_DEMANDED,
					     .first_access_ns = i * 1000 };

		ck_assert_int_eq(stat(p, &st), 0);
		f.ino = st.st_ino;
		f.size = (uint64_t)st.st_size;
		f.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		ck_assert_int_eq(ura_pack_builder_add_file(b, &f, &rg.file_index), 0);
		rg.page_count = (uint32_t)((f.size + 4095) / 4096);
		if (rg.page_count)
			ck_assert_int_eq(ura_pack_builder_add_range(b, &rg), 0);
		free(p);
	}
	ck_assert_int_eq(ura_pack_builder_write(b, pack, 0644), 0);
	ura_pack_builder_free(b);
	return pack;
}

static struct replay_stats run(const char *pack, struct replay_options *o)
{
	struct ura_pack *p = NULL;
	struct sys_view *view = NULL;
	struct replay_stats st;

	o->root = dir;
	ck_assert_int_eq(replay_open_pack(pack, &p), 0);
	ck_assert_int_eq(sys_view_read(SYS_VIEW_MOUNTS, &view), 0);
	ck_assert_int_eq(replay_run(p, view, NULL, o, &st), 0);
	sys_view_unref(view);
	ura_pack_free(p);
	return st;
}

/* The report's figures add up */
static void assert_adds_up(const struct replay_stats *st)
{
	ck_assert_uint_eq(st->pack_bytes, st->resident_bytes + st->issued_bytes +
			  st->skipped_bytes + st->past_eof_bytes);
}

/* Files a (64 pages) and b (10000 bytes, 3 pages), their pack, both evicted: the pack's path */
static char *cold_pair(void)
{
	const char *names[] = { "a", "b" };
	char *pack;

	write_file("a", 256 * KiB);
	write_file("b", 10000);
	pack = make_pack(names, 2);
	evict("a");
	evict("b");
	return pack;
}

static void assert_pair_resident(void)
{
	ck_assert_uint_eq(resident_pages("a"), 64);
	ck_assert_uint_eq(resident_pages("b"), 3);
}

/* A replay of cold_pair()'s pack with @o: it read both files, every page, nothing skipped. */
static void assert_cold_replay(const char *pack, struct replay_options *o)
{
	struct replay_stats st;

	evict("a");
	evict("b");
	st = run(pack, o);
	ck_assert_uint_eq(st.errors + st.skipped_bytes, 0);
	ck_assert_uint_eq(st.requests, 2);	/* the files were cold: it read them */
	ck_assert_uint_gt(st.issued_bytes, 0);
	assert_pair_resident();
	assert_adds_up(&st);
}

START_TEST(test_replay_resident)
{
	struct replay_options o;
	struct replay_stats st;
	char *pack;

	pack = cold_pair();
	replay_options_init(&o);
	o.wait = true;
	st = run(pack, &o);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.pack_bytes, 256 * KiB + 12288);
	ck_assert_uint_eq(st.errors + st.stale_files + st.missing_files + st.refused_files, 0);
	ck_assert_uint_eq(st.unresident_bytes, 0);
	assert_pair_resident();
	assert_adds_up(&st);
	ck_assert_uint_eq(st.past_eof_bytes, 12288 - 10000);
	/* again: everything resident, nothing issued */
	replay_options_init(&o);
	st = run(pack, &o);
	ck_assert_uint_eq(st.issued_bytes, 0);
	ck_assert_uint_eq(st.resident_bytes, 256 * KiB + 10000);
	free(pack);
}
END_TEST

/*
 * --read wait: the replay returns once its reads are done, without --wait: every page
 * resident, each read waited for one at a time under a bound of 1 ns (one read is always
 * let through), and the report adds up.
 */
START_TEST(test_replay_read_wait)
{
	struct replay_options o;
	char *pack = cold_pair();

	replay_options_init(&o);
	o.read = REPLAY_READ_WAIT;
	o.jobs = 4;
	o.inflight = 0;
	o.queue_ns = 1;
	assert_cold_replay(pack, &o);
	free(pack);
}
END_TEST

/*
 * --read follow: the replay returns once its followers have seen its requests read, without
 * --wait: every page resident under a bound of 1 ns (one request in flight at a time), under
 * the bound by the device's model, and with the defaults on a device with no seeks.
 */
START_TEST(test_replay_read_follow)
{
	struct replay_options o;
	char *pack = cold_pair();

	replay_options_init(&o);
	o.read = REPLAY_READ_FOLLOW;
	o.jobs = 4;
	o.inflight = 0;
	o.queue_ns = 1;
	assert_cold_replay(pack, &o);
	o.queue_ns = REPLAY_QUEUE_AUTO;
	assert_cold_replay(pack, &o);
	/* --inflight none: nothing to bound, so not followed: read all the same */
	o.queue_ns = 0;
	o.wait = true;
	assert_cold_replay(pack, &o);
	replay_options_init(&o);
	o.rotational = 0;
	ck_assert_int_eq(o.read, REPLAY_READ_AUTO);
	assert_cold_replay(pack, &o);
	free(pack);
}
END_TEST

static void count_release(void *ctx, uint32_t obj, int fd)
{
	unsigned *n = ctx;

	ck_assert_int_eq((int)obj, (int)*n);	/* in the order handed over */
	ck_assert_int_ge(fd, 0);
	__atomic_add_fetch(n, 1, __ATOMIC_RELEASE);
}

/* Hand the follower @n requests of one page each of @fd, pages 0 .. @n - 1, each entered first */
static void push_pages(struct replay_follow *f, struct replay_inflight *q, int fd, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct replay_followed r = { .fd = fd, .obj = i, .last = i * 4096 + 4095,
					     .len = 4096, .cost_ns = 8 };

		replay_inflight_enter(q, 0, 4096, 8);
		ck_assert(replay_follow_push(f, 0, &r));
	}
}

/*
 * The follower leaves the in-flight count for each request handed over, in order: under a
 * bound that holds one request, each enter waits for the request before it to be followed
 * (a follower that never left would hang the second, past the test's timeout).
 */
START_TEST(test_follow_leaves)
{
	const unsigned devnum[1][2] = { { 0, 0 } };
	bool stop = false;
	struct replay_inflight q;
	struct replay_follow f;
	unsigned released = 0;
	char *path = in_dir("a");
	const bool want = true;
	int fd;

	write_file("a", 64 * KiB);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(replay_inflight_open(&q, devnum, 1, 0, 10, &stop), 0);
	ck_assert_int_eq(replay_follow_start(&f, &q, 1, &want, count_release, &released), 0);
	push_pages(&f, &q, fd, 5);
	replay_follow_stop(&f);
	ck_assert_uint_eq(released, 5);
	/* pages not in the page cache are under no read: not waited for (a follower that
	 * waited for them would take the device for stalled) */
	evict("a");
	released = 0;
	ck_assert_int_eq(replay_follow_start(&f, &q, 1, &want, count_release, &released), 0);
	push_pages(&f, &q, fd, 3);
	while (__atomic_load_n(&released, __ATOMIC_ACQUIRE) < 3)
		usleep(1000);
	ck_assert(!__atomic_load_n(&f.devs[0].stalled, __ATOMIC_ACQUIRE));
	replay_follow_stop(&f);
	replay_inflight_close(&q);
	close(fd);
}
END_TEST

/* Read page @page of @fd into the page cache. */
static void touch_page(int fd, uint64_t page)
{
	char b;

	ck_assert_int_eq(pread(fd, &b, 1, (off_t)(page * 4096)), 1);
}

/*
 * The byte a follower waits for is in the last page not cached when the request is issued:
 * where the program has read the request's end already, a wait for the end would be over
 * at once and the count would be left while the rest is read.
 */
START_TEST(test_follow_last_unread)
{
	char *path = in_dir("u");
	uint64_t len = 64 * 4096;
	int fd;

	write_file("u", (size_t)len);
	evict("u");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	ck_assert_int_ge(fd, 0);
	/* nothing cached: the last byte */
	ck_assert_uint_eq(replay_follow_last_unread(fd, 0, len), len - 1);
	/* a page at a time, no read-around */
	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	/* pages 50 .. 63 read by someone else: page 49 */
	for (uint64_t p = 50; p < 64; p++)
		touch_page(fd, p);
	ck_assert_uint_eq(resident_pages("u"), 14);
	ck_assert_uint_eq(replay_follow_last_unread(fd, 0, len), 49 * 4096 + 4095);
	/* a range within: its own last page not cached, its last byte */
	ck_assert_uint_eq(replay_follow_last_unread(fd, 0, 20 * 4096 + 100), 20 * 4096 + 99);
	/* and holes below the last one do not matter: page 10 cached, still 49 */
	touch_page(fd, 10);
	ck_assert_uint_eq(replay_follow_last_unread(fd, 0, len), 49 * 4096 + 4095);
	/* only page 0 missing */
	for (uint64_t p = 1; p < 50; p++)
		touch_page(fd, p);
	ck_assert_uint_eq(replay_follow_last_unread(fd, 0, len), 4095);
	close(fd);
}
END_TEST

/* The exact bound of --read wait: a read that does not fit waits until one completes. */
struct enter_arg {
	struct replay_inflight *q;
	bool passed;
};

static void *enter_second(void *arg)
{
	struct enter_arg *a = arg;

	replay_inflight_enter(a->q, 0, 4096, 8);
	__atomic_store_n(&a->passed, true, __ATOMIC_RELEASE);
	return NULL;
}

START_TEST(test_inflight_exact)
{
	const unsigned devnum[1][2] = { { 0, 0 } };	/* no such device: exact counts need none */
	bool stop = false, cancel = false;
	struct replay_inflight q;
	struct enter_arg a = { .q = &q };
	struct timespec ts = { 0, 50000000 };
	pthread_t th;

	ck_assert_int_eq(replay_inflight_open(&q, devnum, 1, 0, 10, &stop), 0);
	q.cancel = &cancel;
	replay_inflight_enter(&q, 0, 4096, 8);	/* fits */
	ck_assert_int_eq(pthread_create(&th, NULL, enter_second, &a), 0);
	nanosleep(&ts, NULL);
	ck_assert(!__atomic_load_n(&a.passed, __ATOMIC_ACQUIRE));	/* 8 + 8 > 10: it waits */
	replay_inflight_leave(&q, 0, 4096, 8);
	pthread_join(th, NULL);
	ck_assert(a.passed);
	/* one read larger than the bound alone is let through */
	replay_inflight_leave(&q, 0, 4096, 8);
	replay_inflight_enter(&q, 0, 1 << 20, 1000);
	/* a cancel ends a wait for room (the read in flight is not done) */
	a.passed = false;
	ck_assert_int_eq(pthread_create(&th, NULL, enter_second, &a), 0);
	nanosleep(&ts, NULL);
	ck_assert(!__atomic_load_n(&a.passed, __ATOMIC_ACQUIRE));
	__atomic_store_n(&cancel, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	ck_assert(a.passed);
	replay_inflight_leave(&q, 0, 4096, 8);
	replay_inflight_leave(&q, 0, 1 << 20, 1000);
	replay_inflight_close(&q);
}
END_TEST

/* A file listed twice is one object: one request, never read twice by two workers. */
/*
 * The filesystems' directories found by the caller (ura-replay --watch's check) are the ones
 * used, and stay the caller's: the same array serves a second replay, then is freed once.
 */
START_TEST(test_replay_given_fs)
{
	const char *names[] = { "a", "b" };
	struct replay_fs *fs = NULL, gone = { .dir = NULL, .dirfd = -1 };
	struct ura_pack *p = NULL;
	struct sys_view *view = NULL;
	struct replay_options o;
	struct replay_stats st;
	char *pack;

	write_file("a", 8192);
	write_file("b", 4096);
	pack = make_pack(names, 2);
	ck_assert_int_eq(replay_open_pack(pack, &p), 0);
	ck_assert_int_eq(sys_view_read(SYS_VIEW_MOUNTS, &view), 0);
	replay_options_init(&o);
	o.root = dir;
	o.check_stale = true;
	o.probe = REPLAY_PROBE_NEVER;
	ck_assert_int_eq(replay_mounts_find(p, view, o.root, o.dry_run, &fs), 0);
	ck_assert_int_ge(fs[0].dirfd, 0);
	ck_assert_int_eq(replay_run(p, view, fs, &o, &st), 0);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.stale_files + st.missing_files + st.refused_files + st.errors, 0);
	ck_assert_int_ge(fcntl(fs[0].dirfd, F_GETFD), 0);	/* not closed by the replay */
	write_file("b", 100);
	ck_assert_int_eq(replay_run(p, view, fs, &o, &st), 0);
	ck_assert_uint_eq(st.written_files, 1);
	/* what is given is what is used: a filesystem not found leaves every file missing */
	ck_assert_int_eq(replay_run(p, view, &gone, &o, &st), 0);
	ck_assert_uint_eq(st.missing_files, 2);
	replay_mounts_free(fs, ura_pack_fs_count(p));
	sys_view_unref(view);
	ura_pack_free(p);
	free(pack);
}
END_TEST

START_TEST(test_replay_duplicate_file)
{
	const char *names[] = { "dup", "other", "dup" };
	struct replay_options o;
	struct replay_stats st;
	char *pack;

	write_file("dup", 64 * KiB);
	write_file("other", 4096);
	pack = make_pack(names, 3);
	evict("dup");
	evict("other");
	replay_options_init(&o);
	o.jobs = 4;
	o.rotational = 0;
	st = run(pack, &o);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.pack_bytes, 64 * KiB + 4096);
	ck_assert_uint_eq(st.requests, 2);
	ck_assert_uint_eq(st.issued_bytes, 64 * KiB + 4096);
	assert_adds_up(&st);
	free(pack);
}
END_TEST

START_TEST(test_replay_stale_missing_refused)
{
	const char *names[] = { "stale", "gone", "fifo", "link", "dir", "ok" };
	struct replay_options o;
	struct replay_stats st;
	char *pack, *p;

	for (size_t i = 0; i < 6; i++)
		write_file(names[i], 8192);
	pack = make_pack(names, 6);
	/* replace (new inode), delete, and replace by a FIFO, a symlink and a directory */
	replace_file("stale", 8192);
	p = in_dir("gone");
	ck_assert_int_eq(unlink(p), 0);
	free(p);
	p = in_dir("fifo");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	free(p);
	p = in_dir("link");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(symlink("/dev/zero", p), 0);
	free(p);
	p = in_dir("dir");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	evict("stale");

	replay_options_init(&o);
	st = run(pack, &o);	/* a FIFO opened for reading would block here */
	ck_assert_uint_eq(st.files, 6);
	ck_assert_uint_eq(st.stale_files, 1);
	ck_assert_uint_eq(st.missing_files, 1);
	ck_assert_uint_eq(st.refused_files, 3);
	ck_assert_uint_eq(st.errors, 0);
	assert_adds_up(&st);
	ck_assert_uint_eq(st.skipped_bytes, 5 * 8192);
	ck_assert_uint_eq(resident_pages("stale"), 0);

	replay_options_init(&o);
	o.stale = REPLAY_STALE_READ;
	o.wait = true;
	st = run(pack, &o);
	ck_assert_uint_eq(st.stale_files, 1);
	ck_assert_uint_eq(resident_pages("stale"), 2);
	free(pack);
}
END_TEST

START_TEST(test_replay_same_size_rewrite)
{
	const char *names[] = { "f" };
	struct replay_options o;
	struct replay_stats st;
	struct timespec ts[2] = { { 1000, 0 }, { 1000, 0 } };
	char *pack, *p;

	write_file("f", 4096);
	pack = make_pack(names, 1);
	/* same inode and size, other mtime: written since the trace */
	p = in_dir("f");
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
	evict("f");
	replay_options_init(&o);
	st = run(pack, &o);
	ck_assert_uint_eq(st.written_files, 1);
	ck_assert_uint_eq(st.stale_files, 0);
	ck_assert_uint_eq(resident_pages("f"), 0);	/* skipped as a replaced file is */
	free(pack);
}
END_TEST

/*
 * A boot's pack holds the journal, which the boot writes at every boot: a pack whose only
 * change is that large file written in place is not traced again (it would be changed after
 * the new trace too), one with a library replaced by an update is.
 */
START_TEST(test_replay_written_not_retraced)
{
	const char *names[] = { "journal", "lib" };
	struct replay_options o;
	struct replay_stats st;
	struct ura_pack *p = NULL;
	char *pack, *path;
	int fd;

	write_file("journal", 65536);
	write_file("lib", 4096);
	pack = make_pack(names, 2);
	ck_assert_int_eq(replay_open_pack(pack, &p), 0);
	path = in_dir("journal");
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "entry", 5), 5);
	close(fd);
	free(path);
	replay_options_init(&o);
	o.check_stale = true;
	st = run(pack, &o);
	ck_assert_uint_eq(st.written_files, 1);
	ck_assert_uint_eq(st.stale_files + st.missing_files + st.refused_files, 0);
	ck_assert_uint_ge(st.written_bytes, 65536);
	ck_assert_uint_eq(st.changed_bytes, 0);
	ck_assert(!replay_needs_retrace(p, &st, 0));
	replace_file("lib", 4096);
	st = run(pack, &o);
	ck_assert_uint_eq(st.stale_files, 1);
	ck_assert(replay_needs_retrace(p, &st, 0));
	ura_pack_free(p);
	free(pack);
}
END_TEST

START_TEST(test_replay_limits_and_dry_run)
{
	const char *names[] = { "big" };
	struct replay_options o;
	struct replay_stats st;
	char *pack;

	write_file("big", 4 * MiB);
	pack = make_pack(names, 1);
	evict("big");
	replay_options_init(&o);
	o.dry_run = true;
	st = run(pack, &o);
	ck_assert_uint_eq(st.issued_bytes, 0);
	ck_assert_uint_gt(st.requests, 0);
	ck_assert_uint_eq(resident_pages("big"), 0);

	replay_options_init(&o);
	o.max_bytes = 256 * KiB;
	o.chunk = 64 * KiB;
	o.jobs = 1;
	st = run(pack, &o);
	ck_assert_uint_le(st.issued_bytes, 256 * KiB);
	ck_assert(st.max_bytes_reached);
	ck_assert_uint_gt(st.skipped_bytes, 0);
	assert_adds_up(&st);

	/* a floor above all memory: nothing is issued */
	evict("big");
	replay_options_init(&o);
	o.min_available = UINT64_MAX / 4;
	st = run(pack, &o);
	ck_assert_uint_eq(st.issued_bytes, 0);
	ck_assert(st.memory_limited);
	assert_adds_up(&st);
	free(pack);
}
END_TEST

/* Ranges past the end of a file are counted as such: the report's figures add up. */
START_TEST(test_replay_past_eof)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack_file f = { .path = "short" };
	struct ura_pack_range rg = { .flags = URA_PACK_RANGE_DEMANDED };
	static const uint32_t ranges[][2] = { { 0, 1000 }, { 1, 2 }, { 5000, 10 } };
	struct replay_options o;
	struct replay_stats st;
	char *pack = in_dir("past.pack"), *p;
	struct stat sb;
	uint32_t fsi;

	write_file("short", 3 * 4096 + 100);
	p = in_dir("short");
	ck_assert_int_eq(stat(p, &sb), 0);
	free(p);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.major = major(sb.st_dev), .minor = minor(sb.st_dev), .mount_point = "/",
		.fstype = "", .source = "" }, &fsi), 0);
	f.fs_index = fsi;
	f.ino = sb.st_ino;
	f.size = (uint64_t)sb.st_size;
	f.mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	ck_assert_int_eq(ura_pack_builder_add_file(b, &f, &rg.file_index), 0);
	for (size_t i = 0; i < 3; i++) {
		rg.first_page = ranges[i][0];
		rg.page_count = ranges[i][1];
		rg.first_access_ns = i;
		ck_assert_int_eq(ura_pack_builder_add_range(b, &rg), 0);
	}
	ck_assert_int_eq(ura_pack_builder_write(b, pack, 0644), 0);
	ura_pack_builder_free(b);
	evict("short");

	for (int pass = 0; pass < 2; pass++) {
		replay_options_init(&o);
		o.rotational = 0;	/* no merging of the 4000-page hole */
		o.jobs = 1;
		o.wait = true;
		st = run(pack, &o);
		/* the overlapping range counts once */
		ck_assert_uint_eq(st.pack_bytes, 1010 * 4096);
		assert_adds_up(&st);
		ck_assert_uint_eq(st.past_eof_bytes, 1010 * 4096 - (3 * 4096 + 100));
		ck_assert_uint_eq(st.skipped_bytes, 0);
		/* the first pass issues the file, the second finds it resident */
		ck_assert_uint_eq(pass ? st.resident_bytes : st.issued_bytes, 3 * 4096 + 100);
		ck_assert_uint_eq(resident_pages("short"), 4);
	}
	free(pack);
}
END_TEST

/* --root: a symlink inside the root resolves inside it, never to the live system. */
START_TEST(test_root_symlink)
{
	char *outside = unit_mkdtemp(), *p, *q, *pack, buf[8192];
	struct replay_options o;
	struct replay_stats st;
	struct ura_pack_builder *b = NULL;
	struct ura_pack_file f = { .fs_index = 0, .path = "f" };
	struct ura_pack_range rg = { .flags = URA_PACK_RANGE_DEMANDED, .page_count = 2 };
	struct stat sb;
	uint32_t fsi;
	int fd;

	/* outside/f is what the pack names as /mnt/f; root/mnt -> outside (absolute) */
	ck_assert_int_ne(asprintf(&q, "%s/f", outside), -1);
	fd = open(q, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(fstat(fd, &sb), 0);
	close(fd);
	p = in_dir("mnt");
	ck_assert_int_eq(symlink(outside, p), 0);
	free(p);
	f.ino = sb.st_ino;
	f.size = (uint64_t)sb.st_size;
	f.mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	pack = in_dir("root.pack");
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.major = major(sb.st_dev), .minor = minor(sb.st_dev), .mount_point = "/mnt",
		.fstype = "", .source = "" }, &fsi), 0);
	f.fs_index = fsi;
	ck_assert_int_eq(ura_pack_builder_add_file(b, &f, &rg.file_index), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &rg), 0);
	ck_assert_int_eq(ura_pack_builder_write(b, pack, 0644), 0);
	ura_pack_builder_free(b);
	fd = open(q, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);

	replay_options_init(&o);
	o.wait = true;
	st = run(pack, &o);	/* --root dir: /mnt is dir/mnt -> outside: outside the root */
	ck_assert_uint_eq(st.issued_bytes, 0);
	ck_assert_uint_eq(st.missing_files, 1);
	fd = open(q, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	{
		unsigned char vec[2];

		ck_assert_int_eq(residency_map(fd, 0, 8192, vec), 0);
		ck_assert_int_eq(vec[0] + vec[1], 0);
	}
	close(fd);
	free(q);
	free(pack);
	unit_rmtree(outside);
	free(outside);
}
END_TEST

START_TEST(test_open_pack)
{
	struct ura_pack *p = NULL;
	const char *names[] = { "x" };
	char *pack, *bad;
	FILE *f;

	ck_assert_int_eq(replay_open_pack("/nonexistent/ura.pack", &p), -ENOENT);
	write_file("x", 100);
	pack = make_pack(names, 1);
	bad = in_dir("bad.pack");
	f = fopen(bad, "we");
	ck_assert_ptr_nonnull(f);
	fputs("not a pack at all, but long enough to have a header of some size......"
	      "..........................................", f);
	fclose(f);
	ck_assert_int_eq(replay_open_pack(bad, &p), -EBADMSG);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(replay_open_pack(dir, &p), -EISDIR);
	ck_assert_int_eq(replay_open_pack(pack, &p), 0);
	ck_assert_ptr_nonnull(p);
	ura_pack_free(p);
	p = NULL;
	if (geteuid() == 0) {
		/* as root: a pack others may write is refused */
		ck_assert_int_eq(chmod(pack, 0664), 0);
		ck_assert_int_eq(replay_open_pack(pack, &p), -EPERM);
		ck_assert_int_eq(chmod(pack, 0646), 0);
		ck_assert_int_eq(replay_open_pack(pack, &p), -EPERM);
		ck_assert_int_eq(chmod(pack, 0644), 0);
		ck_assert_int_eq(chown(pack, 65534, 0), 0);
		ck_assert_int_eq(replay_open_pack(pack, &p), -EPERM);
		ck_assert_ptr_null(p);
	}
	free(bad);
	free(pack);
}
END_TEST

START_TEST(test_retrace)
{
	const char *names[] = { "x" };
	struct replay_stats st = { .files = 100, .stale_files = 5, .missing_files = 5 };
	struct ura_pack *p = NULL;
	struct ura_pack_info info;
	char *pack, *flag;
	struct stat sb;

	write_file("x", 100);
	pack = make_pack(names, 1);
	ck_assert_int_eq(replay_open_pack(pack, &p), 0);
	ck_assert(!replay_needs_retrace(p, &st, 0));	/* 10%: not more than the share */
	st.refused_files = 1;
	ck_assert(replay_needs_retrace(p, &st, 0));
	st.refused_files = 0;
	/* bytes: 5 of 10 files but 10% of the bytes is not stale; one byte more is */
	st.file_bytes = 1000;
	st.changed_bytes = 100;
	ck_assert(!replay_needs_retrace(p, &st, 0));
	st.changed_bytes = 101;
	ck_assert(replay_needs_retrace(p, &st, 0));
	/* one large file of many: few files changed, most bytes */
	st.stale_files = 1;
	st.missing_files = 0;
	st.changed_bytes = 900;
	ck_assert(replay_needs_retrace(p, &st, 0));
	st.changed_bytes = 0;
	st.stale_files = st.missing_files = 5;
	ura_pack_get_info(p, &info);
	if (info.created_ns > 0) {
		/* a month and a day later the pack is too old, whatever it found */
		ck_assert(!replay_needs_retrace(p, &st, info.created_ns + 1000000000));
		ck_assert(replay_needs_retrace(p, &st, info.created_ns +
					       (int64_t)REPLAY_RETRACE_AGE_NS + 86400000000000ll));
	}
	ura_pack_free(p);
	flag = in_dir("retrace");
	ck_assert_int_eq(replay_mark_stale(flag), 0);
	ck_assert_int_eq(stat(flag, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	free(flag);
	free(pack);
}
END_TEST

START_TEST(test_report)
{
	struct replay_stats st = { .pack_bytes = 2 * MiB, .resident_bytes = MiB,
				   .issued_bytes = MiB, .requests = 3, .files = 4,
				   .stale_files = 1, .ns = 500000000 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	replay_report(f, &st, true);
	fflush(f);
	ck_assert_ptr_nonnull(strstr(buf, "\"issued_bytes\":1048576"));
	ck_assert_ptr_nonnull(strstr(buf, "\"stale_files\":1"));
	ck_assert_ptr_nonnull(strstr(buf, "\"past_eof_bytes\":0"));
	ck_assert_ptr_nonnull(strstr(buf, "\"mib_per_second\":2.0"));
	ck_assert_int_eq(buf[0], '{');
	ck_assert_ptr_eq(strchr(buf, '\n'), buf + len - 1);	/* one line */
	rewind(f);
	replay_report(f, &st, false);
	fflush(f);
	ck_assert_ptr_nonnull(strstr(buf, "issued 1.0 MiB in 3 requests"));
	ck_assert_ptr_nonnull(strstr(buf, "1 stale"));
	fclose(f);
	free(buf);
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *sched = tcase_create("schedule"), *eng = tcase_create("engine");

	tcase_add_test(sched, test_max_gap);
	tcase_add_test(sched, test_budgets_bytes_bind);
	tcase_add_test(sched, test_budgets_reads_bind);
	tcase_add_test(sched, test_merge_gap);
	tcase_add_test(sched, test_merge_overlap_and_objects);
	tcase_add_test(sched, test_order_kept);
	tcase_add_test(sched, test_merge_across_time);
	tcase_add_test(sched, test_order_by_first_access);
	tcase_add_test(sched, test_throttle_model);
	tcase_add_test(sched, test_order_is_a_permutation);
	tcase_add_test(sched, test_order_rule);
	tcase_add_test(sched, test_no_cold_cap);
	tcase_add_test(sched, test_budgets_balance);
	tcase_add_test(sched, test_chunks);
	tcase_add_test(sched, test_invalid);
	tcase_add_test(sched, test_many);
	tcase_add_test(sched, test_merge_as_read);
	tcase_add_test(sched, test_in_place);
	tcase_add_test(sched, test_physical_bins);
	tcase_add_checked_fixture(eng, setup, teardown);
	tcase_add_test(eng, test_replay_resident);
	tcase_add_test(eng, test_replay_read_wait);
	tcase_add_test(eng, test_replay_read_follow);
	tcase_add_test(eng, test_follow_leaves);
	tcase_add_test(eng, test_follow_last_unread);
	tcase_add_test(eng, test_inflight_exact);
	tcase_add_test(eng, test_replay_stale_missing_refused);
	tcase_add_test(eng, test_replay_same_size_rewrite);
	tcase_add_test(eng, test_replay_written_not_retraced);
	tcase_add_test(eng, test_replay_limits_and_dry_run);
	tcase_add_test(eng, test_replay_past_eof);
	tcase_add_test(eng, test_replay_duplicate_file);
	tcase_add_test(eng, test_replay_given_fs);
	tcase_add_test(eng, test_root_symlink);
	tcase_add_test(eng, test_open_pack);
	tcase_add_test(eng, test_retrace);
	tcase_add_test(eng, test_report);
	tcase_set_timeout(eng, 30);
	suite_add_tcase(s, sched);
	suite_add_tcase(s, eng);
	return s;
}

UNIT_SUITE(replay_suite)
