/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program's key, shared by both daemons: the root it runs in, and its path inside that root */
#ifndef URA_KEY_H
#define URA_KEY_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Why this key (ura-replay(8), PROGRAM KEYS): a program is known by the path
 * its own process sees (the path inside its root directory, "/usr/bin/python3"
 * in a chroot too) and by the identity of that root. The daemon's own root has
 * id 0 and keeps the plain names of earlier versions; any other root (a
 * chroot, a pivot_root container) has the id of its root directory (device and
 * inode as the daemon sees them), so a container's /usr/bin/python3 is never
 * replayed with the host's pack, nor the reverse, and a chroot's packs survive
 * restarts of what runs in it. A container whose root is a new overlay mount at
 * each start gets a new id at each start (its packs age out of DIR).
 * Nothing here opens a path: only /proc/PID magic links are read (readlink and
 * stat of /proc/PID/root), so no user's filesystem can make a daemon wait.
 */

/* Where a process's root is, as the daemon reaches it. */
struct key_root {
	uint64_t id;		/* 0: the daemon's own root; else the root directory's identity */
	char path[PATH_MAX];	/* that root as the daemon's path ("/" for its own) */
};

/* The identity of the daemon's own root, read once at start (stat("/")). */
struct key_self {
	dev_t dev;
	ino_t ino;
	ino_t userns;		/* the daemon's user namespace (0: unknown) */
};

int key_self_read(struct key_self *ret);

/**
 * key_root_by_root() - was @pid's root (@root, another than the daemon's) made by root?
 *
 * A process of another user namespace whose root is not the daemon's was put
 * there by whoever made that namespace, any user (unshare -r chroot DIR): its
 * programs' keys are that user's to make up, as many as there are directories.
 * Return: true when @pid shares the daemon's user namespace (or its root is
 * the daemon's), false otherwise or when it cannot be told.
 */
bool key_root_by_root(pid_t pid, const struct key_self *self, const struct key_root *root);

/** key_same_mounts() - does process @pid see the daemon's mounts (its mount namespace)? 1, 0, -errno */
int key_same_mounts(pid_t pid);

/**
 * key_root_id() - the id of the root directory of device @dev and inode @ino:
 * 0 for the daemon's own (@self), else a digest of the two (never 0). The same
 * directory has the same id in a chroot and a pivot_root container.
 */
uint64_t key_root_id(const struct key_self *self, dev_t dev, ino_t ino);

/**
 * key_root_of() - the root directory of process @pid
 * Return: 0, or -errno (-ESRCH: the process is gone). @ret is written only on success.
 */
int key_root_of(pid_t pid, const struct key_self *self, struct key_root *ret);

/**
 * key_path_in_root() - @host_path (a path the daemon sees) as seen from inside @root
 *
 * The root's path is taken off the front ("/srv/c/usr/bin/x" in a root at
 * "/srv/c" is "/usr/bin/x"); a path outside it (the kernel names what a process
 * in another mount namespace cannot reach from ours relative to that
 * namespace) is kept as it is.
 * Return: the length, or -ENAMETOOLONG / -EINVAL (not absolute).
 */
int key_path_in_root(const struct key_root *root, const char *host_path, char *buf,
		       size_t size);

/**
 * key_path_normalize() - @path made absolute against @cwd (both inside one root) and
 * simplified lexically: "//", "." and ".." components go; symlinks are not followed.
 * Return: the length, or -ENAMETOOLONG / -EINVAL.
 */
int key_path_normalize(const char *cwd, const char *path, char *buf, size_t size);

/**
 * key_pack_name() - the pack file name of the program at @path inside root @root_id
 *
 * Root 0: $(systemd-escape --path PATH).pack, as always. Another root:
 * "@<16 hex digits of the id>-" in front (systemd-escape never writes a bare
 * '@', so the two never meet). A name longer than WATCH_NAME_MAX (room is left
 * for the temporary name of an atomic write) keeps its first bytes and ends in
 * "~<16 hex digits of a hash of the whole name>.pack".
 * Return: the length, or -EINVAL (not absolute, a ".." component), -ENOMEM,
 * -ENAMETOOLONG (@size too small). @buf is written only on success.
 */
#define WATCH_NAME_MAX	(NAME_MAX - 16)
int key_pack_name(uint64_t root_id, const char *path, char *buf, size_t size);

/**
 * key_pack_path() - the program key of a pack name, the inverse of key_pack_name()
 * @name: a directory entry, "NAME.pack"
 * @ret_root_id: the root's id (0: the daemon's own)
 * @buf: the path inside that root
 * Return: the path's length; -EINVAL for a name key_pack_name() does not make (a name cut and
 * ended by a digest, not an escape), -ENAMETOOLONG.
 */
int key_pack_path(const char *name, uint64_t *ret_root_id, char *buf, size_t size);

/* The stat(2) facts of a file the key rests on. */
struct key_file {
	dev_t dev;
	ino_t ino;
	uid_t uid;
	mode_t mode;
};

/**
 * key_file_of() - the facts of the file /proc/@pid/@what leads to ("exe")
 * Return: 0, -ESRCH (gone), -errno. Asks nothing of the file's filesystem.
 */
int key_file_of(pid_t pid, const char *what, struct key_file *ret);

/**
 * key_interpreter_trusted() - may this interpreter's argv name the program?
 *
 * Only root's: owned by root and writable by no group or other. A user's own
 * program named python3 could otherwise name any program ("~/bin/python3
 * /usr/bin/rev") and teach, or trigger, that program's pack with its own runs.
 */
bool key_interpreter_trusted(const struct key_file *interp);

struct mount_table;

/**
 * key_trusted() - may the key (@root, @path) of process @pid be believed?
 * @file: the file the key names, as the kernel opened it (fanotify's
 *	descriptor, /proc/PID/exe), or NULL when only a path is known (a script
 *	named by argv or by the exec's file name)
 * @mounts: the daemon's mounts (NULL: read when needed), to keep out of FUSE
 *
 * A key in the daemon's own root is the daemon's own path only when the
 * process sees the daemon's mounts. In another mount namespace (unshare -m,
 * where any user can bind-mount a file of theirs over /usr/bin/tac) it is
 * believed only when the path, as the daemon sees it, is the very file the
 * process runs; a key known by its path only is not believed there. Another
 * root's keys are that root's own ('@ID-' names) and always believed.
 * The path is looked up only in that one case, never on a FUSE mount.
 * Return: 0 believed, -EPERM not, other -errno.
 */
int key_trusted(pid_t pid, const struct key_root *root, const char *path,
		      const struct key_file *file, const struct mount_table *mounts);

/**
 * key_open_own() - open the regular file at @path in the daemon's own root and mounts, to read it
 *
 * Walked as key_trusted() walks (no FUSE, network or autofs mount); a symlink on
 * the way is followed only when root owns it (merged /usr's /bin, a release's
 * "current") and it is not the kernel's (/proc/PID/cwd), eight at most; nothing on
 * a kernel filesystem (proc, sysfs, tracefs...) is opened; O_NONBLOCK, so that a lease does not hold the open.
 * Return: a descriptor, -EPERM (not a regular file, or not reached that way), other -errno.
 */
int key_open_own(const char *path, const struct mount_table *mounts);

#endif
