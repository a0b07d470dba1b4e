// SPDX-License-Identifier: GPL-2.0-or-later
/* learn-programs: a program started all the time has a bounded number of its runs learned */
#include <stdio.h>
#include <stdlib.h>

#include "learn-programs.h"
#include "unit.h"

#define S	1000000000ull

START_TEST(test_budget)
{
	struct programs *p = NULL;
	uint64_t wait = 0, t = 1000 * S;
	unsigned learned = 0;

	ck_assert_int_eq(programs_new(600 * S, &p), 0);
	/* a build: cc1 started 5000 times in an hour, 0.72 s apart */
	for (unsigned i = 0; i < 5000; i++, t += 720000000ull)
		learned += programs_start(p, 0, "/usr/libexec/gcc/cc1", t, NULL);
	/* the burst, then one per 10 minutes: 16 + 6 */
	ck_assert_uint_le(learned, LEARN_BURST + 6);
	ck_assert_uint_ge(learned, LEARN_BURST + 5);
	ck_assert(!programs_start(p, 0, "/usr/libexec/gcc/cc1", t, &wait));
	ck_assert_uint_gt(wait, 0);
	ck_assert_uint_le(wait, 600 * S);
	/* another program, or the same path in another root, has its own budget */
	ck_assert(programs_start(p, 0, "/usr/bin/as", t, NULL));
	ck_assert(programs_start(p, 7, "/usr/libexec/gcc/cc1", t, NULL));
	/* after a quiet while the burst is back, and no more */
	t += 10000 * 600 * S;
	learned = 0;
	for (unsigned i = 0; i < 100; i++)
		learned += programs_start(p, 0, "/usr/libexec/gcc/cc1", t, NULL);
	ck_assert_uint_eq(learned, LEARN_BURST);
	ck_assert_uint_eq(programs_count(p), 3);
	programs_free(p);

	/* no interval: no limit */
	ck_assert_int_eq(programs_new(0, &p), 0);
	for (unsigned i = 0; i < 1000; i++)
		ck_assert(programs_start(p, 0, "/bin/true", t, NULL));
	programs_free(p);
	programs_free(NULL);
}
END_TEST

/* The table is bounded: the programs started least lately are forgotten. */
START_TEST(test_table_bounded)
{
	struct programs *p = NULL;
	char path[64];

	ck_assert_int_eq(programs_new(600 * S, &p), 0);
	for (unsigned i = 0; i < 3 * PROGRAMS_MAX; i++) {
		snprintf(path, sizeof(path), "/tmp/build/t%u", i);
		ck_assert(programs_start(p, 0, path, (uint64_t)i * S, NULL));
		ck_assert_uint_le(programs_count(p), PROGRAMS_MAX);
	}
	programs_free(p);
}
END_TEST

static Suite *learn_programs_suite(void)
{
	Suite *s = suite_create("learn-programs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_budget);
	tcase_add_test(tc, test_table_bounded);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(learn_programs_suite)
