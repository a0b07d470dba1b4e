// SPDX-License-Identifier: GPL-2.0-or-later
/* Benchmark: build, write and parse a pack of N ranges (and M accesses); prints times and peak RSS */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "ura/pack.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char *argv[])
{
	size_t nranges = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
	size_t nfiles = nranges / 10 + 1;
	size_t naccess = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	struct rusage ru;
	uint64_t sum = 0;
	double t0, t1, t2, t3, t4, t5;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PACK [RANGES [ACCESSES]]\n", argv[0]);
		return 2;
	}
	t0 = now();
	if (ura_pack_builder_new(&b) < 0 ||
	    ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .mount_point = "/" }, NULL) < 0)
		return 1;
	for (size_t i = 0; i < nfiles; i++) {
		char path[64];

		snprintf(path, sizeof(path), "usr/lib/x86_64-linux-gnu/lib%zu.so.1", i);
		if (ura_pack_builder_add_file(b, &(struct ura_pack_file){ .path = path,
					      .ino = i + 2, .size = 1 << 20 }, NULL) < 0)
			return 1;
	}
	for (size_t i = 0; i < nranges; i++)
		if (ura_pack_builder_add_range(b, &(struct ura_pack_range){
			.file_index = (uint32_t)(i % nfiles), .first_page = i / nfiles * 8,
			.page_count = 4, .first_access_ns = i * 1000, .flags = 1 }) < 0)
			return 1;
	/* an access log like a start's: runs of reads, faults in windows of other files */
	for (size_t i = 0; i < naccess; i++) {
		uint32_t file = (uint32_t)(i / 8 % nfiles);
		struct ura_pack_access a = { .time_ns = i * 2000, .file_index = file,
					     .stream = 1000 + (uint32_t)(i / 5000 % 4) };

		if (i % 4 == 0) {
			a.kind = URA_PACK_ACCESS_READ;
			a.first = a.last = i % 8;
		} else {
			a.kind = URA_PACK_ACCESS_FAULT;
			a.flags = i % 3 ? URA_PACK_ACCESS_EXEC : URA_PACK_ACCESS_MISSED;
			a.first = a.last = (i * 37) % 256;
			a.around_first = a.first & ~UINT64_C(15);
			a.around_last = a.around_first + 15;
		}
		if (ura_pack_builder_add_access(b, &a) < 0)
			return 1;
	}
	t1 = now();
	if (ura_pack_builder_write(b, argv[1], 0644) < 0)
		return 1;
	ura_pack_builder_free(b);
	t2 = now();
	if (ura_pack_open(argv[1], &p) < 0) {
		fprintf(stderr, "open: %s\n", ura_pack_error());
		return 1;
	}
	t3 = now();
	for (size_t i = 0; i < ura_pack_range_count(p); i++) {
		struct ura_pack_range r;

		ura_pack_get_range(p, i, &r);
		sum += r.page_count;
	}
	t4 = now();
	for (size_t i = 0; i < ura_pack_access_count(p); i++) {
		struct ura_pack_access a;

		ura_pack_get_access(p, i, &a);
		sum += a.last;
	}
	t5 = now();
	for (size_t i = 0; naccess && i < 100000; i++) {
		struct ura_pack_access a;

		ura_pack_get_access(p, (i * 7919) % naccess, &a);
		sum += a.first;
	}
	printf("ranges %zu files %zu: build %.1f ms, write %.1f ms, open+validate %.1f ms, "
	       "iterate %.1f ms (sum %llu)\n", nranges, nfiles, (t1 - t0) * 1e3, (t2 - t1) * 1e3,
	       (t3 - t2) * 1e3, (t4 - t3) * 1e3, (unsigned long long)sum);
	if (naccess)
		printf("accesses %zu: iterate in order %.1f ms, 10^5 at random %.1f ms\n", naccess,
		       (t5 - t4) * 1e3, (now() - t5) * 1e3);
	ura_pack_free(p);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %.1f MiB\n", (double)ru.ru_maxrss / 1024);
	return 0;
}
