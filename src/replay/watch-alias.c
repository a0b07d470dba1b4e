// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay --watch: the packs of programs whose path is a symlink, by the file it leads to */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "key.h"
#include "sys-mountinfo.h"
#include "watch-alias.h"
#include "watch-names.h"

/* openat2() of @path inside @root_fd, from the kernel's caches alone */
static int open_cached(int root_fd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how = { .flags = flags | O_PATH | O_CLOEXEC,
				.resolve = resolve | RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
					   RESOLVE_CACHED };
	int fd;

	while (*path == '/')
		path++;
	fd = (int)syscall(SYS_openat2, root_fd, *path ? path : ".", &how, sizeof(how));
	return fd < 0 ? -errno : fd;
}

/* What a lookup that found nothing returns: nothing there, or not what is followed. */
static int none(int err)
{
	return err == -ENOENT || err == -ENOTDIR || err == -ELOOP || err == -EXDEV ? 0 : err;
}

/* The facts of @fd as the kernel holds them: no filesystem (a server) is asked. */
static int facts(int fd, struct statx *ret)
{
	return statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
		     STATX_TYPE | STATX_UID | STATX_INO | STATX_BLOCKS, ret) < 0 ? -errno : 0;
}

int watch_alias_resolve(const char *name, uint64_t root_id, int root_fd, const char *root_path,
			const struct mount_table *mounts, dev_t *ret_dev, ino_t *ret_ino)
{
	char path[PATH_MAX], target[PATH_MAX], full[PATH_MAX], host[PATH_MAX * 2];
	const struct mount_entry *m;
	struct statx link, file;
	uint64_t id;
	ssize_t n;
	int fd, to, r;

	r = key_pack_path(name, &id, path, sizeof(path));
	if (r < 0)
		return r;
	if (id != root_id)
		return -EINVAL;
	/* the link's body is the filesystem's to give: none that a server answers for */
	snprintf(host, sizeof(host), "%s%s", strcmp(root_path, "/") == 0 ? "" : root_path, path);
	m = mountinfo_find_path(mounts, host);
	if (!m || mountinfo_may_hang(m->fstype))
		return 0;
	/* the pack's path, no symlink on the way: itself one symlink, root's */
	fd = open_cached(root_fd, path, O_NOFOLLOW, RESOLVE_NO_SYMLINKS);
	if (fd < 0)
		return none(fd);
	r = facts(fd, &link);
	if (r < 0 || !S_ISLNK(link.stx_mode) || link.stx_uid != 0) {
		close(fd);
		return r < 0 ? r : 0;
	}
	/*
	 * Its body read only where the inode holds it (no block: ext4's and xfs's short
	 * links), so that no disk is read for it
	 */
	n = link.stx_blocks ? 0 : readlinkat(fd, "", target, sizeof(target) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	/*
	 * where it leads with no other symlink on the way, inside the root, simplified first (a
	 * ".." walked would fail at any rename on the system)
	 */
	*strrchr(path, '/') = '\0';
	if (key_path_normalize(path[0] ? path : "/", target, full, sizeof(full)) < 0)
		return 0;
	to = open_cached(root_fd, full, 0, RESOLVE_NO_SYMLINKS);
	if (to < 0)
		return none(to);
	r = facts(to, &file);
	close(to);
	if (r < 0)
		return r;
	if (!S_ISREG(file.stx_mode))
		return 0;
	*ret_dev = makedev(file.stx_dev_major, file.stx_dev_minor);
	*ret_ino = (ino_t)file.stx_ino;
	return 1;
}

static void entry_free(struct watch_alias_entry *e)
{
	free(e->name);
}

void watch_alias_free(struct watch_alias *a)
{
	for (size_t i = 0; a->e && i < a->n; i++)
		entry_free(&a->e[i]);
	free(a->e);
	*a = (struct watch_alias){ 0 };
}

/* Files two packs of a root lead to are no one's (few paths are symlinks: pairs are looked at). */
static void mark_shared(struct watch_alias *a)
{
	for (size_t i = 0; i < a->n; i++)
		a->e[i].shared = false;
	for (size_t i = 0; i < a->n; i++) {
		if (!a->e[i].found || a->e[i].shared)
			continue;
		for (size_t j = i + 1; j < a->n; j++)
			if (a->e[j].found && a->e[j].root_id == a->e[i].root_id &&
			    a->e[j].dev == a->e[i].dev && a->e[j].ino == a->e[i].ino)
				a->e[i].shared = a->e[j].shared = true;
	}
}

/*
 * DIR's names as last read: entries kept by name (both sorted), new ones due at once. On
 * failure the table is as it was (the next call tries again).
 */
static int follow(struct watch_alias *a, const struct watch_names *names)
{
	struct watch_alias_entry *e = calloc(names->n ? names->n : 1, sizeof(*e));
	bool *kept = calloc(a->n ? a->n : 1, sizeof(*kept));
	char path[PATH_MAX];
	size_t n = 0, j = 0;
	int r = 0;

	if (!e || !kept) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < names->n; i++) {
		uint64_t id;
		int c = 1;

		while (a->e && j < a->n && (c = strcmp(a->e[j].name, names->names[i])) < 0)
			j++;
		if (a->e && j < a->n && c == 0) {
			kept[j] = true;
			e[n++] = a->e[j++];	/* its name moves only on success */
			continue;
		}
		if (key_pack_path(names->names[i], &id, path, sizeof(path)) < 0)
			continue;	/* no path to look up */
		e[n] = (struct watch_alias_entry){ .name = strdup(names->names[i]), .root_id = id,
						   .fresh = true };
		if (!e[n].name) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	if (r < 0) {
		for (size_t k = 0; k < n; k++)
			if (e[k].fresh)
				entry_free(&e[k]);
		goto out;
	}
	for (size_t k = 0; a->e && k < a->n; k++)
		if (!kept[k])
			entry_free(&a->e[k]);
	for (size_t k = 0; k < n; k++)
		e[k].fresh = false;
	free(a->e);
	a->e = e;
	e = NULL;
	a->n = n;
	a->names_reads = names->reads;
	mark_shared(a);
out:
	free(e);
	free(kept);
	return r;
}

bool watch_alias_due(struct watch_alias *a, const struct watch_names *names, uint64_t root_id,
		     uint64_t now)
{
	if (a->unsupported || (a->names_reads != names->reads && follow(a, names) < 0))
		return false;
	for (size_t i = 0; a->e && i < a->n; i++)
		if (a->e[i].root_id == root_id && a->e[i].due_ns <= now)
			return true;
	return false;
}

void watch_alias_lookup(struct watch_alias *a, uint64_t root_id, int root_fd,
			const char *root_path, const struct mount_table *mounts, uint64_t now,
			bool uncached)
{
	unsigned looked = 0;

	for (size_t i = 0; a->e && i < a->n && looked < WATCH_ALIAS_LOOKUPS && !a->unsupported;
	     i++) {
		struct watch_alias_entry *x = &a->e[i];
		dev_t dev = 0;
		ino_t ino = 0;
		int r;

		if (x->root_id != root_id ||
		    (uncached ? !x->uncached || x->retries >= WATCH_ALIAS_RETRIES : x->due_ns > now))
			continue;
		looked++;
		if (uncached)
			x->retries++;
		a->resolved++;
		r = watch_alias_resolve(x->name, root_id, root_fd, root_path, mounts, &dev, &ino);
		if (r == -EINVAL || r == -ENOSYS || r == -E2BIG) {
			a->unsupported = true;	/* no openat2, or no RESOLVE_CACHED */
			break;
		}
		/* not cached: what was found stays (a cache pressed by anyone must not change it) */
		if (r != -EAGAIN) {
			x->found = r == 1;
			x->dev = x->found ? dev : 0;
			x->ino = x->found ? ino : 0;
		}
		/* not cached: once more soon (a start walks its path), then at the usual pace */
		x->due_ns = now + (r == -EAGAIN && !x->uncached ? WATCH_ALIAS_RETRY_NS :
				   WATCH_ALIAS_AGAIN_NS);
		x->uncached = r == -EAGAIN;
		if (!x->uncached)
			x->retries = 0;
	}
	if (uncached)
		a->retried_ns = now;
	if (looked)
		mark_shared(a);
}

bool watch_alias_retry_due(const struct watch_alias *a, uint64_t root_id, uint64_t now)
{
	if (a->unsupported || (a->retried_ns && now - a->retried_ns < WATCH_ALIAS_RETRY_GAP_NS))
		return false;
	for (size_t i = 0; a->e && i < a->n; i++)
		if (a->e[i].root_id == root_id && a->e[i].uncached &&
		    a->e[i].retries < WATCH_ALIAS_RETRIES)
			return true;
	return false;
}

const char *watch_alias_find(const struct watch_alias *a, uint64_t root_id, dev_t dev, ino_t ino)
{
	for (size_t i = 0; a->e && i < a->n; i++)
		if (a->e[i].found && !a->e[i].shared && a->e[i].root_id == root_id &&
		    a->e[i].dev == dev && a->e[i].ino == ino)
			return a->e[i].name;
	return NULL;
}
