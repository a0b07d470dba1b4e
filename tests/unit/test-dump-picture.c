// SPDX-License-Identifier: GPL-2.0-or-later
/* The picture's layout: rows in first-access order, the long-tail rule, time bins, page maps */
#include <stdlib.h>

#include "dump-picture.h"
#include "sample-pack.h"
#include "unit.h"

static struct ura_pack *parse(struct ura_pack_builder *b)
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

static struct ura_pack_builder *builder(void)
{
	struct ura_pack_builder *b = NULL;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .major = 8, .minor = 1,
						 .mount_point = "/" }, NULL), 0);
	return b;
}

/* File @i, @pages pages from page 0, first read at @t. */
static void add_file(struct ura_pack_builder *b, uint32_t i, uint32_t pages, uint64_t t, bool dem)
{
	char path[32];
	uint32_t idx;

	snprintf(path, sizeof(path), "f%u", i);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){ .path = path,
						   .size = (uint64_t)pages * 4096 }, &idx), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = idx, .page_count = pages, .first_access_ns = t,
		.flags = dem ? URA_PACK_RANGE_DEMANDED : 0 }), 0);
}

START_TEST(test_sample_rows)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *pack;
	struct picture *p = NULL;
	struct dump_totals t;
	uint64_t bytes = 0, meta = 0;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	pack = parse(b);
	ck_assert_int_eq(picture_new(pack, 0, &p), 0);
	dump_totals(pack, &t);
	ck_assert_uint_eq(p->totals.bytes, t.bytes);
	/* two metadata devices by first access (8:1 at 5 ns, 7:3 at 6 ns), then four files */
	ck_assert_uint_eq(p->nrows, 6);
	ck_assert_uint_eq(p->file_rows, 4);
	ck_assert_ptr_null(p->more);
	ck_assert_int_eq(p->rows[0].kind, PICTURE_ROW_METADATA);
	ck_assert_uint_eq(p->rows[0].major, 8);
	ck_assert_uint_eq(p->rows[0].fs_index, 0);
	ck_assert_uint_eq(p->rows[1].major, 7);
	ck_assert_uint_eq(p->rows[1].fs_index, URA_PACK_NO_INDEX);
	for (size_t i = 0; i < p->nrows; i++) {
		const struct picture_row *r = &p->rows[i];

		if (r->kind == PICTURE_ROW_FILE) {
			ck_assert_uint_eq(r->rank, i - 2);
			ck_assert(!r->gap_before);
			bytes += r->bytes;
		} else {
			meta += r->bytes;
		}
	}
	ck_assert_uint_eq(bytes, t.bytes);
	ck_assert_uint_eq(meta, t.metadata_bytes);
	/* the weird name (first read at 10 ns) first; python3.11: 116 pages, 84 demanded */
	ck_assert_uint_eq(p->rows[2].file, 2);
	ck_assert_uint_eq(p->rows[2].first_ns, 10);
	ck_assert_uint_eq(p->rows[2].last_ns, 2000);
	ck_assert_uint_eq(p->rows[4].file, 0);
	ck_assert_uint_eq(p->rows[4].bytes, 116 * 4096);
	ck_assert_uint_eq(p->rows[4].demanded_bytes, 84 * 4096);
	ck_assert_uint_eq(p->rows[4].ranges, 3);
	/* axis: last access 3000 ns, steps of 500 */
	ck_assert_uint_eq(p->step_ns, 500);
	ck_assert_uint_eq(p->end_ns, 3000);
	picture_free(p);
	ura_pack_free(pack);
}
END_TEST

/* 20 files read in turn, file i with 1 page but files 15 (1000 pages) and 18 (500) */
START_TEST(test_long_tail)
{
	struct ura_pack_builder *b = builder();
	struct ura_pack *pack;
	struct picture *p = NULL;
	static const size_t want[] = { 0, 1, 2, 3, 15, 18 };

	for (uint32_t i = 0; i < 20; i++)
		add_file(b, i, i == 15 ? 1000 : i == 18 ? 500 : 1, 100 * i, true);
	pack = parse(b);
	ck_assert_int_eq(picture_new(pack, 6, &p), 0);
	ck_assert_uint_eq(p->file_rows, 6);
	ck_assert_uint_eq(p->nrows, 7);
	for (size_t i = 0; i < 6; i++) {
		ck_assert_int_eq(p->rows[i].kind, PICTURE_ROW_FILE);
		ck_assert_uint_eq(p->rows[i].rank, want[i]);
		ck_assert(p->rows[i].gap_before == (i == 4 || i == 5));
	}
	ck_assert_ptr_eq(p->more, &p->rows[6]);
	ck_assert_int_eq(p->more->kind, PICTURE_ROW_MORE);
	ck_assert_uint_eq(p->more->files, 14);
	ck_assert_uint_eq(p->more->bytes, 14 * 4096);
	ck_assert_uint_eq(p->more->first_ns, 400);
	ck_assert_uint_eq(p->more->last_ns, 1900);
	ck_assert_uint_eq(p->more->ncells, 14);
	picture_free(p);
	/* enough rows, or 0: every file, no MORE row */
	ck_assert_int_eq(picture_new(pack, 20, &p), 0);
	ck_assert_uint_eq(p->file_rows, 20);
	ck_assert_ptr_null(p->more);
	picture_free(p);
	ck_assert_int_eq(picture_new(pack, 0, &p), 0);
	ck_assert_uint_eq(p->file_rows, 20);
	picture_free(p);
	/* one row: the first file only */
	ck_assert_int_eq(picture_new(pack, 1, &p), 0);
	ck_assert_uint_eq(p->file_rows, 1);
	ck_assert_uint_eq(p->more->files, 19);
	picture_free(p);
	ura_pack_free(pack);
}
END_TEST

