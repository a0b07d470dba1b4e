/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Decoded events -> a pageset: which pages were added, which demanded (the fault-around model) */
#ifndef URA_TRACE_DEMAND_H
#define URA_TRACE_DEMAND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace-events.h"

/* Pages of a fault-around window this near the touched one count as demanded. */
#define DEMAND_NEAR_PAGES	5

/*
 * What the access events of a trace can tell (demand_evidence()): the two
 * kinds (read() by filemap_get_pages, mmap() by fault-around map_pages), one
 * of them (a recording made without the other, an old kernel), or none.
 */
enum demand_evidence { DEMAND_EVIDENCE_FULL, DEMAND_EVIDENCE_PARTIAL, DEMAND_EVIDENCE_NONE };

struct pageset;
struct fault_slot;

/*
 * The pages of one trace and the counts; callers read the fields, and change
 * only @t0, @t0_real, @t0_from_first, @event_log and @near_pages.
 */
struct trace_demand {
	struct pageset *pages;		/* owned */
	uint64_t t0;			/* event time that is 0 in the pack */
	int64_t t0_real;		/* @t0 on the wall clock, 0 if unknown */
	bool t0_from_first;		/* --input: the first event sets @t0 */
	uint64_t last_ts;		/* latest event time */
	uint64_t last_add_ts;		/* latest addition's time */
	uint64_t events, counts[TRACE_NR_EVENTS], added_pages;
	int error;			/* the first -errno met (-ENOMEM), sticky */
	FILE *event_log;		/* not owned: each event fed is printed there (URA_TRACE_EVENTS) */
	int near_pages;			/* DEMAND_NEAR_PAGES; -1: the whole window (a command's
					 * trace, the learner; demand_pack_flags()) */
	enum demand_evidence evidence;	/* set by the event source, before the pages are read */
	struct fault_slot *last_fault;	/* private: the last fault address of each pid */
};

/** demand_init() - an empty model; 0 or -ENOMEM (@d then needs no demand_fini()) */
int demand_init(struct trace_demand *d);

/** demand_fini() - release what @d holds; a zeroed or finished @d is allowed */
void demand_fini(struct trace_demand *d);

/**
 * demand_feed() - account one event, in time order per CPU
 *
 * An addition adds its pages; a file fault and a read (get_pages) are strong
 * evidence of use; a fault-around window (map_pages) is evidence as the model
 * above map_window() in trace-demand.c says; a user page fault names the page a
 * following window of the same pid was for. Nonsensical events are skipped.
 *
 * Return: 0, or -ENOMEM (also kept in @d->error).
 */
int demand_feed(struct trace_demand *d, const struct trace_event *ev);

/** demand_evidence() - what a trace with these access events can tell */
enum demand_evidence demand_evidence(bool get_pages, bool map_pages);

/**
 * demand_range_flags() - PAGESET_* flags that turn @e into demanded pages
 *
 * Full: the model as it is. Partial: an added page with no evidence at all
 * counts as demanded, since the missing kind of event may have used it (a
 * read() seen by no get_pages). None: every page added counts as demanded.
 */
unsigned demand_range_flags(enum demand_evidence e);

/**
 * demand_pack_flags() - the PAGESET_* flags of @d's pack: demand_range_flags()
 * of its evidence, and with near_pages < 0 every page a window mapped with a
 * touched one (weak evidence) demanded
 */
unsigned demand_pack_flags(const struct trace_demand *d);

#endif
