// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The replay's open files (the fd cache): each file of the pack is opened and
 * checked on first use and closed after its last request, or at once beyond
 * the file limit (then opened and checked again when needed); the block
 * devices that hold metadata are opened by number. The open of a pack's file
 * and its identity check are here once, for the replay and for ura-replay
 * --watch's look at a sample of the pack's pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/fs.h>

#include "dev-block.h"
#include "sys-fileid.h"
#include "util-log.h"
#include "replay-files.h"
#include "replay-options.h"
#include "sys-safeopen.h"

int replay_files_init(struct replay_files *files, const struct ura_pack *pack,
		      const struct replay_fs *fs, size_t nfiles, const unsigned (*bdevs)[2],
		      size_t nbdev, const struct sched_item *req, size_t nreq, unsigned flags)
{
	*files = (struct replay_files){
		.pack = pack, .fs = fs, .nfiles = nfiles, .nobj = nfiles + nbdev,
		.read_stale = flags & REPLAY_FILES_READ_STALE,
		.fadvise_random = flags & REPLAY_FILES_FADVISE_RANDOM,
	};
	for (int i = 0; i < REPLAY_FILES_LOCKS; i++)
		pthread_mutex_init(&files->locks[i], NULL);
	pthread_mutex_init(&files->causes_lock, NULL);
	files->ready = true;
	files->obj = calloc(files->nobj ? files->nobj : 1, sizeof(*files->obj));
	if (!files->obj)
		return -ENOMEM;
	for (size_t i = 0; i < files->nobj; i++)
		files->obj[i].fd = -1;
	for (size_t k = 0; k < nbdev; k++) {
		files->obj[nfiles + k].major = bdevs[k][0];
		files->obj[nfiles + k].minor = bdevs[k][1];
	}
	/* each file is closed after its last request */
	for (size_t i = 0; i < nreq; i++)
		files->obj[req[i].obj].pending++;
	return 0;
}

void replay_files_free(struct replay_files *files)
{
	for (size_t i = 0; files->obj && i < files->nobj; i++)
		if (files->obj[i].fd >= 0)
			close(files->obj[i].fd);
	free(files->obj);
	files->obj = NULL;
	if (!files->ready)
		return;		/* never initialised: nothing more to undo */
	for (int i = 0; i < REPLAY_FILES_LOCKS; i++)
		pthread_mutex_destroy(&files->locks[i]);
	pthread_mutex_destroy(&files->causes_lock);
	files->ready = false;
}

size_t replay_files_raise_limit(unsigned jobs)
{
	struct rlimit rl;
	rlim_t reserve;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 64;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t want = rl.rlim_max;

		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20))
		rl.rlim_cur = 1u << 20;
	/* each worker holds up to two more while it opens a file */
	reserve = REPLAY_FD_RESERVE + 2 * (rlim_t)jobs;
	return rl.rlim_cur > 2 * reserve ? (size_t)(rl.rlim_cur - reserve) :
	       rl.rlim_cur > 16 ? (size_t)rl.rlim_cur / 2 : 4;
}

void replay_files_open_bdevs(struct replay_files *files)
{
	for (size_t i = files->nfiles; i < files->nobj; i++) {
		struct replay_obj *ob = &files->obj[i];
		int fd = dev_block_open(ob->major, ob->minor);
		uint64_t size = 0;

		ob->fd = -1;
		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0) {
			log_info("cannot open block device %u:%u: %s, skipping its metadata",
				 ob->major, ob->minor, strerror(fd < 0 ? -fd : errno));
			if (fd >= 0)
				close(fd);
			ob->state = REPLAY_OBJ_MISSING;
			continue;
		}
		ob->fd = fd;
		ob->size = size;
		ob->state = REPLAY_OBJ_OK;
	}
}

int replay_files_open_file(const struct ura_pack *pack, const struct replay_fs *fs, uint32_t idx,
			   bool read_stale, int *ret_fd, uint64_t *ret_size, int *ret_err)
{
	struct ura_pack_file f;
	struct statx stx;
	int fd, st;

	if (ret_err)
		*ret_err = 0;
	if (ura_pack_get_file(pack, idx, &f) < 0 || fs[f.fs_index].dirfd < 0)
		return REPLAY_OBJ_MISSING;
	fd = safeopen_file(fs[f.fs_index].dirfd, f.path, &stx);
	if (fd < 0) {
		switch (fd) {
		case -ENOENT:
		case -ENOTDIR:
			return REPLAY_OBJ_MISSING;
		case -EISDIR:
		case -EBADFD:
			return REPLAY_OBJ_REFUSED;	/* not a regular file, or replaced meanwhile */
		case -ELOOP:
		case -EXDEV:
		case -ENAMETOOLONG:
			st = REPLAY_OBJ_REFUSED;
			break;
		default:
			st = REPLAY_OBJ_ERROR;
			break;
		}
		if (ret_err)
			*ret_err = -fd;
		return st;
	}
	/* inode check: a stale pack must not prefetch a replaced or rewritten file */
	switch (fileid_compare(fd, &stx, &f)) {
	case FILEID_SAME:
		st = REPLAY_OBJ_OK;
		break;
	case FILEID_WRITTEN:
		st = REPLAY_OBJ_WRITTEN;
		break;
	default:
		st = REPLAY_OBJ_STALE;
		break;
	}
	if (st != REPLAY_OBJ_OK && !read_stale) {
		close(fd);
		return st;
	}
	*ret_fd = fd;
	*ret_size = stx.stx_size;
	return st;
}

