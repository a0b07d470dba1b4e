/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The in-flight limit: how much of the replay a device may have queued, by modelled device time */
#ifndef URA_REPLAY_INFLIGHT_H
#define URA_REPLAY_INFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_queue;

struct replay_inflight {
	struct replay_queue *queues;	/* per device */
	size_t ndev;
	uint64_t limit_bytes;		/* --inflight SIZE; 0: by time */
	uint64_t limit_ns;		/* --inflight TIME; 0 (and no size): no limit */
	const bool *stop;		/* atomic: give up waiting when set */
	const bool *cancel;		/* atomic, may be NULL: the same (the replay is cancelled) */
};

/**
 * replay_inflight_open() - a queue per device of @devnum (major, minor)
 * @limit_bytes, @limit_ns: --inflight as bytes or as device time; both 0: no limit
 * @stop: waiting ends at once when this turns true
 *
 * Return: 0 or -ENOMEM (then call replay_inflight_close() all the same).
 */
int replay_inflight_open(struct replay_inflight *q, const unsigned (*devnum)[2], size_t ndev,
			 uint64_t limit_bytes, uint64_t limit_ns, const bool *stop);

/**
 * replay_inflight_set_limit_ns() - device @dev's own limit in device time (@ns, > 0),
 * in place of @q->limit_ns (--inflight auto: by each device's model)
 */
void replay_inflight_set_limit_ns(struct replay_inflight *q, uint32_t dev, uint64_t ns);

/**
 * replay_inflight_is_block() - is device @dev a block device (one with a sysfs stat)? Not
 * on network and FUSE filesystems (a device number with no block device behind it): a read
 * there waits on a server, which may never answer.
 */
bool replay_inflight_is_block(const struct replay_inflight *q, uint32_t dev);

/**
 * replay_inflight_bounded() - is what device @dev has in flight bounded (a block device with
 * a limit in bytes or device time)? Only then is there a reason to see its reads complete.
 */
bool replay_inflight_bounded(const struct replay_inflight *q, uint32_t dev);

/** replay_inflight_close() - accepts a zeroed or half-opened @q */
void replay_inflight_close(struct replay_inflight *q);

/**
 * replay_inflight_wait() - wait for room on device @dev, then count @len bytes issued
 * @cost_ns: their device time by the device's model
 *
 * Keeps the replay's queue on a device short: waits until what is still
 * queued costs at most the limit's time (or holds at most its bytes). A
 * program's own cache miss then waits behind that much of the prefetch at most,
 * not behind all of it: a blkio throttle, and most device queues, serve in order.
 * The device's progress is its sectors read (/sys/dev/block/MAJ:MIN/stat).
 */
void replay_inflight_wait(struct replay_inflight *q, uint32_t dev, uint64_t len,
			  uint64_t cost_ns);

/**
 * replay_inflight_enter() - for reads the replay waits for (--read wait): wait for room
 * on device @dev, then count @len bytes of @cost_ns device time as in flight
 *
 * Here the replay sees each read complete (replay_inflight_leave()), so what is
 * in flight is known exactly, not estimated from the device's statistics: the
 * same limit, in bytes or in device time. One read is always let through. The
 * wait ends at room or at a cancel (@q->cancel), not at @q->stop: a read in flight
 * always completes.
 */
void replay_inflight_enter(struct replay_inflight *q, uint32_t dev, uint64_t len,
			   uint64_t cost_ns);

/** replay_inflight_leave() - a read counted by replay_inflight_enter() completed */
void replay_inflight_leave(struct replay_inflight *q, uint32_t dev, uint64_t len,
			   uint64_t cost_ns);

/** replay_inflight_note() - the replay issued @len bytes on device @dev: its own, for the counts */
void replay_inflight_note(struct replay_inflight *q, uint32_t dev, uint64_t len);

/* What the devices did while the replay ran, besides its own reads. */
struct replay_inflight_counts {
	uint64_t others_bytes;		/* read by the devices beyond what the replay issued */
	uint64_t queued_mean_ns;	/* the replay's queue, in device time, on average over
					 * the time it issued (what a miss then waited behind) */
};

/**
 * replay_inflight_counts() - the devices' reads since replay_inflight_open(), less the
 * replay's own (replay_inflight_note()): the program's misses, and any other reader's,
 * on the devices the replay read from, as far as they had read when this is called;
 * the replay's own reads still queued then make it a lower bound. The queue's mean is
 * over all devices.
 */
void replay_inflight_counts(struct replay_inflight *q, struct replay_inflight_counts *ret);

#endif
