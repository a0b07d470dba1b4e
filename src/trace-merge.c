// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace --merge: read the input packs, merge them (merge-runs.c), write the output pack */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli-exit-codes.h"
#include "util-log.h"
#include "cli-errors.h"
#include "trace-merge.h"

int trace_merge(const struct trace_options *o, struct merge_stats *stats)
{
	struct merge_opts mo = { .min_confidence = o->min_confidence, .keep_runs = o->keep_runs };
	struct ura_pack_builder *b = NULL;
	struct ura_pack **in = NULL;
	size_t n = 0;
	int r, rc = EXIT_OK;

	while (o->argv[n])
		n++;
	in = calloc(n + 1, sizeof(struct ura_pack *));
	if (!in) {
		log_err("cannot merge: %s", strerror(ENOMEM));
		return EXIT_FAIL;
	}
	/* all inputs are read (and closed) before the output replaces one of them */
	for (size_t i = 0; i < n; i++) {
		r = ura_pack_open(o->argv[i], &in[i]);
		if (r < 0) {
			log_err("cannot read pack '%s': %s", o->argv[i], pack_strerror(r));
			rc = pack_exit_code(r);
			goto out;
		}
	}
	r = pack_merge((const struct ura_pack *const *)in, n, &mo, stats, &b);
	if (r < 0) {
		log_err("cannot merge: %s", strerror(-r));
		rc = EXIT_FAIL;
		goto out;
	}
	r = ura_pack_builder_write(b, o->pack, 0644);
	if (r < 0) {
		log_err("cannot write pack '%s': %s", o->pack,
			r == -E2BIG ? ura_pack_builder_error(b) : strerror(-r));
		rc = EXIT_FAIL;
	}
out:
	for (size_t i = 0; i < n; i++)
		ura_pack_free(in[i]);
	free(in);
	ura_pack_builder_free(b);
	return rc;
}
