/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Merging packs of several runs of one program or boot: the confidence rule (ura-trace --merge) */
#ifndef URA_MERGE_H
#define URA_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ura/pack.h"

struct merge_input;

/*
 * The default --min-confidence: a page must have been in at least 60% of the
 * runs. Measured on python3 starts with a private file per run (bench/README.md, "Merging
 * runs"): it keeps the program's own pages and drops each run's own files; with
 * 2 runs it needs both, with 3 two, with 5 three.
 */
#define MERGE_DEFAULT_CONFIDENCE	0.6

struct merge_opts {
	double min_confidence;	/* (0, 1]: keep what at least this fraction of the runs had */
	unsigned keep_runs;	/* keep only the N newest runs, 1..64; 0: 64 (URA_PACK_MAX_RUNS) */
};

/* What a merge did, for ura-trace's summary and the learning daemon's log line. */
struct merge_stats {
	size_t runs_in;		/* runs in all the inputs */
	size_t runs;		/* runs merged: the newest min(runs_in, keep_runs) */
	size_t need;		/* runs a page needed (of runs; fewer for a changed file) */
	size_t files_in;	/* distinct files (filesystem, path) in the kept runs */
	size_t files;		/* files kept */
	size_t files_changed;	/* files whose content changed between runs (size, mtime, ...) */
	size_t ranges, meta_ranges;
	size_t pending_ranges;	/* pages too few runs had, kept for later merges */
	uint64_t bytes, meta_bytes;
};

/*
 * merge_same_fs() - are @a and @b one filesystem across packs? Their mount points are the same,
 * and their UUIDs when both have one.
 */
bool merge_same_fs(const struct ura_pack_fs *a, const struct ura_pack_fs *b);

/*
 * merge_same_content() - are two records of one file (by filesystem and path) the same
 * content? Size and mtime, and generation and birth time when both know them, are the same.
 */
bool merge_same_content(const struct ura_pack_file *a, const struct ura_pack_file *b);

/**
 * merge_need() - how many of @runs runs a page needs at confidence @c
 * Return: the smallest count k >= 1 with k >= @c * @runs.
 */
size_t merge_need(double c, size_t runs);

/**
 * merge_packs() - merge packs of several runs with the confidence rule
 * @in: the packs; each may itself be a merged pack (its runs count one by one)
 * @n: their count, at least 1
 * @o: confidence and how many runs to keep
 * @stats: if not NULL, filled on success
 * @ret: on success a builder holding the merged pack (version 1.1, runs newest
 *	first), for ura_pack_builder_write(); the caller frees it
 *
 * Runs are ordered by the time their trace began (newest first; of equal
 * times, the later input first) and the newest @o->keep_runs are kept. Files
 * are the same file across runs when their filesystem (mount point, and UUID
 * when both have one) and path are. A file's identity (inode, size, mtime,
 * generation, birth time) is that of the newest run that had it; runs that had
 * other content (size, mtime, generation or birth time differ) do not count for
 * its pages. A page is kept when at least merge_need(C, R) of the runs had it,
 * R being the runs kept less those that had only older content of its file;
 * its first access is the median over the runs that had it (a merged input's
 * range time stands for each of its runs) and it is demanded when that many
 * runs demanded it. Metadata pages are merged likewise by (filesystem, or
 * device when there is none, and offset), R being the runs that had a page of
 * that device some other run did not (a warm run holds only what the layout
 * says a cold start needs, as every run does: it does not vote on what only
 * cold runs read). Trace info is the newest run's,
 * with the lost events summed. The merged pack has no access log and no
 * readahead facts: the logs of different runs interleave nothing meaningful.
 *
 * Pages too few runs had are not lost: they go to the pack's pending ranges
 * (never replayed) with their runs, so that merging one new run at a time into
 * a merged pack gives the same pages as merging all the runs at once (for file
 * pages; metadata below the threshold is forgotten). --keep-runs bounds them:
 * a page whose runs are all forgotten goes.
 *
 * Return: 0, -EINVAL (no input, @o out of range), -E2BIG (a table beyond the
 * format's limits), -ENOMEM.
 */
int merge_packs(const struct ura_pack *const *in, size_t n, const struct merge_opts *o,
		struct merge_stats *stats, struct ura_pack_builder **ret);

/**
 * merge_inputs() - as merge_packs(), of inputs that may be builders not written yet
 * @in: the inputs (merge-input.h), each a parsed pack or a builder; a builder
 *	is read as the pack it would write: its ranges are put as that pack
 *	stores them first (ura_pack_builder_normalize()), nothing else of it changes
 *
 * The result is the same, byte for byte once written, as merge_packs() of the
 * packs the builders write. Return: as merge_packs(); -E2BIG also when a
 * builder holds more ranges than a pack can.
 */
int merge_inputs(const struct merge_input *in, size_t n, const struct merge_opts *o,
		 struct merge_stats *stats, struct ura_pack_builder **ret);

#endif
