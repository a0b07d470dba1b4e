/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Learning's pid filter: set_event_pid written by a thread of its own, batched, pids armed ahead */
#ifndef URA_LEARN_PIDFILTER_H
#define URA_LEARN_PIDFILTER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Why a thread: a write to set_event_pid that changes a list in force waits in
 * the kernel for a tracepoint RCU synchronisation, 25 to 67 ms on the machine
 * measured, holding the kernel's event_mutex, so the next write waits that
 * long too; the new list is in force 0.15 to 0.4 ms after the write began
 * (bench/README.md, "Learning program starts"). The event loop never waits for it:
 * the pids asked for while a write is under way go together in the next one.
 *
 * Why pids are armed: a program exec'd while a write is under way would be
 * traced only when the next write is done, 25 to 67 ms late. Each write also
 * adds the pids allocated just before it (forked, maybe about to exec: the
 * other copies of a program started together) and the pids to be allocated
 * next, so that the programs started after a first one are traced from their
 * fork, with nothing to write. Those tasks are traced whatever they run; the
 * kernel drops each from the list when it exits, and a rewrite (below) drops
 * those still alive.
 */

/* pids allocated just before a write, and next after it, that each write adds */
#define PIDS_RECENT	64
#define PIDS_AHEAD	64
/*
 * A rewrite also arms every pid allocated while the list was emptied (the
 * newest this many): tasks forked then were traced, and the caller may read of
 * them only after the write.
 */
#define PIDS_EMPTYING	1024
/* pids wrap to this one: those below (init, the kernel's first threads) are never armed */
#define PIDS_RESERVED	300
/* a write's list is in force this long after the write began, at most (measured 0.15-0.4 ms) */
#define PIDFILTER_PUBLISH_NS	(1000 * 1000ull)
/* pids left out of the armed ones (a flood's tasks), the newest this many */
#define PIDS_BANNED	64

struct pid_filter;

/**
 * pidfilter_new() - start the thread that writes the pid filter @path
 * @path: the instance's set_event_pid (tracer_pid_file()); copied
 * @serial: if not NULL, held around each write: the other threads that write tracefs files
 *	waiting on the kernel's event_mutex take it too, so that the time a write began is
 *	when it began in the kernel, not behind another's synchronisation
 * Return: 0, -ENOMEM or the -errno of pthread_create().
 */
int pidfilter_new(const char *path, pthread_mutex_t *serial, struct pid_filter **ret);

/** pidfilter_free() - stop the thread (after the write under way) and release; NULL is allowed */
void pidfilter_free(struct pid_filter *pf);

/**
 * pidfilter_add() - ask for task @pid to be traced (with the tasks it forks from then on)
 * Return: the number of the request, for pidfilter_done().
 */
unsigned pidfilter_add(struct pid_filter *pf, int pid);

/** pidfilter_arm() - ask for a write of the armed pids alone; the number of the request */
unsigned pidfilter_arm(struct pid_filter *pf);

/**
 * pidfilter_ban() - never arm task @pid again (it flooded a window): the next rewrite drops
 * it for good, unless asked for or kept
 */
void pidfilter_ban(struct pid_filter *pf, int pid);

/**
 * pidfilter_rewrite() - ask for the list to be emptied, then @keep (@nkeep pids), the armed
 * pids and the pids asked for since written: the tasks traced for nothing are dropped
 *
 * While the list is being emptied (the kernel's synchronisation, tens of ms)
 * the events of the tasks listed are lost for a while (Linux 6.18: 40-58 ms of
 * a 90 ms emptying, with a task listed before and after; not "every task
 * traced" as one would think), and a task forked meanwhile is
 * not added with its parent: the caller keeps its own tasks in @keep, minds
 * their forks then, and does not learn from what it saw of them meanwhile.
 * Return: the number of the request.
 */
unsigned pidfilter_rewrite(struct pid_filter *pf, const int *keep, size_t nkeep);

/**
 * pidfilter_done() - whether request @seq is written, and since when its pids are traced
 * @ret_since_ns: CLOCK_MONOTONIC time the write began, after the emptying for a rewrite
 *	(its pids are in force a fraction of a millisecond later, see above)
 * @ret_err: 0, or the -errno of the write
 */
bool pidfilter_done(struct pid_filter *pf, unsigned seq, uint64_t *ret_since_ns, int *ret_err);

/** pidfilter_idle() - no request waiting and no write under way */
bool pidfilter_idle(struct pid_filter *pf);

/* What the thread did, for the daemon's log. */
struct pidfilter_stats {
	uint64_t writes, rewrites, pids;	/* writes, of them rewrites, pids asked for */
	uint64_t write_ns, max_write_ns;	/* time in write(2) (and the emptying open(2)) */
	int last_error;
};

void pidfilter_get_stats(struct pid_filter *pf, struct pidfilter_stats *ret);

/**
 * pidfilter_ranges() - the pids each write adds around those allocated after @first up to
 * @last (the newest pid allocated; @first == @last but for a rewrite), for a pid space of
 * @pid_max: [@first - PIDS_RECENT + 1, @last + PIDS_AHEAD] (PIDS_EMPTYING + PIDS_RECENT +
 * PIDS_AHEAD at most, the newest), wrapped, without those below PIDS_RESERVED and the
 * @nbanned pids of @banned;
 * written as decimal numbers separated by spaces into @buf
 * Return: the length written (@buf is NUL-terminated), or 0 when @size is too small.
 */
size_t pidfilter_ranges(int first, int last, int pid_max, const int *banned, size_t nbanned,
			char *buf, size_t size);

#endif
