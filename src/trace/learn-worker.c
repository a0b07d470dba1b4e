// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Learning's worker thread: the runs of closed windows become packs here, off
 * the event loop, which must read exec events on time whatever this costs
 * (naming inodes, reading a pack, merging, fsync). Runs of one program that
 * wait together are merged into its pack in one read-merge-write, under the
 * directory's lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ura/pack.h>

#include "learn-packdir.h"
#include "learn-private.h"
#include "learn-programs.h"
#include "learn-windows.h"
#include "learn-worker.h"
#include "merge.h"
#include "sys-view.h"
#include "trace-assemble.h"
#include "trace-summary.h"
#include "sys-kernel-mm.h"
#include "util-log.h"
#include "util.h"
#include "key-exec.h"
#include "key.h"

#define QUEUE_MAX	256	/* runs waiting at most (each holds its pages in memory) */
#define QUEUE_PER_USER	(QUEUE_MAX / 2)	/* of them, of one user's programs */
#define WORKER_NICE	10	/* nice values below the event loop's: it must not make the loop
				 * wait for a CPU (the unit's Nice= is the loop's too) */
#define BOUND_GAP_NS	(60ull * 1000000000)	/* DIR's caps checked this often, and on a new pack */
#define GONE_GAP_NS	(3600ull * 1000000000)	/* packs of programs gone looked for this often */
#define PACK_RANGE_BYTES	32	/* a range's record in a pack (ura-pack(5), RANGES) */

struct learn_worker {
	struct worker_opts o;
	char *dir;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct learn_window *q;		/* runs waiting */
	size_t nq;
	bool stop;
	uint64_t stop_by_ns;		/* stopping: give up writing runs at this time (atomic) */
	struct sys_view *view;		/* the view the runs taken are named with (the worker's) */
	struct sys_view *next_view;	/* the event loop's newest, handed over with a run (lock) */
	uint64_t bound_ns, gone_ns;	/* when DIR's caps were last checked, and programs gone */
	bool new_pack;			/* a pack was made since */
	struct worker_stats st;
	char settled[SETTLED_MAX][NAME_MAX + 1];	/* for worker_take_settled() (lock) */
	size_t nsettled;
};

/* One run being written: its window, the pack built from it, what it held. */
struct job {
	struct learn_window w;
	char name[NAME_MAX + 1];
	struct ura_pack_builder *run;
	struct trace_summary sum;
	uint64_t duration_ns;
};

static int cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->w.start_ns < y->w.start_ns ? -1 : x->w.start_ns > y->w.start_ns;
}

/*
 * The run of @j as a pack (j->run), or nothing when it saw nothing; 0 or -errno (logged).
 * @cache: when not NULL, the files of users' and temporary trees are left out
 */
static int build_run(struct learn_worker *wk, struct job *j, const char *path,
		     struct private_cache *cache)
{
	struct learn_window *w = &j->w;
	char *argv[] = { w->exe, NULL };
	struct private_filter pf = { .cache = cache, .root = w->root };
	struct assemble_opts ao = {
		.pack = path,
		.argv = argv,
		.info_flags = wk->o.info_flags,
		.duration_ns = j->duration_ns,
		.leave_out = cache ? private_leave_out : NULL,
		.leave_out_ctx = &pf,
	};

	if (w->script_of) {
		int r = key_exec_script_check(w->exe, w->script_of, sys_view_mounts(wk->view));

		if (r < 0) {
			log_info("not learning '%s' as run by '%s': %s", w->exe, w->script_of,
				 r == -ENOEXEC ? "not a script it runs" :
				 r == -EAGAIN ? "its first page is not cached: the run did not read it" :
				 strerror(-r));
			wk->st.not_script++;
			return 0;
		}
	}
	if (w->demand.events == 0 || w->demand.error) {
		log_info("learned nothing of '%s': %s", w->exe,
			 w->demand.error ? strerror(-w->demand.error) : "no page-cache events");
		wk->st.empty += !w->demand.error;
		wk->st.failed += w->demand.error != 0;
		return 0;
	}
	return assemble_build(&ao, &w->demand, wk->view, NULL, &j->sum, &j->run);
}

/* Stopping, and past the time to give up: the runs not written yet are dropped. */
static bool stopping(void *ctx)
{
	struct learn_worker *wk = ctx;
	uint64_t by = __atomic_load_n(&wk->stop_by_ns, __ATOMIC_RELAXED);

	return by && now_monotonic_ns() >= by;
}

