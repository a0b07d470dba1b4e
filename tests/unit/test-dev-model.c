// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/dev-model.c and src/dev-cache.c: costs, text form, the kept models */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dev-cache.h"
#include "dev-model.h"
#include "unit.h"

START_TEST(test_from_costs)
{
	struct devmodel m;

	/* 8 ms and 120 MiB/s: 4 KiB costs 8 ms + 32.6 us, 1 MiB 8 ms + 8.33 ms */
	dev_model_from_costs(&m, 8000000, 120u << 20, true, DEVMODEL_OPTIONS);
	ck_assert(dev_model_valid(&m));
	ck_assert(m.rotational);
	ck_assert_uint_eq(dev_model_cost(&m, 0), 0);
	ck_assert_uint_eq(dev_model_cost(&m, 4096), 8000000 + 32552);
	ck_assert_uint_ge(dev_model_cost(&m, 1u << 20), 16333000);
	ck_assert_uint_le(dev_model_cost(&m, 1u << 20), 16334000);
	ck_assert_uint_eq(dev_model_request_ns(&m), 8032552);
	/* the largest point's throughput: within 2% of the bandwidth */
	ck_assert_uint_ge(dev_model_bandwidth(&m), (120u << 20) / 100 * 98);
	ck_assert_uint_le(dev_model_bandwidth(&m), 120u << 20);
	ck_assert_str_eq(dev_model_source_name(m.source), "options");
}
END_TEST

/* Between points, linear; below the first, its cost; past the last, the last slope. */
START_TEST(test_interpolation)
{
	struct devmodel m = { .n = 3, .size = { 4096, 65536, 1048576 },
			      .ns = { 1000, 1000, 16000 } };

	ck_assert(dev_model_valid(&m));
	ck_assert_uint_eq(dev_model_cost(&m, 1), 1000);
	ck_assert_uint_eq(dev_model_cost(&m, 32768), 1000);
	ck_assert_uint_eq(dev_model_cost(&m, 65536 + (1048576 - 65536) / 2), 8500);
	ck_assert_uint_eq(dev_model_cost(&m, 2 * 1048576 - 65536), 31000);
	ck_assert_uint_eq(dev_model_bandwidth(&m), 1048576ull * 1000000000 / 16000);
}
END_TEST

START_TEST(test_invalid_models)
{
	struct devmodel m = { .n = 2, .size = { 65536, 4096 }, .ns = { 1, 2 } };

	ck_assert(!dev_model_valid(&m));		/* sizes must increase */
	m = (struct devmodel){ .n = 2, .size = { 4096, 65536 }, .ns = { 5, 4 } };
	ck_assert(!dev_model_valid(&m));		/* a larger read never costs less */
	m = (struct devmodel){ .n = 0 };
	ck_assert(!dev_model_valid(&m));
	m = (struct devmodel){ .n = 1, .size = { 4096 }, .ns = { 0 } };
	ck_assert(!dev_model_valid(&m));
}
END_TEST

START_TEST(test_text_round_trip)
{
	struct devmodel m = { .n = 3, .size = { 4096, 65536, 4194304 },
			      .ns = { 666667, 666667, 27962027 }, .rotational = false };
	struct devmodel back;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(dev_model_write(f, &m), 0);
	fclose(f);
	ck_assert_int_eq(dev_model_parse(text, &back), 0);
	ck_assert_uint_eq(back.n, 3);
	ck_assert_uint_eq(back.ns[2], 27962027);
	ck_assert_int_eq(back.source, DEVMODEL_CACHE);
	free(text);
	ck_assert_int_eq(dev_model_parse("rotational 1\npoint 4096 100\npoint 8192 150\n", &back), 0);
	ck_assert(back.rotational);
	/* the cache's own lines may be long */
	ck_assert_int_eq(dev_model_parse("key dev=1:2 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
					"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
					"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nmeasured 5\n"
					"point 4096 100\npoint 8192 150\n", &back), 0);
}
END_TEST

