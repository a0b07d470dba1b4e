/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's entries in /proc: its links, its small files, its uid and parent; a sysctl */
#ifndef URA_SYS_PROC_H
#define URA_SYS_PROC_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Every function here names /proc/PID/@what ("exe", "cwd", "cmdline",
 * "task/PID/children", ...) and returns -ESRCH when the process is gone (the
 * entry no longer exists). Only /proc is read: a link is read or stat'ed,
 * never followed to open the process's own files, so no user's filesystem can
 * make a daemon wait.
 */

/**
 * proc_hold() - keep /proc/@pid open for this thread's next lookups of @pid
 * (each then walks one name, not /proc's too); proc_hold(0) closes it. The
 * directory is the process's, not the pid's: if the process is gone and its
 * pid reused meanwhile, the lookups say -ESRCH, as they must for the one held.
 * Without it (or if it cannot be opened) each lookup walks its whole path.
 */
void proc_hold(pid_t pid);

/** proc_readlink() - readlink() of /proc/@pid/@what into @buf; 0, -ESRCH, -ENAMETOOLONG, -errno */
int proc_readlink(pid_t pid, const char *what, char *buf, size_t size);

/**
 * proc_read() - read /proc/@pid/@what (one read() of at most @size - 1 bytes) into @buf,
 * NUL-terminated (a command line keeps its NUL separators)
 * Return: the bytes read, or -ESRCH or -errno.
 */
long proc_read(pid_t pid, const char *what, char *buf, size_t size);

/**
 * proc_statx() - statx() of /proc/@pid/@what (the file a link names), asking
 * no filesystem (AT_STATX_DONT_SYNC: a FUSE server may never answer)
 * Return: 0, -ESRCH or -errno.
 */
int proc_statx(pid_t pid, const char *what, unsigned int mask, struct statx *ret);

/** proc_uid() - the real uid of @pid (/proc/PID/status); 0, -ESRCH, -EBADMSG, -errno */
int proc_uid(pid_t pid, uid_t *ret);

/** proc_parent() - the parent of @pid (/proc/PID/stat), or -1 */
pid_t proc_parent(pid_t pid);

/**
 * proc_parent_start() - the parent of @pid and when @pid started (/proc/PID/stat: its
 * starttime, in clock ticks since boot: with the pid, names one process, a pid once reused not)
 * Return: 0, -ESRCH, -EBADMSG or -errno.
 */
int proc_parent_start(pid_t pid, pid_t *ret_parent, uint64_t *ret_start);

/**
 * proc_started() - what process @pid has started (/proc/PID/stat): how many threads it runs,
 * and whether it has waited for a child (its children's page faults are counted)
 * Return: 0, -ESRCH, -EBADMSG or -errno.
 */
int proc_started(pid_t pid, unsigned *ret_threads, bool *ret_reaped);

/**
 * proc_children() - the children of @pid's main thread (task/PID/children), at most @max
 * Return: how many were put in @ret, -ESRCH or -errno (-ENOENT: a kernel without the file).
 */
long proc_children(pid_t pid, int *ret, size_t max);

/** proc_sys_int() - an integer sysctl, /proc/sys/@name ("kernel/pid_max"), or -1 */
long proc_sys_int(const char *name);

#endif
