// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/sys-safeopen.c: opening below a directory safely (as root, across mounts too) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys-safeopen.h"
#include "unit.h"

static char *dir, *outside;
static int dfd = -1;

static void setup(void)
{
	dir = unit_mkdtemp();
	outside = unit_mkdtemp();
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
}

static void teardown(void)
{
	close(dfd);
	unit_rmtree(dir);
	unit_rmtree(outside);
	free(dir);
	free(outside);
}

static char *in(const char *base, const char *name)
{
	char *p;

	ck_assert_int_ne(asprintf(&p, "%s/%s", base, name), -1);
	return p;
}

static void make_file(const char *base, const char *name)
{
	char *p = in(base, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "data", 4), 4);
	close(fd);
	free(p);
}

START_TEST(test_regular_file)
{
	struct statx stx;
	struct stat st;
	char *p = in(dir, "sub");
	int fd;

	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	make_file(dir, "sub/f");
	fd = safeopen_file(dfd, "sub/f", &stx);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_uint_eq(stx.stx_ino, st.st_ino);
	ck_assert_uint_eq(stx.stx_size, 4);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	ck_assert_int_eq(safeopen_same_mount(dfd, fd), 1);
	close(fd);
	ck_assert_int_eq(safeopen_file(dfd, "sub/none", &stx), -ENOENT);
	ck_assert_int_eq(safeopen_file(dfd, "sub", &stx), -EISDIR);
}
END_TEST

/* What an O_PATH descriptor holds, opened again to read: the same file, its data readable. */
START_TEST(test_reopen)
{
	struct stat a, b;
	char buf[8];
	int pfd, fd;

	make_file(dir, "f");
	pfd = safeopen_beneath(dfd, "f", O_PATH);
	ck_assert_int_ge(pfd, 0);
	ck_assert_int_eq(read(pfd, buf, sizeof(buf)), -1);	/* O_PATH: no data */
	fd = safeopen_reopen(pfd, O_RDONLY | O_NOATIME);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(pfd, &a), 0);
	ck_assert_int_eq(fstat(fd, &b), 0);
	ck_assert_uint_eq(a.st_ino, b.st_ino);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 4);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
	close(pfd);
	ck_assert_int_eq(safeopen_reopen(1000000, O_RDONLY), -ENOENT);
}
END_TEST

/* A FIFO is refused without being opened (opening one for reading would block). */
START_TEST(test_refuses_fifo)
{
	struct statx stx;
	char *p = in(dir, "fifo");

	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_eq(safeopen_file(dfd, "fifo", &stx), -EBADFD);
	free(p);
}
END_TEST

/* A device node: /dev/null, below /dev, so that no root is needed to make one. */
START_TEST(test_refuses_device)
{
	struct statx stx;
	int devfd = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(devfd, 0);
	ck_assert_int_eq(safeopen_file(devfd, "null", &stx), -EBADFD);
	close(devfd);
}
END_TEST

START_TEST(test_refuses_escape)
{
	struct statx stx;
	char *target, *p;

	make_file(outside, "secret");
	target = in(outside, "secret");
	p = in(dir, "link");
	ck_assert_int_eq(symlink(target, p), 0);		/* a symlink out of @dir */
	free(p);
	p = in(dir, "ldir");
	ck_assert_int_eq(symlink(outside, p), 0);		/* a directory symlink out */
	free(p);
	free(target);
	ck_assert_int_eq(safeopen_file(dfd, "link", &stx), -ELOOP);
	ck_assert_int_eq(safeopen_beneath(dfd, "link", O_RDONLY), -ELOOP);
	ck_assert_int_eq(safeopen_file(dfd, "ldir/secret", &stx), -ELOOP);
	ck_assert_int_eq(safeopen_beneath(dfd, "../x", O_PATH), -EXDEV);
	ck_assert_int_lt(safeopen_beneath(dfd, "/etc/passwd", O_RDONLY), 0);
}
END_TEST

START_TEST(test_mount_id)
{
	uint64_t a = 0, b = 1;
	int fd;

	make_file(dir, "f");
	fd = safeopen_beneath(dfd, "f", O_RDONLY | O_NOATIME);	/* ours: O_NOATIME allowed */
	ck_assert_int_ge(fd, 0);
	if (safeopen_mount_id(dfd, &a) == 0) {
		ck_assert_int_eq(safeopen_mount_id(fd, &b), 0);
		ck_assert_uint_eq(a, b);
	}
	close(fd);
}
END_TEST

