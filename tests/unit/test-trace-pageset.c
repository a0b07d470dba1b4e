// SPDX-License-Identifier: GPL-2.0-or-later
/* pageset: added and used pages per (dev, ino), folio orders, ranges, times, clipping */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "trace-pageset.h"
#include "unit.h"

#define DEV 0x700001u	/* 7:1 as the kernel writes it */

static struct pageset *ps;

static void setup(void)
{
	ck_assert_int_eq(pageset_new(&ps), 0);
}

static void teardown(void)
{
	pageset_free(ps);
	ps = NULL;
}

/* The ranges of the only file of the set. */
static size_t only_file_ranges(uint64_t max_pages, unsigned flags, struct pageset_range **ret)
{
	struct pageset_file *files = NULL;
	size_t nfiles = 0, n = 0;

	ck_assert_int_eq(pageset_files(ps, &files, &nfiles), 0);
	ck_assert_uint_eq(nfiles, 1);
	ck_assert_int_eq(pageset_file_ranges(ps, &files[0], max_pages, flags, ret, &n), 0);
	free(files);
	return n;
}

START_TEST(test_folio_order)
{
	struct pageset_range *r = NULL;

	/* an order-2 folio at 8 and an order-0 page at 12: one run 8..12, speculative */
	ck_assert_int_eq(pageset_add(ps, DEV, 12, 8, 1u << 2, 100), 0);
	ck_assert_int_eq(pageset_add(ps, DEV, 12, 12, 1, 200), 0);
	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, 0, &r), 1);
	ck_assert_uint_eq(r[0].first_page, 8);
	ck_assert_uint_eq(r[0].page_count, 5);
	ck_assert(!r[0].demanded);
	ck_assert_uint_eq(r[0].first_ns, 100);
	free(r);
	ck_assert(pageset_is_added(ps, DEV, 12, 11, NULL));
	ck_assert(!pageset_is_added(ps, DEV, 12, 13, NULL));
}
END_TEST

START_TEST(test_demanded_vs_speculative)
{
	struct pageset_range *r = NULL;
	uint64_t ts = 0;

	ck_assert_int_eq(pageset_add(ps, DEV, 5, 0, 32, 10), 0);		/* readahead 0..31 */
	ck_assert_int_eq(pageset_access(ps, DEV, 5, 4, 7, 20, PAGESET_STRONG), 0);
	ck_assert_int_eq(pageset_access(ps, DEV, 5, 16, 31, 30, PAGESET_WEAK), 0);
	ck_assert(pageset_is_used(ps, DEV, 5, 4));
	ck_assert(!pageset_is_used(ps, DEV, 5, 16));	/* weak is not use */
	ck_assert(pageset_is_weak_only(ps, DEV, 5, 16));
	ck_assert(!pageset_is_weak_only(ps, DEV, 5, 4));	/* strong */
	ck_assert(!pageset_is_weak_only(ps, DEV, 5, 8));	/* no evidence */
	ck_assert(!pageset_is_weak_only(ps, DEV, 6, 16));	/* another file */
	ck_assert(pageset_is_added(ps, DEV, 5, 31, &ts));
	ck_assert_uint_eq(ts, 10);

	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, 0, &r), 3);
	ck_assert_uint_eq(r[0].first_page, 0);
	ck_assert_uint_eq(r[0].page_count, 4);
	ck_assert(!r[0].demanded);
	ck_assert_uint_eq(r[1].first_page, 4);
	ck_assert_uint_eq(r[1].page_count, 4);
	ck_assert(r[1].demanded);
	ck_assert_uint_eq(r[1].first_ns, 20);	/* when first used, not when read ahead */
	ck_assert_uint_eq(r[2].first_page, 8);
	ck_assert_uint_eq(r[2].page_count, 24);
	ck_assert(!r[2].demanded);
	free(r);

	/* weak evidence counted as demand */
	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, PAGESET_WEAK_IS_DEMAND, &r), 4);
	ck_assert_uint_eq(r[3].first_page, 16);
	ck_assert(r[3].demanded);
	free(r);

	/* no access events: everything demanded, one run */
	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, PAGESET_ALL_DEMANDED, &r), 1);
	ck_assert_uint_eq(r[0].page_count, 32);
	ck_assert(r[0].demanded);
	free(r);

	/* a window's page touched later is no window's alone */
	ck_assert_int_eq(pageset_access(ps, DEV, 5, 17, 17, 40, PAGESET_STRONG), 0);
	ck_assert(!pageset_is_weak_only(ps, DEV, 5, 17));
	ck_assert(pageset_is_weak_only(ps, DEV, 5, 18));
}
END_TEST

