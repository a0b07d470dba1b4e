// SPDX-License-Identifier: GPL-2.0-or-later
/* learn-window: windows of learned programs, their task trees, times, nesting, closing */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "learn-windows.h"
#include "trace-pageset.h"
#include "trace-events.h"
#include "unit.h"

#define SEC	1000000000ull

static struct trace_event read_ev(int pid, uint64_t ts, uint64_t ino)
{
	return (struct trace_event){ .type = TRACE_EVENT_GET_PAGES, .pid = pid, .ts = ts,
				     .dev = 8, .ino = ino, .first = 0, .last = 0 };
}

static bool used(struct learn_window *w, uint64_t ino)
{
	return pageset_is_used(w->demand.pages, 8, ino, 0);
}

/* the window of a program (root 0): tests open them all so */
static int open_w(struct learn_windows *ws, const char *exe, int pid, uint64_t ts, uint64_t len,
		  struct learn_window **ret)
{
	int r = windows_open(ws, 0, "/", exe, pid, ts, len, ret);

	if (r == 0)
		(*ret)->traced_ns = ts;		/* traced from its exec */
	return r;
}

static struct learn_window *find_exe(struct learn_windows *ws, const char *exe)
{
	for (size_t i = 0; i < ws->n; i++)
		if (strcmp(ws->w[i].exe, exe) == 0)
			return &ws->w[i];
	return NULL;
}

START_TEST(test_one_window)
{
	struct learn_windows ws;
	struct learn_window *w = NULL, taken;
	struct trace_event ev;
	int *pids = NULL;

	windows_init(&ws, 4);
	ck_assert_int_eq(open_w(&ws, "/bin/a", 100, 10 * SEC, 2 * SEC, &w), 0);
	ck_assert_uint_eq(w->tasks, 1);
	ck_assert_uint_eq(w->demand.t0, 10 * SEC);
	ck_assert_str_eq(w->root, "/");
	ck_assert_uint_eq(windows_count_exe(&ws, 0, "/bin/a"), 1);
	ck_assert_uint_eq(windows_count_exe(&ws, 7, "/bin/a"), 0);	/* another root */
	w->uid = 1000;
	ck_assert_uint_eq(windows_count_uid(&ws, 1000), 1);
	ck_assert_uint_eq(windows_count_uid(&ws, 0), 0);

	/* forks follow the tree; other pids are not the window's */
	ck_assert_int_eq(windows_fork(&ws, 100, 101), 0);
	ck_assert_int_eq(windows_fork(&ws, 101, 102), 0);
	ck_assert_int_eq(windows_fork(&ws, 555, 556), 0);
	w = find_exe(&ws, "/bin/a");
	ck_assert_uint_eq(w->tasks, 3);
	ck_assert_ptr_eq(windows_task_window(&ws, 102), w);
	ck_assert_ptr_null(windows_task_window(&ws, 556));
	ck_assert(windows_has_task(&ws, 101) && !windows_has_task(&ws, 556));
	ck_assert_int_eq(windows_pids(&ws, &pids), 3);
	free(pids);

	ev = read_ev(102, 10 * SEC + 1, 1);
	ck_assert_int_eq(windows_feed(&ws, &ev), 1);
	ev = read_ev(556, 10 * SEC + 1, 2);		/* not traced */
	ck_assert_int_eq(windows_feed(&ws, &ev), 0);
	ev = read_ev(101, 12 * SEC, 3);			/* after the window */
	ck_assert_int_eq(windows_feed(&ws, &ev), 0);
	ck_assert(used(w, 1));
	ck_assert(!used(w, 3));

	/* due when its time is over, plus the slack */
	ck_assert_ptr_null(windows_due(&ws, 12 * SEC, SEC / 2));
	ck_assert_ptr_eq(windows_due(&ws, 12 * SEC + SEC / 2, SEC / 2), w);
	windows_take(&ws, w, &taken);
	ck_assert_str_eq(taken.exe, "/bin/a");
	ck_assert_uint_eq(ws.n, 0);
	ck_assert_int_eq(windows_pids(&ws, &pids), 0);	/* nothing traced any more */
	ck_assert_ptr_null(pids);
	windows_free_one(&taken);
	windows_fini(&ws);
}
END_TEST

START_TEST(test_exits_close_early)
{
	struct learn_windows ws;
	struct learn_window *w = NULL;

	windows_init(&ws, 4);
	ck_assert_int_eq(open_w(&ws, "/bin/a", 100, SEC, 10 * SEC, &w), 0);
	ck_assert_int_eq(windows_fork(&ws, 100, 101), 0);
	windows_exit(&ws, 100, 2 * SEC);
	w = find_exe(&ws, "/bin/a");
	ck_assert_ptr_null(windows_due(&ws, 3 * SEC, SEC / 10));	/* 101 lives */
	windows_exit(&ws, 101, 3 * SEC);
	windows_exit(&ws, 101, 3 * SEC);				/* twice: ignored */
	ck_assert_uint_eq(w->tasks, 0);
	ck_assert_ptr_null(windows_due(&ws, 3 * SEC, SEC / 10));	/* events may be late */
	ck_assert_ptr_eq(windows_due(&ws, 3 * SEC + SEC / 10, SEC / 10), w);
	windows_fini(&ws);
}
END_TEST

