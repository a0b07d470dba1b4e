/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The devices of a replay plan: request limits and cost models, and where each model came from */
#ifndef URA_REPLAY_DEVICES_H
#define URA_REPLAY_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay-options.h"
#include "replay-report.h"
#include "replay-schedule.h"

/* The device table that sched_item.dev indexes. */
struct replay_devices {
	struct sched_dev *dev;		/* per device: limits and cost model */
	unsigned (*devnum)[2];		/* per device: major, minor */
	size_t n;
};

/**
 * replay_devices_find_or_add() - the index of device MAJ:MIN, added if new
 * @chunk: --chunk (bytes per readahead()), 0: by device
 *
 * A new device gets its request limits from sysfs (read_ahead_kb,
 * max_sectors_kb, size), logged; no cost model yet.
 * Return: 0 or -ENOMEM.
 */
int replay_devices_find_or_add(struct replay_devices *devs, unsigned major, unsigned minor,
			       uint64_t chunk, uint32_t *ret);

/**
 * replay_devices_set_up_models() - give every device its cost model
 * @has_requests: per device: the plan reads from it (only those are
 *	measured or reported)
 * @st: gets a report (struct replay_dev_report) of each device with requests
 *
 * The options' figures (--request-cost, --bandwidth), else the model measured
 * before for this device and these I/O limits, else a measurement now (once;
 * --probe=never and a dry run never measure, --probe=always always does, and
 * only a device that holds the pack's files now is measured), else a guess
 * from sysfs's rotational flag, which loop, virtio, USB and dm devices often
 * get wrong. --rotational overrides the model's flag.
 */
void replay_devices_set_up_models(struct replay_devices *devs, const bool *has_requests,
				  const struct replay_options *o, struct replay_stats *st);

/** replay_devices_any_rotational() - is some device read in physical order? */
bool replay_devices_any_rotational(const struct replay_devices *devs);

/** replay_devices_free() - accepts a zeroed @devs */
void replay_devices_free(struct replay_devices *devs);

#endif
