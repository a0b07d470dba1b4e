// SPDX-License-Identifier: GPL-2.0-or-later
/* trace-demand: events -> pages added and demanded; the fault-around window model */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace-pageset.h"
#include "trace-demand.h"
#include "unit.h"

#define DEV	0x800001u	/* 8:1 as the kernel writes it */
#define INO	42
#define PID	1234
#define MS	(1000ull * 1000)

static struct trace_demand d;

static void setup(void)
{
	ck_assert_int_eq(demand_init(&d), 0);
}

static void teardown(void)
{
	demand_fini(&d);
}

static void feed(enum trace_event_type type, int pid, uint64_t ts, uint64_t first, uint64_t last,
		 uint64_t address)
{
	struct trace_event ev = { .type = type, .pid = pid, .ts = ts, .dev = DEV, .ino = INO,
				  .first = first, .last = last, .address = address };

	ck_assert_int_eq(demand_feed(&d, &ev), 0);
}

/* Pages 0..n-1 of the file as a string: 'D' demanded, 'S' speculative, '.' not listed. */
static const char *pages_with(size_t n, unsigned flags)
{
	static char buf[256];
	struct pageset_file *files = NULL;
	struct pageset_range *r = NULL;
	size_t nfiles = 0, nr = 0;

	ck_assert_uint_lt(n, sizeof(buf));
	memset(buf, '.', n);
	buf[n] = '\0';
	ck_assert_int_eq(pageset_files(d.pages, &files, &nfiles), 0);
	if (nfiles == 0)
		return buf;
	ck_assert_uint_eq(nfiles, 1);
	ck_assert_int_eq(pageset_file_ranges(d.pages, &files[0], UINT64_MAX, flags, &r, &nr), 0);
	for (size_t i = 0; i < nr; i++)
		for (uint64_t p = r[i].first_page; p < r[i].first_page + r[i].page_count && p < n; p++)
			buf[p] = r[i].demanded ? 'D' : 'S';
	free(r);
	free(files);
	return buf;
}

static const char *pages(size_t n)
{
	return pages_with(n, 0);
}

/* A user fault on virtual page @vpage, then its fault-around window over file pages 0..15. */
static void fault_and_window(uint64_t ts, uint64_t vpage)
{
	feed(TRACE_EVENT_PF_USER, PID, ts, 0, 0, vpage << 12 | 0x123);
	feed(TRACE_EVENT_MAP_PAGES, PID, ts + 1000, 0, 15, 0);
}

START_TEST(test_addition_alone_is_speculative)
{
	feed(TRACE_EVENT_ADD, PID, 10, 4, 7, 0);
	ck_assert_str_eq(pages(10), "....SSSS..");
	ck_assert_uint_eq(d.added_pages, 4);
	ck_assert_uint_eq(d.counts[TRACE_EVENT_ADD], 1);
}
END_TEST

START_TEST(test_read_and_file_fault_are_demand)
{
	feed(TRACE_EVENT_ADD, PID, 10, 0, 9, 0);
	feed(TRACE_EVENT_GET_PAGES, PID, 20, 1, 2, 0);
	feed(TRACE_EVENT_FAULT, PID, 30, 8, 8, 0);
	ck_assert_str_eq(pages(10), "SDDSSSSSDS");
}
END_TEST

/* The touched page is the fault's virtual page modulo 16; 5 pages each side count. */
START_TEST(test_window_near_the_fault_is_demand)
{
	feed(TRACE_EVENT_ADD, PID, 10, 0, 15, 0);
	fault_and_window(20, 0x7f0000 + 3);		/* touched: page 3 */
	ck_assert_str_eq(pages(16), "DDDDDDDDDSSSSSSS");
}
END_TEST

START_TEST(test_window_far_side)
{
	feed(TRACE_EVENT_ADD, PID, 10, 0, 15, 0);
	fault_and_window(20, 0x7f0000 + 14);		/* touched: page 14 */
	ck_assert_str_eq(pages(16), "SSSSSSSSSDDDDDDD");
}
END_TEST

