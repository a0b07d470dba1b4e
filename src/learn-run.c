// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace --watch: the learning daemon (exec detection, scoped tracing, windows, packs) */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ura/pack.h>

#include "cli-trace.h"
#include "learn-events.h"
#include "learn-merge.h"
#include "learn-run.h"
#include "learn-window.h"
#include "util-log.h"
#include "sys-view.h"
#include "watch-key.h"
#include "trace-assemble.h"
#include "trace-demand.h"
#include "trace-events.h"
#include "trace-session.h"
#include "trace-summary.h"
#include "trace-tracer.h"
#include "util.h"

#define POLL_MS			100		/* reading the scoped instance while windows are open */
#define SLACK_NS		(200ull * 1000 * 1000)	/* events still on their way after a window */
#define MAX_WINDOWS		64		/* programs in their windows at once */
#define EXEC_BUFFER_KB		256		/* per CPU, for exec events only */

struct learner {
	const struct trace_options *o;
	struct tracer *exec_t, *pages_t;
	struct task_decoder *exec_dec, *task_dec;
	struct trace_decoder *page_dec;
	struct learn_windows ws;
	struct sys_view *view;		/* read at start, again after a mount change */
	char **only_real;		/* canonical --only paths (or as given) */
	enum demand_evidence evidence;
	unsigned info_flags;
	int error;			/* first fatal -errno of a callback */
	uint64_t lost;			/* lost events reported so far */
	uint64_t lost_checked_ns;	/* when the stats files were last read */
};

/* The exec'd path made absolute (relative to the task's cwd); false if it cannot be. */
static bool absolute_exe(const struct task_event *ev, char *buf, size_t size)
{
	char link[64], cwd[PATH_MAX];
	ssize_t n;

	if (ev->filename[0] == '/')
		return (size_t)snprintf(buf, size, "%s", ev->filename) < size;
	if (!ev->filename[0])
		return false;
	snprintf(link, sizeof(link), "/proc/%d/cwd", ev->pid);
	n = readlink(link, cwd, sizeof(cwd) - 1);
	if (n <= 0)
		return false;
	cwd[n] = '\0';
	return (size_t)snprintf(buf, size, "%s/%s", strcmp(cwd, "/") ? cwd : "", ev->filename) < size;
}

/* Is @exe one of --only (by its path as exec'd, or the file it names)? Always true without --only. */
static bool wanted(const struct learner *l, const char *exe)
{
	char *real;
	bool ok = false;

	if (!l->o->nonly)
		return true;
	for (size_t i = 0; i < l->o->nonly; i++)
		if (strcmp(exe, l->o->only[i]) == 0 || strcmp(exe, l->only_real[i]) == 0)
			return true;
	real = realpath(exe, NULL);
	for (size_t i = 0; real && i < l->o->nonly && !ok; i++)
		ok = strcmp(real, l->only_real[i]) == 0;
	free(real);
	return ok;
}

static void on_exec(struct learner *l, const struct task_event *ev)
{
	struct learn_window *w = NULL;
	char exe[PATH_MAX];
	int r;

	if (ev->pid <= 0 || !absolute_exe(ev, exe, sizeof(exe)) || !wanted(l, exe))
		return;
	/* the file itself, symlinks resolved, as ura-replay --watch names it (fanotify) */
	{
		char *real = realpath(exe, NULL);

		size_t len = real ? strlen(real) : sizeof(exe);

		if (len < sizeof(exe))
			memcpy(exe, real, len + 1);
		free(real);
	}
	r = windows_open(&l->ws, exe, ev->pid, ev->ts, l->o->window_ns, &w);
	if (r == -EBUSY || r == -ENOSPC) {
		log_debug("not learning '%s' (pid %d): %s", exe, ev->pid,
			  r == -EBUSY ? "a run of it is being learned" : "too many windows open");
		return;
	}
	if (r < 0) {
		l->error = r;
		return;
	}
	w->demand.evidence = l->evidence;
	r = tracer_add_pid(l->pages_t, ev->pid);
	if (r < 0)
		log_warn("cannot trace pid %d of '%s': %s, skipping", ev->pid, exe, strerror(-r));
	log_debug("window of '%s' (pid %d) opened %.3f ms after its exec", exe, ev->pid,
		  (double)(now_monotonic_ns() - ev->ts) / 1e6);
}

