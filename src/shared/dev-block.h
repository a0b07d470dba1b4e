/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Block devices by number: sysfs queue attributes and safe opening */
#ifndef URA_DEV_BLOCK_H
#define URA_DEV_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The queue attributes live on the whole disk: for a partition, these look up
 * its parent (via /sys/dev/block/MAJ:MIN). All return 0 or -errno
 * (-ENOENT when the device or the attribute does not exist).
 */
int dev_block_get_read_ahead_kb(unsigned major, unsigned minor, unsigned *ret);
/**
 * dev_block_diskseq() - the disk's sequence number (sysfs diskseq, Linux 5.15): a disk
 * detached and another attached under the same number (a loop device) has another
 * Return: 0, -ENOENT (an older kernel), -errno.
 */
int dev_block_diskseq(unsigned major, unsigned minor, uint64_t *ret);
int dev_block_set_read_ahead_kb(unsigned major, unsigned minor, unsigned kb);
int dev_block_is_rotational(unsigned major, unsigned minor, bool *ret);
int dev_block_max_sectors_kb(unsigned major, unsigned minor, unsigned *ret);
/* max_segments and max_segment_size (in KiB) */
int dev_block_max_segments(unsigned major, unsigned minor, unsigned *ret_segments,
			  unsigned *ret_segment_kb);

/*
 * dev_block_identity() - one line that names the device across boots
 *
 * "dev=MAJ:MIN" followed by what sysfs tells of it (size, WWID, serial, model,
 * an SD card's CID, a dm or md UUID, a loop device's backing file), as
 * NAME=value words without spaces. A different disk behind the same number
 * gives a different line. Return: 0 or -errno (-ENOENT: no such device).
 */
int dev_block_identity(unsigned major, unsigned minor, char *buf, size_t size);

/* dev_block_name() - the kernel's name of MAJ:MIN ("sda", "loop0"), from sysfs; 0 or -errno */
int dev_block_name(unsigned major, unsigned minor, char *buf, size_t size);

/* dev_block_size() - the device's size in bytes, from sysfs; 0 or -errno */
int dev_block_size(unsigned major, unsigned minor, uint64_t *ret);

/* dev_block_disk() - the whole disk that holds MAJ:MIN (itself when not a partition); 0 or -errno */
int dev_block_disk(unsigned major, unsigned minor, unsigned *ret_major, unsigned *ret_minor);

/*
 * dev_block_open() - open block device MAJ:MIN read-only, found by number
 *
 * Opens /dev/block/MAJ:MIN (or the node sysfs names) with O_RDONLY | O_NONBLOCK |
 * O_CLOEXEC | O_NOCTTY and checks with fstat that it is a block device with that
 * st_rdev. Never opens a path that came from a pack.
 *
 * Return: a file descriptor, or -errno (-ENODEV if nothing matches).
 */
int dev_block_open(unsigned major, unsigned minor);

/**
 * dev_block_reads() - reads completed on block device MAJ:MIN since boot
 * (/sys/dev/block/MAJ:MIN/stat: a partition counts its own)
 * Return: 0 or -errno.
 */
int dev_block_reads(unsigned major, unsigned minor, uint64_t *ret);

#endif