/* DIR within its caps (its lock held), now and then, and when a pack was made; @keep: not removed */
static void bound(struct learn_worker *wk, const char *keep)
{
	struct packdir_caps caps = wk->o.caps;
	struct packdir_usage u;
	uint64_t now = now_monotonic_ns();
	int r;

	if (!wk->new_pack && wk->bound_ns && now - wk->bound_ns < BOUND_GAP_NS)
		return;
	caps.check_programs = !wk->gone_ns || now - wk->gone_ns >= GONE_GAP_NS;
	caps.mounts = sys_view_mounts(wk->view);
	r = packdir_bound(wk->dir, &caps, keep, &u);
	if (r < 0) {
		log_warn("cannot look at the packs in '%s': %s, skipping", wk->dir, strerror(-r));
		return;
	}
	wk->bound_ns = now;
	wk->new_pack = false;
	if (caps.check_programs)
		wk->gone_ns = now;
	wk->st.evicted += u.evicted;
	if (u.temps)
		log_info("removed %lu temporary file%s of killed writers from '%s'", u.temps,
			 u.temps == 1 ? "" : "s", wk->dir);
	if (u.evicted)
		log_info("removed %lu pack%s (%lu of programs gone), %.1f MiB: %lu left, %.1f MiB",
			 u.evicted, u.evicted == 1 ? "" : "s", u.gone,
			 (double)u.evicted_bytes / (1 << 20), u.packs, (double)u.bytes / (1 << 20));
}

/* The pages and demanded pages of @p's ranges. */
static void pack_pages(const struct ura_pack *p, uint64_t *ret_all, uint64_t *ret_demanded)
{
	struct ura_pack_range r;

	*ret_all = *ret_demanded = 0;
	for (size_t i = 0; i < ura_pack_range_count(p); i++) {
		if (ura_pack_get_range(p, i, &r) < 0)
			continue;
		*ret_all += r.page_count;
		if (r.flags & URA_PACK_RANGE_DEMANDED)
			*ret_demanded += r.page_count;
	}
}

/* From the oldest run the pack remembers to its newest, wall clock. */
static int64_t runs_span_ns(const struct ura_pack *p)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, t;

	for (size_t i = 0; i < ura_pack_runs(p); i++) {
		if (ura_pack_get_run(p, i, &t, NULL) < 0)
			continue;
		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	return hi > lo ? hi - lo : 0;
}

static bool near(uint64_t a, uint64_t b, uint64_t slack)
{
	uint64_t d = a > b ? a - b : b - a, m = a > b ? a : b;

	return d <= m * SETTLE_PERCENT / 100 + slack;
}

/* Has the pack settled (learn-worker.h): @old as it was, the pack now written at @path? */
static bool settled(const struct ura_pack *old, const char *path)
{
	struct ura_pack *now = NULL;
	uint64_t a0, d0, a1, d1;
	bool r;

	if (!old || ura_pack_open(path, &now) < 0)
		return false;
	r = ura_pack_runs(now) >= LEARN_SETTLE_RUNS && runs_span_ns(now) >= LEARN_SETTLE_SPAN_NS;
	if (r) {
		pack_pages(old, &a0, &d0);
		pack_pages(now, &a1, &d1);
		r = near(a0, a1, SETTLE_PAGES) && near(d0, d1, SETTLE_PAGES) &&
		    near(ura_pack_file_count(old), ura_pack_file_count(now), 1);
		log_debug("'%s': %zu runs, pages %" PRIu64 " -> %" PRIu64 ", demanded %" PRIu64
			  " -> %" PRIu64 ", files %zu -> %zu: %s", path, ura_pack_runs(now), a0, a1,
			  d0, d1, ura_pack_file_count(old), ura_pack_file_count(now),
			  r ? "settled" : "not settled");
	}
	ura_pack_free(now);
	return r;
}

