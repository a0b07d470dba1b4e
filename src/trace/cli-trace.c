// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace's command line */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "cli-trace.h"
#include "learn-packdir.h"
#include "merge.h"
#include "util.h"

#define RA_KB_MIN	4
#define RA_KB_MAX	1048576u
/*
 * A trace of a command, unless told, runs each device at the read_ahead_kb its
 * cost model gives (--read-ahead-kb auto, rakb_for_model()): a page is seen to
 * that resolution, and the run costs what its bytes cost. At 4 KiB (--exact)
 * every page added is one the run read and the pack is exact, but the traced
 * start reads a page at a time: 3 to 14 times the untraced cold start where
 * requests are dear (bench/README.md). At the device's own value (keep),
 * readahead brings in pages a replay then reads for nothing: on rustc, a pack
 * traced so closed 14-28% of the gap where an exact one closed 64-65%.
 * --system keeps the devices' values unless told (the boot unit asks for 4).
 */

/* Long options without a short form */
enum {
	OPT_NO_ACCESS_LOG = 256,
	OPT_INCLUDE_USER_FILES,
	OPT_MAX_PACKS,
	OPT_MAX_SIZE,
	OPT_LEARN_INTERVAL,
	OPT_NO_EVICT,
	OPT_RA_FOR,
};

void trace_usage(FILE *f)
{
	fputs("Usage:\n"
	      " ura-trace --pack FILE [options] [--] COMMAND [ARG...]\n"
	      " ura-trace --pack FILE --system [options]\n"
	      " ura-trace --pack FILE --input TRACE.DAT [options]\n"
	      " ura-trace --merge [--min-confidence C] [--keep-runs N] --pack FILE PACK...\n"
	      " ura-trace --watch DIR [--window SEC] [--only EXE]... [options]\n"
	      "\n"
	      "Record which pages of which files a command or the whole system brings\n"
	      "into the page cache, and write them to a pack for ura-replay; merge the\n"
	      "packs of several runs, keeping what most runs had; or learn, as a daemon,\n"
	      "what each program uses in the first seconds after its exec.\n"
	      "\n"
	      "Options:\n"
	      " -p, --pack FILE          pack to write (replaced atomically)\n"
	      " -s, --system             trace every process (boot) until SIGINT or SIGTERM\n"
	      " -d, --duration SEC       with --system: stop after SEC seconds\n"
	      " -i, --until-idle SEC     with --system: stop when no page entered the\n"
	      "                            cache for SEC seconds\n"
	      " -c, --cold               drop the page cache first (slows the whole\n"
	      "                            machine for a while)\n"
	      " -r, --read-ahead-kb N    trace with read_ahead_kb N on the devices\n"
	      "                            involved, restored afterwards ('keep': as is;\n"
	      "                            'auto': per device, from its measured costs;\n"
	      "                            default auto for a command or --cold, else keep)\n"
	      "     --read-ahead-for SEC with a command: put the devices' own values back\n"
	      "                            after SEC seconds (default 60) and trace the rest\n"
	      "                            of the run at them\n"
	      " -x, --exact              trace a page at a time (--read-ahead-kb 4): an\n"
	      "                            exact pack, for a slower traced run\n"
	      "     --no-evict           when --pack exists, leave its files in the page\n"
	      "                            cache (by default they are dropped first, where\n"
	      "                            no process maps them, so a warm start is traced\n"
	      "                            as a cold one)\n"
	      " -R, --root DIR           record paths relative to DIR (chroot, image)\n"
	      " -I, --input FILE         build the pack from a trace-cmd trace.dat\n"
	      " -b, --buffer-size SIZE   ring buffer per CPU (K, M, G suffixes)\n"
	      " -e, --events LEVEL       all (default), access (no fault addresses) or\n"
	      "                            add (page-cache additions only, cheapest)\n"
	      "     --no-access-log      leave the access log (each read and fault, in\n"
	      "                            order) out of the pack\n"
	      " -P, --probe WHEN         measure the pack's devices for ura-replay: auto\n"
	      "                            (once per device), always or never\n"
	      " -m, --merge              merge the packs PACK... (runs of one program or\n"
	      "                            boot) into --pack, which may be one of them\n"
	      " -C, --min-confidence C   with --merge or --watch: keep a page when at least\n"
	      "                            this fraction of the runs had it (default 0.6)\n"
	      " -k, --keep-runs N        with --merge or --watch: merge only the N newest\n"
	      "                            runs (1 to 64, default 64)\n"
	      " -w, --watch DIR          learn each exec'd program into DIR/NAME.pack\n"
	      "                            (NAME: systemd-escape --path EXE), until SIGTERM\n"
	      " -W, --window SEC         with --watch: learn the first SEC seconds after\n"
	      "                            exec (default 10)\n"
	      " -o, --only EXE           with --watch: learn only this program (repeat)\n"
	      "     --include-user-files with --watch or --system: programs and files\n"
	      "                            under users' and temporary trees too\n"
	      "     --max-packs N        with --watch: keep at most N packs in DIR\n"
	      "                            (default 1000), the least lately started go\n"
	      "     --max-size SIZE      with --watch: keep DIR under SIZE (default 128M)\n"
	      "     --learn-interval SEC with --watch: after its first 16 runs, learn a\n"
	      "                            program once per SEC at most (default 600)\n"
	      " -J, --json               print the summary as JSON\n"
	      " -v, --verbose            say more (repeat for more)\n"
	      " -q, --quiet              print errors only, no summary\n"
	      "\n"
	      " -h, --help               display this help\n"
	      " -V, --version            display version\n"
	      "\n"
	      "See ura-trace(8).\n", f);
}

