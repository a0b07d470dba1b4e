/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The replay plan: a pack -> the requests to issue, per device by its cost model, in order */
#ifndef URA_REPLAY_PLAN_H
#define URA_REPLAY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ura/pack.h>

#include "replay-devices.h"
#include "replay-files.h"
#include "replay-mounts.h"
#include "replay-options.h"
#include "replay-report.h"
#include "replay-schedule.h"

struct sys_view;

/* What a plan sets out to read, for the report (the engine adds the other stages' counts). */
struct replay_plan_counts {
	uint64_t files;			/* files with something to read */
	uint64_t pack_bytes;		/* of the requests, and of the ranges clipped */
	uint64_t past_eof_bytes;	/* clipped at the recorded size or the device's end */
	uint64_t plan_ns;		/* device time of all requests, by the models */
	struct replay_dev_report devs[REPLAY_REPORT_DEVS];	/* devices with requests */
	unsigned ndevs;
};

struct replay_plan {
	size_t nfs;			/* the pack's filesystems: */
	uint32_t *fs_dev;		/* per filesystem: index of its device */
	struct replay_devices devices;	/* per device: limits and cost model */
	size_t nfiles;			/* objects 0 .. nfiles - 1 are the pack's files, */
	unsigned (*bdevs)[2];		/* then the block devices holding metadata */
	size_t nbdev;
	struct sched_item *req;		/* the requests, in the order to issue them */
	size_t nreq;
	size_t nmeta_first;		/* req[0 .. nmeta_first): metadata to issue before
					 * replay_plan_order_rotational() opens the files */
	bool rotational;		/* some device is read in physical order */
	struct replay_plan_counts counts;
};

/**
 * replay_plan_build() - plan the reads of @pack: asks the system nothing
 * @view: each device's facts and model (replay_devices_prepare() put them there)
 * @fs: where the pack's filesystems are now (replay_mounts_find()), @nfs of them
 * @ret: the plan, with its figures in @ret->counts; free with replay_plan_free(),
 *	also on failure
 *
 * Sets up each device's cost model (--request-cost/--bandwidth, the view's
 * kept or new measurement, or sysfs's guess), turns the selected ranges
 * (demanded ones; all with --all) and the metadata ranges into requests
 * (schedule_build()), and
 * puts metadata first. Rotational order is a second step:
 * replay_plan_order_rotational().
 *
 * Return: 0, -ENOMEM, -EINVAL (a file of an unknown filesystem).
 */
int replay_plan_build(const struct ura_pack *pack, const struct sys_view *view,
		      const struct replay_fs *fs, size_t nfs, const struct replay_options *o,
		      struct replay_plan *ret);

/**
 * replay_plan_order_rotational() - physical order within time bins on rotational devices
 * @files: to read each file's first extent (FIEMAP); NULL in a dry run (no file
 *	is opened, files keep their order)
 *
 * Orders req[nmeta_first ..]. Return: 0 or -ENOMEM.
 */
int replay_plan_order_rotational(struct replay_plan *p, struct replay_files *files);

/** replay_plan_log() - list the requests in the debug log (--dry-run -v) */
void replay_plan_log(const struct replay_plan *p, const struct ura_pack *pack);

/** replay_plan_free() - accepts a zeroed or half-built @p */
void replay_plan_free(struct replay_plan *p);

#endif
