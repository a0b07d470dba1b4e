/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A device's cost model: the device time of one read as a function of its size */
#ifndef URA_DEV_MODEL_H
#define URA_DEV_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DEVMODEL_MAX_POINTS	8
#define DEVMODEL_MAX_NS		3600000000000ull	/* an hour: costs stay far from overflow */

enum dev_model_source {
	DEVMODEL_DEFAULT,	/* nothing known: the flash guess */
	DEVMODEL_SYSFS,		/* guessed from the queue's rotational flag (which may lie) */
	DEVMODEL_OPTIONS,	/* --request-cost / --bandwidth */
	DEVMODEL_CACHE,		/* measured before, read back from the device cache */
	DEVMODEL_PROBE,		/* measured now */
};

/*
 * How the costs of several reads combine (ura-replay(8), DEVICE MODEL).
 * ADDITIVE: a replay's device time is the sum of its reads' costs (a disk or a
 * flash chip; the parallelism the probe finds at its queue depth is folded into
 * each point). BUDGETS: bytes and requests are granted from two separate
 * budgets, @bps and @iops (a blk-throttle or io.max limit, a cloud volume sold
 * with a throughput cap and an IOPS cap), so a replay takes the larger of all
 * its bytes over @bps and all its reads over @iops: while bytes bind a small
 * read costs nothing more, and reading a hole to save a read is a loss.
 */
enum dev_model_combine {
	DEVMODEL_ADDITIVE,
	DEVMODEL_BUDGETS,
};

/*
 * The cost of a read of @size[i] bytes is @ns[i] of device time, measured with
 * the device kept busy (reads in flight together), so that it is the time one
 * more such read adds to a replay. Between points the cost is interpolated;
 * past the last one it grows with the last segment's slope. Sizes increase.
 */
struct devmodel {
	unsigned n;
	uint64_t size[DEVMODEL_MAX_POINTS];
	uint64_t ns[DEVMODEL_MAX_POINTS];
	bool rotational;		/* a random read costs far more than a sequential one */
	enum dev_model_source source;
	enum dev_model_combine combine;
	uint64_t bps, iops;		/* BUDGETS: bytes and reads per second granted */
};

/* The figures a sysfs guess or --request-cost / --bandwidth give, as a model. */
#define DEVMODEL_ROT_REQUEST_NS	8000000ull		/* 8 ms */
#define DEVMODEL_ROT_BANDWIDTH	(120ull << 20)		/* 120 MiB/s */
#define DEVMODEL_SSD_REQUEST_NS	100000ull		/* 100 us */
#define DEVMODEL_SSD_BANDWIDTH	(500ull << 20)		/* 500 MiB/s */

/**
 * dev_model_from_costs() - a model where a read costs @request_ns plus its bytes at @bandwidth
 * @bandwidth: bytes per second, > 0
 */
void dev_model_from_costs(struct devmodel *m, uint64_t request_ns, uint64_t bandwidth,
			 bool rotational, enum dev_model_source source);

/** dev_model_cost() - device time of one read of @bytes, in ns (0 for 0 bytes) */
uint64_t dev_model_cost(const struct devmodel *m, uint64_t bytes);

/*
 * dev_model_request_ns(), dev_model_bandwidth() - the model in two figures, for
 * reports: the cost of the smallest read, and the bytes per second that the
 * largest read measured achieves.
 */
uint64_t dev_model_request_ns(const struct devmodel *m);
uint64_t dev_model_bandwidth(const struct devmodel *m);

/*
 * dev_model_balance_bytes() - the read size whose bytes cost as much device time
 * as being one more request does: @bps / @iops for two budgets, else the cost of
 * the smallest read times the bandwidth. Reads smaller than this are bound by
 * their number, larger ones by their bytes. 0 for an empty model.
 */
uint64_t dev_model_balance_bytes(const struct devmodel *m);

/**
 * dev_model_total() - device time of @reads reads of @bytes in all, whose costs
 * one by one sum to @sum_ns: @sum_ns when costs add up, else the larger budget
 */
uint64_t dev_model_total(const struct devmodel *m, uint64_t bytes, uint64_t reads,
			uint64_t sum_ns);

/*
 * dev_model_classify() - additive or two budgets, from what the probe measured:
 * @small_ns and @large_ns the cost of one read of @small and @large bytes in
 * streams of one size, @mixed_ns the cost of a group of @per_large small reads
 * and one large read in a mixed stream. Costs that add up predict @per_large
 * small plus one large; two budgets predict the larger of the group's bytes at
 * the large reads' rate and its reads at the small reads' rate. The nearer
 * prediction wins; where the two predictions are within 20% of each other
 * (one budget binds whatever the mix) the model stays additive. Sets @m's
 * combine, bps and iops.
 */
void dev_model_classify(struct devmodel *m, uint64_t small, uint64_t small_ns, uint64_t large,
		       uint64_t large_ns, unsigned per_large, uint64_t mixed_ns);

/**
 * dev_model_valid() - points in increasing size (at most 1 TiB), with costs that
 * never fall (at most two hours), at least two and at most DEVMODEL_MAX_POINTS
 */
bool dev_model_valid(const struct devmodel *m);

const char *dev_model_source_name(enum dev_model_source s);

/*
 * The text form of the device cache: "rotational 0|1", "point SIZE NS" lines,
 * and "budgets BPS IOPS" for a two-budget device.
 */
int dev_model_write(FILE *f, const struct devmodel *m);

/**
 * dev_model_parse() - read the text form
 * Return: 0, or -EBADMSG when a line is malformed or the model is not valid.
 */
int dev_model_parse(const char *text, struct devmodel *ret);

#endif
