// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The devices of a replay plan: per device, the request limits sysfs gives
 * (read_ahead_kb, max_sectors_kb, size) and the cost model the plan is built
 * with, from the options, the device cache (a model measured before, or a
 * measurement now) or sysfs's rotational flag.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ura/pack.h>

#include "dev-block.h"
#include "dev-cache.h"
#include "util-log.h"
#include "replay-devices.h"

int replay_devices_find_or_add(struct replay_devices *devs, unsigned major, unsigned minor,
			       uint64_t chunk, uint32_t *ret)
{
	struct sched_dev *d;
	unsigned ra = 0, maxs = 0;
	uint64_t cap;
	size_t i;
	void *p;

	for (i = 0; i < devs->n; i++)
		if (devs->devnum[i][0] == major && devs->devnum[i][1] == minor) {
			*ret = (uint32_t)i;
			return 0;
		}
	/* a pack names a few devices: grow one at a time */
	p = realloc(devs->dev, (devs->n + 1) * sizeof(*devs->dev));
	if (!p)
		return -ENOMEM;
	devs->dev = p;
	p = realloc(devs->devnum, (devs->n + 1) * sizeof(*devs->devnum));
	if (!p)
		return -ENOMEM;
	devs->devnum = p;
	d = &devs->dev[devs->n];
	*d = (struct sched_dev){ 0 };
	devs->devnum[devs->n][0] = major;
	devs->devnum[devs->n][1] = minor;
	(void)blockdev_get_read_ahead_kb(major, minor, &ra);
	(void)blockdev_max_sectors_kb(major, minor, &maxs);
	/* one readahead() reads at most max(read_ahead_kb, max request): never ask for more */
	cap = (uint64_t)(ra > maxs ? ra : maxs) << 10;
	if (!cap)
		cap = REPLAY_FALLBACK_CHUNK;
	d->chunk = chunk && chunk < cap ? chunk : cap;
	d->chunk = d->chunk < URA_PACK_PAGE_SIZE ? URA_PACK_PAGE_SIZE :
		   d->chunk & ~(URA_PACK_PAGE_SIZE - 1);
	d->readahead = (uint64_t)ra << 10;
	if (blockdev_size(major, minor, &d->size) < 0)
		d->size = 0;
	d->max_request = (uint64_t)maxs << 10;
	log_debug("device %u:%u: chunk %" PRIu64 " KiB (read_ahead_kb %u, max_sectors_kb %u)",
		  major, minor, d->chunk >> 10, ra, maxs);
	*ret = (uint32_t)devs->n++;
	return 0;
}

/*
 * A kept model of device MAJ:MIN, or a measurement now (see
 * replay_devices_set_up_models()). Return: true when @ret was filled;
 * false: guess from sysfs (why is logged when it is worth saying).
 */
static bool model_from_cache(const struct sched_dev *dv, unsigned major, unsigned minor,
			     const struct replay_options *o, struct devmodel *ret)
{
	/* measure only a device that holds the pack's files now (not one a pack merely names) */
	enum devcache_how how = o->probe == REPLAY_PROBE_NEVER || o->dry_run || !dv->has_files ?
				DEVCACHE_LOAD : o->probe == REPLAY_PROBE_ALWAYS ? DEVCACHE_MEASURE :
				DEVCACHE_AUTO;
	int r = devcache_get(major, minor, how, ret);

	if (r == -EROFS)
		log_info("'%s' is read-only: not measuring device %u:%u, guessing "
			 "its costs from sysfs", devcache_dir(), major, minor);
	else if (r < 0 && r != -ENOENT)
		log_info("cannot measure device %u:%u: %s, guessing its costs from "
			 "sysfs", major, minor, strerror(-r));
	return r == 0;
}

void replay_devices_set_up_models(struct replay_devices *devs, const bool *has_requests,
				  const struct replay_options *o, struct replay_stats *st)
{
	for (size_t d = 0; d < devs->n; d++) {
		unsigned major = devs->devnum[d][0], minor = devs->devnum[d][1];
		struct sched_dev *dv = &devs->dev[d];
		struct devmodel m = { 0 };
		bool rot = false, have = false;
		bool sysfs = blockdev_is_rotational(major, minor, &rot) == 0;

		if (!sysfs)
			rot = false;
		if (o->request_ns || o->bandwidth) {
			devmodel_from_costs(&m, o->request_ns ? o->request_ns :
					    rot ? DEVMODEL_ROT_REQUEST_NS : DEVMODEL_SSD_REQUEST_NS,
					    o->bandwidth ? o->bandwidth :
					    rot ? DEVMODEL_ROT_BANDWIDTH : DEVMODEL_SSD_BANDWIDTH,
					    rot, DEVMODEL_OPTIONS);
			have = true;
		} else if (has_requests[d]) {
			have = model_from_cache(dv, major, minor, o, &m);
		}
		if (!have)
			devmodel_from_costs(&m, rot ? DEVMODEL_ROT_REQUEST_NS : DEVMODEL_SSD_REQUEST_NS,
					    rot ? DEVMODEL_ROT_BANDWIDTH : DEVMODEL_SSD_BANDWIDTH, rot,
					    sysfs ? DEVMODEL_SYSFS : DEVMODEL_DEFAULT);
		dv->model = m;
		dv->rotational = o->rotational >= 0 ? o->rotational : m.rotational;
		log_debug("device %u:%u: model from %s, %s, request %.0f us, %.1f MiB/s, "
			  "holes up to %" PRIu64 " KiB read", major, minor,
			  devmodel_source_name(m.source), dv->rotational ? "rotational" : "no seeks",
			  (double)devmodel_request_ns(&m) / 1e3,
			  (double)devmodel_bandwidth(&m) / (1 << 20), sched_max_gap(dv) >> 10);
		if (m.combine == DEVMODEL_BUDGETS)
			log_debug("device %u:%u: two budgets, %.1f MiB/s and %" PRIu64 " reads/s",
				  major, minor, (double)m.bps / (1 << 20), m.iops);
		if (st->ndevs < REPLAY_REPORT_DEVS && has_requests[d]) {
			struct replay_dev_report *rep = &st->devs[st->ndevs++];

			*rep = (struct replay_dev_report){
				.major = major, .minor = minor, .source = m.source,
				.request_ns = devmodel_request_ns(&m),
				.bandwidth = devmodel_bandwidth(&m),
				.rotational = dv->rotational,
			};
		}
	}
}

bool replay_devices_any_rotational(const struct replay_devices *devs)
{
	for (size_t d = 0; d < devs->n; d++)
		if (devs->dev[d].rotational)
			return true;
	return false;
}

void replay_devices_free(struct replay_devices *devs)
{
	free(devs->dev);
	free(devs->devnum);
	*devs = (struct replay_devices){ 0 };
}
