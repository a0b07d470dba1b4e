/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What to replay and how: ura-replay's options and their defaults, read by every replay stage */
#ifndef URA_REPLAY_OPTIONS_H
#define URA_REPLAY_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

/* ioprio(2) values, as the kernel encodes them */
#define REPLAY_IOPRIO_CLASS_SHIFT	13
#define REPLAY_IOPRIO_RT		1
#define REPLAY_IOPRIO_BE		2
#define REPLAY_IOPRIO_IDLE		3
#define REPLAY_IOPRIO(cls, level)	((int)((cls) << REPLAY_IOPRIO_CLASS_SHIFT | (level)))

/* Defaults, chosen by the measurements in bench/ (see bench/README.md) */
#define REPLAY_DEFAULT_JOBS		2
#define REPLAY_DEFAULT_MAX_REPLAYS	2			/* --watch: replays at once */
#define REPLAY_DEFAULT_IOPRIO		REPLAY_IOPRIO(REPLAY_IOPRIO_BE, 4)
#define REPLAY_DEFAULT_LEAD_NS		0ull			/* no pacing */
#define REPLAY_QUEUE_AUTO		UINT64_MAX		/* --inflight auto: queue_ns by device */
#define REPLAY_DEFAULT_QUEUE_NS		REPLAY_QUEUE_AUTO
#define REPLAY_PHYSICAL_QUEUE_NS	250000000ull		/* auto, physical order: 250 ms */
#define REPLAY_AUTO_REQUESTS		2			/* ... that many of its largest requests */
#define REPLAY_DEFAULT_BIN_NS		1000000000ull		/* rotational time bins */
#define REPLAY_DEFAULT_AVAIL_PCT	10			/* keep 10% of RAM available */
#define REPLAY_FALLBACK_CHUNK		(128u << 10)		/* when the device is unknown */
#define REPLAY_WAIT_TIMEOUT_NS		(120ull * 1000000000ull)
#define REPLAY_RETRACE_STALE_PCT	10			/* --mark-stale: share of bad files, or bytes */
#define REPLAY_FD_RESERVE		64			/* descriptors kept for other uses */
#define REPLAY_META_MAX			(1ull << 30)		/* a metadata range on a device of unknown size */
#define REPLAY_PAST_SIZE		(1ull << 30)		/* planned past a file's recorded size */
#define REPLAY_RETRACE_AGE_NS		(30ull * 24 * 3600 * 1000000000ull)	/* or pack age */

enum replay_stale { REPLAY_STALE_SKIP, REPLAY_STALE_READ };

/* How a request is read: --read */
enum replay_read {
	REPLAY_READ_AUTO,	/* per device: follow, ahead where read in physical order */
	REPLAY_READ_AHEAD,	/* readahead(); what is queued estimated from the device's counts */
	REPLAY_READ_WAIT,	/* readahead(), then pread(): each worker waits for its request */
	REPLAY_READ_FOLLOW,	/* readahead(); one thread per device waits for each in turn */
};

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
	bool check_stale;		/* check the files' identities only: read no data */
	bool fadvise_random;		/* POSIX_FADV_RANDOM on the replay's files */
	enum replay_stale stale;
	enum replay_read read;		/* --read */
	enum replay_probe probe;	/* measure devices without a model: once, always, never */
	unsigned jobs;			/* worker threads, >= 1 */
	int ioprio;			/* REPLAY_IOPRIO(), or -1 to leave it alone */
	uint64_t lead_ns;		/* stay at most this far ahead of the trace; 0: no pacing */
	uint64_t inflight;		/* bytes in flight per device at most; 0: by queue_ns */
	uint64_t queue_ns;		/* else device time in flight at most; 0: no limit;
					 * REPLAY_QUEUE_AUTO: by each device's model */
	int rotational;			/* -1 auto (sysfs), 0 no, 1 yes */
	uint64_t chunk;			/* bytes per readahead(); 0: by device */
	uint64_t max_bytes;		/* stop after issuing this much; 0: no limit */
	uint64_t min_available;		/* stop before MemAvailable falls below; 0: default share */
	unsigned min_available_pct;	/* ... or this share of MemTotal, when min_available is 0 */
	uint64_t request_ns;		/* cost model: cost of a request; 0: by device type */
	uint64_t bandwidth;		/* cost model: bytes per second; 0: by device type */
	int verbosity;			/* -v count minus -q count */
	const char *watch_dir;		/* --watch: replay DIR's pack of each program exec'd */
	unsigned max_replays;		/* --watch: replays at once, >= 1 */
	const bool *cancel;		/* when set (atomic), stop issuing: the replay returns soon */
};

/** replay_options_init() - fill @o with the defaults */
void replay_options_init(struct replay_options *o);

#endif
