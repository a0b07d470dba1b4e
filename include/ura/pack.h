/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libura: read, build and write ura pack files (the format is in ura-pack(5)) */
#ifndef URA_PACK_H
#define URA_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef URA_API
#define URA_API __attribute__((visibility("default")))
#endif

#define URA_PACK_VERSION_MAJOR 1
#define URA_PACK_VERSION_MINOR 1	/* 1.1: packs merged from several runs; the access log */

/* Runs a merged pack can name: one bit each in a u64 run mask. */
#define URA_PACK_MAX_RUNS 64

/* Bytes in one pack page: ranges count pages of this size on every machine. */
#define URA_PACK_PAGE_SIZE UINT64_C(4096)

/* Returned by an index field when the record refers to nothing. */
#define URA_PACK_NO_INDEX UINT32_MAX

/* struct ura_pack_fs.flags */
#define URA_PACK_FS_HAS_UUID		(1u << 0)	/* uuid[] holds the filesystem UUID */

/* struct ura_pack_file.flags */
#define URA_PACK_FILE_HAS_GENERATION	(1u << 0)	/* generation is the inode generation */
#define URA_PACK_FILE_HAS_BTIME		(1u << 1)	/* btime_ns is the birth time */

/* struct ura_pack_range.flags */
#define URA_PACK_RANGE_DEMANDED		(1u << 0)	/* the traced run used these pages */

/* struct ura_pack_info.flags */
#define URA_PACK_INFO_NO_ACCESS_EVENTS	(1u << 0)	/* kernel had no access events: all demanded */
#define URA_PACK_INFO_SYSTEM		(1u << 1)	/* system-wide trace (boot) */
#define URA_PACK_INFO_COLD		(1u << 2)	/* page cache was dropped before tracing */
#define URA_PACK_INFO_ACCESS_TRUNCATED	(1u << 3)	/* the access log stopped at its limit */
#define URA_PACK_INFO_WARM		(1u << 4)	/* most pages used were cached before the trace */

/* struct ura_pack_access.kind */
#define URA_PACK_ACCESS_READ		1u	/* read(): one filemap_get_pages over first..last */
#define URA_PACK_ACCESS_FAULT		2u	/* a page fault on page first (== last) of a mapping */

/* struct ura_pack_access.flags */
#define URA_PACK_ACCESS_EXEC		(1u << 0)	/* instruction fetch: an executable mapping */
#define URA_PACK_ACCESS_NO_AROUND	(1u << 1)	/* no fault-around: write or COW fault (or not seen) */
#define URA_PACK_ACCESS_MISSED		(1u << 2)	/* fault-around did not map it: filemap_fault ran */
#define URA_PACK_ACCESS_GUESSED		(1u << 3)	/* page unknown: first is the window's first page */

/* struct ura_pack_ra_fs.flags */
#define URA_PACK_RA_FS_LARGE_FOLIOS	(1u << 0)	/* the trace saw folios larger than a page */

/* A filesystem the pack refers to. Strings are NUL-terminated and owned by the pack. */
struct ura_pack_fs {
	uint32_t major;			/* st_dev of the filesystem (full 20-bit minor) */
	uint32_t minor;
	const char *mount_point;	/* absolute, as seen by the tracer (or relative to --root) */
	const char *fstype;		/* "ext4", ... ("" if unknown) */
	const char *source;		/* mount source, e.g. "/dev/sda1" ("" if unknown) */
	uint32_t flags;			/* URA_PACK_FS_* */
	uint32_t read_ahead_kb;		/* backing device's read_ahead_kb during the trace, 0 unknown */
	uint8_t uuid[16];		/* valid with URA_PACK_FS_HAS_UUID */
};

/* A file the pack refers to. */
struct ura_pack_file {
	uint32_t fs_index;		/* index into the filesystem table */
	uint32_t flags;			/* URA_PACK_FILE_* */
	const char *path;		/* relative to the mount point, no leading '/' */
	size_t path_len;		/* strlen(path) */
	uint64_t ino;
	uint64_t size;			/* bytes, at trace time */
	int64_t mtime_ns;		/* ns since the epoch, at trace time */
	uint64_t generation;		/* with URA_PACK_FILE_HAS_GENERATION */
	int64_t btime_ns;		/* with URA_PACK_FILE_HAS_BTIME */
};

