// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace: record what a command or the boot brings into the page cache, as a pack */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli-trace.h"
#include "exit-codes.h"
#include "log.h"
#include "record.h"
#include "trace-measure.h"
#include "tracer.h"

int main(int argc, char *argv[])
{
	struct trace_options o;
	struct record_summary sum;
	struct record_opts ro;
	int r;

	r = trace_parse_args(argc, argv, &o);
	if (r <= 0)
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	log_set_level(LOG_LVL_INFO + o.verbosity);
	tracer_setup_logging(o.verbosity);

	ro = (struct record_opts){
		.pack = o.pack,
		.argv = o.argv,
		.system = o.system,
		.duration_ns = o.duration_ns,
		.until_idle_ns = o.until_idle_ns,
		.cold = o.cold,
		.read_ahead_kb = o.read_ahead_kb,
		.root = o.root,
		.input = o.input,
		.buffer_kb = o.buffer_kb,
		.no_access_events = o.events == TRACE_EVENTS_ADD,
		.no_fault_addresses = o.events != TRACE_EVENTS_ALL,
		.verbose = o.verbosity,
	};

	if (o.input) {
		r = record_from_trace_dat(&ro, &sum);
		if (r < 0)	/* reported */
			return sum.bad_input ? EXIT_NOINPUT : EXIT_FAIL;
		if (!o.json && o.verbosity >= 0)
			printf("Page-cache additions: %llu (%llu pages)\nFile faults:          %llu\n"
			       "Page faults:          %llu (%.6f s)\n",
			       (unsigned long long)sum.add_events, (unsigned long long)sum.added_pages,
			       (unsigned long long)sum.fault_events, (unsigned long long)sum.mm_faults,
			       (double)sum.mm_fault_ns / 1e9);
	} else {
		if (geteuid() != 0) {
			log_err("tracing needs root");
			return EXIT_NOPERM;
		}
		r = record_trace(&ro, &sum);
		if (r == -ENOEXEC)
			return sum.exit_status;
		if (r == -EINTR)
			return sum.exit_status ? sum.exit_status : EXIT_FAIL;
		if (r < 0) {
			if (!sum.tracing_unavailable)
				return EXIT_FAIL;	/* reported by record_trace() */
			if (r == -ENOENT || r == -ENODEV) {
				log_err("cannot trace: %s", r == -ENOENT ? "no tracefs" :
					"no filemap:mm_filemap_add_to_page_cache event");
				return EXIT_UNAVAILABLE;
			}
			log_err("cannot trace: %s", strerror(-r));
			return EXIT_NOPERM;
		}
	}
	if (!o.input && sum.pack_written && o.probe >= 0)
		trace_measure_devices(o.pack, o.probe > 0);
	if (o.json)
		record_print_summary(stdout, &sum, true);
	else if (o.verbosity >= 0)
		record_print_summary(stderr, &sum, false);
	return o.input || o.system ? EXIT_OK : sum.exit_status;
}
