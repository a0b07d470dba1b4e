/* SPDX-License-Identifier: GPL-2.0-or-later */
/* btrfs: the files a traced inode number may be, in every subvolume of every mount */
#ifndef URA_TRACE_BTRFS_H
#define URA_TRACE_BTRFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct mount_entry;
struct mount_table;
struct pageset_file;

/* A file with a traced inode number, in one subvolume seen through one mount. */
struct btrfs_candidate {
	size_t file;			/* index in the files asked for */
	const struct mount_entry *mount;	/* an entry of the mount table */
	char *rel;			/* path below mount->mount_point, owned */
	dev_t dev;			/* the subvolume's st_dev */
	size_t view;			/* index of @mount among the views, 0..nviews-1 */
	bool duplicate;			/* the same subvolume as the candidate before it */
	size_t order;			/* private: the order found in, best view first */
};

/**
 * btrfs_candidates() - name the traced inodes of one btrfs filesystem
 * @mt: the mounts
 * @best: the filesystem's best mount (mountinfo_find_dev()), looked in first
 * @root: canonical --root, or NULL
 * @files: traced files of the filesystem (all of one device)
 * @n: their count
 * @ret: on success a malloc()ed array sorted by file, then subvolume, best view first
 * @ret_n: its length
 * @ret_nviews: the number of mounts looked through
 *
 * btrfs numbers inodes per subvolume, and the trace has only the superblock's
 * device: every subvolume below every mount of it that shows files the others
 * cannot (under --root every visible mount) is walked. An inode number may name
 * several files; telling which one was traced is the caller's job.
 *
 * Return: 0, or -ENOMEM (what cannot be listed or walked is a warning).
 */
int btrfs_candidates(const struct mount_table *mt, const struct mount_entry *best,
		     const char *root, const struct pageset_file *files, size_t n,
		     struct btrfs_candidate **ret, size_t *ret_n, size_t *ret_nviews);

/** btrfs_candidates_free() - free the array and its paths; NULL is allowed */
void btrfs_candidates_free(struct btrfs_candidate *c, size_t n);

#endif
