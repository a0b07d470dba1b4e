// SPDX-License-Identifier: GPL-2.0-or-later
/* --read follow: each request queued with readahead() is waited for by one thread per device */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <ura/pack.h>

#include "replay-follow.h"
#include "sys-residency.h"
#include "util-log.h"
#include "util.h"

#define POLL_MIN_NS	50000ull	/* the first look again after 50 us ... */
#define POLL_MAX_NS	1000000ull	/* ... then at most every 1 ms */

static bool cancelled(const struct replay_follow *f)
{
	return f->inflight->cancel && __atomic_load_n(f->inflight->cancel, __ATOMIC_ACQUIRE);
}

/*
 * Is @r's last byte read? A read from the page cache only (RWF_NOWAIT) says whether it
 * is up to date; where the filesystem cannot tell, mincore(2) does. A page not in the
 * cache at all is not under way: nothing to wait for.
 * Return: 1 read (or nothing to wait for), 0 not yet.
 */
static int is_read(const struct replay_followed *r)
{
	char b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	uint64_t page = r->last & ~(uint64_t)(URA_PACK_PAGE_SIZE - 1), n;
	ssize_t got = preadv2(r->fd, &iov, 1, (off_t)r->last, RWF_NOWAIT);

	if (got >= 0)
		return 1;
	if (errno == EAGAIN) {
		if (residency_cached(r->fd, page, URA_PACK_PAGE_SIZE, &n) == 0 && !n)
			return 1;
		return 0;
	}
	if (errno == EINTR)
		return 0;
	/* no RWF_NOWAIT here (EOPNOTSUPP): by mincore(2); a failed look ends the wait */
	if (residency_uptodate(r->fd, page, URA_PACK_PAGE_SIZE, &n) < 0 || n)
		return 1;
	return residency_cached(r->fd, page, URA_PACK_PAGE_SIZE, &n) == 0 && !n;
}

/*
 * Wait until the device has read @r, looking without ever blocking in the kernel (a read
 * that waited for a stuck device, a loop device over a stopped FUSE server, could not be
 * ended): at a cancel or after REPLAY_FOLLOW_STALL_NS the wait ends.
 * Return: false if the device stalled.
 */
static bool wait_read(const struct replay_follow *f, const struct replay_followed *r)
{
	uint64_t start = now_monotonic_ns(), gap = POLL_MIN_NS;

	while (!is_read(r)) {
		struct timespec ts;

		if (cancelled(f))
			return true;
		if (now_monotonic_ns() - start >= REPLAY_FOLLOW_STALL_NS)
			return false;
		ts = (struct timespec){ 0, (long)gap };
		nanosleep(&ts, NULL);
		gap = gap * 2 < POLL_MAX_NS ? gap * 2 : POLL_MAX_NS;
	}
	return true;
}

static void *follow(void *arg)
{
	struct replay_follow_dev *d = arg;
	struct replay_follow *f = d->f;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct replay_followed r;

		while (d->head == d->n && !d->stopping)
			pthread_cond_wait(&d->more, &d->lock);
		if (d->head == d->n)
			break;
		r = d->item[d->head++];
		pthread_mutex_unlock(&d->lock);
		/* a stalled device is not waited for again in this replay */
		if (!__atomic_load_n(&d->stalled, __ATOMIC_ACQUIRE) && !wait_read(f, &r)) {
			__atomic_store_n(&d->stalled, true, __ATOMIC_RELEASE);
			log_warn("device %u of the replay read nothing for %llu s: its reads are no "
				 "longer waited for", d->dev,
				 (unsigned long long)(REPLAY_FOLLOW_STALL_NS / 1000000000ull));
		}
		replay_inflight_leave(f->inflight, d->dev, r.len, r.cost_ns);
		f->release(f->ctx, r.obj, r.fd);
		pthread_mutex_lock(&d->lock);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

uint64_t replay_follow_last_unread(int fd, uint64_t off, uint64_t len)
{
	const uint64_t pg = URA_PACK_PAGE_SIZE;
	uint64_t end = off + len, lo = off & ~(pg - 1), hi = (end - 1) & ~(pg - 1), n;

	/* the last page not cached: nothing to look for */
	if (!len || residency_bytes(fd, hi, end - hi, &n) < 0 || n < end - hi)
		return end - 1;
	/* [hi, end) is all cached; [lo, end) is not (else nothing would be issued) */
	if (residency_bytes(fd, lo, end - lo, &n) < 0 || n >= end - lo)
		return end - 1;
	while (hi - lo > pg) {
		uint64_t mid = lo + (hi - lo) / pg / 2 * pg;

		if (residency_bytes(fd, mid, end - mid, &n) < 0)
			return end - 1;
		if (n >= end - mid)
			hi = mid;
		else
			lo = mid;
	}
	return lo + pg - 1 < end ? lo + pg - 1 : end - 1;
}

int replay_follow_start(struct replay_follow *f, struct replay_inflight *q, size_t ndev,
			const bool *want, void (*release)(void *ctx, uint32_t obj, int fd),
			void *ctx)
{
	*f = (struct replay_follow){ .inflight = q, .release = release, .ctx = ctx };
	f->devs = calloc(ndev ? ndev : 1, sizeof(*f->devs));
	if (!f->devs)
		return -ENOMEM;
	f->ndev = ndev;
	for (size_t i = 0; i < ndev; i++) {
		struct replay_follow_dev *d = &f->devs[i];

		d->f = f;
		d->dev = (uint32_t)i;
		pthread_mutex_init(&d->lock, NULL);
		pthread_cond_init(&d->more, NULL);
		d->started = want[i] && pthread_create(&d->thread, NULL, follow, d) == 0;
	}
	return 0;
}

bool replay_follow_has(const struct replay_follow *f, uint32_t dev)
{
	return f->devs && dev < f->ndev && f->devs[dev].started &&
	       !__atomic_load_n(&f->devs[dev].stalled, __ATOMIC_ACQUIRE);
}

bool replay_follow_push(struct replay_follow *f, uint32_t dev, const struct replay_followed *r)
{
	struct replay_follow_dev *d;
	bool taken = false;

	if (!replay_follow_has(f, dev))
		return false;
	d = &f->devs[dev];
	pthread_mutex_lock(&d->lock);
	if (d->n == d->cap && d->head) {
		/* those already followed make room first */
		memmove(d->item, d->item + d->head, (d->n - d->head) * sizeof(*d->item));
		d->n -= d->head;
		d->head = 0;
	}
	if (d->n == d->cap) {
		size_t nc = d->cap ? 2 * d->cap : 64;
		void *p = realloc(d->item, nc * sizeof(*d->item));

		if (p) {
			d->item = p;
			d->cap = nc;
		}
	}
	if (d->n < d->cap) {
		d->item[d->n++] = *r;
		taken = true;
		pthread_cond_signal(&d->more);
	}
	pthread_mutex_unlock(&d->lock);
	return taken;
}

void replay_follow_stop(struct replay_follow *f)
{
	for (size_t i = 0; f->devs && i < f->ndev; i++) {
		struct replay_follow_dev *d = &f->devs[i];

		if (d->started) {
			pthread_mutex_lock(&d->lock);
			d->stopping = true;
			pthread_cond_signal(&d->more);
			pthread_mutex_unlock(&d->lock);
			pthread_join(d->thread, NULL);
		}
		free(d->item);
		pthread_cond_destroy(&d->more);
		pthread_mutex_destroy(&d->lock);
	}
	free(f->devs);
	f->devs = NULL;
}
