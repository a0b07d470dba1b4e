// SPDX-License-Identifier: GPL-2.0-or-later
/* Tests of the access log and readahead facts of format 1.1: round trip, reasons, hostile bytes */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32c.h"
#include "pack-access.h"
#include "pack-internal.h"
#include "sample-pack.h"
#include "unit.h"

#define READ URA_PACK_ACCESS_READ
#define FAULT URA_PACK_ACCESS_FAULT
#define EXEC URA_PACK_ACCESS_EXEC
#define NO_AROUND URA_PACK_ACCESS_NO_AROUND
#define GOLDEN TEST_DATA_DIR "/golden-access.pack"
#define MISSED URA_PACK_ACCESS_MISSED
#define GUESSED URA_PACK_ACCESS_GUESSED

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

/* Every kind of record: runs of reads, faults with and without windows, streams, big numbers. */
static const struct ura_pack_access samples[] = {
	{ .time_ns = 0, .file_index = 0, .stream = 100, .kind = READ, .first = 0, .last = 0 },
	{ .time_ns = 10, .file_index = 0, .stream = 100, .kind = READ, .first = 1, .last = 1 },
	{ .time_ns = 10, .file_index = 0, .stream = 100, .kind = READ, .first = 2, .last = 255 },
	{ .time_ns = 5000, .file_index = 2, .stream = 100, .kind = FAULT, .flags = EXEC,
	  .first = 37, .last = 37, .around_first = 32, .around_last = 47 },
	{ .time_ns = 5001, .file_index = 2, .stream = 101, .kind = FAULT,
	  .flags = MISSED | EXEC, .first = 3, .last = 3, .around_first = 0, .around_last = 15 },
	{ .time_ns = 6000, .file_index = 2, .stream = 101, .kind = FAULT,
	  .flags = NO_AROUND | MISSED, .first = 9, .last = 9 },
	{ .time_ns = 6000, .file_index = 1, .stream = 7, .kind = FAULT, .flags = GUESSED,
	  .first = 16, .last = 16, .around_first = 16, .around_last = 31 },
	{ .time_ns = UINT64_C(1) << 40, .file_index = 3, .stream = UINT32_MAX, .kind = READ,
	  .first = (UINT64_C(1) << 51) - 2, .last = (UINT64_C(1) << 51) - 1 },
	{ .time_ns = (UINT64_C(1) << 40) + 1, .file_index = 3, .stream = UINT32_MAX,
	  .kind = READ, .first = 0, .last = (UINT64_C(1) << 51) - 1 },
	{ .time_ns = UINT64_MAX, .file_index = 3, .stream = 0, .kind = FAULT,
	  .first = (UINT64_C(1) << 51) - 1, .last = (UINT64_C(1) << 51) - 1,
	  .around_first = (UINT64_C(1) << 51) - ACCESS_MAX_AROUND,
	  .around_last = (UINT64_C(1) << 51) - 1 },
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

static void assert_access_eq(const struct ura_pack_access *a, const struct ura_pack_access *b)
{
	ck_assert_uint_eq(a->time_ns, b->time_ns);
	ck_assert_uint_eq(a->file_index, b->file_index);
	ck_assert_uint_eq(a->stream, b->stream);
	ck_assert_uint_eq(a->kind, b->kind);
	ck_assert_uint_eq(a->flags, b->flags);
	ck_assert_uint_eq(a->first, b->first);
	ck_assert_uint_eq(a->last, b->last);
	ck_assert_uint_eq(a->around_first, b->around_first);
	ck_assert_uint_eq(a->around_last, b->around_last);
}

/* The sample pack, with the sample accesses and facts of filesystem 1 (and 0, with @both). */
static void access_sample(uint8_t **data, size_t *len, bool both)
{
	struct ura_pack_builder *b = NULL;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	for (size_t i = 0; i < NSAMPLES; i++)
		ck_assert_int_eq(ura_pack_builder_add_access(b, &samples[i]), 0);
	ck_assert_int_eq(ura_pack_builder_set_ra_fs(b, 1, &(struct ura_pack_ra_fs){
		.max_sectors_kb = 1280, .fault_around_pages = 16,
		.flags = URA_PACK_RA_FS_LARGE_FOLIOS }), 0);
	if (both)
		ck_assert_int_eq(ura_pack_builder_set_ra_fs(b, 0, &(struct ura_pack_ra_fs){
			.max_sectors_kb = 512, .fault_around_pages = 1 }), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, (void **)data, len), 0);
	ura_pack_builder_free(b);
}

