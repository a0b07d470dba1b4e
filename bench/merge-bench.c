// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark: what merging one learned run into a program's pack costs, and what of it is
 * reading the run: a synthetic run of a large program's start (N ranges over N/15 files,
 * N/8 metadata ranges), merged into a pack of 8 earlier runs, either read from its builder
 * (merge_inputs(), the learning daemon) or serialised and parsed first (what the daemon did
 * before); prints the best of R rounds of each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ura/pack.h>

#include "merge.h"
#include "merge-input.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Run @k of a program's start: the same files, each page kept with probability 9/10. */
static int make_run(size_t nranges, unsigned k, struct ura_pack_builder **ret)
{
	struct ura_pack_fs fs = { .major = 254, .minor = 1, .mount_point = "/", .fstype = "ext4",
				  .source = "/dev/vda1" };
	struct ura_pack_info info = { .created_ns = 1000000000LL * (1 + k), .duration_ns = 10e9,
				      .kernel_release = "6.18.0", .command = "rustc --version" };
	size_t nfiles = nranges / 15 + 1, nmeta = nranges / 8;
	uint64_t seed = 88172645463325252ull + k;
	struct ura_pack_builder *b = NULL;
	int r;

	if ((r = ura_pack_builder_new(&b)) < 0 || (r = ura_pack_builder_add_fs(b, &fs, NULL)) < 0 ||
	    (r = ura_pack_builder_set_info(b, &info)) < 0)
		goto out;
	for (size_t i = 0; i < nfiles; i++) {
		char path[80];
		struct ura_pack_file f = { .path = path, .ino = 1000 + i, .size = 64 << 20,
					   .mtime_ns = 1 };

		snprintf(path, sizeof(path), "usr/lib/rustlib/x86_64-unknown-linux-gnu/lib/d%02zu/"
			 "lib%06zu.rlib", i % 40, i);
		if ((r = ura_pack_builder_add_file(b, &f, NULL)) < 0)
			goto out;
	}
	for (size_t i = 0; i < nranges; i++) {
		struct ura_pack_range rg = { .file_index = (uint32_t)(i % nfiles),
					     .first_page = i / nfiles * 64 + i % 7,
					     .page_count = 1 + (uint32_t)(i % 8),
					     .first_access_ns = i * 20000 + next(&seed) % 5000,
					     .flags = i % 5 ? URA_PACK_RANGE_DEMANDED : 0 };

		if (next(&seed) % 10 == 0)
			continue;
		if ((r = ura_pack_builder_add_range(b, &rg)) < 0)
			goto out;
	}
	for (size_t i = 0; i < nmeta; i++) {
		struct ura_pack_meta m = { .fs_index = 0, .major = 254, .minor = 1,
					   .offset = i * 7 * URA_PACK_PAGE_SIZE,
					   .length = URA_PACK_PAGE_SIZE, .first_access_ns = i * 1000 };

		if (next(&seed) % 10 == 0)
			continue;
		if ((r = ura_pack_builder_add_meta(b, &m)) < 0)
			goto out;
	}
	*ret = b;
	b = NULL;
out:
	ura_pack_builder_free(b);
	return r;
}

/* A builder as a parsed pack: the round trip the learning daemon made. */
static int reparse(struct ura_pack_builder *b, struct ura_pack **ret)
{
	void *data = NULL;
	size_t len = 0;
	int r = ura_pack_builder_serialize(b, &data, &len);

	if (r == 0)
		r = ura_pack_parse(data, len, ret);
	free(data);
	return r;
}

int main(int argc, char *argv[])
{
	size_t nranges = argc > 1 ? strtoul(argv[1], NULL, 10) : 15000;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 20;
	struct merge_opts mo = { .min_confidence = MERGE_DEFAULT_CONFIDENCE };
	struct ura_pack *old = NULL, *run = NULL;
	struct ura_pack_builder *b = NULL, *out = NULL;
	double best_trip = 1e9, best_merge = 1e9, best_direct = 1e9;
	int r;

	/* the program's pack so far: 8 runs merged */
	for (unsigned k = 0; k < 8; k++) {
		const struct ura_pack *in[2];
		struct ura_pack *p = NULL;
		size_t n = 0;

		if ((r = make_run(nranges, k, &b)) < 0 || (r = reparse(b, &p)) < 0)
			goto fail;
		ura_pack_builder_free(b);
		b = NULL;
		if (old)
			in[n++] = old;
		in[n++] = p;
		if ((r = merge_packs(in, n, &mo, NULL, &out)) < 0)
			goto fail;
		ura_pack_free(old);
		ura_pack_free(p);
		old = NULL;
		if ((r = reparse(out, &old)) < 0)
			goto fail;
		ura_pack_builder_free(out);
		out = NULL;
	}
	for (unsigned i = 0; i < rounds; i++) {
		const struct ura_pack *in[2] = { old, NULL };
		struct merge_input src[2] = { { .pack = old }, { 0 } };
		double t0, t1, t2, t3;

		if ((r = make_run(nranges, 8 + i, &b)) < 0)
			goto fail;
		t0 = now();
		if ((r = reparse(b, &run)) < 0)
			goto fail;
		t1 = now();
		in[1] = run;
		if ((r = merge_packs(in, 2, &mo, NULL, &out)) < 0)
			goto fail;
		t2 = now();
		ura_pack_free(run);
		run = NULL;
		ura_pack_builder_free(b);
		b = NULL;
		ura_pack_builder_free(out);
		out = NULL;
		/* the same run again, merged from its builder (its ranges normalised first) */
		if ((r = make_run(nranges, 8 + i, &b)) < 0)
			goto fail;
		src[1].builder = b;
		t3 = now();
		if ((r = merge_inputs(src, 2, &mo, NULL, &out)) < 0)
			goto fail;
		t3 = now() - t3;
		best_trip = t1 - t0 < best_trip ? t1 - t0 : best_trip;
		best_merge = t2 - t1 < best_merge ? t2 - t1 : best_merge;
		best_direct = t3 < best_direct ? t3 : best_direct;
		ura_pack_builder_free(b);
		b = NULL;
		ura_pack_builder_free(out);
		out = NULL;
	}
	printf("{\"ranges\": %zu, \"rounds\": %u, \"round_trip_ms\": %.3f, \"merge_ms\": %.3f, "
	       "\"round_trip_and_merge_ms\": %.3f, \"merge_from_builder_ms\": %.3f}\n",
	       nranges, rounds, best_trip * 1e3, best_merge * 1e3, (best_trip + best_merge) * 1e3,
	       best_direct * 1e3);
	ura_pack_free(old);
	return 0;
fail:
	fprintf(stderr, "merge-bench: %s\n", r < 0 ? "failed" : "?");
	ura_pack_free(old);
	ura_pack_free(run);
	ura_pack_builder_free(b);
	ura_pack_builder_free(out);
	return 1;
}
