// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay's option parsing: every option in its short, long and --long=arg forms */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-replay.h"
#include "unit.h"

#define ARGV(...) ((char *[]){ "ura-replay", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "ura-replay", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, ...) replay_parse_args(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o)

START_TEST(test_defaults)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "x.pack"), 1);
	ck_assert_str_eq(o.pack, "x.pack");
	ck_assert(!o.all && !o.wait && !o.daemon && !o.json && !o.dry_run && !o.fadvise_random);
	ck_assert_ptr_null(o.root);
	ck_assert_ptr_null(o.mark_stale);
	ck_assert_int_eq(o.stale, REPLAY_STALE_SKIP);
	ck_assert_uint_eq(o.jobs, REPLAY_DEFAULT_JOBS);
	ck_assert_int_eq(o.ioprio, REPLAY_DEFAULT_IOPRIO);
	ck_assert_uint_eq(o.lead_ns, REPLAY_DEFAULT_LEAD_NS);
	ck_assert_int_eq(o.rotational, -1);
	ck_assert_uint_eq(o.chunk, 0);
	ck_assert_uint_eq(o.max_bytes, 0);
	ck_assert_uint_eq(o.min_available, 0);
	ck_assert_uint_eq(o.min_available_pct, REPLAY_DEFAULT_AVAIL_PCT);
	ck_assert_uint_eq(o.request_ns, 0);
	ck_assert_uint_eq(o.bandwidth, 0);
	ck_assert_int_eq(o.verbosity, 0);
}
END_TEST

/* Each flag in its short and long form. */
START_TEST(test_flags)
{
	static const struct {
		char *s, *l;
		size_t field;
	} flags[] = {
		{ "-a", "--all", offsetof(struct replay_options, all) },
		{ "-w", "--wait", offsetof(struct replay_options, wait) },
		{ "-d", "--daemon", offsetof(struct replay_options, daemon) },
		{ "-n", "--dry-run", offsetof(struct replay_options, dry_run) },
		{ "-J", "--json", offsetof(struct replay_options, json) },
	};
	struct replay_options o;

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		ck_assert_int_eq(PARSE(&o, flags[i].s, "p"), 1);
		ck_assert(*(bool *)((char *)&o + flags[i].field));
		ck_assert_int_eq(PARSE(&o, flags[i].l, "p"), 1);
		ck_assert(*(bool *)((char *)&o + flags[i].field));
	}
	ck_assert_int_eq(PARSE(&o, "-awn", "p"), 1);
	ck_assert(o.all && o.wait && o.dry_run);
}
END_TEST

START_TEST(test_jobs)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-j", "3", "p"), 1);
	ck_assert_uint_eq(o.jobs, 3);
	ck_assert_int_eq(PARSE(&o, "--jobs", "4", "p"), 1);
	ck_assert_uint_eq(o.jobs, 4);
	ck_assert_int_eq(PARSE(&o, "--jobs=1", "p"), 1);
	ck_assert_uint_eq(o.jobs, 1);
	ck_assert_int_eq(PARSE(&o, "-j8", "p"), 1);
	ck_assert_uint_eq(o.jobs, 8);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--jobs=0", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--jobs=65", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--jobs=two", "p"), -EINVAL);
}
END_TEST

START_TEST(test_ioprio)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-p", "idle", "p"), 1);
	ck_assert_int_eq(o.ioprio, REPLAY_IOPRIO(REPLAY_IOPRIO_IDLE, 0));
	ck_assert_int_eq(PARSE(&o, "--ioprio", "be:7", "p"), 1);
	ck_assert_int_eq(o.ioprio, REPLAY_IOPRIO(REPLAY_IOPRIO_BE, 7));
	ck_assert_int_eq(PARSE(&o, "--ioprio=rt", "p"), 1);
	ck_assert_int_eq(o.ioprio, REPLAY_IOPRIO(REPLAY_IOPRIO_RT, 4));
	ck_assert_int_eq(PARSE(&o, "--ioprio=rt:0", "p"), 1);
	ck_assert_int_eq(o.ioprio, REPLAY_IOPRIO(REPLAY_IOPRIO_RT, 0));
	ck_assert_int_eq(PARSE(&o, "-pbe", "p"), 1);
	ck_assert_int_eq(o.ioprio, REPLAY_IOPRIO(REPLAY_IOPRIO_BE, 4));
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--ioprio=be:8", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--ioprio=idle:3", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--ioprio=fast", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--ioprio=be:", "p"), -EINVAL);
}
END_TEST

