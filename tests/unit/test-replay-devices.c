// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of src/replay-devices.c: the device table, the step before
 * planning (which devices' models go into the view) and where each cost model
 * comes from (options > the view's kept model > sysfs's guess), with the kept
 * models in a temporary URA_DEVICE_CACHE; and the devices a plan reports.
 * Nothing is measured, no root needed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "dev-cache.h"
#include "sys-view.h"
#include "util-log.h"
#include "replay-devices.h"
#include "replay-plan.h"
#include "unit.h"

#define NO_SUCH_MAJOR	4095u		/* no block device has this number */

static char *cache;
static struct sys_view *view;
static struct replay_devices devs;
static struct replay_options o;
static const bool with_requests[] = { true }, without_requests[] = { false };

static struct sys_view *new_view(void)
{
	struct sys_view *v = NULL;

	ck_assert_int_eq(sys_view_parse("", 0, &v), 0);
	return v;
}

static void setup(void)
{
	log_set_level(LOG_LVL_ERR - 1);
	cache = unit_mkdtemp();
	ck_assert_int_eq(setenv(DEVCACHE_ENV, cache, 1), 0);
	view = new_view();
	devs = (struct replay_devices){ 0 };
	replay_options_init(&o);
	o.dry_run = true;		/* never measure */
}

static void teardown(void)
{
	unsetenv(DEVCACHE_ENV);
	replay_devices_free(&devs);
	sys_view_unref(view);
	view = NULL;
	unit_rmtree(cache);
	free(cache);
	cache = NULL;
}

/*
 * A block device whose model can be kept: the one of the temporary
 * directory, else the first in /sys/dev/block. Return: false if there is none.
 */
static bool find_block_device(unsigned *ret_major, unsigned *ret_minor)
{
	char key[2048];
	struct dirent *e;
	struct stat sb;
	bool found = false;
	DIR *d;

	if (stat(cache, &sb) == 0 &&
	    dev_cache_key(major(sb.st_dev), minor(sb.st_dev), key, sizeof(key)) == 0) {
		*ret_major = major(sb.st_dev);
		*ret_minor = minor(sb.st_dev);
		return true;
	}
	d = opendir("/sys/dev/block");
	while (d && !found && (e = readdir(d))) {
		unsigned ma, mi;

		if (sscanf(e->d_name, "%u:%u", &ma, &mi) == 2 &&
		    dev_cache_key(ma, mi, key, sizeof(key)) == 0) {
			*ret_major = ma;
			*ret_minor = mi;
			found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* Keep a model for MAJ:MIN in the cache: 250 us a request, 300 MiB/s, rotational. */
static void keep_model(unsigned maj, unsigned min)
{
	struct devmodel m;
	char key[2048];

	dev_model_from_costs(&m, 250000, 300ull << 20, true, DEVMODEL_PROBE);
	ck_assert_int_eq(dev_cache_key(maj, min, key, sizeof(key)), 0);
	ck_assert_int_eq(dev_cache_store(cache, key, &m), 0);
}

/* A pack of one file on filesystem MAJ:MIN, its one range demanded or not. */
static struct ura_pack *one_file_pack(unsigned maj, unsigned min, bool demanded)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	struct ura_pack_fs fs = { .major = maj, .minor = min, .mount_point = "/", .fstype = "",
				  .source = "" };
	struct ura_pack_file f = { .path = "f", .path_len = 1, .ino = 12, .size = 8192 };
	struct ura_pack_range rg = { .page_count = 1,
				     .flags = demanded ? URA_PACK_RANGE_DEMANDED : 0 };
	void *data = NULL;
	size_t len = 0;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &fs, &f.fs_index), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &f, &rg.file_index), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &rg), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	free(data);
	ura_pack_builder_free(b);
	return p;
}

/* The step before planning, for a pack of one file on MAJ:MIN, not found now. */
static void prepare(unsigned maj, unsigned min, bool demanded)
{
	struct ura_pack *p = one_file_pack(maj, min, demanded);
	struct replay_fs fs = { .dirfd = -1, .major = maj, .minor = min };

	ck_assert_int_eq(replay_devices_prepare(view, p, &fs, 1, &o), 0);
	ura_pack_free(p);
}

static enum dev_model_source source_of(size_t d, const bool *has_requests)
{
	struct replay_costs costs = replay_costs_of(&o);

	replay_devices_set_up_models(&devs, view, has_requests, &costs);
	return devs.dev[d].model.source;
}