static int exec_record(struct tep_record *rec, void *ctx)
{
	struct learner *l = ctx;
	static struct task_event ev;	/* 4 KiB of file name: not on the stack each time */

	if (task_decoder_decode(l->exec_dec, rec, &ev) == 1 && ev.type == TASK_EXEC)
		on_exec(l, &ev);
	return l->error;
}

static int page_record(struct tep_record *rec, void *ctx)
{
	struct learner *l = ctx;
	static struct task_event tev;
	struct trace_event ev;
	int r;

	if (task_decoder_decode(l->task_dec, rec, &tev) == 1) {
		if (tev.type == TASK_FORK)
			return windows_fork(&l->ws, tev.pid, tev.child);
		if (tev.type == TASK_EXIT)
			windows_exit(&l->ws, tev.pid, tev.ts);
		return 0;
	}
	if (trace_decoder_decode(l->page_dec, rec, &ev) <= 0)
		return 0;
	r = windows_feed(&l->ws, &ev);
	return r < 0 ? r : 0;
}

/* Write @w's run into its pack: the one merge call, then an atomic write. */
static void learn_window_done(struct learner *l, struct learn_window *w, uint64_t now)
{
	char *argv[] = { w->exe, NULL };
	struct assemble_opts ao = {
		.argv = argv,
		.info_flags = l->info_flags,
	};
	struct learn_merge_opts mo = { .min_confidence = l->o->min_confidence,
				       .keep_runs = l->o->keep_runs };
	struct ura_pack_builder *run = NULL, *out = NULL;
	struct trace_summary sum = { 0 };
	struct ura_pack *old = NULL;
	uint64_t end = now < w->end_ns ? now : w->end_ns;
	char name[NAME_MAX + 1], *path = NULL;
	int r;

	r = watch_pack_name(0, w->exe, name, sizeof(name));
	if (r < 0) {
		log_warn("no pack name for '%s': %s, skipping", w->exe, strerror(-r));
		return;
	}
	path = path_join(l->o->watch_dir, name);
	if (!path) {
		log_warn("cannot learn '%s': %s, skipping", w->exe, strerror(ENOMEM));
		return;
	}
	if (w->demand.events == 0 || w->demand.error) {
		log_info("learned nothing of '%s': %s", w->exe,
			 w->demand.error ? strerror(-w->demand.error) : "no page-cache events");
		goto out;
	}
	/* DIR may have been removed since: make it again */
	if (mkdir(l->o->watch_dir, 0755) < 0 && errno != EEXIST) {
		log_warn("cannot make '%s': %s, skipping", l->o->watch_dir, strerror(errno));
		goto out;
	}
	ao.pack = path;
	ao.duration_ns = end > w->start_ns ? end - w->start_ns : 0;
	r = assemble_build(&ao, &w->demand, l->view, NULL, &sum, &run);
	if (r < 0)
		goto out;	/* logged */
	r = ura_pack_open(path, &old);
	if (r == -EBADMSG) {
		log_warn("pack '%s' is corrupt (%s), replacing it", path, ura_pack_error());
	} else if (r < 0 && r != -ENOENT) {
		/* a newer format, too large, unreadable: keep it, learn nothing into it */
		log_warn("cannot read pack '%s': %s, skipping this run", path, strerror(-r));
		goto out;
	}

	/* PACK_MERGE: the program's pack so far + this run -> the pack to write */
	r = learn_merge(old, run, &mo, &out);
	run = NULL;	/* learn_merge() owns it */
	if (r < 0) {
		log_warn("cannot merge the run of '%s' into '%s': %s, skipping", w->exe, path,
			 strerror(-r));
		goto out;
	}
	r = ura_pack_builder_write(out, path, 0644);
	if (r < 0) {
		log_warn("cannot write pack '%s': %s, skipping", path, strerror(-r));
		goto out;
	}
	log_info("learned '%s': %" PRIu64 " pages (%" PRIu64 " demanded) in %" PRIu64
		 " files, %.1f s window, '%s'", w->exe, sum.bytes / URA_PACK_PAGE_SIZE,
		 sum.demanded_bytes / URA_PACK_PAGE_SIZE, sum.files,
		 (double)ao.duration_ns / 1e9, path);
out:
	ura_pack_free(old);
	ura_pack_builder_free(run);
	ura_pack_builder_free(out);
	free(path);
}

