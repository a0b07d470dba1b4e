// SPDX-License-Identifier: GPL-2.0-or-later
/* learn-dir: DIR kept within its caps, the least lately started first; packs of programs gone */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ura/pack.h>

#include "learn-packdir.h"
#include "unit.h"
#include "key.h"

/* A learned pack of program @prog in @dir, of about @bytes, last written @age seconds ago. */
static void learned(const char *dir, const char *prog, size_t bytes, int age)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack_info info = { .command = prog };
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct timespec t[2];
	int fd;

	ck_assert_int_gt(key_pack_name(0, prog, name, sizeof(name)), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_set_info(b, &info), 0);
	ck_assert_int_eq(ura_pack_builder_write(b, path, 0600), 0);
	ura_pack_builder_free(b);
	/* pad it to its size: only the size counts here */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	while (bytes > 4096 && lseek(fd, 0, SEEK_END) < (off_t)bytes)
		ck_assert_int_eq(write(fd, path, 1), 1);
	close(fd);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age;
	t[1] = t[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

static bool has(const char *dir, const char *prog)
{
	char name[NAME_MAX + 1], path[PATH_MAX];

	ck_assert_int_gt(key_pack_name(0, prog, name, sizeof(name)), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

START_TEST(test_caps)
{
	char *d = unit_mkdtemp();
	struct packdir_caps caps = { .max_packs = 3, .max_bytes = 1 << 30 };
	struct packdir_usage u;

	/* programs that exist (their packs are not "gone"): the oldest start first out */
	learned(d, "/bin/sh", 0, 500);
	learned(d, "/bin/ls", 0, 400);
	learned(d, "/bin/cat", 0, 300);
	learned(d, "/bin/true", 0, 200);
	learned(d, "/bin/false", 0, 100);
	ck_assert_int_eq(packdir_bound(d, &caps, NULL, &u), 0);
	ck_assert_uint_eq(u.packs, 3);
	ck_assert_uint_eq(u.evicted, 2);
	ck_assert(!has(d, "/bin/sh") && !has(d, "/bin/ls"));
	ck_assert(has(d, "/bin/cat") && has(d, "/bin/true") && has(d, "/bin/false"));

	/* the pack named @keep stays, however old: the next oldest goes */
	caps.max_packs = 2;
	learned(d, "/bin/sh", 0, 1000);
	ck_assert_int_eq(packdir_bound(d, &caps, "bin-sh.pack", &u), 0);
	ck_assert_uint_eq(u.packs, 2);
	ck_assert(has(d, "/bin/sh") && !has(d, "/bin/cat") && !has(d, "/bin/true"));
	ck_assert(has(d, "/bin/false"));

	/* bytes: over the size, the least lately started go until under it */
	caps.max_packs = 100;
	caps.max_bytes = 150 * 1024;
	learned(d, "/bin/ls", 100 * 1024, 50);
	learned(d, "/bin/cat", 100 * 1024, 10);
	ck_assert_int_eq(packdir_bound(d, &caps, NULL, &u), 0);
	ck_assert_uint_le(u.bytes, caps.max_bytes);
	ck_assert(has(d, "/bin/cat"));
	ck_assert(!has(d, "/bin/sh") && !has(d, "/bin/false") && !has(d, "/bin/ls"));

	/* not started for longer than forget_ns: removed, whatever the caps */
	caps = (struct packdir_caps){ .max_packs = 100, .max_bytes = 1 << 30,
				      .forget_ns = 3600ll * 1000000000 };
	learned(d, "/bin/true", 0, 7200);
	ck_assert_int_eq(packdir_bound(d, &caps, NULL, &u), 0);
	ck_assert(!has(d, "/bin/true") && has(d, "/bin/cat"));
	unit_rmtree(d);
	free(d);
}
END_TEST

/* touch DIR/NAME, last written @age_s ago */
static void file_aged(const char *dir, const char *name, long age_s)
{
	char path[PATH_MAX];
	struct timespec t[2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("x", f);
	fclose(f);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age_s;
	t[1] = t[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

static bool exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* One pack's share of --max-size: a sixteenth, at least 4 MiB, all of it when smaller */
START_TEST(test_pack_share)
{
	ck_assert_uint_eq(packdir_pack_share(PACKDIR_MAX_BYTES), 8ull << 20);
	ck_assert_uint_eq(packdir_pack_share(64ull << 20), 4ull << 20);
	ck_assert_uint_eq(packdir_pack_share(32ull << 20), 4ull << 20);
	ck_assert_uint_eq(packdir_pack_share(1ull << 20), 1ull << 20);
	ck_assert_uint_eq(packdir_pack_share(1ull << 30), 64ull << 20);
}
END_TEST

/* A killed writer's temporary file goes (after PACKDIR_TEMP_NS); nothing else is touched. */
START_TEST(test_temp_files)
{
	char *d = unit_mkdtemp();
	struct packdir_caps caps = { .max_packs = 100, .max_bytes = 1 << 30 };
	struct packdir_usage u;

	file_aged(d, "usr-bin-a.pack.Ab12Cd", 3600);
	file_aged(d, "usr-bin-b.pack.Xy34Zw", 0);		/* being written, maybe */
	file_aged(d, "notes.txt.Ab12Cd", 3600);
	file_aged(d, "usr-bin-c.pack.toolong", 3600);
	ck_assert_int_eq(packdir_bound(d, &caps, NULL, &u), 0);
	ck_assert_uint_eq(u.temps, 1);
	ck_assert(!exists(d, "usr-bin-a.pack.Ab12Cd"));
	ck_assert(exists(d, "usr-bin-b.pack.Xy34Zw"));
	ck_assert(exists(d, "notes.txt.Ab12Cd") && exists(d, "usr-bin-c.pack.toolong"));
	unit_rmtree(d);
	free(d);
}
END_TEST

START_TEST(test_gone)
{
	char *d = unit_mkdtemp(), prog[PATH_MAX], other[PATH_MAX];
	struct packdir_caps caps = { .max_packs = 100, .max_bytes = 1 << 30 };
	struct packdir_usage u;
	FILE *f;

	/* a program that existed when learned, deleted since */
	snprintf(prog, sizeof(prog), "%s/tool", d);
	f = fopen(prog, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	learned(d, prog, 0, 10);
	learned(d, "/bin/sh", 0, 20);
	ck_assert_int_eq(packdir_bound(d, &caps, NULL, &u), 0);
	ck_assert_uint_eq(u.evicted, 0);	/* it exists: kept */
	ck_assert_int_eq(unlink(prog), 0);
	/* only looked for when asked (it reads each pack) */
	ck_assert_int_eq(packdir_bound(d, &caps, NULL, &u), 0);
	ck_assert(has(d, prog));
	caps.check_programs = true;
	ck_assert_int_eq(packdir_bound(d, &caps, NULL, &u), 0);
	ck_assert_uint_eq(u.gone, 1);
	ck_assert(!has(d, prog) && has(d, "/bin/sh"));

	/* a pack whose name is not its command's (a hand-made one) is never taken for gone */
	snprintf(other, sizeof(other), "%s/-hand.pack", d);
	learned(d, "/nonexistent/prog", 0, 5);
	{
		char name[NAME_MAX + 1], from[PATH_MAX];

		ck_assert_int_gt(key_pack_name(0, "/nonexistent/prog", name, sizeof(name)), 0);
		snprintf(from, sizeof(from), "%s/%s", d, name);
		ck_assert_int_eq(rename(from, other), 0);
	}
	ck_assert_int_eq(packdir_bound(d, &caps, NULL, &u), 0);
	ck_assert_int_eq(access(other, F_OK), 0);
	/* nor what is not a pack */
	ck_assert_int_eq(packdir_bound("/nonexistent-dir", &caps, NULL, &u), -ENOENT);
	unit_rmtree(d);
	free(d);
}
END_TEST

static Suite *learn_dir_suite(void)
{
	Suite *s = suite_create("learn-dir");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_caps);
	tcase_add_test(tc, test_gone);
	tcase_add_test(tc, test_temp_files);
	tcase_add_test(tc, test_pack_share);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(learn_dir_suite)
