/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Before a trace: the files of the pack it replaces, out of the page cache where nothing maps them */
#ifndef URA_TRACE_EVICT_H
#define URA_TRACE_EVICT_H

#include <stdint.h>

struct mount_table;

struct trace_evicted {
	uint64_t files;		/* files whose unmapped cached pages were dropped */
};

/**
 * trace_evict_pack_files() - drop from the page cache what the files of a pack hold
 * @pack_path: the pack a trace is about to replace
 * @root: canonical --root, or NULL: where the pack's paths are
 * @mt: the mounts now: only files of local disk filesystems (not FUSE) are touched
 *
 * A start traced while its files are cached (a warm start) is seen only to
 * fault-around's resolution; with its files out of the cache it is seen as a
 * cold start is, without dropping the rest of the machine's cache. Each file
 * is opened as a replay opens it (its filesystem's directory by O_PATH and
 * checked to be that device; a regular file beneath it, no symlink, no other
 * mount, still the inode the pack names) and POSIX_FADV_DONTNEED drops its
 * clean pages that no process maps: a library every program maps stays, and
 * nothing is lost but a read.
 *
 * Return: 0, -EPERM when the pack is not a regular file of our user's, or
 * -errno of reading the pack (-ENOENT: there is none).
 */
int trace_evict_pack_files(const char *pack_path, const char *root, const struct mount_table *mt,
			   struct trace_evicted *ret);

#endif
