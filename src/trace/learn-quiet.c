// SPDX-License-Identifier: GPL-2.0-or-later
/* Learning's quiet list: the exec instance's filter leaves out the programs it would refuse now */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn-quiet.h"

struct quiet_name {
	char name[QUIET_NAME_MAX + 1];
	uint64_t until_ns;
};

struct quiet {
	/* the loop's own */
	struct quiet_name v[QUIET_MAX];
	size_t n;
	char barred[QUIET_BARRED][QUIET_NAME_MAX + 1];	/* never added again (quiet_bar()) */
	size_t nbarred, next_bar;
	bool comm;			/* names are task names (comm), not file names */
	bool dirty;			/* changed since last handed to the thread */
	uint64_t last_ns;		/* when last handed */
	uint64_t added;
	/* shared with the thread, under @lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	char **paths;			/* the filter files, each written the same filter */
	size_t npaths;
	pthread_mutex_t *serial;	/* held around each write */
	char *pending;			/* the filter to write next */
	char *in_force;			/* the filter last written, NULL before */
	bool busy, stop, failed;
	uint64_t writes;
	int last_error;
};

/* Only letters, digits and @extra: nothing that ends a filter's string or globs. */
static bool plain(const char *name, const char *extra)
{
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr(extra, *p)))
			return false;
	return true;
}

bool quiet_name_ok(const char *name)
{
	return name[0] == '/' && strlen(name) <= QUIET_NAME_MAX && plain(name, "/._+-@,:=~");
}

bool quiet_comm_ok(const char *name)
{
	size_t len = strlen(name);

	return len && len <= QUIET_COMM_MAX && plain(name, "._+-@,:=~");
}

bool quiet_comm_of(const char *filename, char *buf, size_t size)
{
	const char *base = strrchr(filename, '/');

	base = base ? base + 1 : filename;
	if (size < QUIET_COMM_MAX + 1)
		return false;
	snprintf(buf, QUIET_COMM_MAX + 1, "%s", base);	/* the kernel's truncation */
	return quiet_comm_ok(buf);
}

static bool name_ok(const struct quiet *q, const char *name)
{
	return q->comm ? quiet_comm_ok(name) : quiet_name_ok(name);
}

static size_t filter_of(const char *field, const char *const *names, size_t n, char *buf,
			size_t size)
{
	size_t len = 0, held = 0;

	if (size > QUIET_FILTER_MAX)
		size = QUIET_FILTER_MAX;
	for (size_t i = 0; i < n; i++) {
		int k = snprintf(buf + len, size - len, "%s%s!=\"%s\"", held ? "&&" : "",
				 field, names[i]);

		if (k < 0 || (size_t)k >= size - len) {
			buf[len] = 0;	/* not a part of the name */
			break;
		}
		len += (size_t)k;
		held++;
	}
	if (!held)
		snprintf(buf, size, "0");
	return held;
}

size_t quiet_filter(const char *const *names, size_t n, char *buf, size_t size)
{
	return filter_of("filename", names, n, buf, size);
}

static int write_filter(const char *path, const char *filter)
{
	size_t len = strlen(filter);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, filter, len) != (ssize_t)len)
		r = errno ? -errno : -EIO;
	close(fd);
	return r;
}