/* Close the windows that are complete; then only the tasks still in one stay traced. */
static int close_due(struct learner *l, uint64_t now)
{
	struct learn_window *w;
	bool refilter = false;

	while ((w = windows_due(&l->ws, now, SLACK_NS))) {
		struct learn_window done;

		windows_take(&l->ws, w, &done);
		refilter |= done.tasks > 0;	/* exited tasks left the kernel's list themselves */
		learn_window_done(l, &done, now);
		windows_free_one(&done);
	}
	if (refilter) {
		int *pids = NULL;
		long n = windows_pids(&l->ws, &pids);
		int r = n < 0 ? (int)n : tracer_set_pids(l->pages_t, pids, (size_t)n);

		free(pids);
		if (r < 0) {
			log_err("cannot update the traced pids: %s", strerror(-r));
			return r;
		}
	}
	return 0;
}

/* --only: tell the exec instance to keep only execs whose file name ends as one of them. */
static void filter_execs(struct learner *l)
{
	size_t size = 1;
	char *f, *p;
	int r;

	for (size_t i = 0; i < l->o->nonly; i++)
		size += 2 * (strlen(l->o->only[i]) + strlen(l->only_real[i])) + (size_t)2 * 48;
	f = malloc(size);
	if (!f)
		return;
	p = f;
	for (size_t i = 0; i < l->o->nonly; i++) {
		const char *names[] = { l->o->only[i], l->only_real[i] };

		for (int k = 0; k < 2; k++) {
			const char *base = strrchr(names[k], '/') + 1;

			if (strpbrk(base, "\"*?[]\\") || !*base) {
				free(f);	/* cannot be said in a glob: no filter */
				return;
			}
			/* 36 bytes and the name twice: the 48 a name was given above */
			p += snprintf(p, size - (size_t)(p - f),
				      "%sfilename ~ \"*/%s\" || filename == \"%s\"",
				      p == f ? "" : " || ", base, base);
		}
	}
	r = tracer_set_filter(l->exec_t, "sched", "sched_process_exec", f);
	if (r < 0)
		log_debug("cannot filter execs (%s): %s", f, strerror(-r));
	free(f);
}

static int setup(struct learner *l)
{
	const struct trace_options *o = l->o;
	struct tracer_opts eo = { .exec_only = true, .buffer_kb = EXEC_BUFFER_KB };
	struct tracer_opts po = {
		.buffer_kb = o->buffer_kb,
		.access_events = o->events != TRACE_EVENTS_ADD,
		.fault_addresses = o->events == TRACE_EVENTS_ALL,
		.task_events = true,
	};
	int r;

	l->only_real = calloc(o->nonly + 1, sizeof(*l->only_real));
	if (!l->only_real)
		return -ENOMEM;
	for (size_t i = 0; i < o->nonly; i++) {
		l->only_real[i] = realpath(o->only[i], NULL);
		if (!l->only_real[i])
			l->only_real[i] = strdup(o->only[i]);
		if (!l->only_real[i])
			return -ENOMEM;
	}
	r = tracer_remove_orphans();
	if (r >= 0)
		r = tracer_new(&eo, &l->exec_t);
	if (r >= 0)
		r = tracer_new(&po, &l->pages_t);
	if (r < 0)
		return r;
	/* no task traced until a window opens (set before tracing is on) */
	r = tracer_set_pids(l->pages_t, NULL, 0);
	if (r < 0)
		return r;
	if (o->nonly)
		filter_execs(l);
	r = task_decoder_new(tracer_tep(l->exec_t), &l->exec_dec);
	if (r >= 0)
		r = task_decoder_new(tracer_tep(l->pages_t), &l->task_dec);
	if (r >= 0)
		r = trace_decoder_new(tracer_tep(l->pages_t), &l->page_dec);
	if (r < 0)
		return r;
	l->evidence = demand_evidence(tracer_has_event(l->pages_t, TRACE_EVENT_GET_PAGES),
				      tracer_has_event(l->pages_t, TRACE_EVENT_MAP_PAGES));
	if (l->evidence == DEMAND_EVIDENCE_NONE)
		l->info_flags |= URA_PACK_INFO_NO_ACCESS_EVENTS;
	r = tracer_poll_fd(l->exec_t);
	if (r < 0)
		return r;
	r = tracer_start(l->pages_t);
	if (r >= 0)
		r = tracer_start(l->exec_t);
	return r;
}

