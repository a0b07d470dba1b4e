// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reference prefetcher for the benchmarks: what Android's boot prefetcher
 * (system/extras prefetch, "replay") does with a record of page-cache
 * additions. Every file range of the pack, demanded or not (it records all
 * additions, and no filesystem metadata), in order of first access, read with
 * pread() into a buffer in chunks of 1 MiB by two threads that take the next
 * chunk from one queue. No cost model, no merging of holes, no pacing.
 *
 *   aosp-replay [--root DIR] PACK
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ura/pack.h"

#define CHUNK (1u << 20)
#define THREADS 2

struct piece {
	uint32_t file;
	uint64_t off, len;	/* at most CHUNK */
	uint64_t time;
};

static struct piece *pieces;
static size_t npieces, next_piece;
static int *fds;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int by_time(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void *worker(void *arg)
{
	char *buf = malloc(CHUNK);

	(void)arg;
	if (!buf)
		return NULL;
	for (;;) {
		size_t i;

		pthread_mutex_lock(&lock);
		i = next_piece++;
		pthread_mutex_unlock(&lock);
		if (i >= npieces)
			break;
		if (fds[pieces[i].file] >= 0 &&
		    pread(fds[pieces[i].file], buf, pieces[i].len, (off_t)pieces[i].off) < 0)
			continue;	/* a file that shrank: as the reference does, go on */
	}
	free(buf);
	return NULL;
}

int main(int argc, char *argv[])
{
	const char *root = "";
	struct ura_pack *p = NULL;
	pthread_t t[THREADS];
	size_t nr, nf, cap = 0;

	if (argc == 4 && strcmp(argv[1], "--root") == 0) {
		root = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: aosp-replay [--root DIR] PACK\n");
		return 64;
	}
	if (ura_pack_open(argv[1], &p) < 0) {
		fprintf(stderr, "aosp-replay: cannot read '%s'\n", argv[1]);
		return 65;
	}
	nr = ura_pack_range_count(p);
	nf = ura_pack_file_count(p);
	fds = malloc((nf + 1) * sizeof(*fds));
	if (!fds)
		return 70;
	for (size_t i = 0; i < nf; i++) {
		struct ura_pack_file f;
		struct ura_pack_fs fs;
		char path[PATH_MAX];

		fds[i] = -1;
		if (ura_pack_get_file(p, i, &f) < 0 || ura_pack_get_fs(p, f.fs_index, &fs) < 0)
			continue;
		snprintf(path, sizeof(path), "%s%s/%s", root,
			 strcmp(fs.mount_point, "/") ? fs.mount_point : "", f.path);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	}
	for (size_t i = 0; i < nr; i++) {
		struct ura_pack_range r;
		uint64_t off, end;

		if (ura_pack_get_range(p, i, &r) < 0)
			continue;
		off = r.first_page * 4096;
		end = off + (uint64_t)r.page_count * 4096;
		for (; off < end; off += CHUNK) {
			if (npieces == cap) {
				void *q = realloc(pieces, (cap * 2 + 1024) * sizeof(*pieces));

				if (!q)
					return 70;
				pieces = q;
				cap = cap * 2 + 1024;
			}
			pieces[npieces++] = (struct piece){ r.file_index, off,
							    end - off < CHUNK ? end - off : CHUNK,
							    r.first_access_ns };
		}
	}
	qsort(pieces, npieces, sizeof(*pieces), by_time);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (size_t i = 0; i < nf; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	free(pieces);
	ura_pack_free(p);
	return 0;
}
