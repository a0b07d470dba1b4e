// SPDX-License-Identifier: GPL-2.0-or-later
/* The directory of learned packs: private, locked around read-merge-write, bounded */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ura/pack.h>

#include "learn-packdir.h"
#include "learn-private.h"
#include "sys-mountinfo.h"
#include "util.h"
#include "key.h"

int packdir_make(const char *dir)
{
	struct stat st;
	int fd, r = 0;

	if (mkdir(dir, PACKDIR_MODE) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (st.st_uid != 0 && st.st_uid != geteuid())
		r = -EPERM;
	else if ((st.st_mode & 07777) != PACKDIR_MODE)
		r = fchmod(fd, PACKDIR_MODE) < 0 ? -errno : 0;
	close(fd);
	return r;
}

int packdir_lock(const char *dir, bool (*give_up)(void *ctx), void *ctx, int *ret_fd)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (flock(fd, give_up ? LOCK_EX | LOCK_NB : LOCK_EX) < 0) {
		int r = -errno;

		if (r == -EINTR)
			continue;
		if (r == -EWOULDBLOCK && give_up && !give_up(ctx)) {
			usleep(PACKDIR_LOCK_POLL_MS * 1000);
			continue;
		}
		close(fd);
		return r == -EWOULDBLOCK ? -ETIMEDOUT : r;
	}
	*ret_fd = fd;
	return 0;
}

char *packdir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

struct entry {
	char *name;
	uint64_t bytes;
	int64_t last;		/* the pack's mtime, wall clock ns */
};

static int cmp_last(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Is the program of the learned pack @name gone? Its command is its program's path,
 * of the daemon's own root, when the pack's name is that path's; only then is it asked.
 */
static bool program_gone(int dirfd, const char *name, const struct mount_table *mounts)
{
	char want[NAME_MAX + 1];
	struct ura_pack *p = NULL;
	struct ura_pack_info info;
	struct stat st;
	bool gone = false;
	int fd;

	if (name[0] == '@')
		return false;	/* another root: it may not be there now */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (ura_pack_open_fd(fd, &p) == 0) {
		ura_pack_get_info(p, &info);
		gone = info.command && info.command[0] == '/' &&
		       key_pack_name(0, info.command, want, sizeof(want)) > 0 &&
		       strcmp(want, name) == 0 && !mountinfo_on_fuse(mounts, info.command) &&
		       lstat(info.command, &st) < 0 && errno == ENOENT;
		ura_pack_free(p);
	}
	close(fd);
	return gone;
}

/*
 * A pack's temporary file ("NAME.pack.XXXXXX", ura_pack_builder_write()) left
 * by a writer killed before its rename: its writer held DIR's lock, which the
 * caller holds now, so it is no one's; one written by a trace into DIR without
 * the lock is given PACKDIR_TEMP_NS.
 */
static bool stale_temp(const char *name, const struct stat *st, int64_t now)
{
	const char *dot = strrchr(name, '.');
	int64_t mtime = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;

	return dot && strlen(dot + 1) == 6 && dot - name > 5 && strncmp(dot - 5, ".pack", 5) == 0 &&
	       S_ISREG(st->st_mode) && now - mtime > PACKDIR_TEMP_NS;
}

int packdir_bound(const char *dir, const struct packdir_caps *caps, const char *keep,
		  struct packdir_usage *ret)
{
	struct packdir_usage u = { 0 };
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	int64_t now = now_realtime_ns();
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct stat st;

		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    stale_temp(de->d_name, &st, now)) {
			u.temps += unlinkat(dirfd(d), de->d_name, 0) == 0;
			continue;
		}
		if (len <= 5 || strcmp(de->d_name + len - 5, ".pack") != 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			struct entry *v = realloc(e, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!v) {
				r = -ENOMEM;
				goto out;
			}
			e = v;
		}
		e[n].name = strdup(de->d_name);
		if (!e[n].name) {
			r = -ENOMEM;
			goto out;
		}
		e[n].bytes = (uint64_t)st.st_size;
		e[n].last = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		u.bytes += e[n].bytes;
		n++;
	}
	if (n > 1)
		qsort(e, n, sizeof(*e), cmp_last);
	u.packs = n;
	/* first the packs of programs not started for long, or gone; then over the caps, the
	 * least lately started first */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			bool gone = false;

			if (!e[i].name[0] || (keep && strcmp(e[i].name, keep) == 0))
				continue;
			if (pass == 0) {
				gone = caps->check_programs &&
				       program_gone(dirfd(d), e[i].name, caps->mounts);
				if (!gone && !(caps->forget_ns && now - e[i].last > caps->forget_ns))
					continue;
			} else if (u.packs <= caps->max_packs && u.bytes <= caps->max_bytes) {
				break;
			}
			if (unlinkat(dirfd(d), e[i].name, 0) < 0)
				continue;
			e[i].name[0] = '\0';	/* removed */
			u.packs--;
			u.bytes -= e[i].bytes;
			u.evicted++;
			u.gone += gone;
			u.evicted_bytes += e[i].bytes;
		}
	*ret = u;
out:
	for (size_t i = 0; i < n; i++)
		free(e[i].name);
	free(e);
	closedir(d);
	return r;
}

int packdir_each_runs(const char *dir, packdir_runs_fn *fn, void *ctx)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (r >= 0 && (de = readdir(d))) {
		int64_t runs[URA_PACK_MAX_RUNS];
		size_t len = strlen(de->d_name), n;
		struct ura_pack *p = NULL;
		struct stat st;
		int fd;

		if (len <= 5 || strcmp(de->d_name + len - 5, ".pack") != 0)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* the daemon's own packs only: regular, and root's (or ours) */
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
		    (st.st_uid != 0 && st.st_uid != geteuid()) || ura_pack_open_fd(fd, &p) < 0) {
			close(fd);
			continue;
		}
		close(fd);
		n = ura_pack_runs(p);
		for (size_t i = 0; i < n && i < URA_PACK_MAX_RUNS; i++)
			if (ura_pack_get_run(p, i, &runs[i], NULL) < 0)
				runs[i] = 0;
		ura_pack_free(p);
		r = fn(ctx, de->d_name, runs, n < URA_PACK_MAX_RUNS ? n : URA_PACK_MAX_RUNS);
	}
	closedir(d);
	return r < 0 ? r : 0;
}
