// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The replay plan: a pack -> the requests to issue, from the pack, the view of
 * the system and the options alone (it asks the system nothing). The pack's
 * demanded ranges (every range with --all: what a start really used is what
 * pays, and the trace's access events say which that is), clipped at the
 * recorded size, duplicate files as one; then replay-schedule.c merges and cuts the ranges
 * into requests by each device's cost model (replay-devices.c), metadata goes
 * first, and rotational devices get physical order within time bins.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/fiemap.h>
#include <linux/fs.h>

#include "sys-kernel-mm.h"
#include "util-log.h"
#include "replay-plan.h"

/* What the plan is built from, and what it counts on the way. */
struct planner {
	const struct ura_pack *pack;
	const struct sys_view *view;
	const struct replay_options *o;
	struct replay_plan *p;
	bool *has_requests;		/* per device: the plan reads from it */
	bool *listed;			/* per file: has a request (counted in p->counts.files) */
	uint64_t clipped_bytes;		/* of ranges past the pack's file or the device's size */
};

/* ---- the devices with something to read ---- */

/*
 * Per device of the plan: does it have something to read (the metadata it
 * holds, or selected ranges of files on it)? Devices that hold metadata get
 * their slot here. Return: 0 or -ENOMEM; @ret: free() it.
 */
static int devices_with_requests(struct planner *c, bool **ret)
{
	const struct replay_options *o = c->o;
	struct replay_devices *devs = &c->p->devices;
	size_t nm = ura_pack_meta_count(c->pack);
	struct ura_pack_meta pm;
	bool *has_requests, *selected;
	uint32_t d0;
	int err;

	for (size_t i = 0; i < nm && ura_pack_get_meta(c->pack, i, &pm) == 0; i++) {
		err = replay_devices_find_or_add(devs, c->view, pm.major, pm.minor, o->chunk, &d0);
		if (err < 0)
			return err;
	}
	has_requests = calloc(devs->n ? devs->n : 1, sizeof(*has_requests));
	selected = calloc(c->p->nfs ? c->p->nfs : 1, sizeof(*selected));
	if (!has_requests || !selected) {
		free(has_requests);
		free(selected);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nm && ura_pack_get_meta(c->pack, i, &pm) == 0; i++)
		if (replay_devices_find_or_add(devs, c->view, pm.major, pm.minor, o->chunk, &d0) == 0)
			has_requests[d0] = true;
	replay_devices_selected_fs(c->pack, o->all, selected);
	for (size_t i = 0; i < c->p->nfs; i++)
		if (selected[i])
			has_requests[c->p->fs_dev[i]] = true;
	free(selected);
	*ret = has_requests;
	return 0;
}

/* ---- pack -> requests ---- */

static uint32_t metadata_object(struct planner *c, unsigned major, unsigned minor)
{
	size_t k;

	for (k = 0; k < c->p->nbdev; k++)
		if (c->p->bdevs[k][0] == major && c->p->bdevs[k][1] == minor)
			break;
	if (k == c->p->nbdev) {
		c->p->bdevs[k][0] = major;
		c->p->bdevs[k][1] = minor;
		c->p->nbdev++;
	}
	return (uint32_t)(c->p->nfiles + k);
}

/*
 * Item @n was just filled in: merge it into the one before when the plan
 * would (a run of nearby ranges of one file then costs one item, not one
 * each: a pack may hold 10^7 ranges). Return: the count of items now.
 */
static size_t append_merging(struct planner *c, size_t n)
{
	struct sched_item *it = &c->p->req[n];

	if (n && schedule_can_merge(&c->p->req[n - 1], it, &c->p->devices.dev[it->dev])) {
		schedule_merge(&c->p->req[n - 1], it);
		return n;
	}
	return n + 1;
}

/*
 * A file listed twice in the pack (same filesystem, inode and path) is one
 * object: its ranges are then merged, and no page is read twice by two
 * workers that each found it missing. Fills @canon with the first index of each
 * file's copies. Return: 0 or -ENOMEM.
 */
static int merge_duplicate_files(struct planner *c, uint32_t *canon)
{
	struct ura_pack_index *index = NULL;
	struct ura_pack_file f, g;
	int r;

	r = ura_pack_index_new(c->pack, URA_PACK_INDEX_INODES, &index);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->p->nfiles; i++) {
		size_t first;

		canon[i] = (uint32_t)i;
		if (ura_pack_get_file(c->pack, i, &f) < 0 ||
		    ura_pack_index_find_inode(index, f.fs_index, f.ino, &first) < 0 || first == i)
			continue;
		if (ura_pack_get_file(c->pack, first, &g) == 0 && f.path_len == g.path_len &&
		    memcmp(f.path, g.path, f.path_len) == 0)
			canon[i] = (uint32_t)first;
	}
	ura_pack_index_free(index);
	return 0;
}

