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
		learned += (programs_start(p, "usr-libexec-gcc-cc1.pack", 0, t, NULL) == PROGRAMS_YES);
	/* the burst, then one per 10 minutes: 16 + 6 */
	ck_assert_uint_le(learned, LEARN_BURST + 6);
	ck_assert_uint_ge(learned, LEARN_BURST + 5);
	ck_assert(!(programs_start(p, "usr-libexec-gcc-cc1.pack", 0, t, &wait) == PROGRAMS_YES));
	ck_assert_uint_gt(wait, 0);
	ck_assert_uint_le(wait, 600 * S);
	/* another program, or the same path in another root, has its own budget */
	ck_assert((programs_start(p, "usr-bin-as.pack", 0, t, NULL) == PROGRAMS_YES));
	ck_assert((programs_start(p, "@0000000000000007-usr-libexec-gcc-cc1.pack", 0, t, NULL) == PROGRAMS_YES));
	/* after a quiet while the burst is back, and no more */
	t += 10000 * 600 * S;
	learned = 0;
	for (unsigned i = 0; i < 100; i++)
		learned += (programs_start(p, "usr-libexec-gcc-cc1.pack", 0, t, NULL) == PROGRAMS_YES);
	ck_assert_uint_eq(learned, LEARN_BURST);
	ck_assert_uint_eq(programs_count(p), 3);
	programs_free(p);

	/* no interval: no limit */
	ck_assert_int_eq(programs_new(0, &p), 0);
	for (unsigned i = 0; i < 1000; i++)
		ck_assert((programs_start(p, "bin-true.pack", 0, t, NULL) == PROGRAMS_YES));
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
		ck_assert_int_eq(programs_start(p, path, 0, (uint64_t)i * S, NULL), PROGRAMS_YES);
		ck_assert_uint_le(programs_count(p), PROGRAMS_MAX);
	}
	programs_free(p);
}
END_TEST

/*
 * A user naming new programs as fast as they like (sh FILE over many files): USER_NEW_BURST
 * learned, then one per USER_NEW_INTERVAL_NS; root's spent budget stays spent, another
 * user's new programs are not held back, and programs known already still take their own.
 */
START_TEST(test_user_new_programs)
{
	struct programs *p = NULL;
	uint64_t t = 1000 * S, wait = 0;
	unsigned yes = 0, refused = 0;
	char name[64];

	ck_assert_int_eq(programs_new(600 * S, &p), 0);
	for (int i = 0; i < LEARN_BURST; i++)
		ck_assert_int_eq(programs_start(p, "bin-dash.pack", 0, t, NULL), PROGRAMS_YES);
	ck_assert_int_eq(programs_start(p, "bin-dash.pack", 0, t, NULL), PROGRAMS_LEARNED_LATELY);
	for (unsigned i = 0; i < 10000; i++) {
		enum programs_refusal r;

		snprintf(name, sizeof(name), "@%u-etc-f%u.pack", i, i);
		r = programs_start(p, name, 65534, t + i * 1000, &wait);
		yes += r == PROGRAMS_YES;
		refused += r == PROGRAMS_USER_NEW;
	}
	ck_assert_uint_eq(yes, USER_NEW_BURST);
	ck_assert_uint_eq(refused, 10000 - USER_NEW_BURST);
	ck_assert_uint_eq(programs_count(p), 1 + USER_NEW_BURST);
	/* root's budget was not reset by the flood; a user's start of dash is not new */
	ck_assert_int_eq(programs_start(p, "bin-dash.pack", 65534, t + S, NULL),
			 PROGRAMS_LEARNED_LATELY);
	/* another user, and root, may still start new programs */
	ck_assert_int_eq(programs_start(p, "usr-bin-x.pack", 1000, t + S, NULL), PROGRAMS_YES);
	ck_assert_int_eq(programs_start(p, "usr-bin-y.pack", 0, t + S, NULL), PROGRAMS_YES);
	/* the user's next new program, an interval or so on */
	ck_assert_int_eq(programs_start(p, "@x-etc-g.pack", 65534, t + S, &wait), PROGRAMS_USER_NEW);
	ck_assert_uint_gt(wait, 0);
	ck_assert_int_eq(programs_start(p, "@x-etc-g.pack", 65534, t + 2 * USER_NEW_INTERVAL_NS, NULL),
			 PROGRAMS_YES);
	programs_free(p);
}
END_TEST

/* A user with many subordinate uids: all users together get USERS_NEW_BURST new programs. */
START_TEST(test_many_uids)
{
	struct programs *p = NULL;
	unsigned yes = 0;
	char name[64];

	ck_assert_int_eq(programs_new(600 * S, &p), 0);
	for (unsigned uid = 100000; uid < 100300; uid++)
		for (unsigned i = 0; i < 40; i++) {
			snprintf(name, sizeof(name), "@x-u%u-f%u.pack", uid, i);
			yes += programs_start(p, name, uid, 1000 * S + uid, NULL) == PROGRAMS_YES;
		}
	ck_assert_uint_le(yes, USERS_NEW_BURST + 1);
	ck_assert_uint_ge(yes, USERS_NEW_BURST);
	/* root is not held back */
	ck_assert_int_eq(programs_start(p, "usr-bin-z.pack", 0, 1001 * S, NULL), PROGRAMS_YES);
	programs_free(p);
}
END_TEST

