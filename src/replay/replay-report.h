/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a replay did (filled by the engine), and ura-replay's report of it: text or JSON */
#ifndef URA_REPLAY_REPORT_H
#define URA_REPLAY_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define REPLAY_REPORT_DEVS	8	/* devices listed in the report */
#define REPLAY_REPORT_CAUSES	8	/* distinct errors listed */

/* One device of the plan: where its cost model came from, and what was planned on it. */
struct replay_dev_report {
	unsigned major, minor;
	int source;			/* enum dev_model_source */
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
	uint64_t skipped_bytes;		/* of changed, missing or refused files, failed reads,
					 * or past a limit */
	uint64_t past_eof_bytes;	/* past the end of the file or device now */
	uint64_t unresident_bytes;	/* with --wait: still not resident at the end */
	uint64_t requests;		/* readahead() calls */
	uint64_t files;			/* files in the pack that were to be read */
	uint64_t stale_files;		/* replaced since the trace (another inode) */
	uint64_t written_files;		/* written in place since the trace (a log) */
	uint64_t missing_files;
	uint64_t refused_files;		/* not regular files, symlinks, outside the mount */
	uint64_t file_bytes;		/* of the requests on the pack's files (not metadata) */
	uint64_t changed_bytes;		/* of those, on stale, missing or refused files */
	uint64_t written_bytes;		/* of those, on files written in place */
	uint64_t errors;		/* failed opens and reads */
	struct {
		int err;		/* errno */
		uint64_t count;
	} causes[REPLAY_REPORT_CAUSES];	/* what the errors were */
	unsigned ncauses;
	struct replay_dev_report devs[REPLAY_REPORT_DEVS];
	unsigned ndevs;
	uint64_t plan_ns;		/* device time of all requests, by the models */
	/* how the replay kept up: what its devices read meanwhile besides its requests (the
	 * program's own misses, and other readers'), and what such a read waited behind */
	uint64_t others_bytes;
	uint64_t queued_mean_ns;	/* the replay's queue, mean over its issuing */
	bool memory_limited;		/* stopped at the MemAvailable floor */
	bool max_bytes_reached;
	uint64_t ns;			/* wall time of the replay */
};


/**
 * replay_report() - print the end-of-run report
 * @f: where to
 * @s: the stats
 * @json: one JSON object instead of one line of text
 */
void replay_report(FILE *f, const struct replay_stats *s, bool json);

#endif
