// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/shared/merge.c: confidence per page, median time, changed files, --keep-runs,
 * and merge-input.c: builders merged as the packs they write */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "merge-input.h"
#include "unit.h"

#define DEM URA_PACK_RANGE_DEMANDED

/* A range of a one-run pack: file by name, pages [first, first + count), time, flags. */
struct rg {
	const char *file;
	uint64_t first;
	uint32_t count;
	uint64_t time;
	uint32_t flags;
};

/* A file's identity in a run (size and mtime; generation when gen != 0). */
struct id {
	const char *file;
	uint64_t size;
	int64_t mtime;
	uint64_t gen;
};

static uint32_t file_index(struct ura_pack_builder *b, const char **names, size_t *n,
			   const char *name, const struct id *ids)
{
	struct ura_pack_file f = { .path = name, .size = 4096 * 100, .mtime_ns = 1 };
	uint32_t idx;

	for (size_t i = 0; i < *n; i++)
		if (strcmp(names[i], name) == 0)
			return (uint32_t)i;
	for (; ids && ids->file; ids++)
		if (strcmp(ids->file, name) == 0) {
			f.size = ids->size;
			f.mtime_ns = ids->mtime;
			f.generation = ids->gen;
			f.flags = ids->gen ? URA_PACK_FILE_HAS_GENERATION : 0;
		}
	ck_assert_int_eq(ura_pack_builder_add_file(b, &f, &idx), 0);
	names[(*n)++] = name;
	return idx;
}

/* A pack of one run traced at @created that took @duration ns: the ranges of @r (ending with
 * file NULL). */
static struct ura_pack *timed_run_pack(int64_t created, uint64_t duration, const struct rg *r,
				       const struct id *ids)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	const char *names[16];
	size_t n = 0, len;
	void *data;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.mount_point = "/", .flags = URA_PACK_FS_HAS_UUID, .uuid = { 1, 2, 3 },
		.major = 8, .minor = (uint32_t)created }, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_set_info(b, &(struct ura_pack_info){
		.created_ns = created, .duration_ns = duration, .lost_events = 1,
		.command = "prog" }), 0);
	for (; r->file; r++)
		ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
			.file_index = file_index(b, names, &n, r->file, ids),
			.first_page = r->first, .page_count = r->count,
			.first_access_ns = r->time, .flags = r->flags }), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	free(data);
	ura_pack_builder_free(b);
	return p;
}

static struct ura_pack *run_pack(int64_t created, const struct rg *r, const struct id *ids)
{
	return timed_run_pack(created, 1000, r, ids);
}

/* Merge @n packs into a parsed pack. */
static struct ura_pack *merge(struct ura_pack **in, size_t n, double c, unsigned keep,
			      struct merge_stats *st)
{
	struct merge_opts o = { .min_confidence = c, .keep_runs = keep };
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	void *data;
	size_t len;

	ck_assert_int_eq(merge_packs((const struct ura_pack *const *)in, n, &o, st, &b), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	free(data);
	ura_pack_builder_free(b);
	return p;
}

static void free_all(struct ura_pack **p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ura_pack_free(p[i]);
}

/* The range of file @name that starts at page @first, or -1. */
static long find(const struct ura_pack *p, const char *name, uint64_t first)
{
	for (size_t i = 0; i < ura_pack_range_count(p); i++) {
		struct ura_pack_range r;
		struct ura_pack_file f;

		ura_pack_get_range(p, i, &r);
		ura_pack_get_file(p, r.file_index, &f);
		if (strcmp(f.path, name) == 0 && r.first_page == first)
			return (long)i;
	}
	return -1;
}

static void expect(const struct ura_pack *p, const char *name, uint64_t first, uint32_t count,
		   uint64_t time, uint64_t mask, bool demanded)
{
	long i = find(p, name, first);
	struct ura_pack_range r;
	uint32_t support;
	uint64_t m;

	ck_assert_msg(i >= 0, "no range of %s at page %llu", name, (unsigned long long)first);
	ura_pack_get_range(p, (size_t)i, &r);
	ura_pack_get_range_support(p, (size_t)i, &support, &m);
	ck_assert_uint_eq(r.page_count, count);
	ck_assert_uint_eq(r.first_access_ns, time);
	ck_assert_uint_eq(m, mask);
	ck_assert_uint_eq(support, (uint32_t)__builtin_popcountll(mask));
	ck_assert_int_eq(!!(r.flags & DEM), demanded);
}

START_TEST(test_need)
{
	ck_assert_uint_eq(merge_need(0.6, 1), 1);
	ck_assert_uint_eq(merge_need(0.6, 2), 2);
	ck_assert_uint_eq(merge_need(0.6, 3), 2);
	ck_assert_uint_eq(merge_need(0.6, 5), 3);	/* 0.6 * 5 in binary is a hair over 3 */
	ck_assert_uint_eq(merge_need(0.5, 4), 2);
	ck_assert_uint_eq(merge_need(1.0, 7), 7);
	ck_assert_uint_eq(merge_need(0.01, 7), 1);
}
END_TEST

/* Ranges of different runs overlap partly: each page is judged on its own. */
START_TEST(test_confidence_per_page)
{
	struct ura_pack *in[3], *p;
	struct merge_stats st;

	in[0] = run_pack(100, (struct rg[]){ { "lib", 0, 10, 10, DEM }, { 0 } }, NULL);
	in[1] = run_pack(200, (struct rg[]){ { "lib", 5, 10, 20, DEM }, { 0 } }, NULL);
	in[2] = run_pack(300, (struct rg[]){ { "lib", 8, 4, 30, DEM }, { 0 } }, NULL);
	p = merge(in, 3, 0.6, 0, &st);
	ck_assert_uint_eq(ura_pack_runs(p), 3);
	ck_assert_uint_eq(st.need, 2);
	/* runs: bit 0 = created 300, bit 1 = 200, bit 2 = 100 */
	expect(p, "lib", 5, 3, 15, 0x6, true);		/* runs 100, 200: mean of 10 and 20 */
	expect(p, "lib", 8, 2, 20, 0x7, true);		/* all three: median 20 */
	expect(p, "lib", 10, 2, 25, 0x3, true);		/* runs 200, 300 */
	ck_assert_uint_eq(ura_pack_range_count(p), 3);	/* pages 0-4 and 12-14: one run each */
	ck_assert_uint_eq(st.bytes, 7 * 4096);
	ura_pack_free(p);

	p = merge(in, 3, 1.0, 0, NULL);
	ck_assert_uint_eq(ura_pack_range_count(p), 1);
	expect(p, "lib", 8, 2, 20, 0x7, true);
	ura_pack_free(p);
	free_all(in, 3);
}
END_TEST

/* The first access is the median over the runs that had the page. */
START_TEST(test_median_time)
{
	struct ura_pack *in[5], *p;
	static const uint64_t t[] = { 900, 100, 500, 300, 700 };

	for (int i = 0; i < 5; i++)
		in[i] = run_pack(i + 1, (struct rg[]){ { "f", 0, 1, t[i], DEM }, { 0 } }, NULL);
	p = merge(in, 5, 0.6, 0, NULL);
	expect(p, "f", 0, 1, 500, 0x1f, true);
	ura_pack_free(p);
	p = merge(in, 4, 0.6, 0, NULL);			/* 900 100 500 300: (300 + 500) / 2 */
	expect(p, "f", 0, 1, 400, 0xf, true);
	ura_pack_free(p);
	free_all(in, 5);
}
END_TEST

/* A one-run pack of @duration ns: files "c0".."c7" at @step x (1 .. 8), then the ranges of @r. */
static struct ura_pack *run_with_common(int64_t created, uint64_t duration, uint64_t step,
					const struct rg *r)
{
	static const char *const common[] = { "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7" };
	struct rg all[16];
	size_t n = 0;

	for (size_t k = 0; k < 8; k++)
		all[n++] = (struct rg){ common[k], 0, 1, step * (k + 1), DEM };
	for (; r->file && n < 15; r++)
		all[n++] = *r;
	all[n] = (struct rg){ 0 };
	return timed_run_pack(created, duration, all, NULL);
}

/* The first access of the range of file @name at page 0 in @p. */
static uint64_t time_of(const struct ura_pack *p, const char *name)
{
	long i = find(p, name, 0);
	struct ura_pack_range r;

	ck_assert_msg(i >= 0, "no range of %s", name);
	ura_pack_get_range(p, (size_t)i, &r);
	return r.first_access_ns;
}

/* Merge @b into @a (the learner's order: the pack so far, then the new run); frees both. */
static struct ura_pack *merge_into(struct ura_pack *a, struct ura_pack *b)
{
	struct ura_pack *in[2] = { a, b }, *p = merge(in, 2, 0.5, 0, NULL);

