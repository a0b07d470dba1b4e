// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-dump's option parsing: every option in its short, long and --long=arg forms */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cli-dump.h"
#include "unit.h"

#define ARGV(...) ((char *[]){ "ura-dump", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "ura-dump", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, ...) dump_parse_args(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o)

static int saved_stdout = -1, saved_stderr = -1;

/* Help and usage errors print: keep the test log readable, and restore it after each test. */
static void quiet_stderr(void)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	fflush(stderr);
	dup2(null, STDERR_FILENO);
	close(null);
}

static void quiet_stdout(void)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	fflush(stdout);
	dup2(null, STDOUT_FILENO);
	close(null);
}

static void save_fds(void)
{
	saved_stdout = dup(STDOUT_FILENO);
	saved_stderr = dup(STDERR_FILENO);
}

static void restore_fds(void)
{
	fflush(stdout);
	fflush(stderr);
	dup2(saved_stdout, STDOUT_FILENO);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stdout);
	close(saved_stderr);
}

START_TEST(test_defaults)
{
	struct dump_options o;

	ck_assert_int_eq(PARSE(&o, "x.pack"), 1);
	ck_assert_str_eq(o.pack, "x.pack");
	ck_assert_int_eq(o.format, DUMP_TEXT);
	ck_assert_int_eq(o.sort, DUMP_SORT_ACCESS);
	ck_assert_int_eq(o.verbosity, 0);
}
END_TEST

START_TEST(test_sort)
{
	struct dump_options o;

	ck_assert_int_eq(PARSE(&o, "-s", "path", "p"), 1);
	ck_assert_int_eq(o.sort, DUMP_SORT_PATH);
	ck_assert_int_eq(PARSE(&o, "--sort", "size", "p"), 1);
	ck_assert_int_eq(o.sort, DUMP_SORT_SIZE);
	ck_assert_int_eq(PARSE(&o, "--sort=access", "p"), 1);
	ck_assert_int_eq(o.sort, DUMP_SORT_ACCESS);
	ck_assert_int_eq(PARSE(&o, "-ssize", "p"), 1);
	ck_assert_int_eq(o.sort, DUMP_SORT_SIZE);
	quiet_stderr();
	ck_assert_int_eq(PARSE(&o, "--sort=colour", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--sort"), -EINVAL);
}
END_TEST

START_TEST(test_formats)
{
	struct dump_options o;

	ck_assert_int_eq(PARSE(&o, "-S", "p"), 1);
	ck_assert_int_eq(o.format, DUMP_STATS);
	ck_assert_int_eq(PARSE(&o, "--stats", "p"), 1);
	ck_assert_int_eq(o.format, DUMP_STATS);
	ck_assert_int_eq(PARSE(&o, "-J", "p"), 1);
	ck_assert_int_eq(o.format, DUMP_JSON);
	ck_assert_int_eq(PARSE(&o, "--json", "p"), 1);
	ck_assert_int_eq(o.format, DUMP_JSON);
	quiet_stderr();
	ck_assert_int_eq(PARSE(&o, "--json", "--stats", "p"), -EINVAL);
}
END_TEST

START_TEST(test_picture)
{
	struct dump_options o;

	ck_assert_int_eq(PARSE(&o, "p"), 1);
	ck_assert_ptr_null(o.svg);
	ck_assert_uint_eq(o.rows, 150);
	ck_assert_int_eq(PARSE(&o, "--svg", "out.svg", "p"), 1);
	ck_assert_str_eq(o.svg, "out.svg");
	ck_assert_int_eq(PARSE(&o, "--svg=-", "--rows=7", "p"), 1);
	ck_assert_str_eq(o.svg, "-");
	ck_assert_uint_eq(o.rows, 7);
	ck_assert_int_eq(PARSE(&o, "--rows", "0", "--svg", "x", "p"), 1);
	ck_assert_uint_eq(o.rows, 0);
	ck_assert_int_eq(PARSE(&o, "--html", "o.html", "p"), 1);
	ck_assert_str_eq(o.html, "o.html");
	ck_assert_ptr_null(o.svg);
	ck_assert_int_eq(PARSE(&o, "--html=-", "--svg", "o.svg", "--rows", "9", "p"), 1);
	ck_assert_str_eq(o.html, "-");
	ck_assert_str_eq(o.svg, "o.svg");
	ck_assert_uint_eq(o.rows, 9);
	quiet_stderr();
	ck_assert_int_eq(PARSE(&o, "--svg", "x", "--json", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--svg", "x", "--stats", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--svg", "x", "--sort", "size", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--rows", "3", "p"), -EINVAL);		/* no picture */
	ck_assert_int_eq(PARSE(&o, "--rows", "-1", "--svg", "x", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--rows", "4294967296", "--svg", "x", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--svg"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--html", "x", "--json", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--html", "-", "--svg", "-", "p"), -EINVAL);
}
END_TEST

START_TEST(test_compare)
{
	struct dump_options o;

	ck_assert_int_eq(PARSE(&o, "--compare", "a", "b"), 1);
	ck_assert(o.compare);
	ck_assert_str_eq(o.pack, "a");
	ck_assert_str_eq(o.pack_b, "b");
	ck_assert_int_eq(o.format, DUMP_TEXT);
	ck_assert_int_eq(PARSE(&o, "--compare", "--json", "a", "b"), 1);
	ck_assert_int_eq(o.format, DUMP_JSON);
	ck_assert_int_eq(PARSE(&o, "a", "--compare", "--html", "c.html", "b"), 1);
	ck_assert_str_eq(o.html, "c.html");
	ck_assert_int_eq(PARSE(&o, "a"), 1);
	ck_assert(!o.compare);
	ck_assert_ptr_null(o.pack_b);
	quiet_stderr();
	ck_assert_int_eq(PARSE(&o, "--compare", "a"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--compare", "a", "b", "c"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--compare", "--svg", "x", "a", "b"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--compare", "--stats", "a", "b"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--compare", "--sort", "path", "a", "b"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--compare", "--rows", "3", "a", "b"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--compare", "--json", "--html", "x", "a", "b"), -EINVAL);
}
END_TEST

START_TEST(test_verbosity)
{
	struct dump_options o;

	ck_assert_int_eq(PARSE(&o, "-v", "--verbose", "-vv", "p"), 1);
	ck_assert_int_eq(o.verbosity, 4);
	ck_assert_int_eq(PARSE(&o, "-q", "--quiet", "p"), 1);
	ck_assert_int_eq(o.verbosity, -2);
}
END_TEST

/* What a bad value and a conflict say (as ura-replay and ura-trace say them). */
START_TEST(test_usage_said)
{
	struct dump_options o;

	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "--rows", "x", "--svg", "-", "p"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(),
			       "invalid value 'x' for --rows: expected a number of files (0: all)");
	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "-s", "colour", "p"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(),
			       "invalid value 'colour' for --sort: expected access, path or size");
	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "-A", "--mbps=0", "p"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "invalid value '0' for --mbps: expected a whole "
			       "number, 1 to 4294967295");
	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "--json", "--stats", "p"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "--json and --stats exclude each other (the "
			       "JSON holds the totals)");
}
END_TEST

