// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Learning's pid filter: the instance's set_event_pid, written by a thread of
 * its own so that the event loop never waits for the kernel's RCU
 * synchronisation; requests asked for meanwhile go together in one write, and
 * each write arms the pids about to be allocated (why: learn-pidfilter.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn-pidfilter.h"
#include "sys-proc.h"
#include "util.h"

#define HISTORY		64	/* writes remembered for pidfilter_done() */

struct done_write {
	unsigned lo, hi;	/* the requests it served */
	uint64_t since_ns;
	int error;
};

struct pid_filter {
	char *path;
	pthread_mutex_t *serial;	/* held around each write (pidfilter_new()) */
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int *pending;		/* pids asked for, not yet taken by a write */
	size_t npending, cap;
	bool arm, rewrite, stop, busy;
	unsigned asked;		/* the newest request number handed out */
	unsigned served;	/* every request up to this one is written */
	struct done_write hist[HISTORY];
	size_t nhist, hist_next;
	int pid_max;
	int banned[PIDS_BANNED];	/* never armed (the newest PIDS_BANNED, 0 for none) */
	size_t ban_next;
	struct pidfilter_stats st;
};

/* A small integer from a /proc/sys file, or -1. */
static bool is_banned(const int *banned, size_t nbanned, long pid)
{
	for (size_t i = 0; i < nbanned; i++)
		if (banned[i] == pid)
			return true;
	return false;
}

/* kernel/pid_max, or the kernel's default where it cannot be read */
static int read_pid_max(void)
{
	long v = proc_sys_int("kernel/pid_max");

	return v > 1 && v <= INT_MAX ? (int)v : 32768;
}

/* How many pids were allocated after @first up to @last, at most PIDS_EMPTYING. */
static int pids_between(int first, int last, int pid_max)
{
	long span = ((long)last - first) % pid_max;

	if (span < 0)
		span += pid_max;
	return span > PIDS_EMPTYING ? PIDS_EMPTYING : (int)span;
}

size_t pidfilter_ranges(int first, int last, int pid_max, const int *banned, size_t nbanned,
			char *buf, size_t size)
{
	size_t len = 0;
	int span;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	if (first < 0 || last < 0 || pid_max <= 1)
		return 0;
	span = pids_between(first, last, pid_max);
	for (int k = -(PIDS_RECENT - 1) - span; k <= PIDS_AHEAD; k++) {
		/* pids wrap from pid_max - 1 to the first free one from 300: none below is armed */
		long pid = ((long)last + k) % pid_max;
		int n;

		if (pid < 0)
			pid += pid_max;
		if (pid < PIDS_RESERVED || is_banned(banned, nbanned, pid))
			continue;
		n = snprintf(buf + len, size - len, "%s%ld", len ? " " : "", pid);
		if (n < 0 || (size_t)n >= size - len) {
			buf[0] = '\0';
			return 0;
		}
		len += (size_t)n;
	}
	return len;
}

/* The text of a write: @pids, then the pids allocated after @first up to @last, and around. */
static char *write_text(struct pid_filter *pf, const int *pids, size_t n, const int *banned,
			int first, int last)
{
	size_t size = (n + PIDS_RECENT + PIDS_AHEAD + PIDS_EMPTYING) * 12 + 2, len = 0;
	char *buf = malloc(size);

	if (!buf)
		return NULL;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%d ", pids[i]);
	len += pidfilter_ranges(first, last, pf->pid_max, banned, PIDS_BANNED, buf + len,
				size - len);
	buf[len] = '\0';
	return buf;
}

static void *writer(void *arg)
{
	struct pid_filter *pf = arg;
	int *pids = NULL, banned[PIDS_BANNED];
	size_t npids, cap = 0;

	pthread_mutex_lock(&pf->lock);
	for (;;) {
		struct done_write d = { 0 };
		bool rewrite;
		uint64_t t0, t_write;
		char *text;
		int fd, r = 0, first, last, pid_max;

		while (!pf->stop && !pf->npending && !pf->arm && !pf->rewrite)
			pthread_cond_wait(&pf->cond, &pf->lock);
		if (pf->stop)
			break;
		rewrite = pf->rewrite;
		pf->rewrite = pf->arm = false;
		pf->busy = true;
		pthread_mutex_unlock(&pf->lock);

		if (pf->serial)
			pthread_mutex_lock(pf->serial);
		t0 = now_monotonic_ns();
		/*
		 * Emptying the list (O_TRUNC) waits for the synchronisation; the pids are
		 * taken after it, so that what was asked for meanwhile goes in at once.
		 * (Emptying the list loses the listed tasks' events for a while: the
		 * caller drops the runs that lived through it, learn-run.c rewrite(),
		 * and a task asked for is traced from the write, not the emptying.)
		 * A task forked meanwhile, which the caller has not read of yet, is traced
		 * on: every pid allocated during the emptying is armed (a program exec'd
		 * then, and the child it forked at once, missed their first reads
		 * between this write and the next one: learn.t saw it under load).
		 */
		/* pid_max may be raised at any time (sysctl): read again at each rewrite */
		pid_max = rewrite ? read_pid_max() : pf->pid_max;
		first = rewrite ? (int)proc_sys_int("kernel/ns_last_pid") : 0;
		fd = open(pf->path, O_WRONLY | O_CLOEXEC | (rewrite ? O_TRUNC : O_APPEND));
		if (fd < 0)
			r = -errno;
		last = (int)proc_sys_int("kernel/ns_last_pid");
		if (!rewrite)
			first = last;
		/* pid_max lowered below the last pid: the next one wraps, as after pid_max - 1 */
		if (last >= pid_max)
			pid_max = last + 1;

		/* take the pids asked for: the two arrays change places */
		pthread_mutex_lock(&pf->lock);
		{
			int *p = pf->pending;
			size_t c = pf->cap;

			pf->pending = pids;
			pf->cap = cap;
			pids = p;
			cap = c;
		}
		npids = pf->npending;
		pf->npending = 0;
		pf->pid_max = pid_max;
		d.lo = pf->served + 1;
		d.hi = pf->asked;
		memcpy(banned, pf->banned, sizeof(banned));
		pthread_mutex_unlock(&pf->lock);

		text = write_text(pf, pids, npids, banned, first, last);
		/* its pids are traced from this write on (for a rewrite, not from the emptying) */
		t_write = now_monotonic_ns();
		if (r == 0 && !text)
			r = -ENOMEM;
		if (r == 0 && write(fd, text, strlen(text)) < 0)
			r = -errno;
		if (fd >= 0)
			close(fd);
		if (pf->serial)
			pthread_mutex_unlock(pf->serial);
		free(text);
		d.since_ns = t_write;
		d.error = r;

		pthread_mutex_lock(&pf->lock);
		pf->busy = false;
		pf->hist[pf->hist_next] = d;
		pf->hist_next = (pf->hist_next + 1) % HISTORY;
		if (pf->nhist < HISTORY)
			pf->nhist++;
		pf->served = d.hi;
		pf->st.writes++;
		pf->st.rewrites += rewrite;
		pf->st.pids += npids;
		{
			uint64_t dt = now_monotonic_ns() - t0;

			pf->st.write_ns += dt;
			if (dt > pf->st.max_write_ns)
				pf->st.max_write_ns = dt;
		}
		if (r < 0)
			pf->st.last_error = r;
	}
	pthread_mutex_unlock(&pf->lock);
	free(pids);
	return NULL;
}

int pidfilter_new(const char *path, pthread_mutex_t *serial, struct pid_filter **ret)
{
	struct pid_filter *pf = calloc(1, sizeof(*pf));
	int r;

	if (!pf)
		return -ENOMEM;
	pf->serial = serial;
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->cond, NULL);
	pf->path = strdup(path);
	pf->pid_max = read_pid_max();
	if (!pf->path) {
		pidfilter_free(pf);
		return -ENOMEM;
	}
	r = -pthread_create(&pf->thread, NULL, writer, pf);
	if (r < 0) {
		pidfilter_free(pf);
		return r;
	}
	pf->started = true;
	*ret = pf;
	return 0;
}

