// SPDX-License-Identifier: GPL-2.0-or-later
/* The parents the learning daemon follows (why: learn-follow.h) */
#include "learn-follow.h"

bool follow_hit(struct follow *f, int ppid, uint64_t now_ns)
{
	size_t i, oldest = 0;

	for (i = 0; i < f->n; i++) {
		if (f->v[i].pid == ppid) {
			f->v[i].ns = now_ns;
			/* a child learned pays for two that were not */
			f->v[i].misses -= f->v[i].misses < 2 ? f->v[i].misses : 2;
			return false;
		}
		if (f->v[i].ns < f->v[oldest].ns)
			oldest = i;
	}
	if (f->n < FOLLOW_MAX)
		oldest = f->n++;
	f->v[oldest] = (struct follow_parent){ .pid = ppid, .ns = now_ns };
	return true;
}

void follow_fork(struct follow *f, int parent, int child)
{
	unsigned k = (unsigned)child % FOLLOW_FORK_SLOTS;

	f->forks[k].child = child;
	f->forks[k].parent = parent;
}

int follow_miss(struct follow *f, int child)
{
	unsigned k = (unsigned)child % FOLLOW_FORK_SLOTS;
	int parent = f->forks[k].parent;

	if (child <= 0 || f->forks[k].child != child)
		return 0;
	for (size_t i = 0; i < f->n; i++) {
		if (f->v[i].pid != parent)
			continue;
		if (++f->v[i].misses < FOLLOW_MISSES)
			return 0;
		f->v[i] = f->v[--f->n];
		f->dropped++;
		return parent;
	}
	return 0;
}

size_t follow_keep(struct follow *f, uint64_t now_ns, bool (*alive)(int pid), int *out)
{
	size_t k = 0;

	for (size_t i = 0; i < f->n;) {
		if (now_ns - f->v[i].ns < FOLLOW_NS && alive(f->v[i].pid)) {
			out[k++] = f->v[i++].pid;
			continue;
		}
		f->v[i] = f->v[--f->n];
	}
	return k;
}