	ura_pack_free(a);
	ura_pack_free(b);
	return p;
}

/*
 * Runs of different speeds on one timeline: a cold start of 3 s, then two warm ones of 0.3 s,
 * merged one after the other as the learner does. The warm runs reach Q at 30 ms, P at 100 ms,
 * S at 200 ms and R at 250 ms; the cold run has Q, P and R at ten times those (S was read
 * under another page, unseen), and so the eight files all runs have. Without one timeline
 * the merge of the cold run and the first warm one put P at the mean of 1 s and 0.1 s, after S.
 */
START_TEST(test_one_timeline)
{
	static const char *const order[] = { "q", "p", "s", "r" };
	struct ura_pack *p;

	p = run_with_common(1, 3000000000ull, 100000000, (struct rg[]){
		{ "q", 0, 1, 300000000, DEM }, { "p", 0, 1, 1000000000, DEM },
		{ "r", 0, 1, 2500000000ull, DEM }, { 0 } });
	for (int w = 0; w < 2; w++)
		p = merge_into(p, run_with_common(2 + w, 300000000, 10000000, (struct rg[]){
			{ "q", 0, 1, 30000000, DEM }, { "p", 0, 1, 100000000, DEM },
			{ "s", 0, 1, 200000000, DEM }, { "r", 0, 1, 250000000, DEM }, { 0 } }));
	for (size_t k = 1; k < 4; k++)
		ck_assert_msg(time_of(p, order[k - 1]) < time_of(p, order[k]), "%s at %llu ns, %s at %llu ns",
			      order[k - 1], (unsigned long long)time_of(p, order[k - 1]), order[k],
			      (unsigned long long)time_of(p, order[k]));
	/* on the timeline of the fastest run, the warm ones' */
	ck_assert_uint_eq(time_of(p, "p"), 100000000);
	ck_assert_uint_eq(time_of(p, "s"), 200000000);
	ura_pack_free(p);
}
END_TEST

/*
 * Runs of other arguments: a program learned from two long runs (3 s) and run twice more for
 * a quick answer (25 ms). All four reach A, B, C and the eight common files at the same times;
 * only the long runs go on to D (1 s) and E (2 s). The quick runs' durations say nothing of
 * their speed: the order and the times stay as the runs have them.
 */
START_TEST(test_timeline_other_arguments)
{
	static const char *const order[] = { "a", "b", "c", "d", "e" };
	struct ura_pack *p;

	p = run_with_common(1, 3000000000ull, 1000000, (struct rg[]){
		{ "a", 0, 1, 5000000, DEM }, { "b", 0, 1, 10000000, DEM },
		{ "c", 0, 1, 20000000, DEM }, { "d", 0, 1, 1000000000, DEM },
		{ "e", 0, 1, 2000000000, DEM }, { 0 } });
	p = merge_into(p, run_with_common(2, 3000000000ull, 1000000, (struct rg[]){
		{ "a", 0, 1, 5000000, DEM }, { "b", 0, 1, 10000000, DEM },
		{ "c", 0, 1, 20000000, DEM }, { "d", 0, 1, 1000000000, DEM },
		{ "e", 0, 1, 2000000000, DEM }, { 0 } }));
	for (int q = 0; q < 2; q++)
		p = merge_into(p, run_with_common(3 + q, 25000000, 1000000, (struct rg[]){
			{ "a", 0, 1, 5000000, DEM }, { "b", 0, 1, 10000000, DEM },
			{ "c", 0, 1, 20000000, DEM }, { 0 } }));
	for (size_t k = 1; k < 5; k++)
		ck_assert_uint_lt(time_of(p, order[k - 1]), time_of(p, order[k]));
	ck_assert_uint_eq(time_of(p, "c"), 20000000);
	ck_assert_uint_eq(time_of(p, "d"), 1000000000);
	ura_pack_free(p);
}
END_TEST

/* A file each run reads on its own drops out; the shared one stays. */
START_TEST(test_private_files_drop)
{
	struct ura_pack *in[3], *p;
	struct merge_stats st;

	in[0] = run_pack(1, (struct rg[]){ { "shared", 0, 4, 1, DEM }, { "own-a", 0, 2, 2, DEM },
					   { 0 } }, NULL);
	in[1] = run_pack(2, (struct rg[]){ { "own-b", 0, 2, 1, DEM }, { "shared", 0, 4, 3, DEM },
					   { 0 } }, NULL);
	in[2] = run_pack(3, (struct rg[]){ { "shared", 0, 4, 5, DEM }, { "own-c", 0, 2, 2, DEM },
					   { 0 } }, NULL);
	p = merge(in, 3, 0.6, 0, &st);
	ck_assert_uint_eq(st.files_in, 4);
	ck_assert_uint_eq(st.files, 1);
	ck_assert_uint_eq(ura_pack_range_count(p), 1);
	expect(p, "shared", 0, 4, 3, 0x7, true);
	/* the own files stay as pending evidence only, one run each */
	ck_assert_uint_eq(st.pending_ranges, 3);
	ck_assert_uint_eq(ura_pack_pending_count(p), 3);
	for (size_t i = 0; i < 3; i++) {
		struct ura_pack_range r;
		uint32_t support;

		ck_assert_int_eq(ura_pack_get_pending(p, i, &r, &support, NULL), 0);
		ck_assert_uint_eq(support, 1);
		ck_assert_uint_eq(r.page_count, 2);
	}
	ura_pack_free(p);
	free_all(in, 3);
}
END_TEST

/*
 * Demanded when enough runs demanded it; a file whose content changed is not
 * averaged with its old self, and its identity is the newest run's.
 */
START_TEST(test_demanded_and_changed_file)
{
	static const struct id old[] = { { "bin", 4096 * 100, 1, 7 }, { NULL, 0, 0, 0 } };
	static const struct id new[] = { { "bin", 4096 * 120, 2, 8 }, { NULL, 0, 0, 0 } };
	struct ura_pack *in[3], *p;
	struct merge_stats st;
	struct ura_pack_file f;

	in[0] = run_pack(1, (struct rg[]){ { "bin", 0, 10, 1, DEM }, { "lib", 0, 2, 1, 0 },
					   { 0 } }, old);
	in[1] = run_pack(2, (struct rg[]){ { "bin", 0, 10, 1, DEM }, { "lib", 0, 2, 1, DEM },
					   { 0 } }, old);
	in[2] = run_pack(3, (struct rg[]){ { "bin", 50, 3, 9, DEM }, { "lib", 0, 2, 1, 0 },
					   { 0 } }, new);
	p = merge(in, 3, 0.6, 0, &st);
	ck_assert_uint_eq(st.files_changed, 1);
	/* old content's pages 0-9 are gone; the new run alone decides (need 1 of 1) */
	ck_assert_int_eq(find(p, "bin", 0), -1);
	expect(p, "bin", 50, 3, 9, 0x1, true);
	for (size_t i = 0; i < ura_pack_file_count(p); i++) {
		ura_pack_get_file(p, i, &f);
		if (strcmp(f.path, "bin") == 0) {
			ck_assert_uint_eq(f.size, 4096 * 120);
			ck_assert_uint_eq(f.generation, 8);
		}
	}
	/* lib: in all three runs, demanded in one: kept, speculative */
	expect(p, "lib", 0, 2, 1, 0x7, false);
	ura_pack_free(p);
	free_all(in, 3);
}
END_TEST

/* A merged pack merges again run by run; --keep-runs forgets the oldest runs by their masks. */
START_TEST(test_keep_runs)
{
	struct ura_pack *in[4], *m, *p, *two[2];
	struct merge_stats st;
	int64_t created;

	in[0] = run_pack(10, (struct rg[]){ { "f", 0, 1, 1, DEM }, { "old", 0, 1, 1, DEM },
					    { 0 } }, NULL);
	in[1] = run_pack(20, (struct rg[]){ { "f", 0, 1, 3, DEM }, { 0 } }, NULL);
	in[2] = run_pack(30, (struct rg[]){ { "f", 0, 1, 5, DEM }, { "g", 0, 1, 1, DEM },
					    { 0 } }, NULL);
	in[3] = run_pack(40, (struct rg[]){ { "f", 0, 1, 7, DEM }, { "g", 0, 1, 1, DEM },
					    { 0 } }, NULL);
	m = merge(in, 3, 0.3, 0, NULL);			/* need 1 of 3: everything */
	ck_assert_uint_eq(ura_pack_runs(m), 3);
	expect(m, "old", 0, 1, 1, 0x4, true);		/* the oldest run (bit 2) */
	expect(m, "f", 0, 1, 3, 0x7, true);

	two[0] = m;
	two[1] = in[3];
	p = merge(two, 2, 0.3, 3, &st);			/* add run 40, keep 3: run 10 forgotten */
	ck_assert_uint_eq(st.runs_in, 4);
	ck_assert_uint_eq(ura_pack_runs(p), 3);
	ck_assert_int_eq(ura_pack_get_run(p, 0, &created, NULL), 0);
	ck_assert_int_eq(created, 40);
	ck_assert_int_eq(ura_pack_get_run(p, 2, &created, NULL), 0);
	ck_assert_int_eq(created, 20);
	ck_assert_int_eq(find(p, "old", 0), -1);
	/* f: the merged pack's time (3) counts for its two runs still kept, 7 for the new one */
	expect(p, "f", 0, 1, 3, 0x7, true);
	expect(p, "g", 0, 1, 1, 0x3, true);
	ura_pack_free(p);

	p = merge(two, 2, 0.6, 0, NULL);		/* 4 runs: need 3 of 4 */
	ck_assert_uint_eq(ura_pack_runs(p), 4);
	ck_assert_int_eq(find(p, "g", 0), -1);		/* 2 of 4 */
	expect(p, "f", 0, 1, 3, 0xf, true);		/* 3 3 3 7: median 3 */
	ura_pack_free(p);
	ura_pack_free(m);
	free_all(in, 4);
}
END_TEST

START_TEST(test_metadata_and_info)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *in[3], *p;
	struct ura_pack_meta mt;
	struct ura_pack_info info;
	struct merge_opts bad = { .min_confidence = 0 };
	uint64_t mask;

