// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay --watch's packs by program: lazy reads, changes seen, bad packs remembered */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <ura/pack.h>

#include "util-log.h"
#include "replay-mounts.h"
#include "watch-packs.h"
#include "sys-view.h"
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

/*
 * The pack's filesystem for @path: its mount point (found by climbing while the
 * device stays the same) and the path below it, as a trace records them.
 */
static const char *rel_to_mount(const char *path, char *mnt, size_t size)
{
	char cur[PATH_MAX], up[PATH_MAX];
	struct stat st, ust;
	char *slash;

	ck_assert_int_eq(stat(path, &st), 0);
	snprintf(cur, sizeof(cur), "%s", path);
	for (;;) {
		slash = strrchr(cur, '/');
		if (slash == cur) {	/* at the top: "/" itself, or a mount right below it */
			if (stat("/", &ust) == 0 && ust.st_dev == st.st_dev)
				strcpy(cur, "/");
			break;
		}
		memcpy(up, cur, (size_t)(slash - cur));
		up[slash - cur] = '\0';
		if (stat(up, &ust) < 0 || ust.st_dev != st.st_dev)
			break;
		strcpy(cur, up);
	}
	snprintf(mnt, size, "%s", cur);
	return path + (strcmp(cur, "/") ? strlen(cur) + 1 : 1);
}

/* A pack of the data file's first page at @name in the pack directory; @ino_delta spoils
 * the recorded inode number. */
static void write_pack(const char *name, uint64_t ino_delta, bool demanded)
{
	struct ura_pack_builder *b = NULL;
	struct stat st;
	char path[700];
	uint32_t fi;

	char mnt[PATH_MAX];
	const char *rel = rel_to_mount(data, mnt, sizeof(mnt));

	ck_assert_int_eq(stat(data, &st), 0);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.major = major(st.st_dev), .minor = minor(st.st_dev), .mount_point = mnt,
		.fstype = "", .source = "" }, &fi), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.fs_index = 0, .path = rel, .ino = st.st_ino + ino_delta,
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
	struct watch_packs c;
	struct watch_pack *p = NULL, *q = NULL;

	ck_assert_int_eq(watch_packs_init(&c, packs), 0);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/usr/bin/prog", &p, NULL), -ENOENT);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(c.n, 0);
	write_pack("usr-bin-prog.pack", 0, true);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/usr/bin/prog", &p, NULL), 0);
	ck_assert_ptr_nonnull(p->pack);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/usr/bin/prog", &q, NULL), 0);
	ck_assert_ptr_eq(p, q);			/* unchanged: not read again */
	watch_pack_put(q);
	q = NULL;
	/* replaced (a new inode, as an atomic write makes): read again; the old one lives on */
	write_pack("usr-bin-prog.pack", 0, true);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/usr/bin/prog", &q, NULL), 0);
	ck_assert_ptr_ne(p, q);
	ck_assert_ptr_nonnull(p->pack);
	watch_pack_put(p);
	watch_pack_put(q);
	/* removed: forgotten */
	{
		char path[700];

		snprintf(path, sizeof(path), "%s/usr-bin-prog.pack", packs);
		ck_assert_int_eq(unlink(path), 0);
	}
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/usr/bin/prog", &p, NULL), -ENOENT);
	ck_assert_uint_eq(c.n, 0);
	watch_packs_free(&c);
}
END_TEST

START_TEST(test_dir_recreated)
{
	struct watch_packs c;
	struct watch_pack *p = NULL;
	char cmd[700];

	ck_assert_int_eq(watch_packs_init(&c, packs), 0);
	write_pack("a-b.pack", 0, true);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/a/b", &p, NULL), 0);
	watch_pack_put(p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", packs);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/a/b", &p, NULL), -ENOENT);
	ck_assert_int_eq(mkdir(packs, 0755), 0);
	write_pack("a-b.pack", 0, true);
	p = NULL;
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/a/b", &p, NULL), 0);
	ck_assert_ptr_nonnull(p);
	watch_pack_put(p);
	watch_packs_free(&c);
}
END_TEST

