/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A live trace: the tracefs instance, the traced command or the system, the poll loop, signals */
#ifndef URA_TRACE_SESSION_H
#define URA_TRACE_SESSION_H

#include <signal.h>
#include <stdint.h>

struct access_log;
struct rakb_state;
struct trace_demand;

/** session_signals() - the signals a live trace handles: SIGINT, SIGTERM, SIGHUP */
void session_signals(sigset_t *ret);

struct mount_table;
struct trace_options;
struct trace_summary;

/**
 * session_trace() - trace a command (@o->argv) or the system (@o->system) into @d
 * @o: the parsed command line
 * @root: canonical --root, or NULL (the devices whose read_ahead_kb is forced)
 * @mt: the mounts at the start (whose devices --read-ahead-kb forces)
 * @child_mask: the signal mask the command starts with (the caller's own,
 *	before it blocked session_signals())
 * @d: an initialised demand model; gets every event
 * @log: the access log, or NULL; gets every event after @d
 * @ra: zeroed; what --read-ahead-kb forced, already restored on return, kept
 *	for the pack's records (the caller calls rakb_free())
 * @ret_info_flags: URA_PACK_INFO_* the trace calls for
 * @ret_duration_ns: length of the trace
 * @sum: event counts, lost events, the command's exit status, tracing_unavailable
 *
 * The caller blocks session_signals() first, and keeps them blocked until the
 * pack is written: they are read here as events (the first goes on to the
 * command, a second one stops at once), and a signal after the trace waits
 * for the pack. The instance is gone on return, whatever happened.
 *
 * Return: 0, or as trace_run() (-ENOEXEC, -EINTR, tracing unavailable, -errno).
 */
int session_trace(const struct trace_options *o, const char *root,
		  const struct mount_table *mt, const sigset_t *child_mask,
		  struct trace_demand *d, struct access_log *log, struct rakb_state *ra,
		  unsigned *ret_info_flags, uint64_t *ret_duration_ns, struct trace_summary *sum);

#endif
