// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/replay/watch-alias.c: packs of symlinked programs, by the file they lead to */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "key.h"
#include "sys-mountinfo.h"
#include "watch-alias.h"
#include "watch-names.h"
#include "unit.h"

static char dir[PATH_MAX];
static struct mount_table mounts;
static const struct key_root self = { .id = 0, .path = "/" };

/* openat2() is there (valgrind does not know it) */
static bool have_openat2(void)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void setup(void)
{
	char p[PATH_MAX * 2];

	snprintf(dir, sizeof(dir), "/var/tmp/ura-alias-test.XXXXXX");
	if (!mkdtemp(dir)) {
		snprintf(dir, sizeof(dir), "/tmp/ura-alias-test.XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(dir));
	}
	snprintf(p, sizeof(p), "%s/real", dir);
	close(open(p, O_CREAT | O_WRONLY, 0755));
	snprintf(p, sizeof(p), "%s/link", dir);
	ck_assert_int_eq(symlink("real", p), 0);
	snprintf(p, sizeof(p), "%s/link2", dir);
	ck_assert_int_eq(symlink("link", p), 0);
	snprintf(p, sizeof(p), "%s/out", dir);
	ck_assert_int_eq(symlink("/proc/self/status", p), 0);	/* another mount */
	ck_assert_int_eq(mountinfo_read("/proc/self/mountinfo", &mounts), 0);
}

static void teardown(void)
{
	static const char *const names[] = { "real", "link", "link2", "out" };
	char p[PATH_MAX * 2];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	mountinfo_free(&mounts);
}

static char *name_of(const char *base)
{
	char path[PATH_MAX * 2], name[NAME_MAX + 1];

	snprintf(path, sizeof(path), "%s/%s", dir, base);
	ck_assert_int_gt(key_pack_name(0, path, name, sizeof(name)), 0);
	return strdup(name);
}

START_TEST(test_resolve)
{
	char buf[PATH_MAX], want[PATH_MAX * 2], *n;

	if (!have_openat2())
		return;
	snprintf(want, sizeof(want), "%s/real", dir);
	n = name_of("link");
	ck_assert_int_eq(watch_alias_resolve(n, &self, &mounts, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, want);
	free(n);
	n = name_of("link2");	/* a chain */
	ck_assert_int_eq(watch_alias_resolve(n, &self, &mounts, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, want);
	free(n);
	n = name_of("real");	/* no symlink: no alias */
	ck_assert_int_eq(watch_alias_resolve(n, &self, &mounts, buf, sizeof(buf)), 0);
	free(n);
	n = name_of("gone");
	ck_assert_int_eq(watch_alias_resolve(n, &self, &mounts, buf, sizeof(buf)), 0);
	free(n);
	n = name_of("out");	/* to another mount: never followed */
	ck_assert_int_lt(watch_alias_resolve(n, &self, &mounts, buf, sizeof(buf)), 0);
	free(n);
	/* another root's name, and no mounts known */
	ck_assert_int_eq(watch_alias_resolve("@0123456789abcdef-usr-bin-true.pack", &self, &mounts,
					     buf, sizeof(buf)), -EINVAL);
	ck_assert_int_lt(watch_alias_resolve("usr-bin-true.pack", &self, NULL, buf, sizeof(buf)), 0);
}
END_TEST

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_find)
{
	struct watch_alias a = { 0 };
	struct watch_names x = { 0 };
	char *names[3], want[PATH_MAX * 2], real[PATH_MAX * 2];
	const char *got;
	uint64_t id;

	if (!have_openat2())
		return;
	snprintf(real, sizeof(real), "%s/real", dir);
	names[0] = name_of("link");
	names[1] = name_of("out");
	x.names = names;
	x.n = 2;
	x.reads = 1;
	qsort(names, x.n, sizeof(*names), cmp);
	watch_alias_update(&a, &x, &self, &mounts, 1);
	got = watch_alias_find(&a, 0, real);
	ck_assert_ptr_nonnull(got);
	ck_assert_int_gt(key_pack_path(got, &id, want, sizeof(want)), 0);
	ck_assert_str_eq(want + strlen(dir), "/link");
	ck_assert_ptr_null(watch_alias_find(&a, 0, "/proc/self/status"));
	ck_assert_uint_eq(a.resolved, 2);
	/* the same names: nothing resolved again, until WATCH_ALIAS_AGAIN_NS passed */
	watch_alias_update(&a, &x, &self, &mounts, 2);
	ck_assert_uint_eq(a.resolved, 2);
	/* a name added: only it is resolved; two packs lead to the file: no alias */
	names[2] = name_of("link2");
	x.n = 3;
	x.reads = 2;
	qsort(names, x.n, sizeof(*names), cmp);
	watch_alias_update(&a, &x, &self, &mounts, 3);
	ck_assert_uint_eq(a.resolved, 3);
	ck_assert_ptr_null(watch_alias_find(&a, 0, real));
	/* each looked up again WATCH_ALIAS_AGAIN_NS after it was */
	watch_alias_update(&a, &x, &self, &mounts, 1 + WATCH_ALIAS_AGAIN_NS);
	ck_assert_uint_eq(a.resolved, 5);
	/* the other one gone: the alias is back */
	for (size_t i = 0; i < 3; i++)
		if (strstr(names[i], "link2")) {
			free(names[i]);
			names[i] = names[2];
			break;
		}
	x.n = 2;
	x.reads = 3;
	qsort(names, x.n, sizeof(*names), cmp);
	watch_alias_update(&a, &x, &self, &mounts, 2 + WATCH_ALIAS_AGAIN_NS);
	ck_assert_ptr_nonnull(watch_alias_find(&a, 0, real));
	watch_alias_free(&a);
	for (size_t i = 0; i < x.n; i++)
		free(names[i]);
}
END_TEST

/* A chroot's packs: looked up in that root, only for an exec in it. */
START_TEST(test_other_root)
{
	struct key_root croot = { .id = 0x1234 };
	struct watch_alias a = { 0 };
	struct watch_names x = { 0 };
	char name[NAME_MAX + 1], buf[PATH_MAX], *names[1] = { name };

	if (!have_openat2())
		return;
	snprintf(croot.path, sizeof(croot.path), "%s", dir);
	ck_assert_int_gt(key_pack_name(croot.id, "/link2", name, sizeof(name)), 0);
	ck_assert_int_eq(watch_alias_resolve(name, &croot, &mounts, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "/real");
	ck_assert_int_eq(watch_alias_resolve(name, &self, &mounts, buf, sizeof(buf)), -EINVAL);
	x.names = names;
	x.n = 1;
	x.reads = 1;
	watch_alias_update(&a, &x, &self, &mounts, 1);
	ck_assert_uint_eq(a.resolved, 0);	/* not the daemon's root's */
	ck_assert_ptr_null(watch_alias_find(&a, croot.id, "/real"));
	watch_alias_update(&a, &x, &croot, &mounts, 2);
	ck_assert_uint_eq(a.resolved, 1);
	ck_assert_str_eq(watch_alias_find(&a, croot.id, "/real"), name);
	ck_assert_ptr_null(watch_alias_find(&a, 0, "/real"));
	watch_alias_free(&a);
}
END_TEST

static Suite *watch_alias_suite(void)
{
	Suite *s = suite_create("watch-alias");
	TCase *tc = tcase_create("watch-alias");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_other_root);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(watch_alias_suite)
