// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: the replays the event loop decided on wait in a bounded
 * queue; --max-replays worker threads take them in turn. A worker first looks
 * at a sample of what the pack would read, and skips a replay whose data is
 * resident; else it replays the pack with the engine (which follows its reads on a
 * device with no seeks, never blocking on one: a stalled device is let go), and
 * stops at the job's cancel flag (the key turned out otherwise, or the daemon stops).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay-engine.h"
#include "replay-mounts.h"
#include "sys-view.h"
#include "util-log.h"
#include "util.h"
#include "watch-packs.h"
#include "watch-queue.h"

struct watch_job *watch_job_new(struct watch_pack *pack, pid_t pid, const char *exe,
				const char *root, struct sys_view *view, uint64_t since)
{
	struct watch_job *j = calloc(1, sizeof(*j));

	if (!j) {
		__atomic_store_n(&pack->busy, false, __ATOMIC_RELEASE);
		watch_pack_put(pack);
		return NULL;
	}
	*j = (struct watch_job){ .refs = 1, .pack = pack, .since = since, .pid = pid,
				 .exe = strdup(exe), .root = root ? strdup(root) : NULL,
				 .view = sys_view_ref(view) };
	if (!j->exe || (root && !j->root)) {
		watch_job_put(j);
		return NULL;
	}
	return j;
}

struct watch_job *watch_job_new_probe(struct watch_pack *pack, struct sys_view *view, uint32_t k,
				      bool *missed)
{
	struct watch_job *j = calloc(1, sizeof(*j));

	if (!j) {
		watch_pack_put(pack);
		return NULL;
	}
	*j = (struct watch_job){ .refs = 1, .pack = pack, .view = sys_view_ref(view),
				 .probe = true, .probe_page = k, .missed = missed };
	return j;
}

struct watch_job *watch_job_get(struct watch_job *j)
{
	if (j)
		__atomic_add_fetch(&j->refs, 1, __ATOMIC_RELAXED);
	return j;
}