/* A flooded window is due at once, its tasks listed apart from the other windows' */
START_TEST(test_flood_closes_at_once)
{
	struct learn_windows ws;
	struct learn_window *w = NULL;
	int *pids = NULL;
	long n;

	windows_init(&ws, 4);
	ck_assert_int_eq(open_w(&ws, "/bin/a", 100, SEC, 10 * SEC, &w), 0);
	ck_assert_int_eq(open_w(&ws, "/bin/b", 200, SEC, 10 * SEC, &w), 0);
	ck_assert_int_eq(windows_fork(&ws, 200, 201), 0);
	ck_assert_ptr_null(windows_due(&ws, 2 * SEC, SEC / 10));
	w = find_exe(&ws, "/bin/b");
	w->lost |= WINDOW_LOST_FLOOD;
	ck_assert_ptr_eq(windows_due(&ws, 2 * SEC, SEC / 10), w);
	n = windows_pids_of(&ws, w, &pids);
	ck_assert_int_eq(n, 2);
	ck_assert((pids[0] == 200 && pids[1] == 201) || (pids[0] == 201 && pids[1] == 200));
	free(pids);
	windows_fini(&ws);
}
END_TEST

/* A flood inside a nested window: its tasks are forgotten, not handed to the outer window. */
START_TEST(test_flood_tasks_forgotten)
{
	struct learn_windows ws;
	struct learn_window *w = NULL, *outer, taken;

	windows_init(&ws, 4);
	ck_assert_int_eq(open_w(&ws, "/bin/a", 100, SEC, 10 * SEC, &w), 0);
	ck_assert_int_eq(windows_fork(&ws, 100, 101), 0);
	ck_assert_int_eq(open_w(&ws, "/bin/b", 101, 2 * SEC, 10 * SEC, &w), 0);
	outer = find_exe(&ws, "/bin/a");
	ck_assert_ptr_eq(windows_outer(&ws, find_exe(&ws, "/bin/b")), outer);
	ck_assert_uint_eq(outer->tasks, 2);
	w = find_exe(&ws, "/bin/b");
	w->lost |= WINDOW_LOST_FLOOD;
	windows_take(&ws, w, &taken);
	windows_free_one(&taken);
	ck_assert(!windows_has_task(&ws, 101));
	outer = find_exe(&ws, "/bin/a");
	ck_assert_uint_eq(outer->tasks, 1);
	ck_assert(windows_has_task(&ws, 100));
	windows_fini(&ws);
}
END_TEST

START_TEST(test_pending_trace)
{
	struct learn_windows ws;
	struct learn_window *w = NULL;

	/* a window whose pid is being added: not closed before it is known since when */
	windows_init(&ws, 4);
	ck_assert_int_eq(windows_open(&ws, 0, "/", "/bin/a", 100, SEC, SEC, &w), 0);
	ck_assert_uint_eq(w->traced_ns, WINDOW_TRACED_PENDING);
	windows_exit(&ws, 100, SEC + 1);
	ck_assert_ptr_null(windows_due(&ws, 5 * SEC, SEC / 10));
	w->traced_ns = SEC + 500000;
	ck_assert_ptr_eq(windows_due(&ws, 5 * SEC, SEC / 10), w);
	/* or when it is lost anyway */
	w->traced_ns = WINDOW_TRACED_PENDING;
	windows_lose(&ws, WINDOW_LOST_EVENTS);
	ck_assert_ptr_eq(windows_due(&ws, 5 * SEC, SEC / 10), w);
	ck_assert_uint_eq(w->lost, WINDOW_LOST_EVENTS);
	windows_fini(&ws);
}
END_TEST

START_TEST(test_same_program_twice)
{
	struct learn_windows ws;
	struct learn_window *w = NULL, taken;
	struct trace_event ev;

	/* copies of one program started together: each run has its window */
	windows_init(&ws, 16);
	for (int i = 0; i < 12; i++)
		ck_assert_int_eq(open_w(&ws, "/bin/a", 100 + i, SEC + (uint64_t)i, SEC, &w), 0);
	ck_assert_uint_eq(windows_count_exe(&ws, 0, "/bin/a"), 12);
	for (int i = 0; i < 12; i++) {
		ev = read_ev(100 + i, 2 * SEC - 1, 50 + (uint64_t)i);
		ck_assert_int_eq(windows_feed(&ws, &ev), 1);
	}
	/* closing one leaves the others' tasks alone */
	w = windows_task_window(&ws, 105);
	windows_exit(&ws, 105, SEC + 100);
	ck_assert_ptr_eq(windows_due(&ws, 2 * SEC, SEC / 10), w);
	windows_take(&ws, w, &taken);
	ck_assert(used(&taken, 55) && !used(&taken, 54));
	windows_free_one(&taken);
	for (int i = 0; i < 12; i++)
		if (i != 5)
			ck_assert(windows_has_task(&ws, 100 + i));
	windows_fini(&ws);
}
END_TEST