	for (int i = 0; i < 3; i++) {
		struct ura_pack_builder *rb = NULL;
		void *data;
		size_t len;

		ck_assert_int_eq(ura_pack_builder_new(&rb), 0);
		/* the device number changes between boots; the filesystem is the same */
		ck_assert_int_eq(ura_pack_builder_add_fs(rb, &(struct ura_pack_fs){
			.mount_point = "/", .major = 8, .minor = (uint32_t)i }, NULL), 0);
		ck_assert_int_eq(ura_pack_builder_set_info(rb, &(struct ura_pack_info){
			.created_ns = i, .lost_events = 2, .command = i == 2 ? "newest" : "x" }), 0);
		ck_assert_int_eq(ura_pack_builder_add_meta(rb, &(struct ura_pack_meta){
			.fs_index = 0, .major = 8, .minor = (uint32_t)i, .offset = 4096 * (uint64_t)i,
			.length = 4096 * 4, .first_access_ns = 10 }), 0);
		ck_assert_int_eq(ura_pack_builder_serialize(rb, &data, &len), 0);
		ck_assert_int_eq(ura_pack_parse(data, len, &in[i]), 0);
		free(data);
		ura_pack_builder_free(rb);
	}
	p = merge(in, 3, 0.6, 0, NULL);
	/* pages 0 1 2 3 | 1 2 3 4 | 2 3 4 5: pages 1 to 4 in two runs or more */
	ck_assert_uint_eq(ura_pack_meta_count(p), 3);
	ck_assert_int_eq(ura_pack_get_meta(p, 0, &mt), 0);
	ck_assert_uint_eq(mt.offset, 4096);
	ck_assert_uint_eq(mt.length, 4096);
	ck_assert_uint_eq(mt.minor, 2);		/* the newest run's device */
	ura_pack_get_meta_support(p, 0, NULL, &mask);
	ck_assert_uint_eq(mask, 0x6);
	ck_assert_int_eq(ura_pack_get_meta(p, 1, &mt), 0);
	ck_assert_uint_eq(mt.offset, 2 * 4096);
	ck_assert_uint_eq(mt.length, 2 * 4096);
	ura_pack_get_info(p, &info);
	ck_assert_str_eq(info.command, "newest");
	ck_assert_int_eq(info.created_ns, 2);
	ck_assert_uint_eq(info.lost_events, 6);
	ura_pack_free(p);

