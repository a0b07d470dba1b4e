// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/trace-access.c: synthetic decoded events -> access log records */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-access.h"
#include "unit.h"

#define READ URA_PACK_ACCESS_READ
#define FAULT URA_PACK_ACCESS_FAULT
#define EXEC URA_PACK_ACCESS_EXEC
#define NO_AROUND URA_PACK_ACCESS_NO_AROUND
#define MISSED URA_PACK_ACCESS_MISSED
#define GUESSED URA_PACK_ACCESS_GUESSED

#define T0	1000000000ull	/* the trace's start, in event time */
#define US	1000ull
#define DEV	((8u << 20) | 1)

static struct access_log *new_log(unsigned fault_around, size_t max)
{
	struct access_log *l = NULL;

	ck_assert_int_eq(access_log_new(fault_around, max, &l), 0);
	return l;
}

/* Events: time in µs after T0, pid, file inode (device DEV), pages. */
static void get_pages(struct access_log *l, uint64_t us, int pid, uint64_t ino, uint64_t first,
		      uint64_t last)
{
	struct trace_event ev = { .type = TRACE_EVENT_GET_PAGES, .pid = pid, .ts = T0 + us * US,
				  .dev = DEV, .ino = ino, .first = first, .last = last };

	ck_assert_int_eq(access_feed(l, &ev, T0), 0);
}

static void map_pages(struct access_log *l, uint64_t us, int pid, uint64_t ino, uint64_t first,
		      uint64_t last)
{
	struct trace_event ev = { .type = TRACE_EVENT_MAP_PAGES, .pid = pid, .ts = T0 + us * US,
				  .dev = DEV, .ino = ino, .first = first, .last = last };

	ck_assert_int_eq(access_feed(l, &ev, T0), 0);
}

static void file_fault(struct access_log *l, uint64_t us, int pid, uint64_t ino, uint64_t page)
{
	struct trace_event ev = { .type = TRACE_EVENT_FAULT, .pid = pid, .ts = T0 + us * US,
				  .dev = DEV, .ino = ino, .first = page, .last = page };

	ck_assert_int_eq(access_feed(l, &ev, T0), 0);
}

/* A read (or, with @exec, instruction) fault at virtual page @vpage. */
static void user_fault(struct access_log *l, uint64_t us, int pid, uint64_t vpage, bool exec)
{
	struct trace_event ev = { .type = TRACE_EVENT_PF_USER, .pid = pid, .ts = T0 + us * US,
				  .address = vpage << 12 | 0x123, .error_code = exec ? 0x14 : 0x4 };

	ck_assert_int_eq(access_feed(l, &ev, T0), 0);
}

/* Record @i: kind, flags, page(s), window (0, 0 for none). */
static void expect(const struct access_log *l, size_t i, uint32_t kind, uint32_t flags,
		   uint64_t first, uint64_t last, uint64_t a, uint64_t z)
{
	struct ura_pack_access r;

	ck_assert_uint_gt(access_count(l), i);
	access_get(l, i, &r);
	ck_assert_msg(r.kind == kind && r.flags == flags && r.first == first && r.last == last &&
		      r.around_first == a && r.around_last == z,
		      "record %zu: kind %u flags %#x pages %llu-%llu window %llu-%llu", i, r.kind,
		      r.flags, (unsigned long long)r.first, (unsigned long long)r.last,
		      (unsigned long long)r.around_first, (unsigned long long)r.around_last);
}

START_TEST(test_reads)
{
	struct access_log *l = new_log(16, ACCESS_LOG_MAX);
	struct ura_pack_access r;
	uint32_t dev;
	uint64_t ino;

	get_pages(l, 5, 100, 7, 0, 0);
	get_pages(l, 6, 100, 7, 1, 3);
	get_pages(l, 7, 200, 9, 10, 10);
	get_pages(l, 8, 100, 7, 4, 2);		/* nonsense: skipped */
	ck_assert_uint_eq(access_count(l), 3);
	expect(l, 0, READ, 0, 0, 0, 0, 0);
	expect(l, 1, READ, 0, 1, 3, 0, 0);
	access_get(l, 2, &r);
	ck_assert_uint_eq(r.time_ns, 7 * US);
	ck_assert_uint_eq(r.stream, 200);
	ck_assert_uint_eq(access_file_count(l), 2);
	access_file(l, r.file_index, &dev, &ino);
	ck_assert_uint_eq(dev, DEV);
	ck_assert_uint_eq(ino, 9);
	access_get(l, 1, &r);
	ck_assert_uint_eq(r.file_index, 0);
	ck_assert_uint_eq(r.stream, 100);
	ck_assert(!access_truncated(l));
	access_log_free(l);
}
END_TEST

