/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-trace's own tracefs instance: page-cache events, PID filters, binary reads, lost events */
#ifndef URA_TRACE_TRACER_H
#define URA_TRACE_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace-events.h"

struct tep_handle;
struct tep_record;
struct tracer;

struct tracer_opts {
	bool system;		/* every process but @exclude_pid (and its children) */
	pid_t exclude_pid;	/* with @system: ura's own pid */
	unsigned buffer_kb;	/* ring buffer per CPU, 0 for a size picked from CPUs and memory */
	bool access_events;	/* enable the optional filemap access events that exist */
	bool fault_addresses;	/* also enable exceptions:page_fault_user where it exists */
	bool task_events;	/* also sched:sched_process_fork, _exit and _exec (learning's task
				 * trees) */
	bool exec_only;		/* instance "ura-<pid>-exec" with sched:sched_process_exec only,
				 * of every process (learning's exec detection) */
};

/* Called for each record read; return <0 to stop reading (that value is returned). */
typedef int (*tracer_record_fn)(struct tep_record *rec, void *ctx);

/**
 * tracer_setup_logging() - route libtracefs and libtraceevent messages to our logger
 * @verbose: log level above the default: library messages are shown at debug level
 */
void tracer_setup_logging(int verbose);

/**
 * tracer_remove_orphans() - destroy instances "ura-<pid>" whose process is gone
 *
 * A ura-trace killed with SIGKILL cannot remove its instance; the next one does.
 *
 * Return: the number removed, or -errno if tracefs cannot be read.
 */
int tracer_remove_orphans(void);

/**
 * tracer_new() - mount tracefs if needed, create instance "ura-<pid>", prepare events
 * @o: options
 * @ret: on success the tracer, not yet tracing; free with tracer_free()
 *
 * The instance gets the "mono" trace clock (timestamps in CLOCK_MONOTONIC ns),
 * its buffer size, and the events; in system mode @o->exclude_pid is left out.
 * Nothing outside the instance is changed (apart from mounting tracefs).
 *
 * Return: 0, or -ENOENT (no tracefs), -ENODEV (no add_to_page_cache event),
 * -EPERM/-EACCES (not allowed), -ENOMEM, other -errno.
 */
int tracer_new(const struct tracer_opts *o, struct tracer **ret);

/** tracer_free() - destroy the instance and release everything; NULL is allowed */
void tracer_free(struct tracer *t);

/*
 * tracer_free_async() - tracer_free() on a thread of its own: removing a
 *	tracefs instance takes the kernel a while (0.12 s on the VM of
 *	bench/README.md), which a trace's assembly can use; stop it first
 * tracer_wait_freed() - wait until that is done (before exiting)
 */
void tracer_free_async(struct tracer *t);
void tracer_wait_freed(void);

/** tracer_instance_name() - "ura-<pid>" */
const char *tracer_instance_name(const struct tracer *t);

/** tracer_has_event() - whether @ev exists on this kernel and is enabled */
bool tracer_has_event(const struct tracer *t, enum trace_event_type ev);

/** tracer_event_id() - the event's common_type id, or -1 when it does not exist */
int tracer_event_id(const struct tracer *t, enum trace_event_type ev);

/** tracer_tep() - the event formats, for parsing records; owned by @t */
struct tep_handle *tracer_tep(const struct tracer *t);

/**
 * tracer_follow_pid() - record only @pid and, through the event-fork option, its descendants
 * @pidfd: a pidfd of @pid, or -1; with it the pid is found as the kernel's top pid
 *	namespace numbers it, when ura-trace runs in a nested one
 *
 * Writes the instance's set_event_pid (libtracefs 1.6 has no tracefs_filter_pid_events).
 * Return: 0 or -errno.
 */
int tracer_follow_pid(struct tracer *t, pid_t pid, int pidfd);

/**
 * tracer_set_pids() - record only these tasks and, through event-fork, their descendants
 * @pids: pids as the kernel's top pid namespace numbers them (trace events give those)
 * @n: their number; 0 records no task at all
 *
 * Replaces the instance's set_event_pid. The kernel drops a task from it when
 * the task exits, and adds the tasks it forks.
 * Return: 0 or -errno.
 */
int tracer_set_pids(struct tracer *t, const int *pids, size_t n);

/**
 * tracer_add_pid() - record task @pid too (and its descendants); 0 or -errno
 */
int tracer_add_pid(struct tracer *t, int pid);

/**
 * tracer_pid_file() - the path of the instance's set_event_pid, for a thread of its own that
 * writes it (with O_APPEND to add pids, O_TRUNC to start again); malloc()ed, or NULL
 */
char *tracer_pid_file(struct tracer *t);

/**
 * tracer_filter_file() - the path of the filter of event @system:@event in the instance, for
 * a thread of its own that writes it; malloc()ed, or NULL
 */
char *tracer_filter_file(struct tracer *t, const char *system, const char *event);

/**
 * tracer_set_wakeup() - how full (percent) a CPU's buffer must be before tracer_poll_fd() polls
 * readable: 0 for any event (the kernel's default is 50)
 * Return: 0 or -errno.
 */
int tracer_set_wakeup(struct tracer *t, unsigned percent);

/** tracer_set_filter() - write the filter of event @system:@event in the instance; 0 or -errno */
int tracer_set_filter(struct tracer *t, const char *system, const char *event, const char *filter);

/**
 * tracer_poll_fd() - a descriptor that polls readable when the buffers hold events
 *
 * The instance's trace_pipe, opened once and never read (the records are read
 * with tracer_read()); owned by @t. Return: the fd or -errno.
 */
int tracer_poll_fd(struct tracer *t);

/**
 * tracer_start() - open the per-CPU readers and turn tracing on in the instance
 *
 * Fork a command to trace before this: the readers' descriptors are not close-on-exec.
 * Return: 0 or -errno.
 */
int tracer_start(struct tracer *t);

/** tracer_start_ns() - CLOCK_MONOTONIC time tracing was turned on (the zero of record times) */
uint64_t tracer_start_ns(const struct tracer *t);

/**
 * tracer_stop() - turn tracing off; what is in the buffers can still be read
 * Return: 0 or -errno.
 */
int tracer_stop(struct tracer *t);

/**
 * tracer_read() - read what the ring buffers hold now, without blocking
 * @fn: called for each record, CPU by CPU, in time order within a CPU
 *
 * Return: the number of records read, or -errno, or what @fn returned if <0.
 */
long tracer_read(struct tracer *t, tracer_record_fn fn, void *ctx);

/**
 * tracer_lost_events() - events the ring buffers dropped so far
 *
 * The larger of the missed-event counts in the sub-buffers read and the
 * per-CPU "overrun" + "dropped events" statistics.
 */
uint64_t tracer_lost_events(struct tracer *t);

#endif