	ck_assert_int_eq(merge_packs((const struct ura_pack *const *)in, 0, &bad, NULL, &b),
			 -EINVAL);
	ck_assert_int_eq(merge_packs((const struct ura_pack *const *)in, 3, &bad, NULL, &b),
			 -EINVAL);
	bad.min_confidence = 1.5;
	ck_assert_int_eq(merge_packs((const struct ura_pack *const *)in, 3, &bad, NULL, &b),
			 -EINVAL);
	bad = (struct merge_opts){ .min_confidence = 0.5, .keep_runs = 65 };
	ck_assert_int_eq(merge_packs((const struct ura_pack *const *)in, 3, &bad, NULL, &b),
			 -EINVAL);
	ck_assert_ptr_null(b);
	free_all(in, 3);
}
END_TEST

/*
 * A warm run reads no metadata from the device: it cannot tell which blocks a
 * cold start needs, so it does not vote on them. One cold run and three warm
 * ones keep the cold run's metadata; of two cold runs, the blocks both read.
 */
START_TEST(test_metadata_warm_runs)
{
	struct ura_pack *in[5], *p;
	struct ura_pack_meta mt;
	uint64_t mask;

	for (int i = 0; i < 5; i++) {
		struct ura_pack_builder *rb = NULL;
		void *data;
		size_t len;
		uint32_t fi;

		ck_assert_int_eq(ura_pack_builder_new(&rb), 0);
		ck_assert_int_eq(ura_pack_builder_add_fs(rb, &(struct ura_pack_fs){
			.mount_point = "/", .major = 8, .minor = 1 }, NULL), 0);
		ck_assert_int_eq(ura_pack_builder_set_info(rb, &(struct ura_pack_info){
			.created_ns = i, .command = "x" }), 0);
		ck_assert_int_eq(ura_pack_builder_add_file(rb, &(struct ura_pack_file){
			.path = "f", .size = 4096 * 8, .mtime_ns = 1 }, &fi), 0);
		ck_assert_int_eq(ura_pack_builder_add_range(rb, &(struct ura_pack_range){
			.file_index = fi, .first_page = 0, .page_count = 8, .flags = DEM }), 0);
		/* runs 0 and 4 cold: blocks 0-3 and 2-5; runs 1 to 3 warm */
		if (i == 0 || i == 4)
			ck_assert_int_eq(ura_pack_builder_add_meta(rb, &(struct ura_pack_meta){
				.fs_index = 0, .major = 8, .minor = 1, .offset = 4096 * (uint64_t)(i / 2),
				.length = 4096 * 4, .first_access_ns = 10 }), 0);
		ck_assert_int_eq(ura_pack_builder_serialize(rb, &data, &len), 0);
		ck_assert_int_eq(ura_pack_parse(data, len, &in[i]), 0);
		free(data);
		ura_pack_builder_free(rb);
	}
	/* the cold run and three warm ones, one at a time as the daemon merges them */
	p = merge(in, 1, 0.6, 0, NULL);
	for (int i = 1; i < 4; i++) {
		struct ura_pack *two[2] = { p, in[i] }, *q = merge(two, 2, 0.6, 0, NULL);

		ura_pack_free(p);
		p = q;
	}
	ck_assert_uint_eq(ura_pack_runs(p), 4);
	ck_assert_uint_eq(ura_pack_meta_count(p), 1);
	ck_assert_int_eq(ura_pack_get_meta(p, 0, &mt), 0);
	ck_assert_uint_eq(mt.offset, 0);
	ck_assert_uint_eq(mt.length, 4 * 4096);
	ura_pack_get_meta_support(p, 0, NULL, &mask);
	ck_assert_uint_eq(mask, 0x8);		/* run 0 is now the 4th newest */
	/* a second cold run: of 2 witnesses, the blocks both read (2 and 3) */
	{
		struct ura_pack *two[2] = { p, in[4] }, *q = merge(two, 2, 0.6, 0, NULL);

		ura_pack_free(p);
		p = q;
	}
	ck_assert_uint_eq(ura_pack_meta_count(p), 1);
	ck_assert_int_eq(ura_pack_get_meta(p, 0, &mt), 0);
	ck_assert_uint_eq(mt.offset, 2 * 4096);
	ck_assert_uint_eq(mt.length, 2 * 4096);
	ura_pack_get_meta_support(p, 0, NULL, &mask);
	ck_assert_uint_eq(mask, 0x11);
	ura_pack_free(p);
	free_all(in, 5);
}
END_TEST

