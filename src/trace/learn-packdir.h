/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The directory of learned packs: private, locked around read-merge-write, bounded */
#ifndef URA_LEARN_PACKDIR_H
#define URA_LEARN_PACKDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Why private: a pack lists the files a program read, and its name the
 * program; both tell what users do. DIR is 0700 and every pack 0600, so only
 * root reads them (ura-replay --watch runs as root).
 */
#define PACKDIR_MODE	0700
#define PACK_MODE	0600

/**
 * packdir_make() - make @dir (mode PACKDIR_MODE) if it is missing; make an existing one private
 *
 * An existing @dir must be a directory owned by root (or by us): one a user owns
 * could be swapped under the daemon. Its mode is set to PACKDIR_MODE.
 * Return: 0, -ENOTDIR, -EPERM (owned by someone else), or the -errno of mkdir/chmod.
 */
int packdir_make(const char *dir);

/**
 * packdir_lock() - lock the directory of packs @dir for a read-merge-write of one of its packs
 * @give_up: NULL to wait for the holder as long as it holds the lock; else asked
 *	every PACKDIR_LOCK_POLL_MS while the lock is held by another: true gives up
 * @ret_fd: on success the lock, released by close()
 *
 * An exclusive flock(2) on the directory itself: the learning daemon and
 * ura-trace --merge take it around reading a pack, merging and replacing it,
 * so that neither loses a run the other merged.
 * Return: 0, -ETIMEDOUT (@give_up said so), or -errno.
 */
#define PACKDIR_LOCK_POLL_MS	10
int packdir_lock(const char *dir, bool (*give_up)(void *ctx), void *ctx, int *ret_fd);

/*
 * packdir_each_runs() - for each pack of @dir (regular, root's), @fn with its file
 * name and the wall-clock times (ns) of the runs it was learned from; a pack that
 * cannot be read is passed over. The daemon's budgets at its start come from these.
 * Return: 0, -errno of opening @dir (none is 0), or @fn's -errno, which stops it.
 */
typedef int packdir_runs_fn(void *ctx, const char *name, int64_t *runs_ns, size_t n);
int packdir_each_runs(const char *dir, packdir_runs_fn *fn, void *ctx);

/**
 * packdir_of() - the directory of the file @path ("." for a bare name), malloc()ed, or NULL
 */
char *packdir_of(const char *path);

/*
 * Why bounded: every program a machine runs could get a pack, and keep it
 * forever (build trees, test binaries, one-off downloads). DIR is kept within
 * a number of packs and a size (--max-packs, --max-size); over either, the
 * packs of the programs started least lately go first. A pack is rewritten
 * when a run of its program is learned, at least once per --learn-interval
 * while the program keeps starting, so its mtime stands for its program's last
 * start. A pack whose program was not started for PACKDIR_FORGET_NS goes too,
 * and so does a learned pack (of the daemon's own root) whose program no longer
 * exists.
 *
 * The defaults: a busy desktop or build machine starts a few hundred distinct
 * programs in a day, and a learned pack is 1 to 200 KiB (bench/README.md); 1000 packs
 * and 128 MiB keep every program of a week with room to spare, and bound what
 * the replay daemon may have to look at.
 */
#define PACKDIR_MAX_PACKS	1000
#define PACKDIR_MAX_BYTES	(128ull << 20)
/*
 * One pack's share of --max-size: a sixteenth, at least 4 MiB (all of it when it is
 * smaller). A learned pack is a few KiB to a few hundred KiB; one window of scattered
 * reads (a user's program touching every other page of root's files) could make one as
 * large as DIR's cap, and keeping it would remove every other pack.
 */
#define PACKDIR_SHARE_DIV	16
#define PACKDIR_SHARE_MIN	(4ull << 20)
static inline uint64_t packdir_pack_share(uint64_t max_bytes)
{
	uint64_t floor = max_bytes < PACKDIR_SHARE_MIN ? max_bytes : PACKDIR_SHARE_MIN;

	return max_bytes / PACKDIR_SHARE_DIV > floor ? max_bytes / PACKDIR_SHARE_DIV : floor;
}
#define PACKDIR_FORGET_NS	(30ll * 24 * 3600 * 1000000000)
/* A pack's temporary file older than this in DIR is a killed writer's: removed. */
#define PACKDIR_TEMP_NS		(60ll * 1000000000)

struct mount_table;

struct packdir_caps {
	unsigned long max_packs;
	uint64_t max_bytes;
	int64_t forget_ns;		/* not written for this long: removed (0: never) */
	bool check_programs;		/* remove learned packs of root 0 whose program is gone
					 * (reads each pack: not at every write) */
	const struct mount_table *mounts;	/* nothing on FUSE is looked up (NULL: none) */
};

struct packdir_usage {
	unsigned long packs;		/* packs left */
	uint64_t bytes;			/* their size */
	unsigned long evicted;		/* packs removed */
	unsigned long gone;		/* of them, because their program is gone */
	unsigned long temps;		/* temporary files of killed writers removed */
	uint64_t evicted_bytes;
};

/**
 * packdir_bound() - keep the packs (*.pack) of @dir within @caps, under its lock (packdir_lock())
 * @keep: a pack name never removed (the one just written), or NULL
 *
 * Return: 0 with @ret filled, or -errno (the directory cannot be read, -ENOMEM).
 */
int packdir_bound(const char *dir, const struct packdir_caps *caps, const char *keep,
		  struct packdir_usage *ret);

#endif