/* Merge the runs @j[0..n) (built, of one pack) into the pack at @path, under the lock. */
static void write_pack(struct learn_worker *wk, struct job *j, size_t n, const char *path)
{
	struct ura_pack_builder **runs = NULL, *out = NULL;
	struct ura_pack *old = NULL;
	size_t nruns = 0;
	int lock = -1, r;

	runs = calloc(n, sizeof(struct ura_pack_builder *));
	if (!runs) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (j[i].run)
			runs[nruns++] = j[i].run;
	if (!nruns) {
		r = 0;
		goto out;
	}
	/* DIR may have been removed since: make it again */
	r = packdir_make(wk->dir);
	if (r == 0)
		r = packdir_lock(wk->dir, stopping, wk, &lock);
	if (r == -ETIMEDOUT) {
		wk->st.dropped_stop += nruns;
		nruns = 0;
		goto out;
	}
	if (r < 0) {
		log_warn("cannot use '%s': %s, skipping", wk->dir, strerror(-r));
		goto out;
	}
	r = ura_pack_open(path, &old);
	if (r == -EBADMSG) {
		log_warn("pack '%s' is corrupt (%s), replacing it", path, ura_pack_error());
	} else if (r < 0 && r != -ENOENT) {
		/* a newer format, too large, unreadable: keep it, learn nothing into it */
		log_warn("cannot read pack '%s': %s, skipping %zu run%s", path, strerror(-r), nruns,
			 nruns == 1 ? "" : "s");
		goto out;
	}
	r = learn_merge_runs(old, runs, nruns, &wk->o.merge, NULL, &out);
	for (size_t i = 0; i < n; i++)
		j[i].run = NULL;	/* learn_merge_runs() took them */
	if (r < 0) {
		log_warn("cannot merge the runs of '%s' into '%s': %s, skipping", j->w.exe, path,
			 strerror(-r));
		goto out;
	}
	/*
	 * Within a pack's share of DIR (packdir_pack_share()), else the program's
	 * pack stays as it was. Its ranges alone (32 bytes each in the file) tell a
	 * flood without encoding it; the rest is measured encoded.
	 */
	{
		uint64_t share = packdir_pack_share(wk->o.caps.max_bytes);
		uint64_t len = (uint64_t)ura_pack_builder_range_count(out) * PACK_RANGE_BYTES;
		void *data = NULL;
		size_t enc = 0;

		if (len <= share) {
			r = ura_pack_builder_serialize(out, &data, &enc);
			free(data);
			if (r < 0) {
				log_warn("cannot encode the pack of '%s': %s, skipping", j->w.exe,
					 strerror(-r));
				goto out;
			}
			len = enc;
		}
		if (len > share) {
			log_warn("not learning %zu run%s of '%s': its pack would be too large "
				 "(%.1f MiB or more; a pack's share of --max-size is %.1f MiB)",
				 nruns, nruns == 1 ? "" : "s", j->w.exe, (double)len / (1 << 20),
				 (double)share / (1 << 20));
			wk->st.too_large += nruns;
			nruns = 0;
			r = -EFBIG;
			goto out;
		}
	}
	/* a new pack: room is made first, so that DIR never holds more than its cap */
	if (!old && wk->o.caps.max_packs > 1) {
		struct packdir_caps room = wk->o.caps;
		struct packdir_usage u;

		room.max_packs--;
		room.mounts = sys_view_mounts(wk->view);
		if (packdir_bound(wk->dir, &room, j->name, &u) == 0 && u.evicted) {
			wk->st.evicted += u.evicted;
			log_info("removed %lu pack%s to make room for '%s'", u.evicted,
				 u.evicted == 1 ? "" : "s", path);
		}
	}
	r = ura_pack_builder_write(out, path, PACK_MODE);
	if (r < 0) {
		log_warn("cannot write pack '%s': %s, skipping", path, strerror(-r));
		goto out;
	}
	wk->st.writes++;
	wk->new_pack |= !old;
	if (settled(old, path)) {
		wk->st.settled++;
		pthread_mutex_lock(&wk->lock);
		if (wk->nsettled < SETTLED_MAX)
			snprintf(wk->settled[wk->nsettled++], NAME_MAX + 1, "%s", j->name);
		pthread_mutex_unlock(&wk->lock);
	}
	for (size_t i = 0; i < n; i++) {
		if (!j[i].sum.files && !j[i].sum.meta_bytes && !j[i].sum.bytes)
			continue;
		wk->st.merged++;
		/* the machine's own read_ahead_kb: a run's resolution is what its start allowed */
		log_info("learned '%s': %" PRIu64 " pages (%" PRIu64 " demanded) in %" PRIu64
			 " files, metadata %" PRIu64 " pages, %.1f s window, seen to %u KiB, "
			 "%" PRIu64 "%% of the demand cached before (seen to %u KiB), '%s'",
			 j[i].w.exe, j[i].sum.bytes / URA_PACK_PAGE_SIZE,
			 j[i].sum.demanded_bytes / URA_PACK_PAGE_SIZE, j[i].sum.files,
			 j[i].sum.meta_bytes / URA_PACK_PAGE_SIZE, (double)j[i].duration_ns / 1e9,
			 j[i].sum.resolution_kb,
			 j[i].sum.demanded_bytes ?
			 j[i].sum.cached_demanded_bytes * 100 / j[i].sum.demanded_bytes : 0,
			 KERNEL_FAULT_AROUND_PAGES * 4, path);
	}
	nruns = 0;
	bound(wk, j->name);
out:
	if (lock >= 0)
		close(lock);
	if (r < 0)
		wk->st.failed += nruns;
	for (size_t i = 0; i < n; i++) {
		ura_pack_builder_free(j[i].run);
		j[i].run = NULL;
	}
	ura_pack_builder_free(out);
	ura_pack_free(old);
	free(runs);
}

