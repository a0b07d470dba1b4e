// SPDX-License-Identifier: GPL-2.0-or-later
/* Learning: new runs + the program's pack so far -> the pack to write (merge_inputs()) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ura/pack.h>

#include "learn-merge.h"
#include "merge.h"
#include "merge-input.h"

int learn_merge_runs(const struct ura_pack *old, struct ura_pack_builder **runs, size_t n,
		     const struct learn_merge_opts *o, struct merge_stats *stats,
		     struct ura_pack_builder **ret)
{
	struct merge_opts mo = {
		.min_confidence = o->min_confidence > 0 ? o->min_confidence :
				  MERGE_DEFAULT_CONFIDENCE,
		.keep_runs = o->keep_runs,
	};
	struct ura_pack_builder *out = NULL;
	struct merge_input *in = NULL;
	size_t nin = 0;
	int r = 0;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!old && n == 1) {		/* the first run: the pack is that run */
		*ret = runs[0];
		return 0;
	}
	in = calloc(n + 1, sizeof(*in));
	if (!in) {
		r = -ENOMEM;
		goto out;
	}
	if (old)
		in[nin++].pack = old;
	/*
	 * The runs as built, never encoded and parsed back (merge-input.h), oldest first:
	 * of runs traced at the same time, merge_inputs() takes the later input as newer.
	 */
	for (size_t i = 0; i < n; i++)
		in[nin++].builder = runs[i];
	r = merge_inputs(in, nin, &mo, stats, &out);
out:
	for (size_t i = 0; i < n; i++)
		ura_pack_builder_free(runs[i]);
	free(in);
	if (r < 0)
		return r;
	*ret = out;
	return 0;
}

int learn_merge(const struct ura_pack *old, struct ura_pack_builder *run,
		const struct learn_merge_opts *o, struct ura_pack_builder **ret)
{
	return learn_merge_runs(old, &run, 1, o, NULL, ret);
}