/*
 * The format of the log must not drift: the sample, with the log and facts, as
 * committed (URA_REGEN_GOLDEN=1 rewrites it; ura-dump's tools test reads it).
 */
START_TEST(test_golden)
{
	uint8_t *data, golden[4096];
	ssize_t glen;
	size_t len;
	int fd;

	access_sample(&data, &len, true);
	if (getenv("URA_REGEN_GOLDEN")) {
		fd = open(GOLDEN, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
		close(fd);
	}
	fd = open(GOLDEN, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	glen = read(fd, golden, sizeof(golden));
	close(fd);
	ck_assert_int_eq(glen, (ssize_t)len);
	ck_assert_mem_eq(golden, data, len);
	free(data);
}
END_TEST

START_TEST(test_round_trip)
{
	struct ura_pack_access a;
	struct ura_pack_ra_fs ra;
	struct ura_pack *p = NULL;
	unsigned minor;
	uint8_t *data;
	size_t len;

	access_sample(&data, &len, true);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ura_pack_version(p, NULL, &minor);
	ck_assert_uint_eq(minor, 1);
	ck_assert_uint_eq(ura_pack_runs(p), 1);
	ck_assert_uint_eq(ura_pack_access_count(p), NSAMPLES);
	for (size_t i = 0; i < NSAMPLES; i++) {
		ck_assert_int_eq(ura_pack_get_access(p, i, &a), 0);
		assert_access_eq(&a, &samples[i]);
	}
	for (size_t i = NSAMPLES; i-- > 0;) {	/* backwards: from the marks */
		ck_assert_int_eq(ura_pack_get_access(p, i, &a), 0);
		assert_access_eq(&a, &samples[i]);
	}
	ck_assert_int_eq(ura_pack_get_access(p, NSAMPLES, &a), -ERANGE);
	ck_assert_int_eq(ura_pack_get_ra_fs(p, 1, &ra), 0);
	ck_assert_uint_eq(ra.max_sectors_kb, 1280);
	ck_assert_uint_eq(ra.fault_around_pages, 16);
	ck_assert_uint_eq(ra.flags, URA_PACK_RA_FS_LARGE_FOLIOS);
	ck_assert_int_eq(ura_pack_get_ra_fs(p, 0, &ra), 0);
	ck_assert_uint_eq(ra.max_sectors_kb, 512);
	ck_assert_uint_eq(ra.fault_around_pages, 1);
	ck_assert_uint_eq(ra.flags, 0);
	ck_assert_int_eq(ura_pack_get_ra_fs(p, 2, &ra), -ERANGE);
	/* the rest of the pack as without the log */
	ck_assert_uint_eq(ura_pack_range_count(p), 6);
	ck_assert_uint_eq(ura_pack_file_count(p), 4);
	ura_pack_free(p);
	free(data);
}
END_TEST

/* Without the sections: no log, no facts; and such a pack is still written as 1.0. */
START_TEST(test_without)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack_access a;
	struct ura_pack_ra_fs ra;
	struct ura_pack *p = NULL;
	unsigned minor;
	uint8_t *data;
	size_t len;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	ck_assert_int_eq(ura_pack_builder_serialize(b, (void **)&data, &len), 0);
	ura_pack_builder_free(b);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ura_pack_version(p, NULL, &minor);
	ck_assert_uint_eq(minor, 0);
	ck_assert_ptr_null(section_entry(data, SEC_ACCESS));
	ck_assert_ptr_null(section_entry(data, SEC_RA_FS));
	ck_assert_uint_eq(ura_pack_access_count(p), 0);
	ck_assert_int_eq(ura_pack_get_access(p, 0, &a), -ERANGE);
	ck_assert_int_eq(ura_pack_get_ra_fs(p, 0, &ra), -ENODATA);
	ck_assert_int_eq(ura_pack_get_ra_fs(p, 1, &ra), -ENODATA);
	ck_assert_int_eq(ura_pack_get_ra_fs(p, 2, &ra), -ERANGE);
	ura_pack_free(p);
	free(data);

	/* facts alone make a 1.1 pack; a filesystem without them says so */
	access_sample(&data, &len, false);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ck_assert_int_eq(ura_pack_get_ra_fs(p, 0, &ra), -ENODATA);
	ck_assert_int_eq(ura_pack_get_ra_fs(p, 1, &ra), 0);
	ura_pack_free(p);
	free(data);
}
END_TEST

/* A reader that does not know the sections (a 1.1 reader of before them) skips them. */
START_TEST(test_older_reader_skips)
{
	struct ura_pack *p = NULL;
	uint8_t *data, *e;
	size_t len;

	access_sample(&data, &len, true);
	e = section_entry(data, SEC_ACCESS);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(get_le32(e + SEC_FLAGS) & SEC_FLAG_REQUIRED, 0);
	ck_assert_uint_eq(get_le32(e + SEC_ENTRY_SIZE), 1);
	put_le32(e + SEC_TYPE, 1000 + SEC_ACCESS);
	e = section_entry(data, SEC_RA_FS);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(get_le32(e + SEC_FLAGS) & SEC_FLAG_REQUIRED, 0);
	put_le32(e + SEC_TYPE, 1000 + SEC_RA_FS);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ck_assert_uint_eq(ura_pack_access_count(p), 0);
	ck_assert_uint_eq(ura_pack_range_count(p), 6);
	ura_pack_free(p);
	free(data);
}
END_TEST

/* Many records in any order of reading, across the marks, and two packs read in turn. */
START_TEST(test_random_access)
{
	enum { N = 5000 };
	struct ura_pack_builder *b[2] = { NULL, NULL };
	struct ura_pack_access *want = calloc(N, sizeof(*want)), a;
	struct ura_pack *p[2] = { NULL, NULL };
	uint64_t t = 0, seed = 42;

	ck_assert_ptr_nonnull(want);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(ura_pack_builder_new(&b[k]), 0);
		sample_pack_build(b[k]);
	}
	for (size_t i = 0; i < N; i++) {
		struct ura_pack_access *w = &want[i];

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		t += (seed >> 33) % 100000;
		*w = (struct ura_pack_access){ .time_ns = t, .file_index = (uint32_t)(seed >> 20) % 4,
					       .stream = (uint32_t)(seed >> 40) % 3,
					       .kind = (seed >> 10) & 1 ? READ : FAULT };
		w->first = (seed >> 24) % 5000;
		if (w->kind == READ) {
			w->last = w->first + (seed >> 50) % 40;
		} else {
			w->last = w->first;
			w->flags = (uint32_t)(seed >> 44) & (EXEC | MISSED | NO_AROUND);
			if (!(w->flags & NO_AROUND)) {
				w->around_first = w->first & ~UINT64_C(15);
				w->around_last = w->around_first + 15;
			}
		}
		for (int k = 0; k < 2; k++)
			ck_assert_int_eq(ura_pack_builder_add_access(b[k], w), 0);
	}
	for (int k = 0; k < 2; k++) {
		void *data;
		size_t len;

		ck_assert_int_eq(ura_pack_builder_serialize(b[k], &data, &len), 0);
		ck_assert_int_eq(ura_pack_parse(data, len, &p[k]), 0);
		free(data);
		ura_pack_builder_free(b[k]);
	}
	for (size_t i = 0; i < N; i++)	/* in order, the two packs in turn */
		for (int k = 0; k < 2; k++) {
			ck_assert_int_eq(ura_pack_get_access(p[k], i, &a), 0);
			assert_access_eq(&a, &want[i]);
		}
	for (size_t n = 0; n < 3 * N; n++) {	/* anywhere */
		size_t i;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		i = (size_t)(seed >> 33) % N;
		ck_assert_int_eq(ura_pack_get_access(p[n % 2], i, &a), 0);
		assert_access_eq(&a, &want[i]);
	}
	ura_pack_free(p[0]);
	ura_pack_free(p[1]);
	free(want);
}
END_TEST

