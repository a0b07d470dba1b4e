/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Measured device models, kept per device identity under /var/lib/ura/devices */
#ifndef URA_DEV_CACHE_H
#define URA_DEV_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "dev-model.h"

#define DEVCACHE_ENV	"URA_DEVICE_CACHE"	/* another directory (tests) */

/* The cache directory: $URA_DEVICE_CACHE, else LOCALSTATEDIR/ura/devices. */
const char *dev_cache_dir(void);

/**
 * dev_cache_key() - what a measurement of MAJ:MIN holds for
 *
 * The device's identity (dev_block_identity()) and the I/O limits this process's
 * cgroups put on it (cgroup v1 blkio.throttle.read_{bps,iops}_device, v2 io.max,
 * at every level up to the root): a throttled service sees a slower device
 * than an unthrottled one, and must measure it again.
 * Return: 0 or -errno.
 */
int dev_cache_key(unsigned major, unsigned minor, char *buf, size_t size);

/**
 * dev_cache_load() - the model stored for @key in @dir
 * Return: 0 (source DEVMODEL_CACHE), -ENOENT (none, or one for another key),
 * -EPERM (a file owned by another user than root or us, or writable by
 * others), -EBADMSG (corrupt).
 */
int dev_cache_load(const char *dir, const char *key, struct devmodel *ret);

/** dev_cache_store() - keep @m for @key in @dir (created), atomically; 0 or -errno */
int dev_cache_store(const char *dir, const char *key, const struct devmodel *m);

/*
 * dev_cache_writable() - could a model be kept in @dir (or the directory that
 * would hold it)? False on a read-only filesystem, as / early at boot: a
 * measurement that cannot be kept would be made again at every start.
 */
bool dev_cache_writable(const char *dir);

/*
 * dev_cache_remember_failure() - note that measuring @key failed with @err (-errno)
 * dev_cache_recent_failure() - that error while it is remembered (a day; an hour for
 *	-ETIMEDOUT or -EBUSY; -ENOMEM, -EAGAIN, -EINTR never), else 0
 */
void dev_cache_remember_failure(const char *dir, const char *key, int err);
int dev_cache_recent_failure(const char *dir, const char *key);

enum dev_cache_how {
	DEVCACHE_LOAD,		/* a kept model only */
	DEVCACHE_AUTO,		/* a kept model, else measure now and keep it */
	DEVCACHE_MEASURE,	/* measure again and keep it */
};

/**
 * dev_cache_get() - the model of block device MAJ:MIN
 *
 * Measuring opens the device by number (dev_block_open(), never a path from a
 * pack), reads it for 5 to 9 s (dev_probe_measure()) and keeps the result; it
 * says so in the log. Both ura-trace (after a trace) and ura-replay use this.
 * A measurement that failed is remembered (a day, an hour when the device
 * was too busy to measure): DEVCACHE_AUTO then returns its error at once
 * instead of measuring again.
 * Return: 0 (@ret->source: DEVMODEL_CACHE or DEVMODEL_PROBE), -ENOENT (no
 * model kept and DEVCACHE_LOAD, or no such block device), -EROFS (@dir
 * cannot keep a model, so none was measured), or why measuring failed.
 */
int dev_cache_get(unsigned major, unsigned minor, enum dev_cache_how how, struct devmodel *ret);

#endif
