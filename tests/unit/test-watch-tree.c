// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/replay/watch-tree.c: a child its ancestor's replayed pack holds */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include <ura/pack.h>

#include "watch-tree.h"
#include "unit.h"

#define S 1000000000ull

/* A pack of device 8:1: file 42 demanded, file 43 speculative only, and @extra more files. */
static struct ura_pack *pack_of(unsigned extra)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	uint32_t f42, f43;
	void *data;
	size_t len;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.mount_point = "/", .major = 8, .minor = 1 }, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_set_info(b, &(struct ura_pack_info){
		.created_ns = 1, .command = "x" }), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.path = "bin/child", .ino = 42, .size = 4096 * 4, .mtime_ns = 1 }, &f42), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.path = "bin/other", .ino = 43, .size = 4096 * 4, .mtime_ns = 1 }, &f43), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = f43, .first_page = 0, .page_count = 2 }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = f42, .first_page = 0, .page_count = 2,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	for (unsigned i = 0; i < extra; i++) {
		char path[32];
		uint32_t f;

		snprintf(path, sizeof(path), "lib/%u", i);
		ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
			.path = path, .ino = 1000 + i, .size = 4096, .mtime_ns = 1 }, &f), 0);
		ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
			.file_index = f, .first_page = 0, .page_count = 1,
			.flags = URA_PACK_RANGE_DEMANDED }), 0);
	}
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	free(data);
	ura_pack_builder_free(b);
	return p;
}

/* Note a replay of pack_of(0) for @pid (started at @start), whose trace lasted @duration. */
static void note(struct watch_tree *t, pid_t pid, uint64_t start, uint64_t duration, uint64_t now)
{
	struct ura_pack *p = pack_of(0);
	struct watch_tree_id *ids;
	size_t n;

	ck_assert_int_eq(watch_tree_ids(p, &ids, &n), 0);
	ck_assert_int_eq(watch_tree_note(t, pid, start, 7, ids, n, duration, now), 0);
	free(ids);
	ura_pack_free(p);
}

/*
 * pid N's parent is N - 1 down to 100, then init; each started at N + start_shift
 * (a pid reused is another start); counts the lookups
 */
static int lookups;
static uint64_t start_shift;

static int stat_of(pid_t pid, pid_t *ret_parent, uint64_t *ret_start)
{
	lookups++;
	*ret_parent = pid > 100 ? pid - 1 : 1;
	*ret_start = (uint64_t)pid + start_shift;
	return 0;
}

