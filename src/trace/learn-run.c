// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-trace --watch: the learning daemon's event loop. It reads the exec
 * events and the scoped page-cache events in rounds, opens and closes the
 * windows, and nothing else: which exec gets a window is learn-admit.c's to
 * say (the loop counts and tells its refusals), the pid filter is written by
 * a thread of its own (learn-pidfilter.c) and the packs are built, merged and
 * written by another (learn-worker.c), so that a window opens on time
 * whatever the machine does.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <ura/pack.h>

#include "cli-trace.h"
#include "learn-admit.h"
#include "learn-packdir.h"
#include "learn-events.h"
#include "learn-exec.h"
#include "learn-follow.h"
#include "learn-pidfilter.h"
#include "learn-private.h"
#include "learn-programs.h"
#include "learn-quiet.h"
#include "learn-recent.h"
#include "learn-run.h"
#include "learn-windows.h"
#include "learn-worker.h"
#include "trace-demand.h"
#include "trace-events.h"
#include "trace-pageset.h"
#include "trace-session.h"
#include "trace-tracer.h"
#include "sys-proc.h"
#include "sys-view.h"
#include "util-log.h"
#include "util.h"
#include "key-exec.h"
#include "key.h"

#define MS			(1000ull * 1000)
/*
 * The scoped instance is read at most every POLL_MS, and by every round an exec
 * starts: its events need no haste (a window's are read before it closes), and
 * its buffers hold far more than POLL_MS of them. (Its trace_pipe polls readable
 * as soon as any event is in: the kernel ignores buffer_percent for the
 * all-CPU file, so waking on it made a round a millisecond while a window's
 * program ran: 44,610 rounds for 2,875 execs.)
 */
#define POLL_MS			100
#define LOST_CHECK_MS		1000
#define COMMS_SEEN		64	/* names exec'd in windows remembered, names deferred */
#define SLACK_NS		(200 * MS)	/* events still on their way after a window */
#define EXEC_BUFFER_KB		256		/* per CPU, for exec events only */
/*
 * Rounds: a round reads both instances and handles what they hold in time
 * order; rounds are at least ROUND_GAP_NS apart, so that the execs of a
 * burst are read together (one wakeup, one pid filter write for all).
 * While execs come faster than STORM_EXECS_PER_S and none opens a window (a
 * build running a compiler learned enough, a loop of one command), each round
 * doubles the gap up to ROUND_GAP_MAX_NS: an exec costs a wakeup and its /proc
 * lookups, and a storm of them is read in batches. A window opened, or execs
 * slower again, bring the gap back down. A program that is gone before its
 * exec is read is not learned: during a storm, one that lives less than the
 * longest gap (and so has little a prefetch could gain on).
 */
#define ROUND_GAP_NS		(1 * MS)
#define ROUND_GAP_MAX_NS	(64 * MS)
#define STORM_EXECS_PER_S	200
/*
 * The exec rate is judged over this span at least: a round's own rate is no
 * measure (one exec read a millisecond after the last round read as 1,000
 * execs/s; on a machine that ran a few programs a second the gap grew to its
 * maximum, and a program started then was read 40-55 ms after its exec,
 * too late to be learned).
 */
#define STORM_SPAN_NS		(250 * MS)
/*
 * Records later than this before a round began are left for the next round:
 * a record is written into its CPU's buffer a little after its time, and an
 * exec must be read no later than the events of its program.
 */
#define CUT_NS			(100 * 1000ull)
/*
 * A round handles at most this many records of the scoped instance, and reads
 * the exec instance again before the rest: an exec is looked up in /proc soon
 * after it (a short program is gone in milliseconds) even behind a backlog.
 */
#define ROUND_MAX_RECORDS	2000
/*
 * Records read and not yet handled at most (about 100 bytes each): past it a
 * record of a task in no window is dropped, any other too once twice as many
 * wait, and the windows open then are not merged (as when the kernel's
 * buffers overflow). A window's flood stops before (WINDOW_MAX_EVENTS).
 */
#define BACKLOG_MAX		((size_t)WINDOW_MAX_EVENTS * 2)
/* A traced exec is remembered this long, to be matched with the exec instance's record. */
#define PEXEC_KEEP_NS		(100 * MS)
/*
 * What a task traced before its exec did this long before it goes to the
 * window its exec opens: the exec's own reads (learn-recent.h). A cold exec
 * on a slow disk reads a few directory, inode and header blocks: tens of ms.
 */
#define PRE_EXEC_NS		(200 * MS)
#define RECENT_SLOTS		16384
/* A write's pids are in force this long after it began, at most (measured: 0.15-0.4 ms). */
#define PUBLISH_NS		PIDFILTER_PUBLISH_NS
/*
 * A window traced this long after its exec or later is not merged: it missed
 * what its program did first, and would count as a run that did not do it.
 * Nor is one traced after its exec whose program had by then started a task
 * the records never show forked (a thread, a child that exited: never
 * traced, and it may have read all the run is learned for: a warm shell
 * script forks its first command 0.6 ms after its exec; one such run, merged
 * with a read by the shell alone, emptied the pack of its data). Children
 * alive at the window's open are adopted (traced late, as the task is).
 */
#define LATE_NS			(5 * MS)
/* Children of a task read from /proc at most (adopted, or checked against the records) */
#define CHILDREN_MAX		256
/* Arm the pid filter again, after an exec not traced from its fork, at most this often. */
#define REARM_GAP_NS		(1000 * MS)
/*
 * Tasks traced but in no window (armed pids, tasks left from closed windows,
 * children of parents no longer followed) cost the events they make: once this
 * many were read and no window is open, the filter is written afresh with
 * the parents followed, at most once a REWRITE_GAP_NS (since the last such
 * write: a machine where windows open every few hundred ms, each adding its
 * pid, never went a second without a write), and once no exec was read for
 * REWRITE_QUIET_NS (REWRITE_WAIT_NS at most once due): the emptying loses the events
 * of the tasks traced (rewrite()), and a program whose exec came just before
 * the rewrite was decided, not read yet, loses its run. After a burst of
 * execs (a shell's commands), the next program is mostly started at once.
 */
#define EXTRA_EVENTS_MAX	2000
#define REWRITE_QUIET_NS	(200 * MS)
#define REWRITE_WAIT_NS		(10000 * MS)
/*
 * This many records in a row of one task in no window: a flood, banned and
 * dropped at once, by a rewrite with windows open (their runs are not merged:
 * the emptying loses their events)
 */
#define EXTRA_FLOOD		WINDOW_MAX_EVENTS
#define REWRITE_GAP_NS		(1000 * MS)
/* The answers about directories (is a program a user's?) are kept this long. */
#define PRIVATE_KEEP_NS		(10000 * MS)

/* A record read from one of the two instances, kept until its round handles it. */
enum rec_kind { REC_PAGE, REC_FORK, REC_EXIT, REC_PEXEC, REC_EXEC };

struct rec {
	uint64_t ts;
	size_t off;		/* its bytes in the arena */
	uint32_t size;
	int pid;		/* common_pid */
	uint8_t kind;		/* enum rec_kind */
	bool missed;		/* events were lost before it */
	struct exec_seen *exec;	/* REC_EXEC: malloc()ed, owned */
};

struct recs {
	struct rec *v;
	size_t head, n, cap;		/* [head, n) not handled yet */
	char *data;
	size_t len, data_cap;
};

/* The execs of traced tasks seen in a round (pid, time), sorted: was an exec traced? */
struct pexec {
	int pid;
	uint64_t ts;
};

