/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: the packs of programs whose path is a symlink, by the file it leads to */
#ifndef URA_WATCH_ALIAS_H
#define URA_WATCH_ALIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Why: a "#!" script is keyed by the path it was exec'd by (key.h), and that
 * path may be a symlink (/usr/bin/pydoc3 -> pydoc3.11). fanotify names the file
 * itself, so the exec of /usr/bin/pydoc3.11 finds no pack of that name, and the
 * script is known only when its interpreter's exec completes and argv names it:
 * 101 ms later on a cold start on emmc, half of what the replay could win.
 *
 * So the packs whose program path is a symlink are known by the file it leads
 * to, in the root the pack is for (the daemon's own, a chroot, a container):
 * a root's names are resolved when an exec in that root finds no pack of its
 * file's name (the root's path is known then), each again WATCH_ALIAS_AGAIN_NS
 * after it was (a package update may move a symlink). A file that two packs'
 * paths lead to (a multi-call script: pg_wrapper's links) is left to its
 * interpreter's argv. The guess is checked by the caller as any key is
 * (key_trusted(): that path is, in the daemon's mounts, the very file the
 * process runs), and confirmed or corrected by the interpreter's argv as before.
 *
 * Only paths on local filesystems are looked up (no mount on the way whose
 * server may not answer), from the path's own mount without leaving it
 * (openat2 RESOLVE_NO_XDEV, no /proc magic link): a symlink to another mount
 * gives no alias. Packs are written by the learning daemon only, for programs
 * in root's trees (learn-private.h): no user names a path looked up here.
 */
#define WATCH_ALIAS_AGAIN_NS	60000000000ull

struct key_root;
struct mount_table;
struct watch_names;

struct watch_alias_entry {
	char *name;		/* the pack name (watch_names) */
	uint64_t root_id;	/* of the root it is for (key.h) */
	char *target;		/* the file its path leads to, in that root, or NULL: none known */
	uint64_t resolved_ns;	/* when it was looked up (monotonic), 0 never */
	bool shared;		/* another pack's path in that root leads to the same file */
};

struct watch_alias {
	struct watch_alias_entry *e;	/* sorted by name */
	size_t n;
	uint64_t names_reads;		/* watch_names.reads when last followed */
	uint64_t resolved;		/* lookups made (tests) */
};

void watch_alias_free(struct watch_alias *a);

/**
 * watch_alias_update() - follow DIR's pack names (@names, as last read: new names kept
 * unresolved, those gone dropped), then look up the names of @root not yet looked up, or
 * WATCH_ALIAS_AGAIN_NS ago
 * @root: the root of an exec (key_root_of()); its path is where the daemon reaches it
 * @mounts: the daemon's mounts (NULL: nothing is looked up)
 * @now: CLOCK_MONOTONIC, ns
 */
void watch_alias_update(struct watch_alias *a, const struct watch_names *names,
			const struct key_root *root, const struct mount_table *mounts, uint64_t now);

/**
 * watch_alias_find() - the pack name whose program path in root @root_id leads to the file
 * @path (absolute, in that root), or NULL: none, or more than one
 */
const char *watch_alias_find(const struct watch_alias *a, uint64_t root_id, const char *path);

/**
 * watch_alias_resolve() - where the program path of pack @name leads, for the root @root
 * (which must be the name's)
 * Return: 1 and @buf the file's path in that root when it is not the pack's own path, 0 when
 * it is (or no file is there), -errno (not a name of that root, a mount on the way that may
 * hang, another mount at the end, openat2 missing).
 */
int watch_alias_resolve(const char *name, const struct key_root *root,
			const struct mount_table *mounts, char *buf, size_t size);

#endif
