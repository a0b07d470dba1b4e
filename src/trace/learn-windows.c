// SPDX-License-Identifier: GPL-2.0-or-later
/* Learning windows: which program's window each traced task belongs to, until when, what it used */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "learn-windows.h"
#include "trace-events.h"

/*
 * The traced tasks: pid -> window, in a table of open addressing (linear
 * probing, deletion by backward shift: no tombstones), since every event read
 * looks its task up and a busy window may have thousands of tasks.
 */
struct learn_task_slot {
	int pid;			/* 0: empty (pid 0 is the idle task, never in a window) */
	unsigned window;
	uint64_t exit_ns;		/* exited (kept until its window closes: its last events
					 * may be read after its exit, from another CPU's buffer) */
};

void windows_init(struct learn_windows *ws, size_t max)
{
	memset(ws, 0, sizeof(*ws));
	ws->max = max;
	ws->next_id = 1;
}

void windows_free_one(struct learn_window *w)
{
	if (!w)
		return;
	free(w->exe);
	w->exe = NULL;
	free(w->script_of);
	w->script_of = NULL;
	free(w->root);
	w->root = NULL;
	demand_fini(&w->demand);
}

void windows_fini(struct learn_windows *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		windows_free_one(&ws->w[i]);
	free(ws->w);
	free(ws->tasks);
	memset(ws, 0, sizeof(*ws));
}

static struct learn_window *by_id(const struct learn_windows *ws, unsigned id)
{
	for (size_t i = 0; id && i < ws->n; i++)
		if (ws->w[i].id == id)
			return &ws->w[i];
	return NULL;
}

static size_t slot_of(int pid, size_t cap)
{
	return ((size_t)(unsigned)pid * 2654435761u) & (cap - 1);
}

static struct learn_task_slot *find_task(const struct learn_windows *ws, int pid)
{
	if (!ws->tasks_cap || pid == 0)
		return NULL;
	for (size_t i = slot_of(pid, ws->tasks_cap);; i = (i + 1) & (ws->tasks_cap - 1)) {
		if (ws->tasks[i].pid == pid)
			return &ws->tasks[i];
		if (ws->tasks[i].pid == 0)
			return NULL;
	}
}

static void put_task(struct learn_task_slot *tab, size_t cap, const struct learn_task_slot *s)
{
	size_t i = slot_of(s->pid, cap);

	while (tab[i].pid != 0)
		i = (i + 1) & (cap - 1);
	tab[i] = *s;
}

/* The task @pid if it has not exited. */
static struct learn_task_slot *find_live(const struct learn_windows *ws, int pid)
{
	struct learn_task_slot *t = find_task(ws, pid);

	return t && !t->exit_ns ? t : NULL;
}

static int add_task(struct learn_windows *ws, int pid, unsigned window)
{
	if (2 * (ws->live_tasks + 1) > ws->tasks_cap) {
		size_t cap = ws->tasks_cap ? ws->tasks_cap * 2 : 64;
		struct learn_task_slot *t = calloc(cap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t i = 0; i < ws->tasks_cap; i++)
			if (ws->tasks[i].pid)
				put_task(t, cap, &ws->tasks[i]);
		free(ws->tasks);
		ws->tasks = t;
		ws->tasks_cap = cap;
	}
	put_task(ws->tasks, ws->tasks_cap,
		 &(struct learn_task_slot){ .pid = pid, .window = window });
	ws->live_tasks++;
	ws->ntasks = ws->live_tasks;
	return 0;
}

/* Remove the task in slot @s, shifting back the ones its removal would hide. */
static void del_task(struct learn_windows *ws, struct learn_task_slot *s)
{
	size_t mask = ws->tasks_cap - 1, i = (size_t)(s - ws->tasks), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (ws->tasks[j].pid == 0)
			break;
		home = slot_of(ws->tasks[j].pid, ws->tasks_cap);
		/* the entry at j may move to i when i lies cyclically in [home, j) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			ws->tasks[i] = ws->tasks[j];
			i = j;
		}
	}
	ws->tasks[i].pid = 0;
	ws->live_tasks--;
	ws->ntasks = ws->live_tasks;
}

size_t windows_count_exe(const struct learn_windows *ws, uint64_t root_id, const char *exe)
{
	size_t n = 0;

	for (size_t i = 0; i < ws->n; i++)
		n += ws->w[i].root_id == root_id && strcmp(ws->w[i].exe, exe) == 0;
	return n;
}

size_t windows_count_uid(const struct learn_windows *ws, uid_t uid)
{
	size_t n = 0;

	for (size_t i = 0; i < ws->n; i++)
		n += ws->w[i].uid == uid;
	return n;
}

struct learn_window *windows_outer(const struct learn_windows *ws, const struct learn_window *w)
{
	return by_id(ws, w->parent);
}

struct learn_window *windows_task_window(const struct learn_windows *ws, int pid)
{
	struct learn_task_slot *t = find_live(ws, pid);

	return t ? by_id(ws, t->window) : NULL;
}

bool windows_has_task(const struct learn_windows *ws, int pid)
{
	return find_live(ws, pid) != NULL;
}

bool windows_knows_task(const struct learn_windows *ws, int pid)
{
	return find_task(ws, pid) != NULL;
}

int windows_open(struct learn_windows *ws, uint64_t root_id, const char *root, const char *exe,
		 int pid, uint64_t ts_ns, uint64_t len_ns, struct learn_window **ret)
{
	struct learn_task_slot *t = find_task(ws, pid);
	struct learn_window *w;
	unsigned outer;
	int r;

	if (t && t->exit_ns) {
		del_task(ws, t);	/* its pid taken again: the new task is another */
		t = NULL;
	}
	outer = t ? t->window : 0;

	if (ws->n >= ws->max)
		return -ENOSPC;
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? ws->cap * 2 : 8;

		w = realloc(ws->w, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		ws->w = w;
		ws->cap = cap;
	}
	w = &ws->w[ws->n];
	*w = (struct learn_window){
		.id = ws->next_id,
		.root_id = root_id,
		.pid = pid,
		.start_ns = ts_ns,
		.end_ns = ts_ns + len_ns,
		.traced_ns = WINDOW_TRACED_PENDING,
		.tasks = 1,
		.parent = outer,
	};
	w->exe = strdup(exe);
	w->root = strdup(root);
	r = w->exe && w->root ? demand_init(&w->demand) : -ENOMEM;
	if (r == 0 && !t) {
		r = add_task(ws, pid, w->id);
		if (r < 0)
			demand_fini(&w->demand);
	}
	if (r < 0) {
		free(w->exe);
		free(w->root);
		return r;
	}
	w->demand.t0 = ts_ns;		/* times in the pack: since the exec */
	/* a task of an outer window stays counted there: it is still of that tree */
	if (t)
		t->window = w->id;
	ws->next_id = ws->next_id == UINT32_MAX ? 1 : ws->next_id + 1;
	ws->n++;
	*ret = w;
	return 0;
}

