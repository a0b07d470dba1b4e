// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: the daemon. One thread polls the exec source, the
 * mount table and a signalfd; each exec whose program has a pack becomes a job
 * in a bounded queue, taken by one of --max-replays worker threads that
 * replays it with the engine (src/replay-engine.c). The exec'ing program never waits.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "util-log.h"
#include "replay-exec.h"
#include "replay-packs.h"
#include "replay-watch.h"
#include "replay-engine.h"
#include "util.h"

#define QUEUE_LEN	64	/* jobs waiting at most: more are dropped (and counted) */

struct job {
	struct replay_pack *pack;
	char *exe;
};

struct watch {
	const struct replay_options *o;
	struct replay_options ro;	/* what each replay runs with */
	struct replay_packs packs;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job queue[QUEUE_LEN];
	size_t head, len;
	bool stop;			/* atomic; also the replays' cancel flag */
	uint64_t dropped;
};

static void job_free(struct job *j)
{
	if (j->pack)
		__atomic_store_n(&j->pack->busy, false, __ATOMIC_RELEASE);
	replay_pack_put(j->pack);
	free(j->exe);
	*j = (struct job){ 0 };
}

static void run_job(struct watch *w, struct job *j)
{
	struct replay_stats st;
	uint64_t t0 = now_monotonic_ns();
	struct replay_check ck;
	int r;

	if (replay_pack_check(j->pack, true, &ck) == 0 && ck.sampled && ck.resident == ck.sampled) {
		log_debug("'%s' started: all %u sampled pages of its pack are resident (%.2f ms), "
			  "skipping", j->exe, ck.sampled, (double)ck.ns / 1e6);
		return;
	}
	r = replay_run(j->pack->pack, &w->ro, &st);
	if (r < 0) {
		log_warn("cannot replay '%s' for '%s': %s, skipping", j->pack->path, j->exe,
			 strerror(-r));
		return;
	}
	log_info("'%s' started: issued %" PRIu64 " KiB in %" PRIu64 " requests (%" PRIu64
		 " KiB resident, %" PRIu64 " KiB skipped) in %.1f ms from '%s'",
		 j->exe, st.issued_bytes >> 10, st.requests, st.resident_bytes >> 10,
		 st.skipped_bytes >> 10, (double)(now_monotonic_ns() - t0) / 1e6, j->pack->path);
}

static void *worker(void *arg)
{
	struct watch *w = arg;

	for (;;) {
		struct job j;

		pthread_mutex_lock(&w->lock);
		while (!w->len && !__atomic_load_n(&w->stop, __ATOMIC_RELAXED))
			pthread_cond_wait(&w->cond, &w->lock);
		if (__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		j = w->queue[w->head];
		w->head = (w->head + 1) % QUEUE_LEN;
		w->len--;
		pthread_mutex_unlock(&w->lock);
		run_job(w, &j);
		job_free(&j);
	}
}

/* An exec: queue a replay of the program's pack, if it has one and none is under way. */
static void on_exec(const char *path, pid_t pid, void *userdata)
{
	struct watch *w = userdata;
	struct replay_pack *p = NULL;
	struct job j = { 0 };

	if (replay_packs_lookup(&w->packs, 0, path, &p, NULL) < 0)
		return;
	if (__atomic_exchange_n(&p->busy, true, __ATOMIC_ACQ_REL)) {
		log_debug("'%s' started (pid %d): its pack is being replayed, skipping", path, pid);
		replay_pack_put(p);
		return;
	}
	j.pack = p;
	j.exe = strdup(path);
	pthread_mutex_lock(&w->lock);
	if (!j.exe || w->len == QUEUE_LEN) {
		w->dropped++;
		pthread_mutex_unlock(&w->lock);
		log_debug("'%s' started: %s, skipping", path,
			  j.exe ? "too many replays waiting" : strerror(ENOMEM));
		job_free(&j);
		return;
	}
	w->queue[(w->head + w->len++) % QUEUE_LEN] = j;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static int signals_open(sigset_t *old)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, old) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) {
		int r = -errno;

		sigprocmask(SIG_SETMASK, old, NULL);
		return r;
	}
	return fd;
}

int replay_watch(const struct replay_options *o)
{
	struct replay_exec src = { .fd = -1, .mounts_fd = -1 };
	struct watch *w = NULL;
	pthread_t *th = NULL;
	unsigned started = 0;
	uint64_t overflows = 0;
	sigset_t old;
	int sfd = -1, r;

	w = calloc(1, sizeof(*w));
	th = calloc(o->max_replays ? o->max_replays : 1, sizeof(*th));
	if (!w || !th) {
		r = -ENOMEM;
		goto out_free;
	}
	w->o = o;
	w->ro = *o;
	w->ro.wait = false;
	w->ro.cancel = &w->stop;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	r = replay_packs_init(&w->packs, o->watch_dir);
	if (r < 0)
		goto out;
	sfd = signals_open(&old);
	if (sfd < 0) {
		r = sfd;
		goto out;
	}
	r = replay_exec_open(&src);
	if (r < 0)
		goto out;
	for (; started < (o->max_replays ? o->max_replays : 1); started++) {
		r = -pthread_create(&th[started], NULL, worker, w);
		if (r < 0)
			goto out;
	}
	if (access(o->watch_dir, F_OK) < 0)
		log_info("'%s' does not exist (yet): no pack to replay until it does", o->watch_dir);
	log_info("watching execs on %u filesystems, packs in '%s'", src.marked, o->watch_dir);
	for (;;) {
		struct pollfd p[3] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = src.fd, .events = POLLIN },
			{ .fd = src.mounts_fd, .events = POLLPRI },
		};

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (p[0].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				log_debug("signal %u: stopping", si.ssi_signo);
			r = 0;
			break;
		}
		if (p[2].revents & (POLLPRI | POLLERR)) {
			int k = replay_exec_mounts_changed(&src);

			if (k < 0)
				log_warn("cannot watch execs on the new mounts: %s", strerror(-k));
		}
		if (p[1].revents) {
			int k = replay_exec_read(&src, on_exec, w);

			if (k == -EMFILE || k == -ENFILE || k == -ENOMEM) {
				/* the kernel could not make an event's descriptor: it comes back */
				log_warn("cannot read exec events: %s, skipping", strerror(-k));
			} else if (k < 0) {
				log_err("cannot read exec events: %s", strerror(-k));
				r = k;
				break;
			}
			if (src.overflows > overflows) {
				log_warn("too many execs at once: the kernel dropped some exec events");
				overflows = src.overflows;
			}
		}
	}
out:
	/* stop: running replays see the cancel flag at their next request */
	pthread_mutex_lock(&w->lock);
	__atomic_store_n(&w->stop, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	for (unsigned k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	while (w->len) {
		job_free(&w->queue[w->head]);
		w->head = (w->head + 1) % QUEUE_LEN;
		w->len--;
	}
	if (w->dropped)
		log_debug("%" PRIu64 " replays dropped: too many waiting", w->dropped);
	replay_exec_close(&src);
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	replay_packs_free(&w->packs);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
out_free:
	free(th);
	free(w);
	return r;
}