/* A window after a user fault: the page touched is the window's first + vpage mod 16. */
START_TEST(test_window_after_fault)
{
	struct access_log *l = new_log(16, ACCESS_LOG_MAX);

	user_fault(l, 10, 100, 0x7f0000005, false);
	map_pages(l, 11, 100, 7, 32, 47);
	expect(l, 0, FAULT, 0, 37, 37, 32, 47);
	user_fault(l, 20, 100, 0x7f00000fe, true);	/* an instruction fetch */
	map_pages(l, 21, 100, 7, 64, 79);
	expect(l, 1, FAULT, EXEC, 78, 78, 64, 79);
	/* a window clipped at the mapping's end, the page computed past it: a guess */
	user_fault(l, 30, 100, 0x7f0000109, true);
	map_pages(l, 31, 100, 7, 96, 100);
	expect(l, 2, FAULT, EXEC | GUESSED, 96, 96, 96, 100);
	/* a window of one page: that page, whatever the fault's address */
	user_fault(l, 35, 100, 0x7f0000109, false);
	map_pages(l, 36, 100, 7, 120, 120);
	expect(l, 3, FAULT, 0, 120, 120, 120, 120);
	/* no user fault: the window's first page, a guess */
	map_pages(l, 40, 100, 7, 128, 143);
	expect(l, 4, FAULT, GUESSED, 128, 128, 128, 143);
	/* a fault too old (over 10 ms) is no evidence; one window per fault */
	user_fault(l, 50, 100, 0x7f0000003, false);
	map_pages(l, 50 + 10001, 100, 7, 160, 175);
	expect(l, 5, FAULT, GUESSED, 160, 160, 160, 175);
	user_fault(l, 20000, 100, 0x7f0000003, false);
	map_pages(l, 20001, 100, 7, 192, 207);
	map_pages(l, 20002, 100, 7, 224, 239);
	expect(l, 6, FAULT, 0, 195, 195, 192, 207);
	expect(l, 7, FAULT, GUESSED, 224, 224, 224, 239);
	ck_assert_uint_eq(access_count(l), 8);
	access_log_free(l);
}
END_TEST

/* A file fault right after its window: fault-around did not map the page, MISSED. */
START_TEST(test_missed_after_window)
{
	struct access_log *l = new_log(16, ACCESS_LOG_MAX);

	user_fault(l, 10, 100, 0x7f0000005, false);
	map_pages(l, 11, 100, 7, 32, 47);
	file_fault(l, 12, 100, 7, 37);
	ck_assert_uint_eq(access_count(l), 1);
	expect(l, 0, FAULT, MISSED, 37, 37, 32, 47);
	/* the page computed was wrong (the mapping starts mid-window): the file fault says */
	user_fault(l, 20, 100, 0x7f0000005, true);
	map_pages(l, 21, 100, 7, 64, 79);
	file_fault(l, 22, 100, 7, 66);
	expect(l, 1, FAULT, MISSED | EXEC, 66, 66, 64, 79);
	/* a guess is replaced by the page */
	map_pages(l, 30, 100, 7, 96, 111);
	file_fault(l, 31, 100, 7, 100);
	expect(l, 2, FAULT, MISSED, 100, 100, 96, 111);
	ck_assert_uint_eq(access_count(l), 3);
	access_log_free(l);
}
END_TEST