/* The runs taken from the queue: built, grouped by pack, each pack written once. */
static void process(struct learn_worker *wk, struct job *jobs, size_t n)
{
	struct private_cache *cache = NULL;
	char *path = NULL;

	/* answers about directories hold for this batch only: modes change */
	if (!wk->o.include_user_files &&
	    private_cache_new(sys_view_mounts(wk->view), &cache) < 0) {
		log_warn("not learning %zu run%s: %s", n, n == 1 ? "" : "s", strerror(ENOMEM));
		wk->st.failed += n;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int r = key_pack_name(jobs[i].w.root_id, jobs[i].w.exe, jobs[i].name,
					sizeof(jobs[i].name));

		if (r < 0) {
			log_warn("no pack name for '%s': %s, skipping", jobs[i].w.exe, strerror(-r));
			jobs[i].name[0] = '\0';
			wk->st.failed++;
		}
	}
	qsort(jobs, n, sizeof(*jobs), cmp_job);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && strcmp(jobs[b].name, jobs[a].name) == 0;)
			b++;
		if (!jobs[a].name[0])
			continue;
		if (stopping(wk)) {
			wk->st.dropped_stop += b - a;
			continue;
		}
		free(path);
		path = path_join(wk->dir, jobs[a].name);
		if (!path) {
			wk->st.failed += b - a;
			continue;
		}
		for (size_t i = a; i < b; i++)
			if (build_run(wk, &jobs[i], path, cache) < 0)
				wk->st.failed++;	/* logged */
		write_pack(wk, &jobs[a], b - a, path);
	}
	free(path);
	private_cache_free(cache);
}

static void *worker(void *arg)
{
	struct learn_worker *wk = arg;
	struct job *jobs = NULL;

	/* a thread's own nice value (Linux): the event loop keeps its CPU */
	{
		id_t tid = (id_t)syscall(SYS_gettid);
		int base;

		errno = 0;
		base = getpriority(PRIO_PROCESS, tid);
		if (errno)
			base = 0;
		setpriority(PRIO_PROCESS, tid, base + WORKER_NICE < 19 ? base + WORKER_NICE : 19);
	}
	/* DIR within its caps from the start (they may have been lowered) */
	{
		int lock = -1;

		if (packdir_lock(wk->dir, stopping, wk, &lock) == 0) {
			bound(wk, NULL);
			close(lock);
		}
	}
	pthread_mutex_lock(&wk->lock);
	for (;;) {
		size_t n;
		uint64_t t0;

		while (!wk->stop && !wk->nq)
			pthread_cond_wait(&wk->cond, &wk->lock);
		if (!wk->nq)
			break;	/* stopped, and nothing left */
		n = wk->nq;
		jobs = calloc(n, sizeof(*jobs));
		if (jobs) {
			for (size_t i = 0; i < n; i++)
				jobs[i].w = wk->q[i];
			wk->nq = 0;
			/* the event loop's view as of the newest run (it refreshes it) */
			if (wk->next_view) {
				sys_view_unref(wk->view);
				wk->view = wk->next_view;
				wk->next_view = NULL;
			}
		}
		pthread_mutex_unlock(&wk->lock);
		if (!jobs) {
			usleep(100 * 1000);	/* no memory now: the runs wait */
			pthread_mutex_lock(&wk->lock);
			continue;
		}
		t0 = now_monotonic_ns();
		for (size_t i = 0; i < n; i++) {
			uint64_t end = jobs[i].w.empty_ns && jobs[i].w.empty_ns < jobs[i].w.end_ns ?
				       jobs[i].w.empty_ns : jobs[i].w.end_ns;

			jobs[i].duration_ns = end > jobs[i].w.start_ns ? end - jobs[i].w.start_ns : 0;
		}
		process(wk, jobs, n);
		for (size_t i = 0; i < n; i++)
			windows_free_one(&jobs[i].w);
		free(jobs);
		jobs = NULL;
		pthread_mutex_lock(&wk->lock);
		wk->st.busy_ns += now_monotonic_ns() - t0;
	}
	pthread_mutex_unlock(&wk->lock);
	if (wk->st.dropped_stop)
		log_warn("stopping: %" PRIu64 " run%s not written within %.1f s, dropped",
			 wk->st.dropped_stop, wk->st.dropped_stop == 1 ? "" : "s",
			 (double)STOP_DRAIN_NS / 1e9);
	return NULL;
}

