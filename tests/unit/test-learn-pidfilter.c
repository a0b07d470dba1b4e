// SPDX-License-Identifier: GPL-2.0-or-later
/* learn-pidfilter: the pids each write arms around the newest one, without the banned ones */
#include <stdlib.h>
#include <string.h>

#include "learn-pidfilter.h"
#include "unit.h"

/* How many pids of the text, and whether @pid is one of them. */
static size_t count_pids(const char *text, int pid, bool *ret_has)
{
	size_t n = 0;

	*ret_has = false;
	for (const char *p = text; *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		n++;
		*ret_has |= v == pid;
		p = end;
	}
	return n;
}

START_TEST(test_armed_around_last)
{
	char buf[4096];
	bool has;

	ck_assert_uint_gt(pidfilter_ranges(1000, 1000, 4194304, NULL, 0, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(count_pids(buf, 1000 - PIDS_RECENT + 1, &has), PIDS_RECENT + PIDS_AHEAD);
	ck_assert(has);
	count_pids(buf, 1000 + PIDS_AHEAD, &has);
	ck_assert(has);
	count_pids(buf, 1000 + PIDS_AHEAD + 1, &has);
	ck_assert(!has);
	/* wrapped at pid_max, never 0 */
	pidfilter_ranges(10, 10, 32768, NULL, 0, buf, sizeof(buf));
	count_pids(buf, 0, &has);
	ck_assert(!has);
	count_pids(buf, 32767, &has);
	ck_assert(has);
	/* too small a buffer: nothing */
	ck_assert_uint_eq(pidfilter_ranges(1000, 1000, 4194304, NULL, 0, buf, 8), 0);
}
END_TEST

/*
 * A rewrite arms every pid allocated while the list was emptied: a program exec'd then, and
 * the child it forked, were traced, and the daemon may read of them only after the write.
 */
START_TEST(test_emptying_armed)
{
	char *buf = malloc(1 << 16);
	bool has;

	ck_assert_ptr_nonnull(buf);
	pidfilter_ranges(1000, 1500, 4194304, NULL, 0, buf, 1 << 16);
	ck_assert_uint_eq(count_pids(buf, 1000, &has), 500 + PIDS_RECENT + PIDS_AHEAD);
	ck_assert(has);
	count_pids(buf, 1000 - PIDS_RECENT + 1, &has);
	ck_assert(has);
	count_pids(buf, 1000 - PIDS_RECENT, &has);
	ck_assert(!has);
	count_pids(buf, 1500 + PIDS_AHEAD, &has);
	ck_assert(has);
	/* wrapped: from 32700 to 320 in a space of 32768 (pids wrap to 300) */
	pidfilter_ranges(32700, 320, 32768, NULL, 0, buf, 1 << 16);
	ck_assert_uint_eq(count_pids(buf, 32767, &has), (32768 - 32637) + (384 - 300 + 1));
	ck_assert(has);
	count_pids(buf, 300, &has);
	ck_assert(has);
	count_pids(buf, 299, &has);
	ck_assert(!has);
	count_pids(buf, 1, &has);	/* init is never armed */
	ck_assert(!has);
	/* a storm: the newest PIDS_EMPTYING only */
	pidfilter_ranges(1000, 1000 + 3 * PIDS_EMPTYING, 4194304, NULL, 0, buf, 1 << 16);
	ck_assert_uint_eq(count_pids(buf, 1000, &has), PIDS_EMPTYING + PIDS_RECENT + PIDS_AHEAD);
	ck_assert(!has);
	free(buf);
}
END_TEST

/* A flood's task, banned, is never armed again, even as the newest pid. */
START_TEST(test_banned_left_out)
{
	int banned[PIDS_BANNED] = { 1000, 990 };
	char buf[4096];
	bool has;

	pidfilter_ranges(1000, 1000, 4194304, banned, PIDS_BANNED, buf, sizeof(buf));
	ck_assert_uint_eq(count_pids(buf, 1000, &has), PIDS_RECENT + PIDS_AHEAD - 2);
	ck_assert(!has);
	count_pids(buf, 990, &has);
	ck_assert(!has);
	count_pids(buf, 991, &has);
	ck_assert(has);
}
END_TEST

static Suite *learn_pidfilter_suite(void)
{
	Suite *s = suite_create("learn-pidfilter");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_armed_around_last);
	tcase_add_test(tc, test_emptying_armed);
	tcase_add_test(tc, test_banned_left_out);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(learn_pidfilter_suite)
