// SPDX-License-Identifier: GPL-2.0-or-later
/* learn-quiet: the exec filter of the programs refused until due, its names, and its writes */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn-quiet.h"
#include "unit.h"

#define S	1000000000ull

START_TEST(test_filter_string)
{
	const char *names[] = { "/usr/bin/true", "/bin/true" };
	char buf[QUIET_FILTER_MAX], small[40];

	ck_assert_uint_eq(quiet_filter(names, 2, buf, sizeof(buf)), 2);
	ck_assert_str_eq(buf, "filename!=\"/usr/bin/true\"&&filename!=\"/bin/true\"");
	/* what does not fit is left out whole; nothing at all clears the filter */
	ck_assert_uint_eq(quiet_filter(names, 2, small, sizeof(small)), 1);
	ck_assert_str_eq(small, "filename!=\"/usr/bin/true\"");
	ck_assert_uint_eq(quiet_filter(names, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0");
}
END_TEST

START_TEST(test_names)
{
	char longname[QUIET_NAME_MAX + 2];

	ck_assert(quiet_name_ok("/usr/bin/x86_64-linux-gnu-gcc-12"));
	ck_assert(quiet_name_ok("/usr/lib/jvm/java-17/bin/java"));
	ck_assert(!quiet_name_ok("true"));			/* relative */
	ck_assert(!quiet_name_ok("/tmp/a\"||1||\"b"));		/* would end the string */
	ck_assert(!quiet_name_ok("/tmp/a b"));
	ck_assert(!quiet_name_ok("/tmp/*"));			/* a glob elsewhere */
	ck_assert(!quiet_name_ok("/tmp/a\\b"));
	memset(longname, 'a', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = 0;
	ck_assert(!quiet_name_ok(longname));
	longname[QUIET_NAME_MAX] = 0;
	ck_assert(quiet_name_ok(longname));
}
END_TEST

static char *read_all(const char *path)
{
	static char buf[QUIET_FILTER_MAX + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	buf[n] = 0;
	return buf;
}

/* The file written is the filter of the names not yet due, at most one write per gap. */
static void wait_writes(struct quiet *q, uint64_t n)
{
	struct quiet_stats st;

	for (int i = 0; i < 500; i++) {
		quiet_get_stats(q, &st);
		if (st.writes >= n)
			return;
		usleep(10000);
	}
	ck_abort_msg("the thread wrote %" PRIu64 " filters, not %" PRIu64, st.writes, n);
}

START_TEST(test_added_written_and_due)
{
	char path[] = "/tmp/ura-quiet-XXXXXX";
	int fd = mkstemp(path);
	struct quiet *q;
	struct quiet_stats st;
	uint64_t t = 100 * S;

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(quiet_new(path, NULL, &q), 0);
	ck_assert(quiet_add(q, "/usr/bin/true", t + 600 * S));
	ck_assert(!quiet_add(q, "/usr/bin/true", t + 700 * S));	/* known: later, same list */
	ck_assert(!quiet_add(q, "python3", t + 600 * S));
	ck_assert(quiet_has(q, "/usr/bin/true"));
	ck_assert(!quiet_has(q, "/usr/bin/tru"));
	ck_assert_uint_eq(quiet_next_ns(q, t), t);		/* a write to make: now */
	quiet_update(q, t);
	wait_writes(q, 1);
	ck_assert_str_eq(read_all(path), "filename!=\"/usr/bin/true\"");
	ck_assert(quiet_in_force(q, "/usr/bin/true"));
	ck_assert(!quiet_in_force(q, "/usr/bin/tru"));
	ck_assert_uint_eq(quiet_next_ns(q, t + 1), t + 700 * S);	/* written: the name due */
	/* another name within the gap waits for it */
	ck_assert(quiet_add(q, "/bin/ls", t + 10 * S));
	ck_assert(!quiet_in_force(q, "/bin/ls"));		/* listed, not written yet */
	ck_assert_uint_eq(quiet_next_ns(q, t + 1 * S), t + QUIET_GAP_NS);
	quiet_update(q, t + 1 * S);
	usleep(50000);
	quiet_get_stats(q, &st);
	ck_assert_uint_eq(st.writes, 1);
	quiet_update(q, t + QUIET_GAP_NS);
	wait_writes(q, 2);
	ck_assert_str_eq(read_all(path), "filename!=\"/usr/bin/true\"&&filename!=\"/bin/ls\"");
	/* due: left out of the filter, so the next exec is seen; true's later time was kept */
	quiet_update(q, t + 601 * S);
	wait_writes(q, 3);
	ck_assert_str_eq(read_all(path), "filename!=\"/usr/bin/true\"");
	quiet_update(q, t + 701 * S);
	wait_writes(q, 4);
	ck_assert_str_eq(read_all(path), "0");
	quiet_get_stats(q, &st);
	ck_assert_uint_eq(st.names, 0);
	ck_assert_uint_eq(st.added, 2);
	ck_assert_int_eq(st.last_error, 0);
	quiet_free(q);
	unlink(path);
}
END_TEST

/* A full list gives up the name due first, only for one due later. */
START_TEST(test_full)
{
	struct quiet *q;
	char name[32];
	struct quiet_stats st;

	ck_assert_int_eq(quiet_new("/nonexistent/filter", NULL, &q), 0);
	for (int i = 0; i < QUIET_MAX; i++) {
		snprintf(name, sizeof(name), "/usr/bin/p%d", i);
		ck_assert(quiet_add(q, name, (uint64_t)(100 + i) * S));
	}
	ck_assert(!quiet_add(q, "/usr/bin/early", 50 * S));
	ck_assert(quiet_add(q, "/usr/bin/late", 1000 * S));
	quiet_get_stats(q, &st);
	ck_assert_uint_eq(st.names, QUIET_MAX);
	/* p0 (due at 100 s) was given up: at 100.5 s nothing is due */
	quiet_update(q, 100 * S + S / 2);
	quiet_get_stats(q, &st);
	ck_assert_uint_eq(st.names, QUIET_MAX);
	/* a write that fails is counted, with its error, and tried again a gap later */
	wait_writes(q, 1);
	quiet_get_stats(q, &st);
	ck_assert_int_lt(st.last_error, 0);
	quiet_update(q, 101 * S);
	usleep(50000);
	quiet_get_stats(q, &st);
	ck_assert_uint_eq(st.writes, 1);
	quiet_update(q, 100 * S + S / 2 + QUIET_GAP_NS);
	wait_writes(q, 2);
	quiet_free(q);
}
END_TEST

/* Task names: the kernel's base name cut at 15, written to every file; a name barred stays out. */
START_TEST(test_comm)
{
	char a[] = "/tmp/ura-quiet-XXXXXX", b[] = "/tmp/ura-quiet-XXXXXX", comm[QUIET_COMM_MAX + 1];
	const char *paths[] = { a, b };
	struct quiet *q;
	uint64_t t = 100 * S;
	int fd;

	ck_assert(quiet_comm_of("/usr/bin/x86_64-linux-gnu-gcc-12", comm, sizeof(comm)));
	ck_assert_str_eq(comm, "x86_64-linux-gn");
	ck_assert(quiet_comm_of("/bin/true", comm, sizeof(comm)));
	ck_assert_str_eq(comm, "true");
	ck_assert(!quiet_comm_of("/bin/a\"b", comm, sizeof(comm)));	/* would end the string */
	ck_assert(!quiet_comm_of("/usr/bin/", comm, sizeof(comm)));		/* no name */
	ck_assert(!quiet_comm_ok("/bin/true"));
	fd = mkstemp(a);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = mkstemp(b);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(quiet_new_comm(paths, 2, NULL, &q), 0);
	ck_assert(!quiet_add(q, "/bin/true", t + 600 * S));	/* a file name is not a task name */
	ck_assert(quiet_add(q, "true", t + 600 * S));
	ck_assert(quiet_add(q, "sort", t + 600 * S));
	quiet_update(q, t);
	wait_writes(q, 1);
	ck_assert_str_eq(read_all(a), "comm!=\"true\"&&comm!=\"sort\"");
	ck_assert_str_eq(read_all(b), "comm!=\"true\"&&comm!=\"sort\"");
	ck_assert(quiet_in_force(q, "sort"));
	/* a name barred (a program of it started in a window) leaves, and is never added again */
	quiet_bar(q, "sort");
	ck_assert(!quiet_has(q, "sort"));
	ck_assert(!quiet_add(q, "sort", t + 900 * S));
	quiet_update(q, t + QUIET_GAP_NS);
	wait_writes(q, 2);
	ck_assert_str_eq(read_all(b), "comm!=\"true\"");
	ck_assert(!quiet_in_force(q, "sort"));
	quiet_free(q);
	unlink(a);
	unlink(b);
}
END_TEST

static Suite *learn_quiet_suite(void)
{
	Suite *s = suite_create("learn-quiet");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_filter_string);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_added_written_and_due);
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_comm);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(learn_quiet_suite)