int worker_new(const struct worker_opts *o, struct sys_view *view, struct learn_worker **ret)
{
	struct learn_worker *wk = calloc(1, sizeof(*wk));
	int r;

	if (!wk)
		return -ENOMEM;
	wk->o = *o;
	pthread_mutex_init(&wk->lock, NULL);
	pthread_cond_init(&wk->cond, NULL);
	wk->dir = strdup(o->dir);
	wk->q = calloc(QUEUE_MAX, sizeof(*wk->q));
	if (!wk->dir || !wk->q) {
		worker_free(wk);
		return -ENOMEM;
	}
	wk->o.dir = wk->dir;
	wk->view = sys_view_ref(view);
	r = -pthread_create(&wk->thread, NULL, worker, wk);
	if (r < 0) {
		worker_free(wk);
		return r;
	}
	wk->started = true;
	*ret = wk;
	return 0;
}

int worker_submit(struct learn_worker *wk, struct learn_window *w, struct sys_view *view)
{
	size_t mine = 0;
	int r = 0;

	pthread_mutex_lock(&wk->lock);
	wk->st.runs++;
	for (size_t i = 0; i < wk->nq; i++)
		mine += wk->q[i].uid == w->uid;
	if (wk->nq == QUEUE_MAX || mine >= QUEUE_PER_USER) {
		wk->st.dropped++;
		r = -ENOBUFS;
	} else {
		wk->q[wk->nq++] = *w;
		memset(w, 0, sizeof(*w));
		if (view != wk->view && view != wk->next_view) {
			sys_view_unref(wk->next_view);
			wk->next_view = sys_view_ref(view);
		}
		pthread_cond_signal(&wk->cond);
	}
	pthread_mutex_unlock(&wk->lock);
	if (r < 0) {
		windows_free_one(w);
		memset(w, 0, sizeof(*w));
	}
	return r;
}

size_t worker_take_settled(struct learn_worker *wk, char (*names)[NAME_MAX + 1], size_t max)
{
	size_t n;

	pthread_mutex_lock(&wk->lock);
	n = wk->nsettled < max ? wk->nsettled : max;
	memcpy(names, wk->settled, n * sizeof(*names));
	memmove(wk->settled, wk->settled + n, (wk->nsettled - n) * sizeof(*names));
	wk->nsettled -= n;
	pthread_mutex_unlock(&wk->lock);
	return n;
}

void worker_get_stats(struct learn_worker *wk, struct worker_stats *ret)
{
	pthread_mutex_lock(&wk->lock);
	*ret = wk->st;
	pthread_mutex_unlock(&wk->lock);
}

void worker_free(struct learn_worker *wk)
{
	if (!wk)
		return;
	if (wk->started) {
		pthread_mutex_lock(&wk->lock);
		wk->stop = true;
		__atomic_store_n(&wk->stop_by_ns, now_monotonic_ns() + STOP_DRAIN_NS,
				 __ATOMIC_RELAXED);
		pthread_cond_signal(&wk->cond);
		pthread_mutex_unlock(&wk->lock);
		pthread_join(wk->thread, NULL);
	}
	for (size_t i = 0; wk->q && i < wk->nq; i++)
		windows_free_one(&wk->q[i]);
	free(wk->q);
	sys_view_unref(wk->view);
	sys_view_unref(wk->next_view);
	pthread_mutex_destroy(&wk->lock);
	pthread_cond_destroy(&wk->cond);
	free(wk->dir);
	free(wk);
}
