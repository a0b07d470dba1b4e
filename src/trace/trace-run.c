// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace's one entry point: trace live or read a recording, build the pack, probe */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-trace.h"
#include "util-log.h"
#include "sys-view.h"
#include "trace-rakb.h"
#include "trace-access.h"
#include "trace-assemble.h"
#include "trace-dat.h"
#include "trace-demand.h"
#include "trace-measure.h"
#include "trace-root.h"
#include "learn-private.h"
#include "trace-run.h"
#include "trace-tracer.h"
#include "trace-session.h"

/* What the kernel says of fault-around (debugfs; the default when it is not there). */
#define FAULT_AROUND_BYTES	"/sys/kernel/debug/fault_around_bytes"

/* URA_TRACE_EVENTS=FILE: every event decoded, one a line, for bench/ analysis. */
static FILE *open_event_log(void)
{
	const char *path = getenv("URA_TRACE_EVENTS");
	FILE *f;

	if (!path || !*path)
		return NULL;
	f = fopen(path, "we");
	if (!f)
		log_warn("cannot write '%s': %s, skipping", path, strerror(errno));
	return f;
}

/* @r from reading @v: 0 when it holds the mount table, else -errno (logged). */
static int mounts_read(const struct sys_view *v, int r)
{
	if (r >= 0 && !sys_view_mounts(v))
		r = sys_view_mounts_error(v);
	if (r < 0)
		log_err("cannot read '/proc/self/mountinfo': %s", strerror(-r));
	return r < 0 ? r : 0;
}

int trace_run(const struct trace_options *o, struct trace_summary *sum)
{
	struct assemble_opts ao = {
		.pack = o->pack,
		.argv = o->argv,
		.from_recording = o->input != NULL,
		/* auto: each filesystem's record holds the value its device ran at */
		.read_ahead_kb = o->read_ahead_kb == TRACE_RA_AUTO ? 0 : o->read_ahead_kb,
		/* the tests' way to see what a trace recorded apart from what is derived */
		.recorded_meta_only = getenv("URA_TRACE_RECORDED_METADATA_ONLY") != NULL,
	};
	struct sys_view *view = NULL;
	struct private_filter priv = { 0 };
	struct assemble_devices devs = { 0 };
	struct rakb_state ra = { 0 };
	struct trace_demand d = { 0 };
	struct access_log *log = NULL;
	sigset_t handled, orig;
	bool blocked = false;
	char *root = NULL;
	int r;

	memset(sum, 0, sizeof(*sum));
	if (!o->input && geteuid() != 0) {
		log_err("tracing needs root");
		sum->not_root = true;
		return -EPERM;
	}
	r = root_canonical(o->root, &root);
	if (r < 0) {
		log_err("cannot use root '%s': %s", o->root, strerror(-r));
		return r;
	}
	ao.root = root;
	r = demand_init(&d);
	if (r < 0) {
		log_err("cannot start: %s", strerror(-r));
		goto out;
	}
	/*
	 * A command's trace counts every page a fault-around window mapped with a
	 * touched one as demanded: the pack then holds every page the run used, to
	 * the resolution the trace ran at (a page left out costs the program a read
	 * of read_ahead_kb; one too many, its bytes).
	 */
	if (o->argv)
		d.near_pages = -1;
	d.event_log = open_event_log();
	/* the access log, unless told not to or without access events to make it of */
	if (!o->no_access_log && o->events != TRACE_EVENTS_ADD) {
		r = access_log_new(access_read_fault_around(FAULT_AROUND_BYTES), ACCESS_LOG_MAX,
				   &log);
		if (r < 0) {
			log_err("cannot start: %s", strerror(-r));
			goto out;
		}
		ao.access = log;
	}

	/*
	 * The view of the system, read once: at the start of a live trace
	 * (--read-ahead-kb forces the devices of its mounts), and again after it
	 * only if something was mounted meanwhile (a boot trace names files of
	 * filesystems mounted during it).
	 */
	if (!o->input) {
		/* from here until the pack is written, a signal is an event, not the end */
		session_signals(&handled);
		sigprocmask(SIG_BLOCK, &handled, &orig);
		blocked = true;
		r = sys_view_read(SYS_VIEW_WATCH, &view);
		r = mounts_read(view, r);
		if (r < 0)
			goto out;
		r = session_trace(o, root, sys_view_mounts(view), &orig, &d, log, &ra,
				  &ao.info_flags, &ao.duration_ns, sum);
	} else {
		r = dat_read(o->input, &d, log, &ao.info_flags, &ao.duration_ns, sum);
	}
	if (r < 0)
		goto out;
	sum->events = d.events;
	sum->add_events = d.counts[TRACE_EVENT_ADD];
	sum->added_pages = d.added_pages;
	sum->fault_events = d.counts[TRACE_EVENT_FAULT];

	/* again if something was mounted during the trace; for a recording, the mounts now */
	r = view ? sys_view_refresh(&view, false) : sys_view_read(SYS_VIEW_MOUNTS, &view);
	r = mounts_read(view, r);
	if (r < 0)
		goto out;
	/* the boot trace leaves out users' files, as the learning daemon does */
	if (o->system && !o->include_user_files) {
		r = private_cache_new(sys_view_mounts(view), &priv.cache);
		if (r < 0)
			goto out;
		priv.root = root ? root : "/";
		ao.leave_out = private_leave_out;
		ao.leave_out_ctx = &priv;
	}
	r = assemble_pack(&ao, &d, view, &ra, sum, &devs);
	if (r == 0 && sum->access_truncated)
		log_warn("the access log stopped at %zu accesses (its limit, or out of memory): "
			 "the pack holds the first", access_count(log));
	if (blocked) {		/* the pack is written: a signal may stop the probe */
		tracer_wait_freed();	/* not with the instance half removed */
		sigprocmask(SIG_SETMASK, &orig, NULL);
		blocked = false;
	}
	if (r < 0)
		goto out;
	if (!o->input && sum->pack_written && o->probe >= 0)
		trace_measure_devices((const unsigned (*)[2])devs.dev, devs.n, o->probe > 0);
out:
	tracer_wait_freed();
	rakb_free(&ra);
	if (blocked)
		sigprocmask(SIG_SETMASK, &orig, NULL);
	private_cache_free(priv.cache);
	sys_view_unref(view);
	assemble_devices_free(&devs);
	if (d.event_log)
		fclose(d.event_log);
	demand_fini(&d);
	access_log_free(log);
	free(root);
	return r;
}
