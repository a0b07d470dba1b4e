/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: the packs of a directory by program key, read lazily, reread when changed */
#ifndef URA_WATCH_PACKS_H
#define URA_WATCH_PACKS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ura/pack.h>

struct replay_fs;
struct sys_view;

/*
 * Packs kept parsed at most, by count and by their files' bytes (a pack is
 * read whole): the learning daemon's default caps of DIR are 1,000 packs and
 * 128 MiB, and most are small. A pack evicted costs its read and parse again
 * at its program's next start (0.1-0.7 ms), and forgets that its data was
 * found resident: a cache smaller than the programs a machine runs in turn
 * made every start of each one cost that.
 */
#define REPLAY_PACKS_MAX	1024
#define REPLAY_PACKS_BYTES	(32ull << 20)
#define REPLAY_PACKS_SAMPLES	64	/* pages looked at to tell whether a start is cached */

/* A page of a pack's file, looked at to tell whether the program's data is resident. */
struct replay_sample {
	uint32_t file;			/* the pack's file index */
	uint32_t page;			/* page number in the file */
};

/* One pack file, as last seen; shared by the cache and the replays that use it. */
struct watch_tree_id;

struct watch_pack {
	char *path;			/* DIR/NAME.pack */
	uint64_t hash;			/* of the path, to find it */
	struct ura_pack *pack;		/* NULL when it could not be read (err) */
	int err;			/* replay_open_pack()'s error for this version of the file */
	dev_t dev;			/* the file's identity when read: a change means read again */
	ino_t ino;
	off_t size;
	int64_t mtime_ns, ctime_ns;
	unsigned refs;			/* atomic: the cache's and each replay's */
	bool busy;			/* atomic: a replay of it is queued or running */
	uint64_t resident_ns;		/* atomic: when a check last found its data resident */
	uint64_t last_used;		/* lookup count at the last use, for eviction */
	uint64_t probed_ns;		/* the event loop's: when a probe of it was last queued */
	uint32_t probe_seq;		/* the event loop's: the sampled page the next probe takes */
	struct replay_sample *samples;	/* by file, then page: one file opened once per check */
	uint32_t nsamples;
	uint64_t sampled_bytes;		/* the demanded bytes they are spread over */
	bool sampled_shared;		/* the pack has nothing but shared files: sampled anyway */
	/* the event loop's: the files it holds demanded pages of (watch_tree_ids()), once asked */
	struct watch_tree_id *tree_ids;
	size_t ntree_ids;
	int tree_err;			/* watch_tree_ids()'s error: no child is left to this pack */
	bool tree_done;
};

/* A file every program maps (the dynamic loader, the C library), by identity. */
struct replay_shared {
	dev_t dev;
	ino_t ino;
};

struct watch_packs {
	char *dir;
	struct watch_pack *slot[REPLAY_PACKS_MAX];
	size_t n;
	uint64_t bytes;			/* the packs' file sizes, summed */
	uint64_t max_bytes;		/* REPLAY_PACKS_BYTES (tests set less) */
	uint64_t lookups;
	struct replay_shared *shared;	/* left out of the samples */
	size_t nshared;
	bool locked;			/* @lock is initialised */
	pthread_mutex_t lock;		/* lookups come from the event loop and the resolver */
};

/**
 * watch_packs_init() - an empty cache of the packs in @dir
 *
 * The files this process maps (its /proc/self/maps: ld.so and libc, as every
 * dynamically linked program) are remembered as shared: resident on any
 * running system, they say nothing about whether a program's own data is.
 * Return: 0 or -ENOMEM.
 */
int watch_packs_init(struct watch_packs *c, const char *dir);

/** watch_packs_free() - drop the cache's references; accepts a zeroed @c */
void watch_packs_free(struct watch_packs *c);

/**
 * watch_packs_set_shared() - replace the shared files (tests); @n may be 0
 * Return: 0 or -ENOMEM.
 */
int watch_packs_set_shared(struct watch_packs *c, const struct replay_shared *files, size_t n);

/**
 * watch_packs_lookup() - the pack of a program: DIR/key_pack_name(@root_id, @path)
 * @root_id, @path: the program's key (key.h): its root and its path there
 * @ret: on success, a reference (watch_pack_put() it) to a pack that was read
 * @ret_name: if not NULL, the pack's file name (set whatever the result, when
 *	there is one), NAME_MAX + 1 bytes
 *
 * The file is looked at (stat) at every lookup, through DIR's path, so a
 * directory removed and created again, a pack added, replaced or removed, are
 * seen at the next exec; it is read again only when its identity (device,
 * inode, size, mtime, ctime) changed. A pack that cannot be read is logged
 * once per version of the file ("..., skipping") and remembered.
 *
 * Return: 0; -ENOENT (no pack: the common case, never logged), or the error
 * that makes this version of the pack unusable (logged when first seen).
 * Thread-safe.
 */
int watch_packs_lookup(struct watch_packs *c, uint64_t root_id, const char *path,
			struct watch_pack **ret, char *ret_name);

/** watch_pack_put() - drop a reference; the last one frees; NULL is allowed */
void watch_pack_put(struct watch_pack *p);

/* What a look at a pack's sampled pages found. */
struct replay_check {
	unsigned sampled;		/* pages looked at */
	unsigned resident;		/* of them, in the page cache */
	uint64_t ns;			/* time the look took */
};

/**
 * watch_pack_check() - is what a replay of @p would read already resident?
 * @view: the system's mounts, where the pack's filesystems are looked for
 * @stop_at_miss: stop at the first sampled page that is not resident (the
 *	answer is known: replay)
 * @ret: what was found
 * @ret_fs: if not NULL, where the pack's filesystems were found (replay_mounts_find()
 *	on the live mounts, as a replay without --root finds them), for the replay to use
 *	(replay_run()) and free (replay_mounts_free(*@ret_fs, ura_pack_fs_count())); NULL
 *	when there was no page to look at, so nothing was looked for
 *
 * Looks at the pack's sampled pages (REPLAY_PACKS_SAMPLES of them at most,
 * spread evenly over its demanded bytes, the shared files left out), each
 * file opened as a replay opens it (beneath its filesystem's mount, found by
 * device number, with no symlink followed and no mount crossed, never on
 * FUSE) and checked to be the file the pack names: a page of a file that is
 * missing, refused or changed counts as not resident (replay_files_open_file()).
 * Return: 0, or -errno (-ENOMEM); @ret and @ret_fs are set on success only.
 */
int watch_pack_check(const struct watch_pack *p, const struct sys_view *view, bool stop_at_miss,
		      struct replay_check *ret, struct replay_fs **ret_fs);

/**
 * watch_pack_probe() - is the sampled page @k (modulo their number) of @p resident?
 * A look at one page, as watch_pack_check() looks at each: for a pack whose data was
 * found resident and is held so (watch-hold.h), whether a page of it was dropped since
 * without the kernel counting it (POSIX_FADV_DONTNEED, a file truncated or replaced).
 * A pack with no sampled page is resident.
 * Return: 0 (*@ret_resident set) or -errno.
 */
int watch_pack_probe(const struct watch_pack *p, const struct sys_view *view, uint32_t k,
		      bool *ret_resident);

#endif
