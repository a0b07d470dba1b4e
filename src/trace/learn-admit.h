/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The learning daemon's admission: which exec gets a learning window, and why not */
#ifndef URA_LEARN_ADMIT_H
#define URA_LEARN_ADMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "learn-exec.h"

struct learn_windows;
struct programs;

#define MAX_WINDOWS		64		/* programs in their windows at once */
#define MAX_PER_PROGRAM		16		/* runs of one program in their windows at once */
/* windows of one user's programs at once: a user who floods execs leaves room for others */
#define MAX_PER_USER		(MAX_WINDOWS / 2)

/* What admit_exec() says of an exec, in the order it looks. */
enum admit_verdict {
	ADMIT_OPEN,		/* learn it: open its window */
	ADMIT_NO_SCRIPT,	/* an interpreter given no script (sh -c CMD): no program to learn */
	ADMIT_GONE,		/* its program could not be named (exec_seen.err: gone, deleted, not believed) */
	ADMIT_NOT_WANTED,	/* not one of --only */
	ADMIT_AGAIN,		/* the program of the window its task is in, exec'd again
				 * ("#!/usr/bin/env python3" runs the script twice) */
	ADMIT_PRIVATE,		/* run from a user's or a temporary tree (learn-private.h) */
	ADMIT_PROGRAM_BUSY,	/* MAX_PER_PROGRAM runs of it are in their windows */
	ADMIT_USER_BUSY,	/* its user has MAX_PER_USER windows open */
	ADMIT_NO_NAME,		/* its key makes no pack name (key_pack_name()) */
	ADMIT_LEARNED_LATELY,	/* its budget of runs is spent (learn-programs.h) */
	ADMIT_USER_NEW,		/* its user started USER_NEW_BURST new programs lately */
};

/*
 * The learner's state the rules read, and what they ask of the system: the
 * callbacks are the loop's (learn-run.c: its view of the system, its cache of
 * answers about directories) or a test's, so that the rules themselves look
 * at nothing but what they are given.
 */
struct admit {
	const char *const *only;	/* --only as given, @nonly of them (none: every program) */
	const char *const *only_real;	/* ... and canonical (realpath(), else as given) */
	size_t nonly;
	bool include_user_files;	/* --include-user-files: @program_private is not asked */
	const struct learn_windows *ws;	/* the windows open */
	struct programs *programs;	/* each program's budget: a window opened takes a run */
	/*
	 * Is the program run from a user's or a temporary tree (learn-private.h), as
	 * seen at @now_ns? Asked once the rules before it let the exec through.
	 */
	bool (*program_private)(void *ctx, const struct exec_program *prog, uint64_t now_ns);
	/*
	 * Is the file name @name (absolute, in the daemon's own root) a user's
	 * (private_path()), or can that not be told?
	 */
	bool (*name_private)(void *ctx, const char *name);
	/*
	 * What each of @paths (absolute, in the daemon's own root) leads to, through
	 * no magic link, in @ret (st_dev, st_ino): 0, or the first failure's -errno
	 * (the paths after it not looked up). admit_stat_paths() looks.
	 */
	int (*stat_paths)(void *ctx, const char *const *paths, size_t n, struct stat *ret);
	void *ctx;
};

/**
 * admit_exec() - may exec @x, read at @now_ns (CLOCK_MONOTONIC), open a learning window?
 * @ret_wait_ns: for ADMIT_LEARNED_LATELY and ADMIT_USER_NEW, how long until a run of it
 *	would be learned (programs_start())
 *
 * The rules, in this order: its program named (else ADMIT_NO_SCRIPT, ADMIT_GONE); one of
 * --only, by its key or its executable, as given or canonical; not the program its task's
 * window is for, exec'd again; not a user's (unless --include-user-files); fewer than
 * MAX_PER_PROGRAM runs of it and MAX_PER_USER windows of its user open; a pack name; and
 * a run of its budget (programs_start(), which takes it), or of the burst its pack gave up
 * when it settled after this exec (programs_settled_after(): a copy started with the runs
 * that settled it). Of what @a holds only the programs' budgets change (and what its
 * callbacks keep). The caller opens the window: one that cannot open (all MAX_WINDOWS
 * open) has spent its run nonetheless.
 * Return: ADMIT_OPEN, or why not.
 */
enum admit_verdict admit_exec(const struct admit *a, const struct exec_seen *x,
			      uint64_t now_ns, uint64_t *ret_wait_ns);

/**
 * admit_quiet_name() - may the exec's file name @name be left out of the exec events
 * while @prog's budget is spent (learn-quiet.h)?
 *
 * Only if every exec of that name, in the daemon's own root, runs that program whatever
 * its arguments, and no user decides what it names:
 * - the program is a file run (its key is the executable, not an interpreter's:
 *   "python3 A" and "python3 B" share a name and not a program), or a script
 *   the kernel was given by that name (its key's file is not the executable);
 * - the name is the key's very path, or another name of the key's file
 *   ("/bin/true" on a merged /usr) with no directory on its way a user's
 *   (learn-private.h: a user's link names what they choose later; the look
 *   stops at a user's directory, so no lookup enters a user's FUSE mount), not
 *   in /proc or /dev, that resolves through no magic link (/dev/fd/N,
 *   /proc/self/exe) to that file.
 * "python3 /usr/bin/python3" (the argv's script, the interpreter itself) is neither.
 * With --include-user-files no directory is known not to be a user's: only a file run's
 * own key path is left out.
 */
bool admit_quiet_name(const struct admit *a, const char *name, const struct exec_program *prog);

/**
 * admit_stat_paths() - struct admit.stat_paths as the daemon answers it: each path opened
 * O_PATH from "/" with RESOLVE_NO_MAGICLINKS (safeopen_openat2()) and fstat()ed, in turn
 * @ctx: not used
 *
 * Return: 0, or the first failure's -errno (-ENOSYS for every path where openat2 is missing:
 * then no other name than a file's key path is left out).
 */
int admit_stat_paths(void *ctx, const char *const *paths, size_t n, struct stat *ret);

#endif