START_TEST(test_ids)
{
	struct ura_pack *p = pack_of(3);
	struct watch_tree_id *ids;
	size_t n;

	/* the files with demanded pages only, sorted */
	ck_assert_int_eq(watch_tree_ids(p, &ids, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(ids[0].ino, 42);
	ck_assert(ids[0].dev == makedev(8, 1));
	ck_assert_uint_eq(ids[3].ino, 1002);
	free(ids);
	ura_pack_free(p);
	/* a boot's pack: too many files to cover a child by */
	p = pack_of(TREE_FILES_MAX);
	ck_assert_int_eq(watch_tree_ids(p, &ids, &n), -E2BIG);
	ura_pack_free(p);
}
END_TEST

START_TEST(test_child_covered_by_ancestor)
{
	struct watch_tree t = { 0 };
	uint64_t at = 0;

	start_shift = 0;
	note(&t, 100, 100, 10 * S, 5 * S);
	/* a grandchild exec'ing file 42 of 8:1 within the window: the replay of pid 100 holds it */
	ck_assert_int_eq(watch_tree_covered(&t, 102, makedev(8, 1), 42, 6 * S, stat_of, &at), 100);
	ck_assert_uint_eq(at, 5 * S);
	/* the process itself (a program exec'd by the same pid) */
	ck_assert_int_eq(watch_tree_covered(&t, 100, makedev(8, 1), 42, 6 * S, stat_of, NULL), 100);
	/* another file, one the pack has no demanded page of, another device: not held */
	ck_assert_int_eq(watch_tree_covered(&t, 102, makedev(8, 1), 44, 6 * S, stat_of, NULL), 0);
	ck_assert_int_eq(watch_tree_covered(&t, 102, makedev(8, 1), 43, 6 * S, stat_of, NULL), 0);
	ck_assert_int_eq(watch_tree_covered(&t, 102, makedev(8, 2), 42, 6 * S, stat_of, NULL), 0);
	/* a process not below pid 100 (pids below it lead to init) */
	ck_assert_int_eq(watch_tree_covered(&t, 99, makedev(8, 1), 42, 6 * S, stat_of, NULL), 0);
	/* pid 100 reused since by another process (another start): its tree is not covered */
	start_shift = 1;
	ck_assert_int_eq(watch_tree_covered(&t, 102, makedev(8, 1), 42, 6 * S, stat_of, NULL), 0);
	start_shift = 0;
	/* past the pack's window (10 s, covering 30 s after the replay) */
	ck_assert_int_eq(watch_tree_covered(&t, 102, makedev(8, 1), 42, 34 * S, stat_of, NULL), 100);
	ck_assert_int_eq(watch_tree_covered(&t, 102, makedev(8, 1), 42, 35 * S, stat_of, NULL), 0);
	watch_tree_clear(&t);
}
END_TEST

START_TEST(test_window_bounds_and_depth)
{
	struct watch_tree t = { 0 };

	start_shift = 0;
	/* a pack of a 0.1 s trace (a warm run's) covers 30 s; one of 10 minutes, 5 minutes */
	note(&t, 100, 100, S / 10, 0);
	ck_assert_int_eq(watch_tree_covered(&t, 101, makedev(8, 1), 42, 29 * S, stat_of, NULL), 100);
	ck_assert_int_eq(watch_tree_covered(&t, 101, makedev(8, 1), 42, 30 * S, stat_of, NULL), 0);
	note(&t, 100, 100, 600 * S, 40 * S);
	ck_assert_int_eq(watch_tree_covered(&t, 101, makedev(8, 1), 42, 339 * S, stat_of, NULL), 100);
	ck_assert_int_eq(watch_tree_covered(&t, 101, makedev(8, 1), 42, 340 * S, stat_of, NULL), 0);
	/* TREE_DEPTH processes looked at, the exec's own first */
	note(&t, 100, 100, 10 * S, 400 * S);
	lookups = 0;
	ck_assert_int_eq(watch_tree_covered(&t, 100 + TREE_DEPTH - 1, makedev(8, 1), 42, 401 * S,
					    stat_of, NULL), 100);
	ck_assert_int_eq(lookups, TREE_DEPTH);
	lookups = 0;
	ck_assert_int_eq(watch_tree_covered(&t, 100 + TREE_DEPTH, makedev(8, 1), 42, 401 * S,
					    stat_of, NULL), 0);
	ck_assert_int_eq(lookups, TREE_DEPTH);
	watch_tree_clear(&t);
}
END_TEST

START_TEST(test_no_lookup_without_a_replay)
{
	struct watch_tree t = { 0 };

	start_shift = 0;
	lookups = 0;
	ck_assert_int_eq(watch_tree_covered(&t, 105, makedev(8, 1), 42, S, stat_of, NULL), 0);
	ck_assert_int_eq(lookups, 0);
	/* a replay past its window is let go, and costs no lookup either */
	note(&t, 100, 100, 10 * S, 0);
	ck_assert_int_eq(watch_tree_covered(&t, 105, makedev(8, 1), 42, 40 * S, stat_of, NULL), 0);
	ck_assert_int_eq(lookups, 0);
	ck_assert_int_eq(t.e[0].pid, 0);
	ck_assert_ptr_null(t.e[0].ids);
	/* a replay cancelled (its key turned out another) is forgotten */
	note(&t, 100, 100, 10 * S, 50 * S);
	watch_tree_forget(&t, 100, 8);		/* another pack's */
	ck_assert_int_eq(watch_tree_covered(&t, 101, makedev(8, 1), 42, 51 * S, stat_of, NULL), 100);
	watch_tree_forget(&t, 100, 7);
	ck_assert_int_eq(watch_tree_covered(&t, 101, makedev(8, 1), 42, 51 * S, stat_of, NULL), 0);
	watch_tree_clear(&t);
}
END_TEST

START_TEST(test_table_full)
{
	struct watch_tree t = { 0 };

	start_shift = 0;
	/* TREE_MAX + 1 replays: the oldest is forgotten, the others still cover their trees */
	for (int i = 0; i <= TREE_MAX; i++)
		note(&t, 1000 + 10 * i, (uint64_t)(1000 + 10 * i), 60 * S, (uint64_t)i);
	ck_assert_int_eq(watch_tree_covered(&t, 1000, makedev(8, 1), 42, S, stat_of, NULL), 0);
	ck_assert_int_eq(watch_tree_covered(&t, 1010, makedev(8, 1), 42, S, stat_of, NULL), 1010);
	ck_assert_int_eq(watch_tree_covered(&t, 1000 + 10 * TREE_MAX, makedev(8, 1), 42, S,
					    stat_of, NULL), 1000 + 10 * TREE_MAX);
	watch_tree_clear(&t);
}
END_TEST

static Suite *watch_tree_suite(void)
{
	Suite *s = suite_create("watch_tree");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_ids);
	tcase_add_test(tc, test_child_covered_by_ancestor);
	tcase_add_test(tc, test_window_bounds_and_depth);
	tcase_add_test(tc, test_no_lookup_without_a_replay);
	tcase_add_test(tc, test_table_full);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(watch_tree_suite)