START_TEST(test_window_without_fault_address_is_all_demand)
{
	feed(TRACE_EVENT_ADD, PID, 10, 0, 15, 0);
	feed(TRACE_EVENT_MAP_PAGES, PID, 20, 0, 15, 0);
	ck_assert_str_eq(pages(16), "DDDDDDDDDDDDDDDD");
}
END_TEST

/*
 * A command's trace (near_pages < 0): every page a window mapped is demanded in the pack,
 * the touched one (named by the fault's address) as strong evidence and the others as
 * weak, so that the summary can say how much the pack holds only because windows mapped
 * it; a fault or a read of a page is strong evidence, as before.
 */
START_TEST(test_whole_window_demanded_as_window_evidence)
{
	d.near_pages = -1;
	feed(TRACE_EVENT_ADD, PID, 10, 0, 15, 0);
	feed(TRACE_EVENT_FAULT, PID, 15, 2, 2, 0);
	fault_and_window(20, 0x7f0000 + 3);		/* touched: page 3 */
	ck_assert_str_eq(pages_with(16, demand_pack_flags(&d)), "DDDDDDDDDDDDDDDD");
	ck_assert_str_eq(pages(16), "SSDDSSSSSSSSSSSS");	/* the evidence kept apart */
	for (uint64_t p = 0; p < 16; p++)
		ck_assert(p == 2 || p == 3 ? !pageset_is_weak_only(d.pages, DEV, INO, p) :
					     pageset_is_weak_only(d.pages, DEV, INO, p));
	/* without the fault's address (a fault retried maps its window again): all weak */
	feed(TRACE_EVENT_ADD, PID, 30, 16, 31, 0);
	feed(TRACE_EVENT_MAP_PAGES, PID, 40, 16, 31, 0);
	ck_assert_str_eq(pages_with(32, demand_pack_flags(&d)), "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD");
	ck_assert(pageset_is_weak_only(d.pages, DEV, INO, 20));
	ck_assert_uint_eq(demand_pack_flags(&d), PAGESET_WEAK_IS_DEMAND);
	d.near_pages = DEMAND_NEAR_PAGES;
	ck_assert_uint_eq(demand_pack_flags(&d), 0);
	d.evidence = DEMAND_EVIDENCE_NONE;
	ck_assert_uint_eq(demand_pack_flags(&d), PAGESET_ALL_DEMANDED);
}
END_TEST

/* A fault of another pid, or one too old, says nothing of this window. */
START_TEST(test_fault_of_other_pid_or_too_old)
{
	feed(TRACE_EVENT_ADD, PID, 10, 0, 15, 0);
	feed(TRACE_EVENT_PF_USER, PID + 1, 20, 0, 0, (0x7f0000ull + 3) << 12);
	feed(TRACE_EVENT_MAP_PAGES, PID, 30, 0, 15, 0);
	ck_assert_str_eq(pages(16), "DDDDDDDDDDDDDDDD");
	demand_fini(&d);
	ck_assert_int_eq(demand_init(&d), 0);
	feed(TRACE_EVENT_ADD, PID, 10, 0, 15, 0);
	feed(TRACE_EVENT_PF_USER, PID, 20, 0, 0, (0x7f0000ull + 3) << 12);
	feed(TRACE_EVENT_MAP_PAGES, PID, 20 + 11 * MS, 0, 15, 0);
	ck_assert_str_eq(pages(16), "DDDDDDDDDDDDDDDD");
}
END_TEST

/* One fault, one window: the next window of the pid has no fault address. */
START_TEST(test_one_fault_one_window)
{
	feed(TRACE_EVENT_ADD, PID, 10, 0, 31, 0);
	fault_and_window(20, 0x7f0000 + 15);
	feed(TRACE_EVENT_MAP_PAGES, PID, 40, 16, 31, 0);
	ck_assert_str_eq(pages(32), "SSSSSSSSSSDDDDDDDDDDDDDDDDDDDDDD");
}
END_TEST

/*
 * Cold window: pages the trace did not see enter the cache were not mapped and
 * are no evidence (the touched one excepted). Warm window (none added): all
 * were cached before, and are listed.
 */
