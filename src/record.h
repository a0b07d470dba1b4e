/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-trace's glue: run and trace a command or the system, turn the events into a pack */
#ifndef URA_RECORD_H
#define URA_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct record_opts {
	const char *pack;		/* pack to write */
	char **argv;			/* command to run and trace (NULL-terminated), or NULL */
	bool system;			/* trace every process but ura's own */
	uint64_t duration_ns;		/* system mode: stop after this long (0: no limit) */
	uint64_t until_idle_ns;		/* system mode: stop when no page was added for this long */
	bool cold;			/* drop the page cache first */
	unsigned read_ahead_kb;		/* force on the devices involved during the trace (0: no) */
	const char *root;		/* record paths relative to this directory, or NULL */
	const char *input;		/* build the pack from this trace-cmd trace.dat instead */
	unsigned buffer_kb;		/* ring buffer per CPU (0: automatic) */
	bool no_access_events;		/* trace page-cache additions only */
	bool no_fault_addresses;	/* access events without exceptions:page_fault_user */
	int verbose;			/* -v count */
};

struct record_summary {
	uint64_t files, ranges;
	uint64_t bytes, demanded_bytes, speculative_bytes, meta_bytes, meta_ranges;
	uint64_t lost_events;
	uint64_t unresolved_inodes, unresolved_bytes;
	uint64_t skipped_pseudo;	/* files on pseudo or memory filesystems, left out */
	uint64_t outside_root;		/* files outside --root, left out */
	uint64_t events;		/* records read */
	uint64_t add_events, added_pages;	/* mm_filemap_add_to_page_cache */
	uint64_t fault_events;		/* mm_filemap_fault */
	uint64_t mm_faults;		/* --input: handle_mm_fault calls in a function_graph trace */
	uint64_t mm_fault_ns;		/* --input: their total time */
	bool access_events;		/* demand came from access events */
	bool pack_written;
	bool bad_input;			/* --input missing, not a trace.dat, or without the event */
	bool tracing_unavailable;	/* record_trace() failed for want of tracefs, the event or rights */
	double seconds;			/* length of the trace */
	int exit_status;		/* command mode: the command's status as the shell reports it */
};

/**
 * record_trace() - trace a command or the system and write the pack
 * @o: options; @o->argv for command mode, @o->system for system mode
 * @ret: filled with the counts (also on failure, as far as it got)
 *
 * Creates a private tracefs instance, runs the command (its standard streams
 * and terminal untouched) or waits for SIGINT/SIGTERM, --duration or
 * --until-idle, then resolves the inodes and writes @o->pack atomically.
 * The instance and any forced read_ahead_kb are removed and restored on every
 * path, SIGINT and SIGTERM included.
 *
 * Every failure is reported (one error line), except when tracing is
 * unavailable (@ret->tracing_unavailable set): then -ENOENT means no tracefs,
 * -ENODEV no page-cache event, -EPERM or -EACCES not allowed, for the caller to
 * report with its exit code.
 *
 * Return: 0; -ENOEXEC: the command could not be started (@ret->exit_status is
 * 126 or 127); -EINTR: stopped by a second signal (@ret->exit_status set);
 * other -errno.
 */
int record_trace(const struct record_opts *o, struct record_summary *ret);

/**
 * record_from_trace_dat() - build a pack from a trace-cmd recording (@o->input)
 * @ret: counts, including page-cache additions and faults found in the file
 *
 * Inodes are resolved on this machine, so run it where the trace was taken.
 * Every failure is reported (one error line).
 * Return: 0, -ENOENT (no such file), -EBADMSG (not a trace.dat), -ENODEV (no
 * add_to_page_cache event in it), other -errno.
 */
int record_from_trace_dat(const struct record_opts *o, struct record_summary *ret);

/** record_print_summary() - the one-line summary, or JSON with @json */
void record_print_summary(FILE *f, const struct record_summary *s, bool json);

/**
 * record_restore_read_ahead() - undo read_ahead_kb changes of ura-trace runs that died
 *
 * Reads the state files in /run/ura left by runs that were killed before they
 * could restore the devices' read_ahead_kb, restores the values, removes the files.
 * Return: the number of devices restored, or -errno.
 */
int record_restore_read_ahead(void);

#endif
