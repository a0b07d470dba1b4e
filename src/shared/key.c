// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program's key, shared by the learning daemon (ura-trace --watch) and the
 * exec daemon (ura-replay --watch): the identity of the root the process runs
 * in, and the program's path inside that root; and the pack file name made of
 * the two. Why this key: key.h and ura-replay(8).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sys-mountinfo.h"
#include "sys-proc.h"
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
	struct statx stx;

	if (root->id == 0)
		return true;
	return self->userns && proc_statx(pid, "ns/user", STATX_INO, &stx) == 0 &&
	       stx.stx_ino == self->userns;
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
	char path[PATH_MAX];
	struct statx stx;
	uint64_t id;
	int r;

	/*
	 * AT_STATX_DONT_SYNC (proc_statx()): the root may be on a FUSE filesystem (a
	 * user's namespace), whose server would be asked for the attributes and might
	 * never answer; device and inode numbers need no asking.
	 */
	r = proc_statx(pid, "root", STATX_INO, &stx);
	if (r < 0)
		return r;
	id = key_root_id(self, makedev(stx.stx_dev_major, stx.stx_dev_minor), stx.stx_ino);
	if (id == 0) {
		ret->id = 0;
		strcpy(ret->path, "/");
		return 0;
	}
	r = proc_readlink(pid, "root", path, sizeof(path));
	if (r < 0)
		return r;
	if (!path[0])
		return -EINVAL;
	memcpy(ret->path, path, strlen(path) + 1);
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

int key_pack_path(const char *name, uint64_t *ret_root_id, char *buf, size_t size)
{
	static const char suffix[] = ".pack";
	size_t n = strlen(name), sl = strlen(suffix), skip = 0;
	unsigned long long id = 0;
	char again[NAME_MAX + 1];
	int r;

	if (n <= sl || strcmp(name + n - sl, suffix) != 0)
		return -EINVAL;
	if (name[0] == '@') {	/* "@<16 hex digits>-": another root's */
		if (n < 18 + sl || name[17] != '-' ||
		    strspn(name + 1, "0123456789abcdef") != 16 || sscanf(name + 1, "%16llx", &id) != 1)
			return -EINVAL;
		skip = 18;
	}
	r = key_unescape_path(name + skip, n - sl - skip, buf, size);
	if (r < 0)
		return r;
	/* a name cut short and ended by a digest, or one the escape would write otherwise */
	if (key_pack_name(id, buf, again, sizeof(again)) < 0 || strcmp(again, name) != 0)
		return -EINVAL;
	*ret_root_id = id;
	return r;
}

int key_file_of(pid_t pid, const char *what, struct key_file *ret)
{
	struct statx stx;
	int r;

	r = proc_statx(pid, what, STATX_INO | STATX_UID | STATX_MODE, &stx);
	if (r < 0)
		return r;
	*ret = (struct key_file){ .dev = makedev(stx.stx_dev_major, stx.stx_dev_minor),
				    .ino = stx.stx_ino, .uid = stx.stx_uid, .mode = stx.stx_mode };
	return 0;
}

bool key_interpreter_trusted(const struct key_file *interp)
{
	return interp && interp->uid == 0 && !(interp->mode & (S_IWGRP | S_IWOTH));
}

int key_same_mounts(pid_t pid)
{
	struct stat own;
	struct statx its;
	int r;

	if (stat("/proc/self/ns/mnt", &own) < 0)
		return -errno;
	r = proc_statx(pid, "ns/mnt", STATX_INO, &its);
	if (r < 0)
		return r;
	return own.st_dev == makedev(its.stx_dev_major, its.stx_dev_minor) &&
	       own.st_ino == its.stx_ino;
}

/*
 * @path, in the daemon's own mounts, as an O_PATH descriptor. It is a process's
 * name of a file, with no symlink (/proc/PID/exe) or one its command line gave:
 * a symlink found on the way was put there since, or by a user, maybe to lead
 * the walk into a FUSE mount whose server never answers: refused, not followed.
 * Each mount the walk enters must be one of the daemon's table, not FUSE: a
 * user who renames a directory above their FUSE mount moves it where the table
 * does not say (a rename changes no mount), so the path's own look at the table
 * is not enough. Return: the descriptor, -ELOOP (a symlink on the way), or -EPERM.
 */
