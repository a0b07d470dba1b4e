// SPDX-License-Identifier: GPL-2.0-or-later
/* The in-flight limit: how much of the replay a device may have queued, by modelled device time */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay-inflight.h"
#include "util.h"

#define IDLE_NS		100000000ull	/* a device that read nothing for this long is idle */

/*
 * What the replay has in flight on one device: the bytes it issued minus the
 * bytes the device has read since (sectors read in /sys/dev/block/MAJ:MIN/stat).
 * Reads by others count as ours, so this errs towards issuing more.
 */
struct replay_queue {
	int statfd;		/* -1: unknown device (no limit, no counts) */
	uint64_t issued;	/* bytes */
	uint64_t issued_ns;	/* their device time by the model */
	uint64_t (*marks)[2];	/* per request issued: bytes and device time issued after it */
	size_t nmarks, cap, head;	/* marks[head..nmarks) are not read yet, as far as we know */
	uint64_t done_ns;	/* device time of the requests read */
	uint64_t read0;		/* bytes read by the device when counting began */
	uint64_t last_read;	/* bytes read at the last look */
	uint64_t last_change;	/* when that last changed */
	bool started;		/* read0 is set */
	/* for the report: the device's reads since the queue was opened, and ours */
	uint64_t open_bytes;		/* the device's bytes read then (UINT64_MAX: unknown) */
	uint64_t own_bytes;		/* issued by the replay */
	double queued_area;		/* queued device time over wall time, ns x ns */
	uint64_t first_look, last_look;	/* the span that integral covers */
	uint64_t last_queued;		/* queued device time at the last look */
	uint64_t limit_ns;		/* this device's limit in device time; 0: @q->limit_ns */
	/* reads the replay waits for: what is in flight, exactly */
	uint64_t wait_bytes, wait_ns;
	unsigned nwait;
	pthread_cond_t left;		/* one of them completed */
	pthread_mutex_t lock;
};

