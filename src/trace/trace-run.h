/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-trace's one entry point: trace live or read a recording, build the pack, probe, summary */
#ifndef URA_TRACE_RUN_H
#define URA_TRACE_RUN_H

#include "trace-summary.h"

struct trace_options;

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

#endif
