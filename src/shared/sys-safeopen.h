/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening a path below a directory safely: no symlink, no other mount, no device or FIFO */
#ifndef URA_SYS_SAFEOPEN_H
#define URA_SYS_SAFEOPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/**
 * safeopen_openat2() - openat2(2) with @resolve (RESOLVE_* flags)
 *
 * Return: a descriptor, or -errno; -ENOSYS, for good once seen, where openat2
 * is missing (Linux < 5.6, valgrind, seccomp filters): use safeopen_walk().
 */
int safeopen_openat2(int dirfd, const char *path, int flags, uint64_t resolve);

/**
 * safeopen_mount_id() - which mount @fd is on
 * @ret: the mount id: statx's (Linux 5.8), else name_to_handle_at()'s
 *
 * Return: 0, or -EOPNOTSUPP when the kernel tells neither.
 */
int safeopen_mount_id(int fd, uint64_t *ret);

/**
 * safeopen_same_mount() - are @a and @b on the same mount?
 *
 * By mount id, or by device when the mount ids are unknown.
 * Return: 1, 0, or -errno (fstat).
 */
int safeopen_same_mount(int a, int b);

/* safeopen_walk() flags */
#define SAFEOPEN_WALK_NO_XDEV	(1u << 0)	/* stay on the mount of @dirfd */

/**
 * safeopen_walk() - open a path below a directory one component at a time
 * @dirfd: the directory
 * @path: relative, without "..", "//" or a final "/"
 * @flags: open(2) flags for the last component (O_NOFOLLOW and O_CLOEXEC are added)
 * @walk_flags: SAFEOPEN_WALK_*
 *
 * What to do where openat2(2) is missing: no symlink is followed, neither on
 * the way nor at the end, and with SAFEOPEN_WALK_NO_XDEV no mount is crossed
 * (by mount id, or by device when the kernel tells no mount ids), a file bind
 * mount at the end included.
 *
 * Return: a descriptor, or -errno: -ELOOP (a symlink), -EXDEV (another mount,
 * or @path is not clean), -ENOENT, -ENOTDIR, -ENOMEM, or open(2)'s error.
 */
int safeopen_walk(int dirfd, const char *path, int flags, unsigned walk_flags);

/**
 * safeopen_walk_mounts() - safeopen_walk() that asks before it looks into a mount
 * @flags: O_PATH (the descriptor returned is O_PATH)
 * @mount_ok: asked with the mount id of @dirfd, and of each mount the walk enters,
 *	before any name is looked up in it: false refuses the walk
 *
 * Entering a mount (opening its root O_PATH, its mount id and type by statx not
 * synced) asks nothing of its filesystem: a FUSE mount whose server never
 * answers is refused, not waited for, wherever a rename has put it since the
 * mount table was read. No automount is triggered (open_tree(2) with
 * AT_NO_AUTOMOUNT): the path may be a user's choice.
 *
 * Return: a descriptor, or -errno as safeopen_walk() (-EXDEV: a mount refused).
 */
int safeopen_walk_mounts(int dirfd, const char *path, int flags,
			 bool (*mount_ok)(void *ctx, uint64_t mnt_id), void *ctx);

/**
 * safeopen_reopen() - open again, to read or as @flags say, what an O_PATH descriptor holds
 * @pfd: the descriptor (a walk's, safeopen_walk_mounts()); left open
 * @flags: open(2) flags (O_CLOEXEC and O_NOCTTY are added); with O_NOATIME, which
 *	needs ownership or CAP_FOWNER, an -EPERM is retried without it
 *
 * Through its magic link in /proc/self/fd: no path is looked up again.
 * Return: a descriptor, or -errno.
 */
int safeopen_reopen(int pfd, int flags);

/**
 * safeopen_beneath() - open @path beneath @dirfd, following no symlink, crossing no mount
 * @flags: open(2) flags (O_NOFOLLOW and O_CLOEXEC are added); with O_NOATIME, which
 *	needs ownership or CAP_FOWNER, an -EPERM is retried without it
 *
 * openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
 * RESOLVE_NO_XDEV, else safeopen_walk() with SAFEOPEN_WALK_NO_XDEV. A pack names
 * files by canonical paths, so a symlink or a mount on the way means the tree
 * changed since the trace.
 *
 * Return: a descriptor, or -errno as safeopen_walk().
 */
int safeopen_beneath(int dirfd, const char *path, int flags);

/**
 * safeopen_in_root() - open @path inside @rootfd as if @rootfd were "/"
 * @path: leading slashes are skipped; "" or "/" opens @rootfd's directory itself
 *
 * Symlinks resolve inside @rootfd (a symlink in a system image is relative to
 * that image), with openat2's RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS; without
 * openat2 no symlink is followed at all (safeopen_walk(), mounts may be crossed).
 *
 * Return: a descriptor, or -errno.
 */
int safeopen_in_root(int rootfd, const char *path, int flags);

/**
 * safeopen_file() - open a regular file beneath @dirfd for reading
 * @ret: on success, the file's statx (STATX_BASIC_STATS | STATX_BTIME), taken on
 *	the descriptor returned
 *
 * The path is looked at first with O_PATH, so that a FIFO, a device or a
 * socket is never opened (opening a FIFO blocks, a tape rewinds); then the file
 * is opened O_RDONLY | O_NOATIME | O_NONBLOCK | O_NOCTTY with safeopen_beneath()
 * (without O_NOATIME when that is refused), and must be the inode looked at.
 *
 * Return: a descriptor, or -errno: safeopen_beneath()'s (of either open),
 * -ELOOP (a symlink), -EISDIR (a directory), -EBADFD (a FIFO, device or
 * socket, or replaced by another file between the look and the open), or
 * fstat's or statx's.
 */
int safeopen_file(int dirfd, const char *path, struct statx *ret);


#endif