/*
 * How costs combine, from the probe's figures: emmc-like budgets (1500 reads/s,
 * 150 MB/s) make a mix of ten 4 KiB reads and one of 1 MiB cost what its 1 MiB
 * costs; a device whose costs add up makes it cost its parts. Where one budget
 * binds whatever the mix (hdd-like: 150 reads/s), the model stays additive.
 */
START_TEST(test_classify)
{
	struct devmodel m = { 0 };
	uint64_t small = 666667, large = 6990507;	/* 1 read at 1500/s; 1 MiB at 150 MB/s */

	dev_model_classify(&m, 4096, small, 1 << 20, large, 10, 7400000);
	ck_assert_int_eq(m.combine, DEVMODEL_BUDGETS);
	ck_assert_uint_eq(m.iops, 1499);
	ck_assert_uint_ge(m.bps, 149000000);
	ck_assert_uint_le(m.bps, 151000000);
	dev_model_classify(&m, 4096, small, 1 << 20, large, 10, 10 * small + large);
	ck_assert_int_eq(m.combine, DEVMODEL_ADDITIVE);
	ck_assert_uint_eq(m.bps, 0);
	dev_model_classify(&m, 4096, 6666667, 1 << 20, 8738133, 10, 73400000);
	ck_assert_int_eq(m.combine, DEVMODEL_ADDITIVE);
	/* the total: the larger budget, or the sum for costs that add up */
	m = (struct devmodel){ .combine = DEVMODEL_BUDGETS, .bps = 100000000, .iops = 1000 };
	ck_assert_uint_eq(dev_model_total(&m, 100000000, 10, 5), 1000000000);
	ck_assert_uint_eq(dev_model_total(&m, 1000, 2000, 5), 2000000000);
	m.combine = DEVMODEL_ADDITIVE;
	ck_assert_uint_eq(dev_model_total(&m, 100000000, 10, 5), 5);
}
END_TEST

START_TEST(test_budgets_text)
{
	struct devmodel m, back;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	dev_model_from_costs(&m, 666667, 150000000, false, DEVMODEL_PROBE);
	m.combine = DEVMODEL_BUDGETS;
	m.bps = 150000000;
	m.iops = 1500;
	f = open_memstream(&text, &len);
	ck_assert_int_eq(dev_model_write(f, &m), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "budgets 150000000 1500\n"));
	ck_assert_int_eq(dev_model_parse(text, &back), 0);
	ck_assert_int_eq(back.combine, DEVMODEL_BUDGETS);
	ck_assert_uint_eq(back.bps, 150000000);
	ck_assert_uint_eq(back.iops, 1500);
	free(text);
	/* a budget of nothing is no model */
	ck_assert_int_eq(dev_model_parse("point 4096 1000\npoint 8192 2000\nbudgets 0 5\n", &back),
			 -EBADMSG);
}
END_TEST