/* Sequential reads cost little on disk: a page-by-page read() of a file, 4 bytes a record. */
START_TEST(test_compact)
{
	struct ura_pack_builder *b = NULL;
	uint8_t *data, *e;
	size_t len;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	for (uint64_t i = 0; i < 1000; i++)
		ck_assert_int_eq(ura_pack_builder_add_access(b, &(struct ura_pack_access){
			.time_ns = 1000 + i * 100, .kind = READ, .first = i, .last = i,
			.stream = 4321 }), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, (void **)&data, &len), 0);
	ura_pack_builder_free(b);
	e = section_entry(data, SEC_ACCESS);
	ck_assert_uint_le(get_le64(e + SEC_SIZE), ACCESS_HDR_SIZE + 1000 * 4 + 8);
	free(data);
}
END_TEST

START_TEST(test_builder_reasons)
{
	static const struct {
		struct ura_pack_access a;
		const char *why;
	} bad[] = {
		{ { .kind = 0 }, "access of an unknown kind" },
		{ { .kind = 3 }, "access of an unknown kind" },
		{ { .kind = FAULT, .flags = 1u << 4 }, "access with unknown flags" },
		{ { .kind = READ, .flags = EXEC }, "read access with fault flags" },
		{ { .kind = READ, .file_index = 4 }, "access to a missing file" },
		{ { .kind = READ, .time_ns = 99 }, "access log not in time order" },
		{ { .kind = READ, .time_ns = 100, .first = 5, .last = 4 },
		  "access pages empty or past the largest page" },
		{ { .kind = READ, .time_ns = 100, .last = UINT64_C(1) << 51 },
		  "access pages empty or past the largest page" },
		{ { .kind = FAULT, .time_ns = 100, .first = 1, .last = 2, .around_last = 15 },
		  "fault access of more than one page" },
		{ { .kind = FAULT, .time_ns = 100, .first = 16, .last = 16, .around_last = 15 },
		  "fault-around window not around its page, or too large" },
		{ { .kind = FAULT, .time_ns = 100, .first = 16, .last = 16, .around_first = 17,
		    .around_last = 20 }, "fault-around window not around its page, or too large" },
		{ { .kind = FAULT, .time_ns = 100, .first = 16, .last = 16,
		    .around_last = ACCESS_MAX_AROUND },
		  "fault-around window not around its page, or too large" },
		{ { .kind = FAULT, .time_ns = 100, .flags = NO_AROUND | GUESSED },
		  "guessed fault page without a fault-around window" },
	};
	struct ura_pack_builder *b = NULL;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	ck_assert_int_eq(ura_pack_builder_add_access(b, &(struct ura_pack_access){
		.kind = READ, .time_ns = 100 }), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(ura_pack_builder_add_access(b, &bad[i].a), -EINVAL);
		ck_assert_str_eq(ura_pack_builder_error(b), bad[i].why);
	}
	/* the window is only read where there is one */
	ck_assert_int_eq(ura_pack_builder_add_access(b, &(struct ura_pack_access){
		.kind = FAULT, .flags = NO_AROUND, .time_ns = 100, .first = 3, .last = 3,
		.around_first = 99, .around_last = 1 }), 0);
	ck_assert_int_eq(ura_pack_builder_set_ra_fs(b, 2, &(struct ura_pack_ra_fs){ 0 }), -EINVAL);
	ck_assert_str_eq(ura_pack_builder_error(b),
			 "readahead facts of an unknown filesystem (fs_index)");
	ck_assert_int_eq(ura_pack_builder_set_ra_fs(b, 0, &(struct ura_pack_ra_fs){
		.flags = 2 }), -EINVAL);
	ck_assert_str_eq(ura_pack_builder_error(b), "readahead facts with unknown flags");
	ck_assert_int_eq(ura_pack_builder_set_ra_fs(b, 0, &(struct ura_pack_ra_fs){
		.fault_around_pages = 1u << 20 }), -EINVAL);
	/* set twice: the second wins */
	ck_assert_int_eq(ura_pack_builder_set_ra_fs(b, 0, &(struct ura_pack_ra_fs){ 1, 2, 0, 0, 0 }), 0);
	ck_assert_int_eq(ura_pack_builder_set_ra_fs(b, 0, &(struct ura_pack_ra_fs){ 3, 4, 1, 0, 0 }), 0);
	{
		struct ura_pack *p = NULL;
		struct ura_pack_ra_fs ra;
		void *data;
		size_t len;

		ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
		ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
		ck_assert_uint_eq(ura_pack_access_count(p), 2);
		ck_assert_int_eq(ura_pack_get_ra_fs(p, 0, &ra), 0);
		ck_assert_uint_eq(ra.max_sectors_kb, 3);
		ck_assert_uint_eq(ra.fault_around_pages, 4);
		ura_pack_free(p);
		free(data);
	}
	ura_pack_builder_free(b);
}
END_TEST

