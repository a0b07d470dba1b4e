// SPDX-License-Identifier: GPL-2.0-or-later
/* watch-key: a program's key (root, path inside it) and its pack file name */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "key.h"
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
		n = key_pack_name(0, golden[i].path, got, sizeof(got));
		ck_assert_msg(n == (int)strlen(want), "'%s': %d", golden[i].path, n);
		ck_assert_str_eq(got, want);
	}
}
END_TEST

START_TEST(test_refused)
{
	char buf[64] = "untouched";

	/* systemd-escape refuses ".." ("not a normalized path"); we refuse relative paths too */
	ck_assert_int_eq(key_pack_name(0, "/usr/bin/../lib", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(key_pack_name(0, "/..", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(key_pack_name(0, "relative/x", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(key_pack_name(0, "", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(key_pack_name(0, NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_str_eq(buf, "untouched");
	/* "..." and "..x" are names, not ".." */
	ck_assert_int_eq(key_pack_name(0, "/a/.../..x", buf, sizeof(buf)),
			 (int)strlen("a-...-..x.pack"));
	ck_assert_str_eq(buf, "a-...-..x.pack");
}
END_TEST

START_TEST(test_too_long)
{
	char path[PATH_MAX], buf[NAME_MAX + 1] = "untouched", buf2[NAME_MAX + 1];
	int n;

	/* "usr-bin-true.pack" is 17 bytes: 17 fits in 18, not in 17 */
	ck_assert_int_eq(key_pack_name(0, "/usr/bin/true", buf, 17), -ENAMETOOLONG);
	ck_assert_str_eq(buf, "untouched");
	ck_assert_int_eq(key_pack_name(0, "/usr/bin/true", buf, 18), 17);
	/* a long name is cut, ends in a digest of the whole, and leaves room for a temporary name */
	path[0] = '/';
	memset(path + 1, '-', 100);	/* each '-' becomes 4 bytes */
	path[101] = '\0';
	n = key_pack_name(0, path, buf, sizeof(buf));
	ck_assert_int_eq(n, WATCH_NAME_MAX);
	ck_assert_int_eq((int)strlen(buf), n);
	ck_assert_str_eq(buf + n - 5, ".pack");
	ck_assert_int_eq(buf[n - 5 - 17], '~');
	path[50] = 'x';	/* another long path with the same start: another name */
	ck_assert_int_eq(key_pack_name(0, path, buf2, sizeof(buf2)), WATCH_NAME_MAX);
	ck_assert_str_ne(buf, buf2);
	memset(path + 1, 'a', NAME_MAX);
	path[NAME_MAX + 1] = '\0';
	ck_assert_int_eq(key_pack_name(0, path, buf, sizeof(buf)), WATCH_NAME_MAX);
	/* short enough: as it is */
	memset(path + 1, 'a', WATCH_NAME_MAX - 5);
	path[WATCH_NAME_MAX - 4] = '\0';
	ck_assert_int_eq(key_pack_name(0, path, buf, sizeof(buf)), WATCH_NAME_MAX);
	ck_assert_ptr_null(strchr(buf, '~'));
}
END_TEST

/* The inverse: each golden name leads back to its path (simplified), and nothing else does. */
START_TEST(test_pack_path)
{
	static const char *const refused[] = {
		"usr-bin-true", ".pack", "usr-bin-tr ue.pack", "usr-bin-\\x2.pack",
		"usr-bin-\\x2g.pack", "usr-bin-\\x00x.pack", "usr-bin-\\x2D.pack",
		"usr-bin-\\x2d.pack\\x2d", "usr--bin.pack", "usr-bin-.pack", "-usr.pack",
		"usr-bin-\\x61.pack", "@0123456789abcdeg-usr-bin-true.pack", "@0123456789abcdef.pack",
		"@0123456789ABCDEF-usr-bin-true.pack", "@123-usr.pack", "a-\\x2e\\x2e-b.pack",
	};
	char path[PATH_MAX], name[NAME_MAX + 1], buf[8];
	uint64_t id = 1;

	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		snprintf(name, sizeof(name), "%s.pack", golden[i].escaped);
		ck_assert_int_ge(key_pack_path(name, &id, path, sizeof(path)), 1);
		ck_assert_uint_eq(id, 0);
		ck_assert_int_eq(key_pack_name(0, path, name, sizeof(name)),
				 (int)strlen(golden[i].escaped) + 5);
	}
	ck_assert_int_eq(key_pack_path("usr-bin-python3.11.pack", &id, path, sizeof(path)), 19);
	ck_assert_str_eq(path, "/usr/bin/python3.11");
	ck_assert_int_eq(key_pack_path("-.pack", &id, path, sizeof(path)), 1);
	ck_assert_str_eq(path, "/");
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		ck_assert_msg(key_pack_path(refused[i], &id, path, sizeof(path)) < 0, "%s", refused[i]);
	/* a name cut and ended by a digest has no path */
	path[0] = '/';
	memset(path + 1, '-', 100);
	path[101] = '\0';
	ck_assert_int_eq(key_pack_name(0, path, name, sizeof(name)), WATCH_NAME_MAX);
	ck_assert_int_eq(key_pack_path(name, &id, path, sizeof(path)), -EINVAL);
	ck_assert_int_eq(key_pack_path("usr-bin-true.pack", &id, buf, sizeof(buf)), -ENAMETOOLONG);
	/* another root's */
	ck_assert_int_eq(key_pack_path("@00000000000000ff-usr-bin-x.pack", &id, path, sizeof(path)),
			 10);
	ck_assert_uint_eq(id, 255);
	ck_assert_str_eq(path, "/usr/bin/x");
}
END_TEST

START_TEST(test_roots)
{
	char host[NAME_MAX + 1], other[NAME_MAX + 1], third[NAME_MAX + 1];

	ck_assert_int_gt(key_pack_name(0, "/usr/bin/python3", host, sizeof(host)), 0);
	ck_assert_int_gt(key_pack_name(0x1234, "/usr/bin/python3", other, sizeof(other)), 0);
	ck_assert_int_gt(key_pack_name(0x1235, "/usr/bin/python3", third, sizeof(third)), 0);
	ck_assert_str_eq(host, "usr-bin-python3.pack");
	ck_assert_str_eq(other, "@0000000000001234-usr-bin-python3.pack");
	ck_assert_str_ne(other, third);
	/* no host path escapes to a name that starts with '@' */
	ck_assert_int_gt(key_pack_name(0, "/@0000000000001234-usr", host, sizeof(host)), 0);
	ck_assert_int_ne(host[0], '@');
}
END_TEST

START_TEST(test_path_in_root)
{
	struct key_root host = { .id = 0, .path = "/" }, c = { .id = 7, .path = "/srv/c" };
	char buf[PATH_MAX];

	ck_assert_int_eq(key_path_in_root(&host, "/usr/bin/x", buf, sizeof(buf)), 10);
	ck_assert_str_eq(buf, "/usr/bin/x");
	ck_assert_int_eq(key_path_in_root(&c, "/srv/c/usr/bin/x", buf, sizeof(buf)), 10);
	ck_assert_str_eq(buf, "/usr/bin/x");
	ck_assert_int_eq(key_path_in_root(&c, "/srv/c", buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "/");
	/* "/srv/cc" is not below "/srv/c"; a path the kernel names from another namespace stays */
	ck_assert_int_eq(key_path_in_root(&c, "/srv/cc/x", buf, sizeof(buf)), 9);
	ck_assert_str_eq(buf, "/srv/cc/x");
	ck_assert_int_eq(key_path_in_root(&c, "rel", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(key_path_in_root(&c, "/srv/c/usr/bin/x", buf, 4), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_normalize)
{
	char buf[PATH_MAX];

	ck_assert_int_eq(key_path_normalize("/home/u", "s.py", buf, sizeof(buf)), 12);
	ck_assert_str_eq(buf, "/home/u/s.py");
	ck_assert_int_ge(key_path_normalize("/home/u", "../v/./t//s.py", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/home/v/t/s.py");
	ck_assert_int_ge(key_path_normalize("/x", "/../../a", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/a");
	ck_assert_int_eq(key_path_normalize("/", ".", buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "/");
	ck_assert_int_eq(key_path_normalize(NULL, "rel", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(key_path_normalize("/a", "", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(key_path_normalize("/a", "bcdef", buf, 4), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_root_of_self)
{
	struct key_self self;
	struct key_root r;

	ck_assert_int_eq(key_self_read(&self), 0);
	ck_assert_int_eq(key_root_of(getpid(), &self, &r), 0);
	ck_assert_int_eq(r.id, 0);
	ck_assert_str_eq(r.path, "/");
	ck_assert_int_eq(key_root_of(-5, &self, &r), -ESRCH);
}
END_TEST

/* A root's id: 0 for the daemon's own, else the same for the same directory, never 0. */
START_TEST(test_root_id)
{
	struct key_self self;

	ck_assert_int_eq(key_self_read(&self), 0);
	ck_assert_uint_eq(key_root_id(&self, self.dev, self.ino), 0);
	ck_assert_uint_ne(key_root_id(&self, self.dev, self.ino + 1), 0);
	ck_assert_uint_eq(key_root_id(&self, self.dev, self.ino + 1),
			  key_root_id(&self, self.dev, self.ino + 1));
	ck_assert_uint_ne(key_root_id(&self, self.dev, self.ino + 1),
			  key_root_id(&self, self.dev + 1, self.ino + 1));
}
END_TEST

/* A root another user namespace set up is not root's: its keys are not believed. */
START_TEST(test_root_by_root)
{
	struct key_self self;
	struct key_root mine = { .id = 0 }, other = { .id = 42 };
	int go[2], ready[2];
	char c = 0;
	pid_t child;

	ck_assert_int_eq(key_self_read(&self), 0);
	ck_assert(key_root_by_root(getpid(), &self, &mine));
	ck_assert(key_root_by_root(getpid(), &self, &other));	/* our own namespace */
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(ready), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		c = unshare(CLONE_NEWUSER) == 0 ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	if (c == 'y') {
		ck_assert(!key_root_by_root(child, &self, &other));
		ck_assert(key_root_by_root(child, &self, &mine));	/* the daemon's root: no new key */
	}
	ck_assert_int_eq(write(go[1], &c, 1), 1);
	waitpid(child, NULL, 0);
	ck_assert(!key_root_by_root(child, &self, &other));	/* gone: cannot be told */
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
}
END_TEST

static Suite *key_suite(void)
{
	Suite *s = suite_create("key");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_golden);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_too_long);
	tcase_add_test(tc, test_pack_path);
	tcase_add_test(tc, test_roots);
	tcase_add_test(tc, test_path_in_root);
	tcase_add_test(tc, test_normalize);
	tcase_add_test(tc, test_root_of_self);
	tcase_add_test(tc, test_root_id);
	tcase_add_test(tc, test_root_by_root);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(key_suite)
