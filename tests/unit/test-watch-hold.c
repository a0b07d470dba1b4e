// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/replay/watch-hold.c: how long data found resident is believed */
#include <errno.h>

#include "watch-hold.h"
#include "unit.h"

#define S 1000000000ull

START_TEST(test_min_whatever_happens)
{
	struct watch_hold h = { 0 };

	ck_assert(!watch_hold_holds(&h, 0, 5 * S));	/* never found resident */
	ck_assert(watch_hold_holds(&h, 10 * S, 10 * S + S / 2));	/* no look at all */
	ck_assert(!watch_hold_holds(&h, 10 * S, 11 * S));
	watch_hold_note(&h, 10 * S + 1, 10 * S + 1, 0, 5);
	watch_hold_note(&h, 10 * S + 2, 10 * S + 2, 0, 6);	/* reclaim right after the check */
	ck_assert(watch_hold_holds(&h, 10 * S, 10 * S + S - 1));
}
END_TEST

START_TEST(test_held_while_nothing_reclaimed)
{
	struct watch_hold h = { 0 };

	watch_hold_note(&h, 1 * S, 1 * S, 0, 100);	/* the baseline, before the check */
	watch_hold_note(&h, 3 * S, 3 * S, 0, 100);	/* after it: the same */
	ck_assert(watch_hold_holds(&h, 2 * S, 3 * S + 1));
	ck_assert(watch_hold_holds(&h, 2 * S, 2 * S + WATCH_HOLD_MAX_NS - 1));
	ck_assert(!watch_hold_holds(&h, 2 * S, 2 * S + WATCH_HOLD_MAX_NS));
	/* drop_caches: nothing found resident before this look is believed past the minimum */
	watch_hold_note(&h, 4 * S, 4 * S, 0, 101);
	ck_assert(!watch_hold_holds(&h, 2 * S, 4 * S));
	/* found resident again after it, and a look after that agrees */
	watch_hold_note(&h, 6 * S, 6 * S, 0, 101);
	ck_assert(watch_hold_holds(&h, 5 * S, 7 * S));
	ck_assert(!watch_hold_holds(&h, 3 * S, 7 * S));
}
END_TEST

START_TEST(test_needs_a_look_on_each_side)
{
	struct watch_hold h = { 0 };

	/* the first look ever comes after the check: no baseline */
	watch_hold_note(&h, 3 * S, 3 * S, 0, 100);
	ck_assert(!watch_hold_holds(&h, 2 * S, 3 * S + S));
	/* no look since the check */
	ck_assert(!watch_hold_holds(&h, 4 * S, 4 * S + S + 1));
	watch_hold_note(&h, 5 * S, 5 * S, 0, 100);
	ck_assert(watch_hold_holds(&h, 4 * S, 5 * S + S));
}
END_TEST

START_TEST(test_blind)
{
	struct watch_hold h = { 0 };

	watch_hold_note(&h, 1 * S, 1 * S, 0, 100);
	watch_hold_note(&h, 3 * S, 3 * S, -EACCES, 0);
	ck_assert(!watch_hold_holds(&h, 2 * S, 3 * S + S));
	ck_assert(watch_hold_holds(&h, 2 * S, 2 * S + S / 2));
	/* readable again: a new baseline */
	watch_hold_note(&h, 4 * S, 4 * S, 0, 100);
	ck_assert(!watch_hold_holds(&h, 2 * S, 5 * S));
	watch_hold_note(&h, 6 * S, 6 * S, 0, 100);
	ck_assert(watch_hold_holds(&h, 5 * S, 7 * S));
}
END_TEST

START_TEST(test_look_is_rate_limited)
{
	struct watch_hold h = { 0 };

	watch_hold_look(&h, 1 * S);
	ck_assert_uint_eq(h.looked_ns, 1 * S);
	watch_hold_look(&h, 1 * S + WATCH_HOLD_LOOK_NS - 1);
	ck_assert_uint_eq(h.looked_ns, 1 * S);
	watch_hold_look(&h, 1 * S + WATCH_HOLD_LOOK_NS);
	ck_assert_uint_eq(h.looked_ns, 1 * S + WATCH_HOLD_LOOK_NS);
}
END_TEST

static Suite *watch_hold_suite(void)
{
	Suite *s = suite_create("watch-hold");
	TCase *tc = tcase_create("watch-hold");

	tcase_add_test(tc, test_min_whatever_happens);
	tcase_add_test(tc, test_held_while_nothing_reclaimed);
	tcase_add_test(tc, test_needs_a_look_on_each_side);
	tcase_add_test(tc, test_blind);
	tcase_add_test(tc, test_look_is_rate_limited);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(watch_hold_suite)
