// SPDX-License-Identifier: GPL-2.0-or-later
/* trace-cmd input: the events of a trace.dat recording, decoded as a live trace's are */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include <ura/pack.h>

#include "util-log.h"
#include "trace-access.h"
#include "trace-dat.h"
#include "trace-demand.h"
#include "trace-events.h"
#include "trace-summary.h"

/* One recording (or one of its instances) being read. */
struct dat_reader {
	struct trace_decoder *decoder;
	struct trace_demand *demand;
	struct access_log *access;	/* or NULL */
	uint64_t lost;
	struct tep_format_field *fg_func, *fg_calltime, *fg_rettime;
	uint64_t mm_faults, mm_fault_ns;
};

static int dat_event_cb(struct tracecmd_input *h, struct tep_event *ev, struct tep_record *record,
			int cpu, void *data)
{
	struct dat_reader *rd = data;
	struct trace_event e;

	if (trace_events_decode(rd->decoder, record, &e) <= 0)
		return 0;
	if (demand_feed(rd->demand, &e) < 0)
		return -1;
	return rd->access && access_feed(rd->access, &e, rd->demand->t0) < 0 ? -1 : 0;
}

/* As in a function_graph trace: count handle_mm_fault calls and their time. */
static int dat_funcgraph_cb(struct tracecmd_input *h, struct tep_event *ev,
			    struct tep_record *record, int cpu, void *data)
{
	struct dat_reader *rd = data;
	unsigned long long func, call, ret;
	const char *name;

	if (!rd->fg_func) {
		rd->fg_func = tep_find_field(ev, "func");
		rd->fg_calltime = tep_find_field(ev, "calltime");
		rd->fg_rettime = tep_find_field(ev, "rettime");
		if (!rd->fg_func || !rd->fg_calltime || !rd->fg_rettime)
			return 0;
	}
	if (tep_read_number_field(rd->fg_func, record->data, &func) < 0 ||
	    tep_read_number_field(rd->fg_calltime, record->data, &call) < 0 ||
	    tep_read_number_field(rd->fg_rettime, record->data, &ret) < 0)
		return 0;
	name = tep_find_function(tracecmd_get_tep(h), func);
	if (name && strcmp(name, "handle_mm_fault") == 0) {
		rd->mm_faults++;
		if (ret > call)
			rd->mm_fault_ns += ret - call;
	}
	return 0;
}

static int dat_missed_cb(struct tracecmd_input *h, struct tep_event *ev,
			 struct tep_record *record, int cpu, void *data)
{
	struct dat_reader *rd = data;

	rd->lost += record->missed_events > 0 ? (uint64_t)record->missed_events : 1;
	return 0;
}

static int dat_iterate(struct tracecmd_input *h, struct dat_reader *rd)
{
	for (int i = 0; i < TRACE_NR_EVENTS; i++)
		tracecmd_follow_event(h, trace_event_specs[i].system, trace_event_specs[i].name,
				      dat_event_cb, rd);
	tracecmd_follow_event(h, "ftrace", "funcgraph_exit", dat_funcgraph_cb, rd);
	tracecmd_follow_missed_events(h, dat_missed_cb, rd);
	if (tracecmd_iterate_events(h, NULL, 0, NULL, NULL) < 0)
		return rd->demand->error ? rd->demand->error : -EBADMSG;
	return rd->demand->error;
}

int dat_read(const char *path, struct trace_demand *d, struct access_log *log,
	     unsigned *ret_info_flags, uint64_t *ret_duration_ns, struct trace_summary *sum)
{
	struct dat_reader rd = { .demand = d, .access = log };
	struct tracecmd_input *h = NULL;
	unsigned info_flags = 0;
	bool get, map;
	int r;

	if (access(path, R_OK) < 0) {
		r = -errno;
		log_err("cannot read '%s': %s", path, strerror(-r));
		sum->bad_input = true;
		return r;
	}
	h = tracecmd_open(path, 0);
	if (!h) {
		log_err("cannot read '%s': not a trace-cmd trace.dat", path);
		sum->bad_input = true;
		return -EBADMSG;
	}
	r = trace_events_new(tracecmd_get_tep(h), &rd.decoder);
	if (r < 0) {
		log_err("cannot read '%s': %s", path, strerror(-r));
		goto out;
	}
	d->t0_from_first = true;
	if (!trace_events_knows(rd.decoder, TRACE_EVENT_ADD)) {
		r = -ENODEV;
		log_err("'%s' has no filemap:mm_filemap_add_to_page_cache events", path);
		sum->bad_input = true;
		goto out;
	}
	r = dat_iterate(h, &rd);
	for (int i = 0; r >= 0 && i < tracecmd_buffer_instances(h); i++) {
		struct tracecmd_input *ih = tracecmd_buffer_instance_handle(h, i);

		if (!ih)
			continue;
		r = dat_iterate(ih, &rd);
		tracecmd_close(ih);
	}
	if (r < 0) {
		log_err("cannot read the events of '%s': %s", path, strerror(-r));
		goto out;
	}

	/*
	 * A recording holds the events its maker chose: demand comes from the
	 * read (get_pages) and fault-around (map_pages) events it has, by the
	 * same rule as a live trace (demand_evidence()).
	 */
	get = trace_events_knows(rd.decoder, TRACE_EVENT_GET_PAGES);
	map = trace_events_knows(rd.decoder, TRACE_EVENT_MAP_PAGES);
	d->evidence = demand_evidence(get, map);
	sum->access_events = d->evidence != DEMAND_EVIDENCE_NONE;
	if (d->evidence == DEMAND_EVIDENCE_NONE)
		info_flags |= URA_PACK_INFO_NO_ACCESS_EVENTS;
	else if (d->evidence == DEMAND_EVIDENCE_PARTIAL)
		log_info("'%s' has no %s events: pages added with no sign of use count as demanded",
			 path, trace_event_specs[get ? TRACE_EVENT_MAP_PAGES : TRACE_EVENT_GET_PAGES].name);
	sum->mm_faults = rd.mm_faults;
	sum->mm_fault_ns = rd.mm_fault_ns;
	sum->lost_events = rd.lost;
	sum->seconds = (double)(d->last_ts - d->t0) / 1e9;
	*ret_info_flags = info_flags;
	*ret_duration_ns = d->last_ts - d->t0;
out:
	trace_events_free(rd.decoder);
	tracecmd_close(h);
	return r;
}