START_TEST(test_corrupt_remembered)
{
	struct watch_packs c;
	struct watch_pack *p = NULL;
	char path[700];
	int fd;

	snprintf(path, sizeof(path), "%s/bad.pack", packs);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "URAPACK\0garbage", 15), 15);
	close(fd);
	ck_assert_int_eq(watch_packs_init(&c, packs), 0);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/bad", &p, NULL), -EBADMSG);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/bad", &p, NULL), -EBADMSG);
	ck_assert_uint_eq(c.n, 1);		/* kept: read (and logged) once per version */
	ck_assert_ptr_null(p);
	/* a directory where a pack should be */
	snprintf(path, sizeof(path), "%s/dir.pack", packs);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/dir", &p, NULL), -EISDIR);
	/* not normalized, too long: no pack */
	ck_assert_int_lt(watch_packs_lookup(&c, 0, "/a/../b", &p, NULL), 0);
	memset(path, 'x', 400);
	path[0] = '/';
	path[400] = '\0';
	ck_assert_int_eq(watch_packs_lookup(&c, 0, path, &p, NULL), -ENOENT);
	watch_packs_free(&c);
}
END_TEST

START_TEST(test_eviction)
{
	struct watch_packs c;
	struct watch_pack *p = NULL;
	char name[64];

	ck_assert_int_eq(watch_packs_init(&c, packs), 0);
	for (int i = 0; i < REPLAY_PACKS_MAX + 5; i++) {
		snprintf(name, sizeof(name), "p%d.pack", i);
		write_pack(name, 0, true);
		snprintf(name, sizeof(name), "/p%d", i);
		ck_assert_int_eq(watch_packs_lookup(&c, 0, name, &p, NULL), 0);
		watch_pack_put(p);
	}
	ck_assert_uint_eq(c.n, REPLAY_PACKS_MAX);
	watch_packs_free(&c);
}
END_TEST

/* Kept by their bytes too: the least recently used go; a pack found resident is remembered. */
START_TEST(test_eviction_by_bytes)
{
	struct watch_packs c;
	struct watch_pack *p = NULL, *first = NULL;
	uint64_t one;
	char name[64];

	ck_assert_int_eq(watch_packs_init(&c, packs), 0);
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "b%d.pack", i);
		write_pack(name, 0, true);
	}
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/b0", &first, NULL), 0);
	one = c.bytes;
	ck_assert_uint_gt(one, 0);
	c.max_bytes = 3 * one;
	__atomic_store_n(&first->resident_ns, 42, __ATOMIC_RELAXED);
	watch_pack_put(first);
	for (int i = 1; i < 8; i++) {
		snprintf(name, sizeof(name), "/b%d", i);
		ck_assert_int_eq(watch_packs_lookup(&c, 0, name, &p, NULL), 0);
		watch_pack_put(p);
		/* b0 used each time: it stays */
		ck_assert_int_eq(watch_packs_lookup(&c, 0, "/b0", &p, NULL), 0);
		ck_assert_uint_eq(__atomic_load_n(&p->resident_ns, __ATOMIC_RELAXED), 42);
		watch_pack_put(p);
		ck_assert_uint_le(c.bytes, c.max_bytes);
	}
	ck_assert_uint_eq(c.n, 3);
	/* one larger than the cap is kept alone */
	c.max_bytes = one / 2;
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/b1", &p, NULL), 0);
	watch_pack_put(p);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.bytes, one);
	watch_packs_free(&c);
}
END_TEST