/*
 * Every run's pack holds the metadata the layout says a cold start of its
 * files needs (blocks 10-11 here); a cold run also what it read besides (a
 * directory searched in vain). Warm runs, which have only the derived blocks,
 * do not vote on the others: one cold run and two warm ones keep the cold
 * run's blocks; of two cold runs that read different extras, at 0.6, only
 * what both read.
 */
START_TEST(test_metadata_derived_core)
{
	struct ura_pack *in[4], *p;
	struct ura_pack_meta mt;
	uint64_t mask;

	for (int i = 0; i < 4; i++) {
		struct ura_pack_builder *rb = NULL;
		void *data;
		size_t len;
		uint32_t fi;

		ck_assert_int_eq(ura_pack_builder_new(&rb), 0);
		ck_assert_int_eq(ura_pack_builder_add_fs(rb, &(struct ura_pack_fs){
			.mount_point = "/", .major = 8, .minor = 1 }, NULL), 0);
		ck_assert_int_eq(ura_pack_builder_set_info(rb, &(struct ura_pack_info){
			.created_ns = i, .command = "x" }), 0);
		ck_assert_int_eq(ura_pack_builder_add_file(rb, &(struct ura_pack_file){
			.path = "f", .size = 4096 * 8, .mtime_ns = 1 }, &fi), 0);
		ck_assert_int_eq(ura_pack_builder_add_range(rb, &(struct ura_pack_range){
			.file_index = fi, .first_page = 0, .page_count = 8, .flags = DEM }), 0);
		/* runs 0 and 3 cold: blocks 0-3 and 2-5 read besides; runs 1 and 2 warm */
		if (i == 0 || i == 3)
			ck_assert_int_eq(ura_pack_builder_add_meta(rb, &(struct ura_pack_meta){
				.fs_index = 0, .major = 8, .minor = 1, .offset = 4096 * (uint64_t)(i / 2 * 2),
				.length = 4096 * 4, .first_access_ns = 10 }), 0);
		ck_assert_int_eq(ura_pack_builder_add_meta(rb, &(struct ura_pack_meta){
			.fs_index = 0, .major = 8, .minor = 1, .offset = 4096 * 10,
			.length = 4096 * 2, .first_access_ns = 20 }), 0);
		ck_assert_int_eq(ura_pack_builder_serialize(rb, &data, &len), 0);
		ck_assert_int_eq(ura_pack_parse(data, len, &in[i]), 0);
		free(data);
		ura_pack_builder_free(rb);
	}
	/* the cold run, then the two warm ones, one at a time as the daemon merges them */
	p = merge(in, 1, 0.6, 0, NULL);
	for (int i = 1; i < 3; i++) {
		struct ura_pack *two[2] = { p, in[i] }, *q = merge(two, 2, 0.6, 0, NULL);

		ura_pack_free(p);
		p = q;
	}
	ck_assert_uint_eq(ura_pack_runs(p), 3);
	ck_assert_uint_eq(ura_pack_meta_count(p), 2);
	ck_assert_int_eq(ura_pack_get_meta(p, 0, &mt), 0);
	ck_assert_uint_eq(mt.offset, 0);
	ck_assert_uint_eq(mt.length, 4 * 4096);
	ura_pack_get_meta_support(p, 0, NULL, &mask);
	ck_assert_uint_eq(mask, 0x4);		/* run 0 is now the 3rd newest */
	ck_assert_int_eq(ura_pack_get_meta(p, 1, &mt), 0);
	ck_assert_uint_eq(mt.offset, 10 * 4096);
	ck_assert_uint_eq(mt.length, 2 * 4096);
	ura_pack_get_meta_support(p, 1, NULL, &mask);
	ck_assert_uint_eq(mask, 0x7);
	/* a second cold run: 2 witnesses, of the extras the blocks both read (2 and 3) */
	{
		struct ura_pack *two[2] = { p, in[3] }, *q = merge(two, 2, 0.6, 0, NULL);

		ura_pack_free(p);
		p = q;
	}
	ck_assert_uint_eq(ura_pack_meta_count(p), 2);
	ck_assert_int_eq(ura_pack_get_meta(p, 0, &mt), 0);
	ck_assert_uint_eq(mt.offset, 2 * 4096);
	ck_assert_uint_eq(mt.length, 2 * 4096);
	ura_pack_get_meta_support(p, 0, NULL, &mask);
	ck_assert_uint_eq(mask, 0x9);
	ck_assert_int_eq(ura_pack_get_meta(p, 1, &mt), 0);
	ck_assert_uint_eq(mt.offset, 10 * 4096);
	ura_pack_free(p);
	free_all(in, 4);
}
END_TEST