START_TEST(test_help_version_and_errors)
{
	struct dump_options o;

	quiet_stdout();
	ck_assert_int_eq(PARSE(&o, "-h"), 0);
	ck_assert_int_eq(PARSE(&o, "--help"), 0);
	ck_assert_int_eq(PARSE(&o, "-V"), 0);
	ck_assert_int_eq(PARSE(&o, "--version"), 0);
	quiet_stderr();
	ck_assert_int_eq(PARSE(&o, "--bogus", "p"), -EINVAL);
	ck_assert_int_eq(dump_parse_args(1, ARGV(NULL), &o), -EINVAL);	/* no pack */
	ck_assert_int_eq(PARSE(&o, "a", "b"), -EINVAL);			/* two packs */
	ck_assert_int_eq(PARSE(&o, "--", "-odd-name.pack"), 1);
	ck_assert_str_eq(o.pack, "-odd-name.pack");
}
END_TEST

static Suite *cli_dump_suite(void)
{
	Suite *s = suite_create("cli-dump");
	TCase *tc = tcase_create("options");

	tcase_add_checked_fixture(tc, save_fds, restore_fds);

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_sort);
	tcase_add_test(tc, test_formats);
	tcase_add_test(tc, test_picture);
	tcase_add_test(tc, test_compare);
	tcase_add_test(tc, test_verbosity);
	tcase_add_test(tc, test_help_version_and_errors);
	tcase_add_test(tc, test_usage_said);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(cli_dump_suite)
