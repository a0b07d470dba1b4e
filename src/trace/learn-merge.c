// SPDX-License-Identifier: GPL-2.0-or-later
/* Learning: new runs + the program's pack so far -> the pack to write (merge_packs()) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ura/pack.h>

#include "learn-merge.h"
#include "merge.h"

/* A builder as a parsed pack, for merge_packs() (which reads packs); the builder is freed. */
static int readable(struct ura_pack_builder *b, struct ura_pack **ret)
{
	void *data = NULL;
	size_t len = 0;
	int r;

	r = ura_pack_builder_serialize(b, &data, &len);
	if (r == 0)
		r = ura_pack_parse(data, len, ret);
	free(data);
	ura_pack_builder_free(b);
	return r;
}

int learn_merge_runs(const struct ura_pack *old, struct ura_pack_builder **runs, size_t n,
		     const struct learn_merge_opts *o, struct merge_stats *stats,
		     struct ura_pack_builder **ret)
{
	struct merge_opts mo = {
		.min_confidence = o->min_confidence > 0 ? o->min_confidence :
				  MERGE_DEFAULT_CONFIDENCE,
		.keep_runs = o->keep_runs,
	};
	const struct ura_pack **in = NULL;
	struct ura_pack **parsed = NULL;
	struct ura_pack_builder *out = NULL;
	size_t nin = 0;
	int r = 0;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!old && n == 1) {		/* the first run: the pack is that run */
		*ret = runs[0];
		return 0;
	}
	in = calloc(n + 1, sizeof(struct ura_pack *));
	parsed = calloc(n + 1, sizeof(struct ura_pack *));
	if (!in || !parsed)
		r = -ENOMEM;
	if (r == 0 && old)
		in[nin++] = old;
	/* oldest first: of runs traced at the same time, merge_packs() takes the later input as newer */
	for (size_t i = 0; i < n; i++) {
		if (r == 0)
			r = readable(runs[i], &parsed[i]);
		else
			ura_pack_builder_free(runs[i]);
		if (r == 0)
			in[nin++] = parsed[i];
	}
	if (r == 0)
		r = merge_packs(in, nin, &mo, stats, &out);
	for (size_t i = 0; parsed && i < n; i++)
		ura_pack_free(parsed[i]);
	free(parsed);
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
