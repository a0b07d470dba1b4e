// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/sys-residency.c: page-cache residency of a file range, without root */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include <ura/pack.h>

#include "sys-residency.h"
#include "unit.h"

#define PG URA_PACK_PAGE_SIZE

static char *dir;

static void setup(void)
{
	dir = unit_mkdtemp();
}

static void teardown(void)
{
	unit_rmtree(dir);
	free(dir);
}

/* A file of @len bytes just written (its pages in the page cache), open for reading. */
static int written_file(const char *name, size_t len)
{
	char *path, *buf = malloc(len ? len : 1);
	int fd;

	ck_assert_ptr_nonnull(buf);
	memset(buf, 'x', len);
	ck_assert_int_ne(asprintf(&path, "%s/%s", dir, name), -1);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	free(buf);
	free(path);
	return fd;
}

START_TEST(test_written_is_resident)
{
	uint64_t len = 3 * PG + 100, n = 0;
	unsigned char map[4];
	int fd = written_file("f", len);

	ck_assert_int_eq(residency_uptodate(fd, 0, len, &n), 0);
	ck_assert_uint_eq(n, len);			/* the last page counts its 100 bytes */
	ck_assert_int_eq(residency_bytes(fd, 0, len, &n), 0);
	ck_assert_uint_eq(n, len);
	ck_assert_int_eq(residency_uptodate(fd, PG, PG, &n), 0);
	ck_assert_uint_eq(n, PG);
	memset(map, 7, sizeof(map));
	ck_assert_int_eq(residency_map(fd, 0, len, map), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(map[i], 1);
	n = 0;
	ck_assert_int_eq(residency_uptodate(fd, 0, 0, &n), 0);
	ck_assert_uint_eq(n, 0);
	close(fd);
}
END_TEST

START_TEST(test_cached_or_enosys)
{
	uint64_t len = 8 * PG, n = 0;
	int fd = written_file("f", len), r;

	r = residency_cached(fd, 0, len, &n);
	ck_assert(r == 0 || r == -ENOSYS);
	if (r == 0)
		ck_assert_uint_eq(n, len);
	ck_assert_int_eq(residency_cached(fd, 0, len, &n), r);	/* -ENOSYS stays */
	close(fd);
}
END_TEST

/*
 * After fsync and POSIX_FADV_DONTNEED, a clean file's pages mostly leave the
 * cache; only "not all of them stay" is reliable (another reader may bring
 * some back), and nothing on tmpfs, where the page cache is the file.
 */
START_TEST(test_evicted_is_not_resident)
{
	uint64_t len = 64 * PG, n = len;
	int fd = written_file("f", len);
	struct statfs sfs;

	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(fstatfs(fd, &sfs), 0);
	if (sfs.f_type == TMPFS_MAGIC) {
		close(fd);
		return;
	}
	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	ck_assert_int_eq(residency_uptodate(fd, 0, len, &n), 0);
	ck_assert_uint_lt(n, len);
	ck_assert_int_eq(residency_bytes(fd, 0, len, &n), 0);
	ck_assert_uint_lt(n, len);
	close(fd);
}
END_TEST

START_TEST(test_bad_fd)
{
	uint64_t n = 0;
	unsigned char map[1];

	ck_assert_int_lt(residency_uptodate(-1, 0, PG, &n), 0);
	ck_assert_int_lt(residency_map(-1, 0, PG, map), 0);
	ck_assert_int_lt(residency_bytes(-1, 0, PG, &n), 0);
}
END_TEST

static Suite *residency_suite(void)
{
	Suite *s = suite_create("residency");
	TCase *tc = tcase_create("residency");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_written_is_resident);
	tcase_add_test(tc, test_cached_or_enosys);
	tcase_add_test(tc, test_evicted_is_not_resident);
	tcase_add_test(tc, test_bad_fd);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(residency_suite)
