// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An exec seen by the learning daemon -> the program it starts, named as the
 * exec daemon names it (key.h): the root of the process, and in it the
 * executable the kernel ran or the script it runs. Only /proc/PID is read.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "key-exec.h"
#include "learn-exec.h"
#include "sys-proc.h"

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int program_of(pid_t pid, const char *filename, const struct key_self *self,
		      const struct mount_table *mounts, struct exec_program *ret)
{
	struct exec_program p;
	struct key_file exe;
	char host[PATH_MAX], args[KEY_EXEC_CMDLINE_MAX + 1], *argv[KEY_EXEC_ARGS_MAX + 1];
	bool by_kernel = false;
	int k = -1, r;
	size_t hl;
	long len;

	p.check_script = false;
	r = key_root_of(pid, self, &p.root);
	if (r < 0)
		return r;
	if (!key_root_by_root(pid, self, &p.root))
		return -EPERM;	/* a user's own chroot: keys without end, theirs to make up */
	r = proc_readlink(pid, "exe", host, sizeof(host));
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
	    key_exec_is_interpreter(p.exe)) {
		len = proc_read(pid, "cmdline", args, sizeof(args));
		if (len < 0)
			return (int)len;
		k = key_exec_script_of(p.exe, filename,
				       argv, key_exec_args(args, (size_t)len, argv, KEY_EXEC_ARGS_MAX),
				       &by_kernel);
	}
	/*
	 * A script named by argv only from root's own interpreter (a user's program
	 * named python3 could name any program); the exec's own file name (a "#!"
	 * script) is the kernel's. In another mount namespace a user may bind-mount
	 * a file of theirs over a system path: the key is believed only when that
	 * path is, in the daemon's mounts, the very file the process runs (a
	 * script's cannot be told).
	 */
	/*
	 * An interpreter given no script ("sh -c CMD", "python3 -c", "perl -e", a
	 * shell reading its input) runs what its command line says: its runs have
	 * nothing in common but the interpreter, and any user could fill its pack
	 * (sixteen runs of "sh -c 'cat LARGE'" made root's next "sh -c true"
	 * replay 490 MB). Not a program to learn; its commands are, at their exec.
	 */
	if (k < 0 && key_exec_is_interpreter(p.exe))
		return -ENOEXEC;
	if (k >= 0) {
		r = key_exec_script_key(pid, &p.root, argv[k], !by_kernel, mounts, p.path,
					sizeof(p.path));
		/* believed in the daemon's root only where the process sees its mounts (key_trusted()) */
		p.check_script = r >= 0 && !by_kernel && p.root.id == 0;
	} else {
		memcpy(p.path, p.exe, strlen(p.exe) + 1);
		r = key_file_of(pid, "exe", &exe);
		if (r == 0)
			r = key_trusted(pid, &p.root, p.path, &exe, mounts);
	}
	if (r < 0)
		return r;
	/*
	 * Last: the key is known (a script's shell may exec its last command any
	 * moment); an exec again keeps the uid. Gone by now: a share of its own.
	 */
	if (proc_uid(pid, &p.uid) < 0)
		p.uid = (uid_t)-1;
	*ret = p;
	return 0;
}

int exec_program_of(pid_t pid, const char *filename, const struct key_self *self,
		    const struct mount_table *mounts, struct exec_program *ret)
{
	int r;

	proc_hold(pid);		/* a dozen lookups of one process's entries */
	r = program_of(pid, filename, self, mounts, ret);
	proc_hold(0);
	return r;
}
