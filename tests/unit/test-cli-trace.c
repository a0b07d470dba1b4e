// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace's option parsing: every option in its -x, --long and --long=arg forms */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli-trace.h"
#include "learn-packdir.h"
#include "unit.h"

#define ARGV(...) ((char *[]){ "ura-trace", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "ura-trace", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, ...) trace_parse_args(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o)

#define SEC 1000000000ull

START_TEST(test_command_mode)
{
	struct trace_options o;
	char *argv[] = { "ura-trace", "--pack", "p", "--", "cat", "-n", "/etc/x", NULL };

	ck_assert_int_eq(trace_parse_args(7, argv, &o), 1);
	ck_assert_str_eq(o.pack, "p");
	ck_assert_ptr_nonnull(o.argv);
	ck_assert_str_eq(o.argv[0], "cat");
	ck_assert_str_eq(o.argv[1], "-n");	/* the command's options are its own */
	ck_assert_str_eq(o.argv[2], "/etc/x");
	ck_assert_ptr_null(o.argv[3]);
	ck_assert(!o.system && !o.cold && !o.json && !o.input && !o.root);
	ck_assert_uint_eq(o.read_ahead_kb, TRACE_RA_AUTO);	/* per device, from its model */
	ck_assert_int_eq(o.buffer_kb, 0);
	ck_assert_int_eq(o.verbosity, 0);
	trace_options_free(&o);

	/* 'keep' keeps the devices' own values; --system keeps them unless told */
	char *keep[] = { "ura-trace", "-p", "p", "--read-ahead-kb", "keep", "--", "true", NULL };

	ck_assert_int_eq(trace_parse_args(7, keep, &o), 1);
	ck_assert_int_eq(o.read_ahead_kb, 0);
	trace_options_free(&o);
	char *sys[] = { "ura-trace", "-p", "p", "--system", NULL };

	ck_assert_int_eq(trace_parse_args(4, sys, &o), 1);
	ck_assert_int_eq(o.read_ahead_kb, 0);

	/* without "--" the options stop at the command too */
	char *argv2[] = { "ura-trace", "-p", "p", "ls", "-l", NULL };

	ck_assert_int_eq(trace_parse_args(5, argv2, &o), 1);
	ck_assert_str_eq(o.argv[0], "ls");
	ck_assert_str_eq(o.argv[1], "-l");
}
END_TEST

START_TEST(test_pack)
{
	struct trace_options o;

	ck_assert_int_eq(PARSE(&o, "-p", "a", "true"), 1);
	ck_assert_str_eq(o.pack, "a");
	ck_assert_int_eq(PARSE(&o, "-pb", "true"), 1);
	ck_assert_str_eq(o.pack, "b");
	ck_assert_int_eq(PARSE(&o, "--pack", "c", "true"), 1);
	ck_assert_str_eq(o.pack, "c");
	ck_assert_int_eq(PARSE(&o, "--pack=d", "true"), 1);
	ck_assert_str_eq(o.pack, "d");
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "true"), -EINVAL);		/* no pack */
	ck_assert_int_eq(PARSE(&o, "--pack="), -EINVAL);	/* empty */
	ck_assert_int_eq(PARSE(&o, "--pack"), -EINVAL);		/* no argument */
}
END_TEST

START_TEST(test_system)
{
	struct trace_options o;

	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s"), 1);
	ck_assert(o.system);
	ck_assert_ptr_null(o.argv);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--system"), 1);
	ck_assert(o.system);

	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "-d", "30"), 1);
	ck_assert_uint_eq(o.duration_ns, 30 * SEC);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "--duration", "1.5"), 1);
	ck_assert_uint_eq(o.duration_ns, 3 * SEC / 2);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "--duration=2"), 1);
	ck_assert_uint_eq(o.duration_ns, 2 * SEC);

	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "-i", "5"), 1);
	ck_assert_uint_eq(o.until_idle_ns, 5 * SEC);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "--until-idle", "0.25"), 1);
	ck_assert_uint_eq(o.until_idle_ns, SEC / 4);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "--until-idle=3"), 1);
	ck_assert_uint_eq(o.until_idle_ns, 3 * SEC);

	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "true"), -EINVAL);	/* both */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-d", "3", "true"), -EINVAL);	/* needs -s */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-i", "3", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "-d", "0"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "-d", "x"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "--until-idle=-1"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p"), -EINVAL);	/* nothing to trace */
}
END_TEST

