/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replay scheduling: coalesce ranges by a per-device cost model, chunk them, order them */
#ifndef URA_SCHEDULE_H
#define URA_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One read to make. Before sched_build() an item is one range of the pack;
 * after, a request of at most its device's chunk size.
 */
struct sched_item {
	uint64_t off;		/* bytes into the object */
	uint64_t len;		/* bytes, > 0 */
	uint64_t time_ns;	/* first access, since the trace began */
	union {
		/* before sched_build(): the last first access of the ranges merged into
		 * this item by sched_merge(), or 0 (then time_ns) */
		uint64_t last_ns;
		/* after: physical position on the device (rotational order), or 0 */
		uint64_t phys;
	};
	uint32_t obj;		/* what to read: a file, or a block device for metadata */
	uint32_t dev;		/* index into the device table (cost model) */
};

/* Cost model and limits of one device. */
struct sched_dev {
	uint64_t request_ns;	/* cost of one more request (seek, command overhead) */
	uint64_t bandwidth;	/* sequential bytes per second, > 0 */
	uint64_t chunk;		/* largest request in bytes, page aligned, > 0 */
	bool rotational;
};

/* Default costs: rotational disks pay a seek per request, flash a small overhead. */
#define SCHED_ROT_REQUEST_NS	8000000ull		/* 8 ms */
#define SCHED_ROT_BANDWIDTH	(120ull << 20)		/* 120 MiB/s */
#define SCHED_SSD_REQUEST_NS	100000ull		/* 100 us */
#define SCHED_SSD_BANDWIDTH	(500ull << 20)		/* 500 MiB/s */

/*
 * sched_max_gap() - the largest hole worth reading to save a request
 *
 * Reading @gap bytes costs gap / bandwidth; a separate request costs request_ns.
 * Return: the hole in bytes, rounded down to whole pages.
 */
uint64_t sched_max_gap(const struct sched_dev *dev);

/*
 * sched_can_merge() - may @b be merged into @a, as sched_build() would?
 * @a, @b: items of one object (else false), @b not starting before @a
 * @gap: sched_max_gap() of their device
 * @window_ns: as for sched_build()
 *
 * Return: true when @b starts within @a or at most @gap after its end, and all
 * first accesses of both lie within @window_ns.
 */
bool sched_can_merge(const struct sched_item *a, const struct sched_item *b, uint64_t gap,
		     uint64_t window_ns);

/*
 * sched_merge() - merge @b into @a (after sched_can_merge() said yes)
 *
 * @a then covers both and the hole between, starts at the earlier first access
 * and keeps the later one in last_ns. Merging ranges as they are read keeps a
 * pack of many small adjacent ranges from costing an item each.
 */
void sched_merge(struct sched_item *a, const struct sched_item *b);

/*
 * sched_build() - turn the pack's ranges into the list of requests to issue
 * @items: the ranges in first-access order (ties allowed); replaced by the requests
 * @n: count of @items
 * @nobj: objects are 0 .. @nobj - 1
 * @devs: device table, indexed by sched_item.dev (one object is on one device)
 * @window_ns: ranges further apart in time than this are not merged
 * @ret_n: the number of requests
 *
 * Ranges of one object that overlap, touch, or lie within sched_max_gap() of
 * each other and within @window_ns in time are merged into one request, placed
 * at the first access of its earliest range; requests keep first-access order
 * and are cut to their device's chunk size. Runs in O(n) plus the sorting of
 * each object's ranges by offset (none when already sorted).
 *
 * The requests are built in place: no memory is needed per range beyond
 * @items and a 4-byte index.
 *
 * Return: 0, -EINVAL (an object or device out of range, more than 2^32 items),
 * -ENOMEM. On success *@items is the array of requests, reallocated (and maybe
 * moved); on failure it is untouched.
 */
int sched_build(struct sched_item **items, size_t n, uint32_t nobj, const struct sched_dev *devs,
		size_t ndev, uint64_t window_ns, size_t *ret_n);

/*
 * sched_order_physical() - physical order within time bins, for rotational disks
 * @items: requests in first-access order with sched_item.phys filled in
 * @bin_ns: width of a time bin; requests of one bin are sorted by (dev, phys)
 *
 * A pure physical sort would starve the first programs; bins keep the start
 * of the boot early while saving seeks within each bin. Runs in O(n) (radix sort).
 *
 * Return: 0 or -ENOMEM (then @items is untouched).
 */
int sched_order_physical(struct sched_item *items, size_t n, uint64_t bin_ns);

#endif