void pidfilter_free(struct pid_filter *pf)
{
	if (!pf)
		return;
	if (pf->started) {
		pthread_mutex_lock(&pf->lock);
		pf->stop = true;
		pthread_cond_signal(&pf->cond);
		pthread_mutex_unlock(&pf->lock);
		pthread_join(pf->thread, NULL);
	}
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->cond);
	free(pf->pending);
	free(pf->path);
	free(pf);
}

/* @pid into the next write (locked); without memory it is left out: its window finds out */
static void pend(struct pid_filter *pf, int pid)
{
	if (pf->npending == pf->cap) {
		size_t cap = pf->cap ? pf->cap * 2 : 32;
		int *p = realloc(pf->pending, cap * sizeof(*p));

		if (p) {
			pf->pending = p;
			pf->cap = cap;
		}
	}
	if (pf->npending < pf->cap)
		pf->pending[pf->npending++] = pid;
}

unsigned pidfilter_add(struct pid_filter *pf, int pid)
{
	unsigned seq;

	pthread_mutex_lock(&pf->lock);
	pend(pf, pid);
	seq = ++pf->asked;
	pthread_cond_signal(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	return seq;
}

unsigned pidfilter_arm(struct pid_filter *pf)
{
	unsigned seq;

	pthread_mutex_lock(&pf->lock);
	pf->arm = true;
	seq = ++pf->asked;
	pthread_cond_signal(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	return seq;
}

void pidfilter_ban(struct pid_filter *pf, int pid)
{
	pthread_mutex_lock(&pf->lock);
	pf->banned[pf->ban_next] = pid;
	pf->ban_next = (pf->ban_next + 1) % PIDS_BANNED;
	pthread_mutex_unlock(&pf->lock);
}

unsigned pidfilter_rewrite(struct pid_filter *pf, const int *keep, size_t nkeep)
{
	unsigned seq;

	pthread_mutex_lock(&pf->lock);
	for (size_t i = 0; i < nkeep; i++)
		pend(pf, keep[i]);
	pf->rewrite = true;
	seq = ++pf->asked;
	pthread_cond_signal(&pf->cond);
	pthread_mutex_unlock(&pf->lock);
	return seq;
}

bool pidfilter_done(struct pid_filter *pf, unsigned seq, uint64_t *ret_since_ns, int *ret_err)
{
	bool done = false;

	pthread_mutex_lock(&pf->lock);
	if ((int)(pf->served - seq) >= 0) {
		done = true;
		*ret_err = -ESTALE;	/* written long ago: the history no longer says when */
		*ret_since_ns = 0;
		for (size_t i = 0; i < pf->nhist; i++) {
			const struct done_write *d = &pf->hist[i];

			if ((int)(seq - d->lo) >= 0 && (int)(d->hi - seq) >= 0) {
				*ret_since_ns = d->since_ns;
				*ret_err = d->error;
				break;
			}
		}
	}
	pthread_mutex_unlock(&pf->lock);
	return done;
}

bool pidfilter_idle(struct pid_filter *pf)
{
	bool idle;

	pthread_mutex_lock(&pf->lock);
	idle = !pf->busy && !pf->npending && !pf->arm && !pf->rewrite;
	pthread_mutex_unlock(&pf->lock);
	return idle;
}

void pidfilter_get_stats(struct pid_filter *pf, struct pidfilter_stats *ret)
{
	pthread_mutex_lock(&pf->lock);
	*ret = pf->st;
	pthread_mutex_unlock(&pf->lock);
}
