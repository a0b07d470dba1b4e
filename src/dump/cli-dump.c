// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-dump's command line */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cli-dump.h"
#include "cli-errors.h"
#include "dump-picture.h"
#include "util.h"

enum {
	OPT_SVG = 0x100,
	OPT_HTML,
	OPT_ROWS,
	OPT_COMPARE,
};

void dump_usage(FILE *f)
{
	fputs("Usage:\n"
	      " ura-dump [options] PACK\n"
	      " ura-dump --svg OUT | --html OUT [--rows N] PACK\n"
	      " ura-dump --compare [--json | --html OUT] A B\n"
	      "\n"
	      "Show what a ura pack holds: files, pages, metadata and trace details.\n"
	      "\n"
	      "Options:\n"
	      " -s, --sort KEY     order of files: access (default), path or size\n"
	      " -S, --stats        print totals only\n"
	      " -J, --json         print everything as JSON (schema in ura-dump(8))\n"
	      " -A, --ra-advise    the read_ahead_kb that reads least for the traced run\n"
	      "     --device DEV   its costs: DEV's measured model (a /dev node or MAJ:MIN)\n"
	      "     --request-us N its costs: N microseconds a request ...\n"
	      "     --mbps N       ... and N MB/s (10^6 bytes)\n"
	      "     --ra-log FILE  write the emulated readahead decisions at the trace's window\n"
	      "     --svg OUT      draw the start-up in one SVG file (- for standard output)\n"
	      "     --html OUT     the picture and tables of its files in one HTML page\n"
	      "     --rows N       draw N files at most (default 150, 0: all), the rest summed\n"
	      "     --compare      what pack B adds and loses against pack A, file by file\n"
	      " -v, --verbose      say more\n"
	      " -q, --quiet        print errors only\n"
	      "\n"
	      " -h, --help         display this help\n"
	      " -V, --version      display version\n"
	      "\n"
	      "See ura-dump(8).\n", f);
}

static int parse_positive(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || !v || *s == '-' || v > UINT32_MAX)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* --device: MAJ:MIN, or a block device node (looked at, never opened) */
static int parse_device(const char *s, struct dump_options *o)
{
	struct stat st;
	char tail;

	if (sscanf(s, "%u:%u%c", &o->model.major, &o->model.minor, &tail) == 2) {
		o->model.have_dev = true;
		return 0;
	}
	if (stat(s, &st) < 0)
		return cli_bad_value("--device", s, "%s", strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return cli_bad_value("--device", s, "not a block device (nor MAJ:MIN)");
	o->model.major = major(st.st_rdev);
	o->model.minor = minor(st.st_rdev);
	o->model.have_dev = true;
	return 0;
}

int dump_parse_args(int argc, char *argv[], struct dump_options *o)
{
	static const struct option longopts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "stats", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'J' },
		{ "ra-advise", no_argument, NULL, 'A' },
		{ "device", required_argument, NULL, 'D' },
		{ "request-us", required_argument, NULL, 'R' },
		{ "mbps", required_argument, NULL, 'M' },
		{ "ra-log", required_argument, NULL, 'L' },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "rows", required_argument, NULL, OPT_ROWS },
		{ "compare", no_argument, NULL, OPT_COMPARE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r, json = 0, stats = 0, sorted = 0, rows = 0;
	uint64_t n;

	*o = (struct dump_options){ .format = DUMP_TEXT, .sort = DUMP_SORT_ACCESS,
				    .rows = PICTURE_DEFAULT_ROWS };
	optind = 0;	/* full reset: tests call this more than once */
	while ((c = getopt_long(argc, argv, "s:SJAvqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			sorted = 1;
			if (strcmp(optarg, "access") == 0)
				o->sort = DUMP_SORT_ACCESS;
			else if (strcmp(optarg, "path") == 0)
				o->sort = DUMP_SORT_PATH;
			else if (strcmp(optarg, "size") == 0)
				o->sort = DUMP_SORT_SIZE;
			else
				return cli_bad_value("--sort", optarg,
						     "expected access, path or size");
			break;
		case 'S':
			stats = 1;
			break;
		case 'J':
			json = 1;
			break;
		case 'A':
			o->ra_advise = true;
			break;
		case 'D':
			if (parse_device(optarg, o) < 0)
				return -EINVAL;
			break;
		case 'R':
		case 'M': {
			uint64_t v;

			if (parse_positive(optarg, &v) < 0)
				return cli_bad_value(c == 'R' ? "--request-us" : "--mbps", optarg,
						     "expected a whole number, 1 to %u",
						     UINT32_MAX);
			if (c == 'R')
				o->model.request_ns = v * 1000;
			else
				o->model.bandwidth = v * 1000000;
			break;
		}
		case 'L':
			o->ra_log = optarg;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case OPT_HTML:
			o->html = optarg;
			break;
		case OPT_COMPARE:
			o->compare = true;
			break;
		case OPT_ROWS:
			if (parse_u64(optarg, &n) < 0 || n > UINT32_MAX)
				return cli_bad_value("--rows", optarg,
						     "expected a number of files (0: all)");
			o->rows = (size_t)n;
			rows = 1;
			break;
		default:	/* -v, -q, -h, -V, or one getopt refused */
			r = cli_common_option(c, &o->verbosity, dump_usage);
			if (r <= 0)
				return r;
			break;
		}
	}
	if (o->ra_advise && (stats || o->svg || o->html || o->compare))
		return cli_usage_error("--ra-advise goes with --json only (no --stats, --svg, "
				       "--html or --compare)");
	if (!o->ra_advise && (o->model.have_dev || o->model.request_ns || o->model.bandwidth ||
			      o->ra_log))
		return cli_usage_error("--device, --request-us, --mbps and --ra-log go with "
				       "--ra-advise");
	if (json && stats)
		return cli_usage_error("--json and --stats exclude each other (the JSON holds the "
				       "totals)");
	if (o->compare && (o->svg || stats || sorted || rows || (json && o->html)))
		return cli_usage_error("--compare prints text, or --json, or writes --html; no "
				       "--svg, --stats, --sort or --rows");
	if (o->compare) {
		if (argc - optind != 2)
			return cli_usage_error("--compare needs two packs, A and B");
		o->format = json ? DUMP_JSON : DUMP_TEXT;
		o->pack = argv[optind];
		o->pack_b = argv[optind + 1];
		return 1;
	}
	if ((o->svg || o->html) && (json || stats || sorted))
		return cli_usage_error("--svg and --html draw the pack in first-access order, "
				       "without --json, --stats or --sort");
	if (o->svg && o->html && strcmp(o->svg, "-") == 0 && strcmp(o->html, "-") == 0)
		return cli_usage_error("--svg and --html cannot both write to standard output");
	if (rows && !o->svg && !o->html)
		return cli_usage_error("--rows is for the picture (--svg, --html)");
	o->format = json ? DUMP_JSON : stats ? DUMP_STATS : DUMP_TEXT;
	if (optind != argc - 1)
		return cli_usage_error(optind >= argc ? "no pack given" : "too many arguments");
	o->pack = argv[optind];
	return 1;
}
