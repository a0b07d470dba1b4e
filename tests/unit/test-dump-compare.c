// SPDX-License-Identifier: GPL-2.0-or-later
/* Two packs compared: files matched by filesystem and path, pages added and lost, the order */
#include <stdlib.h>
#include <string.h>

#include "dump-compare.h"
#include "unit.h"

#define PG 4096

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

static void fs(struct ura_pack_builder *b, const char *mnt, unsigned major, uint8_t uuid)
{
	struct ura_pack_fs f = { .major = major, .minor = 1, .mount_point = mnt,
				 .flags = URA_PACK_FS_HAS_UUID, .uuid = { uuid } };

	ck_assert_int_eq(ura_pack_builder_add_fs(b, &f, NULL), 0);
}

static void file(struct ura_pack_builder *b, uint32_t fsi, const char *path, int64_t mtime,
		 uint64_t first, uint32_t pages)
{
	uint32_t idx;

	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){ .fs_index = fsi,
		.path = path, .size = 1 << 20, .mtime_ns = mtime }, &idx), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){ .file_index = idx,
		.first_page = first, .page_count = pages, .first_access_ns = 1,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
}

static void meta(struct ura_pack_builder *b, uint32_t fsi, unsigned major, uint64_t off,
		 uint64_t len)
{
	ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){ .fs_index = fsi,
		.major = major, .minor = fsi == URA_PACK_NO_INDEX ? 3 : 1, .offset = off,
		.length = len }), 0);
}

/* A: / with a (pages 0-9), b (0-4), c (0-1); B: /mnt first, then / with a (5-14), b other mtime, d */
static void two_packs(struct ura_pack **a, struct ura_pack **b, uint8_t b_uuid)
{
	struct ura_pack_builder *x = NULL;

	ck_assert_int_eq(ura_pack_builder_new(&x), 0);
	fs(x, "/", 8, 1);
	file(x, 0, "usr/a", 1, 0, 10);
	file(x, 0, "usr/b", 1, 0, 5);
	file(x, 0, "usr/c", 1, 0, 2);
	meta(x, 0, 8, 0, 2 * PG);
	meta(x, URA_PACK_NO_INDEX, 7, 0, PG);
	*a = parse(x);
	ck_assert_int_eq(ura_pack_builder_new(&x), 0);
	fs(x, "/mnt", 9, 2);
	fs(x, "/", 8, b_uuid);
	file(x, 0, "x", 1, 0, 3);
	file(x, 1, "usr/a", 1, 5, 10);
	file(x, 1, "usr/b", 2, 0, 5);
	file(x, 1, "usr/d", 1, 0, 3);
	meta(x, 1, 8, PG, 2 * PG);
	*b = parse(x);
}

static void ck_entry(const struct compare_entry *e, const char *mnt, const char *path,
		     enum compare_status st, uint64_t added, uint64_t lost)
{
	ck_assert_str_eq(e->mount_point, mnt);
	if (path)
		ck_assert_str_eq(e->path, path);
	ck_assert_str_eq(compare_status_name(e->status), compare_status_name(st));
	ck_assert_uint_eq(e->added_bytes, added * PG);
	ck_assert_uint_eq(e->lost_bytes, lost * PG);
}

