// SPDX-License-Identifier: GPL-2.0-or-later
/* The page-cache events ura reads, and the decoder from a tep record to a plain struct */
#include <errno.h>
#include <stdlib.h>

#include <event-parse.h>

#include "trace-events.h"

const struct trace_event_spec trace_event_specs[TRACE_NR_EVENTS] = {
	[TRACE_EVENT_ADD] = { "filemap", "mm_filemap_add_to_page_cache" },
	[TRACE_EVENT_FAULT] = { "filemap", "mm_filemap_fault" },
	[TRACE_EVENT_GET_PAGES] = { "filemap", "mm_filemap_get_pages" },
	[TRACE_EVENT_MAP_PAGES] = { "filemap", "mm_filemap_map_pages" },
	[TRACE_EVENT_PF_USER] = { "exceptions", "page_fault_user" },
};

/* The fields of one event format we read; NULL where the format has none. */
struct event_fields {
	struct tep_format_field *dev, *ino, *index, *last, *order, *address, *ip, *error_code;
};

struct trace_decoder {
	struct tep_handle *tep;
	int ids[TRACE_NR_EVENTS];		/* common_type of each event, -1 if absent */
	struct event_fields fields[TRACE_NR_EVENTS];
	struct tep_format_field *common_pid;
};

int trace_events_new(struct tep_handle *tep, struct trace_decoder **ret)
{
	struct trace_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->tep = tep;
	for (int i = 0; i < TRACE_NR_EVENTS; i++) {
		struct event_fields *f = &d->fields[i];
		struct tep_event *ev;

		ev = tep_find_event_by_name(tep, trace_event_specs[i].system,
					    trace_event_specs[i].name);
		d->ids[i] = ev ? ev->id : -1;
		if (!ev)
			continue;
		f->dev = tep_find_field(ev, "s_dev");
		f->ino = tep_find_field(ev, "i_ino");
		f->index = tep_find_field(ev, "index");
		f->last = tep_find_field(ev, "last_index");
		f->order = tep_find_field(ev, "order");
		f->address = tep_find_field(ev, "address");
		f->ip = tep_find_field(ev, "ip");
		f->error_code = tep_find_field(ev, "error_code");
		if (!d->common_pid)
			d->common_pid = tep_find_common_field(ev, "common_pid");
	}
	*ret = d;
	return 0;
}

void trace_events_free(struct trace_decoder *d)
{
	free(d);
}

bool trace_events_knows(const struct trace_decoder *d, enum trace_event_type type)
{
	return type < TRACE_NR_EVENTS && d->ids[type] >= 0;
}

static uint64_t field_u64(const struct tep_format_field *f, const struct tep_record *rec)
{
	unsigned long long v = 0;

	if (!f || tep_read_number_field((struct tep_format_field *)f, rec->data, &v) < 0)
		return 0;
	return v;
}

int trace_events_decode(const struct trace_decoder *d, const struct tep_record *rec,
			 struct trace_event *ret)
{
	int type = tep_data_type(d->tep, (struct tep_record *)rec);
	const struct event_fields *f;
	int ev = -1;

	for (int i = 0; i < TRACE_NR_EVENTS; i++)
		if (d->ids[i] == type) {
			ev = i;
			break;
		}
	if (ev < 0)
		return 0;
	f = &d->fields[ev];
	*ret = (struct trace_event){
		.type = (enum trace_event_type)ev,
		.pid = (int)field_u64(d->common_pid, rec),
		.ts = rec->ts,
	};
	if (ev == TRACE_EVENT_PF_USER) {
		ret->address = field_u64(f->address, rec);
		ret->ip = field_u64(f->ip, rec);
		ret->error_code = field_u64(f->error_code, rec);
		return 1;
	}
	ret->dev = (uint32_t)field_u64(f->dev, rec);
	ret->ino = field_u64(f->ino, rec);
	ret->first = field_u64(f->index, rec);
	switch (ev) {
	case TRACE_EVENT_ADD: {
		uint64_t order = field_u64(f->order, rec);

		ret->order = (unsigned)order;
		ret->last = ret->first + (1ull << (order < 20 ? order : 20)) - 1;
		break;
	}
	case TRACE_EVENT_FAULT:
		ret->last = ret->first;
		break;
	default:
		ret->last = field_u64(f->last, rec);
		break;
	}
	return 1;
}
