// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: the packs of a directory by program key (key.c),
 * read when first needed, read again when the file changes, refcounted so
 * that a replay keeps its pack while the cache moves on; and the look at a
 * sample of a pack's pages that tells whether the program's data is resident
 * already, so that the replay can be skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util-log.h"
#include "cli-errors.h"
#include "key.h"
#include "replay-files.h"
#include "replay-mounts.h"
#include "watch-packs.h"
#include "replay-engine.h"
#include "sys-residency.h"
#include "util.h"

/* The files this process maps: /proc/self/maps, one entry per file. */
static int read_shared(struct watch_packs *c)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];

	if (!f)
		return 0;	/* then nothing is left out */
	while (fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long ino;
		struct replay_shared *n;
		bool seen = false;

		if (sscanf(line, "%*s %*s %*s %x:%x %lu", &maj, &min, &ino) != 3 || !ino)
			continue;
		for (size_t i = 0; i < c->nshared && !seen; i++)
			seen = c->shared[i].dev == makedev(maj, min) && c->shared[i].ino == ino;
		if (seen)
			continue;
		n = realloc(c->shared, (c->nshared + 1) * sizeof(*n));
		if (!n) {
			fclose(f);
			return -ENOMEM;
		}
		c->shared = n;
		c->shared[c->nshared++] = (struct replay_shared){ makedev(maj, min), (ino_t)ino };
	}
	fclose(f);
	return 0;
}

int watch_packs_init(struct watch_packs *c, const char *dir)
{
	int r;

	*c = (struct watch_packs){ .max_bytes = REPLAY_PACKS_BYTES };
	pthread_mutex_init(&c->lock, NULL);
	c->locked = true;
	c->dir = strdup(dir);
	if (!c->dir)
		return -ENOMEM;
	r = read_shared(c);
	return r;
}

int watch_packs_set_shared(struct watch_packs *c, const struct replay_shared *files, size_t n)
{
	struct replay_shared *s = NULL;

	if (n) {
		s = malloc(n * sizeof(*s));
		if (!s)
			return -ENOMEM;
		memcpy(s, files, n * sizeof(*s));
	}
	free(c->shared);
	c->shared = s;
	c->nshared = n;
	return 0;
}

void watch_pack_put(struct watch_pack *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	ura_pack_free(p->pack);
	free(p->samples);
	free(p->tree_ids);
	free(p->path);
	free(p);
}

/* What an entry holds in memory: its pack file's bytes, none when it could not be read. */
static uint64_t cached_bytes(const struct watch_pack *p)
{
	return p->err < 0 ? 0 : (uint64_t)p->size;
}

static void drop(struct watch_packs *c, size_t i)
{
	c->bytes -= cached_bytes(c->slot[i]);
	watch_pack_put(c->slot[i]);
	c->slot[i] = c->slot[--c->n];
}

void watch_packs_free(struct watch_packs *c)
{
	while (c->n)
		drop(c, c->n - 1);
	free(c->dir);
	c->dir = NULL;
	free(c->shared);
	c->shared = NULL;
	c->nshared = 0;
	if (c->locked)
		pthread_mutex_destroy(&c->lock);
	c->locked = false;
}

static int64_t ts_ns(struct timespec ts)
{
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool same_file(const struct watch_pack *p, const struct stat *st)
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
		log_warn("cannot read pack '%s': %s, skipping", path, cli_pack_strerror(err));
}

/* ---- the sample ---- */

static int sample_cmp(const void *a, const void *b)
{
	const struct replay_sample *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page;
}

/*
 * The pages a check looks at: REPLAY_PACKS_SAMPLES spread evenly over the
 * pack's demanded bytes (the k-th at the middle of the k-th equal share, so a
 * file holds samples in proportion to its demanded bytes), the files every
 * program maps left out, unless there is nothing else. The replay reads these
 * bytes: the first ranges (the program's first pages, just read by the exec,
 * ld.so, libc) say nothing about the rest.
 */
