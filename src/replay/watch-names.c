// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: the names of the packs directory, kept in memory, so
 * that an exec no pack is for costs one name and one stat of the directory
 * instead of the checks of its key (mount namespace, the file's identity) and
 * the pack's lookup.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watch-names.h"
#include "key.h"

#define RACY_NS		(100 * 1000000LL)	/* a directory read this soon after a change is read again */
#define REREAD_NS	(10 * 1000000LL)	/* ... but at most this often */

int watch_names_init(struct watch_names *x, const char *dir)
{
	*x = (struct watch_names){ .notify_fd = -1, .wd = -1 };
	x->dir = strdup(dir);
	if (!x->dir)
		return -ENOMEM;
	x->notify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return 0;
}

static void free_names(char **names, size_t n);

static void forget(struct watch_names *x)
{
	free_names(x->names, x->n);
	x->names = NULL;
	x->n = 0;
	x->valid = false;
}

void watch_names_free(struct watch_names *x)
{
	if (!x->dir)
		return;		/* never made (watch_names_init() sets the descriptor first) */
	forget(x);
	free(x->dir);
	x->dir = NULL;
	if (x->notify_fd >= 0)
		close(x->notify_fd);
	x->notify_fd = x->wd = -1;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add(void **arr, size_t *n, size_t *cap, size_t size, const void *v)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		void *p = realloc(*arr, c * size);

		if (!p)
			return -ENOMEM;
		*arr = p;
		*cap = c;
	}
	memcpy((char *)*arr + *n * size, v, size);
	(*n)++;
	return 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Has @b (sorted) a name @a (sorted) has not? */
static bool names_added(char *const *a, size_t na, char *const *b, size_t nb)
{
	size_t i = 0;

	for (size_t k = 0; k < nb; k++) {
		int c = 1;

		while (i < na && (c = strcmp(a[i], b[k])) < 0)
			i++;
		if (i == na || c > 0)
			return true;
	}
	return false;
}

/*
 * Read the directory's pack names; 0, or a negative errno (the index is then
 * invalid). @x->added counts the reads that found a name the one before had
 * not (a pack rewritten in place, as the learning daemon does after each run,
 * adds none: the programs it ignores need not be seen again).
 */
static int reread(struct watch_names *x)
{
	char **old = x->valid ? x->names : NULL;
	size_t cap = 0, old_n = x->valid ? x->n : 0;
	struct dirent *e;
	DIR *d;
	int r = 0;

	if (!x->valid)
		forget(x);
	x->names = NULL;
	x->n = 0;
	x->valid = false;
	x->reads++;
	d = opendir(x->dir);
	if (!d) {
		r = -errno;
		goto out;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char *s;

		if (l <= 5 || strcmp(e->d_name + l - 5, ".pack") != 0)
			continue;
		s = strdup(e->d_name);
		if (!s || add((void **)&x->names, &x->n, &cap, sizeof(s), &s) < 0) {
			free(s);
			r = -ENOMEM;
			break;
		}
	}
	closedir(d);
	if (r < 0) {
		forget(x);
		goto out;
	}
	if (x->n)
		qsort(x->names, x->n, sizeof(*x->names), name_cmp);
	x->valid = true;
	if (!old || names_added(old, old_n, x->names, x->n))
		x->added++;
out:
	free_names(old, old_n);
	return r;
}

static int64_t ts_ns(struct timespec ts)
{
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Bring the index up to date. Return: 0, -ENOENT (no directory: no pack), or another error. */
static int refresh(struct watch_names *x, int64_t now_ns)
{
	struct stat st;

	if (stat(x->dir, &st) < 0) {
		int err = -errno;

		forget(x);
		return err == -ENOTDIR ? -ENOENT : err;
	}
	/*
	 * An entry added after the read in the same timestamp tick leaves the
	 * times as they were: an index read soon after a change is not trusted,
	 * and read again (at most every REREAD_NS, so a directory the learning
	 * daemon keeps writing does not cost a read at every exec).
	 */
	if (x->valid && !x->told && st.st_dev == x->dev && st.st_ino == x->ino &&
	    ts_ns(st.st_mtim) == x->mtime_ns && ts_ns(st.st_ctim) == x->ctime_ns &&
	    ((x->read_ns - x->mtime_ns >= RACY_NS && x->read_ns - x->ctime_ns >= RACY_NS) ||
	     now_ns - x->read_ns < REREAD_NS))
		return 0;
	/* watched from the first read on, again when the directory was replaced */
	if (x->notify_fd >= 0 && (x->wd < 0 || x->wd_ino != st.st_ino || x->wd_dev != st.st_dev)) {
		if (x->wd >= 0)
			inotify_rm_watch(x->notify_fd, x->wd);
		x->wd = inotify_add_watch(x->notify_fd, x->dir, IN_MOVED_TO | IN_MOVED_FROM |
					  IN_CLOSE_WRITE | IN_DELETE | IN_DELETE_SELF |
					  IN_MOVE_SELF | IN_ONLYDIR);
		x->wd_ino = st.st_ino;
		x->wd_dev = st.st_dev;
	}
	x->told = false;
	x->read_ns = now_ns;
	x->dev = st.st_dev;
	x->ino = st.st_ino;
	x->mtime_ns = ts_ns(st.st_mtim);
	x->ctime_ns = ts_ns(st.st_ctim);
	return reread(x);
}

static bool has(const struct watch_names *x, uint64_t root_id, const char *path)
{
	char name[NAME_MAX + 1], *key = name;

	if (key_pack_name(root_id, path, name, sizeof(name)) < 0)
		return false;		/* no pack can have that name */
	return x->n && bsearch(&key, x->names, x->n, sizeof(*x->names), name_cmp) != NULL;
}

void watch_names_refresh(struct watch_names *x, int64_t now_ns)
{
	refresh(x, now_ns);
}

int watch_names_notify_fd(const struct watch_names *x)
{
	return x->wd >= 0 ? x->notify_fd : -1;
}

/* Is the event @e about a pack (a name ending in ".pack"), or the directory itself? */
static bool about_packs(const struct inotify_event *e)
{
	size_t l = e->len ? strlen(e->name) : 0;

	if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW))
		return true;
	return l > 5 && strcmp(e->name + l - 5, ".pack") == 0;
}

