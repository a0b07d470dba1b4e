// SPDX-License-Identifier: GPL-2.0-or-later
/* --read follow: each request queued with readahead() is waited for by one thread per device */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay-follow.h"

/* Wait until the device has read @r (a read of its last byte waits for the read in flight). */
static void wait_read(const struct replay_followed *r)
{
	char b;

	while (pread(r->fd, &b, 1, (off_t)r->last) < 0 && errno == EINTR)
		;
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
		wait_read(&r);
		replay_inflight_leave(f->inflight, d->dev, r.len, r.cost_ns);
		f->release(f->ctx, r.obj, r.fd);
		pthread_mutex_lock(&d->lock);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int replay_follow_start(struct replay_follow *f, struct replay_inflight *q, size_t ndev,
			void (*release)(void *ctx, uint32_t obj, int fd), void *ctx)
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
		d->started = pthread_create(&d->thread, NULL, follow, d) == 0;
	}
	return 0;
}

bool replay_follow_push(struct replay_follow *f, uint32_t dev, const struct replay_followed *r)
{
	struct replay_follow_dev *d;
	bool taken = false;

	if (!f->devs || dev >= f->ndev || !f->devs[dev].started)
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
