// SPDX-License-Identifier: GPL-2.0-or-later
/* Learning windows: which program's window each traced task belongs to, until when, what it used */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "learn-window.h"
#include "trace-events.h"

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

static struct learn_task *find_task(const struct learn_windows *ws, int pid)
{
	for (size_t i = 0; i < ws->ntasks; i++)
		if (ws->tasks[i].pid == pid)
			return &ws->tasks[i];
	return NULL;
}

struct learn_window *windows_find_exe(const struct learn_windows *ws, const char *exe)
{
	for (size_t i = 0; i < ws->n; i++)
		if (strcmp(ws->w[i].exe, exe) == 0)
			return &ws->w[i];
	return NULL;
}

struct learn_window *windows_task_window(const struct learn_windows *ws, int pid)
{
	struct learn_task *t = find_task(ws, pid);

	return t ? by_id(ws, t->window) : NULL;
}

static int add_task(struct learn_windows *ws, int pid, unsigned window)
{
	if (ws->ntasks == ws->tasks_cap) {
		size_t cap = ws->tasks_cap ? ws->tasks_cap * 2 : 16;
		struct learn_task *t = realloc(ws->tasks, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		ws->tasks = t;
		ws->tasks_cap = cap;
	}
	ws->tasks[ws->ntasks++] = (struct learn_task){ .pid = pid, .window = window };
	return 0;
}

int windows_open(struct learn_windows *ws, const char *exe, int pid, uint64_t ts_ns,
		 uint64_t len_ns, struct learn_window **ret)
{
	struct learn_task *t = find_task(ws, pid);
	struct learn_window *w;
	int r;

	if (windows_find_exe(ws, exe))
		return -EBUSY;
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
	if (!t) {
		r = add_task(ws, pid, 0);
		if (r < 0)
			return r;
		t = &ws->tasks[ws->ntasks - 1];
	}
	w = &ws->w[ws->n];
	*w = (struct learn_window){
		.id = ws->next_id,
		.pid = pid,
		.start_ns = ts_ns,
		.end_ns = ts_ns + len_ns,
		.tasks = 1,
		.parent = t->window,
	};
	w->exe = strdup(exe);
	r = w->exe ? demand_init(&w->demand) : -ENOMEM;
	if (r < 0) {
		free(w->exe);
		if (!t->window)		/* added above */
			ws->ntasks--;
		return r;
	}
	w->demand.t0 = ts_ns;		/* times in the pack: since the exec */
	/* a task of an outer window stays counted there: it is still of that tree */
	t->window = w->id;
	ws->next_id = ws->next_id == UINT32_MAX ? 1 : ws->next_id + 1;
	ws->n++;
	*ret = w;
	return 0;
}

int windows_fork(struct learn_windows *ws, int parent, int child)
{
	struct learn_task *t = find_task(ws, parent), *c;
	unsigned id;

	if (!t)
		return 0;
	id = t->window;
	c = find_task(ws, child);	/* a pid reused before we saw its exit */
	if (c)
		windows_exit(ws, child, 0);
	for (struct learn_window *w = by_id(ws, id); w; w = by_id(ws, w->parent))
		w->tasks++;
	return add_task(ws, child, id);
}

void windows_exit(struct learn_windows *ws, int pid, uint64_t ts_ns)
{
	struct learn_task *t = find_task(ws, pid);

	if (!t)
		return;
	/* a task counts in its window and every window around it */
	for (struct learn_window *w = by_id(ws, t->window); w; w = by_id(ws, w->parent))
		if (w->tasks > 0 && --w->tasks == 0)
			w->empty_ns = ts_ns;
	*t = ws->tasks[--ws->ntasks];
}

int windows_feed(struct learn_windows *ws, const struct trace_event *ev)
{
	struct learn_task *t = find_task(ws, ev->pid);
	int fed = 0;

	if (!t)
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

struct learn_window *windows_due(const struct learn_windows *ws, uint64_t now_ns,
				 uint64_t slack_ns)
{
	for (size_t i = 0; i < ws->n; i++) {
		const struct learn_window *w = &ws->w[i];

		if (now_ns >= w->end_ns + slack_ns ||
		    (w->tasks == 0 && now_ns >= w->empty_ns + slack_ns))
			return &ws->w[i];
	}
	return NULL;
}

void windows_take(struct learn_windows *ws, struct learn_window *w, struct learn_window *ret)
{
	unsigned id = w->id, parent = w->parent;

	*ret = *w;
	*w = ws->w[--ws->n];	/* the last window fills the hole */
	for (size_t i = 0; i < ws->ntasks;) {
		struct learn_task *t = &ws->tasks[i];

		if (t->window == id && by_id(ws, parent)) {
			t->window = parent;	/* still in the outer program's tree */
		} else if (t->window == id) {
			*t = ws->tasks[--ws->ntasks];
			continue;
		}
		i++;
	}
	for (size_t i = 0; i < ws->n; i++)
		if (ws->w[i].parent == id)
			ws->w[i].parent = by_id(ws, parent) ? parent : 0;
}

long windows_pids(const struct learn_windows *ws, int **ret)
{
	int *pids = NULL;

	if (ws->ntasks) {
		pids = malloc(ws->ntasks * sizeof(*pids));
		if (!pids)
			return -ENOMEM;
		for (size_t i = 0; i < ws->ntasks; i++)
			pids[i] = ws->tasks[i].pid;
	}
	*ret = pids;
	return (long)ws->ntasks;
}
