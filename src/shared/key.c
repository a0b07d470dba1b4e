// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program's key, shared by the learning daemon (ura-trace --watch) and the
 * exec daemon (ura-replay --watch): the identity of the root the process runs
 * in, and the program's path inside that root; and the pack file name made of
 * the two. Why this key: key.h and ura-replay(8).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sys-mountinfo.h"
#include "sys-safeopen.h"
#include "key-escape.h"
#include "key.h"

int key_self_read(struct key_self *ret)
{
	struct stat st;

	if (stat("/", &st) < 0)
		return -errno;
	ret->dev = st.st_dev;
	ret->ino = st.st_ino;
	ret->userns = stat("/proc/self/ns/user", &st) == 0 ? st.st_ino : 0;
	return 0;
}

bool key_root_by_root(pid_t pid, const struct key_self *self, const struct key_root *root)
{
	char link[64];
	struct stat st;

	if (root->id == 0)
		return true;
	snprintf(link, sizeof(link), "/proc/%d/ns/user", (int)pid);
	return self->userns && stat(link, &st) == 0 && st.st_ino == self->userns;
}

/* A 64-bit digest (FNV-1a, then a final mix): ids and long names, not security. */
static uint64_t digest(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

uint64_t key_root_id(const struct key_self *self, dev_t dev, ino_t ino)
{
	uint64_t ident[2] = { (uint64_t)dev, (uint64_t)ino }, id;

	if (dev == self->dev && ino == self->ino)
		return 0;
	id = digest(ident, sizeof(ident), 0xcbf29ce484222325ULL);
	return id ? id : 1;	/* 0 is the daemon's own root */
}

int key_root_of(pid_t pid, const struct key_self *self, struct key_root *ret)
{
	char link[64], path[PATH_MAX];
	struct statx stx;
	uint64_t id;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/root", (int)pid);
	/*
	 * AT_STATX_DONT_SYNC: the root may be on a FUSE filesystem (a user's
	 * namespace), whose server would be asked for the attributes and might
	 * never answer; device and inode numbers need no asking.
	 */
	if (statx(AT_FDCWD, link, AT_STATX_DONT_SYNC, STATX_INO, &stx) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	id = key_root_id(self, makedev(stx.stx_dev_major, stx.stx_dev_minor), stx.stx_ino);
	if (id == 0) {
		ret->id = 0;
		strcpy(ret->path, "/");
		return 0;
	}
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return n < 0 ? (errno == ENOENT ? -ESRCH : -errno) : -EINVAL;
	path[n] = '\0';
	memcpy(ret->path, path, (size_t)n + 1);
	ret->id = id;
	return 0;
}

int key_path_in_root(const struct key_root *root, const char *host_path, char *buf,
		       size_t size)
{
	const char *p = host_path;
	size_t rl = strlen(root->path), n;

	if (!host_path || host_path[0] != '/')
		return -EINVAL;
	if (root->id != 0 && rl > 1 && strncmp(host_path, root->path, rl) == 0 &&
	    (host_path[rl] == '/' || host_path[rl] == '\0'))
		p = host_path[rl] ? host_path + rl : "/";
	n = strlen(p);
	if (n + 1 > size)
		return -ENAMETOOLONG;
	memcpy(buf, p, n + 1);
	return (int)n;
}

int key_path_normalize(const char *cwd, const char *path, char *buf, size_t size)
{
	char tmp[PATH_MAX * 2];
	size_t out = 0;
	char *save = NULL, *c;

	if (!path || !path[0])
		return -EINVAL;
	if (path[0] == '/')
		snprintf(tmp, sizeof(tmp), "%s", path);
	else if (cwd && cwd[0] == '/')
		snprintf(tmp, sizeof(tmp), "%s/%s", cwd, path);
	else
		return -EINVAL;
	if (size < 2)
		return -ENAMETOOLONG;
	for (c = strtok_r(tmp, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		size_t l = strlen(c);

		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			while (out > 0 && buf[out - 1] != '/')
				out--;
			if (out > 0)
				out--;	/* the slash */
			continue;
		}
		if (out + 1 + l + 1 > size)
			return -ENAMETOOLONG;
		buf[out++] = '/';
		memcpy(buf + out, c, l);
		out += l;
	}
	if (out == 0)
		buf[out++] = '/';
	buf[out] = '\0';
	return (int)out;
}

/* Does @name (a basename) start with @prefix, followed by nothing, digits, dots or '-'? */
static bool named(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0)
		return false;
	for (name += n; *name; name++)
		if (!((*name >= '0' && *name <= '9') || *name == '.' || *name == '-'))
			return false;
	return true;
}

/*
 * How an interpreter's command line names its script. Options are skipped up to
 * the first argument that is not one, which is the script; but an option of
 * @none means the program comes from elsewhere (the command line, a module,
 * standard input) and there is no script file, and an option of @arg takes the
 * next argument as its value (so that value is not the script). Lists end in
 * NULL; a NULL list is empty.
 */
struct interp {
	const char *name;
	bool versioned;			/* "python3.11", "perl5.36": digits, dots, '-' may follow */
	const char *const *none;
	const char *const *arg;
};

#define LIST(...)	((const char *const[]){ __VA_ARGS__, NULL })

static const struct interp interps[] = {
	{ "python", true, LIST("-c", "-m"), LIST("-W", "-X", "--check-hash-based-pycs") },
	{ "pypy", true, LIST("-c", "-m"), LIST("-W", "-X") },
	{ "perl", true, LIST("-e", "-E"), LIST("-I", "-x") },
	{ "ruby", true, LIST("-e"), LIST("-r", "-I", "-C", "-E", "--encoding") },
	{ "node", true, LIST("-e", "--eval", "-p", "--print"),
	  LIST("-r", "--require", "--import", "--loader", "--experimental-loader", "-C",
	       "--conditions", "--input-type", "--title") },
	{ "nodejs", true, LIST("-e", "--eval", "-p", "--print"),
	  LIST("-r", "--require", "--import", "--loader") },
	{ "lua", true, NULL, LIST("-e", "-l") },		/* "-e STAT": a script may follow */
	{ "luajit", true, NULL, LIST("-e", "-l", "-j", "-O", "-b") },
	{ "php", true, LIST("-r", "-a", "-S", "-B", "-R", "-F", "-E"),
	  LIST("-c", "-d", "-z", "-t", "--define") },		/* "-f FILE": the script, below */
	{ "tclsh", true, NULL, LIST("-encoding") },
	{ "wish", true, NULL, LIST("-encoding", "-display", "-geometry", "-name", "-use",
				    "-visual", "-colormap") },
	{ "Rscript", false, LIST("-e"), LIST("--default-packages") },
	/* shells: "-e" is errexit (#!/bin/sh -e), "-o OPTION" takes a value */
	{ "sh", false, LIST("-c", "-s", "-i"), LIST("-o", "+o", "--rcfile", "--init-file") },
	{ "bash", false, LIST("-c", "-s", "-i"), LIST("-o", "+o", "-O", "+O", "--rcfile",
						      "--init-file") },
	{ "dash", false, LIST("-c", "-s", "-i"), LIST("-o", "+o") },
	{ "zsh", false, LIST("-c", "-s", "-i"), LIST("-o", "+o") },
	{ "ksh", false, LIST("-c", "-s", "-i"), LIST("-o", "+o") },
	{ "mksh", false, LIST("-c", "-s", "-i"), LIST("-o", "+o", "-T") },
	{ "ash", false, LIST("-c", "-s", "-i"), LIST("-o", "+o") },
};

static bool listed(const char *const *list, const char *a)
{
	for (; list && *list; list++)
		if (strcmp(*list, a) == 0)
			return true;
	return false;
}

static const struct interp *interpreter(const char *exe)
{
	const char *base = strrchr(exe, '/');

	base = base ? base + 1 : exe;
	for (size_t i = 0; i < sizeof(interps) / sizeof(interps[0]); i++)
		if (interps[i].versioned ? named(base, interps[i].name) :
		    strcmp(base, interps[i].name) == 0)
			return &interps[i];
	return NULL;
}

bool key_is_interpreter(const char *exe)
{
	return exe && interpreter(exe);
}

int key_script_arg(const char *exe, char *const argv[], int argc)
{
	const struct interp *in = exe ? interpreter(exe) : NULL;
	bool shell = in && !in->versioned && strcmp(in->name, "Rscript") != 0;

	if (!in)
		return -1;
	for (int i = 1; i < argc && argv[i]; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)	/* the script follows */
			return i + 1 < argc && argv[i + 1] && argv[i + 1][0] ? i + 1 : -1;
		if (strcmp(a, "-") == 0)	/* standard input */
			return -1;
		if (a[0] != '-' && !(shell && a[0] == '+'))
			return a[0] ? i : -1;
		if (listed(in->none, a))
			return -1;
		if (strcmp(in->name, "php") == 0 && strcmp(a, "-f") == 0)
			return i + 1 < argc && argv[i + 1] && argv[i + 1][0] ? i + 1 : -1;
		if (listed(in->arg, a))
			i++;		/* the option's value */
	}
	return -1;
}

