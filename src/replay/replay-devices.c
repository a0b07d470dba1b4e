// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The devices of a replay plan: the step before planning puts what the plan
 * needs into the view of the system (each device's sysfs facts; the model
 * measured before, or a measurement now); the plan then takes per device the
 * request limits (read_ahead_kb, max_sectors_kb, size) and the cost model
 * from the options, the view's model or sysfs's rotational flag.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ura/pack.h>

#include "dev-cache.h"
#include "sys-view.h"
#include "util-log.h"
#include "replay-devices.h"

void replay_devices_selected_fs(const struct ura_pack *pack, bool all, bool *ret)
{
	size_t nfs = ura_pack_fs_count(pack), left = nfs;
	struct ura_pack_range rg;
	struct ura_pack_file f;

	/* a pack has a few filesystems: stop once each has one */
	for (size_t i = 0; left && ura_pack_get_range(pack, i, &rg) == 0; i++)
		if ((all || (rg.flags & URA_PACK_RANGE_DEMANDED)) &&
		    ura_pack_get_file(pack, rg.file_index, &f) == 0 && f.fs_index < nfs &&
		    !ret[f.fs_index]) {
			ret[f.fs_index] = true;
			left--;
		}
}

/* A device of the plan to come, as the step before planning sees it. */
struct prep_dev {
	unsigned major, minor;
	bool has_files;		/* a filesystem of the pack is found on it now */
	bool has_requests;	/* the plan will read from it */
};

static int prep_add(struct prep_dev **devs, size_t *n, unsigned major, unsigned minor,
		    struct prep_dev **ret)
{
	struct prep_dev *p;

