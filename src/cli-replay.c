// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay's command line */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

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
	      " -i, --inflight LIMIT    queued per device at most: TIMEms or SIZE (50ms)\n"
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
	      " -S, --mark-stale FILE   create FILE when the pack should be recorded again\n"
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

static int bad_arg(const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, "ura-replay: invalid %s '%s' (%s)\n", opt, arg, want);
	return -EINVAL;
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
		{ "mark-stale", required_argument, NULL, 'S' },
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
	int c;

	replay_options_init(o);
	optind = 0;	/* full reset: tests call this more than once */
	while ((c = getopt_long(argc, argv, "awdnJj:p:l:i:r:s:R:P:c:m:M:C:B:F:S:W:x:vqhV", longopts,
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
		case 'j':
			if (parse_u64(optarg, &v) < 0 || v < 1 || v > 64) {
				bad_arg("job count", optarg, "1 to 64");
				goto usage;
			}
			o->jobs = (unsigned)v;
			break;
		case 'p':
			if (parse_ioprio(optarg, &o->ioprio) < 0) {
				bad_arg("I/O priority", optarg, "idle, be[:0-7] or rt[:0-7]");
				goto usage;
			}
			break;
		case 'l':
			if (strcmp(optarg, "none") == 0)
				o->lead_ns = 0;
			else if (parse_seconds(optarg, &o->lead_ns) < 0) {
				bad_arg("lead", optarg, "seconds or none");
				goto usage;
			}
			break;
		case 'i': {
			size_t len = strlen(optarg);

			o->inflight = 0;
			o->queue_ns = 0;
			if (strcmp(optarg, "none") == 0 || strcmp(optarg, "0") == 0)
				break;
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
			bad_arg("in-flight limit", optarg,
				"a time such as 50ms, a size of at least 4K, or none");
			goto usage;
		}
		case 'r':
			if (!*optarg) {
				bad_arg("root", optarg, "a directory");
				goto usage;
			}
			o->root = optarg;
			break;
		case 's':
			if (strcmp(optarg, "skip") == 0)
				o->stale = REPLAY_STALE_SKIP;
			else if (strcmp(optarg, "read") == 0)
				o->stale = REPLAY_STALE_READ;
			else {
				bad_arg("stale mode", optarg, "skip or read");
				goto usage;
			}
			break;
		case 'R':
			if (strcmp(optarg, "yes") == 0)
				o->rotational = 1;
			else if (strcmp(optarg, "no") == 0)
				o->rotational = 0;
			else if (strcmp(optarg, "auto") == 0)
				o->rotational = -1;
			else {
				bad_arg("rotational", optarg, "yes, no or auto");
				goto usage;
			}
			break;
		case 'P':
			probe_given = true;
			if (strcmp(optarg, "auto") == 0)
				o->probe = REPLAY_PROBE_AUTO;
			else if (strcmp(optarg, "always") == 0)
				o->probe = REPLAY_PROBE_ALWAYS;
			else if (strcmp(optarg, "never") == 0)
				o->probe = REPLAY_PROBE_NEVER;
			else {
				bad_arg("probe", optarg, "auto, always or never");
				goto usage;
			}
			break;
		case 'c':
			if (parse_size(optarg, &v) < 0 || v < 4096) {
				bad_arg("chunk size", optarg, "at least 4K");
				goto usage;
			}
			o->chunk = v;
			break;
		case 'm':
			if (parse_size(optarg, &o->max_bytes) < 0) {
				bad_arg("byte count", optarg, "a size such as 512M");
				goto usage;
			}
			break;
		case 'M':
			if (parse_min_available(optarg, o) < 0) {
				bad_arg("memory floor", optarg, "a size such as 256M, or 0-100%");
				goto usage;
			}
			break;
		case 'C':
			if (parse_seconds(optarg, &v) < 0 || !v) {
				bad_arg("request cost", optarg, "seconds, such as 0.008");
				goto usage;
			}
			o->request_ns = v;
			break;
		case 'B':
			if (parse_size(optarg, &v) < 0 || !v) {
				bad_arg("bandwidth", optarg, "bytes per second, such as 120M");
				goto usage;
			}
			o->bandwidth = v;
			break;
		case 'F':
			if (strcmp(optarg, "random") == 0)
				o->fadvise_random = true;
			else if (strcmp(optarg, "none") == 0)
				o->fadvise_random = false;
			else {
				bad_arg("advice", optarg, "random or none");
				goto usage;
			}
			break;
		case 'S':
			if (!*optarg) {
				bad_arg("flag file", optarg, "a path");
				goto usage;
			}
			o->mark_stale = optarg;
			break;
		case 'W':
			if (!*optarg) {
				bad_arg("pack directory", optarg, "a directory");
				goto usage;
			}
			o->watch_dir = optarg;
			break;
		case 'x':
			if (parse_u64(optarg, &v) < 0 || v < 1 || v > 64) {
				bad_arg("replay count", optarg, "1 to 64");
				goto usage;
			}
			o->max_replays = (unsigned)v;
			break;
		case 'v':
			o->verbosity++;
			break;
		case 'q':
			o->verbosity--;
			break;
		case 'h':
			replay_usage(stdout);
			return 0;
		case 'V':
			printf("ura-replay %s\n", URA_VERSION);
			return 0;
		default:
			goto usage;
		}
	}
	if (o->watch_dir) {
		if (optind != argc) {
			fputs("ura-replay: --watch takes no pack\n", stderr);
			goto usage;
		}
		if (o->wait || o->daemon || o->json || o->mark_stale) {
			fputs("ura-replay: --watch excludes --wait, --daemon, --json and --mark-stale\n",
			      stderr);
			goto usage;
		}
		/* a probe reads the device for seconds while programs start: only when asked */
		if (!probe_given)
			o->probe = REPLAY_PROBE_NEVER;
		return 1;
	}
	if (optind != argc - 1) {
		fputs(optind >= argc ? "ura-replay: no pack given\n" :
		      "ura-replay: too many arguments\n", stderr);
		goto usage;
	}
	if (o->daemon && o->wait) {
		fputs("ura-replay: --daemon and --wait exclude each other\n", stderr);
		goto usage;
	}
	o->pack = argv[optind];
	return 1;
usage:
	fputs("Try 'ura-replay --help' for more information.\n", stderr);
	return -EINVAL;
}