START_TEST(test_warm_pages_recorded)
{
	struct pageset_range *r = NULL;

	/* used while already cached: never added, still demanded */
	ck_assert_int_eq(pageset_access(ps, DEV, 9, 100, 102, 50, PAGESET_STRONG), 0);
	/* mapped by fault-around while cached: listed, speculative */
	ck_assert_int_eq(pageset_access(ps, DEV, 9, 200, 215, 60, PAGESET_WEAK), 0);
	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, 0, &r), 2);
	ck_assert_uint_eq(r[0].first_page, 100);
	ck_assert_uint_eq(r[0].page_count, 3);
	ck_assert(r[0].demanded);
	ck_assert_uint_eq(r[0].first_ns, 50);
	ck_assert_uint_eq(r[1].first_page, 200);
	ck_assert_uint_eq(r[1].page_count, 16);
	ck_assert(!r[1].demanded);
	free(r);
}
END_TEST

START_TEST(test_clip_at_end_of_file)
{
	struct pageset_range *r = NULL;

	/* a read() reports the whole request, past the end of a 3-page file */
	ck_assert_int_eq(pageset_access(ps, DEV, 3, 0, 31, 1, PAGESET_STRONG), 0);
	ck_assert_uint_eq(only_file_ranges(3, 0, &r), 1);
	ck_assert_uint_eq(r[0].page_count, 3);
	free(r);
	ck_assert_uint_eq(only_file_ranges(0, 0, &r), 0);
	ck_assert_ptr_null(r);
}
END_TEST

START_TEST(test_chunk_boundaries)
{
	struct pageset_range *r = NULL;

	/* across several 64-page chunks, from 60 to 200 */
	ck_assert_int_eq(pageset_add(ps, DEV, 4, 60, 141, 5), 0);
	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, 0, &r), 1);
	ck_assert_uint_eq(r[0].first_page, 60);
	ck_assert_uint_eq(r[0].page_count, 141);
	free(r);
	ck_assert_int_eq(pageset_access(ps, DEV, 4, 63, 64, 6, PAGESET_STRONG), 0);
	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, 0, &r), 3);
	ck_assert_uint_eq(r[1].first_page, 63);
	ck_assert_uint_eq(r[1].page_count, 2);
	ck_assert(r[1].demanded);
	free(r);
}
END_TEST

START_TEST(test_split_on_time_gap)
{
	struct pageset_range *r = NULL;

	/* pages 0..9 at t=0, 10..19 a second later: two ranges, each with its own time */
	ck_assert_int_eq(pageset_add(ps, DEV, 8, 0, 10, 0), 0);
	ck_assert_int_eq(pageset_add(ps, DEV, 8, 10, 10, 1000000000ull), 0);
	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, 0, &r), 2);
	ck_assert_uint_eq(r[0].page_count, 10);
	ck_assert_uint_eq(r[1].first_page, 10);
	ck_assert_uint_eq(r[1].first_ns, 1000000000ull);
	free(r);
}
END_TEST