START_TEST(test_lead)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-l", "2", "p"), 1);
	ck_assert_uint_eq(o.lead_ns, 2000000000ull);
	ck_assert_int_eq(PARSE(&o, "--lead", "0.5", "p"), 1);
	ck_assert_uint_eq(o.lead_ns, 500000000ull);
	ck_assert_int_eq(PARSE(&o, "--lead=none", "p"), 1);
	ck_assert_uint_eq(o.lead_ns, 0);
	ck_assert_int_eq(PARSE(&o, "--lead=0", "p"), 1);
	ck_assert_uint_eq(o.lead_ns, 0);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--lead=soon", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--lead=-1", "p"), -EINVAL);
}
END_TEST

START_TEST(test_inflight)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "p"), 1);		/* the default: by each device's model */
	ck_assert_uint_eq(o.inflight, 0);
	ck_assert_uint_eq(o.queue_ns, REPLAY_DEFAULT_QUEUE_NS);
	ck_assert_int_eq(PARSE(&o, "-i", "4M", "p"), 1);
	ck_assert_uint_eq(o.inflight, 4 << 20);
	ck_assert_uint_eq(o.queue_ns, 0);
	ck_assert_int_eq(PARSE(&o, "--inflight=20ms", "p"), 1);
	ck_assert_uint_eq(o.queue_ns, 20000000ull);
	ck_assert_uint_eq(o.inflight, 0);
	ck_assert_int_eq(PARSE(&o, "--inflight", "512K", "p"), 1);
	ck_assert_uint_eq(o.inflight, 512 << 10);
	ck_assert_int_eq(PARSE(&o, "--inflight=none", "p"), 1);
	ck_assert_uint_eq(o.inflight, 0);
	ck_assert_uint_eq(o.queue_ns, 0);
	ck_assert_int_eq(PARSE(&o, "--inflight=8192", "p"), 1);
	ck_assert_uint_eq(o.inflight, 8192);
	ck_assert_int_eq(PARSE(&o, "--inflight", "auto", "p"), 1);
	ck_assert_uint_eq(o.inflight, 0);
	ck_assert_uint_eq(o.queue_ns, REPLAY_QUEUE_AUTO);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--inflight=1K", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--inflight=lots", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--inflight=0ms", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--inflight=ms", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--inflight=-5ms", "p"), -EINVAL);
}
END_TEST

START_TEST(test_probe)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "p"), 1);
	ck_assert_int_eq(o.probe, REPLAY_PROBE_AUTO);
	ck_assert_int_eq(PARSE(&o, "-P", "always", "p"), 1);
	ck_assert_int_eq(o.probe, REPLAY_PROBE_ALWAYS);
	ck_assert_int_eq(PARSE(&o, "--probe=never", "p"), 1);
	ck_assert_int_eq(o.probe, REPLAY_PROBE_NEVER);
	ck_assert_int_eq(PARSE(&o, "--probe", "auto", "p"), 1);
	ck_assert_int_eq(o.probe, REPLAY_PROBE_AUTO);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--probe=sometimes", "p"), -EINVAL);
}
END_TEST

START_TEST(test_root_stale)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-r", "/mnt", "p"), 1);
	ck_assert_str_eq(o.root, "/mnt");
	ck_assert_int_eq(PARSE(&o, "--root", "/a", "p"), 1);
	ck_assert_str_eq(o.root, "/a");
	ck_assert_int_eq(PARSE(&o, "--root=/b", "p"), 1);
	ck_assert_str_eq(o.root, "/b");
	ck_assert_int_eq(PARSE(&o, "-s", "read", "p"), 1);
	ck_assert_int_eq(o.stale, REPLAY_STALE_READ);
	ck_assert_int_eq(PARSE(&o, "--stale", "skip", "p"), 1);
	ck_assert_int_eq(o.stale, REPLAY_STALE_SKIP);
	ck_assert_int_eq(PARSE(&o, "--stale=read", "p"), 1);
	ck_assert_int_eq(o.stale, REPLAY_STALE_READ);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--root=", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--stale=maybe", "p"), -EINVAL);
}
END_TEST

START_TEST(test_rotational)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-R", "yes", "p"), 1);
	ck_assert_int_eq(o.rotational, 1);
	ck_assert_int_eq(PARSE(&o, "--rotational", "no", "p"), 1);
	ck_assert_int_eq(o.rotational, 0);
	ck_assert_int_eq(PARSE(&o, "--rotational=auto", "p"), 1);
	ck_assert_int_eq(o.rotational, -1);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--rotational=sometimes", "p"), -EINVAL);
}
END_TEST

