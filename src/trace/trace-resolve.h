/* SPDX-License-Identifier: GPL-2.0-or-later */
/* (device, inode) -> path: open_by_handle_at fast path and getdents64 walk */
#ifndef URA_TRACE_RESOLVE_H
#define URA_TRACE_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

struct mount_table;

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
 * @mounts: the mount table (on btrfs, to check @major:@minor against the mount
 *	holding @mount_dir), or NULL: then that cannot be checked, and is not
 *
 * The walk uses d_ino from getdents64 (no stat per entry), never crosses into
 * another mount, btrfs subvolume or symlink, and stops as soon as every wanted
 * inode is found; it holds one descriptor per level and goes no deeper than
 * 255 directories below @mount_dir. Files with several links get one of their
 * names; the inode of @mount_dir itself is named ".". Items asked for twice
 * each get their own copy. Items whose path is already set, and inode 0, are
 * left alone. On btrfs only regular files are taken for a wanted inode: an
 * entry of a subvolume holds the subvolume's id, which may equal a file's
 * inode number. Files deleted since (open but unlinked) stay unresolved. Names
 * may hold any byte but NUL and '/' (spaces, newlines, non-UTF-8).
 *
 * RESOLVE_HANDLE is tried on ext2/3/4 only and needs CAP_DAC_READ_SEARCH. It
 * names only files whose dentries are cached (as right after a trace): when
 * most of the first 64 tries fail it gives up. Its answers are checked by
 * looking the path up again from @mount_dir; whatever it cannot name
 * (disconnected dentries, files outside a bind mount's root) is left to the
 * walk, except inodes it finds have no name any more (freed, or deleted and
 * still open): a deleted file then does not cost a walk of the whole filesystem.
 *
 * Return: the number of items that have a path on return, or -errno: the
 * error opening @mount_dir, -EXDEV if @mount_dir is not on @major:@minor
 * (btrfs excepted: its subvolumes have st_dev of their own), -ENOMEM. On error
 * the paths set so far stay set (the caller frees them).
 */
long resolve_inodes(const char *mount_dir, unsigned major, unsigned minor,
		    struct resolve_item *items, size_t n, unsigned methods,
		    const struct mount_table *mounts);

/*
 * resolve_open_dir() - open an absolute directory to read, the way there looked at safely
 * @mounts: the mount table, or NULL: then opened as open(2) would
 *
 * A mount point, or a btrfs subvolume below one, may be on a path a user can
 * rename in (a subvolume a user made): the path is walked one component at a
 * time, following no symlink and entering only mounts of @mounts that are not
 * FUSE nor a network's (safeopen_walk_mounts()), so that nothing a user put on
 * the way is looked up in a filesystem whose server may never answer.
 * Return: a descriptor (O_RDONLY | O_DIRECTORY), or -errno.
 */
int resolve_open_dir(const char *dir, const struct mount_table *mounts);

/*
 * resolve_subvolumes() - the btrfs subvolumes reachable below a mount
 * @mount_dir: a directory where a filesystem is mounted (opened by resolve_open_dir())
 * @ret: on success, a malloc()ed array of malloc()ed paths relative to
 *	@mount_dir: "." first, then each subvolume nested below it (any depth)
 * @mounts: the mount table, or NULL (resolve_open_dir())
 *
 * btrfs numbers inodes per subvolume, and its tracepoints give the
 * superblock's device only: a traced inode may be a file in any of them.
 * Mount points are not crossed. On anything but btrfs the list is just ".".
 *
 * Return: the number of paths, or -errno.
 */
long resolve_subvolumes(const char *mount_dir, char ***ret, const struct mount_table *mounts);

#endif