START_TEST(test_cold_and_read_ahead)
{
	struct trace_options o;

	ck_assert_int_eq(PARSE(&o, "-p", "p", "-c", "true"), 1);
	ck_assert(o.cold);
	ck_assert_uint_eq(o.read_ahead_kb, TRACE_RA_AUTO);	/* a cold trace too */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--exact", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_kb, TRACE_RA_EXACT);	/* a page at a time */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-x", "--cold", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_kb, 4);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-r", "auto", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_kb, TRACE_RA_AUTO);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--cold", "true"), 1);
	ck_assert(o.cold);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--cold", "-r", "keep", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_kb, 0);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-r", "keep", "--cold", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_kb, 0);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--cold", "-r", "64", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_kb, 64);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--read-ahead-kb", "keep", "true"), 1);
	ck_assert(!o.cold);
	ck_assert_uint_eq(o.read_ahead_kb, 0);

	ck_assert_int_eq(PARSE(&o, "-p", "p", "-r", "4", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_kb, 4);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--read-ahead-kb", "128", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_kb, 128);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--read-ahead-kb=16", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_kb, 16);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-r", "0", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-r", "-4", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-r", "4k", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-r", "99999999999", "true"), -EINVAL);
}
END_TEST

START_TEST(test_root_input_buffer)
{
	struct trace_options o;

	ck_assert_int_eq(PARSE(&o, "-p", "p", "-R", "/srv/img", "true"), 1);
	ck_assert_str_eq(o.root, "/srv/img");
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--root", "/a", "true"), 1);
	ck_assert_str_eq(o.root, "/a");
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--root=/b", "true"), 1);
	ck_assert_str_eq(o.root, "/b");

	ck_assert_int_eq(PARSE(&o, "-p", "p", "-I", "trace.dat"), 1);
	ck_assert_str_eq(o.input, "trace.dat");
	ck_assert_ptr_null(o.argv);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--input", "t.dat"), 1);
	ck_assert_str_eq(o.input, "t.dat");
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--input=u.dat"), 1);
	ck_assert_str_eq(o.input, "u.dat");

	ck_assert_int_eq(PARSE(&o, "-p", "p", "-b", "4M", "true"), 1);
	ck_assert_uint_eq(o.buffer_kb, 4096);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--buffer-size", "512K", "true"), 1);
	ck_assert_uint_eq(o.buffer_kb, 512);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--buffer-size=1G", "true"), 1);
	ck_assert_uint_eq(o.buffer_kb, 1024 * 1024);

	ck_assert_int_eq(PARSE(&o, "-p", "p", "true"), 1);
	ck_assert_int_eq(o.events, TRACE_EVENTS_ALL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-e", "add", "true"), 1);
	ck_assert_int_eq(o.events, TRACE_EVENTS_ADD);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--events", "access", "true"), 1);
	ck_assert_int_eq(o.events, TRACE_EVENTS_ACCESS);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--events=all", "true"), 1);
	ck_assert_int_eq(o.events, TRACE_EVENTS_ALL);
	ck_assert(!o.no_access_log);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--no-access-log", "true"), 1);
	ck_assert(o.no_access_log);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--no-access-log", "-I", "t.dat"), 1);

	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--events=some", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-R", "rel", "true"), -EINVAL);	/* not absolute */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-I", "t.dat", "true"), -EINVAL);	/* both */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-I", "t.dat", "-c"), -EINVAL);	/* live only */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-I", "t.dat", "-r", "8"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-I", "t.dat", "--exact"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-I", "t.dat", "--no-evict"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "--no-evict"), -EINVAL);
	/* --read-ahead-for: a command's, seconds > 0, 60 s unless given */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_for_ns, TRACE_RA_FOR_NS);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--read-ahead-for", "2.5", "true"), 1);
	ck_assert_uint_eq(o.read_ahead_for_ns, 2500000000ull);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--read-ahead-for", "0", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--read-ahead-for", "x", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-s", "--read-ahead-for", "5"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-I", "t.dat", "--read-ahead-for", "5"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch", "d", "--read-ahead-for", "5"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-b", "1", "true"), -EINVAL);	/* too small */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-b", "x", "true"), -EINVAL);
}
END_TEST