START_TEST(test_compare_files)
{
	struct ura_pack *a = NULL, *b = NULL;
	struct compare *c = NULL;
	const struct compare_totals *t;

	two_packs(&a, &b, 1);
	ck_assert_int_eq(compare_new(a, b, &c), 0);
	ck_assert_uint_eq(c->nfiles, 5);
	/* by bytes changed: a (5 added, 5 lost), d and x (3 added), c (2 lost), b (replaced) */
	ck_entry(&c->files[0], "/", "usr/a", COMPARE_CHANGED, 5, 5);
	ck_assert_uint_eq(c->files[0].a_bytes, 10 * PG);
	ck_assert_uint_eq(c->files[0].b_demanded_bytes, 10 * PG);
	ck_entry(&c->files[1], "/", "usr/d", COMPARE_ADDED, 3, 0);
	ck_entry(&c->files[2], "/mnt", "x", COMPARE_ADDED, 3, 0);
	ck_entry(&c->files[3], "/", "usr/c", COMPARE_LOST, 0, 2);
	ck_entry(&c->files[4], "/", "usr/b", COMPARE_REPLACED, 0, 0);
	t = &c->t;
	ck_assert_uint_eq(t->files_a, 3);
	ck_assert_uint_eq(t->files_b, 4);
	ck_assert_uint_eq(t->changed, 1);
	ck_assert_uint_eq(t->replaced, 1);
	ck_assert_uint_eq(t->added, 2);
	ck_assert_uint_eq(t->lost, 1);
	ck_assert_uint_eq(t->same, 0);
	ck_assert_uint_eq(t->bytes_a, 17 * PG);
	ck_assert_uint_eq(t->bytes_b, 21 * PG);
	ck_assert_uint_eq(t->added_bytes, 11 * PG);
	ck_assert_uint_eq(t->lost_bytes, 7 * PG);
	/* metadata: / matched across the packs (other indices), 7:3 by its device */
	ck_assert_uint_eq(c->nmetadata, 2);
	ck_entry(&c->metadata[0], "/", NULL, COMPARE_CHANGED, 1, 1);
	ck_assert_ptr_null(c->metadata[1].mount_point);
	ck_assert_uint_eq(c->metadata[1].major, 7);
	ck_assert_uint_eq(c->metadata[1].lost_bytes, PG);
	ck_assert_uint_eq(c->t.metadata_added_bytes, PG);
	ck_assert_uint_eq(c->t.metadata_lost_bytes, 2 * PG);
	compare_free(c);
	/* a pack against itself: everything the same */
	ck_assert_int_eq(compare_new(a, a, &c), 0);
	ck_assert_uint_eq(c->t.same, 3);
	ck_assert_uint_eq(c->t.added_bytes + c->t.lost_bytes + c->t.metadata_added_bytes, 0);
	compare_free(c);
	ura_pack_free(a);
	ura_pack_free(b);
}
END_TEST

/* Another filesystem at the same mount point (its UUID differs): nothing matches */
START_TEST(test_compare_other_fs)
{
	struct ura_pack *a = NULL, *b = NULL;
	struct compare *c = NULL;

	two_packs(&a, &b, 9);
	ck_assert_int_eq(compare_new(a, b, &c), 0);
	ck_assert_uint_eq(c->t.added, 4);
	ck_assert_uint_eq(c->t.lost, 3);
	ck_assert_uint_eq(c->t.changed + c->t.replaced + c->t.same, 0);
	compare_free(c);
	ura_pack_free(a);
	ura_pack_free(b);
}
END_TEST

/* Packs without files or metadata: nothing to list */
START_TEST(test_compare_empty)
{
	struct ura_pack_builder *x = NULL;
	struct ura_pack *a;
	struct compare *c = NULL;
	FILE *null = fopen("/dev/null", "we");

	ck_assert_ptr_nonnull(null);
	ck_assert_int_eq(ura_pack_builder_new(&x), 0);
	a = parse(x);
	ck_assert_int_eq(compare_new(a, a, &c), 0);
	ck_assert_uint_eq(c->nfiles + c->nmetadata, 0);
	ck_assert_int_eq(compare_print(null, c, "a", "a", true), 0);
	fclose(null);
	compare_free(c);
	ura_pack_free(a);
}
END_TEST

START_TEST(test_compare_print)
{
	struct ura_pack *a = NULL, *b = NULL;
	struct compare *c = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	two_packs(&a, &b, 1);
	ck_assert_int_eq(compare_new(a, b, &c), 0);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(compare_print(f, c, "a.pack", "b.pack", false), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "files:     3 in A, 4 in B: 2 added, 1 lost, 1 changed, "
				     "1 replaced, 0 the same\n"));
	ck_assert_ptr_nonnull(strstr(buf, "  +20.0 KiB   -20.0 KiB  changed   /usr/a\n"));
	ck_assert_ptr_nonnull(strstr(buf, "        0 B         0 B  replaced  /usr/b\n"));
	ck_assert_ptr_nonnull(strstr(buf, "        0 B    -4.0 KiB  lost      device 7:3\n"));
	ck_assert(strstr(buf, "/usr/a") < strstr(buf, "/usr/d"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(compare_print(f, c, "a.pack", "b.pack", true), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "{\"path\": \"/mnt/x\", \"status\": \"added\", \"a_bytes\": 0, "
				     "\"b_bytes\": 12288, \"added_bytes\": 12288, \"lost_bytes\": 0"));
	free(buf);
	compare_free(c);
	ura_pack_free(a);
	ura_pack_free(b);
}
END_TEST

static Suite *dump_compare_suite(void)
{
	Suite *s = suite_create("dump-compare");
	TCase *tc = tcase_create("compare");

	tcase_add_test(tc, test_compare_files);
	tcase_add_test(tc, test_compare_other_fs);
	tcase_add_test(tc, test_compare_empty);
	tcase_add_test(tc, test_compare_print);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(dump_compare_suite)
