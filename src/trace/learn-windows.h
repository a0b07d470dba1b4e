/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Learning windows: which program's window each traced task belongs to, until when, what it used */
#ifndef URA_LEARN_WINDOWS_H
#define URA_LEARN_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-demand.h"

struct trace_event;

/* Why a window's run cannot be merged (struct learn_window.lost): it saw less than the run did. */
#define WINDOW_LOST_EVENTS	(1u << 0)	/* the ring buffer dropped events meanwhile */
#define WINDOW_LOST_LATE	(1u << 1)	/* its tracing began too long after the exec */
#define WINDOW_LOST_TASK	(1u << 2)	/* one of its tasks was not traced for a while */
#define WINDOW_LOST_STOPPED	(1u << 3)	/* the daemon stopped before its end */
#define WINDOW_LOST_FLOOD	(1u << 4)	/* more events than a start makes: closed at once */
/*
 * A flood: more than WINDOW_MAX_EVENTS page events, and more than
 * WINDOW_EVENTS_PER_CHUNK per 64 pages the window touched. A start makes
 * far fewer events (a cold clang compile traced at read_ahead_kb 4: 51,000,
 * for 16,000 pages), each for new pages; a loop of one-byte reads a million
 * a second, 4,096 per page. A large start (GBs, cold, in 4 KiB folios) passes
 * the first bound, never the second. A flooded window is closed at once, with
 * the windows around it, and their tasks are no longer traced.
 */
#define WINDOW_MAX_EVENTS	200000
#define WINDOW_EVENTS_PER_CHUNK	1024

#define WINDOW_UNSEEN_MAX	8

/* traced_ns while the pid filter write that adds the window's task is under way */
#define WINDOW_TRACED_PENDING	UINT64_MAX

/*
 * One run of a program being learned: the first @end_ns - @start_ns after its
 * exec, of the exec'd task and every task it forks. Times are the trace's
 * clock (CLOCK_MONOTONIC ns).
 */
struct learn_window {
	unsigned id;			/* > 0, unique while the windows live */
	char *exe;			/* the program: its path inside its root, owned */
	char *script_of;		/* for a script named by argv, to be checked once the run
					 * is over (key_exec_script_check()): its interpreter,
					 * owned; NULL for any other program */
	uint64_t root_id;		/* its root (key_root_of()), 0 for the daemon's own */
	char *root;			/* that root as the daemon sees it ("/" for its own), owned */
	int pid;			/* the task that exec'd */
	uid_t uid;			/* its real uid (set by the caller of windows_open()) */
	uint64_t start_ns, end_ns;
	uint64_t seen_ns;		/* when the daemon read its exec */
	uint64_t traced_ns;		/* since when its task is traced (@start_ns when it was
					 * before the exec), WINDOW_TRACED_PENDING until known */
	unsigned pid_seq;		/* the pid filter write that adds @pid, 0 for none */
	unsigned lost;			/* WINDOW_LOST_*: the run is not merged */
	unsigned tasks;			/* tasks of its tree still alive */
	uint64_t empty_ns;		/* when @tasks fell to 0 */
	unsigned parent;		/* id of the window whose tree exec'd it, 0 for none */
	uint64_t events;		/* page events of its tasks read (counted by the caller) */
	/*
	 * A window traced after its exec: at @checked_ns its program's tasks (threads,
	 * children) not in the window, and whether it had waited for a child; each
	 * must turn out forked by then in the records, or it was never traced
	 * (learn-run.c says; WINDOW_UNSEEN_MAX at most, more: lost)
	 */
	uint64_t checked_ns;
	int unseen[WINDOW_UNSEEN_MAX];
	unsigned nunseen;
	bool reaped;			/* it had waited for a child by @checked_ns */
	unsigned forks_then;		/* forks into it by @checked_ns of none of @unseen */
	struct trace_demand demand;	/* what the window's tasks added and used */
};

struct learn_task_slot;

struct learn_windows {
	struct learn_window *w;		/* open windows */
	size_t n, cap;
	struct learn_task_slot *tasks;	/* traced task -> window (open addressing by pid) */
	size_t ntasks, tasks_cap;	/* used slots (tombstones included), slots */
	size_t live_tasks;
	unsigned next_id;
	size_t max;			/* windows open at once at most */
};

