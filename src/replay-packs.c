// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: the packs of a directory by program (named by systemd's
 * path escaping), read when first needed, read again when the file changes,
 * refcounted so that a replay keeps its pack while the cache moves on; and the
 * check that skips a replay whose first ranges are already cached.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util-log.h"
#include "cli-errors.h"
#include "watch-key.h"
#include "replay-packs.h"
#include "replay-engine.h"
#include "sys-residency.h"
#include "util.h"

int replay_packs_init(struct replay_packs *c, const char *dir)
{
	*c = (struct replay_packs){ 0 };
	c->dir = strdup(dir);
	return c->dir ? 0 : -ENOMEM;
}

void replay_pack_put(struct replay_pack *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	ura_pack_free(p->pack);
	free(p->path);
	free(p);
}

static void drop(struct replay_packs *c, size_t i)
{
	replay_pack_put(c->slot[i]);
	c->slot[i] = c->slot[--c->n];
}

void replay_packs_free(struct replay_packs *c)
{
	while (c->n)
		drop(c, c->n - 1);
	free(c->dir);
	c->dir = NULL;
}

static int64_t ts_ns(struct timespec ts)
{
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool same_file(const struct replay_pack *p, const struct stat *st)
{
	return p->dev == st->st_dev && p->ino == st->st_ino && p->size == st->st_size &&
	       p->mtime_ns == ts_ns(st->st_mtim) && p->ctime_ns == ts_ns(st->st_ctim);
}

static void log_refused(const char *path, int err)
{
	if (err == -EPERM)
		log_warn("cannot read pack '%s': not owned by root or writable by group or others, "
			 "skipping", path);
	else
		log_warn("cannot read pack '%s': %s, skipping", path, pack_strerror(err));
}

/* Read the pack at @path (seen as @st) into a new entry. */
static int load(const char *path, const struct stat *st, struct replay_pack **ret)
{
	struct replay_pack *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->path = strdup(path);
	if (!p->path) {
		free(p);
		return -ENOMEM;
	}
	p->dev = st->st_dev;
	p->ino = st->st_ino;
	p->size = st->st_size;
	p->mtime_ns = ts_ns(st->st_mtim);
	p->ctime_ns = ts_ns(st->st_ctim);
	p->refs = 1;
	p->err = replay_open_pack(path, &p->pack);
	if (p->err < 0)
		log_refused(path, p->err);
	*ret = p;
	return 0;
}

int replay_packs_lookup(struct replay_packs *c, const char *exe, struct replay_pack **ret)
{
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct replay_pack *p = NULL;
	struct stat st;
	size_t i;
	int r;

	r = watch_pack_name(0, exe, name, sizeof(name));
	if (r == -ENAMETOOLONG ||
	    (r >= 0 && snprintf(path, sizeof(path), "%s/%s", c->dir, name) >= (int)sizeof(path)))
		return -ENOENT;		/* no pack can have that name */
	if (r < 0)
		return r;
	c->lookups++;
	for (i = 0; i < c->n; i++)
		if (strcmp(c->slot[i]->path, path) == 0)
			break;
	if (stat(path, &st) < 0) {
		r = -errno;
		if (i < c->n)
			drop(c, i);	/* removed: forget it */
		return r == -ENOTDIR ? -ENOENT : r;
	}
	if (i < c->n && !same_file(c->slot[i], &st)) {
		log_debug("pack '%s' changed, reading it again", path);
		drop(c, i);
		i = c->n;
	}
	if (i == c->n) {
		r = load(path, &st, &p);
		if (r < 0)
			return r;
		if (c->n == REPLAY_PACKS_MAX) {	/* evict the least recently used */
			size_t old = 0;

			for (size_t k = 1; k < c->n; k++)
				if (c->slot[k]->last_used < c->slot[old]->last_used)
					old = k;
			drop(c, old);
		}
		c->slot[c->n] = p;
		i = c->n++;
	}
	p = c->slot[i];
	p->last_used = c->lookups;
	if (p->err < 0)
		return p->err;
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	*ret = p;
	return 0;
}

/* ---- is the start cached? ---- */

/* Is [off, off + len) of the pack's file @fi resident? Opened without following links. */
static bool range_resident(const struct ura_pack *pack, uint32_t fi, uint64_t off, uint64_t len)
{
	struct ura_pack_file f;
	struct ura_pack_fs fs;
	char *path = NULL, proc[64];
	int pfd = -1, fd = -1;
	struct stat st;
	uint64_t have = 0;
	bool res = false;

	if (ura_pack_get_file(pack, fi, &f) < 0 || ura_pack_get_fs(pack, f.fs_index, &fs) < 0)
		return false;
	path = path_join(fs.mount_point, f.path);
	if (!path)
		return false;
	/* O_PATH first: a FIFO or a device node named by a pack is never opened */
	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0 || fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_ino != f.ino)
		goto out;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		goto out;
	if (off >= (uint64_t)st.st_size) {
		res = true;	/* nothing left to read there */
		goto out;
	}
	if (len > (uint64_t)st.st_size - off)
		len = (uint64_t)st.st_size - off;
	res = residency_bytes(fd, off, len, &have) == 0 && have >= len;
out:
	if (fd >= 0)
		close(fd);
	if (pfd >= 0)
		close(pfd);
	free(path);
	return res;
}

bool replay_pack_resident(const struct ura_pack *pack)
{
	struct ura_pack_range first[REPLAY_PACKS_FIRST];
	size_t n = 0, count = ura_pack_range_count(pack);

	/* the first demanded ranges by first access, kept sorted (insertion) */
	for (size_t i = 0; i < count; i++) {
		struct ura_pack_range r;
		size_t k;

		if (ura_pack_get_range(pack, i, &r) < 0 || !(r.flags & URA_PACK_RANGE_DEMANDED))
			continue;
		if (n == REPLAY_PACKS_FIRST && r.first_access_ns >= first[n - 1].first_access_ns)
			continue;
		k = n < REPLAY_PACKS_FIRST ? n++ : n - 1;
		while (k > 0 && first[k - 1].first_access_ns > r.first_access_ns) {
			first[k] = first[k - 1];
			k--;
		}
		first[k] = r;
	}
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!range_resident(pack, first[i].file_index,
				    first[i].first_page * URA_PACK_PAGE_SIZE,
				    (uint64_t)first[i].page_count * URA_PACK_PAGE_SIZE))
			return false;
	return true;
}
