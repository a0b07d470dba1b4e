// SPDX-License-Identifier: GPL-2.0-or-later
/* The last scoped records of each traced task, so that an exec's own reads go to its window */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "learn-recent.h"

struct slot {
	uint64_t seq;		/* the record's number, 0 for an empty slot */
	uint64_t prev;		/* the number of the task's record before, 0 for none */
	uint64_t ts;
	int pid;
	bool start;
	uint32_t size;
	unsigned char data[RECENT_RECORD_MAX];
};

/* pid -> number of its newest record (open addressing; stale entries just point nowhere) */
struct last {
	int pid;
	uint64_t seq;
};

struct recent {
	struct slot *s;
	size_t n;		/* slots */
	uint64_t next;		/* the next record's number (from 1) */
	struct last *last;
	size_t nlast;		/* a power of two, >= 2 * n */
};

int recent_new(size_t slots, struct recent **ret)
{
	struct recent *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->n = slots ? slots : 1;
	for (r->nlast = 64; r->nlast < 2 * r->n; r->nlast *= 2)
		;
	r->s = calloc(r->n, sizeof(*r->s));
	r->last = calloc(r->nlast, sizeof(*r->last));
	r->next = 1;
	if (!r->s || !r->last) {
		recent_free(r);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

void recent_free(struct recent *r)
{
	if (!r)
		return;
	free(r->s);
	free(r->last);
	free(r);
}

/* The slot holding record @seq, or NULL when it was overwritten. */
static struct slot *slot_of(const struct recent *r, uint64_t seq)
{
	struct slot *s;

	if (!seq)
		return NULL;
	s = &r->s[seq % r->n];
	return s->seq == seq ? s : NULL;
}

/*
 * The entry of @pid in the table of newest records. The table is never
 * emptied: an entry whose record was overwritten is taken over by the next
 * pid that lands on it once its probe chain is full of such entries.
 */
static struct last *last_of(struct recent *r, int pid, bool add)
{
	size_t mask = r->nlast - 1, i = ((size_t)(unsigned)pid * 2654435761u) & mask;
	struct last *free_slot = NULL;

	for (size_t k = 0; k < r->nlast; k++, i = (i + 1) & mask) {
		struct last *e = &r->last[i];

		if (e->pid == pid)
			return e;
		if (!e->pid)
			return add ? (free_slot ? free_slot : e) : NULL;
		if (!free_slot && !slot_of(r, e->seq))
			free_slot = e;
	}
	return add ? free_slot : NULL;
}

void recent_push(struct recent *r, int pid, uint64_t ts, bool start, const void *data,
		 uint32_t size)
{
	struct last *e;
	struct slot *s;

	if (size > RECENT_RECORD_MAX || pid <= 0)
		return;
	e = last_of(r, pid, true);
	if (!e)
		return;
	s = &r->s[r->next % r->n];
	s->seq = r->next++;
	s->prev = e->pid == pid ? e->seq : 0;
	s->ts = ts;
	s->pid = pid;
	s->start = start;
	s->size = size;
	if (size)
		memcpy(s->data, data, size);
	e->pid = pid;
	e->seq = s->seq;
}

int recent_replay(struct recent *r, int pid, uint64_t since, uint64_t until, recent_fn fn,
		  void *ctx)
{
	struct last *e = last_of(r, pid, false);
	uint64_t *chain = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	for (struct slot *s = e ? slot_of(r, e->seq) : NULL; s && s->ts >= since;
	     s = slot_of(r, s->prev)) {
		if (s->pid != pid)
			break;
		if (s->start && s->ts + RECENT_START_SLACK_NS < until)
			break;
		if (s->start || s->ts >= until)
			continue;
		if (n == cap) {
			uint64_t *c = realloc(chain, (cap = cap ? 2 * cap : 64) * sizeof(*c));

			if (!c) {
				free(chain);
				return -ENOMEM;
			}
			chain = c;
		}
		chain[n++] = s->seq;
	}
	while (n-- > 0 && ret >= 0) {
		struct slot *s = slot_of(r, chain[n]);

		if (s)
			ret = fn(ctx, s->ts, s->data, s->size);
	}
	free(chain);
	return ret < 0 ? ret : 0;
}