/* Open file @idx of the pack as replay_files_open_file() does, with --fadvise=random. */
static int open_file(const struct replay_files *files, uint32_t idx, int *ret_fd,
		     uint64_t *ret_size, int *ret_err)
{
	int fd = -1, st;

	st = replay_files_open_file(files->pack, files->fs, idx, files->read_stale, &fd, ret_size,
				    ret_err);
	if (fd < 0)
		return st;
	if (files->fadvise_random)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	*ret_fd = fd;
	return st;
}

void replay_files_name(const struct replay_files *files, uint32_t idx, char *buf, size_t len)
{
	const struct replay_fs *fs;
	struct ura_pack_file f;

	if (idx >= files->nfiles) {
		snprintf(buf, len, "block device %u:%u", files->obj[idx].major,
			 files->obj[idx].minor);
		return;
	}
	if (ura_pack_get_file(files->pack, idx, &f) < 0) {
		snprintf(buf, len, "#%u", idx);
		return;
	}
	fs = &files->fs[f.fs_index];
	snprintf(buf, len, "%s%s%s", fs->dir ? fs->dir : "",
		 fs->dir && strcmp(fs->dir, "/") != 0 ? "/" : "", f.path);
}

void replay_files_note_failure(struct replay_files *files, int err)
{
	struct replay_files_counts *st = &files->counts;
	unsigned k;

	pthread_mutex_lock(&files->causes_lock);
	for (k = 0; k < st->ncauses; k++)
		if (st->causes[k].err == err)
			break;
	if (k == st->ncauses && k < REPLAY_REPORT_CAUSES)
		st->causes[st->ncauses++].err = err;
	if (k < REPLAY_REPORT_CAUSES)
		st->causes[k].count++;
	pthread_mutex_unlock(&files->causes_lock);
}

static void count(uint64_t *v)
{
	__atomic_fetch_add(v, 1, __ATOMIC_RELAXED);
}

/* The first open of file @i: count and log what was found. */
static void first_open(struct replay_files *files, uint32_t i, struct replay_obj *ob)
{
	char name[PATH_MAX + 64];
	int err = 0;

	ob->fd = -1;
	ob->state = (uint8_t)open_file(files, i, &ob->fd, &ob->size, &err);
	if (ob->fd >= 0)
		__atomic_fetch_add(&files->open_files, 1, __ATOMIC_RELAXED);
	if (ob->state != REPLAY_OBJ_OK)
		replay_files_name(files, i, name, sizeof(name));
	switch (ob->state) {
	case REPLAY_OBJ_STALE:
		count(&files->counts.stale_files);
		log_info("'%s' was replaced since the trace, %s", name,
			 ob->fd >= 0 ? "reading it anyway" : "skipping");
		break;
	case REPLAY_OBJ_WRITTEN:
		count(&files->counts.written_files);
		log_info("'%s' was written since the trace, %s", name,
			 ob->fd >= 0 ? "reading it anyway" : "skipping");
		break;
	case REPLAY_OBJ_MISSING:
		count(&files->counts.missing_files);
		log_debug("'%s' is missing, skipping", name);
		break;
	case REPLAY_OBJ_REFUSED:
		count(&files->counts.refused_files);
		log_warn("'%s' is not a regular file on its filesystem, skipping", name);
		break;
	case REPLAY_OBJ_ERROR:
		count(&files->counts.errors);
		replay_files_note_failure(files, err);
		log_warn("cannot open '%s': %s, skipping", name, strerror(err));
		break;
	}
}

/* File @i was closed to stay within the file limit: open it again, checked again. */
static void reopen(struct replay_files *files, uint32_t i, struct replay_obj *ob)
{
	char name[PATH_MAX + 64];
	int err = 0, st = open_file(files, i, &ob->fd, &ob->size, &err);

	if (ob->fd >= 0) {
		__atomic_fetch_add(&files->open_files, 1, __ATOMIC_RELAXED);
		return;
	}
	ob->reopen_failed = true;
	replay_files_name(files, i, name, sizeof(name));
	if (st == REPLAY_OBJ_ERROR) {
		count(&files->counts.errors);
		replay_files_note_failure(files, err);
		log_warn("cannot open '%s' again: %s, skipping", name, strerror(err));
	} else {
		log_info("'%s' changed during the replay, skipping", name);
	}
}

int replay_files_get(struct replay_files *files, uint32_t i)
{
	pthread_mutex_t *lock = &files->locks[i % REPLAY_FILES_LOCKS];
	struct replay_obj *ob = &files->obj[i];
	int fd;

	pthread_mutex_lock(lock);
	if (ob->state == REPLAY_OBJ_UNOPENED)
		first_open(files, i, ob);
	else if (ob->fd < 0 && i < files->nfiles && !ob->reopen_failed &&
		 (ob->state == REPLAY_OBJ_OK ||
		  ((ob->state == REPLAY_OBJ_STALE || ob->state == REPLAY_OBJ_WRITTEN) &&
		   files->read_stale)))
		reopen(files, i, ob);
	fd = ob->fd;
	if (fd >= 0)
		ob->users++;
	pthread_mutex_unlock(lock);
	return fd;
}

void replay_files_put(struct replay_files *files, uint32_t i, int fd, enum replay_release how)
{
	pthread_mutex_t *lock = &files->locks[i % REPLAY_FILES_LOCKS];
	struct replay_obj *ob = &files->obj[i];
	bool done;

	pthread_mutex_lock(lock);
	if (fd >= 0 && ob->users)
		ob->users--;
	if (how == REPLAY_RELEASE_HANDLED && ob->pending)
		ob->pending--;
	done = how == REPLAY_RELEASE_HANDLED && !ob->pending;
	if (i < files->nfiles && ob->fd >= 0 && !ob->users &&
	    (done || __atomic_load_n(&files->open_files, __ATOMIC_RELAXED) > files->fd_cap)) {
		close(ob->fd);
		ob->fd = -1;
		__atomic_fetch_sub(&files->open_files, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(lock);
}
