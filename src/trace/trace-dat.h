/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace-cmd input: the events of a trace.dat recording, decoded as a live trace's are */
#ifndef URA_TRACE_DAT_H
#define URA_TRACE_DAT_H

#include <stdint.h>

struct access_log;
struct trace_demand;
struct trace_summary;

/**
 * dat_read() - feed the events of the trace-cmd recording @path to @d
 * @d: an initialised demand model; its times start at the first event
 * @log: the access log, or NULL; gets every event after @d
 * @ret_info_flags: URA_PACK_INFO_NO_ACCESS_EVENTS when the recording has no read
 *	or fault-around events (every page then counts as demanded)
 * @ret_duration_ns: from the first to the last event
 * @sum: access_events, lost events, function_graph handle_mm_fault counts;
 *	bad_input when the file is missing, not a trace.dat or without additions
 *
 * The events may be in the top buffer or in instances (trace-cmd record -B).
 * Logs its errors (one line).
 * Return: 0, -ENOENT (no such file), -EBADMSG (not a trace.dat), -ENODEV (no
 * add_to_page_cache event in it), other -errno.
 */
int dat_read(const char *path, struct trace_demand *d, struct access_log *log,
	     unsigned *ret_info_flags, uint64_t *ret_duration_ns, struct trace_summary *sum);

#endif
