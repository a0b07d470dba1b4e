// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/shared/sys-reclaim.c: the page-cache reclaim count of /proc/vmstat */
#include <errno.h>
#include <string.h>

#include "sys-reclaim.h"
#include "unit.h"

START_TEST(test_sum_of_counters)
{
	const char *t = "nr_free_pages 100\npgsteal_file 7\npgsteal_anon 1000\n"
			"pgsteal_kswapd 11\npgsteal_direct 13\npgscan_kswapd 99\n"
			"pginodesteal 2\nkswapd_inodesteal 3\ndrop_pagecache 5\ndrop_slab 9\n";
	uint64_t n = 0;

	ck_assert_int_eq(reclaim_parse(t, strlen(t), &n), 0);
	ck_assert_uint_eq(n, 7 + 11 + 13 + 2 + 3 + 5);
}
END_TEST

START_TEST(test_prefixes_are_not_counters)
{
	/* pgsteal_file_x and a name cut short are other counters; the last line has no newline */
	const char *t = "pgsteal_file_x 50\npgsteal_fil 40\ndrop_pagecache 1";
	uint64_t n = 0;

	ck_assert_int_eq(reclaim_parse(t, strlen(t), &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(reclaim_parse("nr_free_pages 3\n", 16, &n), -ENOENT);
	ck_assert_int_eq(reclaim_parse("", 0, &n), -ENOENT);
}
END_TEST

START_TEST(test_this_kernel)
{
	uint64_t a = 0, b = 0;

	/* every kernel ura runs on has drop_pagecache (4.x); the count never goes back */
	ck_assert_int_eq(reclaim_count(&a), 0);
	ck_assert_int_eq(reclaim_count(&b), 0);
	ck_assert_uint_ge(b, a);
}
END_TEST

static Suite *reclaim_suite(void)
{
	Suite *s = suite_create("reclaim");
	TCase *tc = tcase_create("reclaim");

	tcase_add_test(tc, test_sum_of_counters);
	tcase_add_test(tc, test_prefixes_are_not_counters);
	tcase_add_test(tc, test_this_kernel);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(reclaim_suite)
