// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One view of the system: the mount table, read once (and again only after
 * the kernel flags a mount change on the watch descriptor), and the facts of
 * each block device asked for, read from sysfs once, with the cost model kept
 * for it. The stages after it (trace assembly, the replay plan, the advisor)
 * read these plain structs instead of asking the system again.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev-block.h"
#include "dev-cache.h"
#include "sys-view.h"

#define MOUNTINFO	"/proc/self/mountinfo"

struct sys_view {
	unsigned flags;			/* SYS_VIEW_*, as read */
	bool live;			/* read from this system (else parsed) */
	unsigned refs;			/* atomic */
	int watch_fd;			/* -1: none */
	bool changed;			/* atomic: the watch said so (a poll takes the kernel's flag) */
	bool have_mounts;
	int mounts_err;
	struct mount_table mounts;	/* never changed once read: read without the lock */
	pthread_mutex_t lock;		/* guards the devices (replays of the exec daemon share a view) */
	struct sys_device *devs;
	size_t ndevs;
};

static int view_new(unsigned flags, bool live, struct sys_view **ret)
{
	struct sys_view *v = calloc(1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	v->flags = flags;
	v->live = live;
	v->refs = 1;
	v->watch_fd = -1;
	pthread_mutex_init(&v->lock, NULL);
	*ret = v;
	return 0;
}

int sys_view_read(unsigned flags, struct sys_view **ret)
{
	struct sys_view *v = NULL;
	int r;

	r = view_new(flags, true, &v);
	if (r < 0)
		return r;
	/* the watch first, then the table: a mount between the two is not missed */
	if (flags & SYS_VIEW_WATCH)
		v->watch_fd = mountinfo_watch();	/* -errno: then always "changed" */
	if (flags & (SYS_VIEW_MOUNTS | SYS_VIEW_WATCH)) {
		r = mountinfo_read(MOUNTINFO, &v->mounts);
		if (r == -ENOMEM) {
			sys_view_unref(v);
			return r;
		}
		v->have_mounts = r == 0;
		v->mounts_err = r < 0 ? r : 0;
	}
	*ret = v;
	return 0;
}

int sys_view_parse(const char *text, size_t len, struct sys_view **ret)
{
	struct sys_view *v = NULL;
	int r;

	r = view_new(SYS_VIEW_MOUNTS, false, &v);
	if (r < 0)
		return r;
	r = mountinfo_parse(text, len, &v->mounts);
	if (r < 0) {
		sys_view_unref(v);
		return r;
	}
	v->have_mounts = true;
	*ret = v;
	return 0;
}

struct sys_view *sys_view_ref(struct sys_view *v)
{
	if (v)
		__atomic_fetch_add(&v->refs, 1, __ATOMIC_RELAXED);
	return v;
}

void sys_view_unref(struct sys_view *v)
{
	if (!v || __atomic_sub_fetch(&v->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (v->watch_fd >= 0)
		close(v->watch_fd);
	mountinfo_free(&v->mounts);
	pthread_mutex_destroy(&v->lock);
	free(v->devs);
	free(v);
}

const struct mount_table *sys_view_mounts(const struct sys_view *v)
{
	return v && v->have_mounts ? &v->mounts : NULL;
}

int sys_view_mounts_error(const struct sys_view *v)
{
	return v ? v->mounts_err : 0;
}

int sys_view_watch_fd(const struct sys_view *v)
{
	return v && v->watch_fd >= 0 ? v->watch_fd : -1;
}

bool sys_view_changed(const struct sys_view *v)
{
	struct sys_view *w = (struct sys_view *)v;	/* the flag only */

	if (!v || !v->live || !(v->flags & SYS_VIEW_WATCH))
		return false;
	if (__atomic_load_n(&w->changed, __ATOMIC_RELAXED))
		return true;
	if (!mountinfo_changed(v->watch_fd))
		return false;
	__atomic_store_n(&w->changed, true, __ATOMIC_RELAXED);
	return true;
}

int sys_view_refresh(struct sys_view **v, bool force)
{
	struct sys_view *n = NULL;
	int r;

	if (!(*v)->live || (!force && !sys_view_changed(*v)))
		return 0;
	r = sys_view_read((*v)->flags, &n);
	if (r < 0)
		return r;
	sys_view_unref(*v);
	*v = n;
	return 1;
}

/* What sysfs says of MAJ:MIN; every fact stays unknown when it is not a block device. */
static void read_facts(struct sys_device *d)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", d->major, d->minor);
	d->exists = access(path, F_OK) == 0;
	if (!d->exists)
		return;
	if (dev_block_get_read_ahead_kb(d->major, d->minor, &d->read_ahead_kb) < 0)
		d->read_ahead_kb = 0;
	if (dev_block_max_sectors_kb(d->major, d->minor, &d->max_sectors_kb) < 0)
		d->max_sectors_kb = 0;
	if (dev_block_max_segments(d->major, d->minor, &d->max_segments, &d->max_segment_kb) < 0)
		d->max_segments = d->max_segment_kb = 0;
	d->has_rotational = dev_block_is_rotational(d->major, d->minor, &d->rotational) == 0;
	if (!d->has_rotational)
		d->rotational = false;
	if (dev_block_size(d->major, d->minor, &d->size) < 0)
		d->size = 0;
	d->has_disk = dev_block_disk(d->major, d->minor, &d->disk_major, &d->disk_minor) == 0;
	if (dev_block_name(d->major, d->minor, d->name, sizeof(d->name)) < 0)
		d->name[0] = '\0';
}

/* The entry of MAJ:MIN, or NULL; with @add, read and added when missing. Under the lock. */
static struct sys_device *lookup(struct sys_view *v, unsigned major, unsigned minor, bool add)
{
	struct sys_device *n;

	for (size_t i = 0; i < v->ndevs; i++)
		if (v->devs[i].major == major && v->devs[i].minor == minor)
			return &v->devs[i];
	if (!add)
		return NULL;
	/* a system has a few devices: grow one at a time */
	n = realloc(v->devs, (v->ndevs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	v->devs = n;
	n = &v->devs[v->ndevs++];
	*n = (struct sys_device){ .major = major, .minor = minor };
	read_facts(n);
	return n;
}

int sys_view_device(struct sys_view *v, unsigned major, unsigned minor, struct sys_device *ret)
{
	struct sys_device *d;

	pthread_mutex_lock(&v->lock);
	d = lookup(v, major, minor, true);
	if (d)
		*ret = *d;
	pthread_mutex_unlock(&v->lock);
	return d ? 0 : -ENOMEM;
}

int sys_view_find_device(const struct sys_view *v, unsigned major, unsigned minor,
			 struct sys_device *ret)
{
	struct sys_view *w = (struct sys_view *)v;	/* the lock only */
	struct sys_device *d;

	pthread_mutex_lock(&w->lock);
	d = lookup(w, major, minor, false);
	if (d)
		*ret = *d;
	pthread_mutex_unlock(&w->lock);
	return d ? 0 : -ENOENT;
}

int sys_view_load_model(struct sys_view *v, unsigned major, unsigned minor,
			struct sys_device *ret)
{
	struct sys_device *d;

	pthread_mutex_lock(&v->lock);
	d = lookup(v, major, minor, true);
	if (d && !d->model_known) {
		d->model_err = dev_cache_get(major, minor, DEVCACHE_LOAD, &d->model);
		d->model_known = true;
	}
	if (d)
		*ret = *d;
	pthread_mutex_unlock(&v->lock);
	return d ? 0 : -ENOMEM;
}

int sys_view_set_model(struct sys_view *v, unsigned major, unsigned minor,
		       const struct devmodel *m, int err)
{
	struct sys_device *d;

	pthread_mutex_lock(&v->lock);
	d = lookup(v, major, minor, true);
	if (d) {
		d->model_known = true;
		d->model_err = m ? 0 : err < 0 ? err : -EIO;
		if (m)
			d->model = *m;
	}
	pthread_mutex_unlock(&v->lock);
	return d ? 0 : -ENOMEM;
}
