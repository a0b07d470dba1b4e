// SPDX-License-Identifier: GPL-2.0-or-later
/* Decoded events -> a pageset: which pages were added, which demanded (the fault-around model) */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sys-kernel-mm.h"
#include "trace-pageset.h"
#include "trace-demand.h"

#define FAULT_TABLE_SIZE	4096	/* last fault address per pid, direct-mapped */

/* The last user page fault of a pid (a slot of a direct-mapped table). */
struct fault_slot {
	int pid;
	uint64_t page;		/* faulting user address >> 12, UINT64_MAX when used up */
	uint64_t ts;
};

int demand_init(struct trace_demand *d)
{
	int r;

	memset(d, 0, sizeof(*d));
	d->last_fault = calloc(FAULT_TABLE_SIZE, sizeof(*d->last_fault));
	if (!d->last_fault)
		return -ENOMEM;
	for (int i = 0; i < FAULT_TABLE_SIZE; i++)
		d->last_fault[i].page = UINT64_MAX;
	d->near_pages = DEMAND_NEAR_PAGES;
	r = pageset_new(&d->pages);
	if (r < 0)
		demand_fini(d);
	return r;
}

void demand_fini(struct trace_demand *d)
{
	free(d->last_fault);
	d->last_fault = NULL;
	pageset_free(d->pages);
	d->pages = NULL;
}

/* "time pid event dev ino first last|order|address": URA_TRACE_EVENTS, read by bench/ scripts */
static void print_event(FILE *f, const struct trace_event *ev, uint64_t rel_ns)
{
	static const char *const names[TRACE_NR_EVENTS] = { "add", "fault", "get", "map", "pf" };

	if (ev->type == TRACE_EVENT_PF_USER) {
		fprintf(f, "%" PRIu64 " %d pf %" PRIx64 " %" PRIx64 " %" PRIx64 "\n", rel_ns, ev->pid,
			ev->address, ev->ip, ev->error_code);
		return;
	}
	fprintf(f, "%" PRIu64 " %d %s %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", rel_ns,
		ev->pid, names[ev->type], ev->dev, ev->ino, ev->first,
		ev->type == TRACE_EVENT_ADD ? (uint64_t)ev->order :
		ev->type == TRACE_EVENT_FAULT ? 0 : ev->last);	/* a fault has no last_index */
}

static uint64_t rel_time(struct trace_demand *d, uint64_t ts)
{
	if (d->t0_from_first) {
		d->t0 = ts;
		d->t0_from_first = false;
	}
	if (ts > d->last_ts)
		d->last_ts = ts;
	return ts > d->t0 ? ts - d->t0 : 0;
}

/*
 * A fault-around window [first, last] maps every cached page of 16 aligned
 * virtual pages, touched or not: as evidence of use it over-reports (on a
 * Python start here, whole windows made the demanded set 1.5 times the true
 * demand, 2 times on a gcc run). The user fault that led to the window (the
 * page_fault_user just before, same pid) names the page really touched: its
 * offset in the window is its virtual page number modulo the window size,
 * unless the window was clipped at the start of the mapping (then the page
 * computed may lie past the window, and is ignored). The other pages of the
 * window are touched about half the time, whatever their position, so pages
 * within DEMAND_NEAR_PAGES of the touched one count as demanded and the rest
 * as weak evidence (speculative if added): measured against runs at
 * read_ahead_kb 4, this keeps the demanded set near the true demand
 * (bench/trace-accuracy.sh, bench/demand-models.c compares other distances).
 * Without a fault address, the whole window counts. A command's trace
 * (near_pages < 0) counts every window whole: the touched page as strong
 * evidence, the others (and a window with no address) as weak evidence that
 * demand_pack_flags() makes demand.
 */

