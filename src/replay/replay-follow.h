/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --read follow: each request queued with readahead() is waited for by one thread per device */
#ifndef URA_REPLAY_FOLLOW_H
#define URA_REPLAY_FOLLOW_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay-inflight.h"

/* A device that completes no followed read for this long is not waited for again */
#define REPLAY_FOLLOW_STALL_NS	(2ull * 1000000000ull)

/* A request issued, until the device has read it. */
struct replay_followed {
	int fd;			/* the worker's reference, released once read */
	uint32_t obj;		/* its object in the replay's files */
	uint64_t last;		/* the byte waited for: replay_follow_last_unread() */
	uint64_t len, cost_ns;	/* as entered into the in-flight count */
};

/* One device's requests in the order issued, and the thread that waits for them. */
struct replay_follow_dev {
	struct replay_followed *item;
	size_t head, n, cap;		/* item[head..n) wait */
	bool stopping, started;
	bool stalled;			/* atomic: read nothing for REPLAY_FOLLOW_STALL_NS */
	pthread_t thread;
	pthread_cond_t more;
	pthread_mutex_t lock;
	struct replay_follow *f;
	uint32_t dev;
};

struct replay_follow {
	struct replay_follow_dev *devs;
	size_t ndev;
	struct replay_inflight *inflight;
	/* gives back a descriptor the follower held: the request is handled */
	void (*release)(void *ctx, uint32_t obj, int fd);
	void *ctx;
};

/**
 * replay_follow_start() - a follower for each device of @q that @want names, each waiting
 * in its own thread (the other devices' requests are not taken)
 * @release: called with each request's descriptor once the device has read the request
 *
 * Return: 0, or -errno (no follower then: replay_follow_push() returns false).
 */
int replay_follow_start(struct replay_follow *f, struct replay_inflight *q, size_t ndev,
			const bool *want, void (*release)(void *ctx, uint32_t obj, int fd),
			void *ctx);

/**
 * replay_follow_last_unread() - the byte of [@off, @off + @len) of @fd to wait for: the
 * last page not in the page cache before the request is issued (the program may have read
 * the request's end already: a wait for that page would end at once), else the range's
 * last byte. A halving at a time, by cachestat(2) (mincore(2) where it is missing).
 */
uint64_t replay_follow_last_unread(int fd, uint64_t off, uint64_t len);

/**
 * replay_follow_push() - hand over a request just issued on @dev (entered into the in-flight
 * count with replay_inflight_enter()): its follower waits until @r->last is read, looking
 * at it from the page cache without blocking (a page not in the cache is not waited for),
 * then leaves the in-flight count and releases @r->fd. The device reads the requests it is
 * given in about the order given, so one thread that waits for the oldest follows them all,
 * however many are in flight. A cancel ends the waits; a device that reads nothing for
 * REPLAY_FOLLOW_STALL_NS is not followed again.
 *
 * Return: false if no follower took it (no thread, no memory, the device stalled): the
 * caller leaves the in-flight count at once.
 */
bool replay_follow_push(struct replay_follow *f, uint32_t dev, const struct replay_followed *r);

/** replay_follow_has() - does device @dev have a follower that takes requests? */
bool replay_follow_has(const struct replay_follow *f, uint32_t dev);

/** replay_follow_stop() - wait for every request handed over, then end the threads */
void replay_follow_stop(struct replay_follow *f);

#endif
