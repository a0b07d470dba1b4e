/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Learning's worker thread: closed windows -> packs, off the event loop (build, lock, merge, write) */
#ifndef URA_LEARN_WORKER_H
#define URA_LEARN_WORKER_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "learn-packdir.h"
#include "learn-merge.h"

struct learn_window;
struct sys_view;
struct learn_worker;

struct worker_opts {
	const char *dir;			/* the directory of packs */
	struct learn_merge_opts merge;
	unsigned info_flags;			/* URA_PACK_INFO_* of every run */
	struct packdir_caps caps;		/* DIR's bounds (its mounts are the worker's) */
	bool include_user_files;		/* learn files under users' and temporary trees too
						 * (learn-private.h) */
};

/* What the worker did, for the daemon's log and the benchmarks. */
struct worker_stats {
	uint64_t runs;			/* windows handed over */
	uint64_t merged;		/* runs merged into packs */
	uint64_t empty;			/* runs without a page-cache event */
	uint64_t failed;		/* runs that could not be built, merged or written */
	uint64_t too_large;		/* runs not merged: the pack would be over its share */
	uint64_t not_script;		/* runs not merged: the script their argv named is not one
					 * their interpreter ran (key_exec_script_check()) */
	uint64_t dropped;		/* runs not taken: the queue was full */
	uint64_t dropped_stop;		/* runs not merged: the daemon stopped (STOP_DRAIN_NS) */
	uint64_t writes;		/* packs written */
	uint64_t evicted;		/* packs removed to keep DIR within its caps */
	uint64_t settled;		/* packs that settled (LEARN_SETTLE_RUNS) */
	uint64_t busy_ns;		/* time spent on runs */
};

/**
 * worker_new() - start the worker thread
 * @view: the event loop's view of the system (a reference is taken); the worker names files
 *	with it, and with the newer one each worker_submit() hands over
 * Return: 0, -ENOMEM, or the -errno of pthread_create().
 */
int worker_new(const struct worker_opts *o, struct sys_view *view, struct learn_worker **ret);

/**
 * worker_submit() - hand a closed window over; its run goes into its program's pack
 * @view: the event loop's view now (sys_view_refresh()d): the run's files are named with it
 * @w: taken with windows_take(); the worker owns what it holds from now on, whatever
 *	the result (*@w is zeroed)
 * Return: 0, or -ENOBUFS when too many runs wait, in all (QUEUE_MAX) or of the run's user
 *	(half of it): the run is dropped and counted.
 */
int worker_submit(struct learn_worker *wk, struct learn_window *w, struct sys_view *view);

/*
 * A program's pack has settled when a merge that leaves it with
 * LEARN_SETTLE_RUNS runs or more, over LEARN_SETTLE_SPAN_NS at least, changed it by
 * little: its pages, demanded pages and files each within SETTLE_PERCENT and
 * SETTLE_PAGES pages (or one file) of what they were. The program then does
 * the same at every start but for a fringe of pages some runs use and others
 * not, which the merge takes in and out as their support crosses its
 * threshold (2-7% of the pages of --version starts of 130 programs of
 * /usr/bin: at 1%, a quarter of them never settled, and their packs went
 * back and forth to the end of their bursts), and more of its runs would only
 * cost: the learning loop gives
 * up the rest of its burst (programs_settled()). Runs close together (copies
 * started at once, a loop) say little of how its starts vary: not enough.
 */
#define SETTLE_PAGES	16
#define SETTLE_PERCENT	5
#define SETTLED_MAX	64	/* names waiting for the loop; more are dropped */

/**
 * worker_take_settled() - the pack names of the programs whose packs settled since the last
 * call, at most @max, into @names
 * Return: how many.
 */
size_t worker_take_settled(struct learn_worker *wk, char (*names)[NAME_MAX + 1], size_t max);

/** worker_get_stats() - the counts so far */
void worker_get_stats(struct learn_worker *wk, struct worker_stats *ret);

/*
 * Stopping, the worker writes the runs handed over for this long at most and
 * drops the rest (logged, counted): systemd stops the unit after
 * TimeoutStopSec, and a stop must be quick (a reboot waits for it).
 */
#define STOP_DRAIN_NS	(1000ull * 1000 * 1000)

/**
 * worker_free() - write the runs handed over (for STOP_DRAIN_NS at most), stop the
 * thread, release; NULL is allowed
 */
void worker_free(struct learn_worker *wk);

#endif
