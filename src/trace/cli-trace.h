/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-trace's command line */
#ifndef URA_CLI_TRACE_H
#define URA_CLI_TRACE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* --events: which events to trace, cheapest first */
enum trace_events {
	TRACE_EVENTS_ALL,	/* additions, access events and fault addresses (default) */
	TRACE_EVENTS_ACCESS,	/* additions and access events: whole fault-around windows */
	TRACE_EVENTS_ADD,	/* additions only: every page counts as demanded */
};

/* --read-ahead-kb auto: per device, from its cost model (rakb_for_model()) */
#define TRACE_RA_AUTO		UINT_MAX
/* --exact: a page at a time, every page added one the run read */
#define TRACE_RA_EXACT		4u

struct trace_options {
	const char *pack;		/* --pack FILE */
	char **argv;			/* the command after the options, NULL-terminated, or NULL */
	bool system;			/* --system */
	uint64_t duration_ns;		/* --duration SEC, 0 if not given */
	uint64_t until_idle_ns;		/* --until-idle SEC, 0 if not given */
	bool cold;			/* --cold */
	bool no_evict;			/* --no-evict: leave the replaced pack's files cached */
	bool read_ahead_kb_default;	/* not given: where it cannot be set, trace as is */
	unsigned read_ahead_kb;		/* --read-ahead-kb N (0: keep, TRACE_RA_AUTO), or the default */
	uint64_t read_ahead_for_ns;	/* --read-ahead-for SEC (TRACE_RA_FOR_NS if not given) */
	const char *root;		/* --root DIR */
	const char *input;		/* --input FILE */
	unsigned buffer_kb;		/* --buffer-size SIZE, in KiB per CPU, 0 automatic */
	enum trace_events events;	/* --events LEVEL */
	bool no_access_log;		/* --no-access-log */
	bool json;			/* --json */
	int probe;			/* --probe: 0 auto, 1 always, -1 never */
	int verbosity;			/* -v adds one, -q subtracts one */
	bool merge;			/* --merge: argv holds the packs to merge */
	const char *watch_dir;		/* --watch DIR: learn the programs exec'd, into DIR */
	uint64_t window_ns;		/* --window SEC (LEARN_WINDOW_NS if not given) */
	const char **only;		/* --only EXE (repeatable): the programs to learn, or NULL */
	size_t nonly;
	bool include_user_files;	/* --include-user-files: learn users' and temporary trees too */
	unsigned long max_packs;	/* --max-packs N (PACKDIR_MAX_PACKS if not given) */
	uint64_t max_size;		/* --max-size SIZE (PACKDIR_MAX_BYTES if not given) */
	uint64_t learn_interval_ns;	/* --learn-interval SEC (LEARN_INTERVAL_NS if not given) */
	double min_confidence;		/* --min-confidence C, with --merge or --watch (0: default) */
	unsigned keep_runs;		/* --keep-runs N, 0 if not given (64) */
};

/*
 * The default --read-ahead-for: a command's trace keeps read_ahead_kb forced (every
 * disk, for every program) this long at most. A start is the first seconds of a
 * program; a program traced for hours (a browser, an editor) would otherwise keep
 * the machine at 4 KiB readahead for hours. The rest of the run is traced at the
 * devices' own values.
 */
#define TRACE_RA_FOR_NS		(60ull * 1000 * 1000 * 1000)

/*
 * The default --window: the start of the programs measured (bench/learn-window.sh,
 * bench/README.md) had used 99% of its pages well within it.
 */
#define LEARN_WINDOW_NS		(10ull * 1000 * 1000 * 1000)

/*
 * The default --learn-interval: once a program has LEARN_BURST runs learned
 * (learn-programs.h), one more run every 10 minutes at most, so that a program
 * started thousands of times (a compiler in a build) has its pack rewritten a
 * few times an hour, not thousands.
 */
#define LEARN_INTERVAL_NS	(600ull * 1000 * 1000 * 1000)

/** trace_options_free() - what trace_parse_args() allocated (the --only list) */
void trace_options_free(struct trace_options *o);

/** trace_usage() - print --help to @f */
void trace_usage(FILE *f);

/**
 * trace_parse_args() - parse ura-trace's command line into @o
 *
 * Options stop at the first non-option (or "--"): the rest is the command, or
 * with --merge the packs to merge.
 * Return: 1 run, 0 exit successfully (help or version printed), -EINVAL usage
 * error (reported on stderr with a hint to --help).
 */
int trace_parse_args(int argc, char *argv[], struct trace_options *o);

#endif