START_TEST(test_many_tasks)
{
	struct learn_windows ws;
	struct learn_window *a = NULL, *b = NULL, taken;
	int *pids = NULL;

	/* thousands of tasks in two windows: the task table grows, exits shift it back */
	windows_init(&ws, 4);
	ck_assert_int_eq(open_w(&ws, "/bin/a", 1, SEC, 10 * SEC, &a), 0);
	ck_assert_int_eq(open_w(&ws, "/bin/b", 2, SEC, 10 * SEC, &b), 0);
	for (int i = 0; i < 5000; i++)
		ck_assert_int_eq(windows_fork(&ws, i % 2 ? 1 : 2, 10 + i * 7), 0);
	ck_assert_int_eq(windows_pids(&ws, &pids), 5002);
	free(pids);
	for (int i = 0; i < 5000; i += 3)
		windows_exit(&ws, 10 + i * 7, 2 * SEC);
	for (int i = 0; i < 5000; i++) {
		ck_assert(windows_has_task(&ws, 10 + i * 7) == (i % 3 != 0));
		ck_assert(windows_knows_task(&ws, 10 + i * 7));
	}
	/* an exited task's event read late: fed when older than its exit, not when newer */
	{
		struct trace_event ev = read_ev(10, 2 * SEC - 1, 77);

		ck_assert_int_eq(windows_feed(&ws, &ev), 1);
		ev = read_ev(10, 2 * SEC + 1, 78);
		ck_assert_int_eq(windows_feed(&ws, &ev), 0);
	}
	a = find_exe(&ws, "/bin/a");
	windows_take(&ws, a, &taken);
	windows_free_one(&taken);
	for (int i = 0; i < 5000; i++)
		ck_assert(windows_has_task(&ws, 10 + i * 7) == (i % 3 != 0 && i % 2 == 0));
	ck_assert(windows_has_task(&ws, 2) && !windows_has_task(&ws, 1));
	windows_fini(&ws);
}
END_TEST

START_TEST(test_nested)
{
	struct learn_windows ws;
	struct learn_window *w = NULL, *outer, *inner, taken;
	struct trace_event ev;

	windows_init(&ws, 4);
	ck_assert_int_eq(open_w(&ws, "/bin/sh-script", 100, SEC, 10 * SEC, &w), 0);
	ck_assert_int_eq(windows_fork(&ws, 100, 101), 0);
	ev = read_ev(101, SEC + 5, 1);			/* before its exec: the script's */
	ck_assert_int_eq(windows_feed(&ws, &ev), 1);
	ck_assert_int_eq(open_w(&ws, "/bin/cat", 101, SEC + 10, 10 * SEC, &w), 0);
	outer = find_exe(&ws, "/bin/sh-script");
	inner = find_exe(&ws, "/bin/cat");
	ck_assert_uint_eq(inner->parent, outer->id);
	ck_assert_uint_eq(outer->tasks, 2);
	ck_assert_uint_eq(inner->tasks, 1);

	ev = read_ev(101, SEC + 20, 2);			/* cat's read: both learn it */
	ck_assert_int_eq(windows_feed(&ws, &ev), 2);
	ev = read_ev(101, SEC + 6, 3);			/* late record from before the exec */
	ck_assert_int_eq(windows_feed(&ws, &ev), 1);
	ck_assert(used(inner, 2) && used(outer, 2));
	ck_assert(!used(inner, 1) && !used(inner, 3) && used(outer, 3));

	/* cat's window closes first: its task is the script's again */
	windows_take(&ws, inner, &taken);
	windows_free_one(&taken);
	outer = find_exe(&ws, "/bin/sh-script");
	ck_assert_ptr_eq(windows_task_window(&ws, 101), outer);
	windows_exit(&ws, 101, 2 * SEC);
	windows_exit(&ws, 100, 2 * SEC);
	ck_assert_uint_eq(outer->tasks, 0);
	windows_fini(&ws);
}
END_TEST

START_TEST(test_limit)
{
	struct learn_windows ws;
	struct learn_window *w = NULL;

	windows_init(&ws, 2);
	ck_assert_int_eq(open_w(&ws, "/a", 1, SEC, SEC, &w), 0);
	ck_assert_int_eq(open_w(&ws, "/b", 2, SEC, SEC, &w), 0);
	ck_assert_int_eq(open_w(&ws, "/c", 3, SEC, SEC, &w), -ENOSPC);
	ck_assert_ptr_null(windows_task_window(&ws, 3));
	windows_fini(&ws);
	windows_fini(&ws);	/* a finished set again */
}
END_TEST

static Suite *learn_window_suite(void)
{
	Suite *s = suite_create("learn-window");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_one_window);
	tcase_add_test(tc, test_exits_close_early);
	tcase_add_test(tc, test_pending_trace);
	tcase_add_test(tc, test_same_program_twice);
	tcase_add_test(tc, test_many_tasks);
	tcase_add_test(tc, test_nested);
	tcase_add_test(tc, test_limit);
	tcase_add_test(tc, test_flood_closes_at_once);
	tcase_add_test(tc, test_flood_tasks_forgotten);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(learn_window_suite)
