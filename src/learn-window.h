/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Learning windows: which program's window each traced task belongs to, until when, what it used */
#ifndef URA_LEARN_WINDOW_H
#define URA_LEARN_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-demand.h"

struct trace_event;

/*
 * One run of a program being learned: the first @end_ns - @start_ns after its
 * exec, of the exec'd task and every task it forks. Times are the trace's
 * clock (CLOCK_MONOTONIC ns).
 */
struct learn_window {
	unsigned id;			/* > 0, unique while the windows live */
	char *exe;			/* absolute path as exec'd, owned */
	int pid;			/* the task that exec'd */
	uint64_t start_ns, end_ns;
	unsigned tasks;			/* tasks of its tree still alive */
	uint64_t empty_ns;		/* when @tasks fell to 0 */
	unsigned parent;		/* id of the window whose tree exec'd it, 0 for none */
	struct trace_demand demand;	/* what the window's tasks added and used */
};

/* A traced task (thread) and the window it belongs to. */
struct learn_task {
	int pid;
	unsigned window;
};

struct learn_windows {
	struct learn_window *w;		/* open windows */
	size_t n, cap;
	struct learn_task *tasks;
	size_t ntasks, tasks_cap;
	unsigned next_id;
	size_t max;			/* windows open at once at most */
};

/** windows_init() - no window open yet; @max windows at most at once */
void windows_init(struct learn_windows *ws, size_t max);

/** windows_fini() - release every window, the tasks; a zeroed @ws is allowed */
void windows_fini(struct learn_windows *ws);

/** windows_find_exe() - the open window of @exe, or NULL */
struct learn_window *windows_find_exe(const struct learn_windows *ws, const char *exe);

/**
 * windows_open() - task @pid exec'd @exe at @ts_ns: open its window of @len_ns
 * @ret: on success the new window (valid until the next windows_* call that
 *	opens or takes a window)
 *
 * A task that is already in a window (a program run by a learned program)
 * moves to the new one, which feeds its events on to the outer window too.
 *
 * Return: 0; -EBUSY when @exe has a window open (one run of a program is
 * learned at a time); -ENOSPC when @ws->max windows are open; -ENOMEM.
 */
int windows_open(struct learn_windows *ws, const char *exe, int pid, uint64_t ts_ns,
		 uint64_t len_ns, struct learn_window **ret);

/** windows_fork() - @parent forked @child: @child joins @parent's window, if any */
int windows_fork(struct learn_windows *ws, int parent, int child);

/** windows_exit() - task @pid exited at @ts_ns */
void windows_exit(struct learn_windows *ws, int pid, uint64_t ts_ns);

/** windows_task_window() - the window task @pid belongs to, or NULL */
struct learn_window *windows_task_window(const struct learn_windows *ws, int pid);

/**
 * windows_feed() - account @ev to the window of its task, and to the windows around it
 *
 * An event outside a window's time ([start, end)) does not count for it: an
 * event of the task before its exec goes to the outer window only.
 *
 * Return: the number of windows fed, or -ENOMEM.
 */
int windows_feed(struct learn_windows *ws, const struct trace_event *ev);

/**
 * windows_due() - a window that is complete at @now_ns, or NULL
 * @slack_ns: how long after its end (or after its last task exited) events may
 *	still be on their way from the ring buffers
 *
 * A window is complete when its time is over or when all its tasks have exited.
 */
struct learn_window *windows_due(const struct learn_windows *ws, uint64_t now_ns,
				 uint64_t slack_ns);

/**
 * windows_take() - close window @w: its tasks go back to the outer window, or
 * are no longer traced; the caller owns what @ret holds (windows_free_one())
 */
void windows_take(struct learn_windows *ws, struct learn_window *w, struct learn_window *ret);

/** windows_free_one() - release a window taken with windows_take() */
void windows_free_one(struct learn_window *w);

/**
 * windows_pids() - the tasks still traced, for the instance's pid filter
 * @ret: on success a malloc()ed array (NULL when there are none) the caller frees
 * Return: the number of pids, or -ENOMEM.
 */
long windows_pids(const struct learn_windows *ws, int **ret);

#endif
