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
#include <unistd.h>

#include "key.h"
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

int watch_alias_resolve(const char *name, uint64_t root_id, int root_fd, dev_t *ret_dev,
			ino_t *ret_ino)
{
	char path[PATH_MAX], target[PATH_MAX], full[PATH_MAX * 2];
	struct stat st;
	uint64_t id;
	ssize_t n;
	int fd, r;

	r = key_pack_path(name, &id, path, sizeof(path));
	if (r < 0)
		return r;
	if (id != root_id)
		return -EINVAL;
	/* the pack's path: one symlink, root's */
	fd = open_cached(root_fd, path, O_NOFOLLOW, 0);
	if (fd < 0)
		return none(fd);
	if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode) ||
	    st.st_uid != 0) {
		close(fd);
		return 0;
	}
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	/* its target, inside the root, with no other symlink on the way */
	if (target[0] == '/') {
		snprintf(full, sizeof(full), "%s", target);
	} else {
		char *slash = strrchr(path, '/');

		*slash = '\0';
		snprintf(full, sizeof(full), "%s/%s", path, target);
	}
	fd = open_cached(root_fd, full, 0, RESOLVE_NO_SYMLINKS);
	if (fd < 0)
		return none(fd);
	r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode);
	close(fd);
	if (r == 1) {
		*ret_dev = st.st_dev;
		*ret_ino = st.st_ino;
	}
	return r;
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

/* DIR's names as last read: entries kept by name (both sorted), new ones due at once. */
static int follow(struct watch_alias *a, const struct watch_names *names)
{
	struct watch_alias_entry *e = calloc(names->n ? names->n : 1, sizeof(*e));
	char path[PATH_MAX];
	size_t n = 0, j = 0;

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < names->n; i++) {
		uint64_t id;
		int c = 1;

		while (a->e && j < a->n && (c = strcmp(a->e[j].name, names->names[i])) < 0)
			j++;
		if (a->e && j < a->n && c == 0) {
			e[n++] = a->e[j];
			a->e[j++] = (struct watch_alias_entry){ 0 };
			continue;
		}
		if (key_pack_path(names->names[i], &id, path, sizeof(path)) < 0)
			continue;	/* no path to look up */
		e[n] = (struct watch_alias_entry){ .name = strdup(names->names[i]), .root_id = id };
		if (!e[n].name) {
			for (size_t k = 0; k < n; k++)
				entry_free(&e[k]);
			free(e);
			return -ENOMEM;	/* the table as it was; the next call tries again */
		}
		n++;
	}
	for (size_t i = 0; a->e && i < a->n; i++)
		entry_free(&a->e[i]);
	free(a->e);
	a->e = e;
	a->n = n;
	a->names_reads = names->reads;
	mark_shared(a);
	return 0;
}

bool watch_alias_due(struct watch_alias *a, const struct watch_names *names, uint64_t root_id,
		     uint64_t now)
{
	if (a->names_reads != names->reads && follow(a, names) < 0)
		return false;
	for (size_t i = 0; a->e && i < a->n; i++)
		if (a->e[i].root_id == root_id && a->e[i].due_ns <= now)
			return true;
	return false;
}

void watch_alias_lookup(struct watch_alias *a, uint64_t root_id, int root_fd, uint64_t now)
{
	unsigned looked = 0;

	for (size_t i = 0; a->e && i < a->n && looked < WATCH_ALIAS_LOOKUPS; i++) {
		struct watch_alias_entry *x = &a->e[i];
		int r;

		if (x->root_id != root_id || x->due_ns > now)
			continue;
		looked++;
		a->resolved++;
		r = watch_alias_resolve(x->name, root_id, root_fd, &x->dev, &x->ino);
		x->found = r == 1;
		/* not cached: once more soon (a start walks its path), then at the usual pace */
		x->due_ns = now + (r == -EAGAIN && !x->uncached ? WATCH_ALIAS_RETRY_NS :
				   WATCH_ALIAS_AGAIN_NS);
		x->uncached = r == -EAGAIN;
	}
	if (looked)
		mark_shared(a);
}

const char *watch_alias_find(const struct watch_alias *a, uint64_t root_id, dev_t dev, ino_t ino)
{
	for (size_t i = 0; a->e && i < a->n; i++)
		if (a->e[i].found && !a->e[i].shared && a->e[i].root_id == root_id &&
		    a->e[i].dev == dev && a->e[i].ino == ino)
			return a->e[i].name;
	return NULL;
}
