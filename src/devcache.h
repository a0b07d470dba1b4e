/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Measured device models, kept per device identity under /var/lib/ura/devices */
#ifndef URA_DEVCACHE_H
#define URA_DEVCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "devmodel.h"

#define DEVCACHE_ENV	"URA_DEVICE_CACHE"	/* another directory (tests) */

/* The cache directory: $URA_DEVICE_CACHE, else LOCALSTATEDIR/ura/devices. */
const char *devcache_dir(void);

/**
 * devcache_key() - what a measurement of MAJ:MIN holds for
 *
 * The device's identity (blockdev_identity()) and the I/O limits this process's
 * cgroups put on it (cgroup v1 blkio.throttle.read_{bps,iops}_device, v2 io.max,
 * at every level up to the root): a throttled service sees a slower device
 * than an unthrottled one, and must measure it again.
 * Return: 0 or -errno.
 */
int devcache_key(unsigned major, unsigned minor, char *buf, size_t size);

/**
 * devcache_load() - the model stored for @key in @dir
 * Return: 0 (source DEVMODEL_CACHE), -ENOENT (none, or one for another key),
 * -EPERM (a file owned by another user than root or us, or writable by
 * others), -EBADMSG (corrupt).
 */
int devcache_load(const char *dir, const char *key, struct devmodel *ret);

/** devcache_store() - keep @m for @key in @dir (created), atomically; 0 or -errno */
int devcache_store(const char *dir, const char *key, const struct devmodel *m);

/*
 * devcache_writable() - could a model be kept in @dir (or the directory that
 * would hold it)? False on a read-only filesystem, as / early at boot: a
 * measurement that cannot be kept would be made again at every start.
 */
bool devcache_writable(const char *dir);

/**
 * devcache_measure() - measure block device MAJ:MIN now and keep the model
 * @key: its devcache_key()
 * @ret: the model (DEVMODEL_PROBE)
 * @ret_store: 0, or why it could not be kept (-errno)
 *
 * Opens the device by number (blockdev_open(), never a path from a pack) and
 * reads it for 5 to 9 s (devprobe_measure()).
 * Return: 0 or -errno (the device cannot be opened or read).
 */
int devcache_measure(unsigned major, unsigned minor, const char *key, struct devmodel *ret,
		     int *ret_store);

#endif
