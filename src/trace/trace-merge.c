// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace --merge: read the input packs, merge them (merge.c), write the output pack */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-exit-codes.h"
#include "learn-packdir.h"
#include "util-log.h"
#include "cli-errors.h"
#include "trace-merge.h"

int trace_merge(const struct trace_options *o, struct merge_stats *stats)
{
	struct merge_opts mo = { .min_confidence = o->min_confidence, .keep_runs = o->keep_runs };
	struct ura_pack_builder *b = NULL;
	struct ura_pack **in = NULL;
	char *dir = NULL;
	struct stat st;
	mode_t mode = 0644;
	size_t n = 0;
	int lock = -1, r, rc = EXIT_OK;

	while (o->argv[n])
		n++;
	in = calloc(n + 1, sizeof(struct ura_pack *));
	if (!in) {
		log_err("cannot merge: %s", strerror(ENOMEM));
		return EXIT_FAIL;
	}
	/*
	 * The lock of the output's directory, held from reading the inputs to the
	 * rename: the learning daemon takes it around its read-merge-write of a pack
	 * of its DIR, so a hand merge into a pack it learns loses none of its runs,
	 * nor does it lose ours.
	 */
	dir = packdir_of(o->pack);
	r = dir ? packdir_lock(dir, NULL, NULL, &lock) : -ENOMEM;
	if (r < 0) {
		log_err("cannot lock the directory of '%s': %s", o->pack, strerror(-r));
		rc = r == -ENOENT ? EXIT_NOINPUT : EXIT_FAIL;
		goto out;
	}
	/* a pack replaced keeps its mode (a learned pack is 0600) */
	if (stat(o->pack, &st) == 0 && S_ISREG(st.st_mode))
		mode = st.st_mode & 0777;
	/* all inputs are read (and closed) before the output replaces one of them */
	for (size_t i = 0; i < n; i++) {
		r = ura_pack_open(o->argv[i], &in[i]);
		if (r < 0) {
			log_err("cannot read pack '%s': %s", o->argv[i], cli_pack_strerror(r));
			rc = cli_pack_exit_code(r);
			goto out;
		}
	}
	r = merge_packs((const struct ura_pack *const *)in, n, &mo, stats, &b);
	if (r < 0) {
		log_err("cannot merge: %s", strerror(-r));
		rc = EXIT_FAIL;
		goto out;
	}
	r = ura_pack_builder_write(b, o->pack, mode);
	if (r < 0) {
		log_err("cannot write pack '%s': %s", o->pack,
			r == -E2BIG ? ura_pack_builder_error(b) : strerror(-r));
		rc = EXIT_FAIL;
	}
out:
	for (size_t i = 0; in && i < n; i++)
		ura_pack_free(in[i]);
	free(in);
	if (lock >= 0)
		close(lock);
	free(dir);
	ura_pack_builder_free(b);
	return rc;
}
