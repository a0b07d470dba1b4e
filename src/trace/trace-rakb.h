/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read_ahead_kb forced during a trace: crash-safe state files, restore, the value a trace ran with */
#ifndef URA_TRACE_RAKB_H
#define URA_TRACE_RAKB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct mount_table;

/*
 * Where the state files go and how a device's read_ahead_kb is read and set:
 * rakb_system for the real thing; tests pass a temporary directory and fakes.
 */
struct rakb_env {
	const char *state_dir;
	int (*get_kb)(unsigned major, unsigned minor, unsigned *ret);
	int (*set_kb)(unsigned major, unsigned minor, unsigned kb);
};

/* /run/ura and sysfs (dev_block_get/set_read_ahead_kb) */
extern const struct rakb_env rakb_system;

/* A device whose read_ahead_kb a run changed, and its value from before. */
struct rakb_saved {
	unsigned major, minor, old_kb;
};

/* What one run forced; zero it before rakb_force(). */
struct rakb_state {
	const struct rakb_env *env;
	struct rakb_saved *devs;
	size_t n;
	unsigned kb;			/* the value forced */
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
 * Return: the forced value, else the device's value now, 0 if it has none.
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