/* Room for item @n in c->p->req (which has room for @cap items now); 0 or -ENOMEM. */
static int reserve_request(struct planner *c, size_t n, size_t *cap)
{
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(c->p->req, (*cap * 2 + 16) * sizeof(*c->p->req));
	if (!p)
		return -ENOMEM;
	c->p->req = p;
	*cap = *cap * 2 + 16;
	return 0;
}

/*
 * The pack's selected ranges and metadata ranges, merged into first-access
 * order, as items for schedule_build(): ranges past a file's recorded size or a
 * device's end are clipped (and counted), duplicate files are one object.
 */
static int requests_from_pack(struct planner *c)
{
	size_t nr = ura_pack_range_count(c->pack), nm = ura_pack_meta_count(c->pack);
	size_t ir = 0, im = 0, n = 0, cap = nr + nm + 1;
	uint32_t *file_dev = NULL, *canon = NULL;
	uint64_t *file_pages = NULL;
	struct ura_pack_range rg;
	struct ura_pack_meta m;
	bool have_r, have_m;
	int r = -ENOMEM;
	void *p;

	c->p->nfiles = ura_pack_file_count(c->pack);
	/* metadata objects: at most one per metadata range */
	c->p->bdevs = calloc(nm + 1, sizeof(*c->p->bdevs));
	c->listed = calloc(c->p->nfiles + 1, sizeof(*c->listed));
	c->p->req = malloc((nr + nm + 1) * sizeof(*c->p->req));
	file_dev = malloc((c->p->nfiles + 1) * sizeof(*file_dev));
	file_pages = malloc((c->p->nfiles + 1) * sizeof(*file_pages));
	canon = malloc((c->p->nfiles + 1) * sizeof(*canon));
	if (!c->p->bdevs || !c->listed || !c->p->req || !file_dev || !file_pages || !canon || merge_duplicate_files(c, canon) < 0)
		goto out;
	for (size_t i = 0; i < c->p->nfiles; i++) {
		struct ura_pack_file f;

		if (ura_pack_get_file(c->pack, i, &f) < 0 || f.fs_index >= c->p->nfs) {
			r = -EINVAL;
			goto out;
		}
		file_dev[i] = c->p->fs_dev[f.fs_index];
		/* a file may have grown since (then it is stale, and maybe read anyway) */
		file_pages[i] = (f.size > UINT64_MAX / 2 ? UINT64_MAX / 2 : f.size) / URA_PACK_PAGE_SIZE + 1 +
				REPLAY_PAST_SIZE / URA_PACK_PAGE_SIZE;
	}
	have_r = ura_pack_get_range(c->pack, ir, &rg) == 0;
	have_m = ura_pack_get_meta(c->pack, im, &m) == 0;
	while (have_r || have_m) {
		struct sched_item *it;

		r = reserve_request(c, n, &cap);
		if (r < 0)
			goto out;
		it = &c->p->req[n];
		if (have_r && (!have_m || rg.first_access_ns <= m.first_access_ns)) {
			if (c->o->all || (rg.flags & URA_PACK_RANGE_DEMANDED)) {
				uint32_t fi = canon[rg.file_index];
				uint64_t lim = file_pages[rg.file_index], cut;

				/*
				 * Far past the size the pack recorded, the file is past its
				 * end now or changed: count, don't plan, so that a hostile
				 * range of 2^32 pages costs nothing.
				 */
				cut = rg.first_page >= lim ? rg.page_count :
				      rg.first_page + rg.page_count > lim ?
				      rg.first_page + rg.page_count - lim : 0;
				c->clipped_bytes += cut * URA_PACK_PAGE_SIZE;
				rg.page_count -= (uint32_t)cut;
				if (!rg.page_count) {
					have_r = ura_pack_get_range(c->pack, ++ir, &rg) == 0;
					continue;
				}
				*it = (struct sched_item){
					.off = rg.first_page * URA_PACK_PAGE_SIZE,
					.len = (uint64_t)rg.page_count * URA_PACK_PAGE_SIZE,
					.time_ns = rg.first_access_ns,
					.obj = fi,
					.dev = file_dev[fi],
				};
				if (!c->listed[fi]) {
					c->listed[fi] = true;
					c->p->counts.files++;
				}
				n = append_merging(c, n);
			}
			have_r = ura_pack_get_range(c->pack, ++ir, &rg) == 0;
		} else {
			uint32_t o = metadata_object(c, m.major, m.minor);

			uint64_t size, len = m.length;

			r = replay_devices_find_or_add(&c->p->devices, c->view, m.major, m.minor,
						       c->o->chunk, &it->dev);
			if (r < 0)
				goto out;
			/* as for files: past the device's end, count, don't plan */
			size = c->p->devices.dev[it->dev].size;
			if (size) {
				uint64_t cut = m.offset >= size ? len :
					       len > size - m.offset ? len - (size - m.offset) : 0;

				c->clipped_bytes += cut;
				len -= cut;
			} else if (len > REPLAY_META_MAX) {
				len = REPLAY_META_MAX;	/* no such device: its reads will fail */
			}
			*it = (struct sched_item){
				.off = m.offset,
				.len = len,
				.time_ns = m.first_access_ns,
				.obj = o,
				.dev = it->dev,
			};
			if (len)
				n = append_merging(c, n);
			have_m = ura_pack_get_meta(c->pack, ++im, &m) == 0;
		}
	}
	c->p->nreq = n;
	p = realloc(c->p->req, (n ? n : 1) * sizeof(*c->p->req));	/* give back what merging saved */
	if (p)
		c->p->req = p;
	r = 0;
out:
	free(canon);
	free(file_pages);
	free(file_dev);
	return r;
}


