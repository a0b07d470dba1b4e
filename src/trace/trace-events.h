/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The page-cache events ura reads, and the decoder from a tep record to a plain struct */
#ifndef URA_TRACE_EVENTS_H
#define URA_TRACE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct tep_handle;
struct tep_record;
struct trace_decoder;

/* The events ura can record; all but TRACE_EVENT_ADD are optional. */
enum trace_event_type {
	TRACE_EVENT_ADD,	/* filemap:mm_filemap_add_to_page_cache */
	TRACE_EVENT_FAULT,	/* filemap:mm_filemap_fault */
	TRACE_EVENT_GET_PAGES,	/* filemap:mm_filemap_get_pages */
	TRACE_EVENT_MAP_PAGES,	/* filemap:mm_filemap_map_pages */
	TRACE_EVENT_PF_USER,	/* exceptions:page_fault_user (fault addresses) */
	TRACE_NR_EVENTS,
};

/*
 * A user page fault (TRACE_EVENT_PF_USER) names the page of the next
 * fault-around window or file fault of its task this recently.
 */
#define TRACE_FAULT_MAX_AGE_NS	(10ull * 1000 * 1000)

/* tracefs system and event name of each enum trace_event_type */
struct trace_event_spec {
	const char *system, *name;
};
extern const struct trace_event_spec trace_event_specs[TRACE_NR_EVENTS];

/*
 * One decoded record. The fields an event has not are 0; @first..@last are the
 * pages the event names, inclusive: for an addition @first + 2^order - 1 (order
 * capped at 20), for a file fault the one page, for get_pages and map_pages the
 * event's index..last_index as recorded.
 */
struct trace_event {
	enum trace_event_type type;
	int pid;			/* common_pid */
	uint64_t ts;			/* record time, ns, in the trace's clock */
	uint32_t dev;			/* kernel dev_t (major << 20 | minor) of the file */
	uint64_t ino;
	uint64_t first, last;		/* pages */
	unsigned order;			/* TRACE_EVENT_ADD: folio order as recorded */
	uint64_t address, ip, error_code;	/* TRACE_EVENT_PF_USER */
};

/**
 * trace_events_new() - a decoder for the records of @tep's event formats
 * @tep: the formats (of the live instance or of a trace.dat); must outlive the decoder
 * @ret: on success the decoder; free with trace_events_free()
 *
 * Return: 0 or -ENOMEM.
 */
int trace_events_new(struct tep_handle *tep, struct trace_decoder **ret);

/** trace_events_free() - NULL is allowed */
void trace_events_free(struct trace_decoder *d);

/** trace_events_knows() - whether the formats have event @type */
bool trace_events_knows(const struct trace_decoder *d, enum trace_event_type type);

/**
 * trace_events_decode() - @rec as a plain event
 * @ret: filled when the record is one of enum trace_event_type
 *
 * Return: 1 if @ret was filled, 0 for a record of another event.
 */
int trace_events_decode(const struct trace_decoder *d, const struct tep_record *rec,
			 struct trace_event *ret);

#endif
