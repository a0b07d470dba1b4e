// SPDX-License-Identifier: GPL-2.0-or-later
/* The readahead emulation and the advisor on packs built here (no kernel needed) */
#include <errno.h>
#include <stdlib.h>

#include "dev-model.h"
#include "ra-advise.h"
#include "ra-emulate.h"
#include "unit.h"

#define FILE_PAGES	1024u

/*
 * A pack of one file of FILE_PAGES pages on a filesystem traced at @trace_kb,
 * every page added, and the accesses @a (file 0); the pages used are all of
 * them, or with @only_accessed those the accesses asked for.
 */
static struct ura_pack *make_pack(const struct ura_pack_access *a, size_t n, uint32_t trace_kb,
				  bool only_accessed)
{
	struct ura_pack_fs fs = { .major = 7, .minor = 0, .mount_point = "/", .fstype = "ext4",
				  .source = "", .read_ahead_kb = trace_kb };
	struct ura_pack_ra_fs ra = { .max_sectors_kb = 1280, .fault_around_pages = 16 };
	struct ura_pack_file f = { .fs_index = 0, .path = "f", .path_len = 1, .ino = 12,
				   .size = FILE_PAGES * URA_PACK_PAGE_SIZE };
	struct ura_pack_range r = { .file_index = 0,
				    .flags = only_accessed ? 0 : URA_PACK_RANGE_DEMANDED,
				    .first_page = 0, .page_count = FILE_PAGES,
				    .first_access_ns = 1000000 };
	struct ura_pack_builder *b;
	struct ura_pack *p;
	void *data;
	size_t len;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &fs, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_set_ra_fs(b, 0, &ra), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &f, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &r), 0);
	for (size_t i = 0; i < n; i++) {
		struct ura_pack_range used = { .file_index = 0, .flags = URA_PACK_RANGE_DEMANDED,
					       .first_page = a[i].first,
					       .page_count = (uint32_t)(a[i].last - a[i].first + 1),
					       .first_access_ns = a[i].time_ns };

		ck_assert_int_eq(ura_pack_builder_add_access(b, &a[i]), 0);
		if (only_accessed)
			ck_assert_int_eq(ura_pack_builder_add_range(b, &used), 0);
	}
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	free(data);
	ura_pack_builder_free(b);
	return p;
}

static struct ura_pack_access read_of(uint64_t first, uint64_t last, uint64_t t)
{
	return (struct ura_pack_access){ .time_ns = t, .file_index = 0, .stream = 1,
					 .kind = URA_PACK_ACCESS_READ, .first = first, .last = last };
}

static struct ura_pack_access fault_at(uint64_t page, uint64_t t)
{
	return (struct ura_pack_access){ .time_ns = t, .file_index = 0, .stream = 1,
					 .kind = URA_PACK_ACCESS_FAULT, .flags = URA_PACK_ACCESS_MISSED,
					 .first = page, .last = page, .around_first = page & ~15ull,
					 .around_last = (page & ~15ull) + 15 };
}

static struct ura_pack *sequential_pack(void)
{
	struct ura_pack_access a[FILE_PAGES];

	for (uint64_t i = 0; i < FILE_PAGES; i++)
		a[i] = read_of(i, i, i);
	return make_pack(a, FILE_PAGES, 128, false);
}

/* scattered faults: one every 37 pages */
static struct ura_pack *scattered_pack(void)
{
	struct ura_pack_access a[FILE_PAGES / 37 + 1];
	size_t n = 0;

	for (uint64_t p = 5; p < FILE_PAGES; p += 37)
		a[n] = fault_at(p, n), n++;
	return make_pack(a, n, 128, true);
}

static void run(struct ura_pack *p, uint32_t kb, struct ra_counts *ret)
{
	struct ra_emulation *e;
	struct ra_emulate_opts o = { .window_kb = kb };

	ck_assert_int_eq(ra_emulate_new(p, &e), 0);
	ck_assert_int_eq(ra_emulate_run(e, &o, NULL, ret), 0);
	ra_emulate_free(e);
}

START_TEST(test_sequential_read)
{
	struct ura_pack *p = sequential_pack();
	struct ra_counts c4, c128, c4096;

	run(p, 4, &c4);
	run(p, 128, &c128);
	run(p, 4096, &c4096);
	/* every page read once, none wasted, whatever the window */
	ck_assert_uint_eq(c4.pages_read, FILE_PAGES);
	ck_assert_uint_eq(c128.pages_read, FILE_PAGES);
	ck_assert_uint_eq(c4096.pages_read, FILE_PAGES);
	ck_assert_uint_eq(c128.unused, 0);
	/* no readahead: a request a page; a window of 128 KiB: ramps up to 32-page requests */
	ck_assert_uint_eq(c4.requests, FILE_PAGES);
	ck_assert_uint_le(c128.requests, FILE_PAGES / 32 + 6);
	ck_assert_uint_lt(c4096.requests, c128.requests);
	ck_assert_uint_eq(c128.accessed, FILE_PAGES);
	/* at 128 KiB only the first page misses */
	ck_assert_uint_eq(c128.hits, FILE_PAGES - 1);
	ck_assert_uint_eq(c128.ra_pages, FILE_PAGES - 1);
	ck_assert_uint_eq(c128.ra_used, FILE_PAGES - 1);
	ura_pack_free(p);
}
END_TEST