START_TEST(test_find_or_add)
{
	uint32_t a = 9, b = 9, c = 9;
	struct sys_device d;

	ck_assert_int_eq(sys_view_device(view, NO_SUCH_MAJOR, 2, &d), 0);
	ck_assert_int_eq(replay_devices_find_or_add(&devs, view, NO_SUCH_MAJOR, 1, 64 << 10, &a), 0);
	ck_assert_int_eq(replay_devices_find_or_add(&devs, view, NO_SUCH_MAJOR, 2, 0, &b), 0);
	ck_assert_int_eq(replay_devices_find_or_add(&devs, view, NO_SUCH_MAJOR, 1, 0, &c), 0);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(b, 1);
	ck_assert_uint_eq(c, 0);		/* found, not added again */
	ck_assert_uint_eq(devs.n, 2);
	ck_assert_uint_eq(devs.devnum[1][0], NO_SUCH_MAJOR);
	ck_assert_uint_eq(devs.devnum[1][1], 2);
	/* not in the view, or no sysfs entry: the fallback chunk, or --chunk below it; size unknown */
	ck_assert_uint_eq(devs.dev[0].chunk, 64 << 10);
	ck_assert_uint_eq(devs.dev[1].chunk, REPLAY_FALLBACK_CHUNK);
	ck_assert_uint_eq(devs.dev[1].size, 0);
	ck_assert_uint_eq(devs.dev[1].readahead, 0);
}
END_TEST

/* A device unknown to sysfs: the options' figures, else the default guess. */
START_TEST(test_options_beat_the_guess)
{
	uint32_t d;

	prepare(NO_SUCH_MAJOR, 1, true);
	ck_assert_int_eq(replay_devices_find_or_add(&devs, view, NO_SUCH_MAJOR, 1, 0, &d), 0);
	ck_assert_int_eq(source_of(d, with_requests), DEVMODEL_DEFAULT);
	ck_assert(!devs.dev[d].rotational);

	o.request_ns = 3000000;
	ck_assert_int_eq(source_of(d, with_requests), DEVMODEL_OPTIONS);
	ck_assert_uint_ge(dev_model_request_ns(&devs.dev[d].model), 3000000);
	ck_assert_uint_lt(dev_model_request_ns(&devs.dev[d].model), 3100000);

	o.rotational = 1;			/* --rotational yes overrides the model */
	(void)source_of(d, with_requests);
	ck_assert(devs.dev[d].rotational);
	ck_assert(replay_devices_any_rotational(&devs));

	ck_assert_int_eq(source_of(d, without_requests), DEVMODEL_OPTIONS);
}
END_TEST

/* Which devices the step before planning looks up a model for. */
START_TEST(test_prepare)
{
	struct sys_device d;

	/* a range to read: its device's facts and (none kept) model are in the view */
	prepare(NO_SUCH_MAJOR, 1, true);
	ck_assert_int_eq(sys_view_find_device(view, NO_SUCH_MAJOR, 1, &d), 0);
	ck_assert(!d.exists);
	ck_assert(d.model_known);
	ck_assert_int_eq(d.model_err, -ENOENT);

	/* only speculative pages, without --all: the facts, but no model looked for */
	prepare(NO_SUCH_MAJOR, 2, false);
	ck_assert_int_eq(sys_view_find_device(view, NO_SUCH_MAJOR, 2, &d), 0);
	ck_assert(!d.model_known);
	o.all = true;
	prepare(NO_SUCH_MAJOR, 2, false);
	ck_assert_int_eq(sys_view_find_device(view, NO_SUCH_MAJOR, 2, &d), 0);
	ck_assert(d.model_known);

	/* the options' figures: no model looked for */
	o.bandwidth = 50ull << 20;
	prepare(NO_SUCH_MAJOR, 3, true);
	ck_assert_int_eq(sys_view_find_device(view, NO_SUCH_MAJOR, 3, &d), 0);
	ck_assert(!d.model_known);
}
END_TEST

