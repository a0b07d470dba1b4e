/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One view of the system: the mounts and each block device's facts, read once, refreshed on change */
#ifndef URA_SYS_VIEW_H
#define URA_SYS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev-model.h"
#include "sys-mountinfo.h"

/*
 * What sysfs says of one block device (a partition's queue facts are its
 * disk's), and the cost model kept or measured for it. A number that sysfs
 * does not give is 0; a device sysfs does not know has every fact unknown.
 */
struct sys_device {
	unsigned major, minor;
	bool exists;			/* /sys/dev/block/MAJ:MIN is there */
	unsigned read_ahead_kb;		/* 0: unknown */
	unsigned max_sectors_kb;	/* the largest request; 0: unknown */
	unsigned max_segments, max_segment_kb;	/* both 0: unknown */
	bool has_rotational, rotational;	/* the queue's flag, which may lie */
	uint64_t size;			/* bytes; 0: unknown */
	bool has_disk;			/* the whole disk that holds it is known: */
	unsigned disk_major, disk_minor;	/* itself when not a partition */
	char name[32];			/* the kernel's name ("sda1"); "" unknown */
	bool model_known;		/* the model was looked for (or measured): */
	int model_err;			/* 0: @model holds it; else why there is none (-errno) */
	struct devmodel model;
};

struct sys_view;

#define SYS_VIEW_MOUNTS	0x1	/* read /proc/self/mountinfo */
#define SYS_VIEW_WATCH	0x2	/* ... and watch it for changes, opened first (implies MOUNTS) */

/**
 * sys_view_read() - a view of the live system
 * @flags: SYS_VIEW_*; without SYS_VIEW_MOUNTS the view has devices only
 * @ret: the view (one reference); release with sys_view_unref()
 *
 * The mounts are read now. Device facts are read from sysfs when a device is
 * first asked for (sys_view_device()), once; the view keeps them until it is
 * released. A mount table that cannot be read leaves the view without one
 * (sys_view_mounts() is NULL; sys_view_mounts_error() says why).
 * Return: 0 or -ENOMEM.
 */
int sys_view_read(unsigned flags, struct sys_view **ret);

/**
 * sys_view_parse() - a view whose mounts are @text (mountinfo's format), for tests and tools
 * Return: 0, -EBADMSG (a malformed line), -ENOMEM.
 */
int sys_view_parse(const char *text, size_t len, struct sys_view **ret);

/* sys_view_ref() - one more reference (the exec daemon hands one to each replay); returns @v */
struct sys_view *sys_view_ref(struct sys_view *v);

/* sys_view_unref() - drop a reference; the last frees the view (NULL is fine) */
void sys_view_unref(struct sys_view *v);

/* The mount table, or NULL when it was not read or could not be; it belongs to @v. */
const struct mount_table *sys_view_mounts(const struct sys_view *v);

/* Why the mount table could not be read (-errno), 0 when it was or was not asked for. */
int sys_view_mounts_error(const struct sys_view *v);

/*
 * sys_view_watch_fd() - the watch descriptor (POLLPRI after a mount or unmount), -1 without one
 * sys_view_changed() - has anything been mounted or unmounted since @v was read? Only a
 *	view read with SYS_VIEW_WATCH can tell; one that could not open its watch always says so
 */
int sys_view_watch_fd(const struct sys_view *v);
bool sys_view_changed(const struct sys_view *v);

/**
 * sys_view_refresh() - read @v again, with the same flags, if its mounts changed
 * @v: the view, replaced (and the old one's reference dropped) when read again
 * @force: read again without asking (the caller's poll() has seen POLLPRI, and taken it)
 * Return: 1 read again, 0 unchanged, -ENOMEM (@v kept).
 */
int sys_view_refresh(struct sys_view **v, bool force);

/**
 * sys_view_device() - the facts of block device MAJ:MIN, read from sysfs the first time
 * @ret: a copy (safe while other threads use the view)
 * Return: 0 or -ENOMEM.
 */
int sys_view_device(struct sys_view *v, unsigned major, unsigned minor, struct sys_device *ret);

/**
 * sys_view_find_device() - the facts of MAJ:MIN if the view holds them already
 * Return: 0, or -ENOENT (not asked for yet: nothing is read here).
 */
int sys_view_find_device(const struct sys_view *v, unsigned major, unsigned minor,
			 struct sys_device *ret);

/**
 * sys_view_load_model() - look for the model kept for MAJ:MIN (dev_cache_get(), DEVCACHE_LOAD), once
 * @ret: the device, its model_* fields set
 * Return: 0 or -ENOMEM.
 */
int sys_view_load_model(struct sys_view *v, unsigned major, unsigned minor,
			struct sys_device *ret);

/**
 * sys_view_set_model() - what a measurement of MAJ:MIN gave
 * @m: the model, or NULL when it failed with @err (-errno)
 * Return: 0 or -ENOMEM.
 */
int sys_view_set_model(struct sys_view *v, unsigned major, unsigned minor,
		       const struct devmodel *m, int err);

#endif