int key_pack_name(uint64_t root_id, const char *path, char *buf, size_t size)
{
	static const char suffix[] = ".pack";
	char name[PATH_MAX * 4 + 32];
	char *esc = NULL;
	size_t n;
	int r;

	if (!path || path[0] != '/')
		return -EINVAL;
	r = key_escape_path(path, &esc);
	if (r < 0)
		return r;
	if (root_id)
		snprintf(name, sizeof(name), "@%016llx-%s", (unsigned long long)root_id, esc);
	else
		snprintf(name, sizeof(name), "%s", esc);
	free(esc);
	n = strlen(name);
	if (n + strlen(suffix) > WATCH_NAME_MAX) {
		/* keep a readable start; the digest of the whole name keeps names apart */
		uint64_t h = digest(name, n, 0xcbf29ce484222325ULL);
		size_t keep = WATCH_NAME_MAX - strlen(suffix) - 17;

		n = keep + (size_t)snprintf(name + keep, sizeof(name) - keep, "~%016llx",
					    (unsigned long long)h);
	}
	if (n + sizeof(suffix) > size)
		return -ENAMETOOLONG;
	memcpy(buf, name, n);
	memcpy(buf + n, suffix, sizeof(suffix));
	return (int)(n + strlen(suffix));
}

int key_file_of(pid_t pid, const char *what, struct key_file *ret)
{
	char link[64];
	struct statx stx;

	snprintf(link, sizeof(link), "/proc/%d/%s", (int)pid, what);
	if (statx(AT_FDCWD, link, AT_STATX_DONT_SYNC, STATX_INO | STATX_UID | STATX_MODE, &stx) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	*ret = (struct key_file){ .dev = makedev(stx.stx_dev_major, stx.stx_dev_minor),
				    .ino = stx.stx_ino, .uid = stx.stx_uid, .mode = stx.stx_mode };
	return 0;
}

bool key_interpreter_trusted(const struct key_file *interp)
{
	return interp && interp->uid == 0 && !(interp->mode & (S_IWGRP | S_IWOTH));
}

/* Does process @pid see the daemon's mounts (the same mount namespace)? */
static int same_mounts(pid_t pid)
{
	char link[64];
	struct stat own, its;

	snprintf(link, sizeof(link), "/proc/%d/ns/mnt", (int)pid);
	if (stat("/proc/self/ns/mnt", &own) < 0)
		return -errno;
	if (stat(link, &its) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return own.st_dev == its.st_dev && own.st_ino == its.st_ino;
}

int key_trusted(pid_t pid, const struct key_root *root, const char *path,
		      const struct key_file *file, const struct mount_table *mounts)
{
	struct mount_table own = { 0 };
	struct statx stx;
	int fd, r;

	if (root->id != 0)
		return 0;
	r = same_mounts(pid);
	if (r != 0)
		return r < 0 ? r : 0;
	if (!file)
		return -EPERM;
	if (!mounts) {
		r = mountinfo_read("/proc/self/mountinfo", &own);
		if (r < 0)
			return r;
		mounts = &own;
	}
	r = mountinfo_on_fuse(mounts, path) ? -EPERM : 0;
	mountinfo_free(&own);
	if (r < 0)
		return r;
	/*
	 * The path is this process's name of the exec'd file (/proc/self/fd): it
	 * has no symlink. One found on the way was put there since, by a user who
	 * can rename in a directory of it, maybe to lead the walk into a FUSE mount
	 * whose server never answers: refused, not followed.
	 */
	fd = safeopen_openat2(AT_FDCWD, path, O_PATH | O_NOFOLLOW | O_CLOEXEC,
			      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0)
		return -EPERM;
	r = statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_INO, &stx);
	close(fd);
	if (r < 0)
		return -EPERM;
	if (makedev(stx.stx_dev_major, stx.stx_dev_minor) != file->dev || stx.stx_ino != file->ino)
		return -EPERM;
	return 0;
}
