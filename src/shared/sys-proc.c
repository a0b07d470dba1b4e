// SPDX-License-Identifier: GPL-2.0-or-later
/* A process's entries in /proc: its links, its small files, its uid and parent; a sysctl */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys-proc.h"

/* the process held by this thread (proc_hold()): its /proc/PID directory, open */
static __thread pid_t held_pid;
static __thread int held_fd = -1;

void proc_hold(pid_t pid)
{
	if (held_fd >= 0)
		close(held_fd);
	held_fd = -1;
	held_pid = 0;
	if (pid > 0) {
		char dir[32];

		snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
		held_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (held_fd >= 0)
			held_pid = pid;
	}
}

/*
 * /proc/@pid/@what into @buf (64 bytes hold any pid and the entries named
 * here), relative to *@dirfd: the held directory when @pid is held.
 */
static const char *entry(pid_t pid, const char *what, char buf[static 64], int *dirfd)
{
	if (held_fd >= 0 && pid == held_pid) {
		*dirfd = held_fd;
		return what;
	}
	*dirfd = AT_FDCWD;
	snprintf(buf, 64, "/proc/%d/%s", (int)pid, what);
	return buf;
}

static int gone(int err)
{
	return err == ENOENT ? -ESRCH : -err;
}

int proc_readlink(pid_t pid, const char *what, char *buf, size_t size)
{
	char link[64];
	ssize_t n;
	int dir;
	const char *path = entry(pid, what, link, &dir);

	n = readlinkat(dir, path, buf, size);
	if (n < 0)
		return gone(errno);
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

long proc_read(pid_t pid, const char *what, char *buf, size_t size)
{
	char file[64];
	ssize_t n;
	int fd, dir;
	const char *path = entry(pid, what, file, &dir);

	if (size == 0)
		return -EINVAL;
	fd = openat(dir, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return gone(errno);
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return gone((int)-n);
	buf[n] = '\0';
	return (long)n;
}

int proc_statx(pid_t pid, const char *what, unsigned int mask, struct statx *ret)
{
	char link[64];
	int dir;
	const char *path = entry(pid, what, link, &dir);

	if (statx(dir, path, AT_STATX_DONT_SYNC, mask, ret) < 0)
		return gone(errno);
	return 0;
}

int proc_uid(pid_t pid, uid_t *ret)
{
	char buf[2048], *p;
	unsigned long uid;
	long n = proc_read(pid, "status", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p + 5, "%lu", &uid) != 1)
		return -EBADMSG;
	*ret = (uid_t)uid;
	return 0;
}

int proc_parent_start(pid_t pid, pid_t *ret_parent, uint64_t *ret_start)
{
	char buf[1024], *p;
	unsigned long long start;
	long n = proc_read(pid, "stat", buf, sizeof(buf));
	int ppid;

	if (n <= 0)
		return n < 0 ? (int)n : -EBADMSG;
	p = strrchr(buf, ')');	/* the name may hold anything */
	/* after the name: state, ppid (4), then fields 5 to 21, then starttime (22) */
	if (!p || sscanf(p + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &ppid, &start) != 2)
		return -EBADMSG;
	*ret_parent = ppid;
	*ret_start = start;
	return 0;
}

pid_t proc_parent(pid_t pid)
{
	uint64_t start;
	pid_t ppid;

	return proc_parent_start(pid, &ppid, &start) < 0 ? -1 : ppid;
}

int proc_started(pid_t pid, unsigned *ret_threads, bool *ret_reaped)
{
	char buf[1024], *p;
	unsigned long long cminflt, cmajflt;
	long n = proc_read(pid, "stat", buf, sizeof(buf)), threads;

	if (n <= 0)
		return n < 0 ? (int)n : -EBADMSG;
	p = strrchr(buf, ')');
	/* after the name: state (3), ..., cminflt (11), cmajflt (13), ..., num_threads (20) */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %llu %*u %llu %*u %*u %*d %*d "
			 "%*d %*d %ld", &cminflt, &cmajflt, &threads) != 3 || threads < 1)
		return -EBADMSG;
	*ret_threads = (unsigned)threads;
	*ret_reaped = cminflt || cmajflt;
	return 0;
}

long proc_children(pid_t pid, int *ret, size_t max)
{
	char what[48], buf[1024] = "";
	size_t n = 0;
	long len;

	snprintf(what, sizeof(what), "task/%d/children", (int)pid);
	len = proc_read(pid, what, buf, sizeof(buf));
	if (len < 0)
		return len;
	for (char *p = buf, *end; n < max && *p; p = end) {
		long child = strtol(p, &end, 10);

		if (end == p)
			break;
		if (child > 0 && child <= INT_MAX)
			ret[n++] = (int)child;
	}
	return (long)n;
}

long proc_sys_int(const char *name)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}
