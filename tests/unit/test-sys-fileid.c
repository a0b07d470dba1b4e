// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/sys-fileid.c: file identity and staleness, without root */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys-fileid.h"
#include "unit.h"

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

static char *path_of(const char *name)
{
	char *p;

	ck_assert_int_ne(asprintf(&p, "%s/%s", dir, name), -1);
	return p;
}

static void write_file(const char *name, const char *text)
{
	char *p = path_of(name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	free(p);
}

/* The pack's record of @name now, and the file open for reading. */
static int record(const char *name, struct ura_pack_file *f, struct statx *stx)
{
	char *p = path_of(name);
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, stx), 0);
	*f = (struct ura_pack_file){ 0 };
	fileid_from_statx(f, stx);
	free(p);
	return fd;
}

static bool stale_now(const char *name, const struct ura_pack_file *f)
{
	struct ura_pack_file now;
	struct statx stx;
	int fd = record(name, &now, &stx);
	bool r = fileid_is_stale(fd, &stx, f);

	close(fd);
	return r;
}

START_TEST(test_same_file)
{
	struct ura_pack_file f;
	struct statx stx;
	int fd;

	write_file("a", "hello");
	fd = record("a", &f, &stx);
	ck_assert_uint_eq(f.ino, stx.stx_ino);
	ck_assert_uint_eq(f.size, 5);
	ck_assert_int_eq(f.mtime_ns, fileid_ns(&stx.stx_mtime));
	ck_assert(!fileid_is_stale(fd, &stx, &f));
	close(fd);
	ck_assert(!stale_now("a", &f));
}
END_TEST

START_TEST(test_stale_after_write)
{
	struct ura_pack_file f;
	struct statx stx;
	char *p = path_of("a");
	int fd;

	write_file("a", "hello");
	close(record("a", &f, &stx));
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "!", 1), 1);		/* the size changes */
	close(fd);
	ck_assert(stale_now("a", &f));
	free(p);
}
END_TEST

START_TEST(test_stale_same_size_rewrite)
{
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000, 0 } };
	struct ura_pack_file f;
	struct statx stx;
	char *p = path_of("a");

	write_file("a", "hello");
	close(record("a", &f, &stx));
	write_file("a", "HELLO");
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);	/* a different mtime for sure */
	ck_assert(stale_now("a", &f));
	free(p);
}
END_TEST

START_TEST(test_stale_replaced)
{
	struct ura_pack_file f, g;
	struct statx stx;
	char *a = path_of("a"), *b = path_of("b");

	write_file("a", "hello");
	close(record("a", &f, &stx));
	write_file("b", "hello");
	/* the same size and mtime, another inode: renamed over it */
	close(record("b", &g, &stx));
	ck_assert_int_eq(rename(b, a), 0);
	f.mtime_ns = g.mtime_ns;
	ck_assert(stale_now("a", &f));
	free(a);
	free(b);
}
END_TEST

START_TEST(test_btime_and_generation)
{
	struct ura_pack_file f;
	struct statx stx;
	uint32_t gen;
	int fd;

	write_file("a", "hello");
	fd = record("a", &f, &stx);
	if (f.flags & URA_PACK_FILE_HAS_BTIME) {
		f.btime_ns++;
		ck_assert(fileid_is_stale(fd, &stx, &f));
		f.btime_ns--;
	}
	if (fileid_generation(fd, &gen) == 0) {
		f.flags |= URA_PACK_FILE_HAS_GENERATION;
		f.generation = gen;
		ck_assert(!fileid_is_stale(fd, &stx, &f));
		f.generation = (uint64_t)gen + 1;
		ck_assert(fileid_is_stale(fd, &stx, &f));
	}
	close(fd);
}
END_TEST

static Suite *fileid_suite(void)
{
	Suite *s = suite_create("fileid");
	TCase *tc = tcase_create("fileid");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_same_file);
	tcase_add_test(tc, test_stale_after_write);
	tcase_add_test(tc, test_stale_same_size_rewrite);
	tcase_add_test(tc, test_stale_replaced);
	tcase_add_test(tc, test_btime_and_generation);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(fileid_suite)