/* A pack of the data file's pages and of a second file @other (all of it), both demanded. */
static void write_pack2(const char *name, const char *other)
{
	struct ura_pack_builder *b = NULL;
	struct stat st, ost;
	char path[700];
	uint32_t fi, fo;

	char mnt[PATH_MAX], omnt[PATH_MAX];
	const char *rel = rel_to_mount(data, mnt, sizeof(mnt));
	const char *orel = rel_to_mount(other, omnt, sizeof(omnt));

	ck_assert_int_eq(stat(data, &st), 0);
	ck_assert_int_eq(stat(other, &ost), 0);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.major = major(st.st_dev), .minor = minor(st.st_dev), .mount_point = mnt,
		.fstype = "", .source = "" }, &fi), 0);
	if (ost.st_dev != st.st_dev)
		ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
			.major = major(ost.st_dev), .minor = minor(ost.st_dev), .mount_point = omnt,
			.fstype = "", .source = "" }, &fo), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.fs_index = ost.st_dev != st.st_dev, .path = orel, .ino = ost.st_ino,
		.size = (uint64_t)ost.st_size, .mtime_ns = ost.st_mtim.tv_sec * 1000000000LL +
		ost.st_mtim.tv_nsec }, &fo), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.fs_index = 0, .path = rel, .ino = st.st_ino,
		.size = (uint64_t)st.st_size, .mtime_ns = st.st_mtim.tv_sec * 1000000000LL +
		st.st_mtim.tv_nsec }, &fi), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = fo, .first_page = 0, .page_count = (uint32_t)((ost.st_size + 4095) / 4096),
		.first_access_ns = 1, .flags = URA_PACK_RANGE_DEMANDED }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = fi, .first_page = 0, .page_count = 3, .first_access_ns = 2,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	snprintf(path, sizeof(path), "%s/%s", packs, name);
	ck_assert_int_eq(ura_pack_builder_write(b, path, 0644), 0);
	ura_pack_builder_free(b);
}