/* Pages of one file, in units of 4096-byte pages. */
struct ura_pack_range {
	uint32_t file_index;		/* index into the file table */
	uint32_t flags;			/* URA_PACK_RANGE_* */
	uint64_t first_page;
	uint32_t page_count;		/* > 0 */
	uint64_t first_access_ns;	/* since the trace began */
};

/* Filesystem metadata read through a block device's own page cache. */
struct ura_pack_meta {
	uint32_t fs_index;		/* filesystem on that device, or URA_PACK_NO_INDEX */
	uint32_t major;			/* the block device */
	uint32_t minor;
	uint64_t offset;		/* bytes into the block device, page aligned */
	uint64_t length;		/* bytes, > 0 */
	uint64_t first_access_ns;
};

/* What is known about the trace that made the pack. */
struct ura_pack_info {
	int64_t created_ns;		/* wall clock, ns since the epoch */
	uint64_t duration_ns;		/* length of the trace */
	uint64_t lost_events;		/* events the ring buffer dropped */
	uint64_t unresolved_inodes;	/* inodes that could not be named */
	uint64_t unresolved_bytes;
	uint32_t flags;			/* URA_PACK_INFO_* */
	uint32_t read_ahead_kb;		/* forced with --read-ahead-kb, 0 if the device default */
	const char *kernel_release;	/* uname -r ("" if unknown) */
	const char *command;		/* the traced command line, or "" */
};

/*
 * One demand access of the traced run, in time order (the optional access log
 * of format 1.1): what the kernel's readahead saw, so that it can be replayed
 * through an emulation of it for other windows (ura-dump --ra-advise). How
 * ura-trace makes them from trace events: ura-trace(8), ACCESS LOG.
 */
struct ura_pack_access {
	uint64_t time_ns;		/* since the trace began */
	uint32_t file_index;		/* index into the file table */
	uint32_t stream;		/* accesses sharing readahead state (an open file): the task */
	uint32_t kind;			/* URA_PACK_ACCESS_READ or _FAULT */
	uint32_t flags;			/* URA_PACK_ACCESS_* */
	uint64_t first, last;		/* pages asked for, inclusive (a fault: one page) */
	uint64_t around_first;		/* FAULT without NO_AROUND: the fault-around window, */
	uint64_t around_last;		/* pages of the file, inclusive */
};

/* What a filesystem's device and the kernel did for readahead during the trace. */
struct ura_pack_ra_fs {
	uint32_t max_sectors_kb;	/* largest request of the device, 0 unknown */
	uint32_t fault_around_pages;	/* pages one fault maps around it, 0 unknown */
	uint32_t flags;			/* URA_PACK_RA_FS_* */
	uint32_t max_segments;		/* memory segments a request can hold, 0 unknown */
	uint32_t max_segment_kb;	/* largest segment, 0 unknown */
};

struct ura_pack;
struct ura_pack_builder;

/**
 * ura_pack_open() - read and validate a pack file
 * @path: file to read
 * @ret: on success, the pack; free with ura_pack_free()
 *
 * Return: 0, or -errno: -ENOENT (and the other open(2) errors), -EBADMSG for a
 * corrupt or truncated pack, -EOPNOTSUPP for a pack needing a newer reader,
 * -EFBIG for a file too large to be a pack, -EINVAL when @path is not a regular
 * file (a FIFO or device is never read), -EISDIR, -ENOMEM.
 */
URA_API int ura_pack_open(const char *path, struct ura_pack **ret);

/**
 * ura_pack_open_file() - open a pack's path for reading, as ura_pack_open() does
 * @path: the file; it is looked at before it is opened (O_PATH), then opened
 *	through /proc/self/fd, so a device or a FIFO is never opened, even through a
 *	symlink. Without /proc (early boot) it is opened by path, O_NOFOLLOW and
 *	O_NONBLOCK, and refused unless it is still the regular file looked at.
 *
 * For a caller that checks the very file (owner, mode) before ura_pack_open_fd().
 * Return: a descriptor (close it), or -errno: -EINVAL (not a regular file),
 * -EISDIR, and the open(2) errors.
 */
URA_API int ura_pack_open_file(const char *path);

/**
 * ura_pack_open_fd() - read and validate a pack from an open file
 * @fd: a file descriptor open for reading; read from offset 0 with pread(), not
 *	closed. Lets a caller check the very file it opened (owner, mode) first.
 * @ret: on success, the pack; free with ura_pack_free()
 *
 * Return: 0, or -errno as ura_pack_open().
 */