START_TEST(test_cold_and_warm_windows)
{
	feed(TRACE_EVENT_ADD, PID, 10, 0, 3, 0);	/* only 0..3 entered the cache */
	fault_and_window(20, 0x7f0000 + 10);		/* touched: page 10 */
	ck_assert_str_eq(pages(16), "SSSS......D.....");
	demand_fini(&d);
	ck_assert_int_eq(demand_init(&d), 0);
	fault_and_window(20, 0x7f0000 + 0);		/* warm: nothing added */
	ck_assert_str_eq(pages(16), "DDDDDDSSSSSSSSSS");
}
END_TEST

/* A window clipped at the start of the mapping: the page computed lies past it, ignored. */
START_TEST(test_long_range_is_no_window)
{
	feed(TRACE_EVENT_ADD, PID, 10, 0, 99, 0);
	feed(TRACE_EVENT_MAP_PAGES, PID, 20, 0, 99, 0);	/* only 64 pages taken */
	ck_assert_str_eq(pages(70), "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDSSSSSS");
}
END_TEST

START_TEST(test_times_and_nonsense)
{
	struct trace_event bad = { .type = TRACE_EVENT_GET_PAGES, .ts = 5, .dev = DEV, .ino = INO,
				   .first = 9, .last = 3 };

	d.t0_from_first = true;
	feed(TRACE_EVENT_ADD, PID, 1000, 0, 0, 0);
	ck_assert_uint_eq(d.t0, 1000);
	feed(TRACE_EVENT_ADD, PID, 5000, 1, 1, 0);
	ck_assert_uint_eq(d.last_ts, 5000);
	ck_assert_uint_eq(d.last_add_ts, 5000);
	ck_assert_int_eq(demand_feed(&d, &bad), 0);	/* last < first: skipped */
	ck_assert_int_eq(d.error, 0);
	ck_assert_uint_eq(d.events, 3);
	ck_assert_str_eq(pages(3), "SS.");
}
END_TEST

/* One kind of access event: what no event shows may have been used (a read() without get_pages). */
START_TEST(test_partial_evidence)
{
	ck_assert_int_eq(demand_evidence(true, true), DEMAND_EVIDENCE_FULL);
	ck_assert_int_eq(demand_evidence(false, true), DEMAND_EVIDENCE_PARTIAL);
	ck_assert_int_eq(demand_evidence(true, false), DEMAND_EVIDENCE_PARTIAL);
	ck_assert_int_eq(demand_evidence(false, false), DEMAND_EVIDENCE_NONE);
	feed(TRACE_EVENT_ADD, PID, 1 * MS, 0, 31, 0);
	feed(TRACE_EVENT_PF_USER, PID, 2 * MS, 0, 0, 0x7f0000000000ull + 20 * 4096);
	feed(TRACE_EVENT_MAP_PAGES, PID, 2 * MS, 16, 31, 0);	/* touched 20, near 15..25 */
	ck_assert_str_eq(pages(32), "SSSSSSSSSSSSSSSSDDDDDDDDDDSSSSSS");
	ck_assert_str_eq(pages_with(32, demand_range_flags(DEMAND_EVIDENCE_PARTIAL)),
			 "DDDDDDDDDDDDDDDDDDDDDDDDDDSSSSSS");
	ck_assert_str_eq(pages_with(32, demand_range_flags(DEMAND_EVIDENCE_NONE)),
			 "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD");
}
END_TEST

static Suite *trace_demand_suite(void)
{
	Suite *s = suite_create("trace-demand");
	TCase *tc = tcase_create("trace-demand");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_addition_alone_is_speculative);
	tcase_add_test(tc, test_read_and_file_fault_are_demand);
	tcase_add_test(tc, test_window_near_the_fault_is_demand);
	tcase_add_test(tc, test_window_far_side);
	tcase_add_test(tc, test_window_without_fault_address_is_all_demand);
	tcase_add_test(tc, test_whole_window_demanded_as_window_evidence);
	tcase_add_test(tc, test_fault_of_other_pid_or_too_old);
	tcase_add_test(tc, test_one_fault_one_window);
	tcase_add_test(tc, test_cold_and_warm_windows);
	tcase_add_test(tc, test_long_range_is_no_window);
	tcase_add_test(tc, test_times_and_nonsense);
	tcase_add_test(tc, test_partial_evidence);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(trace_demand_suite)