/* Replace the ACCESS section's records with @recs (@n bytes) counted as @count; parse. */
static int parse_log(const uint8_t *recs, size_t n, uint32_t count, struct ura_pack **ret)
{
	struct ura_pack_builder *b = NULL;
	uint8_t *data, *big, *e;
	size_t len, off;
	int r;


	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	ck_assert_int_eq(ura_pack_builder_add_access(b, &(struct ura_pack_access){
		.kind = READ }), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, (void **)&data, &len), 0);
	ura_pack_builder_free(b);
	/* the new log goes at the end of a copy, and the section points there */
	big = calloc(1, len + ACCESS_HDR_SIZE + n + 8);
	ck_assert_ptr_nonnull(big);
	memcpy(big, data, len);
	e = section_entry(big, SEC_ACCESS);
	off = (len + 7) & ~(size_t)7;
	put_le32(big + off + ACCESS_HDR_COUNT, count);
	memcpy(big + off + ACCESS_HDR_SIZE, recs, n);
	put_le64(e + SEC_OFFSET, off);
	put_le64(e + SEC_SIZE, ACCESS_HDR_SIZE + n);
	put_le32(e + SEC_COUNT, (uint32_t)(ACCESS_HDR_SIZE + n));
	len = off + ACCESS_HDR_SIZE + n;
	put_le64(big + HDR_FILE_SIZE, len);
	fix_crc(big, len);
	r = ura_pack_parse(big, len, ret);
	free(big);
	free(data);
	return r;
}