START_TEST(test_output_options)
{
	struct trace_options o;

	ck_assert_int_eq(PARSE(&o, "-p", "p", "-J", "true"), 1);
	ck_assert(o.json);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--json", "true"), 1);
	ck_assert(o.json);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-v", "-v", "true"), 1);
	ck_assert_int_eq(o.verbosity, 2);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--verbose", "-vv", "true"), 1);
	ck_assert_int_eq(o.verbosity, 3);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-q", "true"), 1);
	ck_assert_int_eq(o.verbosity, -1);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--quiet", "true"), 1);
	ck_assert_int_eq(o.verbosity, -1);
}
END_TEST

START_TEST(test_probe)
{
	struct trace_options o;

	ck_assert_int_eq(PARSE(&o, "-p", "p", "true"), 1);
	ck_assert_int_eq(o.probe, 0);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "-P", "never", "true"), 1);
	ck_assert_int_eq(o.probe, -1);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--probe=always", "true"), 1);
	ck_assert_int_eq(o.probe, 1);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--probe", "auto", "true"), 1);
	ck_assert_int_eq(o.probe, 0);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--probe=maybe", "true"), -EINVAL);
}
END_TEST

START_TEST(test_help_version)
{
	struct trace_options o;

	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "-h"), 0);
	ck_assert_int_eq(PARSE(&o, "--help"), 0);
	ck_assert_int_eq(PARSE(&o, "-V"), 0);
	ck_assert_int_eq(PARSE(&o, "--version"), 0);
	ck_assert_int_eq(PARSE(&o, "--bogus"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-x"), -EINVAL);
}
END_TEST

/* --help: util-linux layout, within 80 columns, ends with the man page. */
START_TEST(test_usage_text)
{
	char buf[8192] = "";
	size_t n;
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	char *line, *save = NULL;

	ck_assert_ptr_nonnull(f);
	trace_usage(f);
	n = (size_t)ftell(f);
	fclose(f);
	buf[n] = '\0';
	ck_assert(strncmp(buf, "Usage:\n", 7) == 0);
	ck_assert_ptr_nonnull(strstr(buf, "\nOptions:\n"));
	ck_assert_ptr_nonnull(strstr(buf, "slows the whole"));	/* --cold warns */
	ck_assert(n > 20 && strcmp(buf + n - 18, "See ura-trace(8).\n") == 0);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ck_assert_msg(strlen(line) <= 80, "line too long: %s", line);
}
END_TEST

/* What a bad value and a conflict say (as ura-dump and ura-replay say them). */
START_TEST(test_usage_said)
{
	struct trace_options o;

	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "--merge", "-k", "0", "--pack", "x", "a"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(),
			       "invalid value '0' for --keep-runs: expected 1 to 64");
	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "--pack", "x", "--read-ahead-kb=2", "true"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "invalid value '2' for --read-ahead-kb: "
			       "expected 'auto', 'keep' or 4 to 1048576");
	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "--pack", "", "true"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "invalid value '' for --pack: expected a file name");
	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "--pack", "x"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(),
			       "nothing to trace: give a COMMAND, --system or --input");
}
END_TEST

