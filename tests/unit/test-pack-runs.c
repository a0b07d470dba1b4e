// SPDX-License-Identifier: GPL-2.0-or-later
/* Tests of format 1.1: the run table and range support of merged packs, and 1.0 compatibility */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "pack-internal.h"
#include "sample-pack.h"
#include "unit.h"

static void fix_crc(uint8_t *d, size_t len)
{
	put_le32(d + HDR_CRC, 0);
	put_le32(d + HDR_CRC, crc32c(0, d, len));
}

static uint8_t *section_entry(uint8_t *d, uint32_t type)
{
	uint64_t secoff = get_le64(d + HDR_SECTIONS_OFF);

	for (uint32_t i = 0; i < get_le32(d + HDR_NSECTIONS); i++) {
		uint8_t *e = d + secoff + i * SEC_ENT_SIZE;

		if (get_le32(e + SEC_TYPE) == type)
			return e;
	}
	return NULL;
}

/*
 * Three runs (run 0 newest); file 0 has pages 0-9 seen by runs 0 and 2 and
 * pages 20-21 by all; one metadata range seen by run 1.
 */
static void merged_sample(uint8_t **data, size_t *len)
{
	struct ura_pack_builder *b = NULL;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .mount_point = "/" },
						 NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){ .path = "a" },
						   NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 3000, 30), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 2000, 20), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 1000, 10), 0);
	ck_assert_int_eq(ura_pack_builder_add_range_runs(b, &(struct ura_pack_range){
		.first_page = 0, .page_count = 10, .first_access_ns = 5 }, 0x5), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.first_page = 20, .page_count = 2, .first_access_ns = 1,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	ck_assert_int_eq(ura_pack_builder_add_meta_runs(b, &(struct ura_pack_meta){
		.fs_index = 0, .offset = 4096, .length = 8192, .first_access_ns = 2 }, 0x2), 0);
	ck_assert_int_eq(ura_pack_builder_add_pending(b, &(struct ura_pack_range){
		.first_page = 40, .page_count = 3, .first_access_ns = 7,
		.flags = URA_PACK_RANGE_DEMANDED }, 0x4), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, (void **)data, len), 0);
	ura_pack_builder_free(b);
}

START_TEST(test_round_trip)
{
	struct ura_pack *p = NULL;
	uint64_t mask, dur;
	uint32_t support;
	unsigned major, minor;
	int64_t created;
	uint8_t *data;
	size_t len;

	merged_sample(&data, &len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ura_pack_version(p, &major, &minor);
	ck_assert_uint_eq(major, 1);
	ck_assert_uint_eq(minor, 1);
	ck_assert_uint_eq(ura_pack_runs(p), 3);
	ck_assert_int_eq(ura_pack_get_run(p, 0, &created, &dur), 0);
	ck_assert_int_eq(created, 3000);
	ck_assert_uint_eq(dur, 30);
	ck_assert_int_eq(ura_pack_get_run(p, 2, &created, NULL), 0);
	ck_assert_int_eq(created, 1000);
	ck_assert_int_eq(ura_pack_get_run(p, 3, &created, NULL), -ERANGE);

	/* ranges in first-access order: pages 20-21 (every run), then 0-9 */
	ck_assert_int_eq(ura_pack_get_range_support(p, 0, &support, &mask), 0);
	ck_assert_uint_eq(support, 3);
	ck_assert_uint_eq(mask, 0x7);
	ck_assert_int_eq(ura_pack_get_range_support(p, 1, &support, &mask), 0);
	ck_assert_uint_eq(support, 2);
	ck_assert_uint_eq(mask, 0x5);
	ck_assert_int_eq(ura_pack_get_range_support(p, 2, &support, &mask), -ERANGE);
	ck_assert_int_eq(ura_pack_get_meta_support(p, 0, &support, &mask), 0);
	ck_assert_uint_eq(support, 1);
	ck_assert_uint_eq(mask, 0x2);
	ck_assert_uint_eq(ura_pack_pending_count(p), 1);
	{
		struct ura_pack_range r;

		ck_assert_int_eq(ura_pack_get_pending(p, 0, &r, &support, &mask), 0);
		ck_assert_uint_eq(r.first_page, 40);
		ck_assert_uint_eq(r.page_count, 3);
		ck_assert_uint_eq(r.first_access_ns, 7);
		ck_assert_uint_eq(r.flags, URA_PACK_RANGE_DEMANDED);
		ck_assert_uint_eq(support, 1);
		ck_assert_uint_eq(mask, 0x4);
		ck_assert_int_eq(ura_pack_get_pending(p, 1, &r, NULL, NULL), -ERANGE);
	}
	ura_pack_free(p);
	free(data);
}
END_TEST

/* A pack of version 1.0 (the golden sample) is one run, each range seen by it. */
START_TEST(test_v10_is_one_run)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	uint32_t support = 0;
	uint64_t mask = 0, dur;
	int64_t created;
	unsigned minor;
	void *data;
	size_t len;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ura_pack_builder_free(b);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ura_pack_version(p, NULL, &minor);
	ck_assert_uint_eq(minor, 0);	/* nothing merged: written as 1.0 */
	ck_assert_uint_eq(ura_pack_runs(p), 1);
	ck_assert_int_eq(ura_pack_get_run(p, 0, &created, &dur), 0);
	ck_assert_int_eq(created, 1763776800000000000LL);
	ck_assert_uint_eq(dur, 1500000000);
	ck_assert_int_eq(ura_pack_get_run(p, 1, &created, &dur), -ERANGE);
	for (size_t i = 0; i < ura_pack_range_count(p); i++) {
		ck_assert_int_eq(ura_pack_get_range_support(p, i, &support, &mask), 0);
		ck_assert_uint_eq(support, 1);
		ck_assert_uint_eq(mask, 1);
	}
	ck_assert_int_eq(ura_pack_get_meta_support(p, 0, &support, &mask), 0);
	ck_assert_uint_eq(support, 1);
	ck_assert_int_eq(ura_pack_get_meta_support(p, 2, &support, &mask), -ERANGE);
	ura_pack_free(p);
	free(data);
}
END_TEST

