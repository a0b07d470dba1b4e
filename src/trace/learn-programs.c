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
#include "util.h"

#define BUCKETS		4096	/* hash chains (a power of two) */

struct program {
	struct program *next;
	char *name;		/* the program's pack name (key_pack_name()) */
	double tokens;		/* runs it may have learned now */
	uint64_t tokens_ns;	/* when @tokens was brought up to date */
	uint64_t settled_ns;	/* when its pack settled, its burst given up; 0 */
	double burst_left;	/* the runs it then gave up */
};

struct user {
	unsigned uid;		/* 0: a free slot */
	double tokens;		/* new programs the user may start now */
	uint64_t tokens_ns;
};

struct programs {
	uint64_t interval_ns;
	struct program *b[BUCKETS];
	unsigned long n;
	struct user users[USER_SLOTS];
	struct user all;		/* every user but root, together */
};

static size_t key_hash(const char *name)
{
	uint64_t h = hash_str(name);

	return (size_t)(h ^ (h >> 31)) & (BUCKETS - 1);
}

int programs_new(uint64_t interval_ns, struct programs **ret)
{
	struct programs *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->interval_ns = interval_ns;
	p->all = (struct user){ .tokens = USERS_NEW_BURST };
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
			free(e->name);
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
				free(e->name);
				free(e);
				p->n--;
			} else {
				pp = &e->next;
			}
		}
}

static struct program *find(struct programs *p, const char *name)
{
	for (struct program *e = p->b[key_hash(name)]; e; e = e->next)
		if (strcmp(e->name, name) == 0)
			return e;
	return NULL;
}

/* The entry of @name, made with a full budget at @now_ns if new; NULL without memory. */
static struct program *find_or_add(struct programs *p, const char *name, uint64_t now_ns)
{
	size_t h = key_hash(name);
	struct program *e = find(p, name);

	if (e)
		return e;
	if (p->n >= PROGRAMS_MAX)
		forget_oldest(p);
	e = calloc(1, sizeof(*e));
	if (!e || !(e->name = strdup(name))) {
		free(e);
		return NULL;
	}
	e->tokens = LEARN_BURST;
	e->tokens_ns = now_ns;
	e->next = p->b[h];
	p->b[h] = e;
	p->n++;
	return e;
}

/* @tokens brought up to @dt_ns later, at most @burst. */
static double refill_to(double tokens, uint64_t dt_ns, uint64_t interval_ns, double burst)
{
	tokens += (double)dt_ns / (double)interval_ns;
	return tokens > burst ? burst : tokens;
}

static double refill(double tokens, uint64_t dt_ns, uint64_t interval_ns)
{
	return refill_to(tokens, dt_ns, interval_ns, LEARN_BURST);
}

/* One token of a bucket at @now_ns, or false and how long until one (@ret_wait_ns). */
static bool take(double *tokens, uint64_t *tokens_ns, uint64_t now_ns, uint64_t interval_ns,
		 double burst, uint64_t *ret_wait_ns)
{
	if (now_ns > *tokens_ns) {
		*tokens = refill_to(*tokens, now_ns - *tokens_ns, interval_ns, burst);
		*tokens_ns = now_ns;
	}
	if (*tokens < 1) {
		if (ret_wait_ns)
			*ret_wait_ns = (uint64_t)((1 - *tokens) * (double)interval_ns) + 1;
		return false;
	}
	*tokens -= 1;
	return true;
}

/*
 * User @uid's bucket of new programs: a full one if not known, in a slot of a
 * user whose bucket has filled up again (the least lately seen); NULL when
 * every slot's user has spent some lately (a flood of uids: refused).
 */
static struct user *user_of(struct programs *p, unsigned uid, uint64_t now_ns)
{
	struct user *free_slot = NULL;

