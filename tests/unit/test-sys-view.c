// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of src/sys-view.c: a view parsed from given mountinfo text, device
 * facts read once (a device sysfs does not know, and a real one against
 * dev-block.c), models set and looked up, references, and a refresh after a
 * mount in a private namespace. sysfs cannot be given another root: the real
 * one is read.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev-block.h"
#include "dev-cache.h"
#include "sys-view.h"
#include "util-log.h"
#include "unit.h"

#define NO_SUCH_MAJOR	4095u		/* no block device has this number */

static const char sample[] =
	"22 27 0:21 / /proc rw,relatime shared:13 - proc proc rw\n"
	"27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
	"31 27 8:17 /srv/data /var/data rw - ext4 /dev/sdb1 rw\n";

static struct sys_view *parse(const char *text)
{
	struct sys_view *v = NULL;

	ck_assert_int_eq(sys_view_parse(text, strlen(text), &v), 0);
	ck_assert_ptr_nonnull(v);
	return v;
}

START_TEST(test_parse)
{
	struct sys_view *v = parse(sample), *bad = NULL;
	const struct mount_table *t = sys_view_mounts(v);
	struct sys_device d;

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->count, 3);
	ck_assert_str_eq(mountinfo_find_dev(t, 8, 17)->mount_point, "/var/data");
	ck_assert_int_eq(sys_view_mounts_error(v), 0);
	/* given text never changes, and holds no device until one is asked for */
	ck_assert_int_eq(sys_view_watch_fd(v), -1);
	ck_assert(!sys_view_changed(v));
	ck_assert_int_eq(sys_view_refresh(&v, false), 0);
	ck_assert_int_eq(sys_view_find_device(v, 8, 17, &d), -ENOENT);
	sys_view_unref(v);

	ck_assert_int_eq(sys_view_parse("1 0 8:1\n", 8, &bad), -EBADMSG);
	ck_assert_ptr_null(bad);		/* *ret untouched on failure */
	sys_view_unref(NULL);
}
END_TEST

/* A device sysfs does not know: asked once, every fact unknown, kept. */
START_TEST(test_unknown_device)
{
	struct sys_view *v = parse(sample);
	struct sys_device d, again;

	ck_assert_int_eq(sys_view_device(v, NO_SUCH_MAJOR, 1, &d), 0);
	ck_assert(!d.exists);
	ck_assert_uint_eq(d.major, NO_SUCH_MAJOR);
	ck_assert_uint_eq(d.minor, 1);
	ck_assert_uint_eq(d.read_ahead_kb + d.max_sectors_kb + d.max_segments + d.max_segment_kb, 0);
	ck_assert(!d.has_rotational && !d.has_disk && !d.model_known);
	ck_assert_uint_eq(d.size, 0);
	ck_assert_str_eq(d.name, "");
	ck_assert_int_eq(sys_view_find_device(v, NO_SUCH_MAJOR, 1, &again), 0);
	ck_assert_mem_eq(&d, &again, sizeof(d));
	ck_assert_int_eq(sys_view_find_device(v, NO_SUCH_MAJOR, 2, &again), -ENOENT);
	sys_view_unref(v);
}
END_TEST

/* The block device of @path, else the first in /sys/dev/block; false when there is none. */
static bool a_block_device(const char *path, unsigned *ret_major, unsigned *ret_minor)
{
	struct dirent *e;
	struct stat st;
	bool found = false;
	DIR *dir;

	if (stat(path, &st) == 0 && major(st.st_dev) != 0 &&
	    dev_block_size(major(st.st_dev), minor(st.st_dev), &(uint64_t){ 0 }) == 0) {
		*ret_major = major(st.st_dev);
		*ret_minor = minor(st.st_dev);
		return true;
	}
	dir = opendir("/sys/dev/block");
	while (dir && !found && (e = readdir(dir)))
		found = sscanf(e->d_name, "%u:%u", ret_major, ret_minor) == 2;
	if (dir)
		closedir(dir);
	return found;
}

/* A real device: the view says what dev-block.c says. */
START_TEST(test_real_device)
{
	struct sys_view *v = parse(sample);
	unsigned ma, mi, ra = 0, maxs = 0, segs = 0, segkb = 0, dma = 0, dmi = 0;
	uint64_t size = 0;
	struct sys_device d;
	char name[32] = "";
	bool rot = false;

	if (!a_block_device("/", &ma, &mi)) {
		fprintf(stderr, "test_real_device: no block device here, not run\n");
		sys_view_unref(v);
		return;
	}
	ck_assert_int_eq(sys_view_device(v, ma, mi, &d), 0);
	ck_assert(d.exists);
	(void)dev_block_get_read_ahead_kb(ma, mi, &ra);
	(void)dev_block_max_sectors_kb(ma, mi, &maxs);
	(void)dev_block_max_segments(ma, mi, &segs, &segkb);
	(void)dev_block_size(ma, mi, &size);
	(void)dev_block_name(ma, mi, name, sizeof(name));
	ck_assert_uint_eq(d.read_ahead_kb, ra);
	ck_assert_uint_eq(d.max_sectors_kb, maxs);
	ck_assert_uint_eq(d.max_segments, segs);
	ck_assert_uint_eq(d.max_segment_kb, segkb);
	ck_assert_uint_eq(d.size, size);
	ck_assert_str_eq(d.name, name);
	ck_assert_int_eq(d.has_rotational, dev_block_is_rotational(ma, mi, &rot) == 0);
	ck_assert_int_eq(d.rotational, rot);
	ck_assert_int_eq(d.has_disk, dev_block_disk(ma, mi, &dma, &dmi) == 0);
	if (d.has_disk) {
		ck_assert_uint_eq(d.disk_major, dma);
		ck_assert_uint_eq(d.disk_minor, dmi);
	}
	sys_view_unref(v);
}
END_TEST