/* A file fault that is not the last record's: a new record. */
START_TEST(test_new_file_fault)
{
	struct access_log *l = new_log(16, ACCESS_LOG_MAX);

	/* a cold read fault: no window event, its window from the fault address */
	user_fault(l, 10, 100, 0x7f0000005, false);
	file_fault(l, 11, 100, 7, 100);
	expect(l, 0, FAULT, MISSED, 100, 100, 95, 110);
	/* near the file's start, the window cannot start before page 0 */
	user_fault(l, 20, 100, 0x7f000000d, true);
	file_fault(l, 21, 100, 7, 3);
	expect(l, 1, FAULT, MISSED | EXEC, 3, 3, 0, 15);
	/* no user fault: a write fault, no fault-around */
	file_fault(l, 30, 100, 7, 200);
	expect(l, 2, FAULT, NO_AROUND | MISSED, 200, 200, 0, 0);
	/* the same page again (a retry): the same record */
	file_fault(l, 31, 100, 7, 200);
	ck_assert_uint_eq(access_count(l), 3);
	/* a window, then a read by the task, then a fault in the window: another access */
	user_fault(l, 40, 100, 0x7f0000000, false);
	map_pages(l, 41, 100, 7, 300, 315);
	get_pages(l, 42, 100, 8, 0, 0);
	file_fault(l, 43, 100, 7, 305);
	expect(l, 3, FAULT, 0, 300, 300, 300, 315);
	expect(l, 5, FAULT, NO_AROUND | MISSED, 305, 305, 0, 0);
	/* a window, then another user fault of the task: the file fault is that one's */
	user_fault(l, 50, 100, 0x7f0000000, false);
	map_pages(l, 51, 100, 7, 400, 415);
	user_fault(l, 52, 100, 0x7f0000022, false);
	file_fault(l, 53, 100, 7, 402);
	expect(l, 6, FAULT, 0, 400, 400, 400, 415);
	expect(l, 7, FAULT, MISSED, 402, 402, 400, 415);
	/* another file, or a page outside the window: a new record */
	user_fault(l, 60, 100, 0x7f0000000, false);
	map_pages(l, 61, 100, 7, 500, 515);
	file_fault(l, 62, 100, 8, 505);
	file_fault(l, 63, 100, 7, 516);
	expect(l, 9, FAULT, NO_AROUND | MISSED, 505, 505, 0, 0);
	expect(l, 10, FAULT, NO_AROUND | MISSED, 516, 516, 0, 0);
	/* long after the window (over 10 ms): a new fault */
	user_fault(l, 70, 100, 0x7f0000000, false);
	map_pages(l, 71, 100, 7, 600, 615);
	file_fault(l, 71 + 10001, 100, 7, 601);
	expect(l, 12, FAULT, NO_AROUND | MISSED, 601, 601, 0, 0);
	ck_assert_uint_eq(access_count(l), 13);
	access_log_free(l);
}
END_TEST

/* A cold fault retried after its read: the window the retry maps is the same access. */
START_TEST(test_retry)
{
	struct access_log *l = new_log(16, ACCESS_LOG_MAX);

	user_fault(l, 10, 100, 0x7f0000005, false);
	file_fault(l, 11, 100, 7, 37);
	map_pages(l, 900, 100, 7, 32, 47);
	file_fault(l, 901, 100, 7, 37);
	ck_assert_uint_eq(access_count(l), 1);
	expect(l, 0, FAULT, MISSED, 37, 37, 32, 47);
	access_log_free(l);
}
END_TEST

/* Tasks are apart: one's fault and window do not mix with another's. */
START_TEST(test_tasks_apart)
{
	struct access_log *l = new_log(16, ACCESS_LOG_MAX);
	struct ura_pack_access r;

	user_fault(l, 10, 100, 0x7f0000005, false);
	user_fault(l, 11, 200, 0x7f0000002, true);
	map_pages(l, 12, 200, 7, 32, 47);
	map_pages(l, 13, 100, 7, 32, 47);
	file_fault(l, 14, 200, 7, 34);
	expect(l, 0, FAULT, EXEC | MISSED, 34, 34, 32, 47);
	expect(l, 1, FAULT, 0, 37, 37, 32, 47);
	access_get(l, 0, &r);
	ck_assert_uint_eq(r.stream, 200);
	/* many tasks: the table grows */
	for (int pid = 1000; pid < 3000; pid++)
		user_fault(l, 20, pid, (uint64_t)pid, false);
	for (int pid = 1000; pid < 3000; pid++)
		map_pages(l, 21, pid, 9, 0, 15);
	for (int pid = 1000; pid < 3000; pid++) {
		access_get(l, 2 + (size_t)(pid - 1000), &r);
		ck_assert_uint_eq(r.stream, (uint32_t)pid);
		ck_assert_uint_eq(r.first, (uint64_t)pid % 16);
		ck_assert_uint_eq(r.flags, 0);
	}
	access_log_free(l);
}
END_TEST

