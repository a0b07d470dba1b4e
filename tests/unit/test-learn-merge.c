// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/trace/learn-merge.c: new runs merged as built, as if written and read */
#include <stdlib.h>
#include <string.h>

#include "learn-merge.h"
#include "merge.h"
#include "unit.h"

/* A learned run at @created: file "a" pages [0, 4) and [k, k + 4), "b" [0, 2) for even @k. */
static struct ura_pack_builder *run(int64_t created, unsigned k)
{
	struct ura_pack_builder *b = NULL;
	uint32_t a, bb;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .mount_point = "/",
						 .major = 8, .minor = 1 }, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_set_info(b, &(struct ura_pack_info){
		.created_ns = created, .duration_ns = 10, .command = "prog" }), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){ .path = "a",
						   .size = 1 << 20, .mtime_ns = 1 }, &a), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = a, .first_page = k, .page_count = 4, .first_access_ns = 30 + k,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = a, .first_page = 0, .page_count = 4, .first_access_ns = 20 }), 0);
	if (k % 2 == 0) {
		ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
			.path = "b", .size = 1 << 20, .mtime_ns = 1 }, &bb), 0);
		ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
			.file_index = bb, .first_page = 0, .page_count = 2, .first_access_ns = 5 }),
			0);
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
	ura_pack_builder_free(b);
	return p;
}

/* The pack learned from the pack so far and two new runs is the merge of the packs written. */
START_TEST(test_runs_as_written)
{
	struct learn_merge_opts lo = { 0 };
	struct merge_opts mo = { .min_confidence = MERGE_DEFAULT_CONFIDENCE };
	struct ura_pack_builder *first = run(100, 0), *runs[2], *got = NULL, *want = NULL;
	struct ura_pack *old = NULL, *in[3];
	struct merge_stats st;
	void *a, *b;
	size_t na, nb;

	/* the first run is the pack, as built */
	ck_assert_int_eq(learn_merge(NULL, first, &lo, &got), 0);
	ck_assert_ptr_eq(got, first);
	old = parsed(got);
	runs[0] = run(200, 1);
	runs[1] = run(300, 2);
	in[0] = old;
	in[1] = parsed(run(200, 1));
	in[2] = parsed(run(300, 2));
	ck_assert_int_eq(learn_merge_runs(old, runs, 2, &lo, &st, &got), 0);
	ck_assert_uint_eq(st.runs, 3);
	ck_assert_int_eq(merge_packs((const struct ura_pack *const *)in, 3, &mo, NULL, &want), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(got, &a, &na), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(want, &b, &nb), 0);
	ck_assert_uint_eq(na, nb);
	ck_assert_mem_eq(a, b, na);
	free(a);
	free(b);
	ura_pack_builder_free(got);
	ura_pack_builder_free(want);
	for (int i = 0; i < 3; i++)
		ura_pack_free(in[i]);
}
END_TEST

static Suite *learn_merge_suite(void)
{
	Suite *s = suite_create("learn-merge");
	TCase *tc = tcase_create("merge");

	tcase_add_test(tc, test_runs_as_written);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(learn_merge_suite)
