// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay --watch's packs by program: lazy reads, changes seen, bad packs remembered */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <ura/pack.h>

#include "util-log.h"
#include "replay-packs.h"
#include "unit.h"

static char *dir;
static char packs[600], data[600];

static void setup(void)
{
	FILE *f;

	dir = unit_mkdtemp();
	snprintf(packs, sizeof(packs), "%s/packs", dir);
	snprintf(data, sizeof(data), "%s/data", dir);
	ck_assert_int_eq(mkdir(packs, 0755), 0);
	f = fopen(data, "we");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 3 * 4096; i++)
		fputc(i & 0xff, f);
	fclose(f);
	log_set_level(LOG_LVL_ERR - 1);		/* the refused packs' warnings are expected */
}

static void teardown(void)
{
	unit_rmtree(dir);
	free(dir);
	log_set_level(LOG_LVL_INFO);
}

/* A pack of the data file's first page at @name in the pack directory; @ino_delta spoils
 * the recorded inode number. */
static void write_pack(const char *name, uint64_t ino_delta, bool demanded)
{
	struct ura_pack_builder *b = NULL;
	struct stat st;
	char path[700];
	uint32_t fi;

	ck_assert_int_eq(stat(data, &st), 0);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.major = major(st.st_dev), .minor = minor(st.st_dev), .mount_point = "/",
		.fstype = "", .source = "" }, &fi), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.fs_index = 0, .path = data + 1, .ino = st.st_ino + ino_delta,
		.size = (uint64_t)st.st_size, .mtime_ns = st.st_mtim.tv_sec * 1000000000LL +
		st.st_mtim.tv_nsec }, &fi), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = fi, .first_page = 0, .page_count = 2, .first_access_ns = 1,
		.flags = demanded ? URA_PACK_RANGE_DEMANDED : 0 }), 0);
	snprintf(path, sizeof(path), "%s/%s", packs, name);
	ck_assert_int_eq(ura_pack_builder_write(b, path, 0644), 0);
	ura_pack_builder_free(b);
}

START_TEST(test_lazy_and_changes)
{
	struct replay_packs c;
	struct replay_pack *p = NULL, *q = NULL;

	ck_assert_int_eq(replay_packs_init(&c, packs), 0);
	ck_assert_int_eq(replay_packs_lookup(&c, "/usr/bin/prog", &p), -ENOENT);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(c.n, 0);
	write_pack("usr-bin-prog.pack", 0, true);
	ck_assert_int_eq(replay_packs_lookup(&c, "/usr/bin/prog", &p), 0);
	ck_assert_ptr_nonnull(p->pack);
	ck_assert_int_eq(replay_packs_lookup(&c, "/usr/bin/prog", &q), 0);
	ck_assert_ptr_eq(p, q);			/* unchanged: not read again */
	replay_pack_put(q);
	q = NULL;
	/* replaced (a new inode, as an atomic write makes): read again; the old one lives on */
	write_pack("usr-bin-prog.pack", 0, true);
	ck_assert_int_eq(replay_packs_lookup(&c, "/usr/bin/prog", &q), 0);
	ck_assert_ptr_ne(p, q);
	ck_assert_ptr_nonnull(p->pack);
	replay_pack_put(p);
	replay_pack_put(q);
	/* removed: forgotten */
	{
		char path[700];

		snprintf(path, sizeof(path), "%s/usr-bin-prog.pack", packs);
		ck_assert_int_eq(unlink(path), 0);
	}
	ck_assert_int_eq(replay_packs_lookup(&c, "/usr/bin/prog", &p), -ENOENT);
	ck_assert_uint_eq(c.n, 0);
	replay_packs_free(&c);
}
END_TEST