START_TEST(test_limit_and_folios)
{
	struct access_log *l = new_log(16, 3);
	struct trace_event add = { .type = TRACE_EVENT_ADD, .pid = 1, .ts = T0, .dev = DEV,
				   .ino = 7, .first = 0, .last = 3, .order = 2 };

	for (int i = 0; i < 5; i++)
		get_pages(l, (uint64_t)i, 100, 7, (uint64_t)i, (uint64_t)i);
	ck_assert_uint_eq(access_count(l), 3);
	ck_assert(access_truncated(l));
	/* folios larger than a page: still seen past the limit */
	ck_assert(!access_large_folios(l, DEV));
	ck_assert_int_eq(access_feed(l, &add, T0), 0);
	add.dev = DEV + 1;
	add.order = 0;
	ck_assert_int_eq(access_feed(l, &add, T0), 0);
	ck_assert(access_large_folios(l, DEV));
	ck_assert(!access_large_folios(l, DEV + 1));
	access_log_free(l);
}
END_TEST

/* Times: from the trace's start, never back (CPU buffers merge a round at a time). */
START_TEST(test_times)
{
	struct access_log *l = new_log(16, ACCESS_LOG_MAX);
	struct trace_event early = { .type = TRACE_EVENT_GET_PAGES, .pid = 5, .ts = T0 - 5,
				     .dev = DEV, .ino = 1 };
	struct ura_pack_access r;

	ck_assert_int_eq(access_feed(l, &early, T0), 0);
	get_pages(l, 50, 5, 1, 1, 1);
	get_pages(l, 40, 6, 1, 2, 2);
	access_get(l, 0, &r);
	ck_assert_uint_eq(r.time_ns, 0);
	access_get(l, 1, &r);
	ck_assert_uint_eq(r.time_ns, 50 * US);
	access_get(l, 2, &r);
	ck_assert_uint_eq(r.time_ns, 50 * US);
	access_log_free(l);
}
END_TEST

/* Another fault-around size: windows of 4 pages. */
START_TEST(test_fault_around_size)
{
	struct access_log *l = new_log(6, ACCESS_LOG_MAX);	/* rounded down to 4 */

	ck_assert_uint_eq(access_fault_around(l), 4);
	user_fault(l, 10, 100, 0x7f0000007, false);
	map_pages(l, 11, 100, 7, 12, 15);
	expect(l, 0, FAULT, 0, 15, 15, 12, 15);
	user_fault(l, 20, 100, 0x7f0000006, false);
	file_fault(l, 21, 100, 7, 41);
	expect(l, 1, FAULT, MISSED, 41, 41, 39, 42);
	access_log_free(l);
	l = new_log(0, ACCESS_LOG_MAX);
	ck_assert_uint_eq(access_fault_around(l), 1);
	access_log_free(l);
}
END_TEST

static unsigned fault_around_of(const char *dir, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/fault_around_bytes", dir);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return access_read_fault_around(path);
}

START_TEST(test_read_fault_around)
{
	char *dir = unit_mkdtemp(), path[4096];

	ck_assert_uint_eq(fault_around_of(dir, "65536\n"), 16);
	ck_assert_uint_eq(fault_around_of(dir, "8192\n"), 2);
	ck_assert_uint_eq(fault_around_of(dir, "12288"), 2);
	ck_assert_uint_eq(fault_around_of(dir, "2097152\n"), 512);
	ck_assert_uint_eq(fault_around_of(dir, "4096\n"), 1);
	ck_assert_uint_eq(fault_around_of(dir, "0\n"), KERNEL_FAULT_AROUND_PAGES);
	ck_assert_uint_eq(fault_around_of(dir, "lots\n"), KERNEL_FAULT_AROUND_PAGES);
	ck_assert_uint_eq(fault_around_of(dir, ""), KERNEL_FAULT_AROUND_PAGES);
	snprintf(path, sizeof(path), "%s/none", dir);
	ck_assert_uint_eq(access_read_fault_around(path), KERNEL_FAULT_AROUND_PAGES);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *trace_access_suite(void)
{
	Suite *s = suite_create("trace-access");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_reads);
	tcase_add_test(tc, test_window_after_fault);
	tcase_add_test(tc, test_missed_after_window);
	tcase_add_test(tc, test_new_file_fault);
	tcase_add_test(tc, test_retry);
	tcase_add_test(tc, test_tasks_apart);
	tcase_add_test(tc, test_limit_and_folios);
	tcase_add_test(tc, test_times);
	tcase_add_test(tc, test_fault_around_size);
	tcase_add_test(tc, test_read_fault_around);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(trace_access_suite)
