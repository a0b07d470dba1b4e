/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: what each exec is, and whether a replay is queued for it */
#ifndef URA_WATCH_DECIDE_H
#define URA_WATCH_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay-options.h"

#define PENDING_MAX	64	/* interpreters waiting for their exec to complete */
#define PENDING_NS	5000000000ull	/* ... at most this long (a cold exec reads from disk) */
#define PENDING_POLL_MS	1	/* how often they are looked at, their first PENDING_FAST_NS */
#define PENDING_FAST_NS	20000000ull	/* ... then every PENDING_SLOW_MS (a cold exec, or a failed one) */
#define PENDING_SLOW_MS	10
/* of them, of one user's processes (root's are not counted): a user's failing execs of an
 * interpreter (E2BIG after it was opened) wait the whole PENDING_NS, and would fill the table */
#define PENDING_PER_USER	(PENDING_MAX / 4)
/* ... and of all users together (a user with subordinate uids is many): root keeps half */
#define PENDING_USERS		(PENDING_MAX / 2)

struct sys_view;
struct watch_decide;
struct watch_exec_event;
struct watch_names;
struct watch_queue;

/**
 * watch_decide_new() - the exec daemon's decisions, for the packs of @o->watch_dir
 * @names: the loop's index of DIR's pack names (which execs no pack can be for)
 * @view: where the loop keeps its view of the system (read again on mount changes)
 * @queue: where the replays decided on go (watch-queue.h)
 * Return: 0 or -errno (-ENOMEM, the daemon's own root unreadable).
 */
int watch_decide_new(const struct replay_options *o, struct watch_names *names,
		     struct sys_view *const *view, struct watch_queue *queue,
		     struct watch_decide **ret);

/** watch_decide_free() - release @d and the replays it still holds; NULL is allowed */
void watch_decide_free(struct watch_decide *d);

/**
 * watch_decide_exec() - an exec (fanotify FAN_OPEN_EXEC: under way, the process still in
 * its old image), for watch_exec_read(): named by its program's key (key.h) as the
 * learning daemon names it, a replay of its pack queued unless none is needed; an
 * interpreter's key, its script, waits for the exec to complete (watch_decide_poll())
 * @userdata: the struct watch_decide
 * Return: true when the kernel may drop the next execs of that file (an ignore mark):
 *	no pack is for it, or its data is held for resident (watch-hold.h).
 */
bool watch_decide_exec(const struct watch_exec_event *ev, void *userdata);

/**
 * watch_decide_wait_ms() - how long the loop may sleep before watch_decide_poll() is due
 * Return: milliseconds (1 at least), or -1 when no interpreter waits.
 */
int watch_decide_wait_ms(const struct watch_decide *d);

/** watch_decide_poll() - look at the interpreters waiting for their exec to complete */
void watch_decide_poll(struct watch_decide *d);

/**
 * watch_decide_hold_over() - at @now, has the hold of the oldest check behind an ignore
 * mark for resident data ended, or a probe found a page of a held pack gone? Then the
 * loop removes the marks (watch_exec_forget()). Else, each HELD_PROBE_NS, probes of a
 * few held packs are queued.
 */
bool watch_decide_hold_over(struct watch_decide *d, uint64_t now);

/**
 * watch_decide_pending_room() - may an interpreter of @uid wait for its exec to complete,
 * with @n waiting, of @uids? Root's always while the table has room; a user's while that
 * user has fewer than PENDING_PER_USER and all users together fewer than PENDING_USERS.
 */
bool watch_decide_pending_room(const uid_t *uids, size_t n, uid_t uid);

/**
 * watch_decide_marks_gone() - the loop removed every ignore mark (watch_exec_forget()):
 * the packs held behind them are let go
 */
void watch_decide_marks_gone(struct watch_decide *d);

#endif