/*
 * What a 1.0 reader does with a 1.1 pack: it does not know section types 7-9,
 * so it skips them because they are not REQUIRED. Renumbering them to types
 * this reader does not know either shows the pack still reads, as one run.
 */
START_TEST(test_v10_reader_reads_v11)
{
	static const uint32_t types[] = { SEC_RUNS, SEC_RANGE_SUPPORT, SEC_META_SUPPORT,
					  SEC_PENDING };
	struct ura_pack *p = NULL;
	uint32_t support;
	uint8_t *data;
	size_t len;

	merged_sample(&data, &len);
	for (size_t i = 0; i < 4; i++) {
		uint8_t *e = section_entry(data, types[i]);

		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(get_le32(e + SEC_FLAGS) & SEC_FLAG_REQUIRED, 0);
		put_le32(e + SEC_TYPE, 1000 + types[i]);
	}
	/* and the sections a 1.0 reader needs are all still there, REQUIRED as before */
	for (uint32_t t = SEC_STRINGS; t <= SEC_TRACE_INFO; t++)
		ck_assert_uint_eq(get_le32(section_entry(data, t) + SEC_FLAGS), SEC_FLAG_REQUIRED);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ck_assert_uint_eq(ura_pack_runs(p), 1);
	ck_assert_uint_eq(ura_pack_range_count(p), 2);
	ck_assert_int_eq(ura_pack_get_range_support(p, 1, &support, NULL), 0);
	ck_assert_uint_eq(support, 1);
	ck_assert_uint_eq(ura_pack_pending_count(p), 0);
	ura_pack_free(p);
	free(data);
}
END_TEST