START_TEST(test_sizes)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-c", "128K", "p"), 1);
	ck_assert_uint_eq(o.chunk, 128 << 10);
	ck_assert_int_eq(PARSE(&o, "--chunk", "1M", "p"), 1);
	ck_assert_uint_eq(o.chunk, 1 << 20);
	ck_assert_int_eq(PARSE(&o, "--chunk=8192", "p"), 1);
	ck_assert_uint_eq(o.chunk, 8192);
	ck_assert_int_eq(PARSE(&o, "-m", "512M", "p"), 1);
	ck_assert_uint_eq(o.max_bytes, 512ull << 20);
	ck_assert_int_eq(PARSE(&o, "--max-bytes", "1G", "p"), 1);
	ck_assert_uint_eq(o.max_bytes, 1ull << 30);
	ck_assert_int_eq(PARSE(&o, "--max-bytes=4096", "p"), 1);
	ck_assert_uint_eq(o.max_bytes, 4096);
	ck_assert_int_eq(PARSE(&o, "-M", "256M", "p"), 1);
	ck_assert_uint_eq(o.min_available, 256ull << 20);
	ck_assert_int_eq(PARSE(&o, "--min-available", "20%", "p"), 1);
	ck_assert_uint_eq(o.min_available, 0);
	ck_assert_uint_eq(o.min_available_pct, 20);
	ck_assert_int_eq(PARSE(&o, "--min-available=1G", "p"), 1);
	ck_assert_uint_eq(o.min_available, 1ull << 30);
	ck_assert_int_eq(PARSE(&o, "--min-available=0", "p"), 1);
	ck_assert_uint_eq(o.min_available, 0);
	ck_assert_uint_eq(o.min_available_pct, 0);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--chunk=1K", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--chunk=big", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--max-bytes=lots", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--min-available=101%", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--min-available=%", "p"), -EINVAL);
}
END_TEST

START_TEST(test_cost_model)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-C", "0.008", "p"), 1);
	ck_assert_uint_eq(o.request_ns, 8000000);
	ck_assert_int_eq(PARSE(&o, "--request-cost", "0.0001", "p"), 1);
	ck_assert_uint_eq(o.request_ns, 100000);
	ck_assert_int_eq(PARSE(&o, "--request-cost=1", "p"), 1);
	ck_assert_uint_eq(o.request_ns, 1000000000);
	ck_assert_int_eq(PARSE(&o, "-B", "120M", "p"), 1);
	ck_assert_uint_eq(o.bandwidth, 120ull << 20);
	ck_assert_int_eq(PARSE(&o, "--bandwidth", "2G", "p"), 1);
	ck_assert_uint_eq(o.bandwidth, 2ull << 30);
	ck_assert_int_eq(PARSE(&o, "--bandwidth=1000000", "p"), 1);
	ck_assert_uint_eq(o.bandwidth, 1000000);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--request-cost=0", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--bandwidth=0", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--bandwidth=fast", "p"), -EINVAL);
}
END_TEST

START_TEST(test_fadvise)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-F", "random", "p"), 1);
	ck_assert(o.fadvise_random);
	ck_assert_int_eq(PARSE(&o, "--fadvise", "none", "p"), 1);
	ck_assert(!o.fadvise_random);
	ck_assert_int_eq(PARSE(&o, "--fadvise=random", "p"), 1);
	ck_assert(o.fadvise_random);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--fadvise=sequential", "p"), -EINVAL);
}
END_TEST

START_TEST(test_read_mode)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "p"), 1);
	ck_assert_int_eq(o.read, REPLAY_READ_AUTO);
	ck_assert_int_eq(PARSE(&o, "--read", "ahead", "p"), 1);
	ck_assert_int_eq(o.read, REPLAY_READ_AHEAD);
	ck_assert_int_eq(PARSE(&o, "--read=auto", "p"), 1);
	ck_assert_int_eq(o.read, REPLAY_READ_AUTO);
	ck_assert_int_eq(PARSE(&o, "--read", "wait", "p"), 1);
	ck_assert_int_eq(o.read, REPLAY_READ_WAIT);
	ck_assert_int_eq(PARSE(&o, "--read", "follow", "p"), 1);
	ck_assert_int_eq(o.read, REPLAY_READ_FOLLOW);
	ck_assert_int_eq(PARSE(&o, "--read=ahead", "p"), 1);
	ck_assert_int_eq(o.read, REPLAY_READ_AHEAD);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--read=sync", "p"), -EINVAL);
}
END_TEST

START_TEST(test_mark_stale)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-S", "/run/f", "p"), 1);
	ck_assert_str_eq(o.mark_stale, "/run/f");
	ck_assert_int_eq(PARSE(&o, "--mark-stale", "/a", "p"), 1);
	ck_assert_str_eq(o.mark_stale, "/a");
	ck_assert_int_eq(PARSE(&o, "--mark-stale=/b", "p"), 1);
	ck_assert_str_eq(o.mark_stale, "/b");
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--mark-stale=", "p"), -EINVAL);
}
END_TEST

