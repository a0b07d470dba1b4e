// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay --watch's index of pack names: which execs no pack can be for */
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "watch-names.h"
#include "key.h"
#include "unit.h"

#define LATER	(INT64_MAX / 2)		/* a "now" long after any directory change */

static char *dir;
static char packs[600];

static void setup(void)
{
	dir = unit_mkdtemp();
	snprintf(packs, sizeof(packs), "%s/packs", dir);
	ck_assert_int_eq(mkdir(packs, 0700), 0);
}

static void teardown(void)
{
	unit_rmtree(dir);
	free(dir);
}

/* an empty pack file named for (@root_id, @path) */
static void touch_pack(uint64_t root_id, const char *path)
{
	char name[NAME_MAX + 1], file[PATH_MAX];
	FILE *f;

	ck_assert_int_gt(key_pack_name(root_id, path, name, sizeof(name)), 0);
	snprintf(file, sizeof(file), "%s/%s", packs, name);
	f = fopen(file, "we");
	ck_assert_ptr_nonnull(f);
	fclose(f);
}

START_TEST(test_host_names)
{
	struct watch_names x;

	ck_assert_int_eq(watch_names_init(&x, packs), 0);
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/cc1", LATER));	/* empty */
	touch_pack(0, "/usr/bin/cc1");
	/* the directory changed: read again */
	ck_assert(watch_names_may_have(&x, 0, "/usr/bin/cc1", LATER + 1));
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/cc", LATER + 1));
	ck_assert(!watch_names_may_have(&x, 0, "/srv/usr/bin/cc1", LATER + 1));
	ck_assert(!watch_names_may_have(&x, 0, "/bin/cc1", LATER + 1));
	/* a file that is no pack is no name */
	{
		char f[PATH_MAX];
		FILE *o;

		snprintf(f, sizeof(f), "%s/usr-bin-ls.pack.tmp", packs);
		o = fopen(f, "we");
		fclose(o);
		ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/ls", LATER + 2));
	}
	watch_names_free(&x);
}
END_TEST

/* A pack written is told by the directory's descriptor, and read at once. */
START_TEST(test_notified)
{
	struct watch_names x;
	struct pollfd p;

	ck_assert_int_eq(watch_names_init(&x, packs), 0);
	ck_assert_int_eq(watch_names_notify_fd(&x), -1);	/* not read yet: not watched */
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/cc1", LATER));
	p = (struct pollfd){ .fd = watch_names_notify_fd(&x), .events = POLLIN };
	if (p.fd < 0) {
		watch_names_free(&x);
		return;		/* no inotify here: the caller looks every second */
	}
	ck_assert_int_eq(poll(&p, 1, 0), 0);
	ck_assert(!watch_names_notified(&x, LATER + 1));
	/* a writer's temporary file is no pack: not read again for it */
	{
		char f[PATH_MAX];
		FILE *o;

		snprintf(f, sizeof(f), "%s/usr-bin-ls.pack.Xy12ab", packs);
		o = fopen(f, "we");
		ck_assert_ptr_nonnull(o);
		fclose(o);
		ck_assert_int_eq(poll(&p, 1, 1000), 1);
		ck_assert(!watch_names_notified(&x, LATER + 1));
		ck_assert_uint_eq(x.n, 0);
	}
	touch_pack(0, "/usr/bin/cc1");
	ck_assert_int_eq(poll(&p, 1, 1000), 1);
	ck_assert(watch_names_notified(&x, LATER + 1));
	ck_assert_int_eq(poll(&p, 1, 0), 0);			/* taken */
	ck_assert_uint_eq(x.n, 1);				/* read again */
	watch_names_free(&x);
}
END_TEST

START_TEST(test_other_roots)
{
	struct watch_names x;

	touch_pack(0x1234abcd, "/usr/bin/python3.11");
	ck_assert_int_eq(watch_names_init(&x, packs), 0);
	/* a root's program: by its path in that root, never by the host's path */
	ck_assert(watch_names_may_have(&x, 0x1234abcd, "/usr/bin/python3.11", LATER));
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/python3.11", LATER));
	ck_assert(!watch_names_may_have(&x, 0x1234abce, "/usr/bin/python3.11", LATER));
	ck_assert(!watch_names_may_have(&x, 0x1234abcd, "/usr/bin/python3.12", LATER));
	/* the host's file of that path may be the one the root runs (a bind mount): not ignored */
	ck_assert(watch_names_in_other_roots(&x, "/usr/bin/python3.11"));
	ck_assert(!watch_names_in_other_roots(&x, "/usr/bin/python3.12"));
	ck_assert(!watch_names_in_other_roots(&x, "/bin/python3.11"));
	/* long names end in a digest of the whole name, root included */
	{
		char longpath[400];

		memset(longpath, 'a', sizeof(longpath) - 1);
		longpath[0] = '/';
		longpath[sizeof(longpath) - 1] = '\0';
		touch_pack(0x1234abcd, longpath);
		ck_assert(watch_names_may_have(&x, 0x1234abcd, longpath, LATER));
		ck_assert(!watch_names_may_have(&x, 0, longpath, LATER));
		/* a digest may be of any path */
		ck_assert(watch_names_in_other_roots(&x, "/usr/bin/python3.12"));
	}
	watch_names_free(&x);
}
END_TEST

