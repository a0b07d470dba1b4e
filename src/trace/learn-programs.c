// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The programs the learning daemon has seen start: a budget of runs each (a
 * token bucket), so that a program started all day has its pack rewritten at
 * a bounded rate. Used by the event loop only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "learn-programs.h"

#define BUCKETS		4096	/* hash chains (a power of two) */

struct program {
	struct program *next;
	uint64_t root_id;
	char *path;
	double tokens;		/* runs it may have learned now */
	uint64_t tokens_ns;	/* when @tokens was brought up to date */
};

struct programs {
	uint64_t interval_ns;
	struct program *b[BUCKETS];
	unsigned long n;
};

static size_t key_hash(uint64_t root_id, const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (root_id * 0x9e3779b97f4a7c15ULL);

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ULL;
	return (size_t)(h ^ (h >> 31)) & (BUCKETS - 1);
}

int programs_new(uint64_t interval_ns, struct programs **ret)
{
	struct programs *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->interval_ns = interval_ns;
	*ret = p;
	return 0;
}

void programs_free(struct programs *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < BUCKETS; i++)
		for (struct program *e = p->b[i], *next; e; e = next) {
			next = e->next;
			free(e->path);
			free(e);
		}
	free(p);
}

/*
 * The table full: forget the programs not started for longest, an eighth of
 * them (one pass finds the age that many are older than). A program forgotten
 * gets a full budget again: the table bounds memory, not the rate, so it is
 * made large enough for the programs of a busy day.
 */
static void forget_oldest(struct programs *p)
{
	uint64_t oldest = UINT64_MAX, newest = 0, cut;

	for (size_t i = 0; i < BUCKETS; i++)
		for (struct program *e = p->b[i]; e; e = e->next) {
			if (e->tokens_ns < oldest)
				oldest = e->tokens_ns;
			if (e->tokens_ns > newest)
				newest = e->tokens_ns;
		}
	cut = oldest + (newest - oldest) / 8;
	for (size_t i = 0; i < BUCKETS; i++)
		for (struct program **pp = &p->b[i], *e; (e = *pp);) {
			if (e->tokens_ns <= cut) {
				*pp = e->next;
				free(e->path);
				free(e);
				p->n--;
			} else {
				pp = &e->next;
			}
		}
}

bool programs_start(struct programs *p, uint64_t root_id, const char *path, uint64_t now_ns,
		    uint64_t *ret_wait_ns)
{
	size_t h = key_hash(root_id, path);
	struct program *e;

	if (!p->interval_ns)
		return true;
	for (e = p->b[h]; e; e = e->next)
		if (e->root_id == root_id && strcmp(e->path, path) == 0)
			break;
	if (!e) {
		if (p->n >= PROGRAMS_MAX) {
			forget_oldest(p);
			h = key_hash(root_id, path);
		}
		e = calloc(1, sizeof(*e));
		if (!e || !(e->path = strdup(path))) {
			free(e);
			return true;
		}
		e->root_id = root_id;
		e->tokens = LEARN_BURST;
		e->tokens_ns = now_ns;
		e->next = p->b[h];
		p->b[h] = e;
		p->n++;
	}
	if (now_ns > e->tokens_ns) {
		e->tokens += (double)(now_ns - e->tokens_ns) / (double)p->interval_ns;
		if (e->tokens > LEARN_BURST)
			e->tokens = LEARN_BURST;
		e->tokens_ns = now_ns;
	}
	if (e->tokens < 1) {
		if (ret_wait_ns)
			*ret_wait_ns = (uint64_t)((1 - e->tokens) * (double)p->interval_ns) + 1;
		return false;
	}
	e->tokens -= 1;
	return true;
}

unsigned long programs_count(const struct programs *p)
{
	return p->n;
}