URA_API int ura_pack_open_fd(int fd, struct ura_pack **ret);

/**
 * ura_pack_parse() - validate a pack held in memory
 * @data: the bytes of a pack file; copied, the caller keeps ownership
 * @len: their count
 * @ret: on success, the pack; free with ura_pack_free()
 *
 * Return: 0, -EBADMSG, -EOPNOTSUPP or -ENOMEM, as ura_pack_open().
 */
URA_API int ura_pack_parse(const void *data, size_t len, struct ura_pack **ret);

/**
 * ura_pack_error() - what was wrong with the last pack that failed to parse
 *
 * Return: a static, human-readable reason for the last -EBADMSG or -EOPNOTSUPP
 * of ura_pack_open() or ura_pack_parse() in this thread ("bad magic", ...).
 */
URA_API const char *ura_pack_error(void);

/** ura_pack_free() - release a pack; NULL is allowed */
URA_API void ura_pack_free(struct ura_pack *pack);

/* Counts of the tables. */
URA_API size_t ura_pack_fs_count(const struct ura_pack *pack);
URA_API size_t ura_pack_file_count(const struct ura_pack *pack);
URA_API size_t ura_pack_range_count(const struct ura_pack *pack);
URA_API size_t ura_pack_meta_count(const struct ura_pack *pack);

/**
 * ura_pack_get_fs() - decode one record (likewise _get_file, _get_range, _get_meta)
 * @pack: a parsed pack
 * @index: 0 .. count - 1
 * @ret: filled on success; its strings point into @pack and live as long as it
 *
 * Ranges come in first-access order. Records are decoded from the file image on
 * each call, nothing is copied ahead of time.
 *
 * Return: 0, or -ERANGE when @index is past the end.
 */
URA_API int ura_pack_get_fs(const struct ura_pack *pack, size_t index, struct ura_pack_fs *ret);
URA_API int ura_pack_get_file(const struct ura_pack *pack, size_t index, struct ura_pack_file *ret);
URA_API int ura_pack_get_range(const struct ura_pack *pack, size_t index,
			       struct ura_pack_range *ret);
URA_API int ura_pack_get_meta(const struct ura_pack *pack, size_t index,
			      struct ura_pack_meta *ret);

/** ura_pack_get_info() - trace metadata; strings live as long as @pack */
URA_API void ura_pack_get_info(const struct ura_pack *pack, struct ura_pack_info *ret);

/**
 * ura_pack_runs() - how many runs (traces) a pack was merged from
 *
 * Return: 1 to URA_PACK_MAX_RUNS; 1 for a pack without a run table (every
 * version 1.0 pack, and 1.1 packs of a single trace).
 */
URA_API size_t ura_pack_runs(const struct ura_pack *pack);

/**
 * ura_pack_get_run() - when one of the merged runs was traced
 * @index: 0 .. ura_pack_runs() - 1; run 0 is the newest, and run i is bit i of
 *	the run masks of ura_pack_get_range_support()
 * @ret_created_ns: if not NULL, the run's wall-clock start, ns since the epoch
 * @ret_duration_ns: if not NULL, the length of its trace
 *
 * A pack without a run table is one run: the trace of ura_pack_get_info().
 * Return: 0, or -ERANGE when @index is past the end.
 */
URA_API int ura_pack_get_run(const struct ura_pack *pack, size_t index, int64_t *ret_created_ns,
			     uint64_t *ret_duration_ns);

/**
 * ura_pack_get_range_support() - which runs had the pages of a range
 * ura_pack_get_meta_support() - likewise for a metadata range
 * @index: as for ura_pack_get_range() (ura_pack_get_meta())
 * @ret_support: if not NULL, how many runs had them (1 .. ura_pack_runs())
 * @ret_mask: if not NULL, those runs: bit i is run i of ura_pack_get_run()
 *
 * A pack that records no support (version 1.0, or a single trace) reads as
 * support ura_pack_runs() (that is, 1) and a mask of every run.
 * Return: 0, or -ERANGE when @index is past the end.
 */
URA_API int ura_pack_get_range_support(const struct ura_pack *pack, size_t index,
				       uint32_t *ret_support, uint64_t *ret_mask);