START_TEST(test_first_time_is_minimum)
{
	struct pageset_range *r = NULL;

	/* events arrive CPU by CPU, not in time order */
	ck_assert_int_eq(pageset_add(ps, DEV, 2, 0, 1, 500), 0);
	ck_assert_int_eq(pageset_add(ps, DEV, 2, 0, 1, 300), 0);
	ck_assert_int_eq(pageset_access(ps, DEV, 2, 0, 0, 450, PAGESET_STRONG), 0);
	ck_assert_int_eq(pageset_access(ps, DEV, 2, 0, 0, 400, PAGESET_STRONG), 0);
	/* a page never used: when it was added */
	ck_assert_int_eq(pageset_add(ps, DEV, 2, 1, 1, 700), 0);
	ck_assert_int_eq(pageset_add(ps, DEV, 2, 1, 1, 600), 0);
	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, 0, &r), 2);
	ck_assert_uint_eq(r[0].first_ns, 400);
	ck_assert(r[0].demanded);
	ck_assert_uint_eq(r[1].first_ns, 600);
	ck_assert(!r[1].demanded);
	free(r);
}
END_TEST

START_TEST(test_files_sorted_and_counted)
{
	struct pageset_file *files = NULL;
	size_t n = 0;

	ck_assert_int_eq(pageset_add(ps, 0x800001, 7, 0, 4, 9), 0);
	ck_assert_int_eq(pageset_add(ps, DEV, 20, 0, 2, 8), 0);
	ck_assert_int_eq(pageset_add(ps, DEV, 10, 1000, 1, 7), 0);
	ck_assert_int_eq(pageset_access(ps, DEV, 10, 1000, 1001, 6, PAGESET_STRONG), 0);
	ck_assert_int_eq(pageset_files(ps, &files, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(files[0].dev, DEV);
	ck_assert_uint_eq(files[0].ino, 10);
	ck_assert_uint_eq(files[0].added_pages, 1);
	ck_assert_uint_eq(files[0].used_pages, 2);
	ck_assert_uint_eq(files[0].first_ns, 6);
	ck_assert_uint_eq(files[1].ino, 20);
	ck_assert_uint_eq(files[2].dev, 0x800001);
	free(files);
	/* the set stays usable after listing */
	ck_assert_int_eq(pageset_add(ps, DEV, 10, 5, 1, 1), 0);
	ck_assert(pageset_is_added(ps, DEV, 10, 1000, NULL));
	ck_assert(pageset_is_added(ps, DEV, 10, 5, NULL));
}
END_TEST

START_TEST(test_invalid)
{
	ck_assert_int_eq(pageset_add(ps, DEV, 1, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(pageset_add(ps, DEV, 1, UINT64_MAX, 2, 0), -EINVAL);
	ck_assert_int_eq(pageset_access(ps, DEV, 1, 5, 4, 0, PAGESET_STRONG), -EINVAL);
	ck_assert_int_eq(pageset_access(ps, DEV, 1, 0, 1ull << 40, 0, PAGESET_WEAK), -EINVAL);
}
END_TEST

/* A million events over thousands of files: everything kept, nothing mixed up. */
START_TEST(test_many_events)
{
	struct pageset_file *files = NULL;
	uint64_t total = 0, failed = 0;
	size_t n = 0;

	/* one check at the end: a million ck_asserts are slow under ASan and valgrind */
	for (uint64_t i = 0; i < 1000000; i++) {
		uint64_t ino = 1 + (i * 7919) % 5000;
		uint64_t page = (i / 5000) * 3;

		failed += pageset_add(ps, DEV, ino, page, 1, i) != 0;
	}
	ck_assert_uint_eq(failed, 0);
	ck_assert_int_eq(pageset_files(ps, &files, &n), 0);
	ck_assert_uint_eq(n, 5000);
	for (size_t i = 0; i < n; i++)
		total += files[i].added_pages;
	ck_assert_uint_eq(total, 1000000);
	free(files);
}
END_TEST

/*
 * A read asks for pages past the end (the kernel's get_pages event is not cut
 * at the file's size): 3,000 reads of 2 GiB from one-byte files keep a few
 * hundred KiB, not 8 MiB each, and each file lists its one page.
 */
START_TEST(test_long_read_cut_at_size)
{
	struct pageset_file *files = NULL;
	size_t n = 0, nr = 0;
	uint64_t failed = 0;

	for (uint64_t ino = 1; ino <= 3000; ino++)
		failed += pageset_access(ps, DEV, ino, 0, (2ull << 30) / 4096 - 1, ino,
					 PAGESET_STRONG) != 0;
	ck_assert_uint_eq(failed, 0);
	ck_assert_uint_lt(pageset_bytes(ps), 1u << 20);
	ck_assert_int_eq(pageset_files(ps, &files, &n), 0);
	ck_assert_uint_eq(n, 3000);
	for (size_t i = 0; i < n; i++) {
		struct pageset_range *r = NULL;

		ck_assert_int_eq(pageset_file_ranges(ps, &files[i], 1, 0, &r, &nr), 0);
		ck_assert_uint_eq(nr, 1);
		ck_assert_uint_eq(r[0].first_page, 0);
		ck_assert_uint_eq(r[0].page_count, 1);
		ck_assert(r[0].demanded);
		ck_assert_uint_eq(r[0].first_ns, files[i].ino);
		free(r);
	}
	free(files);
}
END_TEST

/* A long read of a cold file: its added pages demanded, each with its own time, to its end. */
START_TEST(test_long_read_over_added_pages)
{
	struct pageset_range *r = NULL;

	ck_assert_int_eq(pageset_add(ps, DEV, 4, 0, 256, 10), 0);
	ck_assert_int_eq(pageset_add(ps, DEV, 4, 256, 44, 30), 0);
	ck_assert_int_eq(pageset_access(ps, DEV, 4, 0, 4095, 20, PAGESET_STRONG), 0);
	ck_assert_int_eq(pageset_access(ps, DEV, 4, 200, 4095, 40, PAGESET_STRONG), 0);
	/* file of 300 pages: all demanded, nothing past 300 */
	ck_assert_uint_eq(only_file_ranges(300, 0, &r), 1);
	ck_assert_uint_eq(r[0].first_page, 0);
	ck_assert_uint_eq(r[0].page_count, 300);
	ck_assert(r[0].demanded);
	ck_assert_uint_eq(r[0].first_ns, 20);	/* asked for by the read at 20 */
	free(r);
	ck_assert(pageset_is_used(ps, DEV, 4, 299));
	/* a page of a window that a long read also asked for is no window's alone */
	ck_assert_int_eq(pageset_access(ps, DEV, 4, 280, 295, 50, PAGESET_WEAK), 0);
	ck_assert(!pageset_is_weak_only(ps, DEV, 4, 290));
}
END_TEST

/* Without a size, a long access marks only the chunks (64 pages) the file has otherwise. */
START_TEST(test_long_read_without_size)
{
	struct pageset_range *r = NULL;

	ck_assert_int_eq(pageset_add(ps, DEV, 6, 1000, 4, 5), 0);
	ck_assert_int_eq(pageset_access(ps, DEV, 6, 0, 1u << 20, 7, PAGESET_WEAK), 0);
	ck_assert_uint_eq(only_file_ranges(UINT64_MAX, PAGESET_WEAK_IS_DEMAND, &r), 1);
	ck_assert_uint_eq(r[0].first_page, 960);
	ck_assert_uint_eq(r[0].page_count, 64);
	ck_assert(r[0].demanded);
	free(r);
}
END_TEST

/* Spans of files read in turn stay apart, and one file's overlapping reads make one span. */
START_TEST(test_long_reads_interleaved)
{
	struct pageset_file *files = NULL;
	struct pageset_range *r = NULL;
	size_t n = 0, nr = 0;

	for (uint64_t k = 0; k < 10; k++) {
		ck_assert_int_eq(pageset_access(ps, DEV, 2, k * 31, 999, 100 + k, PAGESET_STRONG), 0);
		ck_assert_int_eq(pageset_access(ps, DEV, 3, k * 31, 999, 200 + k, PAGESET_STRONG), 0);
	}
	ck_assert_int_eq(pageset_access(ps, DEV, 3, 2000, 2999, 300, PAGESET_STRONG), 0);
	ck_assert_int_eq(pageset_files(ps, &files, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(pageset_file_ranges(ps, &files[0], 2500, 0, &r, &nr), 0);
	ck_assert_uint_eq(nr, 1);
	ck_assert_uint_eq(r[0].page_count, 1000);
	ck_assert_uint_eq(r[0].first_ns, 100);
	free(r);
	ck_assert_int_eq(pageset_file_ranges(ps, &files[1], 2500, 0, &r, &nr), 0);
	ck_assert_uint_eq(nr, 2);
	ck_assert_uint_eq(r[1].first_page, 2000);
	ck_assert_uint_eq(r[1].page_count, 500);
	ck_assert_uint_eq(r[1].first_ns, 300);
	free(r);
	free(files);
}
END_TEST

/* Reads of two files in turn, each asking 2 GiB: one span per file, not one per read. */
START_TEST(test_long_reads_alternating)
{
	struct pageset_file *files = NULL;
	struct pageset_range *r = NULL;
	size_t n = 0, nr = 0;

	for (uint64_t i = 0; i < 100000; i++)
		ck_assert_int_eq(pageset_access(ps, DEV, 7 + (i & 1), i % 300, (2ull << 30) / 4096,
						1000 + i, PAGESET_STRONG), 0);
	ck_assert_uint_eq(pageset_chunks(ps), 2);
	ck_assert_int_eq(pageset_files(ps, &files, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(pageset_file_ranges(ps, &files[0], 262144, 0, &r, &nr), 0);
	ck_assert_uint_eq(nr, 1);
	ck_assert_uint_eq(r[0].page_count, 262144);
	free(r);
	/* an empty file: nothing, and no wrap below 0 */
	ck_assert_int_eq(pageset_file_ranges(ps, &files[1], 0, 0, &r, &nr), 0);
	ck_assert_uint_eq(nr, 0);
	free(r);
	free(files);
}
END_TEST

/* Long reads of one file far apart in time keep their times: the ranges split. */
START_TEST(test_long_reads_keep_times)
{
	struct pageset_range *r = NULL;
	size_t nr;

	for (uint64_t i = 0; i < 40; i++)
		ck_assert_int_eq(pageset_access(ps, DEV, 9, i * 256, i * 256 + 255,
						i * 500000000ull, PAGESET_STRONG), 0);
	nr = only_file_ranges(40 * 256, 0, &r);
	ck_assert_uint_eq(nr, 40);
	ck_assert_uint_eq(r[39].first_ns, 39 * 500000000ull);
	free(r);
}
END_TEST

static Suite *pageset_suite(void)
{
	Suite *s = suite_create("pageset");
	TCase *tc = tcase_create("pageset");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_folio_order);
	tcase_add_test(tc, test_demanded_vs_speculative);
	tcase_add_test(tc, test_warm_pages_recorded);
	tcase_add_test(tc, test_clip_at_end_of_file);
	tcase_add_test(tc, test_chunk_boundaries);
	tcase_add_test(tc, test_split_on_time_gap);
	tcase_add_test(tc, test_first_time_is_minimum);
	tcase_add_test(tc, test_files_sorted_and_counted);
	tcase_add_test(tc, test_invalid);
	tcase_add_test(tc, test_many_events);
	tcase_add_test(tc, test_long_read_cut_at_size);
	tcase_add_test(tc, test_long_read_over_added_pages);
	tcase_add_test(tc, test_long_read_without_size);
	tcase_add_test(tc, test_long_reads_interleaved);
	tcase_add_test(tc, test_long_reads_alternating);
	tcase_add_test(tc, test_long_reads_keep_times);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(pageset_suite)
