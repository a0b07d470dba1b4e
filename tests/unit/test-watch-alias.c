// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/replay/watch-alias.c: packs of symlinked programs, by the file they lead to */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "key.h"
#include "sys-mountinfo.h"
#include "watch-alias.h"
#include "watch-names.h"
#include "unit.h"

/* a root of its own (a chroot's), made by setup(): ROOT/bin/..., ROOT/etc/hostname */
static char dir[PATH_MAX];
static int root_fd = -1;
static struct mount_table mounts;

static const struct {
	const char *path, *to;	/* a symlink to @to, or a file */
} tree[] = {
	{ "bin", NULL },
	{ "etc", NULL },
	{ "bin/real", "" },
	{ "etc/hostname", "" },
	{ "bin/link", "real" },			/* a relative symlink */
	{ "bin/abs", "/bin/real" },		/* absolute: inside the root */
	{ "bin/link3", "./real" },		/* another link to the same file */
	{ "bin/chain", "link" },		/* a symlink to a symlink: not followed */
	{ "bin/up", "../../../../../../../etc/hostname" },	/* ".." stops at the root */
	{ "bin/proc", "/proc/self/status" },	/* not the daemon's /proc: the root's */
	{ "bin/users", "real" },		/* not root's: lchown()ed below */
	{ "bin/dir", "/etc" },			/* not a regular file */
	{ "via", "bin" },			/* a symlink on the way to a pack's path */
};

/* openat2() with RESOLVE_CACHED (valgrind does not know the call) */
static bool have_openat2(void)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_CACHED };
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
	for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, tree[i].path);
		if (!tree[i].to)
			ck_assert_int_eq(mkdir(p, 0755), 0);
		else if (!tree[i].to[0])
			close(open(p, O_CREAT | O_WRONLY, 0755));
		else
			ck_assert_int_eq(symlink(tree[i].to, p), 0);
	}
	snprintf(p, sizeof(p), "%s/bin/users", dir);
	if (geteuid() == 0)
		ck_assert_int_eq(lchown(p, 65534, 65534), 0);
	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(root_fd, 0);
	ck_assert_int_eq(mountinfo_read("/proc/self/mountinfo", &mounts), 0);
}

static void teardown(void)
{
	char p[PATH_MAX * 2];

	for (size_t i = sizeof(tree) / sizeof(tree[0]); i-- > 0;) {
		snprintf(p, sizeof(p), "%s/%s", dir, tree[i].path);
		if (!tree[i].to)
			rmdir(p);
		else
			unlink(p);
	}
	rmdir(dir);
	close(root_fd);
	mountinfo_free(&mounts);
}

#define ROOT_ID	0x1234ull

/* The pack name of @path in the test's root; malloc()ed. */
static char *name_of(const char *path)
{
	char name[NAME_MAX + 1];

	ck_assert_int_gt(key_pack_name(ROOT_ID, path, name, sizeof(name)), 0);
	return strdup(name);
}

/*
 * Looked up as watch_alias_resolve() does, again while the caches cannot answer: a lookup
 * from the caches fails when anything on the system is mounted or renamed meanwhile.
 */
static int resolve(const char *path, struct stat *ret)
{
	char *n = name_of(path);
	dev_t dev = 0;
	ino_t ino = 0;
	int r, tries = 0;

	while ((r = watch_alias_resolve(n, ROOT_ID, root_fd, dir, &mounts, &dev, &ino)) == -EAGAIN &&
	       ++tries < 200)
		usleep(1000);	/* a mount or a rename anywhere (CI mounts loop devices) */

	free(n);
	ret->st_dev = dev;
	ret->st_ino = ino;
	return r;
}

START_TEST(test_resolve)
{
	struct stat real, host_name, got;
	char p[PATH_MAX * 2];
	int r;

	if (!have_openat2())
		return;
	if (geteuid() != 0) {	/* the test's symlinks are then a user's: never followed */
		ck_assert_int_eq(resolve("/bin/link", &got), 0);
		return;
	}
	snprintf(p, sizeof(p), "%s/bin/real", dir);
	ck_assert_int_eq(stat(p, &real), 0);
	ck_assert_int_eq(resolve("/bin/link", &got), 1);
	ck_assert(got.st_dev == real.st_dev && got.st_ino == real.st_ino);
	ck_assert_int_eq(resolve("/bin/abs", &got), 1);	/* "/" is the root's */
	ck_assert(got.st_dev == real.st_dev && got.st_ino == real.st_ino);
	ck_assert_int_eq(resolve("/bin/link3", &got), 1);	/* "./real" */
	ck_assert(got.st_dev == real.st_dev && got.st_ino == real.st_ino);
	ck_assert_int_eq(resolve("/bin/chain", &got), 0);
	ck_assert_int_eq(resolve("/bin/real", &got), 0);	/* no symlink: no alias */
	r = resolve("/bin/gone", &got);	/* nothing there, or not known yet without a read */
	ck_assert_msg(r == 0 || r == -EAGAIN, "%d", r);
	r = resolve("/bin/proc", &got);	/* the root has no /proc */
	ck_assert_msg(r == 0 || r == -EAGAIN, "%d", r);
	r = resolve("/bin/dir", &got);		/* a directory */
	ck_assert_msg(r == 0 || r == -EAGAIN, "%d", r);
	ck_assert_int_eq(resolve("/bin/users", &got), 0);
	r = resolve("/via/link", &got);		/* only the pack's path itself is a symlink */
	ck_assert_msg(r == 0 || r == -EAGAIN, "%d", r);
	/* ".." stops at the root: the root's /etc/hostname, never the daemon's */
	ck_assert_int_eq(resolve("/bin/up", &got), 1);
	snprintf(p, sizeof(p), "%s/etc/hostname", dir);
	ck_assert_int_eq(stat(p, &host_name), 0);
	ck_assert(got.st_dev == host_name.st_dev && got.st_ino == host_name.st_ino);
	/* a name of another root */
	{
		dev_t d;
		ino_t i;

		ck_assert_int_eq(watch_alias_resolve("usr-bin-true.pack", ROOT_ID, root_fd, dir, &mounts,
						     &d, &i), -EINVAL);
	}
}
END_TEST