/* Bytes the device has read since boot, or UINT64_MAX. */
static uint64_t device_read_bytes(int statfd)
{
	char buf[256];
	unsigned long long ios, merges, sectors;
	ssize_t n = pread(statfd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return UINT64_MAX;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %llu", &ios, &merges, &sectors) != 3)
		return UINT64_MAX;
	return (uint64_t)sectors * 512;
}

int replay_inflight_open(struct replay_inflight *q, const unsigned (*devnum)[2], size_t ndev,
			 uint64_t limit_bytes, uint64_t limit_ns, const bool *stop)
{
	*q = (struct replay_inflight){ .limit_bytes = limit_bytes, .limit_ns = limit_ns,
				       .stop = stop };
	q->queues = calloc(ndev ? ndev : 1, sizeof(*q->queues));
	if (!q->queues)
		return -ENOMEM;
	q->ndev = ndev;
	for (size_t d = 0; d < ndev; d++) {
		char path[64];

		struct replay_queue *rq = &q->queues[d];

		pthread_mutex_init(&rq->lock, NULL);
		{
			pthread_condattr_t ca;

			pthread_condattr_init(&ca);
			pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
			pthread_cond_init(&rq->left, &ca);
			pthread_condattr_destroy(&ca);
		}
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", devnum[d][0], devnum[d][1]);
		rq->statfd = open(path, O_RDONLY | O_CLOEXEC);
		rq->open_bytes = rq->statfd < 0 ? UINT64_MAX : device_read_bytes(rq->statfd);
	}
	return 0;
}

void replay_inflight_set_limit_ns(struct replay_inflight *q, uint32_t dev, uint64_t ns)
{
	if (dev < q->ndev)
		q->queues[dev].limit_ns = ns;
}

bool replay_inflight_is_block(const struct replay_inflight *q, uint32_t dev)
{
	return q->queues && dev < q->ndev && q->queues[dev].statfd >= 0;
}

/* The device's limit in device time: its own, else the one given */
static uint64_t limit_ns_of(const struct replay_inflight *q, const struct replay_queue *rq)
{
	return rq->limit_ns ? rq->limit_ns : q->limit_ns;
}

bool replay_inflight_bounded(const struct replay_inflight *q, uint32_t dev)
{
	return replay_inflight_is_block(q, dev) &&
	       (q->limit_bytes || limit_ns_of(q, &q->queues[dev]));
}

void replay_inflight_note(struct replay_inflight *q, uint32_t dev, uint64_t len)
{
	struct replay_queue *rq = &q->queues[dev];

	if (rq->statfd < 0)
		return;
	pthread_mutex_lock(&rq->lock);
	rq->own_bytes += len;
	pthread_mutex_unlock(&rq->lock);
}

void replay_inflight_counts(struct replay_inflight *q, struct replay_inflight_counts *ret)
{
	double area = 0;
	uint64_t span = 0;

	*ret = (struct replay_inflight_counts){ 0 };
	for (size_t d = 0; q->queues && d < q->ndev; d++) {
		struct replay_queue *rq = &q->queues[d];
		uint64_t rd;

		/* a device the replay read nothing from is not one its queue held up (nor one
		 * that only serves another, as a loop device's backing disk) */
		if (rq->statfd < 0 || rq->open_bytes == UINT64_MAX)
			continue;
		rd = device_read_bytes(rq->statfd);
		pthread_mutex_lock(&rq->lock);
		if (!rq->own_bytes || rd == UINT64_MAX || rd < rq->open_bytes) {
			pthread_mutex_unlock(&rq->lock);
			continue;
		}
		if (rd - rq->open_bytes > rq->own_bytes)
			ret->others_bytes += rd - rq->open_bytes - rq->own_bytes;
		area += rq->queued_area;
		span += rq->last_look - rq->first_look;
		pthread_mutex_unlock(&rq->lock);
	}
	if (span)
		ret->queued_mean_ns = (uint64_t)(area / (double)span);
}

void replay_inflight_close(struct replay_inflight *q)
{
	for (size_t d = 0; q->queues && d < q->ndev; d++) {
		if (q->queues[d].statfd >= 0)
			close(q->queues[d].statfd);
		free(q->queues[d].marks);
		pthread_cond_destroy(&q->queues[d].left);
		pthread_mutex_destroy(&q->queues[d].lock);
	}
	free(q->queues);
	q->queues = NULL;
}

/* Note a request issued: the bytes and device time issued up to its end. */
static void push_mark(struct replay_queue *rq)
{
	if (rq->nmarks == rq->cap) {
		/* marks already read make room first */
		if (rq->head) {
			memmove(rq->marks, rq->marks + rq->head,
				(rq->nmarks - rq->head) * sizeof(*rq->marks));
			rq->nmarks -= rq->head;
			rq->head = 0;
		}
		if (rq->nmarks == rq->cap) {
			size_t nc = rq->cap ? rq->cap * 2 : 256;
			void *p = realloc(rq->marks, nc * sizeof(*rq->marks));

			if (p) {
				rq->marks = p;
				rq->cap = nc;
			}
		}
	}
	if (rq->nmarks < rq->cap) {
		rq->marks[rq->nmarks][0] = rq->issued;
		rq->marks[rq->nmarks++][1] = rq->issued_ns;
	} else {
		rq->done_ns = rq->issued_ns;	/* no memory: stop counting this one */
	}
}

/* The replay's device time queued on the device, as far as is known. */
static uint64_t queued_ns(const struct replay_queue *rq)
{
	return rq->issued_ns > rq->done_ns ? rq->issued_ns - rq->done_ns : 0;
}

/*
 * The queue's device time over wall time, for the report's mean. Between two
 * looks the queue is taken to drain at the device's pace: a queue of Q ns
 * after T ns holds max(Q - T, 0), its area Q*T - T*T/2 (Q*Q/2 once empty).
 */
static void note_queued(struct replay_queue *rq, uint64_t now)
{
	double q = (double)rq->last_queued, t;

	if (!rq->first_look)
		rq->first_look = rq->last_look = now;
	t = (double)(now - rq->last_look);
	rq->queued_area += t < q ? q * t - t * t / 2 : q * q / 2;
	rq->last_look = now;
	rq->last_queued = queued_ns(rq);
}

/*
 * Requests are taken as read in the order issued. Reads by others count as
 * ours, so this errs towards issuing more. If the device reads nothing for
 * IDLE_NS longer than what is queued should take, what is left is taken as
 * never to be read (pages that were cached meanwhile, holes) and forgotten.
 * (A throttled device stalls for longer than IDLE_NS between its reads: with
 * IDLE_NS alone, a replay on a 20 MB/s device queued 100 MiB in 1.2 s.)
 */
void replay_inflight_wait(struct replay_inflight *q, uint32_t dev, uint64_t len,
			  uint64_t cost_ns)
{
	struct replay_queue *rq = &q->queues[dev];
	uint64_t limit = q->limit_bytes, limit_ns = limit_ns_of(q, rq), done = 0;

	if (rq->statfd < 0)
		return;
	pthread_mutex_lock(&rq->lock);
	for (;;) {
		uint64_t rd = device_read_bytes(rq->statfd), now = now_monotonic_ns();
		struct timespec ts = { 0, 1000000 };
		bool room;

		if (rd == UINT64_MAX)
			break;
		if (!rq->started) {
			rq->started = true;
			rq->read0 = rd;
			rq->last_read = rd;
			rq->last_change = now;
		}
		done = rd - rq->read0;
		if (rd != rq->last_read) {
			rq->last_read = rd;
			rq->last_change = now;
		} else if (now - rq->last_change >= IDLE_NS + queued_ns(rq)) {
			rq->issued = done;	/* the device went idle: nothing of ours is left */
			rq->head = rq->nmarks;
			rq->done_ns = rq->issued_ns;
		}
		while (rq->head < rq->nmarks && rq->marks[rq->head][0] <= done)
			rq->done_ns = rq->marks[rq->head++][1];
		note_queued(rq, now);
		if (limit)
			room = rq->issued <= done || rq->issued - done + len <= limit;
		else if (limit_ns)
			room = rq->issued_ns <= rq->done_ns ||
			       rq->issued_ns - rq->done_ns + cost_ns <= limit_ns;
		else
			room = true;	/* no limit: the queue is followed for the report only */
		if (room || __atomic_load_n(q->stop, __ATOMIC_ACQUIRE) ||
		    (q->cancel && __atomic_load_n(q->cancel, __ATOMIC_ACQUIRE)))
			break;
		pthread_mutex_unlock(&rq->lock);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&rq->lock);
	}
	if (rq->issued < done)
		rq->issued = done;
	rq->issued += len;
	rq->issued_ns += cost_ns;
	rq->last_queued = queued_ns(rq);
	push_mark(rq);
	pthread_mutex_unlock(&rq->lock);
}

