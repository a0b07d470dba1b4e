/* SPDX-License-Identifier: GPL-2.0-or-later */
/* (device, inode) -> path: open_by_handle_at fast path and getdents64 walk */
#ifndef URA_RESOLVE_H
#define URA_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

/* One inode to name. */
struct resolve_item {
	uint64_t ino;
	char *path;		/* out: relative to the mount's directory, malloc()ed; NULL if unresolved */
};

enum resolve_method {
	RESOLVE_WALK = 1 << 0,		/* getdents64 walk of the filesystem */
	RESOLVE_HANDLE = 1 << 1,	/* open_by_handle_at with (ino, gen 0) then readlink */
};

/*
 * resolve_inodes() - name the inodes of one filesystem
 * @mount_dir: a directory where that filesystem is mounted (its mount root)
 * @major, @minor: the filesystem's st_dev; the walk stays on it
 * @items: inodes to name; items[i].path is set for each one found
 * @n: count of @items
 * @methods: RESOLVE_* to try, fast path first, walk for what is left
 *
 * The walk uses d_ino from getdents64 (no stat per entry) and stops as soon as
 * every wanted inode is found. Files with several links get one of their names.
 *
 * Return: the number of items resolved, or -errno if @mount_dir cannot be read.
 */
long resolve_inodes(const char *mount_dir, unsigned major, unsigned minor,
		    struct resolve_item *items, size_t n, unsigned methods);

#endif