static void *writer(void *arg)
{
	struct quiet *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		char *f;
		int r;

		while (!q->pending && !q->stop)
			pthread_cond_wait(&q->cond, &q->lock);
		if (!q->pending)
			break;
		f = q->pending;
		q->pending = NULL;
		q->busy = true;
		pthread_mutex_unlock(&q->lock);
		r = 0;
		for (size_t i = 0; i < q->npaths; i++) {
			int k;

			if (q->serial)
				pthread_mutex_lock(q->serial);
			k = write_filter(q->paths[i], f);
			if (q->serial)
				pthread_mutex_unlock(q->serial);
			r = r < 0 ? r : k;
		}
		pthread_mutex_lock(&q->lock);
		if (r == 0) {
			free(q->in_force);
			q->in_force = f;
		} else {
			free(f);
		}
		q->busy = false;
		q->writes++;
		q->last_error = r;
		q->failed |= r < 0;
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static void free_paths(struct quiet *q)
{
	for (size_t i = 0; i < q->npaths; i++)
		free(q->paths[i]);
	free(q->paths);
}

static int make(const char *const *paths, size_t npaths, bool comm, pthread_mutex_t *serial,
		struct quiet **ret)
{
	struct quiet *q = calloc(1, sizeof(*q));
	int r;

	if (!q)
		return -ENOMEM;
	q->serial = serial;
	q->comm = comm;
	q->paths = calloc(npaths ? npaths : 1, sizeof(*q->paths));
	for (size_t i = 0; q->paths && i < npaths; i++, q->npaths++)
		if (!(q->paths[i] = strdup(paths[i])))
			break;
	if (!q->paths || q->npaths < npaths) {
		free_paths(q);
		free(q);
		return -ENOMEM;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	r = pthread_create(&q->thread, NULL, writer, q);
	if (r) {
		pthread_cond_destroy(&q->cond);
		pthread_mutex_destroy(&q->lock);
		free_paths(q);
		free(q);
		return -r;
	}
	*ret = q;
	return 0;
}

int quiet_new(const char *path, pthread_mutex_t *serial, struct quiet **ret)
{
	return make(&path, 1, false, serial, ret);
}

int quiet_new_comm(const char *const *paths, size_t npaths, pthread_mutex_t *serial,
		   struct quiet **ret)
{
	return make(paths, npaths, true, serial, ret);
}

void quiet_free(struct quiet *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	free(q->pending);
	q->pending = NULL;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	free(q->in_force);
	free_paths(q);
	free(q);
}

bool quiet_add(struct quiet *q, const char *name, uint64_t until_ns)
{
	size_t at = q->n;

	if (!name_ok(q, name))
		return false;
	for (size_t i = 0; i < q->nbarred; i++)
		if (strcmp(q->barred[i], name) == 0)
			return false;
	for (size_t i = 0; i < q->n; i++) {
		if (strcmp(q->v[i].name, name) == 0) {
			if (q->v[i].until_ns < until_ns)
				q->v[i].until_ns = until_ns;
			return false;
		}
	}
	if (q->n == QUIET_MAX) {
		at = 0;
		for (size_t i = 1; i < q->n; i++)
			if (q->v[i].until_ns < q->v[at].until_ns)
				at = i;
		if (q->v[at].until_ns >= until_ns)
			return false;
	} else {
		q->n++;
	}
	snprintf(q->v[at].name, sizeof(q->v[at].name), "%s", name);
	q->v[at].until_ns = until_ns;
	q->dirty = true;
	q->added++;
	return true;
}

void quiet_update(struct quiet *q, uint64_t now_ns)
{
	const char *names[QUIET_MAX];
	char buf[QUIET_FILTER_MAX];
	size_t k = 0;

	for (size_t i = 0; i < q->n;) {
		if (q->v[i].until_ns <= now_ns) {
			q->v[i] = q->v[--q->n];
			q->dirty = true;
		} else {
			i++;
		}
	}
	pthread_mutex_lock(&q->lock);
	if (q->failed) {
		q->failed = false;
		q->dirty = true;	/* the filter in force is not the list: again */
	}
	if (q->dirty && now_ns - q->last_ns >= QUIET_GAP_NS && !q->busy && !q->pending) {
		for (size_t i = 0; i < q->n; i++)
			names[k++] = q->v[i].name;
		filter_of(q->comm ? "comm" : "filename", names, k, buf, sizeof(buf));
		q->pending = strdup(buf);
		if (q->pending) {
			q->dirty = false;
			q->last_ns = now_ns;
			pthread_cond_signal(&q->cond);
		}
	}
	pthread_mutex_unlock(&q->lock);
}

uint64_t quiet_next_ns(struct quiet *q, uint64_t now_ns)
{
	uint64_t next = UINT64_MAX, w = UINT64_MAX;

	for (size_t i = 0; i < q->n; i++)
		if (q->v[i].until_ns < next)
			next = q->v[i].until_ns;
	pthread_mutex_lock(&q->lock);
	if (q->busy || q->pending)
		w = now_ns + QUIET_BUSY_NS;	/* how it went, soon */
	else if (q->dirty || q->failed)
		w = q->last_ns + QUIET_GAP_NS > now_ns ? q->last_ns + QUIET_GAP_NS : now_ns;
	pthread_mutex_unlock(&q->lock);
	return w < next ? w : next;
}

bool quiet_has(const struct quiet *q, const char *name)
{
	for (size_t i = 0; i < q->n; i++)
		if (strcmp(q->v[i].name, name) == 0)
			return true;
	return false;
}

bool quiet_in_force(struct quiet *q, const char *name)
{
	char needle[QUIET_NAME_MAX + 3];
	bool r;

	if (!name_ok(q, name))
		return false;
	snprintf(needle, sizeof(needle), "\"%s\"", name);
	pthread_mutex_lock(&q->lock);
	r = q->in_force && strstr(q->in_force, needle);
	pthread_mutex_unlock(&q->lock);
	return r;
}

void quiet_get_stats(struct quiet *q, struct quiet_stats *ret)
{
	pthread_mutex_lock(&q->lock);
	*ret = (struct quiet_stats){ .names = q->n, .added = q->added, .writes = q->writes,
				     .last_error = q->last_error };
	pthread_mutex_unlock(&q->lock);
}

void quiet_bar(struct quiet *q, const char *name)
{
	for (size_t i = 0; i < q->n; i++) {
		if (strcmp(q->v[i].name, name) == 0) {
			q->v[i] = q->v[--q->n];
			q->dirty = true;
			break;
		}
	}
	for (size_t i = 0; i < q->nbarred; i++)
		if (strcmp(q->barred[i], name) == 0)
			return;
	snprintf(q->barred[q->next_bar], sizeof(q->barred[q->next_bar]), "%s", name);
	q->next_bar = (q->next_bar + 1) % QUIET_BARRED;
	if (q->nbarred < QUIET_BARRED)
		q->nbarred++;
}