/* Access logs of different runs cannot be merged: the merged pack has none, nor their facts. */
START_TEST(test_access_log_dropped)
{
	struct ura_pack *in[2], *p;
	struct ura_pack_info info;
	struct ura_pack_ra_fs ra;

	for (int i = 0; i < 2; i++) {
		struct ura_pack_builder *b = NULL;
		void *data;
		size_t len;

		ck_assert_int_eq(ura_pack_builder_new(&b), 0);
		ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
			.mount_point = "/" }, NULL), 0);
		ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
			.path = "a", .size = 4096 * 100, .mtime_ns = 1 }, NULL), 0);
		ck_assert_int_eq(ura_pack_builder_set_info(b, &(struct ura_pack_info){
			.created_ns = i + 1, .flags = URA_PACK_INFO_ACCESS_TRUNCATED }), 0);
		ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
			.first_page = 0, .page_count = 4, .flags = DEM }), 0);
		ck_assert_int_eq(ura_pack_builder_add_access(b, &(struct ura_pack_access){
			.kind = URA_PACK_ACCESS_READ, .first = 0, .last = 3 }), 0);
		ck_assert_int_eq(ura_pack_builder_set_ra_fs(b, 0, &(struct ura_pack_ra_fs){
			.max_sectors_kb = 128, .fault_around_pages = 16 }), 0);
		ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
		ck_assert_int_eq(ura_pack_parse(data, len, &in[i]), 0);
		ck_assert_uint_eq(ura_pack_access_count(in[i]), 1);
		free(data);
		ura_pack_builder_free(b);
	}
	p = merge(in, 2, 0.6, 0, NULL);
	ck_assert_uint_eq(ura_pack_runs(p), 2);
	ck_assert_uint_eq(ura_pack_access_count(p), 0);
	ck_assert_int_eq(ura_pack_get_ra_fs(p, 0, &ra), -ENODATA);
	ura_pack_get_info(p, &info);
	ck_assert_uint_eq(info.flags & URA_PACK_INFO_ACCESS_TRUNCATED, 0);
	expect(p, "a", 0, 4, 0, 0x3, true);
	ura_pack_free(p);
	free_all(in, 2);
}
END_TEST

/* 64 runs at most: a 65th forgets the oldest. */
START_TEST(test_64_runs)
{
	struct ura_pack *in[65], *p;
	struct merge_stats st;

	for (int i = 0; i < 65; i++)
		in[i] = run_pack(i, (struct rg[]){ { "f", (uint64_t)i, 1, 1, DEM }, { 0 } },
				 NULL);
	p = merge(in, 65, 0.01, 0, &st);
	ck_assert_uint_eq(st.runs, 64);
	ck_assert_uint_eq(ura_pack_runs(p), 64);
	ck_assert_int_eq(find(p, "f", 0), -1);		/* run 0 is the oldest */
	ck_assert_uint_eq(ura_pack_range_count(p), 64);	/* a range per run: different runs */
	expect(p, "f", 1, 1, 1, UINT64_C(1) << 63, true);
	expect(p, "f", 64, 1, 1, 1, true);
	ura_pack_free(p);
	free_all(in, 65);
}
END_TEST

/* Kept pages as (file, page, run mask) strings, sorted: for comparing two packs. */
static char *kept_pages(const struct ura_pack *p)
{
	size_t cap = 1 << 16, len = 0;
	char *out = calloc(1, cap);

	for (uint64_t page = 0; page < 64; page++)
		for (size_t i = 0; i < ura_pack_range_count(p); i++) {
			struct ura_pack_range r;
			struct ura_pack_file f;
			uint64_t mask;

			ura_pack_get_range(p, i, &r);
			ura_pack_get_range_support(p, i, NULL, &mask);
			ura_pack_get_file(p, r.file_index, &f);
			if (page >= r.first_page && page < r.first_page + r.page_count)
				len += (size_t)snprintf(out + len, cap - len, "%s:%llu:%llx ", f.path,
							(unsigned long long)page,
							(unsigned long long)mask);
		}
	return out;
}

/*
 * Merging one run at a time into the merged pack keeps the same pages, with
 * the same runs, as merging all runs at once: pages below the threshold wait
 * as pending evidence instead of being forgotten.
 */
START_TEST(test_incremental_equals_batch)
{
	struct ura_pack *in[6], *batch, *acc, *two[2];
	char *a, *b;

	in[0] = run_pack(1, (struct rg[]){ { "f", 0, 8, 1, DEM }, { "g", 0, 2, 1, DEM },
					   { 0 } }, NULL);
	in[1] = run_pack(2, (struct rg[]){ { "f", 4, 8, 2, DEM }, { 0 } }, NULL);
	in[2] = run_pack(3, (struct rg[]){ { "f", 10, 8, 3, DEM }, { "g", 1, 2, 1, DEM },
					   { 0 } }, NULL);
	in[3] = run_pack(4, (struct rg[]){ { "f", 0, 2, 4, DEM }, { "h", 0, 1, 1, DEM },
					   { 0 } }, NULL);
	in[4] = run_pack(5, (struct rg[]){ { "f", 16, 8, 5, DEM }, { "g", 0, 3, 1, DEM },
					   { 0 } }, NULL);
	in[5] = run_pack(6, (struct rg[]){ { "f", 6, 12, 6, DEM }, { "h", 0, 1, 1, DEM },
					   { 0 } }, NULL);
	for (unsigned keep = 0; keep <= 4; keep += 4) {
		size_t first = keep ? 6 - keep : 0;

		batch = merge(&in[first], 6 - first, 0.5, 0, NULL);
		acc = merge(&in[0], 1, 0.5, keep, NULL);
		for (int i = 1; i < 6; i++) {
			two[0] = acc;
			two[1] = in[i];
			acc = merge(two, 2, 0.5, keep, NULL);
			ura_pack_free(two[0]);
		}
		ck_assert_uint_eq(ura_pack_runs(acc), keep ? keep : 6);
		a = kept_pages(batch);
		b = kept_pages(acc);
		ck_assert_str_ne(a, "");
		ck_assert_str_eq(a, b);
		free(a);
		free(b);
		ura_pack_free(batch);
		ura_pack_free(acc);
	}
	free_all(in, 6);
}
END_TEST

