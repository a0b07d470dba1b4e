// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/replay/watch-queue.c: jobs queued, run, cancelled and released */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay-options.h"
#include "watch-packs.h"
#include "watch-queue.h"
#include "unit.h"

/* A pack entry of the cache's kind, with no pack: enough for a job that is cancelled. */
static struct watch_pack *fake_pack(void)
{
	struct watch_pack *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(p);
	p->path = strdup("/nonexistent/x.pack");
	p->refs = 1;
	p->busy = true;		/* as consider() sets it */
	return p;
}

/* The queue holds WATCH_QUEUE_LEN jobs; the next is refused and counted; stop releases all. */
START_TEST(test_full_queue_refuses)
{
	struct replay_options o = { 0 };
	struct watch_queue q;
	struct watch_pack *p = fake_pack();
	struct watch_job *j;

	ck_assert_int_eq(watch_queue_start(&q, &o, 0), 0);	/* no worker: nothing taken */
	for (int i = 0; i < WATCH_QUEUE_LEN; i++) {
		__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
		j = watch_job_new(p, 100 + i, "/usr/bin/x", NULL, NULL, 1);
		ck_assert_ptr_nonnull(j);
		ck_assert(watch_queue_push(&q, j));
	}
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	j = watch_job_new(p, 1, "/usr/bin/x", "/srv/c", NULL, 1);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(j->root, "/srv/c");
	ck_assert(!watch_queue_push(&q, j));
	ck_assert_uint_eq(q.dropped, 1);
	watch_job_put(j);
	ck_assert_uint_eq(p->refs, 1 + WATCH_QUEUE_LEN);
	watch_queue_stop(&q);
	/* every job released, each clearing the pack's busy flag; the test's reference is left */
	ck_assert_uint_eq(p->refs, 1);
	ck_assert(!p->busy);
	watch_pack_put(p);
}
END_TEST

/* Workers take every job pushed; a job cancelled is not replayed, and is released. */
START_TEST(test_workers_take_jobs)
{
	struct replay_options o = { 0 };
	struct watch_queue q;
	struct watch_pack *p = fake_pack();
	struct watch_job *kept;

	ck_assert_int_eq(watch_queue_start(&q, &o, 2), 0);
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	kept = watch_job_new(p, 7, "/usr/bin/x", NULL, NULL, 1);
	watch_job_get(kept);	/* as the event loop keeps a guess's job */
	watch_job_cancel(kept, "/usr/bin/y");
	ck_assert_str_eq(kept->instead, "/usr/bin/y");
	watch_job_cancel(kept, "/usr/bin/z");	/* set once */
	ck_assert_str_eq(kept->instead, "/usr/bin/y");
	ck_assert(watch_queue_push(&q, kept));
	for (int i = 0; i < 200; i++) {
		struct watch_job *j;

		__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
		j = watch_job_new(p, 200 + i, "/usr/bin/x", NULL, NULL, 1);
		watch_job_cancel(j, NULL);
		while (!watch_queue_push(&q, j))
			usleep(1000);	/* full: the workers drain it */
	}
	for (int i = 0; i < 5000 && __atomic_load_n(&p->refs, __ATOMIC_ACQUIRE) > 2; i++)
		usleep(1000);
	/* all run and released but the one the test still holds */
	ck_assert_uint_eq(__atomic_load_n(&p->refs, __ATOMIC_ACQUIRE), 2);
	watch_queue_stop(&q);
	ck_assert_uint_eq(kept->refs, 1);
	watch_job_put(kept);
	ck_assert_uint_eq(p->refs, 1);
	watch_pack_put(p);
}
END_TEST

/* A probe job leaves the pack's busy flag (a replay's) alone, and is released. */
START_TEST(test_probe_job)
{
	struct replay_options o = { 0 };
	struct watch_queue q;
	struct watch_pack *p = fake_pack();	/* no pack: nothing to look at, resident */
	struct watch_job *j;
	bool missed = false;

	ck_assert_int_eq(watch_queue_start(&q, &o, 1), 0);
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	j = watch_job_new_probe(p, NULL, 3, &missed);
	ck_assert_ptr_nonnull(j);
	ck_assert(j->probe);
	ck_assert(watch_queue_push(&q, j));
	for (int i = 0; i < 5000 && __atomic_load_n(&p->refs, __ATOMIC_ACQUIRE) > 1; i++)
		usleep(1000);
	ck_assert_uint_eq(__atomic_load_n(&p->refs, __ATOMIC_ACQUIRE), 1);
	ck_assert(p->busy);
	ck_assert(!missed);
	watch_queue_stop(&q);
	watch_pack_put(p);
}
END_TEST

START_TEST(test_names_in_messages)
{
	ck_assert_str_eq(watch_in_root(NULL), "");
	ck_assert_str_eq(watch_root_name(NULL), "");
	ck_assert_str_eq(watch_in_root("/srv/c"), "' in root '");
	ck_assert_str_eq(watch_root_name("/srv/c"), "/srv/c");
	ck_assert_str_eq(watch_in_root("/"), "' in another mount namespace's root");
	ck_assert_str_eq(watch_root_name("/"), "");
}
END_TEST

static Suite *watch_queue_suite(void)
{
	Suite *s = suite_create("watch-queue");
	TCase *tc = tcase_create("watch-queue");

	tcase_add_test(tc, test_full_queue_refuses);
	tcase_add_test(tc, test_workers_take_jobs);
	tcase_add_test(tc, test_probe_job);
	tcase_add_test(tc, test_names_in_messages);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(watch_queue_suite)
