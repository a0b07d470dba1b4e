// SPDX-License-Identifier: GPL-2.0-or-later
/* Learning: one new run + the program's pack so far -> the pack to write (pack_merge()) */
#include <errno.h>
#include <stdlib.h>

#include <ura/pack.h>

#include "learn-merge.h"
#include "merge-runs.h"

int learn_merge(const struct ura_pack *old, struct ura_pack_builder *run,
		const struct learn_merge_opts *o, struct ura_pack_builder **ret)
{
	struct merge_opts mo = {
		.min_confidence = o->min_confidence > 0 ? o->min_confidence :
				  MERGE_DEFAULT_CONFIDENCE,
		.keep_runs = o->keep_runs,
	};
	const struct ura_pack *in[2];
	struct ura_pack_builder *out = NULL;
	struct ura_pack *new_run = NULL;
	void *data = NULL;
	size_t len = 0;
	int r;

	if (!old) {		/* the first run: the pack is that run */
		*ret = run;
		return 0;
	}
	r = ura_pack_builder_serialize(run, &data, &len);
	if (r == 0)
		r = ura_pack_parse(data, len, &new_run);
	free(data);
	ura_pack_builder_free(run);
	if (r < 0)
		return r;
	in[0] = old;
	in[1] = new_run;
	r = pack_merge(in, 2, &mo, NULL, &out);
	ura_pack_free(new_run);
	if (r < 0)
		return r;
	*ret = out;
	return 0;
}
