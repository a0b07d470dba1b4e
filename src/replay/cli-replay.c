// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay's command line */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "cli-replay.h"
#include "util.h"

void replay_usage(FILE *f)
{
	fputs("Usage:\n"
	      " ura-replay [options] PACK\n"
	      " ura-replay [options] --watch DIR\n"
	      "\n"
	      "Prefetch the pages a pack lists into the page cache; or, with --watch,\n"
	      "those of DIR's pack of each program when it is executed.\n"
	      "\n"
	      "Options:\n"
	      " -a, --all               also read speculative pages (never used when traced)\n"
	      " -w, --wait              return when the pages are resident\n"
	      " -d, --daemon            detach once the pack is read\n"
	      " -n, --dry-run           read and schedule the pack, read no file\n"
	      " -J, --json              print the report as JSON\n"
	      " -j, --jobs N            worker threads (default 2)\n"
	      " -p, --ioprio CLASS[:N]  I/O priority: idle, be or rt, level 0-7 (be:4)\n"
	      " -l, --lead SEC          stay at most SEC ahead of the trace (none)\n"
	      " -i, --inflight LIMIT    queued per device at most: TIMEms, SIZE, auto (the\n"
	      "                         default: two of the device's largest requests, 250ms\n"
	      "                         where read in physical order) or none\n"
	      " -r, --root DIR          find the pack's files under DIR\n"
	      " -s, --stale MODE        changed files: skip (default) or read\n"
	      " -R, --rotational WHEN   disk order within time bins: yes, no or auto\n"
	      " -P, --probe WHEN        measure a device's costs: auto (once), always, never\n"
	      " -c, --chunk SIZE        bytes per request (default: the device's limit)\n"
	      " -m, --max-bytes SIZE    read at most SIZE bytes\n"
	      " -M, --min-available SZ  stop before MemAvailable falls below SZ or N% (10%)\n"
	      " -C, --request-cost SEC  cost model: time of one request (measured)\n"
	      " -B, --bandwidth SIZE    cost model: bytes per second (measured)\n"
	      " -F, --fadvise MODE      advice on the replay's files: random or none\n"
	      "     --read MODE         follow (readahead(); a thread per device waits for\n"
	      "                         each request in turn), ahead (readahead() alone),\n"
	      "                         wait (readahead(), then pread(): each worker waits\n"
	      "                         for its request) or auto (the default: follow, ahead\n"
	      "                         where read in physical order)\n"
	      " -S, --mark-stale FILE   create FILE when the pack should be recorded again\n"
	      " -k, --check-stale       check that the pack's files are unchanged, read no\n"
	      "                         data (with --mark-stale: mark a stale pack)\n"
	      " -W, --watch DIR         at each exec, replay the program's pack in DIR\n"
	      "                         (named by its root and path); run until SIGTERM\n"
	      " -x, --max-replays N     --watch: replays at once (default 2)\n"
	      " -v, --verbose           say more\n"
	      " -q, --quiet             print errors only\n"
	      "\n"
	      " -h, --help              display this help\n"
	      " -V, --version           display version\n"
	      "\n"
	      "See ura-replay(8).\n", f);
}

static int parse_ioprio(const char *s, int *ret)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	uint64_t level = 4;
	int cls;

	if (n == 4 && strncmp(s, "idle", 4) == 0)
		cls = REPLAY_IOPRIO_IDLE;
	else if (n == 2 && strncmp(s, "be", 2) == 0)
		cls = REPLAY_IOPRIO_BE;
	else if (n == 2 && strncmp(s, "rt", 2) == 0)
		cls = REPLAY_IOPRIO_RT;
	else
		return -EINVAL;
	if (colon && (parse_u64(colon + 1, &level) < 0 || level > 7))
		return -EINVAL;
	if (cls == REPLAY_IOPRIO_IDLE) {
		if (colon)
			return -EINVAL;	/* the idle class has no levels */
		level = 0;
	}
	*ret = REPLAY_IOPRIO(cls, (int)level);
	return 0;
}

static int parse_min_available(const char *s, struct replay_options *o)
{
	size_t n = strlen(s);
	uint64_t v;

	if (n > 1 && s[n - 1] == '%') {
		char buf[32];

		if (n > sizeof(buf))
			return -EINVAL;
		memcpy(buf, s, n - 1);
		buf[n - 1] = '\0';
		if (parse_u64(buf, &v) < 0 || v > 100)
			return -EINVAL;
		o->min_available = 0;
		o->min_available_pct = (unsigned)v;
		return 0;
	}
	if (parse_size(s, &v) < 0)
		return -EINVAL;
	o->min_available = v;
	if (!v)
		o->min_available_pct = 0;
	return 0;
}