/* Corrupt 1.1 sections are refused with a reason. */
START_TEST(test_corrupt_support)
{
	struct ura_pack *p = NULL;
	uint8_t *data, *e, *rec;
	size_t len;

	merged_sample(&data, &len);
	e = section_entry(data, SEC_RANGE_SUPPORT);
	rec = data + get_le64(e + SEC_OFFSET);

	put_le32(rec + SUP_COUNT, 2);	/* mask 0x7 has three runs */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "range support count does not match its run mask");
	ck_assert_ptr_null(p);

	put_le32(rec + SUP_COUNT, 4);
	put_le64(rec + SUP_MASK, 0xf);	/* run 3 of 3 */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "range support names no run or a run past the run table");

	put_le32(rec + SUP_COUNT, 0);
	put_le64(rec + SUP_MASK, 0);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "range support names no run or a run past the run table");
	put_le32(rec + SUP_COUNT, 3);
	put_le64(rec + SUP_MASK, 7);

	put_le32(e + SEC_COUNT, 1);	/* one support record for two ranges */
	put_le64(e + SEC_SIZE, SUP_REC_SIZE);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "support section does not have one record per range");
	put_le32(e + SEC_COUNT, 2);
	put_le64(e + SEC_SIZE, 2 * SUP_REC_SIZE);

	e = section_entry(data, SEC_PENDING);
	rec = data + get_le64(e + SEC_OFFSET);
	put_le32(rec + PEND_SUPPORT, 2);	/* mask 0x4 has one run */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "pending range support does not match its run mask");
	put_le32(rec + PEND_SUPPORT, 1);
	put_le32(rec + PEND_FILE, 1);		/* one file only */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "pending range refers to a missing file");
	put_le32(rec + PEND_FILE, 0);
	put_le32(rec + PEND_COUNT, 0);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "pending range empty or past the largest page");
	put_le32(rec + PEND_COUNT, 3);

	e = section_entry(data, SEC_RUNS);
	put_le32(e + SEC_TYPE, 1007);	/* support without runs */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "support counts without a run table");
	put_le32(e + SEC_TYPE, SEC_RUNS);

	put_le32(e + SEC_COUNT, 0);	/* an empty run table */
	put_le64(e + SEC_SIZE, 0);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "run table empty or over 64 runs");

	put_le32(e + SEC_COUNT, 3);
	put_le32(e + SEC_ENTRY_SIZE, 8);	/* records shorter than a run */
	put_le64(e + SEC_SIZE, 24);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "section entry size too small");
	ck_assert_ptr_null(p);
	free(data);
}
END_TEST

START_TEST(test_builder_runs)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack_range r = { .page_count = 1 };

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .mount_point = "/" },
						 NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){ .path = "a" },
						   NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_range_runs(b, &r, 1), -EINVAL);	/* no run yet */
	ck_assert_str_eq(ura_pack_builder_error(b), "run mask empty or naming a run not added");
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(ura_pack_builder_add_run(b, 64 - i, 1), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 0, 1), -E2BIG);
	ck_assert_str_eq(ura_pack_builder_error(b), "more than 64 runs");
	ck_assert_int_eq(ura_pack_builder_add_range_runs(b, &r, 0), -EINVAL);
	ck_assert_int_eq(ura_pack_builder_add_range_runs(b, &r, UINT64_C(1) << 63), 0);
	r.first_page = 1;
	ck_assert_int_eq(ura_pack_builder_add_range_runs(b, &r, UINT64_MAX), 0);
	ura_pack_builder_free(b);
}
END_TEST

/* Overlapping ranges: a page keeps the runs of the range it is stored in. */
START_TEST(test_overlap_keeps_runs)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	struct ura_pack_range r;
	uint64_t mask;
	void *data;
	size_t len;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .mount_point = "/" },
						 NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){ .path = "a" },
						   NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 2, 0), 0);
	ck_assert_int_eq(ura_pack_builder_add_run(b, 1, 0), 0);
	ck_assert_int_eq(ura_pack_builder_add_range_runs(b, &(struct ura_pack_range){
		.first_page = 0, .page_count = 10, .first_access_ns = 5 }, 0x1), 0);
	ck_assert_int_eq(ura_pack_builder_add_range_runs(b, &(struct ura_pack_range){
		.first_page = 5, .page_count = 10, .first_access_ns = 9 }, 0x2), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ura_pack_builder_free(b);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ck_assert_uint_eq(ura_pack_range_count(p), 2);
	ck_assert_int_eq(ura_pack_get_range(p, 1, &r), 0);
	ck_assert_uint_eq(r.first_page, 10);
	ck_assert_uint_eq(r.page_count, 5);
	ck_assert_int_eq(ura_pack_get_range_support(p, 1, NULL, &mask), 0);
	ck_assert_uint_eq(mask, 0x2);
	ck_assert_int_eq(ura_pack_get_range_support(p, 0, NULL, &mask), 0);
	ck_assert_uint_eq(mask, 0x1);
	ura_pack_free(p);
	free(data);
}
END_TEST

static Suite *pack_runs_suite(void)
{
	Suite *s = suite_create("pack-runs");
	TCase *tc = tcase_create("format-1.1");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_v10_is_one_run);
	tcase_add_test(tc, test_v10_reader_reads_v11);
	tcase_add_test(tc, test_corrupt_support);
	tcase_add_test(tc, test_builder_runs);
	tcase_add_test(tc, test_overlap_keeps_runs);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(pack_runs_suite)
