// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-dump: show what a pack holds */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-dump.h"
#include "dump-compare.h"
#include "dump-html.h"
#include "dump-svg.h"
#include "dump-text.h"
#include "dump-ra.h"
#include "cli-exit-codes.h"
#include "util-log.h"
#include "cli-errors.h"
#include "sys-view.h"

static int advise(const struct dump_options *o, const struct ura_pack *pack)
{
	struct ra_advice a;
	struct ra_device dev;
	struct ura_pack_fs fs = { 0 };
	struct sys_view *view = NULL;
	FILE *log = NULL;
	int r;

	if (!ura_pack_access_count(pack)) {
		log_err("pack '%s' has no access log: trace the program again with this "
			"version of ura-trace (merged packs have none)", o->pack);
		return EXIT_DATAERR;
	}
	if (o->ra_log) {
		log = fopen(o->ra_log, "we");
		if (!log) {
			log_err("cannot write '%s': %s", o->ra_log, strerror(errno));
			return EXIT_FAIL;
		}
	}
	(void)ura_pack_get_fs(pack, ra_advise_fs(pack, NULL), &fs);
	/* the device's facts and model, read (or measured) once: then the advice asks nothing */
	r = sys_view_read(0, &view);
	if (r == 0)
		r = ra_advise_measure(view, &fs, &o->model);
	if (r == 0)
		ra_advise_model(view, &fs, &o->model, &dev);
	sys_view_unref(view);
	if (r == 0)
		r = ra_advise(pack, &dev.model, log, &a);
	if (log && fclose(log) != 0 && r == 0)
		log_warn("cannot write '%s': %s", o->ra_log, strerror(errno));
	if (r < 0) {
		log_err("cannot emulate readahead for '%s': %s", o->pack, strerror(-r));
		return EXIT_FAIL;
	}
	r = dump_ra_advice(stdout, pack, o->pack, &a, &dev, o->format == DUMP_JSON, o->verbosity);
	ra_advise_free(&a);
	if (r < 0) {
		log_err("cannot write output: %s", strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* An output file named on the command line, "-" for standard output. */
static FILE *open_out(const char *path)
{
	return strcmp(path, "-") == 0 ? stdout : fopen(path, "we");
}

/* Close it; @r is the writer's result. Return: 0 or -errno. */
static int close_out(FILE *f, int r)
{
	if (f == stdout)
		return r < 0 ? r : fflush(f) == 0 ? 0 : -errno;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	return r;
}

/* --svg and --html: each file written, or the first failure reported. */
static int pictures(const struct dump_options *o, const struct ura_pack *pack)
{
	const char *out[2] = { o->svg, o->html };

	for (int i = 0; i < 2; i++) {
		FILE *f;
		int r;

		if (!out[i])
			continue;
		f = open_out(out[i]);
		if (!f)
			r = -errno;
		else if (i == 0)
			r = close_out(f, dump_svg(f, pack, o->pack, o->rows));
		else
			r = close_out(f, dump_html(f, pack, o->pack, o->rows));
		if (r < 0) {
			log_err("cannot write '%s': %s", out[i], strerror(-r));
			return EXIT_FAIL;
		}
	}
	return EXIT_OK;
}

/* --compare: A and B read, compared, printed or written as a page. */
static int compare(const struct dump_options *o)
{
	struct ura_pack *a = NULL, *b = NULL;
	struct compare *c = NULL;
	const char *failed = o->pack;
	int r, rc = EXIT_OK;

	r = ura_pack_open(o->pack, &a);
	if (r == 0) {
		failed = o->pack_b;
		r = ura_pack_open(o->pack_b, &b);
	}
	if (r < 0) {
		log_err("cannot read pack '%s': %s", failed, cli_pack_strerror(r));
		rc = cli_pack_exit_code(r);
		goto out;
	}
	r = compare_new(a, b, &c);
	if (r == 0 && o->html) {
		FILE *f = open_out(o->html);

		r = f ? close_out(f, dump_html_compare(f, c, o->pack, o->pack_b)) : -errno;
		if (r < 0) {
			log_err("cannot write '%s': %s", o->html, strerror(-r));
			rc = EXIT_FAIL;
			goto out;
		}
	} else if (r == 0) {
		r = compare_print(stdout, c, o->pack, o->pack_b, o->format == DUMP_JSON);
	}
	if (r < 0) {
		log_err("cannot compare: %s", strerror(-r));
		rc = EXIT_FAIL;
	}
out:
	compare_free(c);
	ura_pack_free(a);
	ura_pack_free(b);
	return rc;
}

int main(int argc, char *argv[])
{
	struct dump_options o;
	struct ura_pack *pack = NULL;
	struct ra_counts *per_file = NULL;
	struct dump_hits hits = { 0 };
	int r;

	r = dump_parse_args(argc, argv, &o);
	if (r <= 0)
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	log_set_level(LOG_LVL_INFO + o.verbosity);
	if (o.compare)
		return compare(&o);

	r = ura_pack_open(o.pack, &pack);
	if (r < 0) {
		log_err("cannot read pack '%s': %s", o.pack, cli_pack_strerror(r));
		return cli_pack_exit_code(r);
	}
	if (o.ra_advise) {
		r = advise(&o, pack);
		ura_pack_free(pack);
		return r;
	}
	if (o.svg || o.html) {
		r = pictures(&o, pack);
		ura_pack_free(pack);
		return r;
	}
	if (o.format != DUMP_TEXT &&
	    ra_advise_hits(pack, &per_file, &hits.total, &hits.window_kb) == 0)
		hits.per_file = per_file;
	r = dump_pack(stdout, pack, o.pack, o.format, o.sort, hits.per_file ? &hits : NULL);
	free(per_file);
	ura_pack_free(pack);
	if (r < 0) {
		log_err("cannot write output: %s", strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
