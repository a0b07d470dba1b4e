/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The replay engine: open a pack's files safely, skip what is resident, readahead() the rest */
#ifndef URA_REPLAY_ENGINE_H
#define URA_REPLAY_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ura/pack.h>

#include "replay-options.h"
#include "replay-report.h"

struct replay_fs;
struct sys_view;

/**
 * replay_open_pack() - read a pack, refusing an unsafe one
 * @path: the pack file
 * @ret: on success, the pack; free with ura_pack_free()
 *
 * When running as root, the pack must be a regular file owned by root and not
 * writable by group or others: a pack decides what a boot-time root process opens.
 *
 * Return: 0 or -errno: -ENOENT (missing), -EPERM (unsafe owner or mode),
 * -EBADMSG or -EOPNOTSUPP (corrupt; see ura_pack_error()), -EFBIG, -EINVAL (not
 * a regular file), -ENOMEM.
 */
int replay_open_pack(const char *path, struct ura_pack **ret);

/**
 * replay_run() - replay a pack
 * @pack: the pack
 * @view: the system's mounts and devices (sys_view_read()); the facts and models
 *	of the pack's devices are added to it (and a device measured, if the
 *	options say so) before the plan is made
 * @fs: where the pack's filesystems are, as replay_mounts_find(@pack, @view, @o->root,
 *	@o->dry_run) found them for this replay (ura-replay --watch's check found them), or
 *	NULL to find them here; the caller's, not freed
 * @o: options
 * @ret: filled with what was done, also on failure
 *
 * Problems with single files (stale, missing, refused, read errors) are
 * counted and logged as warnings, and the replay goes on; errors (failed
 * opens and reads) are also listed by cause in @ret, for the caller to fail on.
 *
 * Return: 0, or -errno when nothing could be done (-ENOMEM).
 */
int replay_run(const struct ura_pack *pack, struct sys_view *view, const struct replay_fs *fs,
	       const struct replay_options *o, struct replay_stats *ret);

/**
 * replay_needs_retrace() - is the pack worth recording again?
 * @pack: the pack replayed
 * @s: what the replay found
 * @now_ns: wall clock now, ns since the epoch
 *
 * The one rule for "trace the boot again", used after a boot replay (--mark-stale) and by
 * --check-stale (the package's dpkg trigger).
 *
 * Return: true when more than REPLAY_RETRACE_STALE_PCT percent of its files, or of the
 * bytes of its files' requests, were on stale (replaced), missing or refused files (a
 * package update replaces files, so this also catches a changed package database), or when
 * the pack is older than REPLAY_RETRACE_AGE_NS. Why 10%: a retrace boot loses one
 * boot's prefetch; a stale share s loses about s of the gain at every boot until the
 * retrace, so with some ten boots between updates a retrace pays once s passes 10%.
 * Files written in place (the journal, logs, databases) do not count: the boot writes
 * them again, so they are changed after any retrace too, and a pack with a large journal
 * would be traced again every other boot.
 */
bool replay_needs_retrace(const struct ura_pack *pack, const struct replay_stats *s,
			  int64_t now_ns);

/**
 * replay_mark_stale() - create the empty flag file @path (the boot trace unit's condition)
 * Return: 0 or -errno.
 */
int replay_mark_stale(const char *path);

#endif
