/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The programs the learning daemon has seen start: how many of their runs it may learn now */
#ifndef URA_LEARN_PROGRAMS_H
#define URA_LEARN_PROGRAMS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Why: a machine runs the same programs over and over (a build runs cc1
 * thousands of times), and every run learned rewrites its pack. Each program
 * has a budget of runs (a token bucket): LEARN_BURST at once, enough for its
 * pack to settle (and for copies started together), then one more every
 * interval (--learn-interval). A start beyond the budget opens no window: it
 * costs neither tracing nor a rewrite.
 */
#define LEARN_BURST		16
/* programs remembered; when full, the eighth started least lately is forgotten */
#define PROGRAMS_MAX		8192

struct programs;

/**
 * programs_new() - an empty table; @interval_ns: one run more every @interval_ns (0: no limit)
 * Return: 0 or -ENOMEM.
 */
int programs_new(uint64_t interval_ns, struct programs **ret);

/** programs_free() - NULL is allowed */
void programs_free(struct programs *p);

/**
 * programs_start() - program @path (of root @root_id) started at @now_ns (monotonic):
 * may a run of it be learned? A yes takes one run of its budget.
 * @ret_wait_ns: when it says no, how long until it would say yes (may be NULL)
 *
 * Without memory for a new program, it says yes (unbudgeted).
 */
bool programs_start(struct programs *p, uint64_t root_id, const char *path, uint64_t now_ns,
		    uint64_t *ret_wait_ns);

/** programs_count() - programs in the table */
unsigned long programs_count(const struct programs *p);

#endif
