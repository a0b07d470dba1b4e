// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace: record what a command or the boot brings into the page cache, as a pack */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli-trace.h"
#include "cli-exit-codes.h"
#include "learn-run.h"
#include "sys-kernel-mm.h"
#include "util-log.h"
#include "trace-merge.h"
#include "trace-run.h"
#include "trace-tracer.h"
#include "util-json.h"

#define MIB	(1024.0 * 1024.0)

/* The one-line summary, or JSON with @json. */
static void print_summary(FILE *f, const struct trace_summary *s, bool json)
{
	if (json) {
		struct json j;

		json_begin(&j, f, JSON_COMPACT);
		json_object_begin(&j, JSON_INLINE);
		json_key_u64(&j, "files", s->files);
		json_key_u64(&j, "ranges", s->ranges);
		json_key_u64(&j, "bytes", s->bytes);
		json_key_u64(&j, "demanded_bytes", s->demanded_bytes);
		json_key_u64(&j, "speculative_bytes", s->speculative_bytes);
		json_key_u64(&j, "metadata_bytes", s->meta_bytes);
		json_key_u64(&j, "metadata_ranges", s->meta_ranges);
		json_key_u64(&j, "lost_events", s->lost_events);
		json_key_u64(&j, "unresolved_inodes", s->unresolved_inodes);
		json_key_u64(&j, "unresolved_bytes", s->unresolved_bytes);
		json_key_u64(&j, "pseudo_fs_files", s->skipped_pseudo);
		json_key_u64(&j, "outside_root_files", s->outside_root);
		json_key_u64(&j, "events", s->events);
		json_key_u64(&j, "page_cache_additions", s->add_events);
		json_key_u64(&j, "pages_added", s->added_pages);
		json_key_u64(&j, "filemap_faults", s->fault_events);
		json_key_u64(&j, "mm_faults", s->mm_faults);
		json_key_bool(&j, "access_events", s->access_events);
		json_key_u64(&j, "access_log", s->access_records);
		json_key_bool(&j, "access_log_truncated", s->access_truncated);
		json_key_double(&j, "seconds", s->seconds, 3);
		json_key_u64(&j, "device_reads", s->device_reads);
		json_key_u64(&j, "added_bytes", s->added_pages * (uint64_t)getpagesize());
		json_key_u64(&j, "resolution_kb", s->resolution_kb);
		json_key_u64(&j, "cached_demanded_bytes", s->cached_demanded_bytes);
		json_key_u64(&j, "mapped_demanded_bytes", s->mapped_demanded_bytes);
		json_key_u64(&j, "evicted_files", s->evicted_files);
		json_object_end(&j);
		json_end(&j);
		return;
	}
	fprintf(f, "%s: %" PRIu64 " files, %" PRIu64 " ranges, %.1f MiB (demanded %.1f MiB, "
		"speculative %.1f MiB), metadata %.1f MiB, %" PRIu64 " lost events, %" PRIu64
		" unresolved inodes, %.2f s\n", program_invocation_short_name, s->files, s->ranges,
		(double)s->bytes / MIB, (double)s->demanded_bytes / MIB,
		(double)s->speculative_bytes / MIB, (double)s->meta_bytes / MIB, s->lost_events,
		s->unresolved_inodes, s->seconds);
	if (!s->resolution_kb)
		return;
	fprintf(f, "%s: the run took %.2f s and %" PRIu64 " device reads; it added %.1f MiB to the "
		"page cache and used %.1f MiB (of it and of what was cached), seen to %u KiB\n",
		program_invocation_short_name, s->seconds, s->device_reads,
		(double)(s->added_pages * (uint64_t)getpagesize()) / MIB,
		(double)s->demanded_bytes / MIB,
		s->resolution_kb);
	if (s->cached_demanded_bytes * 5 > s->demanded_bytes && s->demanded_bytes)
		fprintf(f, "%s: %.1f MiB (%.0f%%) of what the run used was cached before it: a warm "
			"start, seen only to fault-around's %u KiB, so the pack may hold more than "
			"the start needs; trace the same command to the same pack again, and its "
			"files are evicted first (or use --cold)\n", program_invocation_short_name,
			(double)s->cached_demanded_bytes / MIB,
			s->cached_demanded_bytes >= s->demanded_bytes ? 100.0 :
			100.0 * (double)s->cached_demanded_bytes / (double)s->demanded_bytes,
			KERNEL_FAULT_AROUND_PAGES * 4);
	else if (s->mapped_demanded_bytes * 10 > s->demanded_bytes && s->resolution_kb > 4)
		fprintf(f, "%s: %.1f MiB of it (%.0f%%) was read ahead and only mapped beside a page the "
			"run touched (fault-around), which a trace at %u KiB cannot tell used or "
			"not: the pack holds it all; at a smaller --read-ahead-kb (or --exact) the "
			"run is slower and the pack holds less of it\n",
			program_invocation_short_name,
			(double)s->mapped_demanded_bytes / MIB,
			100.0 * (double)s->mapped_demanded_bytes / (double)s->demanded_bytes,
			s->resolution_kb);
}