/* A restarted daemon: the budget played again from the runs a pack remembers. */
START_TEST(test_seed)
{
	struct programs *p = NULL;
	int64_t now = 1800000000 * (int64_t)S, runs[20];
	uint64_t mono = 5 * S, wait = 0;
	unsigned learned = 0;

	ck_assert_int_eq(programs_new(600 * S, &p), 0);
	/* 16 runs in the last minute: the burst is spent */
	for (int i = 0; i < 16; i++)
		runs[i] = now - 60 * (int64_t)S + i * (int64_t)S;
	ck_assert_int_eq(programs_seed(p, "usr-bin-often.pack", runs, 16, now, mono), 0);
	ck_assert(!(programs_start(p, "usr-bin-often.pack", 0, mono, &wait) == PROGRAMS_YES));
	/* about one interval less the minute since the first run refilled */
	ck_assert_uint_gt(wait, 400 * S);
	ck_assert_uint_le(wait, 600 * S);
	/* 4 runs a day ago: a full burst again */
	for (int i = 0; i < 4; i++)
		runs[i] = now - 86400 * (int64_t)S + i * (int64_t)S;
	ck_assert_int_eq(programs_seed(p, "usr-bin-rare.pack", runs, 4, now, mono), 0);
	for (int i = 0; i < 40; i++)
		learned += (programs_start(p, "usr-bin-rare.pack", 0, mono, NULL) == PROGRAMS_YES);
	ck_assert_uint_eq(learned, LEARN_BURST);
	/* 3 recent runs, out of order (a pack lists the newest first): 13 left */
	for (int i = 0; i < 3; i++)
		runs[i] = now - (int64_t)i * S;
	ck_assert_int_eq(programs_seed(p, "usr-bin-half.pack", runs, 3, now, mono), 0);
	learned = 0;
	for (int i = 0; i < 40; i++)
		learned += (programs_start(p, "usr-bin-half.pack", 0, mono, NULL) == PROGRAMS_YES);
	ck_assert_uint_eq(learned, LEARN_BURST - 3);
	/* LEARN_SETTLE_RUNS recent runs over a minute: taken as settled (which packs settled
	 * is not kept) */
	for (int i = 0; i < LEARN_SETTLE_RUNS; i++)
		runs[i] = now - (int64_t)i * 20 * S;
	ck_assert_int_eq(programs_seed(p, "usr-bin-settled.pack", runs, LEARN_SETTLE_RUNS, now,
				       mono), 0);
	ck_assert_int_eq(programs_start(p, "usr-bin-settled.pack", 0, mono, NULL),
			 PROGRAMS_LEARNED_LATELY);
	/* a clock set back: runs "in the future" refill nothing, and spend no more than all */
	for (int i = 0; i < 20; i++)
		runs[i] = now + 3600 * (int64_t)S + i;
	ck_assert_int_eq(programs_seed(p, "usr-bin-future.pack", runs, 20, now, mono), 0);
	ck_assert(!(programs_start(p, "usr-bin-future.pack", 0, mono, NULL) == PROGRAMS_YES));
	programs_free(p);
}
END_TEST

/* A pack that settled: the rest of the burst given up, one run an interval on. */
START_TEST(test_settled)
{
	struct programs *p = NULL;
	uint64_t wait = 0;

	ck_assert_int_eq(programs_new(600 * S, &p), 0);
	ck_assert(!programs_settled(p, "usr-bin-x.pack", 1 * S));	/* not known */
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(programs_start(p, "usr-bin-x.pack", 0, 1 * S, NULL), PROGRAMS_YES);
	ck_assert(programs_settled(p, "usr-bin-x.pack", 2 * S));
	ck_assert(!programs_settled(p, "usr-bin-x.pack", 2 * S));	/* nothing left */
	/* copies exec'd before it settled, read late: the runs given up, no more */
	ck_assert(!programs_settled_after(p, "usr-bin-x.pack", 2 * S));
	for (int i = 0; i < 12; i++)
		ck_assert(programs_settled_after(p, "usr-bin-x.pack", 1 * S + 1));
	ck_assert(!programs_settled_after(p, "usr-bin-x.pack", 1 * S + 1));
	ck_assert(!programs_settled_after(p, "usr-bin-y.pack", 1 * S));
	ck_assert_int_eq(programs_start(p, "usr-bin-x.pack", 0, 3 * S, &wait),
			 PROGRAMS_LEARNED_LATELY);
	ck_assert_uint_gt(wait, 590 * S);
	ck_assert_int_eq(programs_start(p, "usr-bin-x.pack", 0, 603 * S, NULL), PROGRAMS_YES);
	ck_assert_int_eq(programs_start(p, "usr-bin-x.pack", 0, 604 * S, NULL),
			 PROGRAMS_LEARNED_LATELY);
	programs_free(p);
}
END_TEST

static Suite *learn_programs_suite(void)
{
	Suite *s = suite_create("learn-programs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_budget);
	tcase_add_test(tc, test_table_bounded);
	tcase_add_test(tc, test_seed);
	tcase_add_test(tc, test_settled);
	tcase_add_test(tc, test_user_new_programs);
	tcase_add_test(tc, test_many_uids);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(learn_programs_suite)