/* The walk used without openat2: no symlink followed, no mount crossed with NO_XDEV. */
START_TEST(test_walk)
{
	char *p, *q;
	int fd;

	p = in(dir, "sub");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	make_file(dir, "sub/file");
	make_file(outside, "secret");
	p = in(dir, "sdir");
	ck_assert_int_eq(symlink(outside, p), 0);	/* a symlinked directory */
	free(p);
	p = in(dir, "sub/link");
	q = in(outside, "secret");
	ck_assert_int_eq(symlink(q, p), 0);		/* a symlink at the end */
	free(p);
	free(q);

	fd = safeopen_walk(dfd, "sub/file", O_RDONLY, SAFEOPEN_WALK_NO_XDEV);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = safeopen_walk(dfd, "./sub/file", O_PATH, 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(safeopen_walk(dfd, "sdir/secret", O_RDONLY, SAFEOPEN_WALK_NO_XDEV), -ELOOP);
	ck_assert_int_eq(safeopen_walk(dfd, "sdir/secret", O_PATH, 0), -ELOOP);
	ck_assert_int_eq(safeopen_walk(dfd, "sub/link", O_RDONLY, SAFEOPEN_WALK_NO_XDEV), -ELOOP);
	ck_assert_int_eq(safeopen_walk(dfd, "sub/link", O_PATH, SAFEOPEN_WALK_NO_XDEV), -ELOOP);
	ck_assert_int_eq(safeopen_walk(dfd, "sdir", O_PATH | O_DIRECTORY, 0), -ELOOP);
	ck_assert_int_eq(safeopen_walk(dfd, "sub/../sdir/secret", O_PATH, 0), -EXDEV);
	ck_assert_int_eq(safeopen_walk(dfd, "/etc/passwd", O_PATH, 0), -EXDEV);
	ck_assert_int_eq(safeopen_walk(dfd, "sub//file", O_PATH, 0), -EXDEV);
	ck_assert_int_eq(safeopen_walk(dfd, "sub/file/", O_PATH, 0), -EXDEV);
	ck_assert_int_eq(safeopen_walk(dfd, "sub/none", O_PATH, 0), -ENOENT);
	ck_assert_int_eq(safeopen_walk(dfd, "sub/file/x", O_PATH, 0), -ENOTDIR);

	/* as root: a tmpfs mounted on a directory, and a file bind-mounted on a file */
	p = in(dir, "m");
	q = in(dir, "sub/file");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	if (geteuid() == 0 && mount("ura-test", p, "tmpfs", 0, NULL) == 0) {
		char *r = in(dir, "m/x");

		make_file(dir, "m/x");
		ck_assert_int_eq(safeopen_walk(dfd, "m/x", O_RDONLY, SAFEOPEN_WALK_NO_XDEV), -EXDEV);
		fd = safeopen_walk(dfd, "m/x", O_RDONLY, 0);	/* --root may cross mounts */
		ck_assert_int_ge(fd, 0);
		close(fd);
		ck_assert_int_eq(mount(r, q, "none", MS_BIND, NULL), 0);
		ck_assert_int_eq(safeopen_walk(dfd, "sub/file", O_PATH, SAFEOPEN_WALK_NO_XDEV),
				 -EXDEV);
		ck_assert_int_eq(umount2(q, MNT_DETACH), 0);
		ck_assert_int_eq(umount2(p, MNT_DETACH), 0);
		free(r);
	}
	free(p);
	free(q);
}
END_TEST

/* safeopen_walk_mounts()'s callback: the mount ids asked, and the one refused. */
static uint64_t asked[8], refused_id;
static size_t nasked;

static bool mount_ok_fake(void *ctx, uint64_t id)
{
	(void)ctx;
	if (nasked < 8)
		asked[nasked++] = id;
	return id != refused_id;
}

/* The walk that asks before entering a mount: symlinks refused; a mount entered only if allowed. */
START_TEST(test_walk_mounts)
{
	uint64_t top;
	char *p, *q;
	int fd;

	p = in(dir, "sub");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	make_file(dir, "sub/file");
	p = in(dir, "sdir");
	ck_assert_int_eq(symlink(outside, p), 0);
	free(p);
	ck_assert_int_eq(safeopen_mount_id(dfd, &top), 0);
	nasked = 0;
	refused_id = 0;
	fd = safeopen_walk_mounts(dfd, "sub/file", O_PATH, mount_ok_fake, NULL);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_uint_eq(nasked, 1);		/* the start's mount, once */
	ck_assert_uint_eq(asked[0], top);
	ck_assert_int_eq(safeopen_walk_mounts(dfd, "sdir/x", O_PATH, mount_ok_fake, NULL), -ELOOP);
	ck_assert_int_eq(safeopen_walk_mounts(dfd, "sdir", O_PATH, mount_ok_fake, NULL), -ELOOP);
	ck_assert_int_eq(safeopen_walk_mounts(dfd, "sub/file/x", O_PATH, mount_ok_fake, NULL),
			 -ENOTDIR);
	refused_id = top;
	ck_assert_int_eq(safeopen_walk_mounts(dfd, "sub/file", O_PATH, mount_ok_fake, NULL), -EXDEV);
	/* as root: a mount on the way is asked about before anything is looked up in it */
	p = in(dir, "m");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	if (geteuid() == 0 && mount("ura-test", p, "tmpfs", 0, NULL) == 0) {
		q = in(dir, "m/x");
		make_file(dir, "m/x");
		nasked = 0;
		refused_id = 0;
		fd = safeopen_walk_mounts(dfd, "m/x", O_PATH, mount_ok_fake, NULL);
		ck_assert_int_ge(fd, 0);
		close(fd);
		ck_assert_uint_eq(nasked, 2);
		refused_id = asked[1];		/* the tmpfs */
		ck_assert_int_eq(safeopen_walk_mounts(dfd, "m/x", O_PATH, mount_ok_fake, NULL), -EXDEV);
		ck_assert_int_eq(umount2(p, MNT_DETACH), 0);
		free(q);
	}
	free(p);
}
END_TEST

static Suite *safeopen_suite(void)
{
	Suite *s = suite_create("safeopen");
	TCase *tc = tcase_create("safeopen");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_regular_file);
	tcase_add_test(tc, test_reopen);
	tcase_add_test(tc, test_refuses_fifo);
	tcase_add_test(tc, test_refuses_device);
	tcase_add_test(tc, test_refuses_escape);
	tcase_add_test(tc, test_mount_id);
	tcase_add_test(tc, test_walk);
	tcase_add_test(tc, test_walk_mounts);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(safeopen_suite)