/* watch_alias_lookup() at @now, then again while a path was not answered from the caches */
static void lookup_all(struct watch_alias *a, uint64_t now)
{
	watch_alias_lookup(a, ROOT_ID, root_fd, dir, &mounts, now, false);
	for (int tries = 0; tries < 200; tries++) {
		bool again = false;

		for (size_t i = 0; i < a->n; i++)
			if (a->e[i].uncached) {
				a->e[i].retries = 0;
				again = true;
			}
		if (!again)
			break;
		usleep(1000);
		watch_alias_lookup(a, ROOT_ID, root_fd, dir, &mounts, now, true);
	}
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_find)
{
	struct watch_alias a = { 0 };
	struct watch_names x = { 0 };
	char *names[3], p[PATH_MAX * 2], path[PATH_MAX];
	struct stat real;
	const char *got;
	uint64_t id;

	if (!have_openat2() || geteuid() != 0)
		return;	/* the test's symlinks must be root's */
	snprintf(p, sizeof(p), "%s/bin/real", dir);
	ck_assert_int_eq(stat(p, &real), 0);
	names[0] = name_of("/bin/link");
	names[1] = name_of("/bin/proc");
	names[2] = name_of("/bin/link3");
	x.names = names;
	x.n = 2;
	x.reads = 1;
	qsort(names, x.n, sizeof(*names), cmp);
	ck_assert(!watch_alias_due(&a, &x, 0, 1));	/* no pack of the daemon's root */
	ck_assert(watch_alias_due(&a, &x, ROOT_ID, 1));
	lookup_all(&a, 1);
	ck_assert_uint_ge(a.resolved, 2);
	got = watch_alias_find(&a, ROOT_ID, real.st_dev, real.st_ino);
	ck_assert_ptr_nonnull(got);
	ck_assert_int_gt(key_pack_path(got, &id, path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/bin/link");
	ck_assert_uint_eq(id, ROOT_ID);
	ck_assert_ptr_null(watch_alias_find(&a, 0, real.st_dev, real.st_ino));	/* another root */
	ck_assert_ptr_null(watch_alias_find(&a, ROOT_ID, real.st_dev, real.st_ino + 1));
	/* nothing due again until WATCH_ALIAS_AGAIN_NS */
	ck_assert(!watch_alias_due(&a, &x, ROOT_ID, 2));
	/* a name added: only it is due; two packs lead to the file: no one's */
	x.n = 3;
	x.reads = 2;
	qsort(names, x.n, sizeof(*names), cmp);
	ck_assert(watch_alias_due(&a, &x, ROOT_ID, 3));
	lookup_all(&a, 3);
	ck_assert_uint_ge(a.resolved, 3);
	ck_assert_ptr_null(watch_alias_find(&a, ROOT_ID, real.st_dev, real.st_ino));
	ck_assert(watch_alias_due(&a, &x, ROOT_ID, 1 + WATCH_ALIAS_AGAIN_NS));
	lookup_all(&a, 1 + WATCH_ALIAS_AGAIN_NS);
	ck_assert_uint_ge(a.resolved, 5);
	/* the other one gone: the alias is back at once */
	for (size_t i = 0; i < 3; i++)
		if (strstr(names[i], "link3")) {
			char *t = names[i];

			names[i] = names[2];
			names[2] = t;
			break;
		}
	x.n = 2;
	x.reads = 3;
	qsort(names, x.n, sizeof(*names), cmp);
	ck_assert(!watch_alias_due(&a, &x, ROOT_ID, 2 + WATCH_ALIAS_AGAIN_NS));
	ck_assert_ptr_nonnull(watch_alias_find(&a, ROOT_ID, real.st_dev, real.st_ino));
	watch_alias_free(&a);
	for (size_t i = 0; i < 3; i++)
		free(names[i]);
}
END_TEST

static Suite *watch_alias_suite(void)
{
	Suite *s = suite_create("watch-alias");
	TCase *tc = tcase_create("watch-alias");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_find);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(watch_alias_suite)
