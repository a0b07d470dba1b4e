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

int watch_alias_resolve(const char *name, const struct mount_table *mounts, char *buf,
			size_t size)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS };
	const struct mount_entry *m;
	char path[PATH_MAX], link[32];
	const char *rel;
	size_t ml;
	ssize_t n;
	int mfd, fd, r;

	r = key_pack_path(name, path, sizeof(path));
	if (r < 0)
		return r;
	if (!mounts || may_hang(mounts, path))
		return -EREMOTE;
	m = mountinfo_find_path(mounts, path);
	if (!m)
		return -ENOENT;
	ml = strlen(m->mount_point);
	rel = path + (ml == 1 ? 0 : ml);
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
	n = readlink(link, buf, size - 1);
	r = n < 0 ? -errno : (size_t)n >= size - 1 ? -ENAMETOOLONG : 0;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	return strcmp(buf, path) != 0;
}

static void entry_free(struct watch_alias_entry *e)
{
	free(e->name);
	free(e->target);
}

void watch_alias_free(struct watch_alias *a)
{
	for (size_t i = 0; i < a->n; i++)
		entry_free(&a->e[i]);
	free(a->e);
	*a = (struct watch_alias){ 0 };
}

static int entry_make(struct watch_alias *a, const char *name, const struct mount_table *mounts,
		      struct watch_alias_entry *ret)
{
	char target[PATH_MAX];

	*ret = (struct watch_alias_entry){ .name = strdup(name) };
	if (!ret->name)
		return -ENOMEM;
	a->resolved++;
	if (watch_alias_resolve(name, mounts, target, sizeof(target)) == 1 &&
	    !(ret->target = strdup(target))) {
		free(ret->name);
		return -ENOMEM;
	}
	return 0;
}

/* Files two packs' paths lead to are no one's alias (few paths are symlinks: pairs are looked at). */
static void mark_shared(struct watch_alias *a)
{
	for (size_t i = 0; i < a->n; i++)
		a->e[i].shared = false;
	for (size_t i = 0; i < a->n; i++) {
		if (!a->e[i].target || a->e[i].shared)
			continue;
		for (size_t j = i + 1; j < a->n; j++)
			if (a->e[j].target && strcmp(a->e[i].target, a->e[j].target) == 0)
				a->e[i].shared = a->e[j].shared = true;
	}
}

void watch_alias_update(struct watch_alias *a, const struct watch_names *names,
			const struct mount_table *mounts, uint64_t now)
{
	bool all = !a->made_ns || now - a->made_ns >= WATCH_ALIAS_AGAIN_NS;
	struct watch_alias_entry *e;
	size_t n = 0, j = 0;

	if (!all && a->names_reads == names->reads)
		return;
	e = calloc(names->n ? names->n : 1, sizeof(*e));
	if (!e)
		return;
	/* both sorted by name: an old entry is kept unless all are made again */
	for (size_t i = 0; i < names->n; i++) {
		int c = 1;

		while (j < a->n && (c = strcmp(a->e[j].name, names->names[i])) < 0)
			j++;
		if (!all && j < a->n && c == 0) {
			e[n++] = a->e[j];
			a->e[j++] = (struct watch_alias_entry){ 0 };
			continue;
		}
		if (entry_make(a, names->names[i], mounts, &e[n]) < 0)
			break;
		n++;
	}
	for (size_t i = 0; i < a->n; i++)
		entry_free(&a->e[i]);
	free(a->e);
	a->e = e;
	a->n = n;
	a->names_reads = names->reads;
	if (all)
		a->made_ns = now;
	mark_shared(a);
}

const char *watch_alias_find(const struct watch_alias *a, const char *path)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->e[i].target && !a->e[i].shared && strcmp(a->e[i].target, path) == 0)
			return a->e[i].name;
	return NULL;
}