	for (size_t i = 0; i < *n; i++)
		if ((*devs)[i].major == major && (*devs)[i].minor == minor) {
			*ret = &(*devs)[i];
			return 0;
		}
	p = realloc(*devs, (*n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*devs = p;
	p[*n] = (struct prep_dev){ .major = major, .minor = minor };
	*ret = &p[(*n)++];
	return 0;
}

/* The model of a device with requests: the view's, kept, or measured now (then logged). */
static int prepare_model(struct sys_view *view, const struct prep_dev *pd,
			 const struct replay_options *o)
{
	/* measure only a device that holds the pack's files now (not one a pack merely names) */
	enum dev_cache_how how = o->probe == REPLAY_PROBE_NEVER || o->dry_run || !pd->has_files ?
				DEVCACHE_LOAD : o->probe == REPLAY_PROBE_ALWAYS ? DEVCACHE_MEASURE :
				DEVCACHE_AUTO;
	struct sys_device d;
	struct devmodel m;
	int r;

	r = sys_view_device(view, pd->major, pd->minor, &d);
	if (r < 0)
		return r;
	if (how != DEVCACHE_MEASURE && d.model_known && d.model_err == 0)
		return 0;
	if (how == DEVCACHE_LOAD)
		return d.model_known ? 0 : sys_view_load_model(view, pd->major, pd->minor, &d);
	r = dev_cache_get(pd->major, pd->minor, how, &m);
	if (r == -EROFS)
		log_info("'%s' is read-only: not measuring device %u:%u, guessing "
			 "its costs from sysfs", dev_cache_dir(), pd->major, pd->minor);
	else if (r < 0 && r != -ENOENT)
		log_info("cannot measure device %u:%u: %s, guessing its costs from "
			 "sysfs", pd->major, pd->minor, strerror(-r));
	return sys_view_set_model(view, pd->major, pd->minor, r == 0 ? &m : NULL, r);
}

int replay_devices_prepare(struct sys_view *view, const struct ura_pack *pack,
			   const struct replay_fs *fs, size_t nfs, const struct replay_options *o)
{
	size_t nm = ura_pack_meta_count(pack), n = 0;
	struct prep_dev *devs = NULL, *pd;
	struct sys_device d;
	struct ura_pack_meta pm;
	bool *selected = NULL;
	int r = -ENOMEM;

	selected = calloc(nfs ? nfs : 1, sizeof(*selected));
	if (!selected)
		goto out;
	replay_devices_selected_fs(pack, o->all, selected);
	/* in the plan's order: the filesystems' devices, then those holding metadata */
	for (size_t i = 0; i < nfs; i++) {
		r = prep_add(&devs, &n, fs[i].major, fs[i].minor, &pd);
		if (r < 0)
			goto out;
		pd->has_files |= fs[i].dirfd >= 0;
		pd->has_requests |= selected[i];
	}
	for (size_t i = 0; i < nm && ura_pack_get_meta(pack, i, &pm) == 0; i++) {
		r = prep_add(&devs, &n, pm.major, pm.minor, &pd);
		if (r < 0)
			goto out;
		pd->has_requests = true;
	}
	for (size_t i = 0; i < n; i++) {
		r = sys_view_device(view, devs[i].major, devs[i].minor, &d);
		if (r < 0)
			goto out;
	}
	r = 0;
	for (size_t i = 0; i < n && r == 0 && !o->request_ns && !o->bandwidth; i++)
		if (devs[i].has_requests)
			r = prepare_model(view, &devs[i], o);
out:
	free(selected);
	free(devs);
	return r;
}

int replay_devices_find_or_add(struct replay_devices *devs, const struct sys_view *view,
			       unsigned major, unsigned minor, uint64_t chunk, uint32_t *ret)
{
	struct sys_device sd = { 0 };
	struct sched_dev *d;
	unsigned ra, maxs;
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
	(void)sys_view_find_device(view, major, minor, &sd);	/* not there: nothing known */
	ra = sd.read_ahead_kb;
	maxs = sd.max_sectors_kb;
	/* one readahead() reads at most max(read_ahead_kb, max request): never ask for more */
	cap = (uint64_t)(ra > maxs ? ra : maxs) << 10;
	if (!cap)
		cap = REPLAY_FALLBACK_CHUNK;
	d->chunk = chunk && chunk < cap ? chunk : cap;
	d->chunk = d->chunk < URA_PACK_PAGE_SIZE ? URA_PACK_PAGE_SIZE :
		   d->chunk & ~(URA_PACK_PAGE_SIZE - 1);
	d->readahead = (uint64_t)ra << 10;
	d->size = sd.size;
	d->max_request = (uint64_t)maxs << 10;
	log_debug("device %u:%u: chunk %" PRIu64 " KiB (read_ahead_kb %u, max_sectors_kb %u)",
		  major, minor, d->chunk >> 10, ra, maxs);
	*ret = (uint32_t)devs->n++;
	return 0;
}

struct replay_costs replay_costs_of(const struct replay_options *o)
{
	return (struct replay_costs){ .request_ns = o->request_ns, .bandwidth = o->bandwidth,
				      .rotational = o->rotational };
}

void replay_devices_set_up_models(struct replay_devices *devs, const struct sys_view *view,
				  const bool *has_requests, const struct replay_costs *o)
{
	for (size_t d = 0; d < devs->n; d++) {
		unsigned major = devs->devnum[d][0], minor = devs->devnum[d][1];
		struct sched_dev *dv = &devs->dev[d];
		struct sys_device sd = { 0 };
		struct devmodel m = { 0 };
		bool known = sys_view_find_device(view, major, minor, &sd) == 0;
		bool sysfs = known && sd.has_rotational, rot = sysfs && sd.rotational, have = false;

		if (o->request_ns || o->bandwidth) {
			dev_model_from_costs(&m, o->request_ns ? o->request_ns :
					    rot ? DEVMODEL_ROT_REQUEST_NS : DEVMODEL_SSD_REQUEST_NS,
					    o->bandwidth ? o->bandwidth :
					    rot ? DEVMODEL_ROT_BANDWIDTH : DEVMODEL_SSD_BANDWIDTH,
					    rot, DEVMODEL_OPTIONS);
			have = true;
		} else if (has_requests[d] && sd.model_known && sd.model_err == 0) {
			m = sd.model;
			have = true;
		}
		if (!have)
			dev_model_from_costs(&m, rot ? DEVMODEL_ROT_REQUEST_NS : DEVMODEL_SSD_REQUEST_NS,
					    rot ? DEVMODEL_ROT_BANDWIDTH : DEVMODEL_SSD_BANDWIDTH, rot,
					    sysfs ? DEVMODEL_SYSFS : DEVMODEL_DEFAULT);
		dv->model = m;
		dv->rotational = o->rotational >= 0 ? o->rotational : m.rotational;
		log_debug("device %u:%u: model from %s, %s, request %.0f us, %.1f MiB/s, "
			  "holes up to %" PRIu64 " KiB read", major, minor,
			  dev_model_source_name(m.source), dv->rotational ? "rotational" : "no seeks",
			  (double)dev_model_request_ns(&m) / 1e3,
			  (double)dev_model_bandwidth(&m) / (1 << 20), schedule_max_gap(dv) >> 10);
		if (m.combine == DEVMODEL_BUDGETS)
			log_debug("device %u:%u: two budgets, %.1f MiB/s and %" PRIu64 " reads/s",
				  major, minor, (double)m.bps / (1 << 20), m.iops);
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
