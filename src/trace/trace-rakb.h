/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read_ahead_kb forced during a trace: crash-safe state files, restore, the value a trace ran with */
#ifndef URA_TRACE_RAKB_H
#define URA_TRACE_RAKB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mount_table;

/*
 * Where the state files go and how a device's read_ahead_kb is read and set:
 * rakb_system for the real thing; tests pass a temporary directory and fakes.
 */
struct rakb_env {
	const char *state_dir;
	int (*get_kb)(unsigned major, unsigned minor, unsigned *ret);
	int (*set_kb)(unsigned major, unsigned minor, unsigned kb);
	/* the disk's identity (dev_block_diskseq()); NULL or an error: not known */
	int (*get_seq)(unsigned major, unsigned minor, uint64_t *ret);
};

/* /run/ura and sysfs (dev_block_get/set_read_ahead_kb) */
extern const struct rakb_env rakb_system;

/* A device whose read_ahead_kb a run changed, its value from before and the one forced. */
struct rakb_saved {
	unsigned major, minor, old_kb, kb;
	uint64_t seq;		/* the disk's diskseq when saved, 0 if not known: a value is put
				 * back only on that disk, not another attached since as that number */
};

/* A block device, by number. */
struct rakb_dev {
	unsigned major, minor;
};

/**
 * rakb_traced_devices() - the devices a trace concerns, each once: those of
 * every mounted non-pseudo filesystem, or with @root (canonical) only those
 * its files live on
 * @ret: malloc()ed, for the caller to free
 * Return: 0 or -ENOMEM.
 */
int rakb_traced_devices(const struct mount_table *mt, const char *root, struct rakb_dev **ret,
			size_t *ret_n);

/* What one run forced; zero it before rakb_force(). */
struct rakb_state {
	const struct rakb_env *env;
	struct rakb_saved *devs;
	size_t n;
	unsigned kb;			/* rakb_force(): the value forced; rakb_force_each(): 0 */
	bool restored;
	char path[PATH_MAX];		/* our state file: <state_dir>/trace-<pid>.state */
};

/**
 * rakb_force() - set read_ahead_kb to @kb on the disks under the mounted filesystems
 * @st: zeroed; on return, what was changed (also on failure, for rakb_free())
 * @env: &rakb_system, or a test's
 * @mt: the mounts now
 * @root: --root (canonical) or NULL: then only the filesystems its files live on
 *
 * The state file that lists the old values is written (and synced) before any
 * device changes, so that rakb_restore_dead() can undo a run killed meanwhile.
 * Devices another live run has forced keep that run's old value to restore.
 *
 * Return: 0 or -errno (state file not written); a device that cannot be set
 * is a warning.
 */
int rakb_force(struct rakb_state *st, const struct rakb_env *env, unsigned kb,
	       const struct mount_table *mt, const char *root);

/*
 * The value to force on device MAJ:MIN, whose own read_ahead_kb is @own_kb (the
 * value from before any run forced it); 0 leaves the device as it is.
 */
typedef unsigned rakb_pick_fn(unsigned major, unsigned minor, unsigned own_kb, void *arg);

/**
 * rakb_force_each() - rakb_force() with a value chosen per device by @pick(@arg)
 *
 * Every device is picked for first (a pick may take seconds), then the runs
 * going on are read again, so that one that forced a device meanwhile keeps
 * its value from before to restore.
 */
int rakb_force_each(struct rakb_state *st, const struct rakb_env *env, rakb_pick_fn *pick,
		    void *arg, const struct mount_table *mt, const char *root);

struct devmodel;

/*
 * The read_ahead_kb to trace at on a device whose cost model is @m and whose own
 * value is @own_kb (0: unknown): the largest power of two KiB, 4 at least, not
 * above the size at which a read costs as much device time for its bytes as for
 * being a request (dev_model_balance_bytes()), nor above @own_kb.
 *
 * Why: a traced start at read_ahead_kb R reads its data R at a time. Below the
 * balance size every read costs a request more than its bytes, and the run grows
 * slower as R shrinks (at 4 KiB, 14 times the untraced start on a disk); at or
 * above it, the run costs about what its bytes cost, as an untraced start does.
 * And the pack is exact to R (a page counts as demanded with the pages read and
 * mapped with it): where a replay would read a hole of less than the balance
 * size rather than make another request, such a pack costs it little more than
 * an exact one; where bytes are dear (a small balance size), R is small too.
 */
unsigned rakb_for_model(const struct devmodel *m, unsigned own_kb);

/**
 * rakb_restore() - put the old values back (once) and remove the state file
 *
 * A device another live run still has forced is left to that run. The list
 * stays for rakb_during_trace() until rakb_free().
 */
void rakb_restore(struct rakb_state *st);

/** rakb_free() - rakb_restore() if not done, then release; a zeroed @st is allowed */
void rakb_free(struct rakb_state *st);

/**
 * rakb_during_trace() - read_ahead_kb of a device while the trace ran
 * @st: what was forced, or NULL
 *
 * Return: the value forced on it, else the device's value now, 0 if it has none.
 */
unsigned rakb_during_trace(const struct rakb_state *st, unsigned major, unsigned minor);

/**
 * rakb_restore_dead() - undo the read_ahead_kb changes of runs that died
 *
 * Reads the state files left by runs that were killed before they could
 * restore the devices, restores the values (unless a live run has the device
 * forced), removes the files.
 * Return: the number of devices restored, or -errno.
 */
int rakb_restore_dead(const struct rakb_env *env);

#endif