enum { OPT_READ = 256 };

int replay_parse_args(int argc, char *argv[], struct replay_options *o)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "wait", no_argument, NULL, 'w' },
		{ "daemon", no_argument, NULL, 'd' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "ioprio", required_argument, NULL, 'p' },
		{ "lead", required_argument, NULL, 'l' },
		{ "inflight", required_argument, NULL, 'i' },
		{ "root", required_argument, NULL, 'r' },
		{ "stale", required_argument, NULL, 's' },
		{ "rotational", required_argument, NULL, 'R' },
		{ "probe", required_argument, NULL, 'P' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "max-bytes", required_argument, NULL, 'm' },
		{ "min-available", required_argument, NULL, 'M' },
		{ "request-cost", required_argument, NULL, 'C' },
		{ "bandwidth", required_argument, NULL, 'B' },
		{ "fadvise", required_argument, NULL, 'F' },
		{ "read", required_argument, NULL, OPT_READ },
		{ "mark-stale", required_argument, NULL, 'S' },
		{ "check-stale", no_argument, NULL, 'k' },
		{ "watch", required_argument, NULL, 'W' },
		{ "max-replays", required_argument, NULL, 'x' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool probe_given = false;
	uint64_t v;
	int c, r;

	replay_options_init(o);
	optind = 0;	/* full reset: tests call this more than once */
	while ((c = getopt_long(argc, argv, "awdnJj:p:l:i:r:s:R:P:c:m:M:C:B:F:S:kW:x:vqhV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'a':
			o->all = true;
			break;
		case 'w':
			o->wait = true;
			break;
		case 'd':
			o->daemon = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'J':
			o->json = true;
			break;
		case 'k':
			o->check_stale = true;
			break;
		case 'j':
			if (parse_u64(optarg, &v) < 0 || v < 1 || v > 64)
				return cli_bad_value("--jobs", optarg, "expected 1 to 64");
			o->jobs = (unsigned)v;
			break;
		case 'p':
			if (parse_ioprio(optarg, &o->ioprio) < 0)
				return cli_bad_value("--ioprio", optarg,
						     "expected idle, be[:0-7] or rt[:0-7]");
			break;
		case 'l':
			if (strcmp(optarg, "none") == 0)
				o->lead_ns = 0;
			else if (parse_seconds(optarg, &o->lead_ns) < 0)
				return cli_bad_value("--lead", optarg, "expected seconds or none");
			break;
		case 'i': {
			size_t len = strlen(optarg);

			o->inflight = 0;
			o->queue_ns = 0;
			if (strcmp(optarg, "none") == 0 || strcmp(optarg, "0") == 0)
				break;
			if (strcmp(optarg, "auto") == 0) {
				o->queue_ns = REPLAY_QUEUE_AUTO;
				break;
			}
			if (len > 2 && strcmp(optarg + len - 2, "ms") == 0) {
				char num[32];

				if (len - 2 < sizeof(num)) {
					memcpy(num, optarg, len - 2);
					num[len - 2] = '\0';
				}
				if (len - 2 < sizeof(num) && parse_u64(num, &v) == 0 && v > 0 &&
				    v <= 3600000) {
					o->queue_ns = v * 1000000;
					break;
				}
			} else if (parse_size(optarg, &o->inflight) == 0 && o->inflight >= 4096) {
				break;
			}
			return cli_bad_value("--inflight", optarg, "expected a time such as 50ms, "
					     "a size of at least 4K, auto or none");
		}
		case 'r':
			if (!*optarg)
				return cli_bad_value("--root", optarg, "expected a directory");
			o->root = optarg;
			break;
		case 's':
			if (strcmp(optarg, "skip") == 0)
				o->stale = REPLAY_STALE_SKIP;
			else if (strcmp(optarg, "read") == 0)
				o->stale = REPLAY_STALE_READ;
			else
				return cli_bad_value("--stale", optarg, "expected skip or read");
			break;
		case 'R':
			if (strcmp(optarg, "yes") == 0)
				o->rotational = 1;
			else if (strcmp(optarg, "no") == 0)
				o->rotational = 0;
			else if (strcmp(optarg, "auto") == 0)
				o->rotational = -1;
			else
				return cli_bad_value("--rotational", optarg,
						     "expected yes, no or auto");
			break;
		case 'P':
			probe_given = true;
			if (strcmp(optarg, "auto") == 0)
				o->probe = REPLAY_PROBE_AUTO;
			else if (strcmp(optarg, "always") == 0)
				o->probe = REPLAY_PROBE_ALWAYS;
			else if (strcmp(optarg, "never") == 0)
				o->probe = REPLAY_PROBE_NEVER;
			else
				return cli_bad_value("--probe", optarg,
						     "expected auto, always or never");
			break;
		case 'c':
			if (parse_size(optarg, &v) < 0 || v < 4096)
				return cli_bad_value("--chunk", optarg,
						     "expected a size of at least 4K");
			o->chunk = v;
			break;
		case 'm':
			if (parse_size(optarg, &o->max_bytes) < 0)
				return cli_bad_value("--max-bytes", optarg,
						     "expected a size such as 512M");
			break;
		case 'M':
			if (parse_min_available(optarg, o) < 0)
				return cli_bad_value("--min-available", optarg,
						     "expected a size such as 256M, or 0-100%%");
			break;
		case 'C':
			if (parse_seconds(optarg, &v) < 0 || !v)
				return cli_bad_value("--request-cost", optarg,
						     "expected seconds, such as 0.008");
			o->request_ns = v;
			break;
		case 'B':
			if (parse_size(optarg, &v) < 0 || !v)
				return cli_bad_value("--bandwidth", optarg,
						     "expected bytes per second, such as 120M");
			o->bandwidth = v;
			break;
		case OPT_READ:
			if (strcmp(optarg, "wait") == 0)
				o->read = REPLAY_READ_WAIT;
			else if (strcmp(optarg, "follow") == 0)
				o->read = REPLAY_READ_FOLLOW;
			else if (strcmp(optarg, "ahead") == 0)
				o->read = REPLAY_READ_AHEAD;
			else if (strcmp(optarg, "auto") == 0)
				o->read = REPLAY_READ_AUTO;
			else
				return cli_bad_value("--read", optarg,
						     "expected auto, ahead, wait or follow");
			break;
		case 'F':
			if (strcmp(optarg, "random") == 0)
				o->fadvise_random = true;
			else if (strcmp(optarg, "none") == 0)
				o->fadvise_random = false;
			else
				return cli_bad_value("--fadvise", optarg,
						     "expected random or none");
			break;
		case 'S':
			if (!*optarg)
				return cli_bad_value("--mark-stale", optarg, "expected a path");
			o->mark_stale = optarg;
			break;
		case 'W':
			if (!*optarg)
				return cli_bad_value("--watch", optarg, "expected a directory");
			o->watch_dir = optarg;
			break;
		case 'x':
			if (parse_u64(optarg, &v) < 0 || v < 1 || v > 64)
				return cli_bad_value("--max-replays", optarg, "expected 1 to 64");
			o->max_replays = (unsigned)v;
			break;
		default:	/* -v, -q, -h, -V, or one getopt refused */
			r = cli_common_option(c, &o->verbosity, replay_usage);
			if (r <= 0)
				return r;
			break;
		}
	}
	if (o->watch_dir) {
		if (optind != argc)
			return cli_usage_error("--watch takes no pack");
		if (o->wait || o->daemon || o->json || o->mark_stale || o->check_stale)
			return cli_usage_error("--watch excludes --wait, --daemon, --json, "
					       "--mark-stale and --check-stale");
		/* a probe reads the device for seconds while programs start: only when asked */
		if (!probe_given)
			o->probe = REPLAY_PROBE_NEVER;
		return 1;
	}
	if (optind != argc - 1)
		return cli_usage_error(optind >= argc ? "no pack given" : "too many arguments");
	if (o->daemon && o->wait)
		return cli_usage_error("--daemon and --wait exclude each other");
	if (o->check_stale) {
		if (o->wait || o->daemon || o->dry_run)
			return cli_usage_error("--check-stale excludes --wait, --daemon and "
					       "--dry-run");
		/* a check reads no data: never measure a device for it */
		o->probe = REPLAY_PROBE_NEVER;
	}
	o->pack = argv[optind];
	return 1;
}
