// SPDX-License-Identifier: GPL-2.0-or-later
/* pack-name: the pack file name of a program, as systemd-escape --path names it */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "watch-name.h"
#include "unit.h"

/* What `systemd-escape --path -- PATH` (systemd 252) printed for each path. */
static const struct {
	const char *path, *escaped;
} golden[] = {
	{ "/usr/bin/true", "usr-bin-true" },
	{ "/bin/true", "bin-true" },
	{ "/usr/lib/firefox/firefox", "usr-lib-firefox-firefox" },
	{ "/opt/my app/run-me.sh", "opt-my\\x20app-run\\x2dme.sh" },
	{ "/usr/bin/python3.11", "usr-bin-python3.11" },
	{ "/home/u/.local/bin/x", "home-u-.local-bin-x" },
	{ "//usr//bin/./env/", "usr-bin-env" },
	{ "/a-b_c:d.e", "a\\x2db_c:d.e" },
	{ "/.hidden/x", "\\x2ehidden-x" },
	{ "/", "-" },
	{ "/\xc3\xa9/\xc3\xbc", "\\xc3\\xa9-\\xc3\\xbc" },
	{ "/a\\b", "a\\x5cb" },
	{ "/usr/bin/g++", "usr-bin-g\\x2b\\x2b" },
	{ "/x/~y/%z", "x-\\x7ey-\\x25z" },
};

START_TEST(test_golden)
{
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		char want[NAME_MAX + 1], got[NAME_MAX + 1];
		int n;

		snprintf(want, sizeof(want), "%s.pack", golden[i].escaped);
		n = pack_name_for_exe(golden[i].path, got, sizeof(got));
		ck_assert_msg(n == (int)strlen(want), "'%s': %d", golden[i].path, n);
		ck_assert_str_eq(got, want);
	}
}
END_TEST

START_TEST(test_refused)
{
	char buf[64] = "untouched";

	/* systemd-escape refuses ".." ("not a normalized path"); we refuse relative paths too */
	ck_assert_int_eq(pack_name_for_exe("/usr/bin/../lib", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(pack_name_for_exe("/..", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(pack_name_for_exe("relative/x", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(pack_name_for_exe("", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(pack_name_for_exe(NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_str_eq(buf, "untouched");
	/* "..." and "..x" are names, not ".." */
	ck_assert_int_eq(pack_name_for_exe("/a/.../..x", buf, sizeof(buf)),
			 (int)strlen("a-...-..x.pack"));
	ck_assert_str_eq(buf, "a-...-..x.pack");
}
END_TEST

START_TEST(test_too_long)
{
	char path[PATH_MAX], buf[NAME_MAX + 1] = "untouched";

	/* "usr-bin-true.pack" is 17 bytes: 17 fits in 18, not in 17 */
	ck_assert_int_eq(pack_name_for_exe("/usr/bin/true", buf, 17), -ENAMETOOLONG);
	ck_assert_str_eq(buf, "untouched");
	ck_assert_int_eq(pack_name_for_exe("/usr/bin/true", buf, 18), 17);
	/* a name longer than NAME_MAX cannot be a file name, whatever the buffer */
	path[0] = '/';
	memset(path + 1, '-', 100);	/* each '-' becomes 4 bytes */
	path[101] = '\0';
	ck_assert_int_eq(pack_name_for_exe(path, buf, sizeof(buf)), -ENAMETOOLONG);
	memset(path + 1, 'a', NAME_MAX - 5);
	path[NAME_MAX - 4] = '\0';
	ck_assert_int_eq(pack_name_for_exe(path, buf, sizeof(buf)), NAME_MAX);
}
END_TEST

static Suite *pack_name_suite(void)
{
	Suite *s = suite_create("pack-name");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_golden);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_too_long);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(pack_name_suite)