static int map_window(struct trace_demand *d, const struct trace_event *ev, uint64_t rts)
{
	struct fault_slot *fault = &d->last_fault[(unsigned)ev->pid % FAULT_TABLE_SIZE];
	uint64_t first = ev->first, last = ev->last;
	uint64_t page = UINT64_MAX;
	bool cold = false;
	int ret = 0;

	if (fault->pid == ev->pid && fault->page != UINT64_MAX && fault->ts <= ev->ts &&
	    ev->ts - fault->ts <= TRACE_FAULT_MAX_AGE_NS) {
		page = first + (fault->page & (KERNEL_FAULT_AROUND_PAGES - 1));
		fault->page = UINT64_MAX;	/* one fault, one window */
	}
	if (last - first >= 64)
		last = first + 63;	/* not a fault-around window */
	/*
	 * Only cached pages are mapped. Where the trace saw pages of the window
	 * enter the cache, the others were not there (yet) and are no evidence;
	 * where it saw none, the window was cached before the trace began.
	 */
	for (uint64_t i = first; i <= last; i++)
		if (pageset_is_added(d->pages, ev->dev, ev->ino, i, NULL)) {
			cold = true;
			break;
		}
	for (uint64_t i = first; i <= last; i++) {
		/* near_pages < 0: the page the fault's address names is strong evidence, every
		 * other page of the window weak (also in a window with no address: a fault
		 * retried maps its window again), all demanded (demand_pack_flags()), so that
		 * the summary can say how much the pack holds only because windows mapped it */
		bool near = (page <= last && i == page) ||
			    (d->near_pages >= 0 &&
			     (page > last || (i + (uint64_t)d->near_pages >= page &&
					      i <= page + (uint64_t)d->near_pages)));

		if (cold && i != page && !pageset_is_added(d->pages, ev->dev, ev->ino, i, NULL))
			continue;
		ret = pageset_access(d->pages, ev->dev, ev->ino, i, i, rts,
				     near ? PAGESET_STRONG : PAGESET_WEAK);
		if (ret < 0)
			break;
	}
	return ret;
}

int demand_feed(struct trace_demand *d, const struct trace_event *ev)
{
	uint64_t rts;
	int ret = 0;

	if (ev->type >= TRACE_NR_EVENTS)
		return 0;
	d->events++;
	d->counts[ev->type]++;
	rts = rel_time(d, ev->ts);
	if (d->event_log)
		print_event(d->event_log, ev, rts);
	switch (ev->type) {
	case TRACE_EVENT_PF_USER: {
		struct fault_slot *fault = &d->last_fault[(unsigned)ev->pid % FAULT_TABLE_SIZE];

		fault->pid = ev->pid;
		fault->page = ev->address >> 12;
		fault->ts = ev->ts;
		return 0;
	}
	case TRACE_EVENT_ADD: {
		uint64_t nr = ev->last - ev->first + 1;

		d->last_add_ts = ev->ts;
		d->added_pages += nr;
		ret = ev->last < ev->first ? -EINVAL :
		      pageset_add(d->pages, ev->dev, ev->ino, ev->first, nr, rts);
		break;
	}
	case TRACE_EVENT_FAULT:
	case TRACE_EVENT_GET_PAGES:
		/* a read(): precise, but not clipped at the end of the file (done later) */
		ret = pageset_access(d->pages, ev->dev, ev->ino, ev->first, ev->last, rts,
				     PAGESET_STRONG);
		break;
	case TRACE_EVENT_MAP_PAGES:
		ret = map_window(d, ev, rts);
		break;
	default:
		break;
	}
	if (ret == -EINVAL)	/* a nonsensical event: skip it */
		ret = 0;
	if (ret < 0)
		d->error = ret;
	return ret;
}

enum demand_evidence demand_evidence(bool get_pages, bool map_pages)
{
	if (get_pages && map_pages)
		return DEMAND_EVIDENCE_FULL;
	return get_pages || map_pages ? DEMAND_EVIDENCE_PARTIAL : DEMAND_EVIDENCE_NONE;
}

unsigned demand_pack_flags(const struct trace_demand *d)
{
	return demand_range_flags(d->evidence) | (d->near_pages < 0 ? PAGESET_WEAK_IS_DEMAND : 0);
}

unsigned demand_range_flags(enum demand_evidence e)
{
	switch (e) {
	case DEMAND_EVIDENCE_FULL:
		return 0;
	case DEMAND_EVIDENCE_PARTIAL:
		return PAGESET_UNSEEN_IS_DEMAND;
	default:
		return PAGESET_ALL_DEMANDED;
	}
}
