/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: replay a program's pack at each exec of it, until SIGTERM */
#ifndef URA_WATCH_H
#define URA_WATCH_H

#include "replay-options.h"

/**
 * watch_run() - run the exec-prefetch daemon until SIGTERM, SIGINT or SIGHUP
 * @o: the replay options; @o->watch_dir is the directory of packs,
 *	@o->max_replays the replays at once
 *
 * For each file opened for execution (watch-exec.c), looks up
 * its pack in @o->watch_dir by the program's key (key.h, watch-packs.c) and,
 * unless a replay of it is under way or the pages sampled across the data it
 * demands are resident (watch_pack_check()), hands it to one of
 * @o->max_replays worker threads, which replay it with replay_run() (the
 * check's filesystems passed on) and log one line. The view of the system (mounts, device facts
 * and models) is read at start and kept across execs; it is read again only
 * after the kernel flags a mount change. The exec is never waited for. Blocks the
 * three signals in the calling thread (and so in the workers).
 *
 * Return: 0 once stopped by a signal (every worker joined, every descriptor
 * closed), or -errno when it could not start: -EPERM (not root), -ENOSYS or
 * -EINVAL (no fanotify FAN_OPEN_EXEC), -ENODEV, -ENOMEM.
 */
int watch_run(const struct replay_options *o);

#endif