int windows_fork(struct learn_windows *ws, int parent, int child)
{
	struct learn_task_slot *t = find_task(ws, parent);
	unsigned id;

	if (!t)
		return 0;
	id = t->window;
	if (find_task(ws, child)) {	/* a pid taken again (its exit seen, or not yet) */
		windows_exit(ws, child, 0);
		del_task(ws, find_task(ws, child));
	}
	for (struct learn_window *w = by_id(ws, id); w; w = by_id(ws, w->parent))
		w->tasks++;
	return add_task(ws, child, id);
}

void windows_exit(struct learn_windows *ws, int pid, uint64_t ts_ns)
{
	struct learn_task_slot *t = find_live(ws, pid);

	if (!t)
		return;
	/* a task counts in its window and every window around it */
	for (struct learn_window *w = by_id(ws, t->window); w; w = by_id(ws, w->parent))
		if (w->tasks > 0 && --w->tasks == 0)
			w->empty_ns = ts_ns;
	t->exit_ns = ts_ns ? ts_ns : 1;
}

int windows_feed(struct learn_windows *ws, const struct trace_event *ev)
{
	struct learn_task_slot *t = find_task(ws, ev->pid);
	int fed = 0;

	if (!t || (t->exit_ns && ev->ts > t->exit_ns))
		return 0;
	for (struct learn_window *w = by_id(ws, t->window); w; w = by_id(ws, w->parent)) {
		int r;

		if (ev->ts < w->start_ns || ev->ts >= w->end_ns)
			continue;
		r = demand_feed(&w->demand, ev);
		if (r < 0)
			return r;
		fed++;
	}
	return fed;
}

void windows_lose(struct learn_windows *ws, unsigned why)
{
	for (size_t i = 0; i < ws->n; i++)
		ws->w[i].lost |= why;
}

struct learn_window *windows_due(const struct learn_windows *ws, uint64_t now_ns,
				 uint64_t slack_ns)
{
	for (size_t i = 0; i < ws->n; i++) {
		const struct learn_window *w = &ws->w[i];

		if (w->lost & WINDOW_LOST_FLOOD)
			return &ws->w[i];
		if (w->traced_ns == WINDOW_TRACED_PENDING && !w->lost)
			continue;	/* its pid filter write has not said when */
		if (now_ns >= w->end_ns + slack_ns ||
		    (w->tasks == 0 && now_ns >= w->empty_ns + slack_ns))
			return &ws->w[i];
	}
	return NULL;
}

void windows_take(struct learn_windows *ws, struct learn_window *w, struct learn_window *ret)
{
	unsigned id = w->id, parent = w->parent;
	bool outer = by_id(ws, parent) != NULL, flood = w->lost & WINDOW_LOST_FLOOD;

	*ret = *w;
	*w = ws->w[--ws->n];	/* the last window fills the hole */
	for (size_t i = 0; i < ws->tasks_cap;) {
		struct learn_task_slot *t = &ws->tasks[i];

		if (t->pid && t->window == id) {
			if (outer && !flood) {
				t->window = parent;	/* still in the outer program's tree */
			} else {
				/* a flood's tasks leave the windows around it too */
				for (struct learn_window *o = by_id(ws, parent);
				     flood && !t->exit_ns && o; o = by_id(ws, o->parent))
					if (o->tasks > 0 && --o->tasks == 0)
						o->empty_ns = ret->start_ns;
				del_task(ws, t);
				continue;	/* slot i now holds another task (or none) */
			}
		}
		i++;
	}
	for (size_t i = 0; i < ws->n; i++)
		if (ws->w[i].parent == id)
			ws->w[i].parent = outer ? parent : 0;
}

/* The tasks of window @id, or of every window when @id is 0. */
static long pids_of(const struct learn_windows *ws, unsigned id, int **ret)
{
	int *pids = NULL;
	size_t n = 0;

	if (ws->live_tasks) {
		pids = malloc(ws->live_tasks * sizeof(*pids));
		if (!pids)
			return -ENOMEM;
		for (size_t i = 0; i < ws->tasks_cap; i++)
			if (ws->tasks[i].pid && !ws->tasks[i].exit_ns &&
			    (!id || ws->tasks[i].window == id))
				pids[n++] = ws->tasks[i].pid;
	}
	*ret = pids;
	return (long)n;
}

long windows_pids(const struct learn_windows *ws, int **ret)
{
	return pids_of(ws, 0, ret);
}

long windows_pids_of(const struct learn_windows *ws, const struct learn_window *w, int **ret)
{
	return pids_of(ws, w->id, ret);
}