START_TEST(test_text_rejects)
{
	static const char *const bad[] = {
		"", "point 4096\n", "point 4096 100 7\n", "rotational 2\npoint 4096 1\n",
		"point 65536 10\npoint 4096 20\n", "point 4096 0\n", "bogus\npoint 4096 1\n",
		("point 1 1\npoint 2 1\npoint 3 1\npoint 4 1\npoint 5 1\npoint 6 1\npoint 7 1\n"
		 "point 8 1\npoint 9 1\n"),
		"point -1 5\n",
	};
	struct devmodel m = { .n = 77 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(dev_model_parse(bad[i], &m) == -EBADMSG, "accepted '%s'", bad[i]);
	ck_assert_uint_eq(m.n, 77);		/* untouched on failure */
}
END_TEST

START_TEST(test_cache)
{
	char *dir = unit_mkdtemp(), sub[512], path[600];
	struct devmodel m = { .n = 2, .size = { 4096, 1048576 }, .ns = { 500000, 52000000 },
			      .rotational = true };
	struct devmodel back = { 0 };


	snprintf(sub, sizeof(sub), "%s/a/devices", dir);
	ck_assert_int_eq(dev_cache_load(sub, "dev=7:0 sectors=8", &back), -ENOENT);
	ck_assert_int_eq(dev_cache_store(sub, "dev=7:0 sectors=8", &m), 0);
	ck_assert_int_eq(dev_cache_load(sub, "dev=7:0 sectors=8", &back), 0);
	ck_assert_int_eq(back.source, DEVMODEL_CACHE);
	ck_assert(back.rotational);
	ck_assert_uint_eq(back.ns[1], 52000000);
	/* another device, or the same under other I/O limits, has none yet */
	ck_assert_int_eq(dev_cache_load(sub, "dev=7:0 sectors=9", &back), -ENOENT);
	ck_assert_int_eq(dev_cache_store(sub, "bad\nkey", &m), -EINVAL);
	/* written by someone else, or writable by others: refused */
	snprintf(path, sizeof(path), "chmod 666 %s/*.model", sub);
	ck_assert_int_eq(system(path), 0);
	ck_assert_int_eq(dev_cache_load(sub, "dev=7:0 sectors=8", &back), -EPERM);
	/* corrupt */
	snprintf(path, sizeof(path), "for f in %s/*.model; do chmod 644 $f; "
		 "printf 'key dev=7:0 sectors=8\\npoint x\\n' >$f; done", sub);
	ck_assert_int_eq(system(path), 0);
	ck_assert_int_eq(dev_cache_load(sub, "dev=7:0 sectors=8", &back), -EBADMSG);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_failure_remembered)
{
	char *dir = unit_mkdtemp(), path[4096] = "";
	struct dirent *e;
	DIR *d;
	FILE *f;

	ck_assert_int_eq(dev_cache_recent_failure(dir, "dev=7:0 sectors=8"), 0);
	dev_cache_remember_failure(dir, "dev=7:0 sectors=8", -EIO);
	ck_assert_int_eq(dev_cache_recent_failure(dir, "dev=7:0 sectors=8"), -EIO);
	ck_assert_int_eq(dev_cache_recent_failure(dir, "dev=7:0 sectors=9"), 0);
	dev_cache_remember_failure(dir, "dev=7:2", -ENOMEM);	/* not the device's fault */
	ck_assert_int_eq(dev_cache_recent_failure(dir, "dev=7:2"), 0);
	dev_cache_remember_failure(dir, "dev=7:3", -ETIMEDOUT);
	ck_assert_int_eq(dev_cache_recent_failure(dir, "dev=7:3"), -ETIMEDOUT);
	/* a day later it is tried again */
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".failed")) {
			char text[128] = "";
			FILE *g;

			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			g = fopen(path, "re");
			if (g && fgets(text, sizeof(text), g) && strcmp(text, "key dev=7:0 sectors=8\n"))
				path[0] = '\0';	/* another key's */
			if (g)
				fclose(g);
			if (path[0])
				break;
		}
	closedir(d);
	ck_assert_str_ne(path, "");
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "key dev=7:0 sectors=8\nfailed 5 %lld\n", (long long)time(NULL) - 25 * 3600);
	fclose(f);
	ck_assert_int_eq(dev_cache_recent_failure(dir, "dev=7:0 sectors=8"), 0);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *dev_model_suite(void)
{
	Suite *s = suite_create("devmodel");
	TCase *tc = tcase_create("devmodel");

	tcase_add_test(tc, test_from_costs);
	tcase_add_test(tc, test_interpolation);
	tcase_add_test(tc, test_invalid_models);
	tcase_add_test(tc, test_text_round_trip);
	tcase_add_test(tc, test_classify);
	tcase_add_test(tc, test_budgets_text);
	tcase_add_test(tc, test_text_rejects);
	tcase_add_test(tc, test_cache);
	tcase_add_test(tc, test_failure_remembered);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(dev_model_suite)