static int open_own(const char *path, const struct mount_table *mounts)
{
	struct mount_table own = { 0 };
	int fd, root_fd;

	if (!mounts) {
		int r = mountinfo_read("/proc/self/mountinfo", &own);

		if (r < 0)
			return r;
		mounts = &own;
	}
	if (path[0] != '/' || mountinfo_on_fuse(mounts, path)) {
		mountinfo_free(&own);
		return -EPERM;
	}
	root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	fd = root_fd < 0 ? -1 :
	     safeopen_walk_mounts(root_fd, path + 1, O_PATH, mountinfo_walk_ok, (void *)mounts);
	if (root_fd >= 0)
		close(root_fd);
	mountinfo_free(&own);
	return fd == -ELOOP ? fd : fd < 0 ? -EPERM : fd;
}

int key_trusted(pid_t pid, const struct key_root *root, const char *path,
		      const struct key_file *file, const struct mount_table *mounts)
{
	struct statx stx;
	int fd, r;

	if (root->id != 0)
		return 0;
	r = key_same_mounts(pid);
	if (r != 0)
		return r < 0 ? r : 0;
	if (!file)
		return -EPERM;
	fd = open_own(path, mounts);
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

/*
 * Is @fd on a filesystem of the kernel's own (proc, sysfs, tracefs...)? Its
 * links are a process's, whatever their owner says (/proc/PID/cwd of a process
 * made undumpable is root's), and opening one of its files may do anything
 * (tracefs's trace pauses tracing while open): no script is there.
 */
static bool on_kernel_fs(int fd)
{
	static const long kernel[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, TRACEFS_MAGIC, DEBUGFS_MAGIC, SECURITYFS_MAGIC,
		CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC, EFIVARFS_MAGIC,
		PSTOREFS_MAGIC, DEVPTS_SUPER_MAGIC, BINFMTFS_MAGIC, SELINUX_MAGIC, SMACK_MAGIC,
		0x62656570 /* configfs */, 0x65735543 /* fusectl */,
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return true;
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++)
		if ((long)sf.f_type == kernel[i])
			return true;
	return false;
}

/*
 * @path (clean, absolute, @size bytes) with its first symlink replaced by the
 * link's target, when root owns the link (a user's could lead anywhere), made
 * clean again. Return: 0, or -EPERM.
 */
static int follow_first_link(char *path, size_t size, const struct mount_table *mounts)
{
	char parent[PATH_MAX], target[PATH_MAX], joined[3 * PATH_MAX];
	char *c = path + 1, *slash, *name;
	struct statx stx;
	ssize_t n;
	int fd;

	for (;; c = slash + 1) {
		slash = strchr(c, '/');
		if (slash)
			*slash = '\0';
		fd = open_own(path, mounts);
		if (fd == -ELOOP)
			break;		/* @path, cut here, is the link */
		if (slash)
			*slash = '/';
		if (fd < 0)
			return -EPERM;
		close(fd);
		if (!slash)
			return -EPERM;
	}
	name = strrchr(path, '/');
	if ((size_t)(name - path) >= sizeof(parent))
		return -EPERM;
	memcpy(parent, path, (size_t)(name - path));
	parent[name - path] = '\0';
	fd = open_own(parent[0] ? parent : "/", mounts);
	if (fd < 0)
		return -EPERM;
	n = -1;
	if (!on_kernel_fs(fd) &&
	    statx(fd, name + 1, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_UID,
		  &stx) == 0 && S_ISLNK(stx.stx_mode) && stx.stx_uid == 0)
		n = readlinkat(fd, name + 1, target, sizeof(target) - 1);
	close(fd);
	if (n <= 0)
		return -EPERM;
	target[n] = '\0';
	if (snprintf(joined, sizeof(joined), "%s%s%s", target, slash ? "/" : "",
		     slash ? slash + 1 : "") >= (int)sizeof(joined))
		return -EPERM;
	return key_path_normalize(parent[0] ? parent : "/", joined, path, size) < 0 ? -EPERM : 0;
}

int key_open_own(const char *path, const struct mount_table *mounts)
{
	char cur[PATH_MAX];
	struct stat st;
	int pfd, fd;

	if (strlen(path) >= sizeof(cur))
		return -ENAMETOOLONG;
	memcpy(cur, path, strlen(path) + 1);
	/* a root-owned symlink on the way (merged /usr's /bin, a release's "current") is followed */
	for (int hops = 0; (pfd = open_own(cur, mounts)) == -ELOOP; hops++)
		if (hops == 8 || follow_first_link(cur, sizeof(cur), mounts) < 0)
			return -EPERM;
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode) || on_kernel_fs(pfd)) {
		close(pfd);
		return -EPERM;
	}
	fd = safeopen_reopen(pfd, O_RDONLY | O_NONBLOCK | O_NOATIME);
	close(pfd);
	return fd;
}
