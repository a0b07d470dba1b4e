/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Learning: new runs + the program's pack so far -> the pack to write (merge_inputs()) */
#ifndef URA_LEARN_MERGE_H
#define URA_LEARN_MERGE_H

#include <stddef.h>

struct merge_stats;
struct ura_pack;
struct ura_pack_builder;

/* --min-confidence and --keep-runs, as given (0: the merge's defaults) */
struct learn_merge_opts {
	double min_confidence;		/* 0 < C <= 1; 0 for the default */
	unsigned keep_runs;		/* 0 for the default */
};

/**
 * learn_merge() - the pack to write for a program after one more learned run
 * @old: the program's pack so far (parsed), or NULL when it has none (or it was unreadable)
 * @run: the new run's pack, as assemble_build() made it; ownership passes to
 *	learn_merge() whatever it returns
 * @o: the confidence rule
 * @ret: on success the builder of the pack to write (the caller frees it)
 *
 * Return: 0 or -errno.
 */
int learn_merge(const struct ura_pack *old, struct ura_pack_builder *run,
		const struct learn_merge_opts *o, struct ura_pack_builder **ret);

/**
 * learn_merge_runs() - as learn_merge(), for @n >= 1 new runs at once (one write for all)
 * @runs: their packs; ownership of each passes to learn_merge_runs() whatever it returns
 * @stats: if not NULL, what the merge did (filled when runs were merged with a pack or
 *	with each other; zeroed for a first single run)
 */
int learn_merge_runs(const struct ura_pack *old, struct ura_pack_builder **runs, size_t n,
		     const struct learn_merge_opts *o, struct merge_stats *stats,
		     struct ura_pack_builder **ret);

#endif
