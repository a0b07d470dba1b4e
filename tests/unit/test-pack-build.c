// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/lib/pack-build.c (overlapping ranges, reasons) and src/lib/pack-index.c */
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
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(pack_build_suite)