URA_API int ura_pack_get_meta_support(const struct ura_pack *pack, size_t index,
				      uint32_t *ret_support, uint64_t *ret_mask);

/**
 * ura_pack_pending_count() - pending ranges of a merged pack
 * ura_pack_get_pending() - decode one
 * @ret: the pages, as a range (flags: DEMANDED)
 * @ret_support: if not NULL, how many runs had them (fewer than the merge needed)
 * @ret_mask: if not NULL, those runs, as for ura_pack_get_range_support()
 *
 * Pending ranges are pages too few of the merged runs had: not to be
 * prefetched, but kept so that a later merge, adding runs, still counts the
 * runs that had them. Their file may have no other range.
 * Return: the count (0 for packs without); 0 or -ERANGE when @index is past the end.
 */
URA_API size_t ura_pack_pending_count(const struct ura_pack *pack);
URA_API int ura_pack_get_pending(const struct ura_pack *pack, size_t index,
				 struct ura_pack_range *ret, uint32_t *ret_support, uint64_t *ret_mask);

/**
 * ura_pack_access_count() - records in the access log (format 1.1)
 * ura_pack_get_access() - decode one
 * @index: 0 .. count - 1, in time order
 * @ret: filled on success; around_first and around_last are 0 unless @ret is a
 *	FAULT without URA_PACK_ACCESS_NO_AROUND
 *
 * The log is the demand accesses of one trace to the files of the pack, in the
 * order the kernel saw them. Records are decoded on each call; reading them in
 * order decodes each once (a cursor per thread), any other order costs up to
 * 32 record decodes a call. Safe to call from several threads.
 *
 * Return: the count (0 for packs without: merged packs, older traces, traces
 * made without access events); 0, or -ERANGE when @index is past the end.
 */
URA_API size_t ura_pack_access_count(const struct ura_pack *pack);
URA_API int ura_pack_get_access(const struct ura_pack *pack, size_t index,
				struct ura_pack_access *ret);

/**
 * ura_pack_get_ra_fs() - readahead facts of filesystem @fs_index (format 1.1)
 *
 * Return: 0, -ENODATA when the pack has none for it (packs without an access
 * log), -ERANGE past the filesystem table.
 */
URA_API int ura_pack_get_ra_fs(const struct ura_pack *pack, size_t fs_index,
			       struct ura_pack_ra_fs *ret);

/** ura_pack_version() - format version of a parsed pack */
URA_API void ura_pack_version(const struct ura_pack *pack, unsigned *major, unsigned *minor);

/**
 * ura_pack_builder_new() - start an empty pack in memory
 * Return: 0 or -ENOMEM.
 */
URA_API int ura_pack_builder_new(struct ura_pack_builder **ret);

/** ura_pack_builder_free() - release a builder; NULL is allowed */
URA_API void ura_pack_builder_free(struct ura_pack_builder *b);

/**
 * ura_pack_builder_add_fs() - append a filesystem; strings are copied
 * @ret_index: if not NULL, its index for ura_pack_file.fs_index
 * Return: 0, -EINVAL (NULL mount point, or one not absolute and normalised), -ENOMEM.
 */
URA_API int ura_pack_builder_add_fs(struct ura_pack_builder *b, const struct ura_pack_fs *fs,
				    uint32_t *ret_index);

/**
 * ura_pack_builder_add_file() - append a file; the path is copied
 * Return: 0, -EINVAL (fs_index unknown, path empty, absolute or with a NUL), -ENOMEM.
 */
URA_API int ura_pack_builder_add_file(struct ura_pack_builder *b, const struct ura_pack_file *f,
				      uint32_t *ret_index);

/**
 * ura_pack_builder_add_range() - append pages of a file
 * Ranges may be added in any order; the pack stores them by first access. Where
 * ranges of a file overlap, the pack holds each page once: in the range of its
 * earliest first access, demanded when any of them was (ranges that overlap no
 * other are stored as added).
 * Return: 0, -EINVAL (unknown file, no pages, page overflow), -ENOMEM.
 */
URA_API int ura_pack_builder_add_range(struct ura_pack_builder *b, const struct ura_pack_range *r);

/**
 * ura_pack_builder_add_meta() - append a block-device metadata range
 * Return: 0, -EINVAL (unknown filesystem, empty or unaligned), -ENOMEM.
 */
