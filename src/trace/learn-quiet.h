/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Learning's quiet list: the exec instance's filter leaves out the programs it would refuse now */
#ifndef URA_LEARN_QUIET_H
#define URA_LEARN_QUIET_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Why: a program whose run budget is spent (learned lately) is refused at
 * every exec until its next run is due, often ten minutes on. Each of those
 * execs still cost the daemon a wakeup, a record read and decoded, and the
 * /proc lookups that name its program: on a loop of /bin/true, 2.5% of the
 * execs' CPU, the whole of the daemon's cost (bench/README.md, "Learning
 * program starts"). The kernel evaluates an event filter before it records an
 * event, so a filter on sched_process_exec that leaves out the file names of
 * those programs makes their execs cost the daemon nothing until they are due.
 *
 * Which names: the file name as the exec passed it, of an exec refused only
 * for its budget, whose program is the executable itself (its trusted key, in
 * the daemon's own root; not an interpreter: "python3 A" and "python3 B" share
 * a name and not a program, and a user decides what "perl /usr/bin/perl"
 * names) or a "#!" script the kernel was given by that name, when the name is
 * the key's very path, or another name with no directory on its way a user's
 * that the daemon resolves to the same file through no magic link ("/bin/true"
 * on a merged /usr;
 * not /dev/fd/N, /proc/self/exe or a user's link, which would name other
 * programs later, or lead the daemon's lookups where a user decides). A name is
 * left in until the program's next run is due, then dropped so that the next
 * exec is seen (learn-run.c wakes for it). The same name in a container or a
 * chroot is left out as long: its learning delayed, by one interval at most.
 *
 * Why a thread: a write to an event's filter in force waits for the kernel's
 * tracepoint synchronisation, tens of ms, as set_event_pid does
 * (learn-pidfilter.h); the loop never waits for it. Writes are at least
 * QUIET_GAP_NS apart: a name missed meanwhile costs what it did before. A
 * write that failed is tried again (the filter in force may hide a name due).
 */

/*
 * The page events too (quiet_new_comm()): a refused program's run, when its
 * pid was armed ahead (learn-pidfilter.h), was recorded whole and thrown
 * away: 86% of the page records the daemon read on the distinct workload of
 * bench/learn-cpu.sh once every program was learned. A filter on the task's
 * name (comm: the exec'd file's base name, cut at 15 characters) leaves them
 * out in the kernel. A name is not a program: a window whose task execs a
 * program of a name left out loses that program's pages (a child of a
 * program being learned, or another program of the same base name); the run
 * is kept without them, and the name is barred from the list (quiet_bar()),
 * so that the next runs are whole. A name is added only while no window is
 * open, so that no run under way loses a task already of that name. A thread
 * that renames itself to such a name (prctl(PR_SET_NAME)) is not seen: its
 * pages are missing from that run; so are the exec's own first reads (the
 * binary's header) when the task still has a listed parent's name.
 */

/* names at most, a name's longest (the kernel's filter strings are shorter than a page) */
#define QUIET_MAX		96
#define QUIET_NAME_MAX		120
#define QUIET_COMM_MAX		15	/* TASK_COMM_LEN - 1 */
#define QUIET_BARRED		64	/* names barred, the oldest forgotten first */
#define QUIET_FILTER_MAX	4000
#define QUIET_GAP_NS		(5 * 1000000000ull)
/* a write under way: looked at again this much later */
#define QUIET_BUSY_NS		(50 * 1000000ull)

struct quiet;

/**
 * quiet_new() - start the thread that writes the filter file @path
 * @path: the exec event's filter in the exec instance (tracer_filter_file()); copied
 * @serial: if not NULL, held around each write (as pidfilter_new()'s)
 * Return: 0, -ENOMEM or the -errno of pthread_create().
 */
int quiet_new(const char *path, pthread_mutex_t *serial, struct quiet **ret);

/**
 * quiet_new_comm() - the same for task names (comm), written to each of @paths (the filters
 * of the page events); names are quiet_comm_ok()
 */
int quiet_new_comm(const char *const *paths, size_t npaths, pthread_mutex_t *serial,
		   struct quiet **ret);

/** quiet_free() - stop the thread (after the write under way) and release; NULL is allowed */
void quiet_free(struct quiet *q);

/**
 * quiet_add() - leave execs of file name @name out until @until_ns (CLOCK_MONOTONIC)
 *
 * A name the filter cannot hold (not absolute, too long, a character outside
 * letters, digits and "/._+-@,:=~") is not added. A full list gives up the name
 * due first, if it is due before @until_ns.
 * Return: true when the list changed.
 */
bool quiet_add(struct quiet *q, const char *name, uint64_t until_ns);

/**
 * quiet_update() - drop the names due by @now_ns; when the list changed since
 * the last write, that write is done and QUIET_GAP_NS have passed, hand the
 * new filter to the thread
 */
void quiet_update(struct quiet *q, uint64_t now_ns);

/**
 * quiet_next_ns() - when quiet_update() has something to do next (a name due, a write to
 * make or try again, one under way to look at), CLOCK_MONOTONIC, given the time @now_ns;
 * UINT64_MAX for nothing
 */
uint64_t quiet_next_ns(struct quiet *q, uint64_t now_ns);

/** quiet_has() - is @name in the list (its execs left out, or soon)? */
bool quiet_has(const struct quiet *q, const char *name);

/**
 * quiet_in_force() - is @name in the filter the kernel has (last written)? Its execs are
 * then not in the exec events at all.
 */
bool quiet_in_force(struct quiet *q, const char *name);

/**
 * quiet_filter() - the filter of @n names: 'filename!="A"&&filename!="B"', or "0"
 * (no filter) when @n is 0; names are taken in order while the filter fits in
 * @size (at most QUIET_FILTER_MAX)
 * Return: how many names it holds.
 */
size_t quiet_filter(const char *const *names, size_t n, char *buf, size_t size);

/** quiet_name_ok() - can the filter hold file name @name (see quiet_add())? */
bool quiet_name_ok(const char *name);

/** quiet_comm_ok() - can the filter hold task name @name (1 to 15 characters of those)? */
bool quiet_comm_ok(const char *name);

/**
 * quiet_comm_of() - the task name the kernel gives an exec of @filename (its base name, cut
 * at QUIET_COMM_MAX), into @buf (@size > QUIET_COMM_MAX)
 * Return: whether the filter can hold it.
 */
bool quiet_comm_of(const char *filename, char *buf, size_t size);

/** quiet_bar() - drop @name from the list, and never add it again (QUIET_BARRED kept) */
void quiet_bar(struct quiet *q, const char *name);

struct quiet_stats {
	size_t names;			/* in the list now */
	uint64_t added, writes;		/* names added, filters written */
	int last_error;			/* of the last write: 0 or -errno */
};

void quiet_get_stats(struct quiet *q, struct quiet_stats *ret);

#endif
