/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: the packs of programs whose path is a symlink, by the file it leads to */
#ifndef URA_WATCH_ALIAS_H
#define URA_WATCH_ALIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Why: a "#!" script is keyed by the path it was exec'd by (key.h), and that
 * path may be a symlink (/usr/bin/pydoc3 -> pydoc3.11). fanotify names the file
 * itself, so the exec of /usr/bin/pydoc3.11 finds no pack of that name, and the
 * script is known only when its interpreter's exec completes and argv names it:
 * 101 ms later on a cold start on emmc, half of what the replay could win.
 *
 * So a pack whose program path is a symlink is known by the identity (device,
 * inode) of the file the link leads to, in the root the pack is for: looked up
 * from that root (the daemon's "/", or /proc/PID/root of an exec in it), when
 * an exec there finds no pack of its file's name, each again
 * WATCH_ALIAS_AGAIN_NS later (a package update may move a link). The exec's own
 * file must be that file. A file two packs lead to (a multi-call script:
 * pg_wrapper's links) is left to its interpreter's argv, as before; either
 * way the interpreter's argv confirms or corrects the guess.
 *
 * What is followed: one symlink, owned by root, at the pack's path (no other
 * symlink on the way: on a merged /usr, /bin/NAME gets no alias); its target
 * (absolute or relative to the link's directory, simplified, inside the root)
 * with no symlink on the way, a regular file. Lookups ask only the kernel's caches
 * (openat2 RESOLVE_CACHED, statx AT_STATX_DONT_SYNC: no disk read, no automount,
 * no FUSE or network server asked; a link's body is read only when its inode
 * holds it, and never on a mount whose server may not answer), so the event
 * loop never waits. A path not cached is looked up again at execs that find no
 * alias (each has just walked its own path), WATCH_ALIAS_RETRIES times at most,
 * then at the usual pace; what was found stays meanwhile. A mount or rename
 * anywhere during a lookup that jumps to the root makes it "not cached" too.
 */
#define WATCH_ALIAS_AGAIN_NS	60000000000ull
#define WATCH_ALIAS_RETRY_NS	1000000000ull	/* a lookup the caches could not answer */
#define WATCH_ALIAS_LOOKUPS	256		/* at most per call */
/* a path not cached is looked up again at an exec that found no alias: at most this often, */
#define WATCH_ALIAS_RETRY_GAP_NS	100000000ull
#define WATCH_ALIAS_RETRIES	4		/* ... and this many times until it is answered */

struct mount_table;
struct watch_names;

struct watch_alias_entry {
	char *name;		/* the pack name (watch_names) */
	uint64_t root_id;	/* of the root it is for (key.h) */
	dev_t dev;		/* the file its path leads to, with @found */
	ino_t ino;
	bool found;
	bool uncached;		/* the last lookup was not in the kernel's caches */
	bool fresh;		/* follow()'s own, while it runs */
	unsigned retries;	/* looked up again at execs since the caches last answered */
	bool shared;		/* another pack of that root leads to the same file */
	uint64_t due_ns;	/* when to look it up (again), monotonic; 0: at once */
};

struct watch_alias {
	struct watch_alias_entry *e;	/* sorted by name */
	size_t n;
	uint64_t names_reads;		/* watch_names.reads when last followed */
	uint64_t resolved;		/* lookups made (tests) */
	bool unsupported;		/* the kernel has no openat2() with RESOLVE_CACHED */
	uint64_t retried_ns;		/* the last lookups again of paths not cached */
};

void watch_alias_free(struct watch_alias *a);

/**
 * watch_alias_due() - follow DIR's pack names (@names, as last read: new names looked up
 * when due, those gone dropped); is a lookup of a pack of root @root_id due at @now?
 */
bool watch_alias_due(struct watch_alias *a, const struct watch_names *names, uint64_t root_id,
		     uint64_t now);

/**
 * watch_alias_lookup() - look up the packs of root @root_id that are due at @now
 * (WATCH_ALIAS_LOOKUPS at most), or with @uncached those whose last lookup the caches could
 * not answer (an exec that found no alias has just walked its own path)
 * @root_fd: that root, as an exec in it has it (O_PATH of "/" or of /proc/PID/root)
 * @root_path: where the daemon reaches that root, and @mounts, the daemon's mounts: a pack
 *	path on a mount whose server may not answer (mountinfo_may_hang()) is not looked up
 */
void watch_alias_lookup(struct watch_alias *a, uint64_t root_id, int root_fd,
			const char *root_path, const struct mount_table *mounts, uint64_t now,
			bool uncached);

/**
 * watch_alias_retry_due() - may the paths of root @root_id the caches could not answer be looked
 * up again now (watch_alias_lookup() with @uncached)?
 */
bool watch_alias_retry_due(const struct watch_alias *a, uint64_t root_id, uint64_t now);

/** watch_alias_find() - the pack name of root @root_id leading to the file @dev, @ino, or NULL */
const char *watch_alias_find(const struct watch_alias *a, uint64_t root_id, dev_t dev, ino_t ino);

/**
 * watch_alias_resolve() - the file the program path of pack @name leads to, from @root_fd
 * (the root of @root_id)
 * Return: 1 and @ret_dev, @ret_ino; 0: not one root-owned symlink leading to a regular file
 * without another on the way (or nothing there); -EAGAIN: not all in the kernel's caches;
 * -errno (-EINVAL: not a name of that root, or openat2 or RESOLVE_CACHED missing).
 */
int watch_alias_resolve(const char *name, uint64_t root_id, int root_fd, const char *root_path,
			const struct mount_table *mounts, dev_t *ret_dev, ino_t *ret_ino);

#endif