	for (size_t i = 0; i < USER_SLOTS; i++) {
		struct user *u = &p->users[i];
		double full;

		if (u->uid == uid && u->tokens_ns)
			return u;
		full = !u->tokens_ns ? USER_NEW_BURST :
		       refill_to(u->tokens, now_ns - u->tokens_ns, USER_NEW_INTERVAL_NS,
				 USER_NEW_BURST);
		if (full >= USER_NEW_BURST && (!free_slot || u->tokens_ns < free_slot->tokens_ns))
			free_slot = u;
	}
	if (free_slot)
		*free_slot = (struct user){ .uid = uid, .tokens = USER_NEW_BURST, .tokens_ns = now_ns };
	return free_slot;
}

enum programs_refusal programs_start(struct programs *p, const char *name, unsigned uid,
				     uint64_t now_ns, uint64_t *ret_wait_ns)
{
	struct program *e;

	if (!p->interval_ns)
		return PROGRAMS_YES;
	if (uid != 0 && !find(p, name)) {
		struct user *u = user_of(p, uid, now_ns);
		struct user all = p->all;

		/* the user's bucket, and all users', both have one (or neither is taken) */
		if (!u) {
			if (ret_wait_ns)
				*ret_wait_ns = USER_NEW_INTERVAL_NS;
			return PROGRAMS_USER_NEW;
		}
		if (!take(&all.tokens, &all.tokens_ns, now_ns, USERS_NEW_INTERVAL_NS, USERS_NEW_BURST,
			  ret_wait_ns) ||
		    !take(&u->tokens, &u->tokens_ns, now_ns, USER_NEW_INTERVAL_NS, USER_NEW_BURST,
			  ret_wait_ns))
			return PROGRAMS_USER_NEW;	/* and the table is left as it was */
		p->all = all;
	}
	e = find_or_add(p, name, now_ns);
	if (!e)
		return PROGRAMS_YES;
	return take(&e->tokens, &e->tokens_ns, now_ns, p->interval_ns, LEARN_BURST, ret_wait_ns) ?
	       PROGRAMS_YES : PROGRAMS_LEARNED_LATELY;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int programs_seed(struct programs *p, const char *name, int64_t *runs_ns, size_t n,
		  int64_t now_real_ns, uint64_t now_ns)
{
	struct program *e;
	double tokens = LEARN_BURST;

	if (!p->interval_ns || !n)
		return 0;
	/* the bucket as it went, run by run, oldest first, then up to now */
	qsort(runs_ns, n, sizeof(*runs_ns), cmp_i64);
	for (size_t i = 0; i < n; i++) {
		if (i && runs_ns[i] > runs_ns[i - 1])
			tokens = refill(tokens, (uint64_t)(runs_ns[i] - runs_ns[i - 1]),
					p->interval_ns);
		tokens = tokens >= 1 ? tokens - 1 : 0;
	}
	if (n >= LEARN_SETTLE_RUNS && runs_ns[n - 1] - runs_ns[0] >= LEARN_SETTLE_SPAN_NS)
		tokens = 0;
	if (now_real_ns > runs_ns[n - 1])
		tokens = refill(tokens, (uint64_t)(now_real_ns - runs_ns[n - 1]), p->interval_ns);
	e = find_or_add(p, name, now_ns);
	if (!e)
		return -ENOMEM;
	e->tokens = tokens;
	e->tokens_ns = now_ns;
	return 0;
}

bool programs_settled(struct programs *p, const char *name, uint64_t now_ns)
{
	struct program *e = p->interval_ns ? find(p, name) : NULL;

	if (!e)
		return false;
	if (now_ns > e->tokens_ns) {
		e->tokens = refill(e->tokens, now_ns - e->tokens_ns, p->interval_ns);
		e->tokens_ns = now_ns;
	}
	if (e->tokens <= 0)
		return false;
	e->burst_left = e->tokens;
	e->tokens = 0;
	e->settled_ns = now_ns;
	return true;
}

bool programs_settled_after(struct programs *p, const char *name, uint64_t exec_ns)
{
	struct program *e = p->interval_ns ? find(p, name) : NULL;

	if (!e || !e->settled_ns || exec_ns >= e->settled_ns || e->burst_left < 1)
		return false;
	e->burst_left -= 1;
	return true;
}

unsigned long programs_count(const struct programs *p)
{
	return p->n;
}
