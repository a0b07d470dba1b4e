/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The devices of a replay plan: request limits and cost models, and where each model came from */
#ifndef URA_REPLAY_DEVICES_H
#define URA_REPLAY_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ura/pack.h>

#include "replay-mounts.h"
#include "replay-options.h"
#include "replay-schedule.h"

struct sys_view;

/* The device table that sched_item.dev indexes. */
struct replay_devices {
	struct sched_dev *dev;		/* per device: limits and cost model */
	unsigned (*devnum)[2];		/* per device: major, minor */
	size_t n;
};

/**
 * replay_devices_selected_fs() - per filesystem of @pack: has it a range to read?
 * @all: every range counts (--all), else the demanded ones
 * @ret: ura_pack_fs_count() flags, set where the pack has such a range of a file there
 */
void replay_devices_selected_fs(const struct ura_pack *pack, bool all, bool *ret);

/**
 * replay_devices_prepare() - the step before planning: what the plan will read of @view
 * @fs: where the pack's filesystems are now (replay_mounts_find()), @nfs of them
 *
 * Puts into @view the facts of each device a plan of @pack has (those its
 * filesystems are on now, then those that hold its metadata), and for each
 * that has something to read, its cost model unless the options give one
 * (--request-cost, --bandwidth): the model measured before for this device and
 * these I/O limits, else a measurement now (once; --probe=never and a dry run
 * never measure, --probe=always always does, and only a device that holds the
 * pack's files now is measured). A view that has the model already (the exec
 * daemon keeps its view) is not asked again, but with --probe=always.
 * Return: 0 or -ENOMEM.
 */
int replay_devices_prepare(struct sys_view *view, const struct ura_pack *pack,
			   const struct replay_fs *fs, size_t nfs, const struct replay_options *o);

/**
 * replay_devices_find_or_add() - the index of device MAJ:MIN, added if new
 * @view: the device's facts (none known when the view does not hold it)
 * @chunk: --chunk (bytes per readahead()), 0: by device
 *
 * A new device gets its request limits from the view (read_ahead_kb,
 * max_sectors_kb, size), logged; no cost model yet.
 * Return: 0 or -ENOMEM.
 */
int replay_devices_find_or_add(struct replay_devices *devs, const struct sys_view *view,
			       unsigned major, unsigned minor, uint64_t chunk, uint32_t *ret);

/* What the options say of every device's costs. */
struct replay_costs {
	uint64_t request_ns;		/* --request-cost; 0: not given */
	uint64_t bandwidth;		/* --bandwidth, bytes per second; 0: not given */
	int rotational;			/* --rotational: 0 no, 1 yes, -1 as the model says */
};

/** replay_costs_of() - those of @o */
struct replay_costs replay_costs_of(const struct replay_options *o);

/**
 * replay_devices_set_up_models() - give every device its cost model
 * @view: the models kept or measured (replay_devices_prepare()) and sysfs's flags
 * @has_requests: per device: the plan reads from it (only those get the
 *	view's model)
 * @costs: the options' figures
 *
 * The options' figures (--request-cost, --bandwidth), else the view's model,
 * else a guess from sysfs's rotational flag, which loop, virtio, USB and dm
 * devices often get wrong. --rotational overrides the model's flag.
 */
void replay_devices_set_up_models(struct replay_devices *devs, const struct sys_view *view,
				  const bool *has_requests, const struct replay_costs *costs);

/** replay_devices_any_rotational() - is some device read in physical order? */
bool replay_devices_any_rotational(const struct replay_devices *devs);

/** replay_devices_free() - accepts a zeroed @devs */
void replay_devices_free(struct replay_devices *devs);

#endif
