// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The learning daemon's admission: which exec gets a learning window. The
 * rules look only at the exec's facts (read from /proc when its record was
 * read), the windows open and the programs' budgets; what they ask of the
 * filesystem (is a tree a user's, which file a name leads to) goes through
 * callbacks of struct admit. The loop (learn-run.c) counts and tells each
 * refusal, and opens the window.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "key-exec.h"
#include "key.h"
#include "learn-admit.h"
#include "learn-programs.h"
#include "learn-windows.h"
#include "sys-safeopen.h"

/* Is the program one of --only (by its key, its executable, or the file --only names)? */
static bool wanted(const struct admit *a, const struct exec_program *p)
{
	if (!a->nonly)
		return true;
	for (size_t i = 0; i < a->nonly; i++)
		if (strcmp(p->path, a->only[i]) == 0 || strcmp(p->path, a->only_real[i]) == 0 ||
		    strcmp(p->exe, a->only[i]) == 0 || strcmp(p->exe, a->only_real[i]) == 0)
			return true;
	return false;
}

enum admit_verdict admit_exec(const struct admit *a, const struct exec_seen *x,
			      uint64_t now_ns, uint64_t *ret_wait_ns)
{
	const struct exec_program *prog = &x->prog;
	const struct learn_window *outer;
	char name[NAME_MAX + 1];

	if (x->err == -ENOEXEC)
		return ADMIT_NO_SCRIPT;
	if (x->err < 0)
		return ADMIT_GONE;
	if (!wanted(a, prog))
		return ADMIT_NOT_WANTED;
	/* a program that execs itself again ("#!/usr/bin/env python3" runs the script twice) */
	outer = windows_task_window(a->ws, x->pid);
	if (outer && outer->root_id == prog->root.id && strcmp(outer->exe, prog->path) == 0)
		return ADMIT_AGAIN;
	if (!a->include_user_files && a->program_private(a->ctx, prog, now_ns))
		return ADMIT_PRIVATE;
	if (windows_count_exe(a->ws, prog->root.id, prog->path) >= MAX_PER_PROGRAM)
		return ADMIT_PROGRAM_BUSY;
	if (windows_count_uid(a->ws, prog->uid) >= MAX_PER_USER)
		return ADMIT_USER_BUSY;
	if (key_pack_name(prog->root.id, prog->path, name, sizeof(name)) < 0)
		return ADMIT_NO_NAME;
	switch (programs_start(a->programs, name, (unsigned)prog->uid, now_ns, ret_wait_ns)) {
	case PROGRAMS_YES:
		break;
	case PROGRAMS_LEARNED_LATELY:
		/* a copy started with the runs that settled it (a parallel build): learned too */
		if (programs_settled_after(a->programs, name, x->ts))
			break;
		return ADMIT_LEARNED_LATELY;
	case PROGRAMS_USER_NEW:
		return ADMIT_USER_NEW;
	}
	return ADMIT_OPEN;
}

bool admit_quiet_name(const struct admit *a, const char *name, const struct exec_program *prog)
{
	bool script = strcmp(prog->path, prog->exe) != 0;
	/* the key's file, the name's, and for a script the executable's */
	const char *paths[3] = { prog->path, name, prog->exe };
	struct stat st[3];

	if (prog->root.id != 0 || (!script && key_exec_is_interpreter(prog->exe)))
		return false;
	if (!script && strcmp(name, prog->path) == 0)
		return true;
	if (name[0] != '/' || strncmp(name, "/proc/", 6) == 0 || strncmp(name, "/dev/", 5) == 0 ||
	    a->include_user_files ||
	    (strcmp(name, prog->path) != 0 && a->name_private(a->ctx, name)))
		return false;
	/* zeroed: the analyzers cannot tell which a failed lookup left unwritten */
	memset(st, 0, sizeof(st));
	if (a->stat_paths(a->ctx, paths, script ? 3 : 2, st) < 0 ||
	    st[0].st_dev != st[1].st_dev || st[0].st_ino != st[1].st_ino)
		return false;
	return !script || st[0].st_dev != st[2].st_dev || st[0].st_ino != st[2].st_ino;
}

/* The inode @path (absolute, in the daemon's root) leads to through no magic link; 0 or -errno. */
static int inode_of(int root, const char *path, struct stat *ret)
{
	int fd = safeopen_openat2(root, path + 1, O_PATH | O_CLOEXEC, RESOLVE_NO_MAGICLINKS);
	int r = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, ret) < 0)
		r = -errno;
	close(fd);
	return r;
}

int admit_stat_paths(void *ctx, const char *const *paths, size_t n, struct stat *ret)
{
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (root < 0)
		return -errno;
	for (size_t i = 0; i < n && r == 0; i++)
		r = inode_of(root, paths[i], &ret[i]);
	close(root);
	return r;
}
