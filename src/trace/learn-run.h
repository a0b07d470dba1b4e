/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-trace --watch: the learning daemon (exec detection, scoped tracing, windows, packs) */
#ifndef URA_LEARN_RUN_H
#define URA_LEARN_RUN_H

#include <stdbool.h>

struct trace_options;

/**
 * learn_run() - learn the programs exec'd into @o->watch_dir until SIGTERM, SIGINT or SIGHUP
 * @o: the parsed command line (--watch, --window, --only, --events, --buffer-size, ...)
 * @ret_unavailable: set when tracing is unavailable (the caller reports it, as for trace_run())
 *
 * Two tracefs instances: "ura-<pid>-exec" sees every exec (sched_process_exec),
 * "ura-<pid>" records the page-cache events of the tasks in a window only
 * (set_event_pid with event-fork). A window's run is written when its time is
 * over or its tasks have all exited; windows still running at the signal are
 * dropped. Both instances are gone on return.
 *
 * Return: 0 after a signal; -EPERM (not root), tracing unavailable as
 * trace_run() (-ENOENT, -ENODEV, -EPERM, -EACCES with @ret_unavailable), other
 * -errno (logged).
 */
int learn_run(const struct trace_options *o, bool *ret_unavailable);

#endif
