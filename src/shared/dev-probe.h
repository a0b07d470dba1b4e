/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Measure a block device's cost model: timed O_DIRECT reads at a few sizes */
#ifndef URA_DEV_PROBE_H
#define URA_DEV_PROBE_H

#include <stdint.h>

#include "dev-model.h"

/* How the probe reads; dev_probe_defaults() gives the measured choice (ura-replay(8)). */
struct dev_probe_opts {
	unsigned depth;		/* reads in flight together (threads) */
	uint64_t warm_ns;	/* per size: completions before this are not counted */
	uint64_t min_ns;	/* ... then at least this long */
	unsigned min_count;	/* ... and at least this many completions */
	uint64_t max_ns;	/* per size at most (a slow device gives fewer completions) */
};

void dev_probe_defaults(struct dev_probe_opts *o);

/**
 * dev_probe_measure() - measure the device time of reads of 4 KiB to 4 MiB
 * @fd: the block device, open for reading (O_DIRECT is set here)
 * @size: its size in bytes
 * @o: how; NULL for the defaults
 * @ret: the model (source DEVMODEL_PROBE), written on success only
 *
 * For each size, @o->depth threads read at random aligned offsets with O_DIRECT
 * (the page cache is neither used nor changed) and the cost of a read is the
 * time between completions once the first @o->warm_ns are past: the steady
 * rate, not a throttle's burst allowance or the device's idle start. A short
 * sequential run of 4 KiB reads tells whether seeks cost (rotational).
 * Reads only; takes at least warm_ns + min_ns (0.65 s) per size and 0.25 s
 * between sizes, up to
 * @o->max_ns (2 s) on a slow device: 5 to 9 s in all on the testbed's profiles.
 *
 * Return: 0, or -errno (-EINVAL: O_DIRECT refused or a device too small,
 * -EIO: reads failed or no memory for a buffer, -ETIMEDOUT: fewer than 3 reads
 * of the smallest sizes completed, -EAGAIN: no thread, -ENOMEM).
 */
int dev_probe_measure(int fd, uint64_t size, const struct dev_probe_opts *o, struct devmodel *ret);

#endif