/* ---- order ---- */

/*
 * Metadata before file data, within each time bin of @bin_ns (UINT64_MAX: the
 * whole pack), keeping each kind's order. Opening a file reads its inode and
 * directories: if that happens before the metadata ranges are issued, the
 * filesystem reads them itself, block by block (ext4's inode table readahead
 * sends one 4 KiB bio per block), instead of in our large requests.
 * @ret_nfirst: the number of metadata requests in the first bin (0 when out
 * of memory: first-access order is kept).
 */
static void move_metadata_first(struct replay_plan *p, uint64_t bin_ns, size_t *ret_nfirst)
{
	struct sched_item *tmp = NULL, *q = p->req;
	size_t i = 0, first = 0, nmeta = 0;

	*ret_nfirst = 0;
	for (size_t x = 0; x < p->nreq; x++)
		nmeta += q[x].obj >= p->nfiles;
	if (!nmeta)
		return;
	/* room for the metadata requests only: the file data is moved within the array */
	tmp = malloc(nmeta * sizeof(*tmp));
	if (!tmp)
		return;		/* keep first-access order */
	while (i < p->nreq) {
		uint64_t bin = bin_ns == UINT64_MAX ? 0 : q[i].time_ns / bin_ns;
		size_t j = i, k = i, nm = 0;

		while (j < p->nreq && (bin_ns == UINT64_MAX || q[j].time_ns / bin_ns == bin))
			j++;
		/* a stable partition of [i, j): metadata aside, file data packed forward */
		for (size_t x = i; x < j; x++) {
			if (q[x].obj >= p->nfiles)
				tmp[nm++] = q[x];
			else
				q[k++] = q[x];
		}
		memmove(q + i + nm, q + i, (k - i) * sizeof(*q));
		memcpy(q + i, tmp, nm * sizeof(*q));
		if (i == 0)
			first = nm;
		i = j;
	}
	free(tmp);
	*ret_nfirst = first;
}