START_TEST(test_watch)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "p"), 1);
	ck_assert_ptr_null(o.watch_dir);
	ck_assert_uint_eq(o.max_replays, REPLAY_DEFAULT_MAX_REPLAYS);
	ck_assert_int_eq(PARSE(&o, "-W", "/var/lib/ura/programs"), 1);
	ck_assert_str_eq(o.watch_dir, "/var/lib/ura/programs");
	ck_assert_ptr_null(o.pack);
	ck_assert_int_eq(o.probe, REPLAY_PROBE_NEVER);	/* no probe unless asked */
	ck_assert_int_eq(PARSE(&o, "--watch", "/d", "--probe", "auto"), 1);
	ck_assert_str_eq(o.watch_dir, "/d");
	ck_assert_int_eq(o.probe, REPLAY_PROBE_AUTO);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "-x", "5"), 1);
	ck_assert_str_eq(o.watch_dir, "/e");
	ck_assert_uint_eq(o.max_replays, 5);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "--max-replays", "1"), 1);
	ck_assert_uint_eq(o.max_replays, 1);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "--max-replays=64"), 1);
	ck_assert_uint_eq(o.max_replays, 64);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "--watch="), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "p.pack"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "--max-replays=0"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "--max-replays=65"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "--wait"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "--daemon"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "--json"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--watch=/e", "--mark-stale=/f"), -EINVAL);
}
END_TEST

START_TEST(test_verbosity_help_version)
{
	struct replay_options o;

	ck_assert_int_eq(PARSE(&o, "-v", "-v", "--verbose", "p"), 1);
	ck_assert_int_eq(o.verbosity, 3);
	ck_assert_int_eq(PARSE(&o, "-q", "--quiet", "p"), 1);
	ck_assert_int_eq(o.verbosity, -2);
	unit_quiet();
	ck_assert_int_eq(PARSE(&o, "-h"), 0);
	ck_assert_int_eq(PARSE(&o, "--help"), 0);
	ck_assert_int_eq(PARSE(&o, "-V"), 0);
	ck_assert_int_eq(PARSE(&o, "--version"), 0);
}
END_TEST

/* What a bad value and a conflict say (as ura-dump and ura-trace say them). */
START_TEST(test_usage_said)
{
	struct replay_options o;
	char *said;

	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "-j", "0", "p"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "invalid value '0' for --jobs: expected 1 to 64");
	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "--min-available=101%", "p"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "invalid value '101%' for --min-available: "
			       "expected a size such as 256M, or 0-100%");
	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "--daemon", "--wait", "p"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "--daemon and --wait exclude each other");
	unit_stderr_begin();
	ck_assert_int_eq(PARSE(&o, "--no-such-option", "p"), -EINVAL);	/* getopt names it */
	said = unit_stderr_end();
	ck_assert_ptr_nonnull(strstr(said, "'--no-such-option'"));
	unit_assert_usage_said(strdup(strchr(said, '\n') + 1), NULL);	/* then the hint */
	free(said);
}
END_TEST

START_TEST(test_usage_errors)
{
	struct replay_options o;

	unit_quiet();
	ck_assert_int_eq(replay_parse_args(1, (char *[]){ "ura-replay", NULL }, &o), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "a", "b"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--no-such-option", "p"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--jobs"), -EINVAL);
	ck_assert_int_eq(PARSE(&o, "--daemon", "--wait", "p"), -EINVAL);
}
END_TEST

static Suite *cli_replay_suite(void)
{
	Suite *s = suite_create("cli-replay");
	TCase *tc = tcase_create("options");
	tcase_add_checked_fixture(tc, NULL, unit_loud);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_flags);
	tcase_add_test(tc, test_jobs);
	tcase_add_test(tc, test_ioprio);
	tcase_add_test(tc, test_lead);
	tcase_add_test(tc, test_inflight);
	tcase_add_test(tc, test_probe);
	tcase_add_test(tc, test_root_stale);
	tcase_add_test(tc, test_rotational);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_cost_model);
	tcase_add_test(tc, test_fadvise);
	tcase_add_test(tc, test_read_mode);
	tcase_add_test(tc, test_mark_stale);
	tcase_add_test(tc, test_watch);
	tcase_add_test(tc, test_verbosity_help_version);
	tcase_add_test(tc, test_usage_errors);
	tcase_add_test(tc, test_usage_said);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(cli_replay_suite)
