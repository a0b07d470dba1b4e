// SPDX-License-Identifier: GPL-2.0-or-later
/* learn-private: which files are a user's (their own trees, trees anyone may write to) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "learn-private.h"
#include "sys-mountinfo.h"
#include "unit.h"

static void touch(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void mkdir_mode(const char *dir, const char *name, mode_t mode)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static bool priv(struct private_cache *c, const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return private_path(c, root, path);
}

START_TEST(test_trees)
{
	char *d = unit_mkdtemp();
	struct private_cache *c = NULL;
	/* the test's own files are a user's when it runs as one */
	bool mine = getuid() >= USER_UID_MIN;

	ck_assert_int_eq(private_cache_new(NULL, &c), 0);
	mkdir_mode(d, "sys", 0755);
	mkdir_mode(d, "sys/lib", 0755);
	touch(d, "sys/lib/f");
	mkdir_mode(d, "tmp", 01777);		/* a temporary tree */
	mkdir_mode(d, "tmp/sub", 0755);
	touch(d, "tmp/sub/f");
	mkdir_mode(d, "pub", 0777);		/* anyone may write, not sticky */
	touch(d, "pub/f");
	mkdir_mode(d, "grp", 0775);		/* a group's: a user's unless the group is root */
	touch(d, "grp/f");

	/* the walk stops at the root given (the directories above are not the process's) */
	ck_assert_int_eq(priv(c, d, "sys/lib/f"), mine);
	ck_assert(priv(c, d, "tmp/sub/f"));
	ck_assert(priv(c, d, "pub/f"));
	ck_assert_int_eq(priv(c, d, "grp/f"), mine || getgid() != 0);
	/* a user's file in root's tree */
	if (getuid() == 0) {
		char path[4096];

		touch(d, "sys/lib/g");
		snprintf(path, sizeof(path), "%s/sys/lib/g", d);
		ck_assert_int_eq(chown(path, USER_UID_MIN, USER_UID_MIN), 0);
		ck_assert(priv(c, d, "sys/lib/g"));
	}
	/* asked again: the directories' answers are kept */
	ck_assert(priv(c, d, "tmp/sub/f"));
	ck_assert_int_eq(priv(c, d, "sys/lib/f"), mine);
	/* what cannot be looked at is a user's; so is a relative path */
	ck_assert(priv(c, d, "sys/nothing/f"));
	ck_assert(private_path(c, d, "relative/f"));
	/* a path not below the root given is walked up to / */
	ck_assert(private_path(c, "/nonexistent-root", "/tmp"));
	private_cache_free(c);
	private_cache_free(NULL);
	unit_rmtree(d);
	free(d);
}
END_TEST

/* One ACL entry in the kernel's xattr form (little-endian). */
static void acl_entry(unsigned char *p, unsigned tag, unsigned perm, uint32_t id)
{
	p[0] = (unsigned char)tag;
	p[1] = 0;
	p[2] = (unsigned char)perm;
	p[3] = 0;
	p[4] = (unsigned char)id;
	p[5] = (unsigned char)(id >> 8);
	p[6] = (unsigned char)(id >> 16);
	p[7] = (unsigned char)(id >> 24);
}

/* A file root owns that others may rewrite (by mode, or a user's ACL entry) is a user's. */
START_TEST(test_writable_by_others)
{
	char *d = unit_mkdtemp(), path[4096];
	struct private_cache *c = NULL;
	unsigned char acl[4 + 5 * 8] = { 2, 0, 0, 0 };	/* version 2 */

	if (getuid() != 0) {
		unit_rmtree(d);
		free(d);
		return;		/* the files must be root's to tell anything */
	}
	ck_assert_int_eq(private_cache_new(NULL, &c), 0);
	mkdir_mode(d, "sys", 0755);
	touch(d, "sys/plain");
	touch(d, "sys/anyone");
	snprintf(path, sizeof(path), "%s/sys/anyone", d);
	ck_assert_int_eq(chmod(path, 0666), 0);
	ck_assert(!priv(c, d, "sys/plain"));
	ck_assert(priv(c, d, "sys/anyone"));
	/* user 1000 may write, by an ACL (the mode's group bits become its mask: 0664, gid 0) */
	touch(d, "sys/acl");
	snprintf(path, sizeof(path), "%s/sys/acl", d);
	acl_entry(acl + 4, 0x01, 6, UINT32_MAX);	/* owner rw */
	acl_entry(acl + 12, 0x02, 6, 1000);		/* user 1000 rw */
	acl_entry(acl + 20, 0x04, 4, UINT32_MAX);	/* group r */
	acl_entry(acl + 28, 0x10, 6, UINT32_MAX);	/* mask rw */
	acl_entry(acl + 36, 0x20, 4, UINT32_MAX);	/* other r */
	if (setxattr(path, "system.posix_acl_access", acl, sizeof(acl), 0) == 0)
		ck_assert(priv(c, d, "sys/acl"));
	/* the same entry read-only: still root's alone */
	acl_entry(acl + 12, 0x02, 4, 1000);
	if (setxattr(path, "system.posix_acl_access", acl, sizeof(acl), 0) == 0)
		ck_assert(!priv(c, d, "sys/acl"));
	private_cache_free(c);
	unit_rmtree(d);
	free(d);
}
END_TEST

/* Nothing on a FUSE mount is looked at (its server could make the lookup hang): a user's. */
START_TEST(test_fuse)
{
	char *d = unit_mkdtemp(), line[8192];
	struct private_cache *c = NULL;
	struct mount_table t = { 0 };

	mkdir_mode(d, "sys", 0755);
	touch(d, "sys/f");
	snprintf(line, sizeof(line), "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
		 "2 1 0:50 / %s/sys rw,nosuid - fuse.sshfs me@host: rw\n", d);
	ck_assert_int_eq(mountinfo_parse(line, strlen(line), &t), 0);
	ck_assert_int_eq(private_cache_new(&t, &c), 0);
	ck_assert(priv(c, d, "sys/f"));
	ck_assert(priv(c, d, "sys"));
	private_cache_free(c);
	mountinfo_free(&t);
	unit_rmtree(d);
	free(d);
}
END_TEST

static Suite *learn_private_suite(void)
{
	Suite *s = suite_create("learn-private");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_trees);
	tcase_add_test(tc, test_fuse);
	tcase_add_test(tc, test_writable_by_others);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(learn_private_suite)
