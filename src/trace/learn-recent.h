/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The last scoped records of each traced task, so that an exec's own reads go to its window */
#ifndef URA_LEARN_RECENT_H
#define URA_LEARN_RECENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Why: an exec reads before the sched_process_exec event that opens the
 * window (the path's directories and inodes, the executable's and its
 * interpreter's headers): on a cold start a good part of the filesystem
 * metadata a program needs. A task traced before its exec (learn-pidfilter.h) has
 * those records in the scoped instance; they are kept here, a bounded ring
 * chained by task, and handed to the window its exec opens.
 */

/* Records larger than this are not kept (the page-cache events are 40 to 80 bytes). */
#define RECENT_RECORD_MAX	128
/* A start record this close before @until is the record of that very start (another clock). */
#define RECENT_START_SLACK_NS	(1000 * 1000ull)

struct recent;

/** recent_new() - a ring of @slots records at most; 0 or -ENOMEM */
int recent_new(size_t slots, struct recent **ret);

/** recent_free() - NULL is allowed */
void recent_free(struct recent *r);

/**
 * recent_push() - remember a record of task @pid at @ts
 * @start: true for a record that begins the task's history (its fork, its exec, its
 *	exit): recent_replay() goes no further back than it
 */
void recent_push(struct recent *r, int pid, uint64_t ts, bool start, const void *data,
		 uint32_t size);

typedef int (*recent_fn)(void *ctx, uint64_t ts, const void *data, uint32_t size);

/**
 * recent_replay() - call @fn on the records of @pid with @since <= ts < @until, oldest first,
 * none before the task's last start record before @until (less RECENT_START_SLACK_NS)
 * Return: 0, what @fn returned if < 0, or -ENOMEM.
 */
int recent_replay(struct recent *r, int pid, uint64_t since, uint64_t until, recent_fn fn,
		  void *ctx);

#endif
