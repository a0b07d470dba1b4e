// SPDX-License-Identifier: GPL-2.0-or-later
/* trace-root: the --root view of mounts and paths, canonical roots */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace-root.h"
#include "unit.h"

static void check_view(const char *root, const char *mp, const char *want_mp,
		       const char *want_strip)
{
	const char *got_mp = NULL, *got_strip = NULL;

	ck_assert_int_eq(root_view(root, mp, &got_mp, &got_strip), 0);
	ck_assert_str_eq(got_mp, want_mp);
	ck_assert_str_eq(got_strip, want_strip);
}

START_TEST(test_no_root)
{
	check_view(NULL, "/", "/", "");
	check_view(NULL, "/home", "/home", "");
}
END_TEST

START_TEST(test_mount_inside_root)
{
	check_view("/srv/img", "/srv/img", "/", "");		/* the root is a mount point */
	check_view("/srv/img", "/srv/img/boot", "/boot", "");
	check_view("/srv/img", "/srv/img/var/lib", "/var/lib", "");
}
END_TEST

START_TEST(test_root_below_mount)
{
	/* the root is a directory of the filesystem: paths below it lose that prefix */
	check_view("/srv/img", "/", "/", "srv/img");
	check_view("/srv/img", "/srv", "/", "img");
}
END_TEST

START_TEST(test_mount_not_visible)
{
	const char *mp = "unset", *strip = "unset";

	ck_assert_int_eq(root_view("/srv/img", "/home", &mp, &strip), -ENOENT);
	ck_assert_int_eq(root_view("/srv/img", "/srv/image", &mp, &strip), -ENOENT);
	ck_assert_int_eq(root_view("/srv/img", "/srv/im", &mp, &strip), -ENOENT);
	ck_assert_str_eq(mp, "unset");
}
END_TEST

START_TEST(test_path_within)
{
	ck_assert(root_path_within("/a/b", "/"));
	ck_assert(root_path_within("/a/b", "/a"));
	ck_assert(root_path_within("/a", "/a"));
	ck_assert(!root_path_within("/ab", "/a"));
	ck_assert(!root_path_within("/", "/a"));
}
END_TEST

START_TEST(test_canonical)
{
	char *dir = unit_mkdtemp(), *link = NULL, *sub = NULL, *want = NULL, *got = NULL;

	ck_assert_int_eq(root_canonical(NULL, &got), 0);
	ck_assert_ptr_null(got);
	ck_assert_int_eq(root_canonical("/", &got), 0);
	ck_assert_ptr_null(got);				/* "/" is no root at all */
	ck_assert_int_ne(asprintf(&sub, "%s/sub", dir), -1);
	ck_assert_int_ne(asprintf(&link, "%s/link", dir), -1);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(symlink("sub/", link), 0);
	want = realpath(sub, NULL);
	ck_assert_int_eq(root_canonical(link, &got), 0);	/* symlinks followed */
	ck_assert_str_eq(got, want);
	free(got);
	free(link);
	ck_assert_int_ne(asprintf(&link, "%s/sub/", dir), -1);
	ck_assert_int_eq(root_canonical(link, &got), 0);	/* no trailing '/' */
	ck_assert_str_eq(got, want);
	free(got);
	got = NULL;
	free(link);
	ck_assert_int_ne(asprintf(&link, "%s/missing", dir), -1);
	ck_assert_int_eq(root_canonical(link, &got), -ENOENT);
	free(link);
	free(want);
	free(sub);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *trace_root_suite(void)
{
	Suite *s = suite_create("trace-root");
	TCase *tc = tcase_create("trace-root");

	tcase_add_test(tc, test_no_root);
	tcase_add_test(tc, test_mount_inside_root);
	tcase_add_test(tc, test_root_below_mount);
	tcase_add_test(tc, test_mount_not_visible);
	tcase_add_test(tc, test_path_within);
	tcase_add_test(tc, test_canonical);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(trace_root_suite)