START_TEST(test_resident)
{
	struct watch_packs c;
	struct watch_pack *p = NULL;
	struct replay_check ck;
	struct replay_fs *fs = NULL, unset;
	struct sys_view *view = NULL;
	char buf[3 * 4096];
	int fd;

	/* read the file: its pages are cached (tmpfs or not) */
	fd = open(data, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	ck_assert_int_eq(sys_view_read(SYS_VIEW_MOUNTS, &view), 0);
	ck_assert_int_eq(watch_packs_init(&c, packs), 0);
	write_pack("good.pack", 0, true);
	write_pack("stale.pack", 1, true);
	write_pack("spec.pack", 0, false);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/good", &p, NULL), 0);
	ck_assert_uint_eq(p->nsamples, 2);		/* one per page when the pack is small */
	ck_assert_int_eq(watch_pack_check(p, view, false, &ck, NULL), 0);
	ck_assert_uint_eq(ck.sampled, 2);
	ck_assert_uint_eq(ck.resident, 2);
	/* the filesystems it found, for the replay it decides on */
	ck_assert_int_eq(watch_pack_check(p, view, false, &ck, &fs), 0);
	ck_assert_ptr_nonnull(fs);
	ck_assert_int_ge(fs[0].dirfd, 0);
	ck_assert_uint_eq(ck.resident, 2);
	replay_mounts_free(fs, ura_pack_fs_count(p->pack));
	fs = NULL;
	watch_pack_put(p);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/stale", &p, NULL), 0);
	ck_assert_int_eq(watch_pack_check(p, view, false, &ck, NULL), 0);
	ck_assert_uint_eq(ck.resident, 0);		/* another file now: replay decides */
	watch_pack_put(p);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/spec", &p, NULL), 0);
	ck_assert_uint_eq(p->nsamples, 0);		/* no demanded range: nothing to look at */
	fs = &unset;
	ck_assert_int_eq(watch_pack_check(p, view, false, &ck, &fs), 0);
	ck_assert_uint_eq(ck.sampled, 0);
	ck_assert_ptr_null(fs);				/* nor looked for: the replay finds them */
	watch_pack_put(p);
	watch_packs_free(&c);
	sys_view_unref(view);
}
END_TEST

/* The samples are spread over the demanded bytes by size; shared files are left out. */
START_TEST(test_samples)
{
	struct watch_packs c;
	struct watch_pack *p = NULL;
	char big[700];
	struct stat st;
	unsigned in_big = 0;
	FILE *f;

	snprintf(big, sizeof(big), "%s/big", dir);
	f = fopen(big, "we");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 1000 * 4096; i++)
		fputc(i & 0xff, f);
	fclose(f);
	ck_assert_int_eq(stat(big, &st), 0);
	ck_assert_int_eq(watch_packs_init(&c, packs), 0);
	ck_assert_int_eq(watch_packs_set_shared(&c, NULL, 0), 0);
	write_pack2("two.pack", big);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/two", &p, NULL), 0);
	ck_assert_uint_eq(p->nsamples, REPLAY_PACKS_SAMPLES);
	ck_assert_uint_eq(p->sampled_bytes, (1000 + 3) * 4096ull);
	for (uint32_t i = 0; i < p->nsamples; i++) {
		ck_assert_uint_lt(p->samples[i].page, 1000);
		if (i)	/* sorted by file, then page, no page twice */
			ck_assert(p->samples[i].file > p->samples[i - 1].file ||
				  p->samples[i].page > p->samples[i - 1].page);
		in_big += p->samples[i].file == 0;
	}
	ck_assert_uint_ge(in_big, REPLAY_PACKS_SAMPLES - 1);	/* 1000 of 1003 pages */
	watch_pack_put(p);
	watch_packs_free(&c);

	/* the big file mapped by every program: the samples are the data file's */
	ck_assert_int_eq(watch_packs_init(&c, packs), 0);
	ck_assert_int_eq(watch_packs_set_shared(&c, &(struct replay_shared){ st.st_dev, st.st_ino },
						 1), 0);
	write_pack2("two.pack", big);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/two", &p, NULL), 0);
	ck_assert_uint_eq(p->nsamples, 3);
	ck_assert(!p->sampled_shared);
	for (uint32_t i = 0; i < p->nsamples; i++)
		ck_assert_uint_eq(p->samples[i].file, 1);
	watch_pack_put(p);
	watch_packs_free(&c);
}
END_TEST

/* This process's own libraries are the shared files; a pack of nothing else is sampled anyway. */
START_TEST(test_shared_own_maps)
{
	struct watch_packs c;
	struct watch_pack *p = NULL;
	char libc[PATH_MAX] = "";
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) && !libc[0]) {
		char *s = strstr(line, "/libc.so");

		if (s) {
			s = strchr(line, '/');
			s[strcspn(s, "\n")] = '\0';
			snprintf(libc, sizeof(libc), "%s", s);
		}
	}
	fclose(f);
	if (!libc[0])
		return;		/* a static build: nothing to look at */
	ck_assert_int_eq(watch_packs_init(&c, packs), 0);
	ck_assert_uint_gt(c.nshared, 0);
	write_pack2("libc.pack", libc);
	ck_assert_int_eq(watch_packs_lookup(&c, 0, "/libc", &p, NULL), 0);
	ck_assert(!p->sampled_shared);
	for (uint32_t i = 0; i < p->nsamples; i++)
		ck_assert_uint_eq(p->samples[i].file, 1);	/* the data file only */
	watch_pack_put(p);
	watch_packs_free(&c);
}
END_TEST

static Suite *watch_packs_suite(void)
{
	Suite *s = suite_create("watch-packs");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lazy_and_changes);
	tcase_add_test(tc, test_dir_recreated);
	tcase_add_test(tc, test_corrupt_remembered);
	tcase_add_test(tc, test_eviction);
	tcase_add_test(tc, test_eviction_by_bytes);
	tcase_add_test(tc, test_resident);
	tcase_add_test(tc, test_samples);
	tcase_add_test(tc, test_shared_own_maps);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(watch_packs_suite)
