/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: the replays of a process tree, so that a child its ancestor's pack holds is not replayed again */
#ifndef URA_WATCH_TREE_H
#define URA_WATCH_TREE_H

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
 * of a replayed ancestor holds (demanded), exec'd within that pack's window,
 * is left to that pack; any other child (a program the ancestor's runs did
 * not start) gets its own.
 */

#define TREE_MAX	64		/* replays remembered, the oldest forgotten first */
#define TREE_DEPTH	16		/* ancestors looked at, at most */
/*
 * An ancestor's pack covers its tree this long after its exec: its trace's
 * length (the learning window), but no less than TREE_SPAN_MIN_NS: a pack's
 * window is that of its newest run, mostly a warm start's, and a cold start
 * on a slow device takes many times as long (rustc on the sdcard profile: 0.5
 * s warm, 16 s cold, its linker started 10 s in).
 */
#define TREE_SPAN_MIN_NS	30000000000ull
#define TREE_SPAN_MAX_NS	300000000000ull

struct watch_pack;

struct watch_tree_entry {
	pid_t pid;		/* 0: free */
	uint64_t at, until;	/* the replay's time, and the end of its pack's window */
	struct watch_pack *pack;	/* a reference */
};

struct watch_tree {
	struct watch_tree_entry e[TREE_MAX];
};

/**
 * watch_tree_note() - process @pid's pack @p is replayed, at @now: @p's reference is
 * taken over
 */
void watch_tree_note(struct watch_tree *t, pid_t pid, struct watch_pack *p, uint64_t now);

/**
 * watch_tree_covered() - is the exec by @pid of the file @dev:@ino in the pack of a
 * replay of @pid or of one of its ancestors (@parent_of() of each, TREE_DEPTH at most),
 * within that pack's window?
 * @ret_at: if not NULL, when that replay was
 *
 * No ancestor is looked up while no replay is remembered within its window.
 * Return: the pid of the process whose replay covers it, or 0.
 */
pid_t watch_tree_covered(struct watch_tree *t, pid_t pid, dev_t dev, ino_t ino, uint64_t now,
			 pid_t (*parent_of)(pid_t), uint64_t *ret_at);

/** watch_tree_clear() - forget every replay (their packs let go) */
void watch_tree_clear(struct watch_tree *t);

#endif