START_TEST(test_bins_and_map)
{
	struct ura_pack_builder *b = builder();
	struct ura_pack *pack;
	struct picture *p = NULL;
	const struct picture_row *r;
	uint32_t idx;

	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){ .path = "m",
						   .size = 160 * 4096 }, &idx), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = idx, .first_page = 0, .page_count = 10, .first_access_ns = 0,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = idx, .first_page = 80, .page_count = 10, .first_access_ns = 1000 }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = idx, .first_page = 100, .page_count = 4, .first_access_ns = 1000,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	pack = parse(b);
	ck_assert_int_eq(picture_new(pack, 0, &p), 0);
	ck_assert_uint_eq(p->end_ns, 1000);
	r = &p->rows[0];
	ck_assert_uint_eq(r->map_pages, 160);
	for (uint32_t i = 0; i < PICTURE_MAP_BINS; i++)
		ck_assert_uint_eq(r->map[i], i < 10 ? PICTURE_MAP_DEMANDED :
				  i >= 80 && i < 90 ? PICTURE_MAP_SPECULATIVE :
				  i >= 100 && i < 104 ? PICTURE_MAP_DEMANDED : 0);
	/* t = 0 in the first column, the end of the axis in the last, both kinds there */
	ck_assert_uint_eq(r->ncells, 2);
	ck_assert_uint_eq(r->cells[0].bin, 0);
	ck_assert_uint_eq(r->cells[0].pages[0], 10);
	ck_assert_uint_eq(r->cells[1].bin, PICTURE_TIME_BINS - 1);
	ck_assert_uint_eq(r->cells[1].pages[0], 4);
	ck_assert_uint_eq(r->cells[1].pages[1], 10);
	ck_assert_uint_eq(picture_bin(500, 1000, 360), 180);
	ck_assert_uint_eq(picture_bin(UINT64_MAX, 1000, 360), 359);
	ck_assert_uint_eq(picture_bin(5, 0, 360), 359);
	picture_free(p);
	ura_pack_free(pack);
}
END_TEST

/* Support of a merged pack: 3 runs, pages 0-9 seen by 2, pages 20-21 by 3 */
START_TEST(test_support)
{
	struct ura_pack_builder *b = builder();
	struct ura_pack *pack;
	struct picture *p = NULL;
	uint32_t idx;

	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){ .path = "a",
						   .size = 1 << 20 }, &idx), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 3000, 30), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 2000, 20), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 1000, 10), 0);
	ck_assert_int_eq(ura_pack_builder_add_range_runs(b, &(struct ura_pack_range){
		.file_index = idx, .page_count = 10, .first_access_ns = 5,
		.flags = URA_PACK_RANGE_DEMANDED }, 0x5), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = idx, .first_page = 20, .page_count = 2, .first_access_ns = 5,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	pack = parse(b);
	ck_assert_int_eq(picture_new(pack, 0, &p), 0);
	ck_assert_uint_eq(p->runs, 3);
	ck_assert_uint_eq(p->rows[0].support_min, 2);
	ck_assert_uint_eq(p->rows[0].support_max, 3);
	ck_assert_uint_eq(p->rows[0].ncells, 1);
	/* (10 x 2 + 2 x 3) / 12 = 2.17: support 2 */
	ck_assert_uint_eq(p->rows[0].cells[0].support[0], 2);
	picture_free(p);
	ura_pack_free(pack);
}
END_TEST

/* Ten metadata devices: seven rows of their own, the eighth sums three, without a page map */
START_TEST(test_metadata_devices)
{
	struct ura_pack_builder *b = builder();
	struct ura_pack *pack;
	struct picture *p = NULL;

	for (uint32_t d = 0; d < 10; d++)
		for (uint32_t k = 0; k < 2; k++)
			ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){
				.fs_index = URA_PACK_NO_INDEX, .major = 100 - d, .minor = d,
				.offset = 4096 * k, .length = 4096,
				.first_access_ns = 10 * d + k }), 0);
	pack = parse(b);
	ck_assert_int_eq(picture_new(pack, 0, &p), 0);
	ck_assert_uint_eq(p->nrows, 8);
	for (uint32_t d = 0; d < 8; d++) {
		ck_assert_uint_eq(p->rows[d].major, 100 - d);
		ck_assert_uint_eq(p->rows[d].files, d < 7 ? 1 : 3);
		ck_assert_uint_eq(p->rows[d].ranges, d < 7 ? 2 : 6);
		ck_assert_uint_eq(p->rows[d].map_pages, d < 7 ? 2 : 0);
	}
	ck_assert_uint_eq(p->rows[0].map[0], PICTURE_MAP_DEMANDED);
	ck_assert_uint_eq(p->rows[0].map[PICTURE_MAP_BINS - 1], PICTURE_MAP_DEMANDED);
	picture_free(p);
	ura_pack_free(pack);
}
END_TEST

static Suite *dump_picture_suite(void)
{
	Suite *s = suite_create("dump-picture");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, test_sample_rows);
	tcase_add_test(tc, test_long_tail);
	tcase_add_test(tc, test_bins_and_map);
	tcase_add_test(tc, test_support);
	tcase_add_test(tc, test_metadata_devices);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(dump_picture_suite)