static int loop(struct learner *l, int sigfd)
{
	int exec_fd = tracer_poll_fd(l->exec_t);

	for (;;) {
		struct pollfd p[2] = { { .fd = sigfd, .events = POLLIN },
				       { .fd = exec_fd, .events = POLLIN } };
		long n;
		uint64_t lost, now;
		int r;

		if (poll(p, 2, l->ws.n ? POLL_MS : -1) < 0 && errno != EINTR)
			return -errno;
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
				log_info("signal %u: stopping, %zu window%s in flight dropped",
					 si.ssi_signo, l->ws.n, l->ws.n == 1 ? "" : "s");
				return 0;
			}
		}
		/* execs first: a new window's events may already be in the other buffers */
		n = tracer_read(l->exec_t, exec_record, l);
		if (n >= 0)
			n = tracer_read(l->pages_t, page_record, l);
		if (n < 0) {
			log_err("cannot read the trace buffers: %s", strerror((int)-n));
			return (int)n;
		}
		r = sys_view_refresh(&l->view, false);
		if (r > 0 && !sys_view_mounts(l->view))
			r = sys_view_mounts_error(l->view);
		if (r < 0) {
			log_err("cannot read '/proc/self/mountinfo': %s", strerror(-r));
			return r;
		}
		now = now_monotonic_ns();
		/*
		 * Four stats files per read: once a poll period, not on each exec's
		 * wakeup (an exec-heavy workload wakes us thousands of times a second)
		 */
		if (now - l->lost_checked_ns >= POLL_MS * 1000000ull) {
			l->lost_checked_ns = now;
			lost = tracer_lost_events(l->pages_t) + tracer_lost_events(l->exec_t);
			if (lost > l->lost) {
				log_warn("%" PRIu64 " events lost: the trace buffers overflowed, runs "
					 "being learned are incomplete", lost - l->lost);
				l->lost = lost;
			}
		}
		r = close_due(l, now);
		if (r < 0)
			return r;
	}
}

int learn_run(const struct trace_options *o, bool *ret_unavailable)
{
	struct learner l = { .o = o };
	sigset_t mask, orig;
	int sigfd = -1, r;

	*ret_unavailable = false;
	windows_init(&l.ws, MAX_WINDOWS);
	if (geteuid() != 0) {
		log_err("learning needs root");
		return -EPERM;
	}
	if (mkdir(o->watch_dir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		log_err("cannot make '%s': %s", o->watch_dir, strerror(-r));
		return r;
	}
	session_signals(&mask);
	sigprocmask(SIG_BLOCK, &mask, &orig);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		r = -errno;
		log_err("cannot watch signals: %s", strerror(-r));
		goto out;
	}
	r = sys_view_read(SYS_VIEW_WATCH, &l.view);
	if (r == 0 && !sys_view_mounts(l.view))
		r = sys_view_mounts_error(l.view);
	if (r < 0) {
		log_err("cannot read '/proc/self/mountinfo': %s", strerror(-r));
		goto out;
	}
	r = setup(&l);
	if (r < 0) {
		if (r == -ENOENT || r == -ENODEV || r == -EPERM || r == -EACCES)
			*ret_unavailable = true;
		else
			log_err("cannot set up tracing: %s", strerror(-r));
		goto out;
	}
	log_info("learning %s into '%s', %.1f s windows",
		 o->nonly ? "the programs named" : "every program exec'd", o->watch_dir,
		 (double)o->window_ns / 1e9);
	r = loop(&l, sigfd);
out:
	/* the instances go first: nothing is traced any more while we clean up */
	tracer_free(l.pages_t);
	tracer_free(l.exec_t);
	trace_decoder_free(l.page_dec);
	task_decoder_free(l.task_dec);
	task_decoder_free(l.exec_dec);
	windows_fini(&l.ws);
	sys_view_unref(l.view);
	for (size_t i = 0; l.only_real && i < o->nonly; i++)
		free(l.only_real[i]);
	free(l.only_real);
	if (sigfd >= 0)
		close(sigfd);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return r;
}