/* options > a kept model > sysfs's guess, on a real block device */
START_TEST(test_kept_model)
{
	unsigned maj, min;
	enum dev_model_source guess;
	struct devmodel m;
	uint32_t d;

	if (!find_block_device(&maj, &min)) {
		fprintf(stderr, "test_kept_model: no block device here, not run\n");
		return;
	}
	prepare(maj, min, true);
	ck_assert_int_eq(replay_devices_find_or_add(&devs, view, maj, min, 0, &d), 0);
	guess = source_of(d, with_requests);
	ck_assert(guess == DEVMODEL_SYSFS || guess == DEVMODEL_DEFAULT);

	/* kept now: the view read before does not know; a new one does */
	keep_model(maj, min);
	ck_assert_int_eq(source_of(d, with_requests), guess);
	sys_view_unref(view);
	view = new_view();
	prepare(maj, min, true);
	ck_assert_int_eq(source_of(d, with_requests), DEVMODEL_CACHE);
	ck_assert(devs.dev[d].rotational);	/* the kept model's flag, not sysfs's */
	ck_assert_uint_ge(dev_model_request_ns(&devs.dev[d].model), 250000);
	ck_assert_uint_lt(dev_model_request_ns(&devs.dev[d].model), 300000);

	/* not a dry run, but no files of the pack on it now: the kept model, nothing measured */
	sys_view_unref(view);
	view = new_view();
	o.dry_run = false;
	prepare(maj, min, true);
	ck_assert_int_eq(source_of(d, with_requests), DEVMODEL_CACHE);
	o.dry_run = true;

	/* a device without requests does not get it */
	ck_assert_int_eq(source_of(d, without_requests), guess);

	o.bandwidth = 50ull << 20;
	ck_assert_int_eq(source_of(d, with_requests), DEVMODEL_OPTIONS);

	/* a model the view holds already (the exec daemon's) is not looked for again */
	o.bandwidth = 0;
	sys_view_unref(view);
	view = new_view();
	dev_model_from_costs(&m, 1000000, 10ull << 20, false, DEVMODEL_PROBE);
	ck_assert_int_eq(sys_view_set_model(view, maj, min, &m, 0), 0);
	prepare(maj, min, true);
	ck_assert_int_eq(source_of(d, with_requests), DEVMODEL_PROBE);

	/* the model is looked up in $URA_DEVICE_CACHE: another directory has none */
	ck_assert_int_eq(setenv(DEVCACHE_ENV, "/nonexistent/ura-devices", 1), 0);
	sys_view_unref(view);
	view = new_view();
	prepare(maj, min, true);
	ck_assert_int_eq(source_of(d, with_requests), guess);
}
END_TEST

/* A plan reports the devices it reads from, with their models; its files and bytes. */
START_TEST(test_plan_reports)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	struct replay_plan plan;
	struct replay_fs fs[2] = { { .dirfd = -1, .major = NO_SUCH_MAJOR, .minor = 1 },
				   { .dirfd = -1, .major = NO_SUCH_MAJOR, .minor = 2 } };
	struct ura_pack_file f = { .path = "f", .path_len = 1, .ino = 12, .size = 1 << 20 };
	struct ura_pack_range rg = { .page_count = 4, .flags = URA_PACK_RANGE_DEMANDED };
	void *data = NULL;
	size_t len = 0;

	/* the first filesystem has a demanded range, the second a speculative one only */
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	for (int i = 0; i < 2; i++) {
		struct ura_pack_fs pf = { .major = NO_SUCH_MAJOR, .minor = (uint32_t)i + 1,
					  .mount_point = i ? "/b" : "/a", .fstype = "", .source = "" };

		ck_assert_int_eq(ura_pack_builder_add_fs(b, &pf, &f.fs_index), 0);
		ck_assert_int_eq(ura_pack_builder_add_file(b, &f, &rg.file_index), 0);
		ck_assert_int_eq(ura_pack_builder_add_range(b, &rg), 0);
		rg.flags = 0;
	}
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	free(data);
	ura_pack_builder_free(b);

	ck_assert_int_eq(replay_devices_prepare(view, p, fs, 2, &o), 0);
	ck_assert_int_eq(replay_plan_build(p, view, fs, 2, &o, &plan), 0);
	ck_assert_uint_eq(plan.counts.ndevs, 1);	/* only devices with requests */
	ck_assert_uint_eq(plan.counts.devs[0].minor, 1);
	ck_assert_int_eq(plan.counts.devs[0].source, DEVMODEL_DEFAULT);
	ck_assert_uint_eq(plan.counts.devs[0].plan_bytes, 4 * 4096);
	ck_assert_uint_eq(plan.counts.devs[0].plan_requests, plan.nreq);
	ck_assert_uint_eq(plan.counts.files, 1);
	ck_assert_uint_eq(plan.counts.pack_bytes, 4 * 4096);
	ck_assert_uint_eq(plan.counts.past_eof_bytes, 0);
	ck_assert_uint_eq(plan.counts.plan_ns, plan.counts.devs[0].plan_ns);
	replay_plan_free(&plan);

	o.all = true;				/* the speculative range too: both devices */
	ck_assert_int_eq(replay_plan_build(p, view, fs, 2, &o, &plan), 0);
	ck_assert_uint_eq(plan.counts.ndevs, 2);
	ck_assert_uint_eq(plan.counts.files, 2);
	replay_plan_free(&plan);
	ura_pack_free(p);
}
END_TEST

static Suite *replay_devices_suite(void)
{
	Suite *s = suite_create("replay-devices");
	TCase *tc = tcase_create("models");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_find_or_add);
	tcase_add_test(tc, test_options_beat_the_guess);
	tcase_add_test(tc, test_prepare);
	tcase_add_test(tc, test_kept_model);
	tcase_add_test(tc, test_plan_reports);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(replay_devices_suite)