/** windows_init() - no window open yet; @max windows at most at once */
void windows_init(struct learn_windows *ws, size_t max);

/** windows_fini() - release every window, the tasks; a zeroed @ws is allowed */
void windows_fini(struct learn_windows *ws);

/** windows_count_exe() - the open windows of program @exe in root @root_id */
size_t windows_count_exe(const struct learn_windows *ws, uint64_t root_id, const char *exe);

/** windows_count_uid() - the open windows of programs run by user @uid */
size_t windows_count_uid(const struct learn_windows *ws, uid_t uid);

/**
 * windows_open() - task @pid exec'd @exe (in root @root_id, seen at @root) at @ts_ns: open its
 * window of @len_ns
 * @ret: on success the new window (valid until the next windows_* call that
 *	opens or takes a window)
 *
 * A task that is already in a window (a program run by a learned program)
 * moves to the new one, which feeds its events on to the outer window too.
 * Several runs of one program may be in their windows at once.
 *
 * Return: 0; -ENOSPC when @ws->max windows are open; -ENOMEM.
 */
int windows_open(struct learn_windows *ws, uint64_t root_id, const char *root, const char *exe,
		 int pid, uint64_t ts_ns, uint64_t len_ns, struct learn_window **ret);

/** windows_fork() - @parent forked @child: @child joins @parent's window, if any */
int windows_fork(struct learn_windows *ws, int parent, int child);

/** windows_exit() - task @pid exited at @ts_ns */
void windows_exit(struct learn_windows *ws, int pid, uint64_t ts_ns);

/** windows_outer() - the window around @w (the program that ran it), or NULL */
struct learn_window *windows_outer(const struct learn_windows *ws, const struct learn_window *w);
/** windows_task_window() - the window task @pid belongs to, or NULL */
struct learn_window *windows_task_window(const struct learn_windows *ws, int pid);

/** windows_has_task() - whether task @pid is in a window (cheaper than windows_task_window()) */
bool windows_has_task(const struct learn_windows *ws, int pid);

/**
 * windows_knows_task() - whether task @pid is in a window, or exited from one still open: an
 * event of a task can be read after its exit (another CPU's buffer, a vCPU held between
 * the event's time and its commit), and windows_feed() takes those older than the exit
 */
bool windows_knows_task(const struct learn_windows *ws, int pid);

/**
 * windows_feed() - account @ev to the window of its task, and to the windows around it
 *
 * An event outside a window's time ([start, end)) does not count for it: an
 * event of the task before its exec goes to the outer window only.
 *
 * Return: the number of windows fed, or -ENOMEM.
 */
int windows_feed(struct learn_windows *ws, const struct trace_event *ev);

/** windows_lose() - mark every open window with @why (WINDOW_LOST_*): none will be merged */
void windows_lose(struct learn_windows *ws, unsigned why);

/**
 * windows_due() - a window that is complete at @now_ns, or NULL
 * @slack_ns: how long after its end (or after its last task exited) events may
 *	still be on their way from the ring buffers
 *
 * A window is complete when its time is over or when all its tasks have
 * exited, and it is known since when it was traced; a flooded one at once.
 */
struct learn_window *windows_due(const struct learn_windows *ws, uint64_t now_ns,
				 uint64_t slack_ns);

/**
 * windows_take() - close window @w: its tasks go back to the outer window, or
 * are no longer counted (a flooded window's never go back: they are forgotten);
 * the caller owns what @ret holds (windows_free_one())
 */
void windows_take(struct learn_windows *ws, struct learn_window *w, struct learn_window *ret);

/** windows_free_one() - release a window taken with windows_take() */
void windows_free_one(struct learn_window *w);

/**
 * windows_pids() - the tasks of the open windows
 * @ret: on success a malloc()ed array (NULL when there are none) the caller frees
 * Return: the number of pids, or -ENOMEM.
 */
long windows_pids(const struct learn_windows *ws, int **ret);
/** windows_pids_of() - the tasks of window @w alone, as windows_pids() */
long windows_pids_of(const struct learn_windows *ws, const struct learn_window *w, int **ret);

#endif
