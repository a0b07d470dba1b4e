// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-dump's command line */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cli-dump.h"

void dump_usage(FILE *f)
{
	fputs("Usage:\n"
	      " ura-dump [options] PACK\n"
	      "\n"
	      "Show what a ura pack holds: files, pages, metadata and trace details.\n"
	      "\n"
	      "Options:\n"
	      " -s, --sort KEY     order of files: access (default), path or size\n"
	      " -S, --stats        print totals only\n"
	      " -J, --json         print everything as JSON (schema in ura-dump(8))\n"
	      " -v, --verbose      say more\n"
	      " -q, --quiet        print errors only\n"
	      "\n"
	      " -h, --help         display this help\n"
	      " -V, --version      display version\n"
	      "\n"
	      "See ura-dump(8).\n", f);
}

int dump_parse_args(int argc, char *argv[], struct dump_options *o)
{
	static const struct option longopts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "stats", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'J' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, json = 0, stats = 0;

	*o = (struct dump_options){ .format = DUMP_TEXT, .sort = DUMP_SORT_ACCESS };
	optind = 0;	/* full reset: tests call this more than once */
	while ((c = getopt_long(argc, argv, "s:SJvqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (strcmp(optarg, "access") == 0)
				o->sort = DUMP_SORT_ACCESS;
			else if (strcmp(optarg, "path") == 0)
				o->sort = DUMP_SORT_PATH;
			else if (strcmp(optarg, "size") == 0)
				o->sort = DUMP_SORT_SIZE;
			else {
				fprintf(stderr, "ura-dump: unknown sort key '%s' (access, path or size)\n",
					optarg);
				goto usage;
			}
			break;
		case 'S':
			stats = 1;
			break;
		case 'J':
			json = 1;
			break;
		case 'v':
			o->verbosity++;
			break;
		case 'q':
			o->verbosity--;
			break;
		case 'h':
			dump_usage(stdout);
			return 0;
		case 'V':
			printf("ura-dump %s\n", URA_VERSION);
			return 0;
		default:
			goto usage;
		}
	}
	if (json && stats) {
		fputs("ura-dump: --json and --stats exclude each other (the JSON holds the totals)\n",
		      stderr);
		goto usage;
	}
	o->format = json ? DUMP_JSON : stats ? DUMP_STATS : DUMP_TEXT;
	if (optind != argc - 1) {
		fputs(optind >= argc ? "ura-dump: no pack given\n" : "ura-dump: too many arguments\n",
		      stderr);
		goto usage;
	}
	o->pack = argv[optind];
	return 1;
usage:
	fputs("Try 'ura-dump --help' for more information.\n", stderr);
	return -EINVAL;
}
