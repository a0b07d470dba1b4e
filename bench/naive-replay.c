// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reference prefetcher for the benchmarks: what ureadahead does. Every range of
 * a pack, data and metadata, demanded or not, is handed to readahead() in
 * first-access order, one call per range (cut at 2 MiB, the kernel's cap for
 * one call), with no coalescing, no residency check and no pacing.
 *
 *   naive-replay [--root DIR] [--data-only] PACK
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ura/pack.h"

#define CHUNK (2u << 20)

static void ra(int fd, uint64_t off, uint64_t len)
{
	for (uint64_t done = 0; done < len; done += CHUNK)
		readahead(fd, (off64_t)(off + done), len - done < CHUNK ? len - done : CHUNK);
}

int main(int argc, char *argv[])
{
	const char *root = "", *path;
	struct ura_pack *p = NULL;
	size_t nr, nm, i = 0, j = 0;
	int *fds, data_only = 0;

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
	path = argv[1];
	if (ura_pack_open(path, &p) < 0) {
		fprintf(stderr, "naive-replay: cannot read '%s'\n", path);
		return 65;
	}
	nr = ura_pack_range_count(p);
	nm = data_only ? 0 : ura_pack_meta_count(p);
	fds = malloc((ura_pack_file_count(p) + 1) * sizeof(*fds));
	for (size_t k = 0; k < ura_pack_file_count(p); k++)
		fds[k] = -2;	/* not opened yet */
	/* merge data and metadata ranges by first access */
	while (i < nr || j < nm) {
		struct ura_pack_range r = { 0 };
		struct ura_pack_meta m = { 0 };

		if (i < nr)
			ura_pack_get_range(p, i, &r);
		if (j < nm)
			ura_pack_get_meta(p, j, &m);
		if (i < nr && (j >= nm || r.first_access_ns <= m.first_access_ns)) {
			if (fds[r.file_index] == -2) {
				struct ura_pack_file f;
				struct ura_pack_fs fs;
				char full[PATH_MAX];

				ura_pack_get_file(p, r.file_index, &f);
				ura_pack_get_fs(p, f.fs_index, &fs);
				snprintf(full, sizeof(full), "%s%s/%s", root,
					 strcmp(fs.mount_point, "/") ? fs.mount_point : "", f.path);
				fds[r.file_index] = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
			}
			if (fds[r.file_index] >= 0)
				ra(fds[r.file_index], r.first_page * 4096, (uint64_t)r.page_count * 4096);
			i++;
		} else {
			char dev[64];
			int fd;

			snprintf(dev, sizeof(dev), "/dev/block/%u:%u", m.major, m.minor);
			fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
			if (fd >= 0) {
				ra(fd, m.offset, m.length);
				close(fd);
			}
			j++;
		}
	}
	ura_pack_free(p);
	free(fds);
	return 0;
}
