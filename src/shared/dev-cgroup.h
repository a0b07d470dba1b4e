/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The I/O limits this process's cgroups put on a block device */
#ifndef URA_DEV_CGROUP_H
#define URA_DEV_CGROUP_H

#include <stddef.h>

/*
 * cgroup_read_limits() - append the read limits on MAJ:MIN to @buf
 *
 * From cgroup v1 blkio.throttle.read_{bps,iops}_device and v2 io.max, at every
 * level from this process's cgroup up to the root, as " NAME=MAJ:MIN,value..."
 * words (a throttled service sees a slower device than an unthrottled one).
 * Appends nothing where there are none; what does not fit in @size is cut.
 */
void cgroup_read_limits(unsigned major, unsigned minor, char *buf, size_t size);

#endif
