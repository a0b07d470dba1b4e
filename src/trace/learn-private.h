/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which files are a user's (their trees, temporary trees): not learned by default */
#ifndef URA_LEARN_PRIVATE_H
#define URA_LEARN_PRIVATE_H

#include <stdbool.h>

/*
 * Why: a pack lists the files a program read. A user's own files (/home,
 * /run/user) and what any user may write (/tmp, /var/tmp, /dev/shm, a
 * group-writable tree) tell what that user did and change from run to run; a
 * program run from such a tree (a build tree, a download, a test binary) is a
 * user's too, and usually short-lived. By default the learning daemon learns
 * neither (--include-user-files learns them).
 *
 * A path is a user's when a directory on the way to it, from the root of the
 * process that read it, or the file itself, belongs to a user (uid
 * USER_UID_MIN or more, as Debian and Fedora number them), or when such a
 * directory or the file may be written by others than root: by everyone (the
 * temporary trees, sticky or not), by a group (g+w with a gid other than 0),
 * or by a user or group a POSIX ACL names with write. The
 * directories are looked at from the root down, and the look stops at the
 * first one that is a user's: the daemon never looks inside a user's tree.
 * What cannot be looked at, and anything on a FUSE mount (a user's
 * filesystem, whose server could make a lookup hang), counts as a user's.
 */
#define USER_UID_MIN	1000

struct mount_table;
struct private_cache;


/**
 * private_cache_new() - answers about directories, kept until freed (a batch of runs)
 * @mounts: the daemon's mounts, to tell FUSE mounts (NULL: none known); must outlive the cache
 * Return: 0 or -ENOMEM.
 */
int private_cache_new(const struct mount_table *mounts, struct private_cache **ret);

/** private_cache_free() - NULL is allowed */
void private_cache_free(struct private_cache *c);

/**
 * private_path() - is @path (absolute, as the daemon sees it) a user's?
 * @root: the root of the process that read it, as the daemon sees it ("/" for the
 *	daemon's own): the directories above it are not the process's
 */
bool private_path(struct private_cache *c, const char *root, const char *path);

/* private_leave_out()'s context: the answers so far, the root of the reading process. */
struct private_filter {
	struct private_cache *cache;
	const char *root;
};

/** private_leave_out() - private_path() as struct assemble_opts.leave_out wants it */
bool private_leave_out(void *filter, const char *path);

#endif