URA_API int ura_pack_builder_add_meta(struct ura_pack_builder *b, const struct ura_pack_meta *m);

/**
 * ura_pack_builder_add_run() - name one more run of a merged pack
 * @created_ns: the run's wall-clock start, ns since the epoch
 * @duration_ns: the length of its trace
 *
 * Runs are numbered in the order added: the first is run 0 and must be the
 * newest. A builder with runs writes a version 1.1 pack with the run table and
 * the support of every range; one without (nor an access log or readahead
 * facts) writes version 1.0, as before.
 * Return: 0, -E2BIG (more than URA_PACK_MAX_RUNS runs), -ENOMEM.
 */
URA_API int ura_pack_builder_add_run(struct ura_pack_builder *b, int64_t created_ns,
				     uint64_t duration_ns);

/**
 * ura_pack_builder_add_range_runs() - append pages of a file seen by some runs
 * ura_pack_builder_add_meta_runs() - likewise for a metadata range
 * @runs_mask: the runs that had them, bit i = run i of ura_pack_builder_add_run();
 *	the support is the number of bits. ura_pack_builder_add_range() and
 *	ura_pack_builder_add_meta() give every run added so far.
 *
 * As ura_pack_builder_add_range() (_add_meta()); where ranges overlap, a page
 * keeps the runs of the range it is stored in.
 * Return: 0, -EINVAL (as there, or a mask that is empty or names a run not
 * added), -ENOMEM.
 */
URA_API int ura_pack_builder_add_range_runs(struct ura_pack_builder *b,
					    const struct ura_pack_range *r, uint64_t runs_mask);
URA_API int ura_pack_builder_add_meta_runs(struct ura_pack_builder *b,
					   const struct ura_pack_meta *m, uint64_t runs_mask);

/**
 * ura_pack_builder_add_pending() - append pages too few runs had (see ura_pack_get_pending())
 * @runs_mask: the runs that had them
 * Return: 0, -EINVAL (unknown file, no pages, page overflow, a bad mask), -E2BIG, -ENOMEM.
 */
URA_API int ura_pack_builder_add_pending(struct ura_pack_builder *b, const struct ura_pack_range *r,
					 uint64_t runs_mask);

/**
 * ura_pack_builder_add_access() - append to the access log, in time order
 * @a: an access to a file added; the window is read only for a FAULT without
 *	URA_PACK_ACCESS_NO_AROUND
 *
 * A builder with an access log (or readahead facts) writes a version 1.1 pack
 * with the optional sections ACCESS (and RA_FS), which readers that do not know
 * them skip. A record takes 3 to 37 bytes in the pack (ura-pack(5)), mostly 4 to 12.
 *
 * Return: 0, -EINVAL (a file not added yet, an unknown kind or flag, fault
 * flags on a READ, GUESSED with NO_AROUND, a time earlier than the previous
 * record's, last < first, pages past 2^51, a FAULT of more than one page or
 * outside its window, a window of 2^20 pages or more), -E2BIG (2^32 records),
 * -ENOMEM.
 */
URA_API int ura_pack_builder_add_access(struct ura_pack_builder *b,
					const struct ura_pack_access *a);

/**
 * ura_pack_builder_set_ra_fs() - readahead facts of filesystem @fs_index (added before)
 *
 * Setting them again replaces them.
 * Return: 0, -EINVAL (an unknown filesystem or flag, 2^20 fault-around pages
 * or more), -ENOMEM.
 */
URA_API int ura_pack_builder_set_ra_fs(struct ura_pack_builder *b, uint32_t fs_index,
				       const struct ura_pack_ra_fs *r);

/**
 * ura_pack_builder_error() - why a call on @b failed
 *
 * Return: a static, human-readable reason for the most recent -EINVAL or
 * -E2BIG of a builder call ("range without pages", ...; a later call that
 * succeeds does not clear it), or "no error" when there was none.
 */
URA_API const char *ura_pack_builder_error(const struct ura_pack_builder *b);

/** ura_pack_builder_set_info() - trace metadata; strings are copied. Return: 0 or -ENOMEM. */
URA_API int ura_pack_builder_set_info(struct ura_pack_builder *b, const struct ura_pack_info *info);

