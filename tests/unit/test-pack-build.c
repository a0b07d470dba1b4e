// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/lib/pack-build.c (overlapping ranges, reasons, reading back) and src/lib/pack-index.c */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ura/pack.h"
#include "unit.h"

/* A builder with filesystem 0 ("/") and files "a" (inode 10), "b" (11), "c" (10 again). */
static struct ura_pack_builder *three_files(void)
{
	struct ura_pack_builder *b = NULL;
	static const char *const names[] = { "a", "b", "c" };
	static const uint64_t inodes[] = { 10, 11, 10 };

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .mount_point = "/" },
						 NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .mount_point = "/x" },
						 NULL), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
			.fs_index = 0, .path = names[i], .ino = inodes[i] }, NULL), 0);
	return b;
}

static void add(struct ura_pack_builder *b, uint32_t file, uint64_t first, uint32_t count,
		uint64_t t, bool demanded)
{
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = file, .first_page = first, .page_count = count,
		.first_access_ns = t, .flags = demanded ? URA_PACK_RANGE_DEMANDED : 0 }), 0);
}

static struct ura_pack *build(struct ura_pack_builder *b)
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

static void expect(const struct ura_pack *p, size_t i, uint32_t file, uint64_t first,
		   uint32_t count, uint64_t t, bool demanded)
{
	struct ura_pack_range r;

	ck_assert_int_eq(ura_pack_get_range(p, i, &r), 0);
	ck_assert_uint_eq(r.file_index, file);
	ck_assert_uint_eq(r.first_page, first);
	ck_assert_uint_eq(r.page_count, count);
	ck_assert_uint_eq(r.first_access_ns, t);
	ck_assert_int_eq(!!(r.flags & URA_PACK_RANGE_DEMANDED), demanded);
}

START_TEST(test_disjoint_ranges_kept)
{
	struct ura_pack_builder *b = three_files();
	struct ura_pack *p;

	add(b, 0, 4, 4, 20, true);
	add(b, 0, 0, 4, 30, false);	/* adjacent, not overlapping: both stay */
	add(b, 1, 0, 8, 10, true);
	p = build(b);
	ck_assert_uint_eq(ura_pack_range_count(p), 3);
	expect(p, 0, 1, 0, 8, 10, true);
	expect(p, 1, 0, 4, 4, 20, true);
	expect(p, 2, 0, 0, 4, 30, false);
	ura_pack_free(p);
}
END_TEST

START_TEST(test_duplicates_dropped)
{
	struct ura_pack_builder *b = three_files();
	struct ura_pack *p;

	add(b, 0, 0, 8, 50, true);
	add(b, 0, 0, 8, 50, true);
	add(b, 0, 0, 8, 50, true);
	p = build(b);
	ck_assert_uint_eq(ura_pack_range_count(p), 1);
	expect(p, 0, 0, 0, 8, 50, true);
	ura_pack_free(p);
}
END_TEST

START_TEST(test_overlaps_earliest_wins)
{
	struct ura_pack_builder *b = three_files();
	struct ura_pack *p;

	/* pages 0-9 read at 100 (speculative); 4-5 first used at 40; 8-15 used at 200 */
	add(b, 0, 0, 10, 100, false);
	add(b, 0, 4, 2, 40, true);
	add(b, 0, 8, 8, 200, true);
	p = build(b);
	ck_assert_uint_eq(ura_pack_range_count(p), 5);
	expect(p, 0, 0, 4, 2, 40, true);
	expect(p, 1, 0, 0, 4, 100, false);
	expect(p, 2, 0, 6, 2, 100, false);
	expect(p, 3, 0, 8, 2, 100, true);	/* read at 100 with 0-9, demanded as part of 8-15 */
	expect(p, 4, 0, 10, 6, 200, true);
	ura_pack_free(p);
}
END_TEST

START_TEST(test_overlap_keeps_later_tail)
{
	struct ura_pack_builder *b = three_files();
	struct ura_pack *p;

	add(b, 2, 0, 4, 5, false);
	add(b, 2, 2, 6, 9, false);
	p = build(b);
	ck_assert_uint_eq(ura_pack_range_count(p), 2);
	expect(p, 0, 2, 0, 4, 5, false);
	expect(p, 1, 2, 4, 4, 9, false);
	ura_pack_free(p);
}
END_TEST

