/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: the replays of a process tree, so that a child its ancestor's pack holds is not replayed again */
#ifndef URA_WATCH_TREE_H
#define URA_WATCH_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Why: a learned pack holds what the program's whole process tree read in its
 * window (the learning daemon follows its forks), so the children a program
 * starts are in its pack as it uses them. Their own packs were learned from
 * their own starts, with other arguments: rustc links with gcc, whose pack,
 * learned from compiles, holds cc1 and the sanitizer runtimes. Replaying a
 * child's pack besides its ancestor's read 22 MB that start did not need (on
 * the sdcard profile, 1.2 s of the device). A child whose executable the pack
 * of a replayed ancestor holds demanded pages of, exec'd within that pack's
 * window, is left to that pack; any other child (a program the ancestor's runs
 * did not start) gets its own.
 */

#define TREE_MAX	64		/* replays remembered, the oldest forgotten first */
#define TREE_DEPTH	16		/* processes looked at: the exec's own, then its ancestors */
#define TREE_FILES_MAX	4096		/* a pack with more files (a boot's) covers no child */
/*
 * An ancestor's pack covers its tree this long after its exec: its trace's
 * length (the learning window), but no less than TREE_SPAN_MIN_NS: a pack's
 * window is that of its newest run, mostly a warm start's, and a cold start
 * on a slow device takes many times as long (rustc on the sdcard profile: 0.5
 * s warm, 16 s cold, its linker started 10 s in).
 */
#define TREE_SPAN_MIN_NS	30000000000ull
#define TREE_SPAN_MAX_NS	300000000000ull

/* A file, as a pack recorded it: its device and inode. */
struct watch_tree_id {
	dev_t dev;
	ino_t ino;
};

struct watch_tree_entry {
	pid_t pid;		/* 0: free */
	uint64_t start;		/* the process's start (proc_parent_start()): a pid reused is not it */
	uint64_t hash;		/* the pack's (its path's): to forget a replay cancelled */
	uint64_t at, until;	/* the replay's time, and the end of its pack's window */
	struct watch_tree_id *ids;	/* the pack's files with demanded pages, sorted; owned */
	size_t nids;
};

struct watch_tree {
	struct watch_tree_entry e[TREE_MAX];
};

/* The parent of a process and its start, as proc_parent_start(); tests give their own. */
typedef int (*watch_tree_stat_fn)(pid_t pid, pid_t *ret_parent, uint64_t *ret_start);

struct ura_pack;

/**
 * watch_tree_ids() - the files of @pack with demanded pages, sorted, in *@ret (malloc()ed,
 * NULL when none) and *@ret_n
 * Return: 0, -E2BIG (more than TREE_FILES_MAX), -ENOMEM.
 */
int watch_tree_ids(const struct ura_pack *pack, struct watch_tree_id **ret, size_t *ret_n);

/**
 * watch_tree_note() - at @now, a replay of the pack @hash (its files @ids, @n of them, copied)
 * was queued for process @pid (started at @start); its pack's trace lasted @duration_ns
 * Return: 0, -ENOMEM (nothing noted).
 */
int watch_tree_note(struct watch_tree *t, pid_t pid, uint64_t start, uint64_t hash,
		    const struct watch_tree_id *ids, size_t n, uint64_t duration_ns, uint64_t now);

/** watch_tree_forget() - the replay of pack @hash for @pid did not happen (cancelled) */
void watch_tree_forget(struct watch_tree *t, pid_t pid, uint64_t hash);

/**
 * watch_tree_covered() - is the exec by @pid of the file @dev:@ino in the files of a replay
 * for @pid or one of its ancestors (@stat_of() of each, TREE_DEPTH processes at most: a
 * process is the one noted when its start is too), within that replay's window?
 * @ret_at: if not NULL, when that replay was
 *
 * No process is looked up while no replay is remembered within its window.
 * Return: the pid of the process whose replay covers it, or 0.
 */
pid_t watch_tree_covered(struct watch_tree *t, pid_t pid, dev_t dev, ino_t ino, uint64_t now,
			 watch_tree_stat_fn stat_of, uint64_t *ret_at);

/** watch_tree_clear() - forget every replay */
void watch_tree_clear(struct watch_tree *t);

#endif
