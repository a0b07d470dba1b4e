/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: the pack names in the directory, to pass over at once an exec no pack is for */
#ifndef URA_WATCH_NAMES_H
#define URA_WATCH_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct watch_names {
	char *dir;
	char **names;			/* sorted: the directory's "*.pack" names */
	size_t n;
	bool valid;			/* @names is the directory as its identity below says */
	bool told;			/* inotify said it changed: read again, times or not */
	dev_t dev;			/* the directory's identity when read */
	ino_t ino;
	int64_t mtime_ns, ctime_ns;
	int64_t read_ns;		/* when it was read (the caller's clock) */
	uint64_t reads;			/* times the directory was read (tests) */
	uint64_t added;			/* ... and found a name it had not (a pack added) */
	int notify_fd;			/* inotify of the directory, -1 without */
	int wd;				/* its watch, once the directory was read */
	ino_t wd_ino;			/* of the directory watched */
	dev_t wd_dev;
};

/** watch_names_init() - an index of @dir, read when first needed; 0 or -ENOMEM */
int watch_names_init(struct watch_names *x, const char *dir);
void watch_names_free(struct watch_names *x);

/**
 * watch_names_may_have() - can the directory hold the pack of the program @root_id, @path?
 * @root_id, @path: the program's key (key.h): its root and its path there
 * @now_ns: CLOCK_REALTIME now, in ns
 *
 * One name made and looked up, whatever the directory holds: an exec for
 * which it is false needs no further look (most execs of a machine, and every
 * exec of a flood).
 *
 * The directory is read again when its identity (device, inode, mtime, ctime)
 * changed, and, at most every 10 ms, while the last read was less than 100 ms
 * after its last change (an entry added within the same timestamp tick would
 * not change it: such a pack is seen up to 10 ms late). A directory that
 * cannot be read, or an index that cannot be made, answers true: the lookup
 * then decides, as before.
 */
bool watch_names_may_have(struct watch_names *x, uint64_t root_id, const char *path,
			   int64_t now_ns);

/** watch_names_refresh() - read the directory again if it changed (as watch_names_may_have()) */
void watch_names_refresh(struct watch_names *x, int64_t now_ns);

/**
 * watch_names_notify_fd() - a descriptor that polls readable when an entry of the directory
 * was added, renamed or removed since watch_names_notified() (inotify, watched once the
 * directory was first read): a pack written is then seen at once, not at the next look.
 * Return: the descriptor, or -1 (no inotify: the caller looks every so often).
 */
int watch_names_notify_fd(const struct watch_names *x);

/**
 * watch_names_notified() - take what the descriptor has, and read the directory again when
 * a pack was added, renamed or removed (a writer's temporary file is no pack)
 * Return: true when the directory was read again for it.
 */
bool watch_names_notified(struct watch_names *x, int64_t now_ns);

/**
 * watch_names_in_other_roots() - may a pack in the directory, as last read, be for the path
 * @path of a root other than the daemon's (a container or chroot running the same file)?
 */
bool watch_names_in_other_roots(const struct watch_names *x, const char *path);

#endif