/*
 * A program learned a run at a time: its first run (cold) read pages ahead and used them by
 * no event the trace saw, its later runs (warm) used them. Merged one run after the other
 * (as the learning daemon does), the pages are demanded as a merge of all the runs at once
 * makes them; a page one run of three used stays speculative.
 */
START_TEST(test_demand_learned_run_by_run)
{
	struct ura_pack *in[5], *acc, *two[2], *batch;

	in[0] = run_pack(1, (struct rg[]){ { "bin", 0, 10, 1, 0 }, { "lib", 0, 4, 1, 0 },
					   { 0 } }, NULL);
	in[1] = run_pack(2, (struct rg[]){ { "bin", 0, 10, 1, DEM }, { "lib", 0, 4, 1, DEM },
					   { 0 } }, NULL);
	in[2] = run_pack(3, (struct rg[]){ { "bin", 0, 10, 1, DEM }, { "lib", 0, 4, 1, 0 },
					   { 0 } }, NULL);
	in[3] = run_pack(4, (struct rg[]){ { "bin", 0, 10, 1, DEM }, { 0 } }, NULL);
	in[4] = run_pack(5, (struct rg[]){ { "bin", 0, 10, 1, DEM }, { 0 } }, NULL);
	acc = merge(&in[0], 1, 0.6, 0, NULL);
	for (int i = 1; i < 5; i++) {
		two[0] = acc;
		two[1] = in[i];
		acc = merge(two, 2, 0.6, 0, NULL);
		ura_pack_free(two[0]);
		if (i == 2) {	/* three runs: bin used by two, lib by one */
			batch = merge(in, 3, 0.6, 0, NULL);
			expect(batch, "bin", 0, 10, 1, 0x7, true);
			expect(batch, "lib", 0, 4, 1, 0x7, false);
			expect(acc, "bin", 0, 10, 1, 0x7, true);
			expect(acc, "lib", 0, 4, 1, 0x7, false);
			ura_pack_free(batch);
		}
	}
	/* and every later run that uses it keeps it demanded */
	ck_assert_uint_eq(ura_pack_runs(acc), 5);
	expect(acc, "bin", 0, 10, 1, 0x1f, true);
	ura_pack_free(acc);
	free_all(in, 5);
}
END_TEST

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Run @k of a made-up program, as the learning daemon builds it: 2 filesystems
 * (one without a UUID), files some runs lack or see changed, ranges that may
 * overlap (the builder keeps each page once), metadata with and without a
 * filesystem. The same @seed and @k give the same builder.
 */
static struct ura_pack_builder *random_run(uint64_t seed, unsigned k)
{
	static const char *const mounts[] = { "/", "/usr" };
	struct ura_pack_builder *b = NULL;
	uint64_t s = seed * 7919 + k + 1;
	uint32_t files[12];
	size_t nf = 0;

	for (int i = 0; i < 4; i++)
		rnd(&s);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	for (uint32_t f = 0; f < 2; f++)
		ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
			.mount_point = mounts[f], .major = 8, .minor = f + k % 2, .fstype = "ext4",
			.flags = f ? 0 : URA_PACK_FS_HAS_UUID, .uuid = { 7, 7 } }, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_set_info(b, &(struct ura_pack_info){
		.created_ns = 1000 * (int64_t)(k / 2 + 1), .duration_ns = 500 + k, .lost_events = k,
		.flags = URA_PACK_INFO_COLD, .kernel_release = "6.18", .command = "prog" }), 0);
	for (unsigned f = 0; f < 12; f++) {
		char path[16];
		uint32_t idx;

		if (rnd(&s) % 5 == 0)
			continue;	/* this run did not read it */
		snprintf(path, sizeof(path), "lib/f%u", f);
		ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
			.fs_index = f % 2, .path = path, .ino = 100 + f, .size = 1 << 20,
			.mtime_ns = f == 3 && k >= 4 ? 2 : 1,	/* changed under the later runs */
			.flags = URA_PACK_FILE_HAS_GENERATION, .generation = f }, &idx), 0);
		files[nf++] = idx;
	}
	for (unsigned i = 0; nf && i < 60; i++)
		ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
			.file_index = files[rnd(&s) % nf], .first_page = rnd(&s) % 64,
			.page_count = 1 + (uint32_t)(rnd(&s) % 6), .first_access_ns = rnd(&s) % 1000,
			.flags = rnd(&s) % 3 ? URA_PACK_RANGE_DEMANDED : 0 }), 0);
	for (unsigned i = 0; i < 20; i++) {
		bool on_fs = rnd(&s) % 4;

		ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){
			.fs_index = on_fs ? 0 : URA_PACK_NO_INDEX, .major = on_fs ? 8 : 9,
			.minor = on_fs ? k % 2 : 0, .offset = rnd(&s) % 32 * URA_PACK_PAGE_SIZE,
			.length = (1 + rnd(&s) % 3) * URA_PACK_PAGE_SIZE,
			.first_access_ns = rnd(&s) % 1000 }), 0);
	}
	return b;
}

