/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's readahead (mm/readahead.c, mm/filemap.c of 6.18) replayed over a pack's access log */
#ifndef URA_RA_EMULATE_H
#define URA_RA_EMULATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ura/pack.h"

struct devmodel;

/* What one window costs, per file or in total. Pages are 4 KiB. */
struct ra_counts {
	uint64_t requests;	/* F: block-device requests (split at max_sectors_kb) */
	uint64_t pages_read;	/* pages read from the device */
	uint64_t unused;	/* G: pages read that the traced run never used */
	uint64_t ra_pages;	/* pages read beyond the ones an access asked for */
	uint64_t ra_used;	/* ... of which the run used */
	uint64_t accessed;	/* pages the accesses asked for */
	uint64_t hits;		/* ... found in the page cache */
	uint64_t io_ns;		/* device time of the requests, by the cost model */
};

/*
 * A pack prepared once for emulation at any window: the access log, each
 * file's size and pages used, what was cached before the trace began.
 */
struct ra_emulation;

/**
 * ra_emulate_new() - prepare @pack (which must outlive the result)
 *
 * Pages the accesses asked for that the trace never saw added were in the
 * page cache before it began: they start cached at every window.
 * Return: 0, -ENODATA (the pack has no access log), -EFBIG (its accesses and
 * ranges span more than 512 GiB of file pages: not a start-up), -ENOMEM.
 */
int ra_emulate_new(const struct ura_pack *pack, struct ra_emulation **ret);

void ra_emulate_free(struct ra_emulation *e);

/* The largest window emulated: 16 MiB. */
#define RA_EMULATE_MAX_KB	16384u

/* Facts of the run the emulation needs besides the pack. */
struct ra_emulate_opts {
	uint32_t window_kb;		/* read_ahead_kb to emulate; 0 is allowed (no readahead) */
	const struct devmodel *model;	/* cost of a request of n bytes; NULL: io_ns stays 0 */
	FILE *decisions;		/* if set, each decision in the tracepoints' format */
};

/**
 * ra_emulate_run() - replay the access log with a maximum window of @o->window_kb
 * @per_file: NULL, or an array of ura_pack_file_count() counts, filled
 * @ret: the totals over the files (metadata not included)
 *
 * Return: 0, -EINVAL (a window past RA_EMULATE_MAX_KB) or -ENOMEM.
 */
int ra_emulate_run(struct ra_emulation *e, const struct ra_emulate_opts *o,
		   struct ra_counts *per_file, struct ra_counts *ret);

/**
 * ra_emulate_reference() - ra_emulate_run() at the trace's own window, noted once
 *
 * The trace sees a fault only where a page was not mapped yet: pages that a
 * fault-around mapped and the run then used leave no event. This run notes,
 * per fault, the used pages its fault-around mapped at @o->window_kb (the
 * trace's), so that later runs at other windows fault on those they do not
 * map; its own counts are those of that window.
 * Return: 0, -EINVAL or -ENOMEM (then later runs go without).
 */
int ra_emulate_reference(struct ra_emulation *e, const struct ra_emulate_opts *o,
			 struct ra_counts *per_file, struct ra_counts *ret);

/* Requests and pages of the pack's metadata: the same at every window. */
void ra_emulate_metadata(const struct ra_emulation *e, const struct devmodel *model,
			 struct ra_counts *ret);

#endif