/**
 * ura_pack_builder_serialize() - encode the pack
 * @ret_data: on success a malloc()ed buffer the caller frees
 * @ret_len: its length
 * Return: 0, -E2BIG (a table beyond the format's limits), -ENOMEM.
 */
URA_API int ura_pack_builder_serialize(struct ura_pack_builder *b, void **ret_data, size_t *ret_len);

/**
 * ura_pack_builder_write() - write the pack atomically
 * @path: destination; replaced only once the new pack is complete on disk
 * @mode: permission bits of the new file (e.g. 0644)
 *
 * Writes a temporary file in the same directory, fsyncs it, renames it over
 * @path and fsyncs the directory. On failure @path is untouched and no
 * temporary file is left.
 *
 * Return: 0 or -errno (-ENOSPC, -EIO, -EFBIG, -EACCES, ...).
 */
URA_API int ura_pack_builder_write(struct ura_pack_builder *b, const char *path, unsigned mode);

/**
 * ura_pack_builder_normalize() - put the ranges as the pack will store them
 * @b: the builder
 *
 * Where ranges of a file overlap, each page is kept once (as
 * ura_pack_builder_add_range() says), and the ranges go in first-access order.
 * ura_pack_builder_serialize() and ura_pack_builder_write() do this first
 * anyway; call it before reading the ranges back (ura_pack_builder_get_range())
 * to read them as ura_pack_get_range() would from the pack written. Ranges
 * added afterwards are read as added until the next call.
 *
 * Return: 0, -E2BIG (more ranges than the format holds), -ENOMEM; on failure
 * the ranges are as they were.
 */
URA_API int ura_pack_builder_normalize(struct ura_pack_builder *b);

/**
 * ura_pack_builder_fs_count() - read a builder back: counts of its tables
 * (likewise _file_count, _range_count, _meta_count, _pending_count)
 * @b: the builder
 *
 * Each reader of a parsed pack has a twin that reads a builder, and returns
 * what the reader would return from the pack written now: so that a program
 * that built a pack can use it (merge it, look at it) without encoding and
 * parsing it. Ranges are as added, unless ura_pack_builder_normalize() was
 * called since.
 *
 * Return: the number of records added.
 */
URA_API size_t ura_pack_builder_fs_count(const struct ura_pack_builder *b);
URA_API size_t ura_pack_builder_file_count(const struct ura_pack_builder *b);
URA_API size_t ura_pack_builder_range_count(const struct ura_pack_builder *b);
URA_API size_t ura_pack_builder_meta_count(const struct ura_pack_builder *b);
URA_API size_t ura_pack_builder_pending_count(const struct ura_pack_builder *b);

/**
 * ura_pack_builder_get_fs() - read back one record, as ura_pack_get_fs()
 * (likewise _get_file, _get_range, _get_meta, as ura_pack_get_file(), ...)
 * @b: the builder
 * @index: 0 .. count - 1
 * @ret: filled on success; its strings point into @b and live until the next
 *	call that adds to @b, or its free
 *
 * Return: 0, or -ERANGE when @index is past the end.
 */
URA_API int ura_pack_builder_get_fs(const struct ura_pack_builder *b, size_t index,
				    struct ura_pack_fs *ret);
URA_API int ura_pack_builder_get_file(const struct ura_pack_builder *b, size_t index,
				      struct ura_pack_file *ret);
URA_API int ura_pack_builder_get_range(const struct ura_pack_builder *b, size_t index,
				       struct ura_pack_range *ret);
URA_API int ura_pack_builder_get_meta(const struct ura_pack_builder *b, size_t index,
				      struct ura_pack_meta *ret);

/**
 * ura_pack_builder_get_info() - the trace metadata set, as ura_pack_get_info()
 *
 * Without ura_pack_builder_set_info(), zeros and empty strings. The strings
 * live as those of ura_pack_builder_get_fs().
 */
URA_API void ura_pack_builder_get_info(const struct ura_pack_builder *b,
				       struct ura_pack_info *ret);

/**
 * ura_pack_builder_runs() - the runs the pack will name, as ura_pack_runs()
 * ura_pack_builder_get_run() - one of them, as ura_pack_get_run()
 *
 * A builder without ura_pack_builder_add_run() writes a pack of one run: the
 * trace of its info.
 * Return: 1 to URA_PACK_MAX_RUNS; 0, or -ERANGE when @index is past the end.
 */