static int make_samples(struct watch_pack *p, const struct watch_packs *c)
{
	size_t nfiles = ura_pack_file_count(p->pack), nranges = ura_pack_range_count(p->pack);
	uint64_t total = 0, cum = 0;
	uint8_t *shared = NULL;
	uint32_t n, k = 0;
	bool all = false;

	shared = calloc(nfiles ? nfiles : 1, 1);
	if (!shared)
		return -ENOMEM;
	for (size_t i = 0; i < nfiles && c->nshared; i++) {
		struct ura_pack_file f;
		struct ura_pack_fs fs;

		if (ura_pack_get_file(p->pack, i, &f) < 0 || ura_pack_get_fs(p->pack, f.fs_index, &fs) < 0)
			continue;
		for (size_t j = 0; j < c->nshared && !shared[i]; j++)
			shared[i] = c->shared[j].dev == makedev(fs.major, fs.minor) &&
				    c->shared[j].ino == (ino_t)f.ino;
	}
again:
	for (size_t i = 0; i < nranges; i++) {
		struct ura_pack_range r;

		if (ura_pack_get_range(p->pack, i, &r) == 0 && (r.flags & URA_PACK_RANGE_DEMANDED) &&
		    r.file_index < nfiles && (all || !shared[r.file_index]))
			total += r.page_count;
	}
	if (!total && !all) {
		all = true;
		goto again;
	}
	n = total < REPLAY_PACKS_SAMPLES ? (uint32_t)total : REPLAY_PACKS_SAMPLES;
	p->samples = calloc(n ? n : 1, sizeof(*p->samples));
	if (!p->samples) {
		free(shared);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nranges && k < n; i++) {
		struct ura_pack_range r;

		if (ura_pack_get_range(p->pack, i, &r) < 0 || !(r.flags & URA_PACK_RANGE_DEMANDED) ||
		    r.file_index >= nfiles || (!all && shared[r.file_index]))
			continue;
		/* sample k sits at page (2k + 1) * total / 2n of all the demanded pages */
		for (uint64_t at; k < n && (at = ((2 * (uint64_t)k + 1) * total) / (2 * (uint64_t)n)) <
				  cum + r.page_count; k++)
			p->samples[k] = (struct replay_sample){ r.file_index,
								(uint32_t)(r.first_page + (at - cum)) };
		cum += r.page_count;
	}
	p->nsamples = k;
	p->sampled_bytes = total * URA_PACK_PAGE_SIZE;
	p->sampled_shared = all;
	qsort(p->samples, p->nsamples, sizeof(*p->samples), sample_cmp);
	free(shared);
	return 0;
}

/* Read the pack at @path (seen as @st) into a new entry. */
static int load(const struct watch_packs *c, const char *path, const struct stat *st,
		struct watch_pack **ret)
{
	struct watch_pack *p = calloc(1, sizeof(*p));

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
	else if (make_samples(p, c) < 0) {
		watch_pack_put(p);
		return -ENOMEM;
	}
	*ret = p;
	return 0;
}

