/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: the replays to run, a bounded queue and the worker threads that run them */
#ifndef URA_WATCH_QUEUE_H
#define URA_WATCH_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay-options.h"

struct sys_view;
struct watch_pack;

#define WATCH_QUEUE_LEN	64	/* jobs waiting at most: more are dropped (and counted) */

/* A replay to run; shared (refcounted) by the queue, a worker, and a pending exec. */
struct watch_job {
	unsigned refs;		/* atomic */
	bool cancel;		/* atomic: stop issuing (the engine's cancel flag) */
	char *instead;		/* when cancelled for another key: that program (for the log) */
	uint64_t since;		/* the exec's event */
	struct watch_pack *pack;
	char *exe;		/* the program's path in its root (the script for a script) */
	char *root;		/* its root as the daemon sees it, NULL for the daemon's own */
	pid_t pid;
	struct sys_view *view;	/* the system when the exec came (a reference) */
	/* a probe (watch_job_new_probe()): one sampled page looked at, nothing replayed */
	bool probe;
	uint32_t probe_page;
	bool *missed;		/* atomic: set when the page was not resident */
};

/**
 * watch_job_new() - a job of one reference for the exec of @exe (in @root, NULL for the
 * daemon's) by @pid at @since, replaying @pack (the reference is taken over; its busy
 * flag is cleared when the job is freed) in @view (a reference is taken)
 * Return: the job, or NULL (@pack released) when out of memory.
 */
struct watch_job *watch_job_new(struct watch_pack *pack, pid_t pid, const char *exe,
				const char *root, struct sys_view *view, uint64_t since);

/**
 * watch_job_new_probe() - a job that looks at the sampled page @k of @pack (a reference,
 * taken over; its busy flag untouched) in @view: when it is not resident, the pack's
 * resident_ns is cleared and *@missed set (atomically). Run by a worker: a look opens
 * the pack's files, which the event loop never waits for.
 * Return: the job, or NULL (@pack released) when out of memory.
 */
struct watch_job *watch_job_new_probe(struct watch_pack *pack, struct sys_view *view, uint32_t k,
				      bool *missed);

/** watch_job_get() - a reference more; NULL is allowed */
struct watch_job *watch_job_get(struct watch_job *j);

/** watch_job_put() - drop a reference; the last one frees; NULL is allowed */
void watch_job_put(struct watch_job *j);

/**
 * watch_job_cancel() - stop @j: it was started for a key that turned out wrong (@instead,
 * the program it is for, named in the log), or the daemon stops (@instead NULL)
 */
void watch_job_cancel(struct watch_job *j, const char *instead);

/*
 * How a program is named in messages: "'/usr/bin/x'", "'/usr/bin/x' in root
 * '/srv/c'", or, for a root the daemon cannot reach by a path (a container's,
 * after pivot_root in its own mount namespace: the kernel names it "/"),
 * "'/usr/bin/x' in another mount namespace's root": '%s%s%s' with
 * watch_in_root() and watch_root_name() of the root (NULL for the daemon's own).
 */
const char *watch_in_root(const char *root);
const char *watch_root_name(const char *root);

struct watch_queue {
	const struct replay_options *o;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct watch_job *ring[WATCH_QUEUE_LEN];
	size_t head, len;
	struct watch_job **running;	/* per worker: the job it runs, or NULL */
	pthread_t *threads;
	unsigned nworkers, started;
	bool stop;			/* atomic */
	bool ready;			/* lock and cond initialised */
	uint64_t dropped;		/* jobs refused: the queue was full */
};

/**
 * watch_queue_start() - @nworkers threads that take jobs from the queue in turn: each
 * looks at a sample of what its pack would read (watch_pack_check()), skips it when all
 * is resident (the pack's resident_ns set), else replays it with replay_run() under @o
 * (never waiting, with the job's cancel flag) and logs one line. @nworkers 0 starts none
 * (tests). On failure @q is still to be stopped.
 * Return: 0 or -errno.
 */
int watch_queue_start(struct watch_queue *q, const struct replay_options *o, unsigned nworkers);

/**
 * watch_queue_push() - queue @j (the queue takes over the caller's reference)
 * Return: true, or false when WATCH_QUEUE_LEN jobs wait (counted; @j is the caller's still).
 */
bool watch_queue_push(struct watch_queue *q, struct watch_job *j);

/**
 * watch_queue_stop() - cancel the jobs running, join the workers, release the jobs
 * waiting and everything @q holds; accepts a zeroed or half-started @q
 */
void watch_queue_stop(struct watch_queue *q);

#endif
