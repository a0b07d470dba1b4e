/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exec source of ura-replay --watch: fanotify FAN_OPEN_EXEC on every filesystem */
#ifndef URA_WATCH_EXEC_H
#define URA_WATCH_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sys_view;

struct watch_exec {
	int fd;			/* the fanotify group, -1 when closed */
	unsigned marked;	/* filesystems marked at the last look */
	uint64_t overflows;	/* FAN_Q_OVERFLOW seen: events were lost */
	bool no_ignore;		/* the kernel cannot ignore a file (no FAN_MARK_EVICTABLE) */
	unsigned ignoring;	/* files ignored since the last watch_exec_forget() */
	uint64_t ignored;	/* files ignored in all */
};

/* A file opened for execution. */
struct watch_exec_event {
	pid_t pid;		/* the process exec'ing: still its old image (the exec is under way) */
	const char *path;	/* the file, absolute, as this process names it (symlinks resolved) */
	dev_t dev;		/* its identity */
	ino_t ino;
	uid_t uid;		/* its owner and mode (who could have written it) */
	mode_t mode;
	unsigned nlink;		/* its names (hard links): one exec's name is not all of them */
	int script;		/* "#!": where the kernel puts the script's path in its interpreter's
				 * argv (1, or 2 after the "#!" line's argument); 0: not a script */
};

/*
 * Called for each file opened for execution. True: the file's next execs need
 * not be seen (until watch_exec_forget()): the kernel drops them, at no cost
 * to the daemon or the exec. An ignore mark is evictable (the kernel forgets
 * it with the inode: nothing pinned) and goes when the file is modified; a
 * file replaced (a package upgrade) is a new inode.
 */
typedef bool (*watch_exec_fn)(const struct watch_exec_event *ev, void *userdata);

/**
 * watch_exec_open() - start listening to every exec() on the system
 * @view: the mounts (the caller watches them: sys_view_watch_fd())
 * @ret: filled on success; close with watch_exec_close()
 *
 * Marks every filesystem of @view (but those where nothing is executed: proc,
 * sysfs, cgroup, tracefs, ...) with FAN_OPEN_EXEC, a notification (never a
 * permission event: the exec never waits for us). Needs CAP_SYS_ADMIN.
 * Return: 0, -EPERM (not root), -ENOSYS or -EINVAL (no fanotify or no
 * FAN_OPEN_EXEC: Linux < 5.0), -ENODEV (no filesystem could be marked), -errno
 * (the view has no mount table).
 */
int watch_exec_open(const struct sys_view *view, struct watch_exec *ret);

/**
 * watch_exec_mounts_changed() - mark the filesystems mounted since: those of
 * @view, the view read again after its watch polled POLLPRI. Return: 0 or
 * -errno (the old marks stay).
 */
int watch_exec_mounts_changed(struct watch_exec *s, const struct sys_view *view);

/**
 * watch_exec_read() - hand the queued exec events to @fn, without blocking
 *
 * Whether a file is a script is read from its first line without waiting
 * (RWF_NOWAIT): a file whose first page is not cached yet counts as none.
 * Return: the events handed, or -errno. A queue overflow is counted in
 * @s->overflows (and the lost events are gone).
 */
int watch_exec_read(struct watch_exec *s, watch_exec_fn fn, void *userdata);

/**
 * watch_exec_forget() - see every file's execs again (the ignore marks
 * removed): what decided to ignore them changed (a pack was added). Also done
 * by itself once WATCH_EXEC_IGNORE_MAX files are ignored, so that the group's
 * marks stay far below the kernel's limit and the filesystems' marks fit.
 */
#define WATCH_EXEC_IGNORE_MAX	4096
void watch_exec_forget(struct watch_exec *s);

/** watch_exec_close() - accepts a closed or zeroed-and-fd=-1 @s */
void watch_exec_close(struct watch_exec *s);

#endif
