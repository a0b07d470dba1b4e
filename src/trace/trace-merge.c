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
#include "util.h"

/*
 * The directory's lock is waited for this long at most: any process that can
 * open the directory can hold it (a user, on /tmp), and the daemon holds it for
 * a pack's read-merge-write only.
 */
#define MERGE_LOCK_WAIT_NS	(30ull * 1000 * 1000 * 1000)

static bool past(void *deadline)
{
	return now_monotonic_ns() >= *(uint64_t *)deadline;
}

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
	uint64_t deadline;

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
	deadline = now_monotonic_ns() + MERGE_LOCK_WAIT_NS;
	r = dir ? packdir_lock(dir, past, &deadline, &lock) : -ENOMEM;
	if (r < 0) {
		log_err("cannot lock the directory of '%s': %s", o->pack,
			r == -ETIMEDOUT ? "held by another for 30 s (the learning daemon, or any "
			"process that can open it), not merged" : strerror(-r));
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