/* Models: a measurement set, a failure set, and a kept one looked for once. */
START_TEST(test_models)
{
	struct sys_view *v = parse(sample);
	char *cache = unit_mkdtemp();
	struct sys_device d;
	struct devmodel m;

	log_set_level(LOG_LVL_ERR - 1);
	ck_assert_int_eq(setenv(DEVCACHE_ENV, cache, 1), 0);
	dev_model_from_costs(&m, 250000, 300ull << 20, true, DEVMODEL_PROBE);
	ck_assert_int_eq(sys_view_set_model(v, NO_SUCH_MAJOR, 1, &m, 0), 0);
	ck_assert_int_eq(sys_view_find_device(v, NO_SUCH_MAJOR, 1, &d), 0);
	ck_assert(d.model_known);
	ck_assert_int_eq(d.model_err, 0);
	ck_assert_int_eq(d.model.source, DEVMODEL_PROBE);
	ck_assert_uint_eq(dev_model_request_ns(&d.model), dev_model_request_ns(&m));
	/* looked for once: the measurement stays */
	ck_assert_int_eq(sys_view_load_model(v, NO_SUCH_MAJOR, 1, &d), 0);
	ck_assert_int_eq(d.model_err, 0);
	ck_assert_int_eq(d.model.source, DEVMODEL_PROBE);

	ck_assert_int_eq(sys_view_set_model(v, NO_SUCH_MAJOR, 2, NULL, -ETIMEDOUT), 0);
	ck_assert_int_eq(sys_view_find_device(v, NO_SUCH_MAJOR, 2, &d), 0);
	ck_assert(d.model_known);
	ck_assert_int_eq(d.model_err, -ETIMEDOUT);

	/* none kept for a device sysfs does not know */
	ck_assert_int_eq(sys_view_load_model(v, NO_SUCH_MAJOR, 3, &d), 0);
	ck_assert(d.model_known);
	ck_assert_int_eq(d.model_err, -ENOENT);
	unsetenv(DEVCACHE_ENV);
	unit_rmtree(cache);
	free(cache);
	sys_view_unref(v);
}
END_TEST

START_TEST(test_references)
{
	struct sys_view *v = parse(sample);

	ck_assert_ptr_eq(sys_view_ref(v), v);
	sys_view_unref(v);
	ck_assert_ptr_nonnull(sys_view_mounts(v));	/* one reference left */
	sys_view_unref(v);
	ck_assert_ptr_null(sys_view_ref(NULL));
}
END_TEST

/* The live system: the mounts read, with or without a watch; no mounts asked for, none read. */
START_TEST(test_read_live)
{
	struct sys_view *v = NULL, *old;
	struct stat st;

	ck_assert_int_eq(sys_view_read(0, &v), 0);
	ck_assert_ptr_null(sys_view_mounts(v));
	ck_assert_int_eq(sys_view_mounts_error(v), 0);
	ck_assert(!sys_view_changed(v));
	sys_view_unref(v);

	ck_assert_int_eq(sys_view_read(SYS_VIEW_MOUNTS, &v), 0);
	ck_assert_ptr_nonnull(sys_view_mounts(v));
	ck_assert_int_eq(stat("/proc", &st), 0);
	ck_assert_ptr_nonnull(mountinfo_find_dev(sys_view_mounts(v), major(st.st_dev),
						 minor(st.st_dev)));
	ck_assert_int_eq(sys_view_watch_fd(v), -1);
	ck_assert(!sys_view_changed(v));	/* not watched */
	sys_view_unref(v);

	ck_assert_int_eq(sys_view_read(SYS_VIEW_WATCH, &v), 0);
	ck_assert_ptr_nonnull(sys_view_mounts(v));
	ck_assert_int_ge(sys_view_watch_fd(v), 0);
	old = v;
	ck_assert_int_eq(sys_view_refresh(&v, true), 1);	/* forced: read again */
	ck_assert_ptr_ne(v, old);
	ck_assert_ptr_nonnull(sys_view_mounts(v));
	sys_view_unref(v);
}
END_TEST

/* A mount in a private namespace flags the view, and a refresh reads the new table. */
START_TEST(test_refresh_after_mount)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sys_view *v = NULL;
		char *dir = unit_mkdtemp();
		int r = 0;

		if (unshare(geteuid() == 0 ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS) < 0 ||
		    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0) {
			rmdir(dir);
			free(dir);
			_exit(77);	/* no namespaces here: nothing to test */
		}
		if (sys_view_read(SYS_VIEW_WATCH, &v) < 0 || sys_view_changed(v) ||
		    sys_view_refresh(&v, false) != 0)
			r = 1;
		else if (mount("none", dir, "tmpfs", 0, NULL) < 0)
			r = 77;
		else if (!sys_view_changed(v))
			r = 2;
		else if (sys_view_refresh(&v, false) != 1 || sys_view_changed(v))
			r = 3;
		else if (!sys_view_mounts(v) ||
			 strcmp(sys_view_mounts(v)->entries[sys_view_mounts(v)->count - 1].mount_point,
				dir) != 0)
			r = 4;
		umount(dir);
		rmdir(dir);
		free(dir);
		sys_view_unref(v);
		_exit(r);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		return;
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

static Suite *sys_view_suite(void)
{
	Suite *s = suite_create("sys-view");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_unknown_device);
	tcase_add_test(tc, test_real_device);
	tcase_add_test(tc, test_models);
	tcase_add_test(tc, test_references);
	tcase_add_test(tc, test_read_live);
	tcase_add_test(tc, test_refresh_after_mount);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(sys_view_suite)
