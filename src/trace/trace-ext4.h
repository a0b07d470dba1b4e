/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ext4: the metadata blocks a cold lookup and open of a file reads, from the filesystem's layout */
#ifndef URA_TRACE_EXT4_H
#define URA_TRACE_EXT4_H

#include <stddef.h>
#include <stdint.h>

struct pageset_range;

/*
 * A trace sees metadata only as it enters the block device's page cache: a
 * trace of a warm start (the inodes and directories cached) records none, and
 * on a slow disk that metadata is most of what a replay gains (a Python start
 * on a disk: 4% of the gap closed without it, 65% with). ext4 places inodes by
 * number in per-group tables, so what a cold lookup reads can be derived from
 * the superblock, the group descriptors and each directory's blocks (FIEMAP),
 * whatever the page cache holds.
 */
struct ext4_layout;

/**
 * ext4_layout_open() - read an ext4 filesystem's layout from its block device
 * @major, @minor: the block device (and its inode_readahead_blks, from sysfs)
 * @ret: on success, free with ext4_layout_free()
 *
 * Return: 0; -EMEDIUMTYPE (not ext4, or a layout not derived here: meta_bg,
 * block size over a page); -ENOMEM; -errno of opening or reading the device.
 */
int ext4_layout_open(unsigned major, unsigned minor, struct ext4_layout **ret);

/** ext4_layout_free() - NULL is allowed */
void ext4_layout_free(struct ext4_layout *l);

/**
 * ext4_layout_note() - note what a cold open of @path reads
 * @mount_dir: where the filesystem is mounted (a directory of it)
 * @path: a path below @mount_dir, no "." or ".." components
 * @ino: the file's inode number
 * @first_ns: when the start first used the file
 *
 * Notes the inode-table blocks of the file and of every directory from
 * @mount_dir down to it, as ext4 reads them (inode_readahead_blks around each,
 * within the group's used table), and the blocks of each directory (at most
 * EXT4_DIR_MAX_BYTES of each). Directories are walked without following
 * symbolic links; one that cannot be opened ends the walk (no error).
 *
 * Return: 0 or -ENOMEM.
 */
int ext4_layout_note(struct ext4_layout *l, const char *mount_dir, const char *path, uint64_t ino,
		     uint64_t first_ns);

#define EXT4_DIR_MAX_BYTES	(1ull << 20)

/**
 * ext4_layout_ranges() - the noted blocks as demanded page ranges of the block device
 * @ret: a malloc()ed array sorted by page, ranges that touch merged (NULL when empty)
 * @ret_n: its length
 *
 * Each range's first_ns is the earliest use of a file that needed it.
 * Return: 0 or -ENOMEM.
 */
int ext4_layout_ranges(const struct ext4_layout *l, struct pageset_range **ret, size_t *ret_n);

#endif