static struct ura_pack *parsed(struct ura_pack_builder *b)
{
	struct ura_pack *p = NULL;
	void *data;
	size_t len;

	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	free(data);
	return p;
}

/* @b serialised (and freed) equals @data of @len bytes, byte for byte. */
static void same_bytes(struct ura_pack_builder *b, const void *data, size_t len)
{
	void *mine;
	size_t n;

	ck_assert_int_eq(ura_pack_builder_serialize(b, &mine, &n), 0);
	ck_assert_uint_eq(n, len);
	ck_assert_mem_eq(mine, data, len);
	free(mine);
	ura_pack_builder_free(b);
}

/*
 * Merging builders (the learning daemon's runs) gives the pack, byte for byte,
 * that merging the packs they write gives: in one batch, and one run at a time
 * into the pack so far, itself a builder or parsed.
 */
START_TEST(test_builders_as_packs)
{
	enum { RUNS = 7 };
	static const double conf[] = { 0.6, 0.3, 1.0 };
	size_t pending = 0, changed = 0, kept = 0;

	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct merge_opts o = { .min_confidence = conf[seed % 3], .keep_runs = seed % 4 ? 0 : 5 };
		struct ura_pack_builder *bs[RUNS], *b = NULL, *acc = NULL;
		struct ura_pack *ps[RUNS], *old = NULL;
		struct merge_input in[RUNS] = { { 0 } };
		struct merge_stats sp, sb;
		void *want;
		size_t len;

		for (unsigned k = 0; k < RUNS; k++) {
			struct ura_pack_builder *w = random_run(seed, k);

			ps[k] = parsed(w);	/* serialising puts w's ranges in order: another copy */
			ura_pack_builder_free(w);
			bs[k] = random_run(seed, k);
			in[k].builder = bs[k];
		}
		ck_assert_int_eq(merge_packs((const struct ura_pack *const *)ps, RUNS, &o, &sp, &b), 0);
		ck_assert_int_eq(ura_pack_builder_serialize(b, &want, &len), 0);
		ura_pack_builder_free(b);
		ck_assert_int_eq(merge_inputs(in, RUNS, &o, &sb, &b), 0);
		ck_assert_mem_eq(&sp, &sb, sizeof(sp));
		same_bytes(b, want, len);
		free(want);

		/* one at a time: the pack so far parsed, each new run a builder, or both builders */
		ck_assert_int_eq(merge_inputs(in, 1, &o, NULL, &acc), 0);
		old = parsed(acc);
		for (unsigned k = 1; k < RUNS; k++) {
			const struct ura_pack *two[2] = { old, ps[k] };
			struct merge_input mixed[2] = { { .pack = old }, { .builder = bs[k] } };
			struct merge_input both[2] = { { .builder = acc }, { .builder = bs[k] } };
			struct ura_pack_builder *next = NULL;
			void *got;
			size_t n;

			ck_assert_int_eq(merge_packs(two, 2, &o, NULL, &b), 0);
			ck_assert_int_eq(ura_pack_builder_serialize(b, &want, &len), 0);
			ura_pack_builder_free(b);
			ck_assert_int_eq(merge_inputs(mixed, 2, &o, NULL, &b), 0);
			same_bytes(b, want, len);
			ck_assert_int_eq(merge_inputs(both, 2, &o, NULL, &next), 0);
			ck_assert_int_eq(ura_pack_builder_serialize(next, &got, &n), 0);
			ck_assert_uint_eq(n, len);
			ck_assert_mem_eq(got, want, len);
			free(got);
			free(want);
			ura_pack_builder_free(acc);
			acc = next;
			ura_pack_free(old);
			old = parsed(acc);
		}
		pending += sp.pending_ranges;
		changed += sp.files_changed;
		kept += sp.ranges && sp.meta_ranges;
		ura_pack_builder_free(acc);
		ura_pack_free(old);
		for (unsigned k = 0; k < RUNS; k++) {
			ura_pack_free(ps[k]);
			ura_pack_builder_free(bs[k]);
		}
	}
	/* the merges kept pages and metadata, left pages pending, saw changed files */
	ck_assert_uint_gt(kept, 6);
	ck_assert_uint_gt(pending, 0);
	ck_assert_uint_gt(changed, 0);
}
END_TEST

START_TEST(test_input_neither_or_both)
{
	struct ura_pack_builder *b = random_run(1, 0), *out = NULL;
	struct ura_pack *p = parsed(b);
	struct merge_opts o = { .min_confidence = 0.6 };

	ck_assert_int_eq(merge_inputs(&(struct merge_input){ 0 }, 1, &o, NULL, &out), -EINVAL);
	ck_assert_int_eq(merge_inputs(&(struct merge_input){ .pack = p, .builder = b }, 1, &o,
				      NULL, &out), -EINVAL);
	ck_assert_ptr_null(out);
	ura_pack_free(p);
	ura_pack_builder_free(b);
}
END_TEST

static Suite *pack_merge_suite(void)
{
	Suite *s = suite_create("pack-merge");
	TCase *tc = tcase_create("merge");

	tcase_add_test(tc, test_need);
	tcase_add_test(tc, test_confidence_per_page);
	tcase_add_test(tc, test_median_time);
	tcase_add_test(tc, test_one_timeline);
	tcase_add_test(tc, test_timeline_other_arguments);
	tcase_add_test(tc, test_private_files_drop);
	tcase_add_test(tc, test_demanded_and_changed_file);
	tcase_add_test(tc, test_keep_runs);
	tcase_add_test(tc, test_metadata_and_info);
	tcase_add_test(tc, test_metadata_warm_runs);
	tcase_add_test(tc, test_metadata_derived_core);
	tcase_add_test(tc, test_64_runs);
	tcase_add_test(tc, test_access_log_dropped);
	tcase_add_test(tc, test_incremental_equals_batch);
	tcase_add_test(tc, test_demand_learned_run_by_run);
	tcase_add_test(tc, test_builders_as_packs);
	tcase_add_test(tc, test_input_neither_or_both);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(pack_merge_suite)
