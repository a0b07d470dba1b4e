/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The replay plan: ranges -> requests by a device's cost model, chunked, in first-access order */
#ifndef URA_REPLAY_SCHEDULE_H
#define URA_REPLAY_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev-model.h"

/*
 * One read to make. Before schedule_build() an item is one range of the pack;
 * after, a request of at most its device's chunk size.
 */
struct sched_item {
	uint64_t off;		/* bytes into the object */
	uint64_t len;		/* bytes, > 0 */
	uint64_t time_ns;	/* first access, since the trace began */
	union {
		/* before schedule_build(): the last first access of the ranges merged into
		 * this item by schedule_merge(), or 0 (then time_ns) */
		uint64_t last_ns;
		/* after: physical position on the device (rotational order), or 0 */
		uint64_t phys;
	};
	uint32_t obj;		/* what to read: a file, or a block device for metadata */
	uint32_t dev;		/* index into the device table (cost model) */
};

/* Cost model and limits of one device. */
struct sched_dev {
	struct devmodel model;	/* device time of a read by its size */
	uint64_t chunk;		/* largest request in bytes, page aligned, > 0 */
	uint64_t readahead;	/* the device's read_ahead_kb in bytes (a cold start's requests); 0: unknown */
	uint64_t max_request;	/* its largest request (max_sectors_kb) in bytes; 0: chunk */
	bool rotational;	/* seeks cost: physical order within time bins */
	uint64_t size;		/* the replay's: bytes, from sysfs; 0: unknown */
	/* set by schedule_build(): */
	size_t cold_requests;	/* what a cold start would issue, as estimated (reported) */
};

/* How far a request may reach when merging (bounds the plan's work per range) */
#define SCHED_LOOKBACK		64		/* ranges of one file */
#define SCHED_MAX_SPAN		(32ull << 20)	/* bytes */
#define SCHED_HOLE_SLACK	(64ull << 10)

/** schedule_cost() - device time of reading @len bytes in requests of at most @dev->chunk */
uint64_t schedule_cost(const struct sched_dev *dev, uint64_t len);

/*
 * schedule_max_gap() - the largest hole between two pages that is cheaper to read
 * than a second request, by @dev's model: bytes, rounded down to a page (0 when
 * none is)
 */
uint64_t schedule_max_gap(const struct sched_dev *dev);

/*
 * schedule_can_merge() - is reading @a, @b and the hole between as one request
 * no dearer than reading them apart?
 * @a, @b: items of one object (else false), @b not starting before @a
 *
 * Ranges that overlap or touch always merge. Time plays no part: the plan
 * orders requests by first access, whatever their ranges' times.
 */
bool schedule_can_merge(const struct sched_item *a, const struct sched_item *b,
		     const struct sched_dev *dev);

/*
 * schedule_merge() - merge @b into @a (after schedule_can_merge() said yes)
 *
 * @a then covers both and the hole between, starts at the earlier first access
 * and keeps the later one in last_ns.
 */
void schedule_merge(struct sched_item *a, const struct sched_item *b);

/*
 * schedule_build() - the plan: turn the pack's ranges into the requests to issue
 * @items: the ranges (any order); replaced by the requests
 * @n: count of @items
 * @nobj: objects are 0 .. @nobj - 1
 * @devs: device table, indexed by sched_item.dev (one object is on one device)
 * @ret_n: the number of requests
 *
 * Per object, the ranges are sorted by offset and split into requests so that
 * the device time of all of them, by the device's model, is least: a hole is
 * read when that is cheaper than the request it saves, however far apart in
 * time its two sides were first used (a large program touches its main library
 * at hundreds of places over its whole run). Requests are cut to the device's
 * chunk and ordered by the earliest first access of the ranges each holds
 * (ties: object, then offset): the order of the trace, never its absolute
 * times, which a trace at read_ahead_kb 4 stretches.
 *
 * A two-budget device (DEVMODEL_BUDGETS) gets the plan of least
 * max(bytes / bandwidth, requests / IOPS): a price on requests found by
 * bisection where the two budgets meet. No other bound is put on the number
 * of requests: the plan is the model's optimum, whatever read_ahead_kb is.
 * Sets each device's cold_requests (what a cold start would issue, estimated
 * from its readahead, for the report).
 *
 * Return: 0, -EINVAL (an object or device out of range, more than 2^32 items),
 * -ENOMEM. On success *@items is a new array of requests (the old one is
 * freed). On -EINVAL, or -ENOMEM while building, it is untouched; on -ENOMEM
 * while ordering, it holds the requests (*@ret_n of them), in no set order.
 */
int schedule_build(struct sched_item **items, size_t n, uint32_t nobj, struct sched_dev *devs,
		size_t ndev, size_t *ret_n);

/*
 * schedule_order_physical() - physical order within time bins, for rotational disks
 * @items: requests in first-access order with sched_item.phys filled in
 * @bin_ns: width of a time bin; requests of one bin are sorted by (dev, phys)
 *
 * A pure physical sort would starve the first programs; bins keep the start
 * of the boot early while saving seeks within each bin. Runs in O(n) (radix sort).
 *
 * Return: 0 or -ENOMEM (then @items is untouched).
 */
int schedule_order_physical(struct sched_item *items, size_t n, uint64_t bin_ns);

#endif
