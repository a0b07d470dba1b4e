/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The replay's open files: opened and checked on first use, closed after their last request */
#ifndef URA_REPLAY_FILES_H
#define URA_REPLAY_FILES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ura/pack.h>

#include "replay-mounts.h"
#include "replay-report.h"
#include "replay-schedule.h"

#define REPLAY_FILES_LOCKS	64

enum replay_obj_state {
	REPLAY_OBJ_UNOPENED,
	REPLAY_OBJ_OK,
	REPLAY_OBJ_STALE,	/* replaced since the trace: another inode (a package update) */
	REPLAY_OBJ_WRITTEN,	/* written in place since the trace: a log, a database */
	REPLAY_OBJ_MISSING,
	REPLAY_OBJ_REFUSED,	/* not a regular file on its filesystem */
	REPLAY_OBJ_ERROR,
};

/* A file (index < nfiles) or a block device holding metadata (index >= nfiles). */
struct replay_obj {
	int fd;
	uint8_t state;		/* enum replay_obj_state */
	bool warned;		/* a read failed and was logged */
	bool reopen_failed;	/* closed for the file limit, then could not be opened again */
	uint32_t pending;	/* requests not yet handled; the file is closed at zero */
	uint32_t users;		/* threads using @fd now */
	uint64_t size;		/* bytes now */
	unsigned major, minor;	/* block devices only */
};

/* What the files were found to be, and the failures noted (the engine's reads' too). */
struct replay_files_counts {
	uint64_t stale_files;		/* replaced since the trace */
	uint64_t written_files;		/* written in place since the trace */
	uint64_t missing_files;
	uint64_t refused_files;		/* not regular files, symlinks, outside the mount */
	uint64_t errors;		/* failed opens */
	struct {
		int err;		/* errno */
		uint64_t count;
	} causes[REPLAY_REPORT_CAUSES];	/* of failed opens and reads, by first seen */
	unsigned ncauses;
};

struct replay_files {
	const struct ura_pack *pack;
	const struct replay_fs *fs;	/* per filesystem of the pack */
	struct replay_obj *obj;
	size_t nfiles, nobj;
	bool read_stale;		/* --stale=read */
	bool fadvise_random;		/* --fadvise=random */
	struct replay_files_counts counts;	/* atomic */
	size_t open_files;		/* atomic: descriptors of files held */
	size_t fd_cap;			/* hold at most about this many: close after use beyond */
	pthread_mutex_t causes_lock;
	bool ready;			/* the locks are initialised */
	pthread_mutex_t locks[REPLAY_FILES_LOCKS];
};

#define REPLAY_FILES_READ_STALE		0x1	/* --stale=read: read changed files anyway */
#define REPLAY_FILES_FADVISE_RANDOM	0x2	/* --fadvise=random on each file opened */

/**
 * replay_files_init() - the objects of a plan, none open yet
 * @nfiles: the pack's files are objects 0 .. @nfiles - 1
 * @bdevs: then the block devices holding metadata, @nbdev of them
 * @req: the requests: each file is closed after its last one
 * @flags: REPLAY_FILES_*
 *
 * What is found is counted in @files->counts.
 * The file limit is the caller's: set @files->fd_cap (replay_files_raise_limit()).
 * Return: 0 or -ENOMEM.
 */
int replay_files_init(struct replay_files *files, const struct ura_pack *pack,
		      const struct replay_fs *fs, size_t nfiles, const unsigned (*bdevs)[2],
		      size_t nbdev, const struct sched_item *req, size_t nreq, unsigned flags);

/** replay_files_free() - close every descriptor; accepts a zeroed or half-built @files */
void replay_files_free(struct replay_files *files);

/*
 * replay_files_raise_limit() - raise the soft file limit to the hard one
 * (systemd gives services 1024 of 524288) and return how many files the replay
 * may hold open at once: the limit, less room for the pack, the block devices,
 * sysfs and stdio, and two per worker.
 */
size_t replay_files_raise_limit(unsigned jobs);

/** replay_files_open_bdevs() - open the block devices that hold metadata, by number */
void replay_files_open_bdevs(struct replay_files *files);

/**
 * replay_files_open_file() - open file @idx of @pack as a replay does: the file traced, or why not
 * @fs: where the pack's filesystems are (replay_mounts_find()), indexed like the pack's
 * @read_stale: also give a file that changed since the trace (--stale=read)
 * @ret_fd: the descriptor (O_CLOEXEC, the caller's to close), set only when one is returned:
 *	REPLAY_OBJ_OK, or REPLAY_OBJ_STALE or REPLAY_OBJ_WRITTEN with @read_stale
 * @ret_size: the file's size now, set with @ret_fd
 * @ret_err: if not NULL, the errno of a REPLAY_OBJ_ERROR (and of a REPLAY_OBJ_REFUSED for a
 *	symlink, a crossed mount or a long name: ELOOP, EXDEV, ENAMETOOLONG), else 0
 *
 * The file is opened beneath its filesystem's directory (safeopen_file(): no symlink followed,
 * no mount crossed, a regular file only) and its identity compared with what the pack recorded
 * (fileid_compare()): a stale pack must not prefetch a file that replaced the traced one, nor
 * data written since over what was traced. The
 * one open of the replay's files and of ura-replay --watch's look at a sample of them.
 * Logs nothing, counts nothing.
 *
 * Return: an enum replay_obj_state: REPLAY_OBJ_OK, REPLAY_OBJ_STALE, REPLAY_OBJ_WRITTEN,
 * REPLAY_OBJ_MISSING (no
 * such file, or its filesystem was not found), REPLAY_OBJ_REFUSED, REPLAY_OBJ_ERROR.
 */
int replay_files_open_file(const struct ura_pack *pack, const struct replay_fs *fs, uint32_t idx,
			   bool read_stale, int *ret_fd, uint64_t *ret_size, int *ret_err);

/**
 * replay_files_get() - the descriptor of object @i, or -1 to skip it
 *
 * A file is opened and checked on first use (safeopen_file(), fileid_is_stale()),
 * and again when it was closed to stay within the file limit; what is found is
 * counted and logged once. Release each descriptor returned with replay_files_put().
 */
int replay_files_get(struct replay_files *files, uint32_t i);

enum replay_release {
	REPLAY_RELEASE_HANDLED,	/* one request of the object is handled: close after its last */
	REPLAY_RELEASE_KEEP,	/* a look only (FIEMAP, --wait): keep it open */
};

/**
 * replay_files_put() - release what replay_files_get() gave (@fd may be -1)
 *
 * A file is closed once all of its requests are handled, or at once while more
 * files are open than the limit allows.
 */
void replay_files_put(struct replay_files *files, uint32_t i, int fd, enum replay_release how);

/** replay_files_name() - object @i's name for messages: its path now, or the block device */
void replay_files_name(const struct replay_files *files, uint32_t i, char *buf, size_t len);

/** replay_files_note_failure() - note a failure of @err (an errno) among @files->counts' causes */
void replay_files_note_failure(struct replay_files *files, int err);

#endif
