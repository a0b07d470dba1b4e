/* SPDX-License-Identifier: GPL-2.0-or-later */
/* File identity: is the file open now the one a pack names (inode, size, times, generation)? */
#ifndef URA_SYS_FILEID_H
#define URA_SYS_FILEID_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <ura/pack.h>

/** fileid_ns() - a statx timestamp in ns since the epoch */
int64_t fileid_ns(const struct statx_timestamp *t);

/**
 * fileid_from_statx() - the identity fields of a pack file record from @stx
 * @stx: with STATX_BASIC_STATS, and STATX_BTIME when the filesystem tells it
 *
 * Sets @f's ino, size, mtime_ns and, when @stx has it, btime_ns with
 * URA_PACK_FILE_HAS_BTIME; leaves the other fields alone.
 */
void fileid_from_statx(struct ura_pack_file *f, const struct statx *stx);

/**
 * fileid_generation() - the inode generation of @fd (FS_IOC_GETVERSION)
 * Return: 0, or -errno (-ENOTTY: the filesystem keeps none).
 */
int fileid_generation(int fd, uint32_t *ret);

enum fileid_change {
	FILEID_SAME,
	FILEID_WRITTEN,		/* the same inode, written in place: a log, a database */
	FILEID_REPLACED,	/* another inode: a package update renames the new file over it */
};

/**
 * fileid_compare() - how has the file changed since the pack recorded @f?
 * @fd: the file, open
 * @stx: its statx now, with STATX_BASIC_STATS (and STATX_BTIME if known)
 *
 * Replaced when the inode number differs, or the birth time or the generation when the pack
 * has them and the filesystem tells them now (an inode number used again); written when the
 * inode is the same and its size or mtime differ.
 */
enum fileid_change fileid_compare(int fd, const struct statx *stx, const struct ura_pack_file *f);

/**
 * fileid_is_stale() - has the file changed since the pack recorded @f?
 * @fd: the file, open
 * @stx: its statx now, with STATX_BASIC_STATS (and STATX_BTIME if known)
 *
 * Stale when the inode, the size or the mtime differ, or the birth time or the
 * generation when the pack has them and the filesystem tells them now (the
 * generation is asked only when all else matches). A stale pack must not
 * prefetch a replaced or rewritten file.
 */
bool fileid_is_stale(int fd, const struct statx *stx, const struct ura_pack_file *f);

#endif
