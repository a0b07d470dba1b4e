/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-trace's one entry point: trace live or read a recording, build the pack, probe, summary */
#ifndef URA_TRACE_RUN_H
#define URA_TRACE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct trace_options;

/* What a run did: filled by the stages as far as they got. */
struct trace_summary {
	uint64_t files, ranges;
	uint64_t bytes, demanded_bytes, speculative_bytes, meta_bytes, meta_ranges;
	uint64_t lost_events;
	uint64_t unresolved_inodes, unresolved_bytes;
	uint64_t skipped_pseudo;	/* files on pseudo or memory filesystems, left out */
	uint64_t outside_root;		/* files outside --root, left out */
	uint64_t events;		/* records read */
	uint64_t add_events, added_pages;	/* mm_filemap_add_to_page_cache */
	uint64_t fault_events;		/* mm_filemap_fault */
	uint64_t mm_faults;		/* --input: handle_mm_fault calls in a function_graph trace */
	uint64_t mm_fault_ns;		/* --input: their total time */
	bool access_events;		/* demand came from access events */
	bool pack_written;
	bool bad_input;			/* --input missing, not a trace.dat, or without the event */
	bool not_root;			/* a live trace asked for by someone else than root */
	bool tracing_unavailable;	/* no tracefs, no event or no rights */
	double seconds;			/* length of the trace */
	int exit_status;		/* command mode: the command's status as the shell reports it */
};

/**
 * trace_run() - what ura-trace does: trace (or read @o->input), write @o->pack, probe
 * @o: the parsed command line
 * @ret: filled with the counts (also on failure, as far as it got)
 *
 * Live: creates a private tracefs instance, runs the command (its standard
 * streams and terminal untouched) or waits for SIGINT/SIGTERM, --duration or
 * --until-idle, then names the inodes and writes the pack atomically. The
 * instance and any forced read_ahead_kb are removed and restored on every
 * path, SIGINT and SIGTERM included. With @o->input, the events of a trace-cmd
 * recording instead (inodes are named on this machine: run it where the trace
 * was taken). After a live trace, the devices of the pack are measured
 * (--probe).
 *
 * Every failure is reported (one error line), except when tracing is
 * unavailable (@ret->tracing_unavailable set): then -ENOENT means no tracefs,
 * -ENODEV no page-cache event, -EPERM or -EACCES not allowed, for the caller to
 * report with its exit code.
 *
 * Return: 0; -ENOEXEC: the command could not be started (@ret->exit_status is
 * 126 or 127); -EINTR: stopped by a second signal (@ret->exit_status set);
 * -EPERM with @ret->not_root; with @o->input -ENOENT (no such file), -EBADMSG
 * (not a trace.dat), -ENODEV (no add_to_page_cache event) with @ret->bad_input;
 * other -errno.
 */
int trace_run(const struct trace_options *o, struct trace_summary *ret);

/** trace_print_summary() - the one-line summary, or JSON with @json */
void trace_print_summary(FILE *f, const struct trace_summary *s, bool json);

#endif
