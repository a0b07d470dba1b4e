// SPDX-License-Identifier: GPL-2.0-or-later
/* trace-assemble: residency filtering of a file's ranges (ordinary files, no root) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ura/pack.h>

#include "trace-pageset.h"
#include "trace-assemble.h"
#include "unit.h"

static char *dir, *file;

/* @pages pages just written: in the page cache. */
static void setup(void)
{
	char buf[URA_PACK_PAGE_SIZE];
	int fd;

	dir = unit_mkdtemp();
	ck_assert_int_ne(asprintf(&file, "%s/f", dir), -1);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
}

static void teardown(void)
{
	unit_rmtree(dir);
	free(dir);
	free(file);
}

static struct pageset_range *ranges_of(const struct pageset_range *r, size_t n)
{
	struct pageset_range *m = malloc(n * sizeof(*m));

	ck_assert_ptr_nonnull(m);
	memcpy(m, r, n * sizeof(*m));
	return m;
}

/* assemble_keep_resident() on the file at @path, opened as gather_file() opens it */
static long keep_resident(const char *path, uint64_t size, struct pageset_range **r, size_t *n)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	long kept = assemble_keep_resident(fd, size, r, n);

	if (fd >= 0)
		close(fd);
	return kept;
}

START_TEST(test_resident_pages_kept)
{
	const struct pageset_range in[] = {
		{ .first_page = 0, .page_count = 3, .demanded = true, .first_ns = 5 },
		{ .first_page = 3, .page_count = 5, .demanded = false, .first_ns = 9 },
	};
	struct pageset_range *r = ranges_of(in, 2);
	size_t n = 2;

	ck_assert_int_eq(keep_resident(file, 8 * URA_PACK_PAGE_SIZE, &r, &n), 8);
	ck_assert_uint_eq(n, 2);		/* pages put back together, kinds and times kept */
	ck_assert_uint_eq(r[0].first_page, 0);
	ck_assert_uint_eq(r[0].page_count, 3);
	ck_assert(r[0].demanded);
	ck_assert_uint_eq(r[0].first_ns, 5);
	ck_assert_uint_eq(r[1].first_page, 3);
	ck_assert_uint_eq(r[1].page_count, 5);
	ck_assert(!r[1].demanded);
	free(r);
}
END_TEST

START_TEST(test_pages_past_the_end_dropped)
{
	const struct pageset_range in[] = { { .first_page = 6, .page_count = 10, .demanded = true } };
	struct pageset_range *r = ranges_of(in, 1);
	size_t n = 1;

	ck_assert_int_eq(keep_resident(file, 8 * URA_PACK_PAGE_SIZE, &r, &n), 2);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(r[0].first_page, 6);
	ck_assert_uint_eq(r[0].page_count, 2);
	free(r);
}
END_TEST

START_TEST(test_evicted_pages_dropped)
{
	const struct pageset_range in[] = { { .first_page = 0, .page_count = 8, .demanded = true } };
	struct pageset_range *r = ranges_of(in, 1);
	size_t n = 1;
	long kept;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	fdatasync(fd);
	posix_fadvise(fd, 2 * URA_PACK_PAGE_SIZE, 4 * URA_PACK_PAGE_SIZE, POSIX_FADV_DONTNEED);
	close(fd);
	kept = keep_resident(file, 8 * URA_PACK_PAGE_SIZE, &r, &n);
	if (kept == 8) {
		/* a filesystem that cannot drop pages (tmpfs): nothing to see here */
		free(r);
		return;
	}
	ck_assert_int_eq(kept, 4);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(r[0].first_page, 0);
	ck_assert_uint_eq(r[0].page_count, 2);
	ck_assert_uint_eq(r[1].first_page, 6);
	ck_assert_uint_eq(r[1].page_count, 2);
	free(r);
}
END_TEST

START_TEST(test_unreadable_file_kept_whole)
{
	const struct pageset_range in[] = { { .first_page = 0, .page_count = 4, .demanded = true },
					    { .first_page = 10, .page_count = 1 } };
	struct pageset_range *r = ranges_of(in, 2);
	char *missing;
	size_t n = 2;

	ck_assert_int_ne(asprintf(&missing, "%s/missing", dir), -1);
	ck_assert_int_eq(keep_resident(missing, 0, &r, &n), 5);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(r[1].first_page, 10);
	free(missing);
	free(r);
}
END_TEST

START_TEST(test_empty)
{
	struct pageset_range *r = NULL;
	size_t n = 0;

	ck_assert_int_eq(keep_resident(file, 8 * URA_PACK_PAGE_SIZE, &r, &n), 0);
	ck_assert_uint_eq(n, 0);
	free(r);
}
END_TEST

static Suite *trace_assemble_suite(void)
{
	Suite *s = suite_create("trace-assemble");
	TCase *tc = tcase_create("residency");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_resident_pages_kept);
	tcase_add_test(tc, test_pages_past_the_end_dropped);
	tcase_add_test(tc, test_evicted_pages_dropped);
	tcase_add_test(tc, test_unreadable_file_kept_whole);
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(trace_assemble_suite)
