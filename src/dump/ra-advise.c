// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The read_ahead_kb advisor (paper 000, "Prediction of optimal readahead
 * parameter"): the trace's accesses through the readahead emulation at every
 * candidate maximum window, F (requests) and G (pages read, never used) for
 * each, and two picks: the least F^2 + G^2 (the paper's rule, blind to the
 * device) and the least estimated device time (each request's cost by the
 * device's model, metadata included). Only the filesystem the trace read
 * most is advised for: read_ahead_kb is a property of its device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev-cache.h"
#include "sys-view.h"
#include "util-log.h"
#include "ra-advise.h"

static const uint32_t candidates[] = { 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096 };

void ra_advise_free(struct ra_advice *a)
{
	if (!a)
		return;
	free(a->per_file);
	a->per_file = NULL;
}

uint32_t ra_advise_fs(const struct ura_pack *pack, uint64_t *ret_pages)
{
	size_t nfs = ura_pack_fs_count(pack);
	uint64_t *pages = calloc(nfs ? nfs : 1, sizeof(*pages));
	uint32_t best = 0;

	if (ret_pages)
		*ret_pages = 0;
	if (!pages)
		return 0;
	for (size_t i = 0, n = ura_pack_range_count(pack); i < n; i++) {
		struct ura_pack_range r;
		struct ura_pack_file f;

		if (ura_pack_get_range(pack, i, &r) == 0 &&
		    ura_pack_get_file(pack, r.file_index, &f) == 0 && f.fs_index < nfs)
			pages[f.fs_index] += r.page_count;
	}
	for (uint32_t i = 1; i < nfs; i++)
		if (pages[i] > pages[best])
			best = i;
	if (ret_pages)
		*ret_pages = nfs ? pages[best] : 0;
	free(pages);
	return best;
}

static int add_window(struct ra_advice *a, uint32_t kb)
{
	size_t i = 0;

	while (i < a->n && a->row[i].window_kb < kb)
		i++;
	if (i < a->n && a->row[i].window_kb == kb)
		return (int)i;
	if (a->n == RA_ADVISE_MAX_WINDOWS)
		return -1;
	memmove(&a->row[i + 1], &a->row[i], (a->n - i) * sizeof(a->row[0]));
	a->row[i] = (struct ra_advice_row){ .window_kb = kb };
	a->n++;
	return (int)i;
}

int ra_advise(const struct ura_pack *pack, const struct devmodel *model, FILE *decisions,
	      struct ra_advice *ret)
{
	struct ra_advice a = { 0 };
	struct ra_emulation *e = NULL;
	struct ra_counts *files = NULL;
	struct ura_pack_info info;
	int r;

	r = ra_emulate_new(pack, &e);
	if (r < 0)
		return r;
	ura_pack_get_info(pack, &info);
	a.truncated = info.flags & URA_PACK_INFO_ACCESS_TRUNCATED;
	a.fs_index = ra_advise_fs(pack, &a.trace_added_pages);
	(void)ura_pack_get_fs(pack, a.fs_index, &a.fs);
	a.trace_kb = info.read_ahead_kb ? info.read_ahead_kb : a.fs.read_ahead_kb;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		add_window(&a, candidates[i]);
	if (a.trace_kb && a.trace_kb <= RA_EMULATE_MAX_KB)
		add_window(&a, a.trace_kb);
	a.at_trace = a.n;
	for (size_t i = 0; i < a.n; i++)
		if (a.row[i].window_kb == a.trace_kb)
			a.at_trace = i;

	a.nfiles = ura_pack_file_count(pack);
	files = calloc(a.nfiles ? a.nfiles : 1, sizeof(*files));
	a.per_file = calloc((a.nfiles ? a.nfiles : 1) * a.n, sizeof(*a.per_file));
	if (!files || !a.per_file) {
		r = -ENOMEM;
		goto out;
	}
	ra_emulate_metadata(e, model, &a.meta);
	/* the trace's window first: its run notes what the others need */
	for (size_t k = 0; k < a.n; k++) {
		size_t w = k == 0 && a.at_trace < a.n ? a.at_trace :
			   k <= a.at_trace && a.at_trace < a.n ? k - 1 : k;
		struct ra_emulate_opts o = { .window_kb = a.row[w].window_kb, .model = model,
					     .decisions = w == a.at_trace ? decisions : NULL };
		struct ra_counts all;
		struct ra_advice_row *row = &a.row[w];

		r = w == a.at_trace ? ra_emulate_reference(e, &o, files, &all) :
				      ra_emulate_run(e, &o, files, &all);
		if (r < 0)
			goto out;
		for (size_t f = 0; f < a.nfiles; f++) {
			struct ura_pack_file pf;
			const struct ra_counts *c = &files[f];

			a.per_file[f * a.n + w] = *c;
			if (ura_pack_get_file(pack, f, &pf) < 0 || pf.fs_index != a.fs_index)
				continue;
			row->c.requests += c->requests;
			row->c.pages_read += c->pages_read;
			row->c.unused += c->unused;
			row->c.ra_pages += c->ra_pages;
			row->c.ra_used += c->ra_used;
			row->c.accessed += c->accessed;
			row->c.hits += c->hits;
			row->c.io_ns += c->io_ns;
		}
		row->copt = (double)row->c.requests * (double)row->c.requests +
			    (double)row->c.unused * (double)row->c.unused;
		/* on a two-budget device the larger budget, not the sum of the requests */
		row->time_ns = !model ? row->c.io_ns + a.meta.io_ns :
			       dev_model_total(model, (row->c.pages_read + a.meta.pages_read) * 4096,
					      row->c.requests + a.meta.requests,
					      row->c.io_ns + a.meta.io_ns);
	}
	for (size_t w = 1; w < a.n; w++) {
		if (a.row[w].time_ns < a.row[a.recommended].time_ns)
			a.recommended = w;
		if (a.row[w].copt < a.row[a.copt].copt)
			a.copt = w;
	}
	*ret = a;
	a.per_file = NULL;
	r = 0;
out:
	free(files);
	ra_advise_free(&a);
	ra_emulate_free(e);
	return r;
}

int ra_advise_hits(const struct ura_pack *pack, struct ra_counts **ret_per_file,
		   struct ra_counts *ret_total, uint32_t *ret_kb)
{
	struct ra_emulation *e = NULL;
	struct ra_emulate_opts o = { 0 };
	struct ura_pack_info info;
	struct ura_pack_fs fs = { 0 };
	struct ra_counts *files;
	int r;

	ura_pack_get_info(pack, &info);
	(void)ura_pack_get_fs(pack, ra_advise_fs(pack, NULL), &fs);
	o.window_kb = info.read_ahead_kb ? info.read_ahead_kb : fs.read_ahead_kb;
	if (!o.window_kb || o.window_kb > RA_EMULATE_MAX_KB)
		return -ENODATA;
	r = ra_emulate_new(pack, &e);
	if (r < 0)
		return r;
	files = calloc(ura_pack_file_count(pack) ? ura_pack_file_count(pack) : 1, sizeof(*files));
	if (!files) {
		ra_emulate_free(e);
		return -ENOMEM;
	}
	r = ra_emulate_reference(e, &o, files, ret_total);
	ra_emulate_free(e);
	if (r < 0) {
		free(files);
		return r;
	}
	*ret_per_file = files;
	*ret_kb = o.window_kb;
	return 0;
}

int ra_advise_measure(struct sys_view *view, const struct ura_pack_fs *fs,
		      const struct ra_model_opts *o)
{
	unsigned major = o->have_dev ? o->major : fs->major;
	unsigned minor = o->have_dev ? o->minor : fs->minor;
	struct sys_device d, disk;
	struct devmodel m;
	int r;

	/* read_ahead_kb lives on the whole disk: its facts, and its model */
	r = sys_view_device(view, major, minor, &d);
	if (r < 0 || !d.has_disk)
		return r;
	r = sys_view_device(view, d.disk_major, d.disk_minor, &disk);
	if (r < 0 || o->request_ns || o->bandwidth || (disk.model_known && !disk.model_err))
		return r;
	r = dev_cache_get(d.disk_major, d.disk_minor, DEVCACHE_AUTO, &m);
	return sys_view_set_model(view, d.disk_major, d.disk_minor, r == 0 ? &m : NULL, r);
}

void ra_advise_model(const struct sys_view *view, const struct ura_pack_fs *fs,
		     const struct ra_model_opts *o, struct ra_device *ret)
{
	unsigned major = o->have_dev ? o->major : fs->major;
	unsigned minor = o->have_dev ? o->minor : fs->minor;
	struct sys_device d = { 0 }, disk = { 0 };
	bool known;

	*ret = (struct ra_device){ 0 };
	known = sys_view_find_device(view, major, minor, &d) == 0 && d.has_disk;
	if (known) {
		ret->major = d.disk_major;
		ret->minor = d.disk_minor;
		(void)sys_view_find_device(view, ret->major, ret->minor, &disk);
		snprintf(ret->name, sizeof(ret->name), "%s", disk.name);
	}
	if (o->request_ns || o->bandwidth) {
		dev_model_from_costs(&ret->model,
				    o->request_ns ? o->request_ns : DEVMODEL_SSD_REQUEST_NS,
				    o->bandwidth ? o->bandwidth : DEVMODEL_SSD_BANDWIDTH, false,
				    DEVMODEL_OPTIONS);
		return;
	}
	if (known) {
		if (disk.model_known && !disk.model_err) {
			ret->model = disk.model;
			return;
		}
		log_info("no measured model of device %u:%u (%s), guessing from sysfs", ret->major,
			 ret->minor, strerror(disk.model_known ? -disk.model_err : ENOENT));
		if (disk.has_rotational) {
			bool rot = disk.rotational;

			dev_model_from_costs(&ret->model,
					    rot ? DEVMODEL_ROT_REQUEST_NS : DEVMODEL_SSD_REQUEST_NS,
					    rot ? DEVMODEL_ROT_BANDWIDTH : DEVMODEL_SSD_BANDWIDTH, rot,
					    DEVMODEL_SYSFS);
			return;
		}
	}
	dev_model_from_costs(&ret->model, DEVMODEL_SSD_REQUEST_NS, DEVMODEL_SSD_BANDWIDTH, false,
			    DEVMODEL_DEFAULT);
}