struct learner {
	const struct trace_options *o;
	struct tracer *exec_t, *pages_t;
	struct task_decoder *exec_dec, *task_dec;
	struct trace_decoder *page_dec;
	struct learn_windows ws;
	struct pid_filter *pf;
	struct quiet *quiet;		/* the exec filter: programs refused until due */
	struct quiet *quiet_comm;	/* the page events' filter: their task names, as long */
	uint64_t partial_named;		/* runs missing a program whose name was left out */
	/* names exec'd in windows lately, and names waiting for them to close (comm_defer()) */
	struct comm_seen { char comm[QUIET_COMM_MAX + 1]; uint64_t ns; } win_comms[COMMS_SEEN],
		deferred[COMMS_SEEN];
	size_t next_win_comm, ndeferred;
	pthread_mutex_t tracefs_lock;	/* the two writer threads' writes, one at a time */
	struct learn_worker *wk;
	struct recent *recent;		/* the last records of the traced tasks */
	struct programs *programs;	/* each program's budget of runs */
	struct sys_view *view;		/* the mounts, for private_path(); the worker's too */
	struct private_cache *priv;	/* NULL with --include-user-files */
	uint64_t priv_ns;		/* when @priv was made */
	struct key_self self;
	char **only_real;		/* canonical --only paths (or as given) */
	struct admit admit;		/* what the admission rules read: --only, windows, budgets */
	enum demand_evidence evidence;
	int error;			/* first fatal -errno */
	struct recs recs;		/* read, not yet handled */
	struct pexec *pexec;
	size_t npexec, pexec_cap;
	uint64_t last_round_ns;
	uint64_t round_gap_ns;		/* between rounds now (ROUND_GAP_NS...ROUND_GAP_MAX_NS) */
	uint64_t span_ns, span_execs;	/* the span the exec rate is judged over: since, execs */
	uint64_t last_write_ns;		/* when a pid filter write was last asked for */
	bool untraced;			/* an exec not traced from its fork since then */
	bool storm;			/* the last span's rate was a storm's */
	bool exec_left;			/* the last round left an exec record for the next */
	uint64_t last_open_ns;		/* when a window last opened */
	uint64_t extra_events;		/* events of traced tasks in no window, since the last rewrite */
	bool unfollowed;		/* a parent was dropped: the pid list to be written afresh */
	uint64_t page_records;		/* records read from the page instance, in all */
	uint64_t extra_records;		/* of them, of tasks in no window when read */
	struct follow follow;		/* parents whose next children are traced from their fork */
	/* a rewrite: asked for at @rewrite_ns, request @rewrite_seq (0 when done), done by
	 * @rewrite_done_ns (its new list in force) */
	unsigned rewrite_seq;
	uint64_t rewrite_ns, rewrite_done_ns;
	uint64_t gap_from_ns;		/* the last rewrite, or the first write: the next waits */
	uint64_t last_exec_ns;		/* the newest exec read (its time) */
	uint64_t rewrite_due_ns;	/* a rewrite due since (waiting for no exec), or 0 */
	uint64_t lost, lost_checked_ns;
	uint64_t dropped;		/* records dropped for the backlog, not yet told */
	bool drop_pending;		/* the next record kept says events were lost before it */
	int extra_pid;			/* the task of the last records of no window, how many */
	uint64_t extra_run;
	bool flooded;			/* a window closed for its flood: rewrite the pid filter */
	/* counts, for the log at the end */
	uint64_t execs, gone, skipped_busy, windows, traced_at_exec, late, lost_runs;
	uint64_t lost_execs, skipped_rate, skipped_private, floods, skipped_user_new;
};

static void *arena_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 64;
	void *n;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return p;
	n = realloc(p, c * elem);
	if (n)
		*cap = c;
	return n;
}

static int recs_push(struct recs *r, const struct tep_record *rec, int pid, uint8_t kind,
		     bool missed)
{
	void *p;

	p = arena_grow(r->v, &r->cap, r->n + 1, sizeof(*r->v));
	if (!p)
		return -ENOMEM;
	r->v = p;
	p = arena_grow(r->data, &r->data_cap, r->len + (size_t)rec->size, 1);
	if (!p)
		return -ENOMEM;
	r->data = p;
	memcpy(r->data + r->len, rec->data, (size_t)rec->size);
	r->v[r->n++] = (struct rec){ .ts = rec->ts, .off = r->len, .size = (uint32_t)rec->size,
				     .pid = pid, .kind = kind, .missed = missed || rec->missed_events != 0,
				     .exec = NULL };
	r->len += (size_t)rec->size;
	return 0;
}

static int collect_pages(struct tep_record *rec, void *ctx)
{
	struct learner *l = ctx;
	int type = learn_events_type(l->task_dec, rec);
	uint8_t kind = type == TASK_FORK ? REC_FORK : type == TASK_EXIT ? REC_EXIT :
		       type == TASK_EXEC ? REC_PEXEC : REC_PAGE;

	int pid = tep_data_pid(tracer_tep(l->pages_t), rec);
	size_t waiting = l->recs.n - l->recs.head;
	int r;

	l->page_records++;
	if (kind == REC_PAGE) {
		/* a window's flood is counted as it is read, and dropped from then on */
		struct learn_window *w = windows_task_window(&l->ws, pid);

		l->extra_records += !w;
		if (w && (w->lost & WINDOW_LOST_FLOOD))
			return 0;
		if (w && ++w->events > WINDOW_MAX_EVENTS &&
		    w->events > WINDOW_EVENTS_PER_CHUNK * pageset_chunks(w->demand.pages)) {
			/* the windows around it too: their runs hold the flood */
			for (struct learn_window *o = w; o; o = windows_outer(&l->ws, o))
				o->lost |= WINDOW_LOST_FLOOD;
			return 0;
		}
		/*
		 * A task in no window traced (a followed parent's child): one that
		 * floods is banned from the armed pids and dropped by a rewrite at once
		 */
		if (!w && pid == l->extra_pid && ++l->extra_run > EXTRA_FLOOD) {
			pidfilter_ban(l->pf, pid);
			l->flooded = true;
			l->extra_run = 0;
		} else if (!w && pid != l->extra_pid) {
			l->extra_pid = pid;
			l->extra_run = 1;
		}
		/* its record matters to no run being learned */
		if (waiting >= BACKLOG_MAX && !w) {
			l->extra_events++;
			return 0;
		}
		if (waiting >= 2 * BACKLOG_MAX) {
			l->dropped++;
			l->drop_pending = true;
			return 0;
		}
	}
	if (kind == REC_PEXEC) {
		void *p = arena_grow(l->pexec, &l->pexec_cap, l->npexec + 1, sizeof(*l->pexec));

		if (!p)
			return -ENOMEM;
		l->pexec = p;
		l->pexec[l->npexec++] = (struct pexec){ pid, rec->ts };
	}
	r = recs_push(&l->recs, rec, pid, kind, l->drop_pending);
	if (r == 0)
		l->drop_pending = false;	/* the windows open when it is handled lose it */
	return r;
}

static int collect_execs(struct tep_record *rec, void *ctx)
{
	static struct task_event ev;	/* 4 KiB of file name: not on the stack each time */
	struct learner *l = ctx;
	struct exec_seen *x;
	size_t len;
	int r;

	if (rec->missed_events)
		l->lost_execs++;
	if (learn_events_decode(l->exec_dec, rec, &ev) != 1 || ev.type != TASK_EXEC || ev.pid <= 0)
		return 0;
	len = strlen(ev.filename);
	x = malloc(sizeof(*x) + len + 1);
	if (!x)
		return -ENOMEM;
	x->pid = ev.pid;
	x->ts = ev.ts;
	if (ev.ts > l->last_exec_ns)
		l->last_exec_ns = ev.ts;
	memcpy(x->filename, ev.filename, len + 1);
	/* now, while the process lives (an exec read late is of a program already gone) */
	x->err = exec_program_of(ev.pid, ev.filename, &l->self, sys_view_mounts(l->view), &x->prog);
	r = recs_push(&l->recs, rec, ev.pid, REC_EXEC, false);
	if (r < 0) {
		free(x);
		return r;
	}
	l->recs.v[l->recs.n - 1].exec = x;
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;	/* a traced exec before the exec */
}

