// SPDX-License-Identifier: GPL-2.0-or-later
/* learn-follow: a parent stays followed while enough of the programs it starts are learned */
#include <stdlib.h>
#include <string.h>

#include "learn-follow.h"
#include "unit.h"

#define S	1000000000ull

static bool all_alive(int pid)
{
	(void)pid;
	return true;
}

static bool odd_alive(int pid)
{
	return pid % 2;
}

/* A shell that starts a program learned enough, over and over: dropped after FOLLOW_MISSES. */
START_TEST(test_dropped_when_children_not_learned)
{
	static struct follow f;
	int child = 1000, dropped = 0;

	memset(&f, 0, sizeof(f));
	ck_assert(follow_hit(&f, 500, 1 * S));
	ck_assert(!follow_hit(&f, 500, 2 * S));		/* followed already */
	for (int i = 0; i < FOLLOW_MISSES; i++, child++) {
		follow_fork(&f, 500, child);
		dropped = follow_miss(&f, child);
		ck_assert_int_eq(dropped, i == FOLLOW_MISSES - 1 ? 500 : 0);
	}
	ck_assert_uint_eq(f.n, 0);
	ck_assert_uint_eq(f.dropped, 1);
	/* a child of a parent not followed, or whose fork was not seen: nothing */
	follow_fork(&f, 501, child);
	ck_assert_int_eq(follow_miss(&f, child), 0);
	ck_assert_int_eq(follow_miss(&f, child + 1), 0);
	/* a program learned again: followed again, from no misses */
	ck_assert(follow_hit(&f, 500, 3 * S));
}
END_TEST

/* One child in two learned: the parent stays; one in four: it is dropped. */
START_TEST(test_share_learned)
{
	static struct follow f;
	int child = 2000;

	memset(&f, 0, sizeof(f));
	follow_hit(&f, 600, 1 * S);
	for (int i = 0; i < 100; i++, child++) {
		follow_fork(&f, 600, child);
		if (i % 2)
			follow_hit(&f, 600, 1 * S + (uint64_t)i);
		else
			ck_assert_int_eq(follow_miss(&f, child), 0);
	}
	ck_assert_uint_eq(f.n, 1);
	for (int i = 0; i < 100 && f.n; i++, child++) {
		follow_fork(&f, 600, child);
		if (i % 4 == 3)
			follow_hit(&f, 600, 2 * S + (uint64_t)i);
		else
			follow_miss(&f, child);
	}
	ck_assert_uint_eq(f.n, 0);
	ck_assert_uint_eq(f.dropped, 1);
}
END_TEST

/* Full: the parent whose last child learned is oldest makes room. */
START_TEST(test_full_and_keep)
{
	static struct follow f;
	int out[FOLLOW_MAX];
	size_t n;

	memset(&f, 0, sizeof(f));
	for (int i = 0; i < FOLLOW_MAX; i++)
		ck_assert(follow_hit(&f, 100 + i, (uint64_t)(i + 1) * S));
	ck_assert(follow_hit(&f, 99, 1000 * S));
	ck_assert_uint_eq(f.n, FOLLOW_MAX);
	for (size_t i = 0; i < f.n; i++)
		ck_assert_int_ne(f.v[i].pid, 100);	/* the oldest went */
	/* kept: those that started a program learned within FOLLOW_NS, and alive */
	n = follow_keep(&f, 1000 * S + FOLLOW_NS - 1, all_alive, out);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(out[0], 99);
	ck_assert_uint_eq(f.n, 1);
	follow_hit(&f, 98, 1000 * S);
	n = follow_keep(&f, 1000 * S + 1, odd_alive, out);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(out[0], 99);
}
END_TEST

static Suite *learn_follow_suite(void)
{
	Suite *s = suite_create("learn-follow");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_dropped_when_children_not_learned);
	tcase_add_test(tc, test_share_learned);
	tcase_add_test(tc, test_full_and_keep);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(learn_follow_suite)