void watch_job_put(struct watch_job *j)
{
	if (!j || __atomic_sub_fetch(&j->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (j->pack && !j->probe)
		__atomic_store_n(&j->pack->busy, false, __ATOMIC_RELEASE);
	watch_pack_put(j->pack);
	free(j->instead);
	free(j->exe);
	free(j->root);
	sys_view_unref(j->view);
	free(j);
}

void watch_job_cancel(struct watch_job *j, const char *instead)
{
	char *dup = instead ? strdup(instead) : NULL, *none = NULL;

	/* the worker may be reading it: set once, atomically */
	if (dup && !__atomic_compare_exchange_n(&j->instead, &none, dup, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
		free(dup);
	__atomic_store_n(&j->cancel, true, __ATOMIC_RELEASE);
}

const char *watch_in_root(const char *root)
{
	return !root ? "" : strcmp(root, "/") != 0 ? "' in root '" :
	       "' in another mount namespace's root";
}

const char *watch_root_name(const char *root)
{
	return root && strcmp(root, "/") != 0 ? root : "";
}

/* A probe: is a page of what was found resident still? */
static void run_probe(struct watch_job *j)
{
	bool resident = true;

	if (__atomic_load_n(&j->cancel, __ATOMIC_ACQUIRE) ||
	    watch_pack_probe(j->pack, j->view, j->probe_page, &resident) < 0 || resident)
		return;
	log_debug("'%s': a page of its data is no longer resident: the programs held for "
		  "resident are looked at again", j->pack->path);
	__atomic_store_n(&j->pack->resident_ns, 0, __ATOMIC_RELEASE);
	__atomic_store_n(j->missed, true, __ATOMIC_RELEASE);
}

static void run_job(const struct watch_queue *q, struct watch_job *j)
{
	const char *rs = watch_in_root(j->root), *rp = watch_root_name(j->root);
	struct replay_options o = *q->o;
	struct replay_check ck;
	struct replay_stats st;
	struct replay_fs *fs = NULL;	/* where the check found the pack's filesystems */
	uint64_t t0 = now_monotonic_ns();
	const char *instead;
	int r;

	o.wait = false;
	o.cancel = &j->cancel;
	if (__atomic_load_n(&j->cancel, __ATOMIC_ACQUIRE)) {
		instead = __atomic_load_n(&j->instead, __ATOMIC_ACQUIRE);
		if (instead)
			log_debug("'%s%s%s' started (pid %d): its start is '%s', skipping", j->exe, rs,
				  rp, j->pid, instead);
		return;
	}
	/* the decision is on the exec's path: stop at the first page that is not resident */
	r = watch_pack_check(j->pack, j->view, true, &ck, &fs);
	if (r == 0 && ck.sampled && ck.resident == ck.sampled) {
		/* when the check began: a reclaim during it is not believed to have missed it */
		__atomic_store_n(&j->pack->resident_ns, t0, __ATOMIC_RELEASE);
		log_debug("'%s%s%s' started: all %u sampled pages of what its pack would read "
			  "(%.1f MiB%s) are resident (looked at in %.2f ms), skipping", j->exe, rs, rp,
			  ck.sampled, (double)j->pack->sampled_bytes / (1 << 20),
			  j->pack->sampled_shared ? "" : " but for ld.so and libc", (double)ck.ns / 1e6);
		goto out;
	}
	if (o.verbosity >= 2)
		log_debug("'%s%s%s': replay starts %.2f ms after its exec's event", j->exe, rs, rp,
			  (double)(now_monotonic_ns() - j->since) / 1e6);
	/* the check looked on the live mounts: with --root or --dry-run the replay looks again */
	r = replay_run(j->pack->pack, j->view, o.root || o.dry_run ? NULL : fs, &o, &st);
	if (r < 0) {
		log_warn("cannot replay '%s' for '%s%s%s': %s, skipping", j->pack->path, j->exe, rs, rp,
			 strerror(-r));
		goto out;
	}
	instead = __atomic_load_n(&j->instead, __ATOMIC_ACQUIRE);
	log_info("'%s%s%s' started: issued %" PRIu64 " KiB in %" PRIu64 " requests (%" PRIu64
		 " KiB resident, %" PRIu64 " KiB skipped) in %.1f ms from '%s'%s%s%s", j->exe, rs, rp,
		 st.issued_bytes >> 10, st.requests, st.resident_bytes >> 10, st.skipped_bytes >> 10,
		 (double)(now_monotonic_ns() - t0) / 1e6, j->pack->path,
		 instead ? "; stopped: its start is '" : "", instead ? instead : "",
		 instead ? "'" : "");
out:
	replay_mounts_free(fs, ura_pack_fs_count(j->pack->pack));
}

struct worker_arg {
	struct watch_queue *q;
	size_t slot;		/* its place in q->running */
};

static void *worker(void *arg)
{
	struct watch_queue *q = ((struct worker_arg *)arg)->q;
	size_t slot = ((struct worker_arg *)arg)->slot;

	free(arg);
	for (;;) {
		struct watch_job *j;

		pthread_mutex_lock(&q->lock);
		while (!q->len && !__atomic_load_n(&q->stop, __ATOMIC_RELAXED))
			pthread_cond_wait(&q->cond, &q->lock);
		if (__atomic_load_n(&q->stop, __ATOMIC_RELAXED)) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		j = q->ring[q->head];
		q->head = (q->head + 1) % WATCH_QUEUE_LEN;
		q->len--;
		q->running[slot] = j;
		pthread_mutex_unlock(&q->lock);
		if (j->probe)
			run_probe(j);
		else
			run_job(q, j);
		pthread_mutex_lock(&q->lock);
		q->running[slot] = NULL;
		pthread_mutex_unlock(&q->lock);
		watch_job_put(j);
	}
}

int watch_queue_start(struct watch_queue *q, const struct replay_options *o, unsigned nworkers)
{
	*q = (struct watch_queue){ .o = o, .nworkers = nworkers };
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->ready = true;
	q->threads = calloc(nworkers ? nworkers : 1, sizeof(*q->threads));
	q->running = calloc(nworkers ? nworkers : 1, sizeof(struct watch_job *));
	if (!q->threads || !q->running)
		return -ENOMEM;
	for (; q->started < nworkers; q->started++) {
		struct worker_arg *a = malloc(sizeof(*a));
		int r;

		if (!a)
			return -ENOMEM;
		*a = (struct worker_arg){ q, q->started };
		r = -pthread_create(&q->threads[q->started], NULL, worker, a);
		if (r < 0) {
			free(a);
			return r;
		}
	}
	return 0;
}

bool watch_queue_push(struct watch_queue *q, struct watch_job *j)
{
	pthread_mutex_lock(&q->lock);
	if (q->len == WATCH_QUEUE_LEN) {
		q->dropped++;
		pthread_mutex_unlock(&q->lock);
		return false;
	}
	q->ring[(q->head + q->len++) % WATCH_QUEUE_LEN] = j;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return true;
}

void watch_queue_stop(struct watch_queue *q)
{
	if (!q->ready)
		return;
	/* running replays see their cancel flag at their next request or pacing slice */
	pthread_mutex_lock(&q->lock);
	__atomic_store_n(&q->stop, true, __ATOMIC_RELEASE);
	for (unsigned k = 0; q->running && k < q->nworkers; k++)
		if (q->running[k])
			watch_job_cancel(q->running[k], NULL);
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	for (unsigned k = 0; k < q->started; k++)
		pthread_join(q->threads[k], NULL);
	while (q->len) {
		watch_job_put(q->ring[q->head]);
		q->head = (q->head + 1) % WATCH_QUEUE_LEN;
		q->len--;
	}
	if (q->dropped)
		log_debug("%" PRIu64 " replays dropped: too many waiting", q->dropped);
	free(q->threads);
	free(q->running);
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	*q = (struct watch_queue){ 0 };
}