/* FIEMAP: where the request starts on the disk, for rotational order. */
static uint64_t physical(int fd, uint64_t off, uint64_t len)
{
	/* a struct fiemap followed by room for one extent, 8-aligned */
	uint64_t buf[(sizeof(struct fiemap) + sizeof(struct fiemap_extent)) / 8 + 1];
	struct fiemap *fm = (struct fiemap *)buf;
	const struct fiemap_extent *e = &fm->fm_extents[0];

	memset(buf, 0, sizeof(buf));
	fm->fm_start = off;
	fm->fm_length = len;
	fm->fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0 || !fm->fm_mapped_extents)
		return UINT64_MAX;
	return e->fe_physical + (off > e->fe_logical ? off - e->fe_logical : 0);
}

/*
 * One FIEMAP per file: its first extent stands for the whole file, which on a
 * filesystem that allocates in extents is close enough to order requests.
 */
int replay_plan_order_rotational(struct replay_plan *p, struct replay_files *files)
{
	size_t from = p->nmeta_first;
	uint64_t *base = NULL;
	int r;

	if (!p->rotational)
		return 0;
	base = malloc((p->nfiles ? p->nfiles : 1) * sizeof(*base));
	if (!base)
		return -ENOMEM;
	for (size_t i = 0; i < p->nfiles; i++)
		base[i] = UINT64_MAX;
	for (size_t i = from; i < p->nreq; i++) {
		struct sched_item *q = &p->req[i];

		if (!p->devices.dev[q->dev].rotational || !files) {
			q->phys = 0;
		} else if (q->obj >= p->nfiles) {
			q->phys = q->off;
		} else {
			if (base[q->obj] == UINT64_MAX) {
				int fd = replay_files_get(files, q->obj);

				base[q->obj] = fd >= 0 ? physical(fd, 0, 1) : UINT64_MAX - 1;
				replay_files_put(files, q->obj, fd, REPLAY_RELEASE_KEEP);
			}
			q->phys = base[q->obj] >= UINT64_MAX - 1 ? UINT64_MAX : base[q->obj] + q->off;
		}
	}
	free(base);
	r = schedule_order_physical(p->req + from, p->nreq - from, REPLAY_DEFAULT_BIN_NS);
	return r;
}

/* ---- the plan ---- */

/* The plan's figures for the report: what it sets out to read, per device too. */
static void count_plan(struct planner *c)
{
	struct replay_plan *p = c->p;
	const struct replay_devices *devs = &p->devices;
	struct replay_plan_counts *st = &p->counts;

	/* the devices with requests, in the table's order, with their models */
	for (size_t d = 0; d < devs->n && st->ndevs < REPLAY_REPORT_DEVS; d++)
		if (c->has_requests[d])
			st->devs[st->ndevs++] = (struct replay_dev_report){
				.major = devs->devnum[d][0], .minor = devs->devnum[d][1],
				.source = devs->dev[d].model.source,
				.request_ns = dev_model_request_ns(&devs->dev[d].model),
				.bandwidth = dev_model_bandwidth(&devs->dev[d].model),
				.rotational = devs->dev[d].rotational,
			};
	/* what the replay sets out to read: overlaps once, merged holes included */
	st->pack_bytes = st->past_eof_bytes = c->clipped_bytes;
	for (size_t i = 0; i < p->nreq; i++) {
		const struct sched_item *q = &p->req[i];
		uint64_t cost = dev_model_cost(&devs->dev[q->dev].model, q->len);

		st->pack_bytes += q->len;
		st->plan_ns += cost;
		for (unsigned d = 0; d < st->ndevs; d++)
			if (st->devs[d].major == devs->devnum[q->dev][0] &&
			    st->devs[d].minor == devs->devnum[q->dev][1]) {
				st->devs[d].plan_requests++;
				st->devs[d].plan_bytes += q->len;
				st->devs[d].plan_ns += cost;
			}
	}
	for (unsigned d = 0; d < st->ndevs; d++)
		for (size_t k = 0; k < devs->n; k++)
			if (st->devs[d].major == devs->devnum[k][0] && st->devs[d].minor == devs->devnum[k][1])
				st->devs[d].cold_requests = devs->dev[k].cold_requests;
}

