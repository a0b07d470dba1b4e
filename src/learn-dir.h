/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The directory of learned packs: private, locked around read-merge-write, bounded */
#ifndef URA_LEARN_DIR_H
#define URA_LEARN_DIR_H

#include <stdbool.h>
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
 * @ret_fd: on success the lock, released by close()
 *
 * An exclusive flock(2) on the directory itself: the learning daemon and
 * ura-trace --merge take it around reading a pack, merging and replacing it,
 * so that neither loses a run the other merged. It waits for the holder.
 * Return: 0 or -errno.
 */
int packdir_lock(const char *dir, int *ret_fd);

/**
 * packdir_of() - the directory of the file @path ("." for a bare name), malloc()ed, or NULL
 */
char *packdir_of(const char *path);

#endif
