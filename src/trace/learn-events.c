// SPDX-License-Identifier: GPL-2.0-or-later
/* The task events learning reads (sched: exec, fork, exit), decoded from tep records */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "learn-events.h"

struct task_decoder {
	struct tep_handle *tep;
	struct tep_event *exec, *fork, *exit;
	struct tep_format_field *exec_pid, *exec_file, *fork_parent, *fork_child, *exit_pid;
};

int learn_events_new(struct tep_handle *tep, struct task_decoder **ret)
{
	struct task_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->tep = tep;
	d->exec = tep_find_event_by_name(tep, "sched", "sched_process_exec");
	d->fork = tep_find_event_by_name(tep, "sched", "sched_process_fork");
	d->exit = tep_find_event_by_name(tep, "sched", "sched_process_exit");
	if (d->exec) {
		d->exec_pid = tep_find_field(d->exec, "pid");
		d->exec_file = tep_find_field(d->exec, "filename");
	}
	if (d->fork) {
		d->fork_parent = tep_find_field(d->fork, "parent_pid");
		d->fork_child = tep_find_field(d->fork, "child_pid");
	}
	if (d->exit)
		d->exit_pid = tep_find_field(d->exit, "pid");
	*ret = d;
	return 0;
}

void learn_events_free(struct task_decoder *d)
{
	free(d);
}

static int field_int(struct tep_format_field *f, const struct tep_record *rec)
{
	unsigned long long v = 0;

	if (!f || tep_read_number_field(f, rec->data, &v) < 0)
		return -1;
	return (int)v;
}

int learn_events_type(const struct task_decoder *d, const struct tep_record *rec)
{
	int type = tep_data_type(d->tep, (struct tep_record *)rec);

	if (d->exec && type == d->exec->id)
		return TASK_EXEC;
	if (d->fork && type == d->fork->id)
		return TASK_FORK;
	if (d->exit && type == d->exit->id)
		return TASK_EXIT;
	return -1;
}

int learn_events_decode(const struct task_decoder *d, const struct tep_record *rec,
			struct task_event *ret)
{
	int type = tep_data_type(d->tep, (struct tep_record *)rec);

	if (d->exec && type == d->exec->id) {
		int len = 0;
		const char *s = d->exec_file ?
			tep_get_field_raw(NULL, d->exec, "filename", (struct tep_record *)rec, &len, 0) :
			NULL;

		ret->type = TASK_EXEC;
		ret->pid = field_int(d->exec_pid, rec);
		ret->filename[0] = '\0';
		if (s && len > 0) {
			size_t n = strnlen(s, (size_t)len);

			if (n >= sizeof(ret->filename))
				n = sizeof(ret->filename) - 1;
			memcpy(ret->filename, s, n);
			ret->filename[n] = '\0';
		}
	} else if (d->fork && type == d->fork->id) {
		ret->type = TASK_FORK;
		ret->pid = field_int(d->fork_parent, rec);
		ret->child = field_int(d->fork_child, rec);
	} else if (d->exit && type == d->exit->id) {
		ret->type = TASK_EXIT;
		ret->pid = field_int(d->exit_pid, rec);
	} else {
		return 0;
	}
	ret->ts = rec->ts;
	return 1;
}
