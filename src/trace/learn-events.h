/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The task events learning reads (sched: exec, fork, exit), decoded from tep records */
#ifndef URA_LEARN_EVENTS_H
#define URA_LEARN_EVENTS_H

#include <stdint.h>

struct tep_handle;
struct tep_record;
struct task_decoder;

enum task_event_type { TASK_EXEC, TASK_FORK, TASK_EXIT };

struct task_event {
	enum task_event_type type;
	int pid;		/* the task that exec'd or exited, the parent of a fork */
	int child;		/* TASK_FORK: the new task */
	uint64_t ts;
	char filename[4096];	/* TASK_EXEC: the path exec'd, as the caller gave it */
};

/** learn_events_new() - a decoder for @tep's sched events; 0 or -ENOMEM */
int learn_events_new(struct tep_handle *tep, struct task_decoder **ret);

/** learn_events_free() - NULL is allowed */
void learn_events_free(struct task_decoder *d);

/** learn_events_type() - the enum task_event_type of @rec, or -1 for another record (no decoding) */
int learn_events_type(const struct task_decoder *d, const struct tep_record *rec);

/** learn_events_decode() - 1 with @ret filled for a task event, 0 for any other record */
int learn_events_decode(const struct task_decoder *d, const struct tep_record *rec,
			struct task_event *ret);

#endif
