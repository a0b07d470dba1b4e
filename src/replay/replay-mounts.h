/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the filesystems of a pack are now: the live mounts, or below --root */
#ifndef URA_REPLAY_MOUNTS_H
#define URA_REPLAY_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include <ura/pack.h>

struct sys_view;

/* A filesystem of the pack, as found now. */
struct replay_fs {
	char *dir;		/* where its files are, or NULL when not found */
	int dirfd;		/* O_PATH descriptor of @dir, or -1 */
	unsigned major, minor;	/* the device its files are on now (else as the pack says) */
};

/**
 * replay_mounts_find() - find and open the directory of each filesystem of @pack
 * @view: the system's mounts (sys_view_mounts())
 * @root: find them below this directory (--root) instead of the live mounts
 * @dry_run: open nothing; each entry only names the pack's device
 * @ret: an array of ura_pack_fs_count() entries, indexed like the pack's
 *	filesystems; free with replay_mounts_free(), also on failure
 *
 * A filesystem is found by device number in the view's mount table (at the
 * recorded mount point if it is mounted more than once), else at its recorded
 * mount point; under @root, at its recorded mount point resolved inside @root
 * (no symlink leads out of it). One that is not found has dirfd -1 and is
 * logged; its files are then missing.
 *
 * Return: 0 or -ENOMEM.
 */
int replay_mounts_find(const struct ura_pack *pack, const struct sys_view *view, const char *root,
		       bool dry_run, struct replay_fs **ret);

/** replay_mounts_free() - close and free what replay_mounts_find() gave (NULL too) */
void replay_mounts_free(struct replay_fs *fs, size_t n);

#endif