START_TEST(test_merge)
{
	struct trace_options o;
	char *argv[] = { "ura-trace", "--merge", "--pack", "out", "a", "b", "out", NULL };

	/* o.argv points into argv: a compound literal of PARSE() would be gone by now */
	ck_assert_int_eq(trace_parse_args(7, argv, &o), 1);
	ck_assert(o.merge);
	ck_assert_str_eq(o.pack, "out");
	ck_assert_str_eq(o.argv[0], "a");
	ck_assert_str_eq(o.argv[2], "out");	/* the output may be an input */
	ck_assert_ptr_null(o.argv[3]);
	ck_assert(o.min_confidence == 0.6);	/* the default */
	ck_assert_uint_eq(o.keep_runs, 0);

	ck_assert_int_eq(PARSE(&o, "-m", "-C", "0.5", "-k", "3", "-p", "o", "a"), 1);
	ck_assert(o.merge && o.min_confidence == 0.5);
	ck_assert_uint_eq(o.keep_runs, 3);
	ck_assert_int_eq(PARSE(&o, "-m", "-C0.75", "-k10", "-po", "a"), 1);
	ck_assert(o.min_confidence == 0.75);
	ck_assert_uint_eq(o.keep_runs, 10);
	ck_assert_int_eq(PARSE(&o, "--merge", "--min-confidence", "1", "--keep-runs", "64",
			       "--pack", "o", "a"), 1);
	ck_assert(o.min_confidence == 1.0);
	ck_assert_uint_eq(o.keep_runs, 64);
	ck_assert_int_eq(PARSE(&o, "--merge", "--min-confidence=0.25", "--keep-runs=1",
			       "--pack=o", "--json", "-q", "a"), 1);
	ck_assert(o.min_confidence == 0.25 && o.json);
	ck_assert_uint_eq(o.keep_runs, 1);

	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--merge", "--pack", "o"), -EINVAL);	/* no input */
	ck_assert_int_eq(PARSE(&o, "--merge", "a"), -EINVAL);			/* no --pack */
	ck_assert_int_eq(PARSE(&o, "--merge", "--pack", "o", ""), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--merge", "--system", "--pack", "o", "a"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--merge", "--cold", "--pack", "o", "a"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--merge", "--no-access-log", "--pack", "o", "a"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch", "d", "--no-access-log"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch", "d", "--exact"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch", "d", "--no-evict"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--merge", "-x", "--pack", "o", "a"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--merge", "-I", "x", "--pack", "o", "a"), -EINVAL);
	for (size_t i = 0; i < 6; i++) {
		static const char *const bad[] = { "0", "-0.5", "1.01", "x", "0.5x", "" };

		ck_assert_int_eq(PARSE(&o, "-m", "-C", (char *)bad[i], "-p", "o", "a"), -EINVAL);
	}
	ck_assert_int_eq(PARSE(&o, "-m", "-k", "0", "-p", "o", "a"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-m", "-k", "65", "-p", "o", "a"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-m", "-k", "2x", "-p", "o", "a"), -EINVAL);
	/* the merge options need --merge */
	ck_assert_int_eq(PARSE(&o, "-C", "0.5", "-p", "o", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-k", "2", "-p", "o", "true"), -EINVAL);
}
END_TEST

START_TEST(test_watch_bounds)
{
	struct trace_options o;

	ck_assert_int_eq(PARSE(&o, "--watch", "d"), 1);
	ck_assert(!o.include_user_files);
	ck_assert_uint_eq(o.max_packs, PACKDIR_MAX_PACKS);
	ck_assert_uint_eq(o.max_size, PACKDIR_MAX_BYTES);
	ck_assert_uint_eq(o.learn_interval_ns, LEARN_INTERVAL_NS);
	ck_assert_int_eq(PARSE(&o, "-w", "d", "--include-user-files", "--max-packs", "10",
			       "--max-size", "1M", "--learn-interval", "0"), 1);
	ck_assert(o.include_user_files);
	ck_assert_uint_eq(o.max_packs, 10);
	ck_assert_uint_eq(o.max_size, 1 << 20);
	ck_assert_uint_eq(o.learn_interval_ns, 0);	/* no limit */
	ck_assert_int_eq(PARSE(&o, "-w", "d", "--max-packs=2", "--max-size=64K",
			       "--learn-interval=1.5"), 1);
	ck_assert_uint_eq(o.max_packs, 2);
	ck_assert_uint_eq(o.max_size, 64 << 10);
	ck_assert_uint_eq(o.learn_interval_ns, 1500000000ull);

	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "-w", "d", "--max-packs", "0"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-w", "d", "--max-packs", "x"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-w", "d", "--max-size", "0"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-w", "d", "--max-size", "1Q"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-w", "d", "--learn-interval", "-1"), -EINVAL);
	/* they need --watch */
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--include-user-files", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--max-packs", "3", "true"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-m", "--max-size", "3M", "-p", "o", "a"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "-p", "p", "--learn-interval", "3", "true"), -EINVAL);
}
END_TEST

static Suite *cli_trace_suite(void)
{
	Suite *s = suite_create("cli-trace");
	TCase *tc = tcase_create("parse");
	tcase_add_checked_fixture(tc, NULL, unit_loud);
	tcase_add_test(tc, test_command_mode);
	tcase_add_test(tc, test_probe);
	tcase_add_test(tc, test_pack);
	tcase_add_test(tc, test_system);
	tcase_add_test(tc, test_cold_and_read_ahead);
	tcase_add_test(tc, test_root_input_buffer);
	tcase_add_test(tc, test_output_options);
	tcase_add_test(tc, test_help_version);
	tcase_add_test(tc, test_usage_text);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_watch_bounds);
	tcase_add_test(tc, test_usage_said);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(cli_trace_suite)