START_TEST(test_hostile_log)
{
	static const struct {
		uint8_t recs[24];
		size_t n;
		uint32_t count;
		const char *why;
	} bad[] = {
		{ { 0x01, 0x00, 0x00, 0x00 }, 4, 2, "access log counts more records than its bytes hold" },
		{ { 0x01, 0x00, 0x00, 0x00 }, 4, 0xffffffffu,
		  "access log counts more records than its bytes hold" },
		{ { 0x01, 0x00, 0x00, 0x00, 0x00 }, 5, 1, "access log longer than its records" },
		{ { 0x01, 0x00, 0x00, 0x00, 0x01, 0x00 }, 6, 2, "access record truncated or malformed" },
		{ { 0x00, 0x00, 0x00, 0x00 }, 4, 1, "access of an unknown kind" },
		{ { 0x03, 0x00, 0x00, 0x00 }, 4, 1, "access of an unknown kind" },
		{ { 0x41, 0x00, 0x04, 0x00, 0x00 }, 5, 1, "access to a missing file" },	/* file 4 of 4 */
		{ { 0x41, 0x00, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00, 0x00 }, 9, 1,
		  "access record truncated or malformed" },	/* file 2^32 */
		{ { 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x00, 0x00 },
		  13, 1, "access record truncated or malformed" },	/* time 2^64 */
		{ { 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00,
		    0x01, 0x01, 0x00, 0x00 }, 17, 2, "access time past 2^64 ns" },
		{ { 0x05, 0x00, 0x00, 0x00 }, 4, 1, "read access with fault flags" },
		{ { 0x42, 0x00, 0x00, 0x03, 0x04, 0x00 }, 6, 1,
		  "fault-around window not around its page, or too large" },	/* starts at -1 */
		{ { 0x42, 0x00, 0x00, 0x00, 0x00, 0x80, 0x80, 0x40 }, 8, 1,
		  "fault-around window not around its page, or too large" },	/* 2^20 pages */
		{ { 0x01, 0x00, 0x01, 0x00 }, 4, 1,
		  "access pages empty or past the largest page" },	/* page -1 */
		{ { 0x01, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x04 }, 11, 1,
		  "access pages empty or past the largest page" },	/* 2^51 pages */
		{ { 0x2e, 0x00, 0x00 }, 3, 1, "guessed fault page without a fault-around window" },
		{ { 0x42, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03, 0x00, 0x01 },
		  13, 1, "fault-around window not around its page, or too large" },	/* to 2^51 */
		{ { 0x01, 0x05, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00 }, 8, 2, NULL },
		{ { 0x01, 0x05, 0x00, 0x00, 0x01, 0xff, 0x00, 0x00 }, 8, 2,
		  "access record truncated or malformed" },
	};
	struct ura_pack *p = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse_log(bad[i].recs, bad[i].n, bad[i].count, &p);

		if (!bad[i].why) {
			ck_assert_msg(r == 0, "case %zu: %s", i, ura_pack_error());
			ura_pack_free(p);
			p = NULL;
			continue;
		}
		ck_assert_msg(r == -EBADMSG, "case %zu: %d", i, r);
		ck_assert_msg(strcmp(ura_pack_error(), bad[i].why) == 0, "case %zu: %s", i,
			      ura_pack_error());
		ck_assert_ptr_null(p);
	}
}
END_TEST