bool watch_names_notified(struct watch_names *x, int64_t now_ns)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;
	ssize_t n;

	if (x->notify_fd < 0)
		return false;
	while ((n = read(x->notify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p + sizeof(struct inotify_event) <= buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			any |= about_packs(e);
			if (e->mask & IN_IGNORED)
				x->wd = -1;	/* gone: watched again at the next read */
			p += sizeof(*e) + e->len;
		}
	}
	/*
	 * Read again whatever the times say; the names read before stay valid
	 * meanwhile, so that a pack only rewritten (renamed over) adds no name
	 */
	if (any) {
		x->told = true;
		refresh(x, now_ns);
	}
	return any;
}

bool watch_names_may_have(struct watch_names *x, uint64_t root_id, const char *path,
			   int64_t now_ns)
{
	int r = refresh(x, now_ns);

	if (r == -ENOENT)
		return false;
	if (r < 0 || !path || path[0] != '/')
		return true;
	return has(x, root_id, path);
}

bool watch_names_in_other_roots(const struct watch_names *x, const char *path)
{
	char name[NAME_MAX + 1];
	size_t len;

	if (key_pack_name(0, path, name, sizeof(name)) < 0)
		return false;		/* no pack can have that name, in any root */
	len = strlen(name);
	for (size_t i = 0; i < x->n; i++) {
		const char *n = x->names[i];
		size_t l = strlen(n);

		if (n[0] != '@')
			continue;
		/* "@ROOT-NAME" (ROOT: 16 hex digits), or a long one's digest, of any path */
		if (strchr(n, '~') || (l == 18 + len && n[17] == '-' && strcmp(n + 18, name) == 0))
			return true;
	}
	return false;
}