URA_API size_t ura_pack_builder_runs(const struct ura_pack_builder *b);
URA_API int ura_pack_builder_get_run(const struct ura_pack_builder *b, size_t index,
				     int64_t *ret_created_ns, uint64_t *ret_duration_ns);

/**
 * ura_pack_builder_get_range_support() - which runs had a range's pages, as
 *	ura_pack_get_range_support() (likewise _get_meta_support)
 * ura_pack_builder_get_pending() - a pending range, as ura_pack_get_pending()
 *
 * A range added without a mask (ura_pack_builder_add_range()) reads as had by
 * every run added, at the time of the call.
 * Return: 0, or -ERANGE when @index is past the end.
 */
URA_API int ura_pack_builder_get_range_support(const struct ura_pack_builder *b, size_t index,
					       uint32_t *ret_support, uint64_t *ret_mask);
URA_API int ura_pack_builder_get_meta_support(const struct ura_pack_builder *b, size_t index,
					      uint32_t *ret_support, uint64_t *ret_mask);
URA_API int ura_pack_builder_get_pending(const struct ura_pack_builder *b, size_t index,
					 struct ura_pack_range *ret, uint32_t *ret_support,
					 uint64_t *ret_mask);

/*
 * An index of a parsed pack: each file's ranges in page order, files in order
 * of first access, and files by (filesystem, inode) or (filesystem, path). It
 * refers to the pack, which must outlive it.
 */
struct ura_pack_index;

/* ura_pack_index_new() tables; 0 means all */
#define URA_PACK_INDEX_RANGES	(1u << 0)	/* ranges by file, files by first access */
#define URA_PACK_INDEX_INODES	(1u << 1)	/* ura_pack_index_find_inode() */
#define URA_PACK_INDEX_PATHS	(1u << 2)	/* ura_pack_index_find_path() */
#define URA_PACK_INDEX_ALL	(URA_PACK_INDEX_RANGES | URA_PACK_INDEX_INODES | URA_PACK_INDEX_PATHS)

/**
 * ura_pack_index_new() - index a pack
 * @pack: a parsed pack
 * @tables: URA_PACK_INDEX_* to build (0: all); each costs time and memory in
 *	proportion to the ranges or files it covers, so ask for what you use
 * @ret: on success, the index; free with ura_pack_index_free()
 * Return: 0, -EINVAL (unknown table) or -ENOMEM. A lookup in a table that was
 * not built returns -ENODATA.
 */
URA_API int ura_pack_index_new(const struct ura_pack *pack, unsigned tables,
			       struct ura_pack_index **ret);

/** ura_pack_index_free() - release an index; NULL is allowed */
URA_API void ura_pack_index_free(struct ura_pack_index *index);

/**
 * ura_pack_index_file_ranges() - the ranges of one file, in page order
 * @file_index: 0 .. ura_pack_file_count() - 1
 * @ret_ranges: range indices (for ura_pack_get_range()) by first page, then
 *	first access; owned by @index. Ranges may overlap in packs made elsewhere.
 * @ret_count: their count (0 for a file without ranges)
 * Return: 0, or -ERANGE when @file_index is past the end.
 */
URA_API int ura_pack_index_file_ranges(const struct ura_pack_index *index, size_t file_index,
				       const uint32_t **ret_ranges, size_t *ret_count);

/**
 * ura_pack_index_files() - the files in order of first access
 * @ret_files: file indices: the files with ranges by their earliest range, then
 *	those without, by index; owned by @index
 * @ret_count: ura_pack_file_count()
 * Return: 0 (-ENODATA without URA_PACK_INDEX_RANGES).
 */
URA_API int ura_pack_index_files(const struct ura_pack_index *index, const uint32_t **ret_files,
				 size_t *ret_count);

/**
 * ura_pack_index_find_inode() - the file with inode @ino on filesystem @fs_index
 * ura_pack_index_find_path() - the file with @path (relative to the mount point)
 * @ret_file: the lowest file index that matches
 * Return: 0, or -ENOENT when no file matches.
 */
URA_API int ura_pack_index_find_inode(const struct ura_pack_index *index, uint32_t fs_index,
				      uint64_t ino, size_t *ret_file);
URA_API int ura_pack_index_find_path(const struct ura_pack_index *index, uint32_t fs_index,
				     const char *path, size_t *ret_file);

#ifdef __cplusplus
}
#endif

#endif
