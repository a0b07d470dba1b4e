/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The programs the learning daemon has seen start: how many of their runs it may learn now */
#ifndef URA_LEARN_PROGRAMS_H
#define URA_LEARN_PROGRAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Why: a machine runs the same programs over and over (a build runs cc1
 * thousands of times), and every run learned rewrites its pack. Each program
 * has a budget of runs (a token bucket): LEARN_BURST at once, enough for its
 * pack to settle (and for copies started together), then one more every
 * interval (--learn-interval). A start beyond the budget opens no window: it
 * costs neither tracing nor a rewrite. A program whose pack settled sooner
 * (its last runs changed it by little) gives up the rest of its burst: the
 * runs of a program that does the same at every start would only cost.
 */
#define LEARN_BURST		16
/*
 * The runs a pack needs before it can have settled (learn-worker.h); a pack
 * holding this many when the daemon starts is taken as settled: the budget
 * survives a restart, which forgets which packs settled.
 */
#define LEARN_SETTLE_RUNS	4
#define LEARN_SETTLE_SPAN_NS	(30ll * 1000 * 1000 * 1000)	/* ... over this long at least */
/* programs remembered; when full, the eighth started least lately is forgotten */
#define PROGRAMS_MAX		8192
/*
 * A user's new programs: a program the table does not know, started by a user
 * (not root), takes a token of that user's own bucket: USER_NEW_BURST, then one
 * every USER_NEW_INTERVAL_NS. Any user names a new program per file they give a
 * root interpreter (sh FILE); unbounded, they would push root's programs out of
 * the table (their budgets spent anew) and their packs out of DIR.
 */
#define USER_NEW_BURST		32
#define USER_NEW_INTERVAL_NS	(120ull * 1000 * 1000 * 1000)
/* all users but root together (a user with many subordinate uids is many users) */
#define USERS_NEW_BURST		128
#define USERS_NEW_INTERVAL_NS	(30ull * 1000 * 1000 * 1000)
#define USER_SLOTS		256	/* users remembered (one whose budget is whole goes first) */

struct programs;

/**
 * programs_new() - an empty table; @interval_ns: one run more every @interval_ns (0: no limit)
 * Return: 0 or -ENOMEM.
 */
int programs_new(uint64_t interval_ns, struct programs **ret);

/** programs_free() - NULL is allowed */
void programs_free(struct programs *p);

/* Why programs_start() said no. */
enum programs_refusal { PROGRAMS_YES, PROGRAMS_LEARNED_LATELY, PROGRAMS_USER_NEW };

/**
 * programs_start() - the program of pack name @name (key_pack_name()) started by user @uid
 * at @now_ns (monotonic): may a run of it be learned? A yes takes one run of its budget
 * (and of @uid's budget of new programs, when it is new and @uid is not 0).
 * @ret_wait_ns: when it says no, how long until it would say yes (may be NULL)
 *
 * Without memory for a new program, it says yes (unbudgeted).
 * Return: PROGRAMS_YES, or why not.
 */
enum programs_refusal programs_start(struct programs *p, const char *name, unsigned uid,
				     uint64_t now_ns, uint64_t *ret_wait_ns);

/**
 * programs_seed() - a program's budget as its pack tells it, at the daemon's start
 * @runs_ns: the wall-clock times of the runs its pack was learned from (sorted here)
 * @now_real_ns: the wall clock now; @now_ns: the monotonic clock now
 *
 * The budget is played again over those runs, oldest first, then brought up to
 * now: a restarted daemon learns no more of a program than one that kept
 * running would (its pack remembers its newest runs, --keep-runs of them). A
 * pack of LEARN_SETTLE_RUNS runs or more, over LEARN_SETTLE_SPAN_NS, has spent its burst.
 * Return: 0 or -ENOMEM.
 */
int programs_seed(struct programs *p, const char *name, int64_t *runs_ns, size_t n,
		  int64_t now_real_ns, uint64_t now_ns);

/**
 * programs_settled() - the pack of program @name has settled (learn-worker.h): the rest of
 * its burst is given up, its next run learned one interval from @now_ns
 * Return: true when the program was known and had runs left to give up.
 */
bool programs_settled(struct programs *p, const char *name, uint64_t now_ns);

/**
 * programs_settled_after() - did the pack of program @name settle after @exec_ns
 * (CLOCK_MONOTONIC, as the trace clock)? Then a run of the burst it gave up is
 * taken: a copy exec'd before that, read late, is learned as it would have
 * been (copies started together are one start, all learned whichever was read
 * last). False when it did not, or no run is left.
 */
bool programs_settled_after(struct programs *p, const char *name, uint64_t exec_ns);

/** programs_count() - programs in the table */
unsigned long programs_count(const struct programs *p);

#endif
