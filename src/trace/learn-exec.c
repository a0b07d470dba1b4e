// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An exec seen by the learning daemon -> the program it starts, named as the
 * exec daemon names it (key.h): the root of the process, and in it the
 * executable the kernel ran or the script it runs. Only /proc/PID is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn-exec.h"

#define MAX_ARGS	64	/* arguments looked at for the script */

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Does key_script_arg() take @exe for an interpreter? (It gives the script of one.) */
static bool is_interpreter(const char *exe)
{
	char *probe[] = { (char *)exe, (char *)"script", NULL };

	return key_script_arg(exe, probe, 2) == 1;
}

const char *exec_script_of(const char *exe, const char *filename, const char *args, size_t len)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0, i;

	for (size_t off = 0; off < len && argc < MAX_ARGS;) {
		size_t n = strnlen(args + off, len - off);

		if (off + n == len)
			break;	/* not NUL-terminated: cut short */
		argv[argc++] = (char *)args + off;
		off += n + 1;
	}
	argv[argc] = NULL;
	/*
	 * A "#!" script: the kernel runs "INTERPRETER [ARG] SCRIPT ...", SCRIPT the path
	 * exec'd as given, and /proc/PID/exe is the interpreter, of another name.
	 */
	if (filename[0] && strcmp(base_of(filename), base_of(exe)) != 0)
		for (i = 1; i <= 2 && i < argc; i++)
			if (strcmp(argv[i], filename) == 0)
				return filename;
	if (!is_interpreter(exe))
		return NULL;
	i = key_script_arg(exe, argv, argc);
	return i > 0 ? argv[i] : NULL;
}

/* readlink() of /proc/PID/@what into @buf; 0, -ESRCH or -ENAMETOOLONG. */
static int proc_link(pid_t pid, const char *what, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/%s", (int)pid, what);
	n = readlink(link, buf, size);
	if (n < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

/* /proc/PID/cmdline into @buf; its length, or -errno. */
static long proc_cmdline(pid_t pid, char *buf, size_t size)
{
	char file[64];
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "/proc/%d/cmdline", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, size);
	close(fd);
	return n < 0 ? -errno : (long)n;
}

/* The real uid of @pid (/proc/PID/status); 0 or -errno (-ESRCH: gone). */
static int proc_uid(pid_t pid, uid_t *ret)
{
	char file[64], buf[2048], *p;
	unsigned long uid;
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "/proc/%d/status", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p + 5, "%lu", &uid) != 1)
		return -EBADMSG;
	*ret = (uid_t)uid;
	return 0;
}

int exec_program_of(pid_t pid, const char *filename, const struct key_self *self,
		    struct exec_program *ret)
{
	struct exec_program p;
	char host[PATH_MAX], args[4096];
	const char *script = NULL;
	size_t hl;
	long len;
	int r;

	r = key_root_of(pid, self, &p.root);
	if (r < 0)
		return r;
	if (!key_root_by_root(pid, self, &p.root))
		return -EPERM;	/* a user's own chroot: keys without end, theirs to make up */
	r = proc_link(pid, "exe", host, sizeof(host));
	if (r < 0)
		return r;
	hl = strlen(host);
	if (hl > 10 && strcmp(host + hl - 10, " (deleted)") == 0)
		return -ENOENT;	/* replaced or removed since: no program to name */
	r = key_path_in_root(&p.root, host, p.exe, sizeof(p.exe));
	if (r < 0)
		return r;
	/* the command line only when it may name a script: another name, or an interpreter */
	if ((filename[0] && strcmp(base_of(filename), base_of(p.exe)) != 0) ||
	    is_interpreter(p.exe)) {
		len = proc_cmdline(pid, args, sizeof(args));
		if (len < 0)
			return (int)len;
		script = exec_script_of(p.exe, filename, args, (size_t)len);
	}
	/*
	 * A script named by argv only from root's own interpreter (a user's program
	 * named python3 could name any program); the exec's own file name (a "#!"
	 * script) is the kernel's.
	 */
	if (script && script != filename) {
		struct key_file interp;

		if (key_file_of(pid, "exe", &interp) < 0 || !key_interpreter_trusted(&interp))
			return -EPERM;
	}
	if (script) {
		char cwd[PATH_MAX] = "/";

		if (script[0] != '/') {
			r = proc_link(pid, "cwd", host, sizeof(host));
			if (r == 0)
				r = key_path_in_root(&p.root, host, cwd, sizeof(cwd));
			if (r < 0)
				return r;
		}
		r = key_path_normalize(cwd, script, p.path, sizeof(p.path));
	} else {
		r = (int)strlen(p.exe);
		memcpy(p.path, p.exe, (size_t)r + 1);
	}
	if (r < 0)
		return r;
	/*
	 * In another mount namespace a user may bind-mount a file of theirs over a
	 * system path: the key is believed only when that path is, in the daemon's
	 * mounts, the very file the process runs (a script's cannot be told).
	 */
	{
		struct key_file exe;

		r = key_file_of(pid, "exe", &exe);
		if (r < 0)
			return r;
		r = key_trusted(pid, &p.root, p.path, script ? NULL : &exe, NULL);
		if (r < 0)
			return r;
	}
	/*
	 * Last: the key is known (a script's shell may exec its last command any
	 * moment); an exec again keeps the uid. Gone by now: a share of its own.
	 */
	if (proc_uid(pid, &p.uid) < 0)
		p.uid = (uid_t)-1;
	*ret = p;
	return 0;
}
