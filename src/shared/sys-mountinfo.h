/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/self/mountinfo: parse it, find the mount that names a device's files */
#ifndef URA_SYS_MOUNTINFO_H
#define URA_SYS_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mount_entry {
	unsigned id, parent_id;
	unsigned major, minor;	/* full 20-bit minor, as st_dev */
	char *root;		/* root of the mount within its filesystem ("/" for the whole fs) */
	char *mount_point;	/* octal escapes (\040 ...) decoded */
	char *fstype;
	char *source;
	char *options;		/* per-mount options */
};

struct mount_table {
	struct mount_entry *entries;
	size_t count;
};

/* Parse mountinfo text. Malformed lines make it fail with -EBADMSG. */
int mountinfo_parse(const char *text, size_t len, struct mount_table *ret);

/* Read and parse a mountinfo file (usually "/proc/self/mountinfo"). */
int mountinfo_read(const char *path, struct mount_table *ret);

void mountinfo_free(struct mount_table *t);

/*
 * mountinfo_watch() - a descriptor of /proc/self/mountinfo that tells when
 * the mount table changes: open it before reading the table. Return: fd or -errno.
 * mountinfo_changed() - whether anything was mounted or unmounted since @fd was
 * opened (the kernel flags such a descriptor with POLLPRI); true when @fd < 0.
 */
int mountinfo_watch(void);
bool mountinfo_changed(int fd);

/* Is something else mounted right on top of @e (its files hidden there)? */
bool mountinfo_is_covered(const struct mount_table *t, const struct mount_entry *e);

/*
 * The mount through which files of device major:minor are best reached: one
 * not hidden by another mount on the same mount point, then one whose root is
 * "/" if there is one (the whole filesystem is visible there), else the one
 * with the shortest root; among equals the shortest mount point, then the
 * first listed. Bind mounts and btrfs subvolumes share a device, so this
 * matters. A mount on something other than a directory (a file bind mount, as
 * in containers; the live system is asked) comes after all others. NULL when
 * the device is not mounted. The entry belongs to @t.
 */
const struct mount_entry *mountinfo_find_dev(const struct mount_table *t, unsigned major,
					     unsigned minor);

/*
 * As mountinfo_find_dev(), but the mount at @mount_point comes first when it
 * is of that device and not hidden: a pack records the mount it named its
 * files from, and two mounts of one device (btrfs subvolumes, bind mounts of
 * subdirectories) show different files.
 */
const struct mount_entry *mountinfo_find_dev_at(const struct mount_table *t, unsigned major,
						unsigned minor, const char *mount_point);

/*
 * The mount of @t @path is on, lexically: the last of the longest mount points at or above
 * it (the one on top). Asks the filesystem nothing. NULL: none (or @t NULL).
 */
const struct mount_entry *mountinfo_find_path(const struct mount_table *t, const char *path);

/*
 * Is @path, lexically, on a FUSE mount of @t (the longest mount point at or
 * above it)? Asks the filesystem nothing: a FUSE server may never answer.
 * NULL @t: none known, false.
 */
bool mountinfo_on_fuse(const struct mount_table *t, const char *path);

/*
 * A FUSE filesystem (fuse, fuse.*, fuseblk)? A user's server answers for its
 * files, and may never answer.
 */
bool mountinfo_is_fuse(const char *fstype);

/*
 * FUSE, a network filesystem (NFS, CIFS, 9p, Ceph...) or autofs (a mount under way
 * that a user started): a lookup may wait for a server forever.
 */
bool mountinfo_may_hang(const char *fstype);

/*
 * mountinfo_walk_ok() - may a walk look into the mount @mnt_id? For
 * safeopen_walk_mounts(), @mounts a struct mount_table: one of its mounts,
 * and not one whose server may never answer (mountinfo_may_hang()).
 */
bool mountinfo_walk_ok(void *mounts, uint64_t mnt_id);

/* Pseudo and memory filesystems whose pages are not worth recording (proc, tmpfs, ...). */
bool mountinfo_is_pseudo_fs(const char *fstype);

#endif
