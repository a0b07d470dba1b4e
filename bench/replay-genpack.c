// SPDX-License-Identifier: GPL-2.0-or-later
/* replay-genpack: write a synthetic pack of N ranges over N/10 files, for the schedule bench */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ura/pack.h>

int main(int argc, char *argv[])
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack_fs fs = { .major = 254, .minor = 0, .mount_point = "/", .fstype = "ext4",
				  .source = "/dev/vda" };
	unsigned long nranges, nfiles;
	uint64_t seed = 88172645463325252ull;
	int r;

	if (argc != 3) {
		fputs("usage: replay-genpack OUT NRANGES\n", stderr);
		return 64;
	}
	nranges = strtoul(argv[2], NULL, 10);
	nfiles = nranges / 10 ? nranges / 10 : 1;
	if ((r = ura_pack_builder_new(&b)) < 0 || (r = ura_pack_builder_add_fs(b, &fs, NULL)) < 0)
		goto fail;
	for (unsigned long i = 0; i < nfiles; i++) {
		char path[64];
		struct ura_pack_file f = { .fs_index = 0, .path = path, .ino = 1000 + i,
					   .size = 64ull << 20, .mtime_ns = 1 };

		snprintf(path, sizeof(path), "usr/lib/bench/d%03lu/file-%06lu.so", i % 500, i);
		if ((r = ura_pack_builder_add_file(b, &f, NULL)) < 0)
			goto fail;
	}
	for (unsigned long i = 0; i < nranges; i++) {
		struct ura_pack_range rg;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		/* a file's ranges come close together in time, at scattered offsets */
		rg = (struct ura_pack_range){
			.file_index = (uint32_t)(i / 10 % nfiles),
			.flags = seed % 8 ? URA_PACK_RANGE_DEMANDED : 0,
			.first_page = (seed >> 8) % 16384,
			.page_count = (uint32_t)(1 + (seed >> 32) % 32),
			.first_access_ns = i * 20000,
		};
		if ((r = ura_pack_builder_add_range(b, &rg)) < 0)
			goto fail;
	}
	for (unsigned long i = 0; i < nranges / 20; i++) {
		struct ura_pack_meta m = { .fs_index = 0, .major = 254, .minor = 0,
					   .offset = (i * 7919 % 100000) * 4096, .length = 4096,
					   .first_access_ns = i * 400000 };

		if ((r = ura_pack_builder_add_meta(b, &m)) < 0)
			goto fail;
	}
	if ((r = ura_pack_builder_write(b, argv[1], 0644)) < 0)
		goto fail;
	ura_pack_builder_free(b);
	return 0;
fail:
	fprintf(stderr, "replay-genpack: %s\n", strerror(-r));
	ura_pack_builder_free(b);
	return 1;
}
