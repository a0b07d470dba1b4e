/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The replay engine: open a pack's files safely, skip what is resident, readahead() the rest */
#ifndef URA_REPLAY_H
#define URA_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ura/pack.h>

/* ioprio(2) values, as the kernel encodes them */
#define REPLAY_IOPRIO_CLASS_SHIFT	13
#define REPLAY_IOPRIO_RT		1
#define REPLAY_IOPRIO_BE		2
#define REPLAY_IOPRIO_IDLE		3
#define REPLAY_IOPRIO(cls, level)	((int)((cls) << REPLAY_IOPRIO_CLASS_SHIFT | (level)))

/* Defaults, chosen by the measurements in bench/ (see README) */
#define REPLAY_DEFAULT_JOBS		2
#define REPLAY_DEFAULT_IOPRIO		REPLAY_IOPRIO(REPLAY_IOPRIO_BE, 4)
#define REPLAY_DEFAULT_LEAD_NS		0ull			/* no pacing */
#define REPLAY_DEFAULT_QUEUE_NS		50000000ull		/* 50 ms of device time queued */
#define REPLAY_DEFAULT_BIN_NS		1000000000ull		/* rotational time bins */
#define REPLAY_DEFAULT_AVAIL_PCT	10			/* keep 10% of RAM available */
#define REPLAY_FALLBACK_CHUNK		(128u << 10)		/* when the device is unknown */
#define REPLAY_WAIT_TIMEOUT_NS		(120ull * 1000000000ull)
#define REPLAY_RETRACE_STALE_PCT	10			/* --mark-stale: share of bad files */
#define REPLAY_FD_RESERVE		64			/* descriptors kept for other uses */
#define REPLAY_META_MAX			(1ull << 30)		/* a metadata range on a device of unknown size */
#define REPLAY_PAST_SIZE		(1ull << 30)		/* planned past a file's recorded size */
#define REPLAY_RETRACE_AGE_NS		(30ull * 24 * 3600 * 1000000000ull)	/* or pack age */

enum replay_stale { REPLAY_STALE_SKIP, REPLAY_STALE_READ };

/* When to measure a device's costs: --probe */
enum replay_probe { REPLAY_PROBE_AUTO, REPLAY_PROBE_ALWAYS, REPLAY_PROBE_NEVER };

/* What to replay and how; filled by parse_args() (src/cli-replay.c). */
struct replay_options {
	const char *pack;		/* the pack file */
	const char *root;		/* replay under this directory instead of the live mounts */
	const char *mark_stale;		/* create this file when the pack needs tracing again */
	bool all;			/* also speculative ranges */
	bool wait;			/* return when the pages are resident */
	bool daemon;			/* detach once the pack is read */
	bool json;			/* report as one JSON object */
	bool dry_run;			/* schedule, report, no I/O */
	bool fadvise_random;		/* POSIX_FADV_RANDOM on the replay's files */
	enum replay_stale stale;
	enum replay_probe probe;	/* measure devices without a model: once, always, never */
	unsigned jobs;			/* worker threads, >= 1 */
	int ioprio;			/* REPLAY_IOPRIO(), or -1 to leave it alone */
	uint64_t lead_ns;		/* stay at most this far ahead of the trace; 0: no pacing */
	uint64_t inflight;		/* bytes in flight per device at most; 0: by queue_ns */
	uint64_t queue_ns;		/* else device time in flight at most; 0: no limit */
	int rotational;			/* -1 auto (sysfs), 0 no, 1 yes */
	uint64_t chunk;			/* bytes per readahead(); 0: by device */
	uint64_t max_bytes;		/* stop after issuing this much; 0: no limit */
	uint64_t min_available;		/* stop before MemAvailable falls below; 0: default share */
	unsigned min_available_pct;	/* ... or this share of MemTotal, when min_available is 0 */
	uint64_t request_ns;		/* cost model: cost of a request; 0: by device type */
	uint64_t bandwidth;		/* cost model: bytes per second; 0: by device type */
	int verbosity;			/* -v count minus -q count */
};

/** replay_options_init() - fill @o with the defaults */
void replay_options_init(struct replay_options *o);

#define REPLAY_REPORT_DEVS	8	/* devices listed in the report */
#define REPLAY_REPORT_CAUSES	8	/* distinct errors listed */

/* One device of the plan: where its cost model came from, and what was planned on it. */
struct replay_dev_report {
	unsigned major, minor;
	int source;			/* enum devmodel_source */
	uint64_t request_ns;		/* the model: cost of the smallest read */
	uint64_t bandwidth;		/* ... and bytes per second of the largest */
	bool rotational;		/* physical order used */
	uint64_t plan_requests;		/* requests planned on it */
	uint64_t plan_bytes;
	uint64_t plan_ns;		/* their device time by the model */
	uint64_t cold_requests;		/* a cold start's requests, as estimated */
};

/*
 * What a replay did; every byte count is in bytes, and
 * pack_bytes = resident_bytes + issued_bytes + skipped_bytes + past_eof_bytes.
 */
struct replay_stats {
	uint64_t pack_bytes;		/* of the requests made from the pack's selected ranges
					 * (data and metadata): overlaps once, holes merged in */
	uint64_t resident_bytes;	/* already in the page cache, not issued */
	uint64_t issued_bytes;		/* handed to readahead() */
	uint64_t skipped_bytes;		/* of stale, missing or refused files, failed reads,
					 * or past a limit */
	uint64_t past_eof_bytes;	/* past the end of the file or device now */
	uint64_t unresident_bytes;	/* with --wait: still not resident at the end */
	uint64_t requests;		/* readahead() calls */
	uint64_t files;			/* files in the pack that were to be read */
	uint64_t stale_files;		/* changed since the trace */
	uint64_t missing_files;
	uint64_t refused_files;		/* not regular files, symlinks, outside the mount */
	uint64_t errors;		/* failed opens and reads */
	struct {
		int err;		/* errno */
		uint64_t count;
	} causes[REPLAY_REPORT_CAUSES];	/* what the errors were */
	unsigned ncauses;
	struct replay_dev_report devs[REPLAY_REPORT_DEVS];
	unsigned ndevs;
	uint64_t plan_ns;		/* device time of all requests, by the models */
	bool memory_limited;		/* stopped at the MemAvailable floor */
	bool max_bytes_reached;
	uint64_t ns;			/* wall time of the replay */
};

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
 * @o: options
 * @ret: filled with what was done, also on failure
 *
 * Problems with single files (stale, missing, refused, read errors) are
 * counted and logged as warnings, and the replay goes on; errors (failed
 * opens and reads) are also listed by cause in @ret, for the caller to fail on.
 *
 * Return: 0, or -errno when nothing could be done (-ENOMEM, unreadable mountinfo).
 */
int replay_run(const struct ura_pack *pack, const struct replay_options *o,
	       struct replay_stats *ret);

/**
 * replay_needs_retrace() - is the pack worth recording again?
 * @pack: the pack replayed
 * @s: what the replay found
 * @now_ns: wall clock now, ns since the epoch
 *
 * Return: true when more than REPLAY_RETRACE_STALE_PCT percent of its files were
 * stale, missing or refused (a package update replaces files, so this also
 * catches a changed package database), or when the pack is older than
 * REPLAY_RETRACE_AGE_NS.
 */
bool replay_needs_retrace(const struct ura_pack *pack, const struct replay_stats *s,
			  int64_t now_ns);

/**
 * replay_mark_stale() - create the empty flag file @path (the boot trace unit's condition)
 * Return: 0 or -errno.
 */
int replay_mark_stale(const char *path);

#endif