int replay_plan_build(const struct ura_pack *pack, const struct sys_view *view,
		      const struct replay_fs *fs, size_t nfs, const struct replay_options *o,
		      struct replay_plan *ret)
{
	struct planner c = { .pack = pack, .view = view, .o = o, .p = ret };
	struct replay_costs costs;
	size_t nmeta;
	int r;

	*ret = (struct replay_plan){ 0 };
	ret->nfs = nfs;
	ret->fs_dev = calloc(ret->nfs ? ret->nfs : 1, sizeof(*ret->fs_dev));
	if (!ret->fs_dev)
		return -ENOMEM;
	/* the device each filesystem's files are on now: its cost model and its queue */
	for (size_t i = 0; i < ret->nfs; i++) {
		r = replay_devices_find_or_add(&ret->devices, view, fs[i].major, fs[i].minor,
					       o->chunk, &ret->fs_dev[i]);
		if (r < 0)
			return r;
	}
	r = devices_with_requests(&c, &c.has_requests);
	if (r < 0)
		return r;
	costs = replay_costs_of(o);
	replay_devices_set_up_models(&ret->devices, view, c.has_requests, &costs);
	r = requests_from_pack(&c);
	free(c.listed);
	if (r == 0)
		r = schedule_build(&ret->req, ret->nreq, (uint32_t)(ret->nfiles + ret->nbdev),
				ret->devices.dev, ret->devices.n, &ret->nreq);
	if (r == 0)
		count_plan(&c);
	free(c.has_requests);
	if (r < 0)
		return r;
	/*
	 * Metadata first. Rotational order needs every file open (FIEMAP) before
	 * the first read: then all metadata goes first, issued before ordering.
	 */
	ret->rotational = replay_devices_any_rotational(&ret->devices);
	move_metadata_first(ret, UINT64_MAX, &nmeta);
	ret->nmeta_first = ret->rotational ? nmeta : 0;
	return 0;
}

void replay_plan_log(const struct replay_plan *p, const struct ura_pack *pack)
{
	if (log_get_level() < LOG_LVL_DEBUG)
		return;
	for (size_t i = 0; i < p->nreq; i++) {
		const struct sched_item *q = &p->req[i];
		char name[PATH_MAX + 64];

		if (q->obj < p->nfiles) {
			struct ura_pack_file f;

			if (ura_pack_get_file(pack, q->obj, &f) < 0)
				continue;
			snprintf(name, sizeof(name), "%u:%u '%s'",
				 p->devices.devnum[q->dev][0], p->devices.devnum[q->dev][1], f.path);
		} else {
			snprintf(name, sizeof(name), "block device %u:%u",
				 p->bdevs[q->obj - p->nfiles][0], p->bdevs[q->obj - p->nfiles][1]);
		}
		log_debug("request %zu: %s offset %" PRIu64 " length %" PRIu64 " at %.6f s", i,
			  name, q->off, q->len, (double)q->time_ns / 1e9);
	}
}

void replay_plan_free(struct replay_plan *p)
{
	free(p->fs_dev);
	replay_devices_free(&p->devices);
	free(p->bdevs);
	free(p->req);
	*p = (struct replay_plan){ 0 };
}