/* Every byte of the log replaced by other values: refused with a reason, or records that hold. */
START_TEST(test_mutated_log)
{
	static const uint8_t values[] = { 0x00, 0x01, 0x02, 0x03, 0x40, 0x7f, 0x80, 0xc2, 0xff };
	struct ura_pack *p = NULL;
	uint8_t *data, *e, *sec;
	size_t len, size;

	access_sample(&data, &len, true);
	e = section_entry(data, SEC_ACCESS);
	sec = data + get_le64(e + SEC_OFFSET);
	size = get_le64(e + SEC_SIZE);
	for (size_t i = 0; i < size; i++) {
		uint8_t keep = sec[i];

		for (size_t v = 0; v < sizeof(values); v++) {
			int r;

			sec[i] = values[v];
			fix_crc(data, len);
			r = ura_pack_parse(data, len, &p);
			ck_assert_msg(r == 0 || r == -EBADMSG, "byte %zu = %u: %d", i, values[v], r);
			if (r < 0)
				continue;
			for (size_t k = 0; k < ura_pack_access_count(p); k++) {
				struct ura_pack_access a;

				ck_assert_int_eq(ura_pack_get_access(p, k, &a), 0);
				ck_assert_uint_lt(a.file_index, ura_pack_file_count(p));
				ck_assert_uint_le(a.first, a.last);
				ck_assert_uint_lt(a.last, UINT64_C(1) << 51);
				if (a.kind == FAULT && !(a.flags & NO_AROUND))
					ck_assert(a.around_first <= a.first && a.last <= a.around_last);
			}
			ura_pack_free(p);
			p = NULL;
		}
		sec[i] = keep;
	}
	free(data);
}
END_TEST