/* What --merge did, in one line or as JSON. */
static void print_merge(FILE *f, const struct merge_stats *s, bool json)
{
	if (json) {
		struct json j;

		json_begin(&j, f, JSON_COMPACT);
		json_object_begin(&j, JSON_INLINE);
		json_key_u64(&j, "runs", s->runs);
		json_key_u64(&j, "runs_in", s->runs_in);
		json_key_u64(&j, "need", s->need);
		json_key_u64(&j, "files_in", s->files_in);
		json_key_u64(&j, "files", s->files);
		json_key_u64(&j, "files_changed", s->files_changed);
		json_key_u64(&j, "ranges", s->ranges);
		json_key_u64(&j, "bytes", s->bytes);
		json_key_u64(&j, "metadata_ranges", s->meta_ranges);
		json_key_u64(&j, "metadata_bytes", s->meta_bytes);
		json_object_end(&j);
		json_end(&j);
		return;
	}
	fprintf(f, "%s: merged %zu of %zu runs (a page needs %zu): %zu of %zu files kept "
		"(%zu changed), %zu ranges, %.1f MiB, metadata %.1f MiB\n",
		program_invocation_short_name, s->runs, s->runs_in, s->need, s->files, s->files_in,
		s->files_changed, s->ranges, (double)s->bytes / MIB, (double)s->meta_bytes / MIB);
}

int main(int argc, char *argv[])
{
	struct trace_options o;
	struct trace_summary sum;
	int r;

	r = trace_parse_args(argc, argv, &o);
	if (r <= 0)
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	log_set_level(LOG_LVL_INFO + o.verbosity);
	if (o.merge) {
		struct merge_stats ms;

		r = trace_merge(&o, &ms);
		if (r != EXIT_OK)
			return r;
		if (o.json)
			print_merge(stdout, &ms, true);
		else if (o.verbosity >= 0)
			print_merge(stderr, &ms, false);
		return EXIT_OK;
	}
	tracer_setup_logging(o.verbosity);

	if (o.watch_dir) {
		bool unavailable = false;

		r = learn_run(&o, &unavailable);
		trace_options_free(&o);
		if (r == -EPERM && !unavailable)
			return EXIT_NOPERM;
		if (r < 0 && unavailable) {
			log_err("cannot trace: %s", r == -ENOENT ? "no tracefs" :
				r == -ENODEV ? "a needed event is missing" : strerror(-r));
			return r == -ENOENT || r == -ENODEV ? EXIT_UNAVAILABLE : EXIT_NOPERM;
		}
		return r < 0 ? EXIT_FAIL : EXIT_OK;
	}
	r = trace_run(&o, &sum);
	if (r < 0) {
		/* reported by trace_run(), except what has an exit code of its own */
		if (o.input)
			return sum.bad_input ? EXIT_NOINPUT : EXIT_FAIL;
		if (sum.not_root)
			return EXIT_NOPERM;
		if (r == -ENOEXEC)
			return sum.exit_status;
		if (r == -EINTR)
			return sum.exit_status ? sum.exit_status : EXIT_FAIL;
		if (!sum.tracing_unavailable)
			return EXIT_FAIL;
		if (r == -ENOENT || r == -ENODEV) {
			log_err("cannot trace: %s", r == -ENOENT ? "no tracefs" :
				"no filemap:mm_filemap_add_to_page_cache event");
			return EXIT_UNAVAILABLE;
		}
		log_err("cannot trace: %s", strerror(-r));
		return EXIT_NOPERM;
	}
	if (o.input && !o.json && o.verbosity >= 0)
		printf("Page-cache additions: %llu (%llu pages)\nFile faults:          %llu\n"
		       "Page faults:          %llu (%.6f s)\n",
		       (unsigned long long)sum.add_events, (unsigned long long)sum.added_pages,
		       (unsigned long long)sum.fault_events, (unsigned long long)sum.mm_faults,
		       (double)sum.mm_fault_ns / 1e9);
	if (o.json)
		print_summary(stdout, &sum, true);
	else if (o.verbosity >= 0)
		print_summary(stderr, &sum, false);
	return o.input || o.system ? EXIT_OK : sum.exit_status;
}