/* A directory that changed a moment ago is read again, even though its mtime did not move. */
START_TEST(test_racy_and_missing)
{
	struct watch_names x;
	struct timespec now;
	int64_t now_ns;
	uint64_t reads;

	clock_gettime(CLOCK_REALTIME, &now);
	now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	ck_assert_int_eq(watch_names_init(&x, packs), 0);
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/a", now_ns));
	reads = x.reads;
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/a", now_ns + 1000000));
	ck_assert_uint_eq(x.reads, reads);		/* read 1 ms ago: kept */
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/a", now_ns + 11000000));
	ck_assert_uint_eq(x.reads, reads + 1);		/* racy, 11 ms later: read again */
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/a", LATER));
	ck_assert_uint_eq(x.reads, reads + 2);		/* still racy */
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/a", LATER + 1000000000));
	ck_assert_uint_eq(x.reads, reads + 2);		/* read long after the change: kept */
	unit_rmtree(packs);
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/a", LATER));	/* no directory */
	ck_assert_int_eq(mkdir(packs, 0700), 0);
	touch_pack(0, "/usr/bin/a");
	ck_assert(watch_names_may_have(&x, 0, "/usr/bin/a", LATER));	/* made again */
	watch_names_free(&x);
}
END_TEST

/*
 * A pack rewritten in place (a file renamed over it, as packs are written) is
 * a read of the directory that adds no name: the daemon keeps the files it
 * ignores. A name new, or back after it went, is one.
 */
START_TEST(test_added)
{
	char name[NAME_MAX + 1], file[PATH_MAX], tmp[PATH_MAX];
	struct watch_names x;
	uint64_t reads, added;
	FILE *f;

	ck_assert_int_eq(watch_names_init(&x, packs), 0);
	touch_pack(0, "/usr/bin/a");
	ck_assert(watch_names_may_have(&x, 0, "/usr/bin/a", LATER));
	reads = x.reads;
	added = x.added;
	ck_assert_int_gt(key_pack_name(0, "/usr/bin/a", name, sizeof(name)), 0);
	snprintf(file, sizeof(file), "%s/%s", packs, name);
	snprintf(tmp, sizeof(tmp), "%s/%s.XXXXXX", packs, name);
	f = fopen(tmp, "we");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(rename(tmp, file), 0);
	ck_assert(watch_names_may_have(&x, 0, "/usr/bin/a", LATER + 2000000000));
	ck_assert_uint_eq(x.reads, reads + 1);
	ck_assert_uint_eq(x.added, added);		/* rewritten: no name added */
	touch_pack(0, "/usr/bin/b");
	ck_assert(watch_names_may_have(&x, 0, "/usr/bin/b", LATER + 4000000000));
	ck_assert_uint_eq(x.added, added + 1);		/* a new name */
	ck_assert_int_eq(unlink(file), 0);
	ck_assert(!watch_names_may_have(&x, 0, "/usr/bin/a", LATER + 6000000000));
	ck_assert_uint_eq(x.added, added + 1);		/* one gone: none added */
	touch_pack(0, "/usr/bin/a");
	ck_assert(watch_names_may_have(&x, 0, "/usr/bin/a", LATER + 8000000000));
	ck_assert_uint_eq(x.added, added + 2);		/* back */
	/* told by inotify (as the daemon's loop is): a rewrite adds no name either */
	ck_assert_int_ge(watch_names_notify_fd(&x), 0);
	reads = x.reads;
	f = fopen(tmp, "we");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(rename(tmp, file), 0);
	ck_assert(watch_names_notified(&x, LATER + 8000000000));
	ck_assert_uint_eq(x.reads, reads + 1);
	ck_assert_uint_eq(x.added, added + 2);
	touch_pack(0, "/usr/bin/c");
	ck_assert(watch_names_notified(&x, LATER + 8000000001));
	ck_assert_uint_eq(x.added, added + 3);		/* a new name, told */
	watch_names_free(&x);
}
END_TEST

/* A directory that cannot be read answers "maybe": the lookup decides, as without the index. */
START_TEST(test_unreadable_is_maybe)
{
	struct watch_names x;
	char file[PATH_MAX];
	FILE *f;

	snprintf(file, sizeof(file), "%s/file", dir);
	f = fopen(file, "we");
	fclose(f);
	ck_assert_int_eq(watch_names_init(&x, file), 0);	/* not a directory */
	ck_assert(watch_names_may_have(&x, 0, "/usr/bin/a", LATER));
	watch_names_free(&x);
}
END_TEST

static Suite *watch_names_suite(void)
{
	Suite *s = suite_create("watch-names");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_host_names);
	tcase_add_test(tc, test_notified);
	tcase_add_test(tc, test_other_roots);
	tcase_add_test(tc, test_racy_and_missing);
	tcase_add_test(tc, test_added);
	tcase_add_test(tc, test_unreadable_is_maybe);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(watch_names_suite)