static int cmp_pexec(const void *a, const void *b)
{
	const struct pexec *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * Was the exec of @pid at @ts traced (the scoped instance recorded it too)?
 * The two instances stamp one event a little apart.
 */
static bool exec_traced(const struct learner *l, int pid, uint64_t ts)
{
	size_t lo = 0, hi = l->npexec;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->pexec[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->npexec && l->pexec[lo].pid == pid; lo++) {
		uint64_t t = l->pexec[lo].ts, d = t > ts ? t - ts : ts - t;

		if (d < MS)
			return true;
	}
	return false;
}

/*
 * The children @pid forked before it was traced (a window traced after its
 * exec): the pid filter adds only the tasks forked by a traced task, so they
 * are added to the window here, and traced by the write that adds @pid (they
 * are among the pids allocated just before it).
 */
static void adopt_children(struct learner *l, int pid)
{
	int kids[CHILDREN_MAX];
	long n = proc_children(pid, kids, CHILDREN_MAX);

	for (long i = 0; i < n; i++)
		if (windows_fork(&l->ws, pid, kids[i]) == 0)
			pidfilter_add(l->pf, kids[i]);
}

/* Trace @pid's parent from now on (learn-follow.h), unless it is already. */
static void follow_parent(struct learner *l, int pid, uint64_t now)
{
	int ppid = proc_parent(pid);

	if (ppid > 0 && follow_hit(&l->follow, ppid, now) && !windows_has_task(&l->ws, ppid))
		pidfilter_add(l->pf, ppid);
}

static bool alive(int pid)
{
	return kill(pid, 0) == 0;
}

struct pre_exec {
	struct learner *l;
	struct learn_window *w;
};

/* A record of the task from before its exec: into the window the exec opened. */
static int feed_pre_exec(void *ctx, uint64_t ts, const void *data, uint32_t size)
{
	struct pre_exec *p = ctx;
	struct tep_record rec = { .ts = ts, .data = (void *)data, .size = (int)size };
	struct trace_event ev;

	if (trace_events_decode(p->l->page_dec, &rec, &ev) <= 0)
		return 0;
	return demand_feed(&p->w->demand, &ev);
}

/* The path @path of root @root as the daemon sees it, in @buf; false when too long. */
static bool host_path(const struct key_root *root, const char *path, char *buf, size_t size)
{
	int n = strcmp(root->path, "/") == 0 ? snprintf(buf, size, "%s", path) :
					      snprintf(buf, size, "%s%s", root->path, path);

	return n > 0 && (size_t)n < size;
}

/*
 * The view read again if the mounts changed; the answers about directories, made
 * with the old one's mounts, go with it.
 */
static int refresh_view(struct learner *l)
{
	int r = sys_view_refresh(&l->view, false);

	if (r > 0) {
		private_cache_free(l->priv);
		l->priv = NULL;
		if (!sys_view_mounts(l->view))
			log_warn("cannot read '/proc/self/mountinfo': %s, files are not named",
				 strerror(-sys_view_mounts_error(l->view)));
	}
	return r;
}

/*
 * Is the program run from a user's or a temporary tree (learn-private.h)? Its
 * key and its executable are looked at, directories from the root down.
 * (struct admit.program_private: the answers about directories made again when
 * old, with the view read again if the mounts changed.)
 */
static bool program_private(void *ctx, const struct exec_program *prog, uint64_t now)
{
	struct learner *l = ctx;
	char host[PATH_MAX];

	if (!l->priv || now - l->priv_ns >= PRIVATE_KEEP_NS) {
		if (refresh_view(l) < 0)
			return true;	/* no memory: learn nothing doubtful */
		private_cache_free(l->priv);
		l->priv = NULL;
		if (private_cache_new(sys_view_mounts(l->view), &l->priv) < 0)
			return true;
		l->priv_ns = now;
	}
	if (!host_path(&prog->root, prog->path, host, sizeof(host)) ||
	    private_path(l->priv, prog->root.path, host))
		return true;
	if (strcmp(prog->exe, prog->path) == 0)
		return false;
	return !host_path(&prog->root, prog->exe, host, sizeof(host)) ||
	       private_path(l->priv, prog->root.path, host);
}

/* Is @name, in the daemon's root, a user's (struct admit.name_private)? Yes when not known. */
static bool name_private(void *ctx, const char *name)
{
	struct learner *l = ctx;

	return !l->priv || private_path(l->priv, "/", name);
}

static int seed_program(void *ctx, const char *name, int64_t *runs_ns, size_t n)
{
	struct learner *l = ctx;

	/* the pack's file name is the key programs_start() is asked by */
	return programs_seed(l->programs, name, runs_ns, n, now_realtime_ns(), now_monotonic_ns());
}

/* Did the last rewrite of the list end after @ts (or has it not ended)? */
static bool rewrite_after(const struct learner *l, uint64_t ts)
{
	return l->rewrite_ns && (l->rewrite_seq || ts <= l->rewrite_done_ns);
}


/* A task of a window exec'd a program of name @comm at @now. */
static void comm_in_window(struct learner *l, const char *comm, uint64_t now)
{
	struct comm_seen *c = &l->win_comms[l->next_win_comm++ % COMMS_SEEN];

	snprintf(c->comm, sizeof(c->comm), "%s", comm);
	c->ns = now;
}

/* May a window still open hold a task of name @comm (one exec'd in one within a window's length)? */
static bool comm_busy(const struct learner *l, const char *comm, uint64_t now)
{
	for (size_t i = 0; i < COMMS_SEEN; i++)
		if (l->win_comms[i].ns && now - l->win_comms[i].ns <= l->o->window_ns + MS * POLL_MS &&
		    strcmp(l->win_comms[i].comm, comm) == 0)
			return true;
	return false;
}

/*
 * Leave out the page events of tasks named @comm until @until_ns: at once,
 * unless a window may hold such a task (a run of that very program being
 * learned, a child of another's), which would lose its pages; then once no
 * window can (comm_deferred()).
 */
static void comm_defer(struct learner *l, const char *comm, uint64_t until_ns)
{
	uint64_t now = now_monotonic_ns();

	if (!comm_busy(l, comm, now)) {
		if (quiet_add(l->quiet_comm, comm, until_ns))
			log_debug("page events of tasks named '%s' left out", comm);
		return;
	}
	for (size_t i = 0; i < l->ndeferred; i++) {
		if (strcmp(l->deferred[i].comm, comm) == 0) {
			l->deferred[i].ns = until_ns;
			return;
		}
	}
	if (l->ndeferred < COMMS_SEEN) {
		snprintf(l->deferred[l->ndeferred].comm, sizeof(l->deferred[0].comm), "%s", comm);
		l->deferred[l->ndeferred++].ns = until_ns;
	}
}

/* The names deferred whose windows are over: left out now, or dropped when due meanwhile. */
static void comm_deferred(struct learner *l, uint64_t now)
{
	for (size_t i = 0; i < l->ndeferred;) {
		struct comm_seen *d = &l->deferred[i];

		if (d->ns > now && comm_busy(l, d->comm, now)) {
			i++;
			continue;
		}
		if (d->ns > now && quiet_add(l->quiet_comm, d->comm, d->ns))
			log_debug("page events of tasks named '%s' left out", d->comm);
		*d = l->deferred[--l->ndeferred];
	}
}

/*
 * An exec refused its window (learn-admit.h): counted and told. A program
 * refused only for want of room (too many windows open) sets @l->untraced, so
 * that its next runs are traced from their fork (pids armed again); other
 * refusals would refuse the next runs too. A program learned lately has its
 * next execs left out by the kernel until due, where its name allows
 * (learn-quiet.h).
 */
static void refused(struct learner *l, const struct exec_seen *x, bool traced,
		    enum admit_verdict v, uint64_t now, uint64_t wait_ns)
{
	const struct exec_program *prog = &x->prog;

	switch (v) {
	case ADMIT_OPEN:
	case ADMIT_NOT_WANTED:
	case ADMIT_AGAIN:
		break;
	case ADMIT_NO_SCRIPT:
		log_debug("exec of '%s' by pid %d: an interpreter without a script, not learned",
			  x->filename, x->pid);
		break;
	case ADMIT_GONE:
		l->gone++;
		log_debug("exec of '%s' by pid %d: %s, not learned", x->filename, x->pid,
			  strerror(-x->err));
		break;
	case ADMIT_PRIVATE:
		l->skipped_private++;
		log_debug("not learning '%s' (pid %d): run from a user's or a temporary tree",
			  prog->path, x->pid);
		break;
	case ADMIT_PROGRAM_BUSY:
		l->skipped_busy++;
		l->untraced |= !traced;
		log_debug("not learning '%s' (pid %d): %d runs of it are being learned", prog->path,
			  x->pid, MAX_PER_PROGRAM);
		break;
	case ADMIT_USER_BUSY:
		l->skipped_busy++;
		l->untraced |= !traced;
		log_debug("not learning '%s' (pid %d): uid %u has %d windows open", prog->path,
			  x->pid, (unsigned)prog->uid, MAX_PER_USER);
		break;
	case ADMIT_NO_NAME:
		log_debug("not learning '%s' (pid %d): no pack name", prog->path, x->pid);
		break;
	case ADMIT_LEARNED_LATELY:
		l->skipped_rate++;
		if (l->quiet && !quiet_has(l->quiet, x->filename) &&
		    admit_quiet_name(&l->admit, x->filename, prog) &&
		    quiet_add(l->quiet, x->filename, now + wait_ns))
			log_debug("execs of '%s' left out until its next run is due", x->filename);
		/* its tasks' page events too, by name (comm_defer()) */
		if (l->quiet_comm && wait_ns > 2 * QUIET_GAP_NS &&
		    admit_quiet_name(&l->admit, x->filename, prog)) {
			char comm[QUIET_COMM_MAX + 1];

			if (quiet_comm_of(x->filename, comm, sizeof(comm)))
				comm_defer(l, comm, now + wait_ns - 2 * QUIET_GAP_NS);
		}
		log_debug("not learning '%s' (pid %d): learned lately, next run in %.0f s",
			  prog->path, x->pid, (double)wait_ns / 1e9);
		break;
	case ADMIT_USER_NEW:
		l->skipped_user_new++;
		log_debug("not learning '%s' (pid %d): uid %u started %d new programs lately, "
			  "next in %.0f s", prog->path, x->pid, (unsigned)prog->uid, USER_NEW_BURST,
			  (double)wait_ns / 1e9);
		break;
	}
}

/*
 * A task of window @w exec'd @filename: when page events of its name are left
 * out (or may have been since), that run misses that program's pages. The run
 * is kept (a program's first run is the one a pack starts from; the exec
 * daemon replays the child's own pack at its exec), and the name is never
 * left out again, so that the next runs are whole.
 */
static void note_named(struct learner *l, struct learn_window *w, const char *filename)
{
	char comm[QUIET_COMM_MAX + 1];

	if (!l->quiet_comm || !quiet_comm_of(filename, comm, sizeof(comm)) ||
	    (!quiet_has(l->quiet_comm, comm) && !quiet_in_force(l->quiet_comm, comm)))
		return;
	quiet_bar(l->quiet_comm, comm);
	l->partial_named++;
	log_debug("window of '%s' (pid %d): '%s' started in it, whose page events were left out "
		  "by name: its pages are missing from this run; that name no longer left out",
		  w->exe, w->pid, filename);
}

/*
 * Open a window for the exec, if its program is to be learned and may be now
 * (learn-admit.h) and a window is free (all open is a want of room, as in
 * refused()): true when one opened.
 */
static bool open_window(struct learner *l, const struct exec_seen *x, bool traced)
{
	const struct exec_program *prog = &x->prog;
	struct learn_window *w = NULL;
	uint64_t now = now_monotonic_ns(), wait_ns = 0;
	char comm[QUIET_COMM_MAX + 1];
	enum admit_verdict v;
	int err;

	/*
	 * Its name let in again (due) but the filter still in force: a window now
	 * would see nothing of it; its next start, after the write, is learned
	 * (a name still listed is another program's: learned, and barred)
	 */
	if (l->quiet_comm && quiet_comm_of(x->filename, comm, sizeof(comm)) &&
	    !quiet_has(l->quiet_comm, comm) && quiet_in_force(l->quiet_comm, comm)) {
		log_debug("not learning '%s' (pid %d) yet: the page events of its name are still "
			  "left out", prog->path, x->pid);
		return false;
	}
	v = admit_exec(&l->admit, x, now, &wait_ns);
	if (v != ADMIT_OPEN) {
		refused(l, x, traced, v, now, wait_ns);
		return false;
	}
	err = windows_open(&l->ws, prog->root.id, prog->root.path, prog->path, x->pid, x->ts,
			   l->o->window_ns, &w);
	if (err == -ENOSPC) {
		l->skipped_busy++;
		l->untraced |= !traced;
		log_debug("not learning '%s' (pid %d): too many windows open", prog->path, x->pid);
		return false;
	}
	if (err < 0) {
		l->error = err;
		return false;
	}
	w->uid = prog->uid;
	if (prog->check_script && !(w->script_of = strdup(prog->exe))) {
		l->error = -ENOMEM;
		return false;
	}
	note_named(l, w, x->filename);
	if (l->quiet_comm && quiet_comm_of(x->filename, comm, sizeof(comm)))
		comm_in_window(l, comm, now);
	/*
	 * Traced before the list was emptied, or while: the rewrite lost its events
	 * of then (rewrite()); it lives now, so it lived through the rewrite. An exec
	 * read after the rewrite was decided (a window open then was known, and
	 * dropped by it). So no run merged had a task traced while the list was
	 * emptied: a task left out of the new list all the same could not matter.
	 */
	if (traced && rewrite_after(l, x->ts)) {
		log_debug("window of '%s' (pid %d): its exec came before the pid filter was "
			  "written afresh, which lost its events meanwhile", prog->path, x->pid);
		w->lost |= WINDOW_LOST_TASK;
	}
	l->windows++;
	l->last_open_ns = w->seen_ns = now_monotonic_ns();
	w->demand.evidence = l->evidence;
	/*
	 * Every page a fault-around window mapped with a touched one counts as
	 * demanded, as in a command's trace: the pack then holds every page the
	 * run used, to the resolution its starts allowed (measured on python,
	 * emmc: with only the pages near the touched one, the pack of a cold and
	 * two warm starts held 12.3 MB demanded against the one-shot trace's 16.8,
	 * and closed 35% of the gap against its 66%).
	 */
	w->demand.near_pages = -1;
	if (traced) {
		struct pre_exec pre = { .l = l, .w = w };

		w->traced_ns = x->ts;	/* traced from before its exec: nothing missed */
		l->traced_at_exec++;
		/* and what the exec itself read */
		err = recent_replay(l->recent, x->pid, x->ts > PRE_EXEC_NS ? x->ts - PRE_EXEC_NS : 0,
				    x->ts, feed_pre_exec, &pre);
		if (err < 0) {
			l->error = err;
			return true;
		}
	} else {
		w->pid_seq = pidfilter_add(l->pf, x->pid);
		l->last_write_ns = l->last_open_ns;
		l->untraced = false;
		adopt_children(l, x->pid);
	}
	follow_parent(l, x->pid, l->last_open_ns);
	return true;
}

/* A traced child of @pid's parent opened no window: dropped soon, if that was one too many. */
static void missed(struct learner *l, int pid)
{
	int parent = follow_miss(&l->follow, pid);

	if (!parent)
		return;
	l->unfollowed = true;
	log_debug("pid %d no longer followed: too few of the programs it started were learned",
		  parent);
}

static void on_exec(struct learner *l, const struct exec_seen *x)
{
	bool traced = exec_traced(l, x->pid, x->ts);

	l->execs++;
	if (!open_window(l, x, traced) && traced)
		missed(l, x->pid);
}

/* Task @child forked at @ts into @w (or a window inside it): one of its unseen tasks? */
static void fork_seen(struct learn_window *w, int child, uint64_t ts)
{
	if (!w->checked_ns || ts > w->checked_ns)
		return;
	for (unsigned i = 0; i < w->nunseen; i++)
		if (w->unseen[i] == child) {
			w->unseen[i] = w->unseen[--w->nunseen];
			return;
		}
	w->forks_then++;
}

/* Handle one record, in time order. */
static int handle(struct learner *l, const struct rec *r)
{
	struct tep_record rec = { .ts = r->ts, .data = l->recs.data + r->off, .size = (int)r->size };
	static struct task_event tev;
	struct trace_event ev;
	int err;

	if (r->missed && r->kind != REC_EXEC)
		windows_lose(&l->ws, WINDOW_LOST_EVENTS);
	if (r->kind == REC_EXEC) {
		on_exec(l, r->exec);
		free(r->exec);
		return l->error;
	}
	/* every record of a traced task, for the window its next exec opens */
	recent_push(l->recent, r->pid, r->ts, r->kind == REC_PEXEC || r->kind == REC_EXIT,
		    rec.data, r->size);
	if (r->kind == REC_FORK && learn_events_decode(l->task_dec, &rec, &tev) == 1) {
		recent_push(l->recent, tev.child, r->ts, true, NULL, 0);	/* a new task */
		follow_fork(&l->follow, tev.pid, tev.child);
	}
	if (r->kind == REC_PEXEC) {
		bool decoded = (l->quiet || l->quiet_comm) &&
			       learn_events_decode(l->task_dec, &rec, &tev) == 1 &&
			       tev.type == TASK_EXEC;

		/* a followed parent's child left out of the exec events: a miss all the same */
		if (decoded && l->quiet && quiet_in_force(l->quiet, tev.filename))
			missed(l, r->pid);
		/* a task of a window: a program whose page events are left out by name */
		if (decoded && windows_has_task(&l->ws, r->pid)) {
			char comm[QUIET_COMM_MAX + 1];

			note_named(l, windows_task_window(&l->ws, r->pid), tev.filename);
			if (l->quiet_comm && quiet_comm_of(tev.filename, comm, sizeof(comm)))
				comm_in_window(l, comm, now_monotonic_ns());
		}
		return 0;	/* else seen with the exec instance's record */
	}
	if (!windows_knows_task(&l->ws, r->pid)) {
		l->extra_events++;
		return 0;
	}
	if (r->kind == REC_FORK || r->kind == REC_EXIT) {
		if (learn_events_decode(l->task_dec, &rec, &tev) != 1)
			return 0;
		if (tev.type == TASK_FORK) {
			err = windows_fork(&l->ws, tev.pid, tev.child);
			for (struct learn_window *w = windows_task_window(&l->ws, tev.child); w;
			     w = windows_outer(&l->ws, w))
				fork_seen(w, tev.child, r->ts);
			return err;
		}
		windows_exit(&l->ws, tev.pid, tev.ts);
		return 0;
	}
	if (trace_events_decode(l->page_dec, &rec, &ev) <= 0)
		return 0;
	err = windows_feed(&l->ws, &ev);
	return err < 0 ? err : 0;
}

/* Add @tid to @w's tasks to be seen forked, unless the window has it. */
static void note_unseen(struct learner *l, struct learn_window *w, int tid)
{
	if (tid <= 0 || tid == w->pid || windows_knows_task(&l->ws, tid))
		return;
	if (w->nunseen == WINDOW_UNSEEN_MAX) {
		w->lost |= WINDOW_LOST_LATE;
		return;
	}
	w->unseen[w->nunseen++] = tid;
}

/*
 * A window traced after its exec: the tasks its program had started by now
 * (its threads, its children, one it waited for) are each to be seen forked
 * in the records (traced), else one was never traced (fork_seen(), close_due()).
 */
static void check_started(struct learner *l, struct learn_window *w)
{
	int kids[CHILDREN_MAX];
	char what[48];
	unsigned threads;
	long n;
	DIR *d;

	if (proc_started(w->pid, &threads, &w->reaped) < 0)
		return;	/* gone: what it did after its trace is in the records */
	w->checked_ns = now_monotonic_ns();
	n = proc_children(w->pid, kids, CHILDREN_MAX);
	for (long i = 0; i < n; i++)
		note_unseen(l, w, kids[i]);
	if (threads < 2)
		return;
	snprintf(what, sizeof(what), "/proc/%d/task", w->pid);
	d = opendir(what);
	if (!d) {
		w->lost |= WINDOW_LOST_LATE;
		return;
	}
	for (struct dirent *e; (e = readdir(d));)
		note_unseen(l, w, atoi(e->d_name));
	closedir(d);
}

/* The windows whose pid filter write is done: since when they are traced. */
static void settle_pending(struct learner *l)
{
	for (size_t i = 0; i < l->ws.n; i++) {
		struct learn_window *w = &l->ws.w[i];
		uint64_t since;
		int err;

		if (w->traced_ns != WINDOW_TRACED_PENDING || !pidfilter_done(l->pf, w->pid_seq,
									  &since, &err))
			continue;
		w->traced_ns = since + PUBLISH_NS > w->start_ns ? since + PUBLISH_NS : w->start_ns;
		if (err < 0) {
			log_warn("cannot trace pid %d of '%s': %s, skipping", w->pid, w->exe,
				 strerror(-err));
			w->lost |= WINDOW_LOST_LATE;
		} else if (w->traced_ns - w->start_ns > LATE_NS) {
			w->lost |= WINDOW_LOST_LATE;
		} else if (w->traced_ns > w->start_ns) {
			check_started(l, w);
		}
		log_debug("window of '%s' (pid %d): traced %.3f ms after its exec", w->exe, w->pid,
			  (double)(w->traced_ns - w->start_ns) / 1e6);
	}
}

static const char *lost_reason(unsigned lost)
{
	if (lost & WINDOW_LOST_FLOOD)
		return "more events than a start makes (closed, its tasks no longer traced)";
	if (lost & WINDOW_LOST_STOPPED)
		return "the daemon stopped before its end";
	if (lost & WINDOW_LOST_EVENTS)
		return "events were lost";
	if (lost & WINDOW_LOST_LATE)
		return "traced too late after its exec";
	return "a task of it was not traced";
}

/*
 * A flooded window's tasks are no longer traced: left out of the next rewrite
 * (which comes at once) and of the pids armed by every write.
 */
static void ban_tasks(struct learner *l, const struct learn_window *w)
{
	int *pids = NULL;
	long n = windows_pids_of(&l->ws, w, &pids);

	for (long i = 0; i < n; i++)
		pidfilter_ban(l->pf, pids[i]);
	free(pids);
}

/* Close the windows that are complete: their runs go to the worker, or are dropped. */
static void close_due(struct learner *l, uint64_t now)
{
	struct learn_window *w;

	while ((w = windows_due(&l->ws, now, SLACK_NS))) {
		struct learn_window done;

		if (w->lost & WINDOW_LOST_FLOOD)
			ban_tasks(l, w);
		/* a task its program started before its trace, never seen forked: not traced */
		if (w->nunseen || (w->reaped && !w->forks_then)) {
			log_debug("window of '%s' (pid %d): of the tasks it had started %.3f ms "
				  "after its exec, %u never seen forked%s", w->exe, w->pid,
				  (double)(w->checked_ns - w->start_ns) / 1e6, w->nunseen,
				  w->reaped && !w->forks_then ? ", and a child waited for" : "");
			w->lost |= WINDOW_LOST_LATE;
		}
		windows_take(&l->ws, w, &done);
		log_debug("window of '%s' (pid %d) closed: exec read after %.3f ms, traced %.3f ms "
			  "after the exec, %" PRIu64 " page events, %s", done.exe, done.pid,
			  (double)(done.seen_ns - done.start_ns) / 1e6,
			  done.traced_ns == WINDOW_TRACED_PENDING ? -1.0 :
			  (double)(done.traced_ns - done.start_ns) / 1e6,
			  done.events, done.lost ? lost_reason(done.lost) : "merged");
		if (done.lost) {
			if (done.lost & WINDOW_LOST_FLOOD) {
				l->floods++;
				l->flooded = true;
			}
			l->lost_runs++;
			l->late += (done.lost & WINDOW_LOST_LATE) != 0;
			log_info("not learning this run of '%s' (pid %d): %s", done.exe, done.pid,
				 lost_reason(done.lost));
			windows_free_one(&done);
			continue;
		}
		/* the worker takes the window whatever the result: its name is copied first */
		{
			char *exe = strdup(done.exe ? done.exe : "");

			refresh_view(l);
			if (worker_submit(l->wk, &done, l->view) < 0)
				log_warn("not learning this run of '%s': too many runs waiting to be "
					 "written", exe ? exe : "?");
			free(exe);
		}
	}
}

/*
 * The records handled leave the front, their bytes too, once they are half of
 * what is kept (a backlog handled a round at a time is not moved each round).
 */
static void compact(struct recs *r)
{
	size_t len = 0, keep = 0;

	if (r->head == r->n) {
		r->head = r->n = r->len = 0;
		return;
	}
	if (r->head * 2 < r->n)
		return;
	for (size_t i = r->head; i < r->n; i++, keep++) {
		struct rec x = r->v[i];

		memmove(r->data + len, r->data + x.off, x.size);
		x.off = len;
		len += x.size;
		r->v[keep] = x;
	}
	r->len = len;
	r->n = keep;
	r->head = 0;
}

/* Records [head, @old) are sorted (carried from the last round); sort the new ones and merge. */
/* The end of the run in order that starts at @i of @v (@n records). */
static size_t run_end(const struct rec *v, size_t i, size_t n)
{
	while (i + 1 < n && cmp_rec(&v[i], &v[i + 1]) <= 0)
		i++;
	return i + 1;
}

/*
 * Sort @v (@n records) by cmp_rec(). A round's records come as a few runs
 * already in order (each CPU's buffer of each instance, read one after the
 * other): neighbouring runs are merged, pass after pass, each pass halving
 * their number. (A qsort() of them was 7% of the daemon's CPU.)
 */
static int sort_runs(struct rec *v, size_t n)
{
	struct rec *tmp;
	bool more = true;

	if (n < 2 || run_end(v, 0, n) == n)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	while (more) {
		size_t i = 0, k = 0;

		more = false;
		while (i < n) {
			size_t a = i, a_end = run_end(v, i, n), b = a_end, b_end;

			if (a_end == n) {
				memcpy(tmp + k, v + a, (n - a) * sizeof(*v));
				break;
			}
			b_end = run_end(v, b, n);
			while (a < a_end || b < b_end)
				tmp[k++] = b == b_end || (a < a_end && cmp_rec(&v[a], &v[b]) <= 0) ?
					   v[a++] : v[b++];
			i = b_end;
			more |= i < n;
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
	free(tmp);
	return 0;
}

static int merge_new(struct recs *r, size_t old)
{
	struct rec *out;
	size_t a = r->head, b = old, k = 0;

	if (sort_runs(r->v + old, r->n - old) < 0)
		return -ENOMEM;
	if (old == r->head || old == r->n || cmp_rec(&r->v[old - 1], &r->v[old]) <= 0)
		return 0;
	out = malloc((r->n - r->head) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	while (a < old || b < r->n)
		out[k++] = b == r->n || (a < old && cmp_rec(&r->v[a], &r->v[b]) <= 0) ? r->v[a++] :
										       r->v[b++];
	memcpy(r->v + r->head, out, k * sizeof(*out));
	free(out);
	return 0;
}

/*
 * One round: both instances read, their records handled in time order up to
 * the cut, at most ROUND_MAX_RECORDS of the scoped instance (@ret_more: some
 * were left for the next round).
 */
static int round_once(struct learner *l, bool *ret_more)
{
	uint64_t cut = now_monotonic_ns() - CUT_NS;
	size_t old = l->recs.n, done = 0, i;
	long n;
	int err;

	*ret_more = false;
	/* the mounts the execs' keys are checked against: read again if they changed */
	if (refresh_view(l) < 0)
		return -ENOMEM;
	/* execs first: what they started is looked up at once (the cut keeps the order right) */
	n = tracer_read(l->exec_t, collect_execs, l);
	if (n >= 0)
		n = tracer_read(l->pages_t, collect_pages, l);
	if (n < 0) {
		log_err("cannot read the trace buffers: %s", strerror((int)-n));
		return (int)n;
	}
	if (l->dropped) {
		log_warn("%" PRIu64 " events dropped: more than %zu waiting, runs being learned are "
			 "dropped", l->dropped, 2 * BACKLOG_MAX);
		l->dropped = 0;
	}
	err = merge_new(&l->recs, old);
	if (err < 0)
		return err;
	/* the traced execs of the last moments, by pid, for exec_traced() */
	for (i = 0; i < l->npexec;) {
		if (l->pexec[i].ts + PEXEC_KEEP_NS < cut)
			l->pexec[i] = l->pexec[--l->npexec];
		else
			i++;
	}
	if (l->npexec > 1)
		qsort(l->pexec, l->npexec, sizeof(*l->pexec), cmp_pexec);
	l->exec_left = false;
	for (i = l->recs.head; i < l->recs.n; i++) {
		struct rec *r = &l->recs.v[i];

		if (r->ts > cut) {
			/* an exec left for the next round: that round comes at once */
			for (size_t j = i; j < l->recs.n && !l->exec_left; j++)
				l->exec_left = l->recs.v[j].kind == REC_EXEC;
			break;
		}
		if (r->kind != REC_EXEC && done == ROUND_MAX_RECORDS) {
			*ret_more = true;
			break;
		}
		done += r->kind != REC_EXEC;
		err = handle(l, r);
		r->exec = NULL;		/* handle() freed it */
		if (err < 0) {
			log_err("cannot learn: %s", strerror(-err));
			return err;
		}
	}
	l->recs.head = i;
	compact(&l->recs);
	return 0;
}

/*
 * Tasks traced for no window, and no window open (or a window's flood): the
 * list started again with the parents that started learned programs lately
 * (and the open windows' tasks). Emptying the list (O_TRUNC) loses the listed
 * tasks' events for tens of ms (Linux 6.18: 40-58 ms of a 90 ms emptying, in
 * three runs of a task reading every ms; an append loses none): the runs of
 * the windows open then, and of those whose exec is read later but came
 * before the list was written (open_window()), miss them and are not merged.
 */
static void rewrite(struct learner *l, uint64_t now)
{
	int *tasks = NULL;
	long nt = l->ws.n ? windows_pids(&l->ws, &tasks) : 0;
	int *keep = malloc((FOLLOW_MAX + (size_t)(nt > 0 ? nt : 0)) * sizeof(*keep));
	size_t n;

	if (nt < 0 || !keep) {
		free(tasks);
		free(keep);
		return;		/* no memory now: the next round tries again */
	}
	n = follow_keep(&l->follow, now, alive, keep);
	if (nt > 0)
		memcpy(keep + n, tasks, (size_t)nt * sizeof(*keep));
	free(tasks);
	log_debug("pid filter written afresh: %" PRIu64 " events of tasks in no window, %zu "
		  "parents kept, %ld tasks of windows", l->extra_events, n, nt);
	windows_lose(&l->ws, WINDOW_LOST_TASK);
	l->rewrite_seq = pidfilter_rewrite(l->pf, keep, n + (size_t)nt);
	free(keep);
	l->flooded = false;
	l->unfollowed = false;
	l->rewrite_ns = l->gap_from_ns = now;
	l->extra_events = 0;
	l->last_write_ns = now;
	l->untraced = false;
}

/* After a round: windows settled and closed, the pid filter armed again or rewritten. */
/* The programs whose packs settled give up the rest of their burst. */
static void settle(struct learner *l, uint64_t now)
{
	char names[8][NAME_MAX + 1];
	size_t n;

	while (l->wk && (n = worker_take_settled(l->wk, names, 8)) > 0)
		for (size_t i = 0; i < n; i++)
			if (programs_settled(l->programs, names[i], now))
				log_debug("'%s': its pack has settled, its next run learned in an "
					  "interval", names[i]);
}

static void after_round(struct learner *l, uint64_t now)
{
	bool due;

	settle_pending(l);
	close_due(l, now);
	settle(l, now);
	if (l->quiet)
		quiet_update(l->quiet, now);
	if (l->quiet_comm) {
		comm_deferred(l, now);
		quiet_update(l->quiet_comm, now);
	}
	if (l->rewrite_seq) {
		uint64_t since;
		int err;

		if (pidfilter_done(l->pf, l->rewrite_seq, &since, &err)) {
			l->rewrite_seq = 0;
			/* the new list in force: since its write (the emptying's end) */
			l->rewrite_done_ns = (since ? since : now_monotonic_ns()) + PUBLISH_NS;
		}
	}
	due = l->ws.n == 0 && now - l->gap_from_ns >= REWRITE_GAP_NS &&
	      (l->extra_events >= EXTRA_EVENTS_MAX || l->unfollowed);
	if (!due)
		l->rewrite_due_ns = 0;
	else if (!l->rewrite_due_ns)
		l->rewrite_due_ns = now;
	/* a flood's tasks are dropped at once, with the open windows' tasks kept */
	if ((l->flooded || (due && (l->last_exec_ns + REWRITE_QUIET_NS <= now ||
				     now - l->rewrite_due_ns >= REWRITE_WAIT_NS))) &&
	    !l->rewrite_seq && pidfilter_idle(l->pf))
		rewrite(l, now);
	/*
	 * A stats file per CPU and instance, opened and read: once a second, not
	 * on each exec's wakeup (an exec-heavy workload wakes us thousands of
	 * times a second) nor each poll period (8% of the daemon's CPU on the
	 * distinct workload of bench/learn-cpu.sh). Only the log waits for it:
	 * the reader sees a page's lost events itself (tracer_read()).
	 */
	if (now - l->lost_checked_ns >= LOST_CHECK_MS * MS) {
		uint64_t lost;

		l->lost_checked_ns = now;
		lost = tracer_lost_events(l->pages_t) + tracer_lost_events(l->exec_t);
		if (lost > l->lost) {
			log_warn("%" PRIu64 " events lost: the trace buffers overflowed, runs "
				 "being learned are dropped", lost - l->lost);
			l->lost = lost;
		}
	}
}

/* The page events' filter by task name, on each page event the instance has. */
static int comm_filter(struct learner *l)
{
	static const enum trace_event_type ids[] = { TRACE_EVENT_ADD, TRACE_EVENT_FAULT,
						     TRACE_EVENT_GET_PAGES, TRACE_EVENT_MAP_PAGES };
	enum { NIDS = sizeof(ids) / sizeof(ids[0]) };
	char *paths[NIDS];
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; i < NIDS; i++) {
		if (!tracer_has_event(l->pages_t, ids[i]))
			continue;
		paths[n] = tracer_filter_file(l->pages_t, trace_event_specs[ids[i]].system,
					      trace_event_specs[ids[i]].name);
		if (!paths[n]) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	if (r == 0 && n == 0)
		r = -ENOENT;	/* no page event to filter */
	if (r == 0)
		r = quiet_new_comm((const char *const *)paths, n, &l->tracefs_lock, &l->quiet_comm);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	return r;
}

static int setup(struct learner *l)
{
	const struct trace_options *o = l->o;
	struct tracer_opts eo = { .exec_only = true, .buffer_kb = EXEC_BUFFER_KB };
	struct tracer_opts po = {
		.buffer_kb = o->buffer_kb,
		.access_events = o->events != TRACE_EVENTS_ADD,
		/*
		 * No fault addresses: a window counts every page of a fault-around
		 * window with a touched one (open_window()), so they would tell
		 * nothing; they cost the daemon about a tenth of its CPU
		 * (bench/learn-cpu.sh, WORKLOAD=distinct: 57-64 ms a round once
		 * learned against 61-73 ms)
		 */
		.fault_addresses = false,
		.task_events = true,
	};
	struct worker_opts wo = {
		.dir = o->watch_dir,
		.merge = { .min_confidence = o->min_confidence, .keep_runs = o->keep_runs },
		.caps = { .max_packs = o->max_packs, .max_bytes = o->max_size,
			  .forget_ns = PACKDIR_FORGET_NS },
		.include_user_files = o->include_user_files,
	};
	char *pid_file = NULL, *filter_file;
	int r;

	r = key_self_read(&l->self);
	if (r < 0)
		return r;
	r = programs_new(o->learn_interval_ns, &l->programs);
	if (r < 0)
		return r;
	/* the budgets a daemon before this one left, from the runs each pack holds */
	r = packdir_each_runs(o->watch_dir, seed_program, l);
	if (r < 0)
		log_warn("cannot read the runs of the packs in '%s': %s, budgets start full",
			 o->watch_dir, strerror(-r));
	/* one view of the system, the loop's, handed to the worker with each run */
	r = sys_view_read(SYS_VIEW_WATCH, &l->view);
	if (r == 0 && !sys_view_mounts(l->view))
		r = sys_view_mounts_error(l->view);
	if (r < 0) {
		log_err("cannot read '/proc/self/mountinfo': %s", strerror(-r));
		return r;
	}
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
	l->admit = (struct admit){
		.only = o->only, .only_real = (const char *const *)l->only_real, .nonly = o->nonly,
		.include_user_files = o->include_user_files, .ws = &l->ws, .programs = l->programs,
		.program_private = program_private, .name_private = name_private,
		.stat_paths = admit_stat_paths, .ctx = l,
	};
	r = tracer_remove_orphans();
	if (r >= 0)
		r = tracer_new(&eo, &l->exec_t);
	if (r >= 0)
		r = tracer_new(&po, &l->pages_t);
	if (r < 0)
		return r;
	/* the kernel leaves out the execs of programs refused until due (learn-quiet.h) */
	filter_file = tracer_filter_file(l->exec_t, "sched", "sched_process_exec");
	r = filter_file ? quiet_new(filter_file, &l->tracefs_lock, &l->quiet) : -ENOMEM;
	free(filter_file);
	if (r < 0)
		log_debug("no exec filter: %s; every exec is read", strerror(-r));
	/* and the page events of their tasks (learn-quiet.h) */
	r = comm_filter(l);
	if (r < 0)
		log_debug("no page events' filter: %s; refused programs' events are read",
			  strerror(-r));
	/* no task traced until a window opens (set before tracing is on) */
	r = tracer_set_pids(l->pages_t, NULL, 0);
	if (r < 0)
		return r;
	/* an exec wakes the loop at once */
	if (tracer_set_wakeup(l->exec_t, 0) < 0)
		log_debug("cannot set the exec buffers' wakeup: the kernel's default stays");
	r = learn_events_new(tracer_tep(l->exec_t), &l->exec_dec);
	if (r >= 0)
		r = learn_events_new(tracer_tep(l->pages_t), &l->task_dec);
	if (r >= 0)
		r = trace_events_new(tracer_tep(l->pages_t), &l->page_dec);
	if (r < 0)
		return r;
	l->evidence = demand_evidence(tracer_has_event(l->pages_t, TRACE_EVENT_GET_PAGES),
				      tracer_has_event(l->pages_t, TRACE_EVENT_MAP_PAGES));
	if (l->evidence == DEMAND_EVIDENCE_NONE)
		wo.info_flags |= URA_PACK_INFO_NO_ACCESS_EVENTS;
	r = tracer_poll_fd(l->exec_t);
	if (r >= 0)
		r = tracer_poll_fd(l->pages_t);
	if (r < 0)
		return r;
	r = recent_new(RECENT_SLOTS, &l->recent);
	if (r >= 0)
		r = worker_new(&wo, l->view, &l->wk);
	if (r < 0)
		return r;
	pid_file = tracer_pid_file(l->pages_t);
	r = pid_file ? pidfilter_new(pid_file, &l->tracefs_lock, &l->pf) : -ENOMEM;
	free(pid_file);
	if (r < 0)
		return r;
	r = tracer_start(l->pages_t);
	if (r >= 0)
		r = tracer_start(l->exec_t);
	if (r >= 0)
		pidfilter_arm(l->pf);	/* the next programs traced from their fork */
	l->last_write_ns = l->gap_from_ns = now_monotonic_ns();
	return r;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * The gap before the next round, after one at @now that read @execs execs and
 * opened a window or not: doubled each round of a storm (a span whose execs
 * came faster than STORM_EXECS_PER_S, none opening a window), the least
 * otherwise; a window opened ends a storm at once.
 */
static void pace_rounds(struct learner *l, uint64_t now, uint64_t execs, bool opened)
{
	if (opened) {
		l->storm = false;
		l->span_ns = now;
		l->span_execs = 0;
	} else {
		l->span_execs += execs;
		if (now - l->span_ns >= STORM_SPAN_NS) {
			l->storm = l->span_execs * 1000000000ull >=
				   STORM_EXECS_PER_S * (now - l->span_ns);
			l->span_ns = now;
			l->span_execs = 0;
		}
	}
	if (!l->storm)
		l->round_gap_ns = ROUND_GAP_NS;
	else if (l->round_gap_ns < ROUND_GAP_MAX_NS)
		l->round_gap_ns *= 2;
}

static int loop(struct learner *l, int sigfd)
{
	int exec_fd = tracer_poll_fd(l->exec_t), pages_fd = tracer_poll_fd(l->pages_t);
	bool more = false;

	l->round_gap_ns = ROUND_GAP_NS;
	l->span_ns = now_monotonic_ns();
	for (;;) {
		struct pollfd p[3] = { { .fd = sigfd, .events = POLLIN },
				       { .fd = exec_fd, .events = POLLIN },
				       { .fd = pages_fd, .events = POLLIN } };
		bool busy = l->ws.n || l->recs.n > l->recs.head || l->extra_events >= EXTRA_EVENTS_MAX;
		uint64_t now, execs, windows, since = now_monotonic_ns() - l->last_round_ns;
		/* the scoped instance's events wake the loop only POLL_MS after a round */
		bool pages = since >= POLL_MS * MS;
		int timeout = more ? 0 : !pages ? (int)((POLL_MS * MS - since) / MS) + 1 :
			      busy ? POLL_MS : -1;
		int r;

		/*
		 * An exec read within CUT_NS of its time waits for the next round, which
		 * is due then: no event may wake the loop for it (it was read already),
		 * and a wait of POLL_MS made its program's window open 30-50 ms late
		 */
		if (l->exec_left && (timeout < 0 || timeout > 1))
			timeout = 1;

		/* a name of a filter due, or its write to make: woken for it */
		if ((l->quiet || l->quiet_comm) && !more) {
			uint64_t t = now_monotonic_ns(), next = UINT64_MAX, c = UINT64_MAX;

			if (l->quiet)
				next = quiet_next_ns(l->quiet, t);
			if (l->quiet_comm)
				c = quiet_next_ns(l->quiet_comm, t);
			next = c < next ? c : next;

			if (next != UINT64_MAX) {
				int q = next <= t ? 0 : (int)((next - t) / MS) + 1;

				if (timeout < 0 || q < timeout)
					timeout = q;
			}
		}
		if (poll(p, pages ? 3 : 2, timeout) < 0 && errno != EINTR)
			return -errno;
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
				log_info("signal %u: stopping, %zu window%s in flight dropped",
					 si.ssi_signo, l->ws.n, l->ws.n == 1 ? "" : "s");
				return 0;
			}
		}
		/* execs of a burst come together: one round for them all */
		now = now_monotonic_ns();
		if (!more && now - l->last_round_ns < l->round_gap_ns)
			sleep_ns(l->round_gap_ns - (now - l->last_round_ns));
		l->last_round_ns = now_monotonic_ns();
		execs = l->execs;
		windows = l->windows;
		r = round_once(l, &more);
		if (r < 0)
			return r;
		pace_rounds(l, l->last_round_ns, l->execs - execs, l->windows != windows);
		/* an exec not traced from its fork: the next ones should be */
		if (l->untraced && now - l->last_write_ns >= REARM_GAP_NS && pidfilter_idle(l->pf)) {
			pidfilter_arm(l->pf);
			l->last_write_ns = now;
			l->untraced = false;
		}
		after_round(l, now_monotonic_ns());
	}
}

static void log_counts(struct learner *l)
{
	struct pidfilter_stats ps = { 0 };
	struct worker_stats ws = { 0 };
	struct quiet_stats qs = { 0 }, cs = { 0 };

	if (l->quiet_comm)
		quiet_get_stats(l->quiet_comm, &cs);
	if (l->pf)
		pidfilter_get_stats(l->pf, &ps);
	if (l->wk)
		worker_get_stats(l->wk, &ws);
	if (l->quiet)
		quiet_get_stats(l->quiet, &qs);
	log_info("%" PRIu64 " execs, %" PRIu64 " windows (%" PRIu64 " traced from the exec), %"
		 PRIu64 " runs merged, %" PRIu64 " dropped (%" PRIu64 " late, %" PRIu64 " floods), %" PRIu64
		 " not opened (busy), %" PRIu64 " not learned (learned lately), %" PRIu64
		 " not learned (a user's tree), %" PRIu64 " not learned (a user's new programs), %"
		 PRIu64 " gone before seen, %" PRIu64
		 " parents no longer followed; %" PRIu64
		 " packs written, %" PRIu64 " removed (caps), %" PRIu64 " settled, %" PRIu64
		 " runs not merged (the pack over its share), %" PRIu64
		 " (not the script argv named); %" PRIu64
		 " page records read (%" PRIu64 " of tasks in no window); %" PRIu64
		 " pid filter writes (%" PRIu64 " afresh), "
		 "longest %.1f ms; %" PRIu64 " programs left out of the exec events, %"
		 PRIu64 " exec filter writes%s%s; %" PRIu64 " names left out of the page events, %"
		 PRIu64 " filter writes, %" PRIu64 " runs missing a program left out by name",
		 l->execs, l->windows, l->traced_at_exec, ws.merged,
		 l->lost_runs + ws.dropped, l->late, l->floods, l->skipped_busy, l->skipped_rate,
		 l->skipped_private, l->skipped_user_new, l->gone, l->follow.dropped, ws.writes,
		 ws.evicted, ws.settled, ws.too_large, ws.not_script, l->page_records, l->extra_records,
		 ps.writes, ps.rewrites,
		 (double)ps.max_write_ns / 1e6, qs.added, qs.writes,
		 qs.last_error ? ", the last failed: " : "", qs.last_error ? strerror(-qs.last_error) : "",
		 cs.added, cs.writes, l->partial_named);
}

int learn_run(const struct trace_options *o, bool *ret_unavailable)
{
	struct learner l = { .o = o, .tracefs_lock = PTHREAD_MUTEX_INITIALIZER };
	sigset_t mask, orig;
	int sigfd = -1, r;

	*ret_unavailable = false;
	windows_init(&l.ws, MAX_WINDOWS);
	if (geteuid() != 0) {
		log_err("learning needs root");
		return -EPERM;
	}
	r = packdir_make(o->watch_dir);
	if (r < 0) {
		log_err("cannot make '%s' private: %s", o->watch_dir,
			r == -EPERM ? "it belongs to another user" : strerror(-r));
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
	log_counts(&l);
out:
	/* windows still open are runs cut short: not merged */
	windows_fini(&l.ws);
	/* the runs handed over are complete: written before the worker stops */
	worker_free(l.wk);
	pidfilter_free(l.pf);
	quiet_free(l.quiet);
	quiet_free(l.quiet_comm);
	recent_free(l.recent);
	programs_free(l.programs);
	private_cache_free(l.priv);
	sys_view_unref(l.view);
	/* the instances go: nothing is traced any more while we clean up */
	tracer_free(l.pages_t);
	tracer_free(l.exec_t);
	trace_events_free(l.page_dec);
	learn_events_free(l.task_dec);
	learn_events_free(l.exec_dec);
	for (size_t i = 0; l.only_real && i < o->nonly; i++)
		free(l.only_real[i]);
	free(l.only_real);
	for (size_t i = l.recs.head; i < l.recs.n; i++)
		free(l.recs.v[i].exec);
	free(l.recs.v);
	free(l.recs.data);
	free(l.pexec);
	if (sigfd >= 0)
		close(sigfd);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return r;
}