START_TEST(test_dir_recreated)
{
	struct replay_packs c;
	struct replay_pack *p = NULL;
	char cmd[700];

	ck_assert_int_eq(replay_packs_init(&c, packs), 0);
	write_pack("a-b.pack", 0, true);
	ck_assert_int_eq(replay_packs_lookup(&c, "/a/b", &p), 0);
	replay_pack_put(p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", packs);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(replay_packs_lookup(&c, "/a/b", &p), -ENOENT);
	ck_assert_int_eq(mkdir(packs, 0755), 0);
	write_pack("a-b.pack", 0, true);
	p = NULL;
	ck_assert_int_eq(replay_packs_lookup(&c, "/a/b", &p), 0);
	ck_assert_ptr_nonnull(p);
	replay_pack_put(p);
	replay_packs_free(&c);
}
END_TEST

START_TEST(test_corrupt_remembered)
{
	struct replay_packs c;
	struct replay_pack *p = NULL;
	char path[700];
	int fd;

	snprintf(path, sizeof(path), "%s/bad.pack", packs);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "URAPACK\0garbage", 15), 15);
	close(fd);
	ck_assert_int_eq(replay_packs_init(&c, packs), 0);
	ck_assert_int_eq(replay_packs_lookup(&c, "/bad", &p), -EBADMSG);
	ck_assert_int_eq(replay_packs_lookup(&c, "/bad", &p), -EBADMSG);
	ck_assert_uint_eq(c.n, 1);		/* kept: read (and logged) once per version */
	ck_assert_ptr_null(p);
	/* a directory where a pack should be */
	snprintf(path, sizeof(path), "%s/dir.pack", packs);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(replay_packs_lookup(&c, "/dir", &p), -EISDIR);
	/* not normalized, too long: no pack */
	ck_assert_int_lt(replay_packs_lookup(&c, "/a/../b", &p), 0);
	memset(path, 'x', 400);
	path[0] = '/';
	path[400] = '\0';
	ck_assert_int_eq(replay_packs_lookup(&c, path, &p), -ENOENT);
	replay_packs_free(&c);
}
END_TEST

START_TEST(test_eviction)
{
	struct replay_packs c;
	struct replay_pack *p = NULL;
	char name[64];

	ck_assert_int_eq(replay_packs_init(&c, packs), 0);
	for (int i = 0; i < REPLAY_PACKS_MAX + 5; i++) {
		snprintf(name, sizeof(name), "p%d.pack", i);
		write_pack(name, 0, true);
		snprintf(name, sizeof(name), "/p%d", i);
		ck_assert_int_eq(replay_packs_lookup(&c, name, &p), 0);
		replay_pack_put(p);
	}
	ck_assert_uint_eq(c.n, REPLAY_PACKS_MAX);
	replay_packs_free(&c);
}
END_TEST

START_TEST(test_resident)
{
	struct replay_packs c;
	struct replay_pack *p = NULL;
	char buf[8192];
	int fd;

	/* read the file: its first pages are cached (tmpfs or not) */
	fd = open(data, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	ck_assert_int_eq(replay_packs_init(&c, packs), 0);
	write_pack("good.pack", 0, true);
	write_pack("stale.pack", 1, true);
	write_pack("spec.pack", 0, false);
	ck_assert_int_eq(replay_packs_lookup(&c, "/good", &p), 0);
	ck_assert(replay_pack_resident(p->pack));
	replay_pack_put(p);
	ck_assert_int_eq(replay_packs_lookup(&c, "/stale", &p), 0);
	ck_assert(!replay_pack_resident(p->pack));	/* another file now: replay decides */
	replay_pack_put(p);
	ck_assert_int_eq(replay_packs_lookup(&c, "/spec", &p), 0);
	ck_assert(!replay_pack_resident(p->pack));	/* no demanded range */
	replay_pack_put(p);
	replay_packs_free(&c);
}
END_TEST

static Suite *replay_packs_suite(void)
{
	Suite *s = suite_create("replay-packs");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lazy_and_changes);
	tcase_add_test(tc, test_dir_recreated);
	tcase_add_test(tc, test_corrupt_remembered);
	tcase_add_test(tc, test_eviction);
	tcase_add_test(tc, test_resident);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(replay_packs_suite)