START_TEST(test_builder_reasons)
{
	struct ura_pack_builder *b = three_files();

	ck_assert_str_eq(ura_pack_builder_error(b), "no error");
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = 0, .page_count = 0 }), -EINVAL);
	ck_assert_str_eq(ura_pack_builder_error(b), "range without pages");
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = 7, .page_count = 1 }), -EINVAL);
	ck_assert_ptr_nonnull(strstr(ura_pack_builder_error(b), "unknown file"));
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.fs_index = 0, .path = "a/../b" }, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(ura_pack_builder_error(b), "normalised"));
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.mount_point = "relative" }, NULL), -EINVAL);
	ck_assert_str_eq(ura_pack_builder_error(b), "mount point not absolute");
	ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){
		.fs_index = URA_PACK_NO_INDEX, .offset = 100, .length = 4096 }), -EINVAL);
	ck_assert_str_eq(ura_pack_builder_error(b), "metadata range not page aligned");
	ck_assert_str_eq(ura_pack_builder_error(NULL), "no error");
	ura_pack_builder_free(b);
}
END_TEST

START_TEST(test_index)
{
	struct ura_pack_builder *b = three_files();
	struct ura_pack_index *x = NULL;
	struct ura_pack_range r;
	const uint32_t *idx;
	struct ura_pack *p;
	size_t n, f;

	add(b, 1, 50, 1, 5, true);	/* b first */
	add(b, 0, 30, 2, 10, true);
	add(b, 0, 10, 2, 20, false);
	add(b, 0, 20, 2, 15, true);
	p = build(b);
	ck_assert_int_eq(ura_pack_index_new(p, 0, &x), 0);

	ck_assert_int_eq(ura_pack_index_file_ranges(x, 0, &idx, &n), 0);
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(ura_pack_get_range(p, idx[i], &r), 0);
		ck_assert_uint_eq(r.file_index, 0);
		ck_assert_uint_eq(r.first_page, 10 * (i + 1));	/* page order */
	}
	ck_assert_int_eq(ura_pack_index_file_ranges(x, 2, &idx, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(ura_pack_index_file_ranges(x, 3, &idx, &n), -ERANGE);

	ck_assert_int_eq(ura_pack_index_files(x, &idx, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(idx[0], 1);
	ck_assert_uint_eq(idx[1], 0);
	ck_assert_uint_eq(idx[2], 2);	/* no ranges: last */

	ck_assert_int_eq(ura_pack_index_find_inode(x, 0, 10, &f), 0);
	ck_assert_uint_eq(f, 0);	/* the lowest of "a" and "c" */
	ck_assert_int_eq(ura_pack_index_find_inode(x, 0, 11, &f), 0);
	ck_assert_uint_eq(f, 1);
	ck_assert_int_eq(ura_pack_index_find_inode(x, 1, 10, &f), -ENOENT);
	ck_assert_int_eq(ura_pack_index_find_inode(x, 0, 12, &f), -ENOENT);
	ck_assert_int_eq(ura_pack_index_find_path(x, 0, "c", &f), 0);
	ck_assert_uint_eq(f, 2);
	ck_assert_int_eq(ura_pack_index_find_path(x, 0, "d", &f), -ENOENT);
	ck_assert_int_eq(ura_pack_index_find_path(x, 1, "a", &f), -ENOENT);
	ura_pack_index_free(x);
	ura_pack_index_free(NULL);

	/* only the tables asked for */
	ck_assert_int_eq(ura_pack_index_new(p, 1u << 7, &x), -EINVAL);
	ck_assert_int_eq(ura_pack_index_new(p, URA_PACK_INDEX_INODES, &x), 0);
	ck_assert_int_eq(ura_pack_index_find_inode(x, 0, 11, &f), 0);
	ck_assert_uint_eq(f, 1);
	ck_assert_int_eq(ura_pack_index_find_path(x, 0, "b", &f), -ENODATA);
	ck_assert_int_eq(ura_pack_index_file_ranges(x, 0, &idx, &n), -ENODATA);
	ck_assert_int_eq(ura_pack_index_files(x, &idx, &n), -ENODATA);
	ura_pack_index_free(x);
	ura_pack_free(p);
}
END_TEST

/* Field by field: struct ura_pack_range and _meta have padding. */
static void same_range(const struct ura_pack_range *x, const struct ura_pack_range *y)
{
	ck_assert_uint_eq(x->file_index, y->file_index);
	ck_assert_uint_eq(x->flags, y->flags);
	ck_assert_uint_eq(x->first_page, y->first_page);
	ck_assert_uint_eq(x->page_count, y->page_count);
	ck_assert_uint_eq(x->first_access_ns, y->first_access_ns);
}

static void same_meta(const struct ura_pack_meta *x, const struct ura_pack_meta *y)
{
	ck_assert_uint_eq(x->fs_index, y->fs_index);
	ck_assert_uint_eq(x->major, y->major);
	ck_assert_uint_eq(x->minor, y->minor);
	ck_assert_uint_eq(x->offset, y->offset);
	ck_assert_uint_eq(x->length, y->length);
	ck_assert_uint_eq(x->first_access_ns, y->first_access_ns);
}

/* Every reader of @b gives what the reader of the pack @b writes gives. */
static void same_as_written(struct ura_pack_builder *b)
{
	struct ura_pack *p = NULL;
	void *data = NULL;
	size_t len;

	ck_assert_int_eq(ura_pack_builder_normalize(b), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	free(data);
	ck_assert_uint_eq(ura_pack_builder_fs_count(b), ura_pack_fs_count(p));
	for (size_t i = 0; i < ura_pack_fs_count(p); i++) {
		struct ura_pack_fs x, y;

		ck_assert_int_eq(ura_pack_builder_get_fs(b, i, &x), 0);
		ck_assert_int_eq(ura_pack_get_fs(p, i, &y), 0);
		ck_assert_str_eq(x.mount_point, y.mount_point);
		ck_assert_str_eq(x.fstype, y.fstype);
		ck_assert_str_eq(x.source, y.source);
		x.mount_point = x.fstype = x.source = y.mount_point = y.fstype = y.source = NULL;
		ck_assert_mem_eq(&x, &y, sizeof(x));
	}
	ck_assert_uint_eq(ura_pack_builder_file_count(b), ura_pack_file_count(p));
	for (size_t i = 0; i < ura_pack_file_count(p); i++) {
		struct ura_pack_file x, y;

		ck_assert_int_eq(ura_pack_builder_get_file(b, i, &x), 0);
		ck_assert_int_eq(ura_pack_get_file(p, i, &y), 0);
		ck_assert_str_eq(x.path, y.path);
		x.path = y.path = NULL;
		ck_assert_mem_eq(&x, &y, sizeof(x));
	}
	ck_assert_uint_eq(ura_pack_builder_range_count(b), ura_pack_range_count(p));
	for (size_t i = 0; i < ura_pack_range_count(p); i++) {
		struct ura_pack_range x, y;
		uint64_t mx, my;
		uint32_t sx, sy;

		ck_assert_int_eq(ura_pack_builder_get_range(b, i, &x), 0);
		ck_assert_int_eq(ura_pack_get_range(p, i, &y), 0);
		same_range(&x, &y);
		ck_assert_int_eq(ura_pack_builder_get_range_support(b, i, &sx, &mx), 0);
		ck_assert_int_eq(ura_pack_get_range_support(p, i, &sy, &my), 0);
		ck_assert_uint_eq(sx, sy);
		ck_assert_uint_eq(mx, my);
	}
	ck_assert_uint_eq(ura_pack_builder_meta_count(b), ura_pack_meta_count(p));
	for (size_t i = 0; i < ura_pack_meta_count(p); i++) {
		struct ura_pack_meta x, y;
		uint64_t mx, my;
		uint32_t sx, sy;

		ck_assert_int_eq(ura_pack_builder_get_meta(b, i, &x), 0);
		ck_assert_int_eq(ura_pack_get_meta(p, i, &y), 0);
		same_meta(&x, &y);
		ck_assert_int_eq(ura_pack_builder_get_meta_support(b, i, &sx, &mx), 0);
		ck_assert_int_eq(ura_pack_get_meta_support(p, i, &sy, &my), 0);
		ck_assert_uint_eq(sx, sy);
		ck_assert_uint_eq(mx, my);
	}
	ck_assert_uint_eq(ura_pack_builder_pending_count(b), ura_pack_pending_count(p));
	for (size_t i = 0; i < ura_pack_pending_count(p); i++) {
		struct ura_pack_range x, y;
		uint64_t mx, my;
		uint32_t sx, sy;

		ck_assert_int_eq(ura_pack_builder_get_pending(b, i, &x, &sx, &mx), 0);
		ck_assert_int_eq(ura_pack_get_pending(p, i, &y, &sy, &my), 0);
		same_range(&x, &y);
		ck_assert_uint_eq(sx, sy);
		ck_assert_uint_eq(mx, my);
	}
	ck_assert_uint_eq(ura_pack_builder_runs(b), ura_pack_runs(p));
	for (size_t i = 0; i < ura_pack_runs(p); i++) {
		int64_t cx, cy;
		uint64_t dx, dy;

		ck_assert_int_eq(ura_pack_builder_get_run(b, i, &cx, &dx), 0);
		ck_assert_int_eq(ura_pack_get_run(p, i, &cy, &dy), 0);
		ck_assert_int_eq(cx, cy);
		ck_assert_uint_eq(dx, dy);
	}
	{
		struct ura_pack_info x, y;

		ura_pack_builder_get_info(b, &x);
		ura_pack_get_info(p, &y);
		ck_assert_str_eq(x.kernel_release, y.kernel_release);
		ck_assert_str_eq(x.command, y.command);
		x.kernel_release = x.command = y.kernel_release = y.command = NULL;
		ck_assert_mem_eq(&x, &y, sizeof(x));
	}
	/* past the end, as the pack's readers */
	{
		size_t n = ura_pack_builder_runs(b);
		struct ura_pack_range rg;
		struct ura_pack_fs fs;

		ck_assert_int_eq(ura_pack_builder_get_fs(b, ura_pack_fs_count(p), &fs), -ERANGE);
		ck_assert_int_eq(ura_pack_builder_get_range(b, ura_pack_range_count(p), &rg), -ERANGE);
		ck_assert_int_eq(ura_pack_builder_get_range_support(b, ura_pack_range_count(p), NULL,
								    NULL), -ERANGE);
		ck_assert_int_eq(ura_pack_builder_get_pending(b, ura_pack_pending_count(p), &rg, NULL,
							      NULL), -ERANGE);
		ck_assert_int_eq(ura_pack_builder_get_run(b, n, NULL, NULL), -ERANGE);
	}
	ura_pack_free(p);
	ura_pack_builder_free(b);
}

START_TEST(test_read_back_one_run)
{
	struct ura_pack_builder *b = three_files();
	struct ura_pack_range rg;

	ck_assert_int_eq(ura_pack_builder_set_info(b, &(struct ura_pack_info){
		.created_ns = 1234, .duration_ns = 99, .lost_events = 3, .flags = 4,
		.read_ahead_kb = 128, .kernel_release = "6.18", .command = "cat x" }), 0);
	add(b, 0, 0, 10, 500, true);
	add(b, 0, 5, 10, 100, false);	/* overlaps: read back once, as stored */
	add(b, 1, 0, 1, 50, true);
	ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){
		.fs_index = 0, .major = 8, .minor = 1, .offset = 4096, .length = 8192,
		.first_access_ns = 7 }), 0);
	/* before ura_pack_builder_normalize(): as added */
	ck_assert_uint_eq(ura_pack_builder_range_count(b), 3);
	ck_assert_int_eq(ura_pack_builder_get_range(b, 0, &rg), 0);
	ck_assert_uint_eq(rg.first_access_ns, 500);
	same_as_written(b);
}
END_TEST

START_TEST(test_read_back_merged)
{
	struct ura_pack_builder *b = three_files();

	ck_assert_int_eq(ura_pack_builder_add_run(b, 300, 10), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 200, 20), 0);
	add(b, 0, 0, 4, 40, true);		/* every run, and the third added below */
	ck_assert_int_eq(ura_pack_builder_add_run(b, 100, 30), 0);
	ck_assert_int_eq(ura_pack_builder_add_range_runs(b, &(struct ura_pack_range){
		.file_index = 2, .first_page = 9, .page_count = 1, .first_access_ns = 5 }, 6), 0);
	ck_assert_int_eq(ura_pack_builder_add_pending(b, &(struct ura_pack_range){
		.file_index = 1, .first_page = 3, .page_count = 2, .first_access_ns = 8,
		.flags = URA_PACK_RANGE_DEMANDED }, 4), 0);
	ck_assert_int_eq(ura_pack_builder_add_meta_runs(b, &(struct ura_pack_meta){
		.fs_index = URA_PACK_NO_INDEX, .major = 8, .minor = 2, .offset = 0,
		.length = 4096, .first_access_ns = 1 }, 3), 0);
	ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){
		.fs_index = 1, .major = 8, .minor = 3, .offset = 4096, .length = 4096 }), 0);
	same_as_written(b);
}
END_TEST

START_TEST(test_read_back_empty)
{
	struct ura_pack_builder *b = NULL;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	same_as_written(b);
}
END_TEST

static Suite *pack_build_suite(void)
{
	Suite *s = suite_create("pack-build");
	TCase *tc = tcase_create("ranges");

	tcase_add_test(tc, test_disjoint_ranges_kept);
	tcase_add_test(tc, test_duplicates_dropped);
	tcase_add_test(tc, test_overlaps_earliest_wins);
	tcase_add_test(tc, test_overlap_keeps_later_tail);
	tcase_add_test(tc, test_builder_reasons);
	tcase_add_test(tc, test_index);
	tcase_add_test(tc, test_read_back_one_run);
	tcase_add_test(tc, test_read_back_merged);
	tcase_add_test(tc, test_read_back_empty);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(pack_build_suite)
