// SPDX-License-Identifier: GPL-2.0-or-later
/* File identity: is the file open now the one a pack names (inode, size, times, generation)? */
#include <errno.h>
#include <sys/ioctl.h>

#include <linux/fs.h>

#include "sys-fileid.h"

int64_t fileid_ns(const struct statx_timestamp *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

void fileid_from_statx(struct ura_pack_file *f, const struct statx *stx)
{
	f->ino = stx->stx_ino;
	f->size = stx->stx_size;
	f->mtime_ns = fileid_ns(&stx->stx_mtime);
	if (stx->stx_mask & STATX_BTIME) {
		f->flags |= URA_PACK_FILE_HAS_BTIME;
		f->btime_ns = fileid_ns(&stx->stx_btime);
	}
}

int fileid_generation(int fd, uint32_t *ret)
{
	int g = 0;

	if (ioctl(fd, FS_IOC_GETVERSION, &g) < 0)
		return -errno;
	*ret = (uint32_t)g;
	return 0;
}

enum fileid_change fileid_compare(int fd, const struct statx *stx, const struct ura_pack_file *f)
{
	uint32_t gen = 0;

	if (stx->stx_ino != f->ino)
		return FILEID_REPLACED;
	if ((f->flags & URA_PACK_FILE_HAS_BTIME) && (stx->stx_mask & STATX_BTIME) &&
	    fileid_ns(&stx->stx_btime) != f->btime_ns)
		return FILEID_REPLACED;
	if ((f->flags & URA_PACK_FILE_HAS_GENERATION) && fileid_generation(fd, &gen) == 0 &&
	    gen != f->generation)
		return FILEID_REPLACED;
	if (stx->stx_size != f->size || fileid_ns(&stx->stx_mtime) != f->mtime_ns)
		return FILEID_WRITTEN;
	return FILEID_SAME;
}

bool fileid_is_stale(int fd, const struct statx *stx, const struct ura_pack_file *f)
{
	return fileid_compare(fd, stx, f) != FILEID_SAME;
}
