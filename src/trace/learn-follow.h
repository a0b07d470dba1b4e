/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parents the learning daemon follows: their next children traced from their fork */
#ifndef URA_LEARN_FOLLOW_H
#define URA_LEARN_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Why: a program whose exec is seen untraced is traced only once the pid
 * filter is written, tens of ms late. The parent of a program learned (a
 * shell, a launcher) is traced too, so that what it forks next is traced from
 * its fork. But every child of a followed parent costs its events, learned or
 * not: a parent whose traced children mostly open no window (a shell running
 * programs learned enough, over and over) is followed no more. A child not
 * learned counts one miss, a child learned takes two away; FOLLOW_MISSES
 * misses and the parent is dropped (fewer than one child in three learned).
 * A parent dropped is written out of the pid list when no window is open
 * (learn-run.c), whatever the events of tasks in no window since.
 */
#define FOLLOW_MAX		64		/* parents followed at most */
#define FOLLOW_NS		(60ull * 1000 * 1000 * 1000)	/* since its last child learned */
#define FOLLOW_MISSES		8
#define FOLLOW_FORK_SLOTS	1024		/* the last forks of traced tasks, by child pid */

struct follow_parent {
	int pid;
	uint64_t ns;		/* when it last started a program learned */
	unsigned misses;
};

struct follow {
	struct follow_parent v[FOLLOW_MAX];
	size_t n;
	struct { int child, parent; } forks[FOLLOW_FORK_SLOTS];
	uint64_t dropped;	/* parents dropped for their misses */
};

/**
 * follow_hit() - parent @ppid started a program learned at @now_ns: followed from now on
 * (when full, in place of the one whose last child learned is oldest)
 * Return: true when it was not followed before (the caller adds it to the pid filter).
 */
bool follow_hit(struct follow *f, int ppid, uint64_t now_ns);

/** follow_fork() - a traced task @parent forked @child (the fork records) */
void follow_fork(struct follow *f, int parent, int child);

/**
 * follow_miss() - a traced exec of @child opened no window: a miss of its parent, if
 * followed; the parent is known from the forks seen, not /proc (the child may be gone)
 * Return: the parent's pid when this miss dropped it, else 0.
 */
int follow_miss(struct follow *f, int child);

/**
 * follow_keep() - the parents still followed at @now_ns, for a new pid list: those that
 * started a program learned within FOLLOW_NS and that @alive says live; the others are
 * forgotten. Their pids go to @out (room for FOLLOW_MAX).
 * Return: how many.
 */
size_t follow_keep(struct follow *f, uint64_t now_ns, bool (*alive)(int pid), int *out);

#endif