START_TEST(test_scattered_faults)
{
	struct ura_pack *p = scattered_pack();
	struct ra_counts c4, c128;

	run(p, 4, &c4);
	run(p, 128, &c128);
	/* one page a fault without readahead; read-around brings 32 pages around each */
	ck_assert_uint_eq(c4.pages_read, FILE_PAGES / 37 + 1);
	ck_assert_uint_eq(c4.requests, FILE_PAGES / 37 + 1);
	ck_assert_uint_gt(c128.pages_read, 20 * c4.pages_read);
	ck_assert_uint_eq(c4.unused, 0);
	ck_assert_uint_eq(c128.unused, c128.pages_read - c4.pages_read);
	ura_pack_free(p);
}
END_TEST

/* pages asked for that the trace never saw added were cached before it: no reads */
START_TEST(test_cached_before)
{
	struct ura_pack_access a[2] = { read_of(FILE_PAGES + 5, FILE_PAGES + 5, 0),
					read_of(0, 3, 1) };
	struct ura_pack_fs fs = { .mount_point = "/", .fstype = "", .source = "",
				  .read_ahead_kb = 128 };
	struct ura_pack_file f = { .path = "f", .path_len = 1, .ino = 1,
				   .size = 2 * FILE_PAGES * URA_PACK_PAGE_SIZE };
	struct ura_pack_range r = { .flags = URA_PACK_RANGE_DEMANDED, .first_page = 0,
				    .page_count = 64 };
	struct ura_pack_builder *b;
	struct ura_pack *p;
	struct ra_counts c;
	void *data;
	size_t len;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &fs, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &f, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &r), 0);
	for (size_t i = 0; i < 2; i++)
		ck_assert_int_eq(ura_pack_builder_add_access(b, &a[i]), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	free(data);
	ura_pack_builder_free(b);
	run(p, 128, &c);
	ck_assert_uint_eq(c.accessed, 5);
	ck_assert_uint_eq(c.hits, 1);
	/* the read at page 0 of 4 pages: an initial window of 8 (init_ra_size(4, 32)) */
	ck_assert_uint_eq(c.pages_read, 8);
	ura_pack_free(p);
}
END_TEST

START_TEST(test_advice_follows_the_device)
{
	struct ura_pack *seq = sequential_pack(), *scattered = scattered_pack();
	struct devmodel seeky, slow;
	struct ra_advice a;

	dev_model_from_costs(&seeky, 8000000, 120000000, true, DEVMODEL_OPTIONS);
	dev_model_from_costs(&slow, 500000, 20000000, false, DEVMODEL_OPTIONS);
	/* a sequential read wants the largest window on a seeking disk */
	ck_assert_int_eq(ra_advise(seq, &seeky, NULL, &a), 0);
	ck_assert_uint_ge(a.row[a.recommended].window_kb, 1024);
	ck_assert_uint_eq(a.trace_kb, 128);
	ck_assert_uint_lt(a.at_trace, a.n);
	ck_assert_uint_eq(a.row[a.at_trace].window_kb, 128);
	ck_assert_uint_eq(a.row[0].window_kb, 4);
	ck_assert_uint_eq(a.row[a.n - 1].window_kb, 4096);
	ra_advise_free(&a);
	/* scattered faults on a slow card want no read-around */
	ck_assert_int_eq(ra_advise(scattered, &slow, NULL, &a), 0);
	ck_assert_uint_le(a.row[a.recommended].window_kb, 8);
	ck_assert_uint_le(a.row[a.copt].window_kb, 8);
	ra_advise_free(&a);
	ura_pack_free(seq);
	ura_pack_free(scattered);
}
END_TEST

START_TEST(test_no_log)
{
	struct ura_pack *p = make_pack(NULL, 0, 128, false);
	struct ra_emulation *e = NULL;
	struct ra_advice a;

	ck_assert_int_eq(ra_emulate_new(p, &e), -ENODATA);
	ck_assert_int_eq(ra_advise(p, NULL, NULL, &a), -ENODATA);
	ura_pack_free(p);
}
END_TEST

static Suite *ra_emulate_suite(void)
{
	Suite *s = suite_create("ra-emulate");
	TCase *tc = tcase_create("ra-emulate");

	tcase_add_test(tc, test_sequential_read);
	tcase_add_test(tc, test_scattered_faults);
	tcase_add_test(tc, test_cached_before);
	tcase_add_test(tc, test_advice_follows_the_device);
	tcase_add_test(tc, test_no_log);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(ra_emulate_suite)
