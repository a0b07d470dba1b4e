// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay --watch: the packs of programs whose path is a symlink, by the file it leads to */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "key.h"
#include "sys-mountinfo.h"
#include "watch-alias.h"
#include "watch-names.h"

/* Is a mount at or above @path one whose server may not answer? */
static bool may_hang(const struct mount_table *mounts, const char *path)
{
	for (size_t i = 0; i < mounts->count; i++) {
		const char *mp = mounts->entries[i].mount_point;
		size_t n = strlen(mp);

		if (n == 1 && mp[0] == '/')
			n = 0;
		if (strncmp(path, mp, n) == 0 && (path[n] == '/' || path[n] == '\0') &&
		    mountinfo_may_hang(mounts->entries[i].fstype))
			return true;
	}
	return false;
}

int watch_alias_resolve(const char *name, const struct key_root *root,
			const struct mount_table *mounts, char *buf, size_t size)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS };
	const struct mount_entry *m;
	char path[PATH_MAX], host[PATH_MAX], got[PATH_MAX], link[32];
	uint64_t id;
	const char *rel;
	size_t ml;
	ssize_t n;
	int mfd, fd, r;

	r = key_pack_path(name, &id, path, sizeof(path));
	if (r < 0)
		return r;
	if (id != root->id)
		return -EINVAL;
	if (snprintf(host, sizeof(host), "%s%s", strcmp(root->path, "/") == 0 ? "" : root->path,
		     path) >= (int)sizeof(host))
		return -ENAMETOOLONG;
	if (!mounts || may_hang(mounts, host))
		return -EREMOTE;
	m = mountinfo_find_path(mounts, host);
	if (!m)
		return -ENOENT;
	ml = strlen(m->mount_point);
	rel = host + (ml == 1 ? 0 : ml);
	while (*rel == '/')
		rel++;
	if (!*rel)
		return 0;
	mfd = open(m->mount_point, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, mfd, rel, &how, sizeof(how));
	r = fd < 0 ? -errno : 0;
	close(mfd);
	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r < 0)
		return r;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, got, sizeof(got) - 1);
	r = n < 0 ? -errno : (size_t)n >= sizeof(got) - 1 ? -ENAMETOOLONG : 0;
	close(fd);
	if (r < 0)
		return r;
	got[n] = '\0';
	r = key_path_in_root(root, got, buf, size);
	if (r < 0)
		return r;
	return strcmp(buf, path) != 0;
}

static void entry_free(struct watch_alias_entry *e)
{
	free(e->name);
	free(e->target);
}

void watch_alias_free(struct watch_alias *a)
{
	for (size_t i = 0; a->e && i < a->n; i++)
		entry_free(&a->e[i]);
	free(a->e);
	*a = (struct watch_alias){ 0 };
}

/* Files two packs' paths in a root lead to are no one's alias (few paths are symlinks: pairs are looked at). */
static void mark_shared(struct watch_alias *a)
{
	for (size_t i = 0; i < a->n; i++)
		a->e[i].shared = false;
	for (size_t i = 0; i < a->n; i++) {
		if (!a->e[i].target || a->e[i].shared)
			continue;
		for (size_t j = i + 1; j < a->n; j++)
			if (a->e[j].target && a->e[j].root_id == a->e[i].root_id &&
			    strcmp(a->e[i].target, a->e[j].target) == 0)
				a->e[i].shared = a->e[j].shared = true;
	}
}

/* DIR's names as last read: entries kept by name (both sorted), new ones not looked up yet. */
static void follow(struct watch_alias *a, const struct watch_names *names)
{
	struct watch_alias_entry *e = calloc(names->n ? names->n : 1, sizeof(*e));
	char path[PATH_MAX];
	size_t n = 0, j = 0;

	if (!e)
		return;
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
		if (!e[n].name)
			break;
		n++;
	}
	for (size_t i = 0; a->e && i < a->n; i++)
		entry_free(&a->e[i]);
	free(a->e);
	a->e = e;
	a->n = n;
	a->names_reads = names->reads;
}

void watch_alias_update(struct watch_alias *a, const struct watch_names *names,
			const struct key_root *root, const struct mount_table *mounts, uint64_t now)
{
	char target[PATH_MAX];
	bool changed = false;

	if (a->names_reads != names->reads || (!a->e && names->n)) {
		follow(a, names);
		changed = true;
	}
	if (!a->e)
		return;
	for (size_t i = 0; i < a->n; i++) {
		struct watch_alias_entry *x = &a->e[i];

		if (x->root_id != root->id ||
		    (x->resolved_ns && now - x->resolved_ns < WATCH_ALIAS_AGAIN_NS))
			continue;
		a->resolved++;
		x->resolved_ns = now ? now : 1;
		free(x->target);
		x->target = NULL;
		if (watch_alias_resolve(x->name, root, mounts, target, sizeof(target)) == 1)
			x->target = strdup(target);
		changed = true;
	}
	if (changed)
		mark_shared(a);
}

const char *watch_alias_find(const struct watch_alias *a, uint64_t root_id, const char *path)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->e[i].target && !a->e[i].shared && a->e[i].root_id == root_id &&
		    strcmp(a->e[i].target, path) == 0)
			return a->e[i].name;
	return NULL;
}