void trace_options_free(struct trace_options *o)
{
	free(o->only);
	o->only = NULL;
	o->nonly = 0;
}

static int seconds_arg(const char *opt, const char *arg, uint64_t *ret)
{
	uint64_t ns;

	if (parse_seconds(arg, &ns) < 0 || ns == 0)
		return cli_bad_value(opt, arg, "expected seconds > 0");
	*ret = ns;
	return 0;
}

int trace_parse_args(int argc, char *argv[], struct trace_options *o)
{
	static const struct option longopts[] = {
		{ "pack", required_argument, NULL, 'p' },
		{ "system", no_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "until-idle", required_argument, NULL, 'i' },
		{ "probe", required_argument, NULL, 'P' },
		{ "cold", no_argument, NULL, 'c' },
		{ "read-ahead-kb", required_argument, NULL, 'r' },
		{ "exact", no_argument, NULL, 'x' },
		{ "no-evict", no_argument, NULL, OPT_NO_EVICT },
		{ "read-ahead-for", required_argument, NULL, OPT_RA_FOR },
		{ "root", required_argument, NULL, 'R' },
		{ "input", required_argument, NULL, 'I' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'J' },
		{ "merge", no_argument, NULL, 'm' },
		{ "min-confidence", required_argument, NULL, 'C' },
		{ "keep-runs", required_argument, NULL, 'k' },
		{ "watch", required_argument, NULL, 'w' },
		{ "window", required_argument, NULL, 'W' },
		{ "only", required_argument, NULL, 'o' },
		{ "events", required_argument, NULL, 'e' },
		{ "no-access-log", no_argument, NULL, OPT_NO_ACCESS_LOG },
		{ "include-user-files", no_argument, NULL, OPT_INCLUDE_USER_FILES },
		{ "max-packs", required_argument, NULL, OPT_MAX_PACKS },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "learn-interval", required_argument, NULL, OPT_LEARN_INTERVAL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool ra_given = false, merge_opts = false, live_opts = false, window_given = false;
	bool learn_opts = false, interval_given = false;
	char *end;
	uint64_t v;
	int c;

	*o = (struct trace_options){ 0 };
	optind = 0;	/* full reset: tests call this more than once */
	/* "+": stop at the command, its options are its own */
	o->min_confidence = MERGE_DEFAULT_CONFIDENCE;
	while ((c = getopt_long(argc, argv, "+p:sd:i:cr:xR:I:b:e:P:JmC:k:w:W:o:vqhV", longopts,
				NULL)) != -1) {
		if ((c > 0 && c < 256 && strchr("sdicrxRIbeP", c)) || c == OPT_NO_ACCESS_LOG ||
		    c == OPT_NO_EVICT || c == OPT_RA_FOR)
			live_opts = true;	/* options of a trace, not of --merge */
		switch (c) {
		case 'p':
			o->pack = optarg;
			break;
		case 's':
			o->system = true;
			break;
		case 'd':
			if (seconds_arg("--duration", optarg, &o->duration_ns) < 0)
				goto usage;
			break;
		case 'i':
			if (seconds_arg("--until-idle", optarg, &o->until_idle_ns) < 0)
				goto usage;
			break;
		case 'c':
			o->cold = true;
			break;
		case 'r':
			ra_given = true;
			if (strcmp(optarg, "keep") == 0) {
				o->read_ahead_kb = 0;
				break;
			}
			if (strcmp(optarg, "auto") == 0) {
				o->read_ahead_kb = TRACE_RA_AUTO;
				break;
			}
			if (parse_u64(optarg, &v) < 0 || v < RA_KB_MIN || v > RA_KB_MAX) {
				cli_bad_value("--read-ahead-kb", optarg,
					      "expected 'auto', 'keep' or %u to %u", (unsigned)RA_KB_MIN,
					      (unsigned)RA_KB_MAX);
				goto usage;
			}
			o->read_ahead_kb = (unsigned)v;
			break;
		case OPT_NO_EVICT:
			o->no_evict = true;
			break;
		case OPT_RA_FOR:
			if (seconds_arg("--read-ahead-for", optarg, &o->read_ahead_for_ns) < 0)
				goto usage;
			break;
		case 'x':
			ra_given = true;
			o->read_ahead_kb = TRACE_RA_EXACT;
			break;
		case 'R':
			o->root = optarg;
			break;
		case 'I':
			o->input = optarg;
			break;
		case 'e':
			if (strcmp(optarg, "all") == 0)
				o->events = TRACE_EVENTS_ALL;
			else if (strcmp(optarg, "access") == 0)
				o->events = TRACE_EVENTS_ACCESS;
			else if (strcmp(optarg, "add") == 0)
				o->events = TRACE_EVENTS_ADD;
			else {
				cli_bad_value("--events", optarg, "expected all, access or add");
				goto usage;
			}
			break;
		case OPT_NO_ACCESS_LOG:
			o->no_access_log = true;
			break;
		case 'P':
			if (strcmp(optarg, "auto") == 0)
				o->probe = 0;
			else if (strcmp(optarg, "always") == 0)
				o->probe = 1;
			else if (strcmp(optarg, "never") == 0)
				o->probe = -1;
			else {
				cli_bad_value("--probe", optarg, "expected auto, always or never");
				goto usage;
			}
			break;
		case 'b':
			if (parse_size(optarg, &v) < 0 || v < 4096 || v / 1024 > UINT_MAX) {
				cli_bad_value("--buffer-size", optarg,
					      "expected a size of at least 4K (K, M, G suffixes)");
				goto usage;
			}
			o->buffer_kb = (unsigned)(v / 1024);
			break;
		case 'J':
			o->json = true;
			break;
		case 'm':
			o->merge = true;
			break;
		case 'w':
			o->watch_dir = optarg;
			break;
		case 'W':
			window_given = true;
			if (seconds_arg("--window", optarg, &o->window_ns) < 0)
				goto usage;
			break;
		case 'o': {
			const char **only = realloc(o->only, (o->nonly + 1) * sizeof(*only));

			if (!only) {
				cli_usage_error("out of memory");
				goto usage;
			}
			o->only = only;
			o->only[o->nonly++] = optarg;
			if (optarg[0] != '/') {
				cli_bad_value("--only", optarg, "expected an absolute path");
				goto usage;
			}
			break;
		}
		case OPT_INCLUDE_USER_FILES:
			o->include_user_files = true;
			break;
		case OPT_MAX_PACKS:
			learn_opts = true;
			if (parse_u64(optarg, &v) < 0 || v < 1 || v > 1000000) {
				cli_bad_value("--max-packs", optarg, "expected 1 to 1000000");
				goto usage;
			}
			o->max_packs = (unsigned long)v;
			break;
		case OPT_MAX_SIZE:
			learn_opts = true;
			if (parse_size(optarg, &o->max_size) < 0 || o->max_size == 0) {
				cli_bad_value("--max-size", optarg, "expected a size > 0 "
					      "(K, M, G suffixes)");
				goto usage;
			}
			break;
		case OPT_LEARN_INTERVAL:
			learn_opts = interval_given = true;
			if (parse_seconds(optarg, &o->learn_interval_ns) < 0) {
				cli_bad_value("--learn-interval", optarg, "expected seconds");
				goto usage;
			}
			break;
		case 'C':
			merge_opts = true;
			errno = 0;
			o->min_confidence = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->min_confidence > 0 &&
								 o->min_confidence <= 1)) {
				cli_bad_value("--min-confidence", optarg, "expected a fraction "
					      "of the runs, more than 0 and at most 1");
				goto usage;
			}
			break;
		case 'k':
			merge_opts = true;
			if (parse_u64(optarg, &v) < 0 || v < 1 || v > 64) {
				cli_bad_value("--keep-runs", optarg, "expected 1 to 64");
				goto usage;
			}
			o->keep_runs = (unsigned)v;
			break;
		default: {	/* -v, -q, -h, -V, or one getopt refused */
			int r = cli_common_option(c, &o->verbosity, trace_usage);

			if (r == 0)
				return 0;
			if (r < 0)
				goto usage;
			break;
		}
		}
	}
	if (optind < argc)
		o->argv = &argv[optind];

	if (o->watch_dir) {
		/* learning: a daemon of its own, with the options that make sense always on */
		if (o->pack || o->argv || o->merge || live_opts || o->json) {
			cli_usage_error("--watch takes no --pack, COMMAND, --merge, --system, "
					"--input, --duration, --until-idle, --cold, "
					"--read-ahead-kb, --root, --buffer-size, --events, "
					"--no-access-log, --json or --probe");
			goto usage;
		}
		if (!o->watch_dir[0]) {
			cli_bad_value("--watch", o->watch_dir, "expected a directory");
			goto usage;
		}
		if (!window_given)
			o->window_ns = LEARN_WINDOW_NS;
		if (!o->max_packs)
			o->max_packs = PACKDIR_MAX_PACKS;
		if (!o->max_size)
			o->max_size = PACKDIR_MAX_BYTES;
		if (!interval_given)
			o->learn_interval_ns = LEARN_INTERVAL_NS;
		return 1;
	}
	if (window_given || o->nonly || learn_opts) {
		cli_usage_error("--window, --only, --max-packs, --max-size and --learn-interval "
				"need --watch");
		goto usage;
	}
	if (o->include_user_files && !o->system) {
		cli_usage_error("--include-user-files needs --watch or --system");
		goto usage;
	}
	if (!o->pack) {
		cli_usage_error("no pack given (--pack FILE)");
		goto usage;
	}
	if (!o->pack[0]) {
		cli_bad_value("--pack", o->pack, "expected a file name");
		goto usage;
	}
	if (o->root && !o->root[0]) {
		cli_bad_value("--root", o->root, "expected an absolute path");
		goto usage;
	}
	if (o->merge) {
		if (live_opts) {
			cli_usage_error("--merge takes only --pack, --min-confidence, "
					"--keep-runs and the packs to merge");
			goto usage;
		}
		if (!o->argv) {
			cli_usage_error("nothing to merge: give the packs after the options");
			goto usage;
		}
		for (char **a = o->argv; *a; a++)
			if (!**a) {
				cli_usage_error("empty file name among the packs to merge");
				goto usage;
			}
		return 1;
	}
	if (merge_opts) {
		cli_usage_error("--min-confidence and --keep-runs need --merge or --watch");
		goto usage;
	}
	if ((o->argv != NULL) + o->system + (o->input != NULL) != 1) {
		cli_usage_error(o->argv || o->system || o->input ?
				"give only one of COMMAND, --system and --input" :
				"nothing to trace: give a COMMAND, --system or --input");
		goto usage;
	}
	if ((o->duration_ns || o->until_idle_ns) && !o->system) {
		cli_usage_error("--duration and --until-idle need --system");
		goto usage;
	}
	if (o->input && (o->cold || o->read_ahead_kb || o->buffer_kb || o->no_evict)) {
		cli_usage_error("--cold, --read-ahead-kb, --exact, --no-evict and --buffer-size need "
				"a live trace, not --input");
		goto usage;
	}
	if (o->system && o->no_evict) {
		cli_usage_error("--no-evict needs a COMMAND");
		goto usage;
	}
	if (o->read_ahead_for_ns && !o->argv) {
		cli_usage_error("--read-ahead-for needs a COMMAND");
		goto usage;
	}
	if (!o->read_ahead_for_ns)
		o->read_ahead_for_ns = TRACE_RA_FOR_NS;
	if (!ra_given && (o->cold || (!o->input && !o->system && !o->watch_dir && !o->merge))) {
		o->read_ahead_kb = TRACE_RA_AUTO;
		o->read_ahead_kb_default = true;
	}
	if (o->root && o->root[0] != '/') {
		cli_bad_value("--root", o->root, "expected an absolute path");
		goto usage;
	}
	return 1;
usage:
	trace_options_free(o);		/* what was wrong, and the hint, are said */
	return -EINVAL;
}
