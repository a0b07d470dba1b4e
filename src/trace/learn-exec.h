/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An exec seen by the learning daemon -> the program it starts: its key (key.h) */
#ifndef URA_LEARN_EXEC_H
#define URA_LEARN_EXEC_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "key.h"

/* The program an exec started, as both daemons name it. */
struct exec_program {
	struct key_root root;		/* the root the process runs in */
	char path[PATH_MAX];		/* the program's path inside that root: the key */
	char exe[PATH_MAX];		/* the executable's path inside that root (the interpreter
					 * of a script) */
	bool check_script;		/* a script named by the interpreter's argv, in the
					 * daemon's own root and mounts: to be checked
					 * (key_exec_script_check()) once the run is over */
	uid_t uid;			/* the real uid of the process: its user's share of
					 * learning (a setuid program counts for who ran it);
					 * (uid_t)-1 when it could not be read */
};

/*
 * An exec the learning daemon read: what it started, looked up in /proc as soon
 * as its record is read (a short-lived program is gone a few milliseconds
 * after its exec).
 */
struct exec_seen {
	int pid;
	uint64_t ts;			/* of the exec, CLOCK_MONOTONIC (the trace's clock) */
	int err;			/* of exec_program_of(): 0 when @prog is known */
	struct exec_program prog;
	char filename[];		/* as exec'd */
};

/**
 * exec_program_of() - the program task @pid started with its exec of @filename (as the
 * sched_process_exec event gives it)
 * @self: the daemon's own root (key_self_read())
 * @mounts: the daemon's mounts (its view, kept current by the caller), for the checks
 *	of a process in another mount namespace; NULL reads them each time
 *
 * The key is the root of the process and, inside it:
 * - for a "#!" script (@filename is the script, /proc/PID/exe its
 *   interpreter), the script's path, made absolute against the process's
 *   working directory and normalised lexically;
 * - for an interpreter given a script ("python3 app.py": key_exec_script_arg()
 *   on /proc/PID/cmdline), that script's path, likewise;
 * - otherwise the executable as the kernel names it (/proc/PID/exe: symlinks
 *   resolved), so an exec through a symlink of another name is the same program;
 *   but an interpreter given no script ("sh -c CMD") is no program to learn.
 * Only /proc/PID links and files are read, never a path of the process's own.
 *
 * Return: 0, -ESRCH (the process is gone, or has exec'd again), -ENOENT (its
 * executable was deleted), -ENOEXEC (an interpreter without a script),
 * -ENAMETOOLONG, other -errno.
 */
int exec_program_of(pid_t pid, const char *filename, const struct key_self *self,
		    const struct mount_table *mounts, struct exec_program *ret);

#endif
