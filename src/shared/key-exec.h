/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What an exec runs, as both daemons name it: the interpreter table, the script of a command line */
#ifndef URA_KEY_EXEC_H
#define URA_KEY_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "key.h"

/* What both daemons look at of a command line: its first bytes, its first arguments. */
#define KEY_EXEC_CMDLINE_MAX	8192
#define KEY_EXEC_ARGS_MAX	64

/*
 * The learning daemon sees an exec once it has completed (sched_process_exec),
 * the exec daemon while it is under way (fanotify) and again once it has
 * completed; both name a script's program with these, so that a pack learned
 * by one is the pack the other replays.
 */

/**
 * key_exec_script_arg() - the script an interpreter runs, from its argv
 *
 * For an interpreter (python*, pypy*, perl*, ruby*, node*, lua*, luajit*, php*,
 * tclsh*, wish*, Rscript, and the shells sh, bash, dash, zsh, ksh, mksh, ash)
 * the first argument that is not an option, an option's value skipped (python's
 * "-W arg", a shell's "-o opt"); none when the program comes from the command
 * line, a module or standard input (python "-c", "-m"; perl "-e"; a shell's
 * "-c", "-s"; "-" first). A shell's "-e" is errexit ("#!/bin/sh -e"), not a
 * program. @exe is the executable's path (its basename is what counts).
 * Return: the index into @argv, or -1.
 */
int key_exec_script_arg(const char *exe, char *const argv[], int argc);

/** key_exec_is_interpreter() - is @exe (by its basename) an interpreter key_exec_script_arg() knows? */
bool key_exec_is_interpreter(const char *exe);

/**
 * key_exec_args() - split a command line (/proc/PID/cmdline: @len bytes, NUL-separated)
 * @argv: at most @max entries and a NULL after them
 *
 * An argument not NUL-terminated within @len (the read was cut short) is left out.
 * Return: the count of arguments.
 */
int key_exec_args(char *args, size_t len, char *argv[], int max);

/**
 * key_exec_script_of() - the script an exec of @filename runs, from the command line @argv
 * @exe: the executable the kernel runs (/proc/PID/exe, in the process's root)
 * @filename: the path exec'd as the exec event gives it ("" when not known)
 * @ret_by_kernel: set true when the script is the file exec'd, a "#!" script
 *	(the kernel runs "INTERPRETER [ARG] SCRIPT ...": @filename, of another name
 *	than @exe, is argv[1] or argv[2]); false when the interpreter's argv names it
 *
 * Return: its index into @argv, or -1 when the exec starts no script.
 */
int key_exec_script_of(const char *exe, const char *filename, char *const argv[], int argc,
		       bool *ret_by_kernel);

/**
 * key_exec_script_key() - the key of the script @script (as written on @pid's command line)
 * @root: @pid's root (key_root_of())
 * @by_argv: the interpreter's argv named it (not the kernel's exec of a "#!" script): it is
 *	believed only from root's own interpreter (key_interpreter_trusted())
 * @mounts: the daemon's mounts, or NULL to read them when needed (key_trusted())
 *
 * A relative @script is made absolute against the process's working directory,
 * inside its root; then normalised lexically (key_path_normalize()). A spelling
 * with a ".." component is refused: the kernel resolves ".." after a symlink
 * physically, so "link/../../usr/bin/rev" may run a user's file whose lexical
 * key is a system program's.
 * Return: the length of the key written to @buf, -EPERM (not believed), -ESRCH, other -errno.
 */
int key_exec_script_key(pid_t pid, const struct key_root *root, const char *script, bool by_argv,
			const struct mount_table *mounts, char *buf, size_t size);

/**
 * key_exec_script_check() - is the script @key one the interpreter @exe ran?
 * @key: a script's key in the daemon's own root and mounts (key_exec_script_key())
 * @exe: the interpreter (its basename counts)
 *
 * A command line can name a file the interpreter never runs as its script
 * ("python3 /usr/sbin/sshd" fails at once, after python's own start): learned
 * as that program's run, it would teach the program's pack python's start. So
 * a script named by argv must be a regular file (root's symlinks followed,
 * key_open_own()), not empty, with no NUL byte in its first 512 bytes (a
 * compiled program: ELF, a jar), and whose "#!" line, if it has one, names an
 * interpreter of @exe's family (python and pypy, node and nodejs, any shell
 * for a shell; env's options and assignments skipped). Its first bytes are
 * read from the page cache only (RWF_NOWAIT, or mincore(2) where that is not
 * supported): asked once the run is over, a script the run read is there;
 * this never waits for a device. (A user can read any file they may read
 * first: this is no check that the run read it.)
 * Return: 0, -ENOEXEC (not such a script), -EAGAIN (not in the page cache),
 * other -errno.
 */
int key_exec_script_check(const char *key, const char *exe, const struct mount_table *mounts);

#endif
