// SPDX-License-Identifier: GPL-2.0-or-later
/* Which files are a user's (their trees, temporary trees): not learned by default */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "learn-private.h"
#include "sys-mountinfo.h"
#include "util.h"

#define CACHE_SLOTS	1024	/* directories remembered (a power of two) */

struct answer {
	char *dir;
	bool private;
};

struct private_cache {
	const struct mount_table *mounts;
	struct answer a[CACHE_SLOTS];
};

int private_cache_new(const struct mount_table *mounts, struct private_cache **ret)
{
	struct private_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->mounts = mounts;
	*ret = c;
	return 0;
}

void private_cache_free(struct private_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		free(c->a[i].dir);
	free(c);
}

static size_t hash(const char *s)
{
	uint64_t h = hash_str(s);

	return (size_t)(h ^ (h >> 29)) & (CACHE_SLOTS - 1);
}

/*
 * Does the POSIX ACL of @path give a user, or a group other than root's, write?
 * The kernel's xattr form: a 4-byte version, then 8-byte entries (tag, perm, id),
 * little-endian. The mask is not applied: an entry that names write is enough.
 */
static bool acl_lets_write(const char *path)
{
	unsigned char buf[4 + 8 * 64];
	ssize_t n = lgetxattr(path, "system.posix_acl_access", buf, sizeof(buf));

	if (n < 0)
		return errno == ERANGE;		/* more than 64 entries: not root's alone */
	for (ssize_t i = 4; i + 8 <= n; i += 8) {
		unsigned tag = buf[i] | buf[i + 1] << 8, perm = buf[i + 2] | buf[i + 3] << 8;
		uint32_t id = (uint32_t)buf[i + 4] | (uint32_t)buf[i + 5] << 8 |
			      (uint32_t)buf[i + 6] << 16 | (uint32_t)buf[i + 7] << 24;

		if ((perm & 2) && ((tag == 0x02 && id != 0) || (tag == 0x08 && id != 0)))
			return true;	/* ACL_USER, ACL_GROUP with write */
	}
	return false;
}

/*
 * Is the inode of @st (at @path) a user's: theirs, or writable by others than
 * root (by mode or by ACL)? A file anyone may rewrite tells what they put there.
 */
static bool users(const char *path, const struct stat *st)
{
	if (st->st_uid >= USER_UID_MIN)
		return true;
	if (S_ISLNK(st->st_mode))
		return false;
	if ((st->st_mode & S_IWOTH) || ((st->st_mode & S_IWGRP) && st->st_gid != 0))
		return true;
	return acl_lets_write(path);
}

/* Is @p (a path, "" for /) a user's on its own? Cached when @cache. */
static bool private_one(struct private_cache *c, const char *p, bool cache)
{
	const char *name = p[0] ? p : "/";
	struct answer *a = &c->a[hash(name)];
	struct stat st;
	bool priv;

	if (cache && a->dir && strcmp(a->dir, name) == 0)
		return a->private;
	priv = mountinfo_on_fuse(c->mounts, name) || lstat(name, &st) < 0 || users(name, &st);
	if (cache) {
		char *copy = strdup(name);

		if (copy) {
			free(a->dir);
			a->dir = copy;
			a->private = priv;
		}
	}
	return priv;
}

bool private_path(struct private_cache *c, const char *root, const char *path)
{
	size_t rootlen = strcmp(root, "/") == 0 ? 0 : strlen(root), len = strlen(path);
	bool priv = false;
	char *copy;

	if (path[0] != '/')
		return true;
	if (rootlen && (strncmp(path, root, rootlen) != 0 || (path[rootlen] && path[rootlen] != '/')))
		rootlen = 0;	/* not below the process's root (reached another way): from / */
	copy = strdup(path);
	if (!copy)
		return true;
	/* the directories from the process's root down, then the file */
	for (size_t i = rootlen; !priv && i < len; i++) {
		if (copy[i] != '/' || (i > rootlen && copy[i - 1] == '/'))
			continue;
		copy[i] = '\0';
		priv = private_one(c, copy, true);
		copy[i] = '/';
	}
	if (!priv)
		priv = private_one(c, copy, false);
	free(copy);
	return priv;
}

bool private_leave_out(void *filter, const char *path)
{
	struct private_filter *f = filter;

	return private_path(f->cache, f->root, path);
}
