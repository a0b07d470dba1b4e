// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reference prefetcher for the benchmarks: what ureadahead does. Every page of
 * a pack, data and metadata, demanded or not, is read with readahead(): the
 * pages of each file (and of each block device) are joined into maximal
 * contiguous runs, and the runs are issued in order of their first access, one
 * call per run (cut at 2 MiB, the kernel's cap for one call). No gap is
 * bridged, nothing is skipped, there is no pacing and no cost model.
 *
 *   naive-replay [--root DIR] [--data-only] PACK
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ura/pack.h"

#define CHUNK (2u << 20)

struct run {
	uint32_t obj;		/* file index, or UINT32_MAX - metadata device slot */
	int meta;
	uint64_t start, end;	/* bytes */
	uint64_t time;
};

static int by_obj_start(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->meta != y->meta)
		return x->meta - y->meta;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int by_time(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static void ra(int fd, uint64_t off, uint64_t len)
{
	for (uint64_t done = 0; done < len; done += CHUNK)
		readahead(fd, (off64_t)(off + done), len - done < CHUNK ? len - done : CHUNK);
}

int main(int argc, char *argv[])
{
	const char *root = "";
	struct ura_pack *p = NULL;
	size_t nr, nm, n = 0, k = 0;
	struct run *runs;
	int data_only = 0;

	while (argc > 2 && argv[1][0] == '-') {
		if (strcmp(argv[1], "--root") == 0 && argc > 3) {
			root = argv[2];
			argv += 2;
			argc -= 2;
		} else if (strcmp(argv[1], "--data-only") == 0) {
			data_only = 1;
			argv++;
			argc--;
		} else {
			break;
		}
	}
	if (argc != 2) {
		fprintf(stderr, "usage: naive-replay [--root DIR] [--data-only] PACK\n");
		return 64;
	}
	if (ura_pack_open(argv[1], &p) < 0) {
		fprintf(stderr, "naive-replay: cannot read '%s'\n", argv[1]);
		return 65;
	}
	nr = ura_pack_range_count(p);
	nm = data_only ? 0 : ura_pack_meta_count(p);
	runs = calloc(nr + nm + 1, sizeof(*runs));
	for (size_t i = 0; i < nr; i++) {
		struct ura_pack_range r;

		ura_pack_get_range(p, i, &r);
		runs[n++] = (struct run){ r.file_index, 0, r.first_page * 4096,
					  (r.first_page + r.page_count) * 4096, r.first_access_ns };
	}
	for (size_t i = 0; i < nm; i++) {
		struct ura_pack_meta m;

		ura_pack_get_meta(p, i, &m);
		runs[n++] = (struct run){ m.major << 20 | m.minor, 1, m.offset, m.offset + m.length,
					  m.first_access_ns };
	}
	/* join contiguous and overlapping pages of one object, keeping the earliest time */
	qsort(runs, n, sizeof(*runs), by_obj_start);
	for (size_t i = 0; i < n; i++) {
		if (k && runs[k - 1].meta == runs[i].meta && runs[k - 1].obj == runs[i].obj &&
		    runs[i].start <= runs[k - 1].end) {
			if (runs[i].end > runs[k - 1].end)
				runs[k - 1].end = runs[i].end;
			if (runs[i].time < runs[k - 1].time)
				runs[k - 1].time = runs[i].time;
			continue;
		}
		runs[k++] = runs[i];
	}
	qsort(runs, k, sizeof(*runs), by_time);
	for (size_t i = 0; i < k; i++) {
		char path[PATH_MAX];
		int fd;

		if (runs[i].meta) {
			snprintf(path, sizeof(path), "/dev/block/%u:%u", runs[i].obj >> 20,
				 runs[i].obj & 0xfffff);
		} else {
			struct ura_pack_file f;
			struct ura_pack_fs fs;

			ura_pack_get_file(p, runs[i].obj, &f);
			ura_pack_get_fs(p, f.fs_index, &fs);
			snprintf(path, sizeof(path), "%s%s/%s", root,
				 strcmp(fs.mount_point, "/") ? fs.mount_point : "", f.path);
		}
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			ra(fd, runs[i].start, runs[i].end - runs[i].start);
			close(fd);
		}
	}
	ura_pack_free(p);
	free(runs);
	return 0;
}