/* Reads waited for: the queue is known at each change, its area exact (a step function). */
static void note_exact(struct replay_queue *rq)
{
	uint64_t now = now_monotonic_ns();

	if (!rq->first_look)
		rq->first_look = rq->last_look = now;
	rq->queued_area += (double)rq->wait_ns * (double)(now - rq->last_look);
	rq->last_look = now;
}

void replay_inflight_enter(struct replay_inflight *q, uint32_t dev, uint64_t len,
			   uint64_t cost_ns)
{
	struct replay_queue *rq = &q->queues[dev];

	pthread_mutex_lock(&rq->lock);
	for (;;) {
		uint64_t limit_ns = limit_ns_of(q, rq);
		bool room = !rq->nwait ||
			    (q->limit_bytes ? rq->wait_bytes + len <= q->limit_bytes :
			     !limit_ns || rq->wait_ns + cost_ns <= limit_ns);
		struct timespec ts;

		/* a read in flight always completes: only a cancel ends the wait (the budget's
		 * stop does not, lest the waiting workers all issue at once) */
		if (room || (q->cancel && __atomic_load_n(q->cancel, __ATOMIC_ACQUIRE)))
			break;
		/* a cancel is seen within 10 ms, as it is no one's to signal */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 10000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&rq->left, &rq->lock, &ts);
	}
	note_exact(rq);
	rq->nwait++;
	rq->wait_bytes += len;
	rq->wait_ns += cost_ns;
	pthread_mutex_unlock(&rq->lock);
}

void replay_inflight_leave(struct replay_inflight *q, uint32_t dev, uint64_t len,
			   uint64_t cost_ns)
{
	struct replay_queue *rq = &q->queues[dev];

	pthread_mutex_lock(&rq->lock);
	note_exact(rq);
	rq->nwait--;
	rq->wait_bytes -= len;
	rq->wait_ns -= cost_ns;
	pthread_cond_broadcast(&rq->left);
	pthread_mutex_unlock(&rq->lock);
}
