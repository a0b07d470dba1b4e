/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a trace did, counted by its stages (session, .dat input, assembly) for ura-trace to print */
#ifndef URA_TRACE_SUMMARY_H
#define URA_TRACE_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

/* What a run did: filled by the stages as far as they got. */
struct trace_summary {
	uint64_t files, ranges;
	uint64_t bytes, demanded_bytes, speculative_bytes, meta_bytes, meta_ranges;
	uint64_t lost_events;
	uint64_t unresolved_inodes, unresolved_bytes;
	uint64_t skipped_pseudo;	/* files on pseudo or memory filesystems, left out */
	uint64_t outside_root;		/* files outside --root, left out */
	uint64_t skipped_private;	/* files the assembly's leave_out() kept out (a user's) */
	uint64_t events;		/* records read */
	uint64_t add_events, added_pages;	/* mm_filemap_add_to_page_cache */
	uint64_t fault_events;		/* mm_filemap_fault */
	uint64_t mm_faults;		/* --input: handle_mm_fault calls in a function_graph trace */
	uint64_t mm_fault_ns;		/* --input: their total time */
	bool access_events;		/* demand came from access events */
	uint64_t access_records;	/* accesses in the pack's access log */
	bool access_truncated;		/* the log stopped at its limit */
	bool pack_written;
	bool bad_input;			/* --input missing, not a trace.dat, or without the event */
	bool not_root;			/* a live trace asked for by someone else than root */
	bool tracing_unavailable;	/* no tracefs, no event or no rights */
	double seconds;			/* length of the trace */
	uint64_t device_reads;		/* reads the traced devices completed during the trace */
	unsigned resolution_kb;		/* how finely a page added counts as demanded: the
					 * largest min(read_ahead_kb, fault-around) of the
					 * pack's devices (a cached page: fault-around's) */
	uint64_t evicted_files;		/* files of the replaced pack evicted before the run */
	uint64_t cached_demanded_bytes;	/* demanded bytes that were cached before the trace
					 * (a warm start: seen to fault-around's resolution) */
	uint64_t mapped_demanded_bytes;	/* demanded bytes the run added to the cache and that
					 * were seen only as pages a fault-around window
					 * mapped beside the touched one: whether the run used
					 * them, the trace could not tell */
	int exit_status;		/* command mode: the command's status as the shell reports it */
};

#endif