START_TEST(test_hostile_sections)
{
	struct ura_pack *p = NULL;
	uint8_t *data, *e, *rec;
	size_t len;

	access_sample(&data, &len, true);
	e = section_entry(data, SEC_RA_FS);
	rec = data + get_le64(e + SEC_OFFSET);
	put_le32(rec + RAFS_FS, 2);	/* two filesystems */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "readahead facts of a missing filesystem");
	put_le32(rec + RAFS_FS, 1);	/* 1 then 1 */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "readahead facts not in filesystem order, or repeated");
	put_le32(rec + RAFS_FS, 0);
	put_le32(rec + RAFS_FAULT_AROUND, 1u << 20);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "fault-around window of a filesystem too large");
	put_le32(rec + RAFS_FAULT_AROUND, 16);
	put_le32(rec + RAFS_FLAGS, 0x80);	/* unknown flags: ignored, as for ranges */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ura_pack_free(p);
	p = NULL;
	put_le32(e + SEC_ENTRY_SIZE, 8);
	put_le64(e + SEC_SIZE, 8 * get_le32(e + SEC_COUNT));
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "section entry size too small");

	free(data);
	access_sample(&data, &len, true);
	e = section_entry(data, SEC_ACCESS);
	put_le32(e + SEC_ENTRY_SIZE, 2);	/* a byte array, like the strings */
	put_le32(e + SEC_COUNT, get_le32(e + SEC_COUNT) / 2);
	put_le64(e + SEC_SIZE, 2 * (uint64_t)get_le32(e + SEC_COUNT));
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "section entry size too small");
	free(data);

	access_sample(&data, &len, true);
	e = section_entry(data, SEC_ACCESS);
	put_le32(e + SEC_COUNT, 7);
	put_le64(e + SEC_SIZE, 7);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "access log shorter than its header");
	put_le32(e + SEC_TYPE, SEC_RA_FS);	/* twice */
	put_le32(e + SEC_COUNT, 1);
	put_le32(e + SEC_ENTRY_SIZE, RAFS_REC_SIZE);
	put_le64(e + SEC_SIZE, RAFS_REC_SIZE);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "duplicate section");
	ck_assert_ptr_null(p);
	free(data);
}
END_TEST

/* Each truncation of a pack with a log is refused. */
START_TEST(test_truncated)
{
	struct ura_pack *p = NULL;
	uint8_t *data;
	size_t len;

	access_sample(&data, &len, true);
	for (size_t n = 0; n < len; n++)
		ck_assert_int_eq(ura_pack_parse(data, n, &p), -EBADMSG);
	ck_assert_ptr_null(p);
	free(data);
}
END_TEST

static Suite *pack_access_suite(void)
{
	Suite *s = suite_create("pack-access");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_golden);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_without);
	tcase_add_test(tc, test_older_reader_skips);
	tcase_add_test(tc, test_random_access);
	tcase_add_test(tc, test_compact);
	tcase_add_test(tc, test_builder_reasons);
	tcase_add_test(tc, test_hostile_log);
	tcase_add_test(tc, test_mutated_log);
	tcase_add_test(tc, test_hostile_sections);
	tcase_add_test(tc, test_truncated);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(pack_access_suite)
