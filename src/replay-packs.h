/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: the packs of a directory by program, read lazily, reread when changed */
#ifndef URA_REPLAY_PACKS_H
#define URA_REPLAY_PACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ura/pack.h>

#define REPLAY_PACKS_MAX	64	/* packs kept parsed at most */
#define REPLAY_PACKS_FIRST	4	/* ranges looked at to tell whether a start is cached */

/* One pack file, as last seen; shared by the cache and the replays that use it. */
struct replay_pack {
	char *path;			/* DIR/NAME.pack */
	struct ura_pack *pack;		/* NULL when it could not be read (err) */
	int err;			/* replay_open_pack()'s error for this version of the file */
	dev_t dev;			/* the file's identity when read: a change means read again */
	ino_t ino;
	off_t size;
	int64_t mtime_ns, ctime_ns;
	unsigned refs;			/* atomic: the cache's and each replay's */
	bool busy;			/* atomic: a replay of it is queued or running */
	uint64_t last_used;		/* lookup count at the last use, for eviction */
};

struct replay_packs {
	char *dir;
	struct replay_pack *slot[REPLAY_PACKS_MAX];
	size_t n;
	uint64_t lookups;
};

/** replay_packs_init() - an empty cache of the packs in @dir; 0 or -ENOMEM */
int replay_packs_init(struct replay_packs *c, const char *dir);

/** replay_packs_free() - drop the cache's references; accepts a zeroed @c */
void replay_packs_free(struct replay_packs *c);

/**
 * replay_packs_lookup() - the pack of the program at @exe: DIR/$(systemd-escape --path EXE).pack
 * @ret: on success, a reference (replay_pack_put() it) to a pack that was read
 *
 * The file is looked at (stat) at every lookup, through DIR's path, so a
 * directory removed and created again, a pack added, replaced or removed, are
 * seen at the next exec; it is read again only when its identity (device,
 * inode, size, mtime, ctime) changed. A pack that cannot be read is logged
 * once per version of the file ("..., skipping") and remembered.
 *
 * Return: 0; -ENOENT (no pack: the common case, never logged), or the error
 * that makes this version of the pack unusable (logged when first seen).
 * Not thread-safe: one caller (the watch loop).
 */
int replay_packs_lookup(struct replay_packs *c, const char *exe, struct replay_pack **ret);

/** replay_pack_put() - drop a reference; the last one frees; NULL is allowed */
void replay_pack_put(struct replay_pack *p);

/**
 * replay_pack_resident() - is the start of the pack already in the page cache?
 *
 * True when each of the first REPLAY_PACKS_FIRST demanded ranges by first
 * access (fewer in a smaller pack) is a regular file with the pack's inode
 * number and wholly resident. False when any is not, cannot be opened, or
 * the pack has no demanded range.
 */
bool replay_pack_resident(const struct ura_pack *pack);

#endif