static int lookup(struct watch_packs *c, const char *name, struct watch_pack **ret)
{
	char path[PATH_MAX];
	struct watch_pack *p = NULL;
	struct stat st;
	uint64_t h;
	size_t i;
	int r;

	if (snprintf(path, sizeof(path), "%s/%s", c->dir, name) >= (int)sizeof(path))
		return -ENOENT;		/* no pack can have that name */
	c->lookups++;
	h = hash_str(path);
	for (i = 0; i < c->n; i++)
		if (c->slot[i]->hash == h && strcmp(c->slot[i]->path, path) == 0)
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
		r = load(c, path, &st, &p);
		if (r < 0)
			return r;
		/* evict the least recently used (the new one stays, whatever its size) */
		while (c->n && (c->n == REPLAY_PACKS_MAX ||
				c->bytes + cached_bytes(p) > c->max_bytes)) {
			size_t old = 0;

			for (size_t k = 1; k < c->n; k++)
				if (c->slot[k]->last_used < c->slot[old]->last_used)
					old = k;
			drop(c, old);
		}
		p->hash = h;
		c->bytes += cached_bytes(p);
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

int watch_packs_lookup(struct watch_packs *c, uint64_t root_id, const char *path,
			struct watch_pack **ret, char *ret_name)
{
	char name[NAME_MAX + 1];
	int r;

	r = key_pack_name(root_id, path, name, sizeof(name));
	if (r == -ENAMETOOLONG)
		return -ENOENT;		/* no pack can have that name */
	if (r < 0)
		return r;
	if (ret_name)
		memcpy(ret_name, name, (size_t)r + 1);
	pthread_mutex_lock(&c->lock);
	r = lookup(c, name, ret);
	pthread_mutex_unlock(&c->lock);
	return r;
}

/* ---- is the program's data resident? ---- */

/* Is page @page of @fd (@size bytes now) in the page cache? A page past the end needs no reading. */
static bool page_resident(int fd, uint64_t size, uint32_t page)
{
	uint64_t off = (uint64_t)page * URA_PACK_PAGE_SIZE, len = URA_PACK_PAGE_SIZE, have = 0;

	if (off >= size)
		return true;
	if (len > size - off)
		len = size - off;
	return residency_bytes(fd, off, len, &have) == 0 && have >= len;
}

/* watch_pack_check() of the samples [@from, @to) of @p. */
static int check_samples(const struct watch_pack *p, const struct sys_view *view, uint32_t from,
			 uint32_t to, bool stop_at_miss, struct replay_check *ret,
			 struct replay_fs **ret_fs)
{
	size_t nfs = ura_pack_fs_count(p->pack);
	struct replay_check ck = { 0 };
	struct replay_fs *fs = NULL;
	uint64_t t0 = now_monotonic_ns(), size = 0;
	uint32_t cur = UINT32_MAX;
	int fd = -1, r;

	if (from >= to)
		goto done;
	/* where the filesystems are: never through a symlink, never on FUSE */
	r = replay_mounts_find(p->pack, view, NULL, false, &fs);
	if (r < 0) {
		replay_mounts_free(fs, nfs);
		return r;
	}
	for (uint32_t i = from; i < to; i++) {
		const struct replay_sample *s = &p->samples[i];

		if (s->file != cur) {
			if (fd >= 0)
				close(fd);
			cur = s->file;
			fd = -1;
			/* as the replay opens it: missing, refused or changed is not resident */
			(void)replay_files_open_file(p->pack, fs, cur, false, &fd, &size, NULL);
		}
		ck.sampled++;
		if (fd >= 0 && page_resident(fd, size, s->page))
			ck.resident++;
		else if (stop_at_miss)
			break;
	}
	if (fd >= 0)
		close(fd);
done:
	ck.ns = now_monotonic_ns() - t0;
	*ret = ck;
	if (ret_fs)
		*ret_fs = fs;	/* the replay it decides on looks for them no more */
	else
		replay_mounts_free(fs, nfs);
	return 0;
}

int watch_pack_check(const struct watch_pack *p, const struct sys_view *view, bool stop_at_miss,
		      struct replay_check *ret, struct replay_fs **ret_fs)
{
	return check_samples(p, view, 0, p->nsamples, stop_at_miss, ret, ret_fs);
}

int watch_pack_probe(const struct watch_pack *p, const struct sys_view *view, uint32_t k,
		      bool *ret_resident)
{
	struct replay_check ck;
	int r;

	if (!p->pack || !p->nsamples) {
		*ret_resident = true;
		return 0;
	}
	k %= p->nsamples;
	r = check_samples(p, view, k, k + 1, true, &ck, NULL);
	if (r == 0)
		*ret_resident = ck.resident == ck.sampled;
	return r;
}
