// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace's own tracefs instance: page-cache events, PID filters, binary reads, lost events */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <tracefs.h>
#include <event-parse.h>
#include <kbuffer.h>

#include "util-log.h"
#include "trace-events.h"
#include "trace-tracer.h"
#include "util.h"

#define TRACEFS_DIR		"/sys/kernel/tracing"
#define TRACEFS_MAGIC_NR	0x74726163
#define INSTANCE_PREFIX		"ura-"
#define EXEC_SUFFIX		"-exec"		/* learning's exec instance: "ura-<pid>-exec" */

/* Sub-buffers read from one CPU's ring buffer, and the record being looked at. */
struct cpu_stream {
	struct tracefs_cpu *tcpu;	/* NULL for a CPU that cannot exist */
	struct kbuffer *kbuf;
	char *pages;			/* npages sub-buffers of page_size bytes */
	size_t npages, cap, cur;
	void *data;			/* current record, NULL when this round is done */
	unsigned long long ts;
	int missed;			/* events lost before it (first of a sub-buffer) */
};

/* Sub-buffers read from one CPU before merging (4 MiB with 4 KiB sub-buffers). */
#define STREAM_MAX_PAGES	1024

struct tracer {
	struct tracefs_instance *inst;
	char name[32];
	struct tep_handle *tep;
	struct cpu_stream *streams;	/* one per possible CPU */
	int ncpus;
	int page_size;			/* of a sub-buffer */
	int ids[TRACE_NR_EVENTS];
	bool enabled[TRACE_NR_EVENTS];
	bool instance_created;
	int pin_fd;			/* keeps the instance busy while it is ours */
	int poll_fd;			/* trace_pipe, for tracer_poll_fd(), or -1 */
	char pid_filter[40];		/* "common_pid != N" where set_event_notrace_pid is missing */
	uint64_t start_ns;
	uint64_t missed;		/* from sub-buffer headers */
};

static int lib_log_level = LOG_LVL_DEBUG;

/*
 * libtraceevent and libtracefs print through this weak hook; override it so
 * their messages go through our logger with our prefix and our -v/-q level.
 */
__attribute__((visibility("default"), format(printf, 4, 0)))
int tep_vprint(const char *name, enum tep_loglevel level, bool print_err, const char *fmt,
	       va_list ap);
int tep_vprint(const char *name, enum tep_loglevel level, bool print_err, const char *fmt,
	       va_list ap)
{
	int saved = errno;
	char buf[512];
	int n;

	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	while (n > 0 && (size_t)n < sizeof(buf) && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (print_err && saved)
		log_msg(level <= TEP_LOG_ERROR ? (enum log_level)lib_log_level : LOG_LVL_DEBUG,
			"%s: %s: %s", name ? name : "libtracefs", buf, strerror(saved));
	else
		log_msg(level <= TEP_LOG_ERROR ? (enum log_level)lib_log_level : LOG_LVL_DEBUG,
			"%s: %s", name ? name : "libtracefs", buf);
	return n;
}

void tracer_setup_logging(int verbose)
{
	/*
	 * Library errors are often expected (an optional event missing); we report
	 * what matters ourselves, so theirs are debug output unless -v was given.
	 */
	lib_log_level = verbose > 0 ? LOG_LVL_WARN : LOG_LVL_DEBUG;
	tracefs_set_loglevel(verbose > 1 ? TEP_LOG_ALL : TEP_LOG_ERROR);
	tep_set_loglevel(verbose > 1 ? TEP_LOG_ALL : TEP_LOG_ERROR);
}

static bool is_tracefs(const char *dir)
{
	struct statfs sfs;

	return statfs(dir, &sfs) == 0 && (unsigned long)sfs.f_type == TRACEFS_MAGIC_NR;
}

/* Mount tracefs at its usual place if nothing is there, and tell libtracefs. */
static int ensure_tracefs(void)
{
	if (!is_tracefs(TRACEFS_DIR)) {
		if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) < 0) {
			int r = -errno;

			/* maybe mounted somewhere else: let libtracefs look */
			if (tracefs_tracing_dir() && is_tracefs(tracefs_tracing_dir()))
				return 0;
			return r == -EPERM || r == -EACCES ? r : -ENOENT;
		}
		log_info("mounted tracefs on '%s'", TRACEFS_DIR);
	}
	if (tracefs_set_tracing_dir(TRACEFS_DIR) < 0)
		return -ENOENT;
	return 0;
}

static int orphan_cb(const char *name, void *ctx)
{
	int *count = ctx;
	struct tracefs_instance *inst;
	char *end;
	long pid;

	if (strncmp(name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)) != 0)
		return 0;
	errno = 0;
	pid = strtol(name + strlen(INSTANCE_PREFIX), &end, 10);
	if (errno || (*end && strcmp(end, EXEC_SUFFIX) != 0) || pid <= 0 ||
	    end == name + strlen(INSTANCE_PREFIX))
		return 0;
	if (pid != getpid() && pid_is_ura_trace((pid_t)pid))
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return 0;
	if (tracefs_instance_destroy(inst) == 0) {
		log_info("removed tracefs instance '%s' left by a killed ura-trace", name);
		(*count)++;
	} else if (errno == EBUSY) {
		/* open: a live ura-trace, in another pid namespace */
		log_debug("tracefs instance '%s' is in use, left alone", name);
	} else {
		log_warn("cannot remove stale tracefs instance '%s': %s, skipping", name,
			 strerror(errno));
	}
	tracefs_instance_free(inst);
	return 0;
}

int tracer_remove_orphans(void)
{
	int count = 0, r;

	r = ensure_tracefs();
	if (r < 0)
		return r;
	if (tracefs_instances_walk(orphan_cb, &count) < 0)
		return -errno ? -errno : -EIO;
	return count;
}

/* Per-CPU ring buffer size: about 1/64 of memory, at most 64 MiB in all, 1..16 MiB per CPU. */
static unsigned auto_buffer_kb(int ncpus)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t total = 64ull << 20;
	uint64_t per;

	if (pages > 0 && psize > 0 && (uint64_t)pages * (uint64_t)psize / 64 < total)
		total = (uint64_t)pages * (uint64_t)psize / 64;
	per = total / (uint64_t)(ncpus > 0 ? ncpus : 1) / 1024;
	if (per < 1024)
		per = 1024;
	if (per > 16384)
		per = 16384;
	return (unsigned)per;
}

static int write_file(struct tracer *t, const char *file, const char *val)
{
	if (tracefs_instance_file_write(t->inst, file, val) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * tracefs pid filters take pids as the kernel's top pid namespace numbers them.
 * In a nested pid namespace, the first NSpid entry is that number when /proc is
 * the outer one; otherwise @pid is the best there is. @file is /proc/self/status,
 * or the fdinfo of a pidfd (which names the process whatever /proc is mounted).
 */
static pid_t outer_pid(pid_t pid, const char *file)
{
	char line[256];
	pid_t ret = pid;
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		int outer;

		if (sscanf(line, "NSpid: %d", &outer) == 1) {
			ret = outer;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * Only read and instruction faults can map a fault-around window: a write fault
 * goes the copy-on-write or shared path. Anonymous memory is mostly written
 * first, so this filter drops most page_fault_user events (75 to 90% of them
 * on a Python start or a gcc run) and their cost, in the kernel.
 */
#define PF_USER_FILTER	"!(error_code & 2)"

/* sched events of learning: the exec instance's one, or the task trees' two */
static int enable_sched(struct tracer *t, const char *name)
{
	if (!tep_find_event_by_name(t->tep, "sched", name))
		return -ENODEV;
	if (tracefs_event_enable(t->inst, "sched", name) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

static int setup_events(struct tracer *t, const struct tracer_opts *o)
{
	if (o->exec_only)
		return enable_sched(t, "sched_process_exec");
	if (o->task_events) {
		int r = enable_sched(t, "sched_process_fork");

		if (r >= 0)
			r = enable_sched(t, "sched_process_exit");
		/* the execs of traced tasks: learning sees which ones were traced from the exec */
		if (r >= 0)
			r = enable_sched(t, "sched_process_exec");
		if (r < 0)
			return r;
	}
	for (int i = 0; i < TRACE_NR_EVENTS; i++) {
		struct tep_event *ev = tep_find_event_by_name(t->tep, trace_event_specs[i].system,
							     trace_event_specs[i].name);

		t->ids[i] = ev ? ev->id : -1;
		if (!ev) {
			if (i == TRACE_EVENT_ADD)
				return -ENODEV;
			log_debug("event %s:%s not available", trace_event_specs[i].system, trace_event_specs[i].name);
			continue;
		}
		if (i != TRACE_EVENT_ADD && i != TRACE_EVENT_PF_USER && !o->access_events)
			continue;
		if (i == TRACE_EVENT_PF_USER && !o->fault_addresses)
			continue;
		if (i == TRACE_EVENT_PF_USER) {
			char filter[96];

			if (t->pid_filter[0])
				snprintf(filter, sizeof(filter), "%s && %s", t->pid_filter,
					 PF_USER_FILTER);
			else
				snprintf(filter, sizeof(filter), "%s", PF_USER_FILTER);
			if (tracefs_event_file_write(t->inst, trace_event_specs[i].system, trace_event_specs[i].name,
						     "filter", filter) < 0)
				log_debug("cannot filter %s: %s", trace_event_specs[i].name, strerror(errno));
		}
		if (tracefs_event_enable(t->inst, trace_event_specs[i].system, trace_event_specs[i].name) < 0) {
			int r = errno ? -errno : -EIO;

			if (i == TRACE_EVENT_ADD)
				return r;
			log_warn("cannot enable event %s:%s: %s, skipping", trace_event_specs[i].system,
				 trace_event_specs[i].name, strerror(-r));
			continue;
		}
		t->enabled[i] = true;
	}
	return 0;
}

/*
 * One event's format into @tep; a missing event is no error (tracer_new()
 * decides what is needed).
 */
static int load_format(struct tep_handle *tep, const char *system, const char *name)
{
	char *buf;
	int size = 0;

	buf = tracefs_event_file_read(NULL, system, name, "format", &size);
	if (!buf)
		return 0;
	if (tep_parse_event(tep, buf, (unsigned long)size, system) != 0)
		log_debug("cannot parse the format of %s:%s", system, name);
	free(buf);
	return 0;
}

/*
 * The formats of the events ura reads and nothing else: tracefs_local_events_system()
 * also reads all of /proc/kallsyms and the printk formats, which ura never
 * prints (0.33 s of the 0.5 s a trace took to start on the VM of
 * bench/README.md, before the command could run).
 */
static struct tep_handle *load_events(bool sched)
{
	static const char *const sched_events[] = { "sched_process_exec", "sched_process_fork",
						     "sched_process_exit" };
	struct tep_handle *tep = tep_alloc();
	char *header;
	int size = 0;

	if (!tep)
		return NULL;
	tep_set_file_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_page_size(tep, getpagesize());
	header = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!header || tep_parse_header_page(tep, header, (unsigned long)size, sizeof(long)) != 0) {
		free(header);
		tep_free(tep);
		return NULL;
	}
	free(header);
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	for (int i = 0; i < TRACE_NR_EVENTS; i++)
		load_format(tep, trace_event_specs[i].system, trace_event_specs[i].name);
	for (size_t i = 0; sched && i < sizeof(sched_events) / sizeof(sched_events[0]); i++)
		load_format(tep, "sched", sched_events[i]);
	return tep;
}

int tracer_new(const struct tracer_opts *o, struct tracer **ret)
{
	char *dir = NULL, *pin = NULL;
	struct tracer *t;
	char buf[64];
	int r;

	r = ensure_tracefs();
	if (r < 0)
		return r;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->pin_fd = -1;
	t->poll_fd = -1;
	snprintf(t->name, sizeof(t->name), INSTANCE_PREFIX "%d%s", (int)getpid(),
		 o->exec_only ? EXEC_SUFFIX : "");
	t->tep = load_events(o->exec_only || o->task_events);
	if (!t->tep) {
		r = -ENODEV;
		goto out;
	}

	if (tracefs_instance_exists(t->name)) {
		/* our pid's name, so left by an earlier process with the same pid */
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, t->name);

		if (old) {
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	t->inst = tracefs_instance_create(t->name);
	if (!t->inst) {
		r = errno ? -errno : -EIO;
		goto out;
	}
	t->instance_created = true;
	/*
	 * An open file keeps the instance busy (rmdir fails with EBUSY), so that the
	 * orphan sweep of another ura-trace, maybe in another pid namespace where our
	 * pid means nothing, cannot remove it before our readers are open.
	 */
	dir = tracefs_instance_get_dir(t->inst);
	if (dir && asprintf(&pin, "%s/tracing_on", dir) >= 0)
		t->pin_fd = open(pin, O_RDONLY | O_CLOEXEC);
	free(pin);
	tracefs_put_tracing_file(dir);

	if (tracefs_trace_off(t->inst) < 0) {
		r = errno ? -errno : -EIO;
		goto out;
	}
	/* CLOCK_MONOTONIC timestamps: comparable with now_monotonic_ns() */
	r = write_file(t, "trace_clock", "mono");
	if (r < 0)
		goto out;

	t->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (t->ncpus < 1)
		t->ncpus = 1;
	if (tracefs_instance_set_buffer_size(t->inst, o->buffer_kb ? o->buffer_kb :
					     auto_buffer_kb(t->ncpus), -1) < 0) {
		r = errno ? -errno : -EIO;
		log_warn("cannot size the trace buffer: %s, skipping", strerror(-r));
	}

	if (o->system && o->exclude_pid > 0) {
		/* follow ura's children too, so they are left out as well */
		tracefs_option_enable(t->inst, TRACEFS_OPTION_EVENT_FORK);
		snprintf(buf, sizeof(buf), "%d", (int)outer_pid(o->exclude_pid, "/proc/self/status"));
		r = write_file(t, "set_event_notrace_pid", buf);
		if (r < 0) {
			/* older kernels: a filter on each event does it */
			log_debug("no set_event_notrace_pid (%s), using event filters",
				  strerror(-r));
			snprintf(t->pid_filter, sizeof(t->pid_filter), "common_pid != %d",
				 (int)outer_pid(o->exclude_pid, "/proc/self/status"));
			snprintf(buf, sizeof(buf), "%s", t->pid_filter);
			for (int i = 0; i < TRACE_NR_EVENTS; i++) {
				if (tracefs_event_file_write(t->inst, trace_event_specs[i].system,
							     trace_event_specs[i].name, "filter", buf) < 0 &&
				    i == TRACE_EVENT_ADD) {
					r = errno ? -errno : -EIO;
					goto out;
				}
			}
		}
	}

	r = setup_events(t, o);
	if (r < 0)
		goto out;

	*ret = t;
	return 0;
out:
	/* a file of our instance missing: it was removed under us, tracefs is there */
	if (r == -ENOENT && t->instance_created)
		r = -EIO;
	tracer_free(t);
	return r;
}

void tracer_free(struct tracer *t)
{
	if (!t)
		return;
	for (int cpu = 0; t->streams && cpu < t->ncpus; cpu++) {
		if (t->streams[cpu].tcpu)
			tracefs_cpu_close(t->streams[cpu].tcpu);
		if (t->streams[cpu].kbuf)
			kbuffer_free(t->streams[cpu].kbuf);
		free(t->streams[cpu].pages);
	}
	free(t->streams);
	if (t->pin_fd >= 0)
		close(t->pin_fd);
	if (t->poll_fd >= 0)
		close(t->poll_fd);
	if (t->inst) {
		tracefs_trace_off(t->inst);
		if (t->instance_created && tracefs_instance_destroy(t->inst) < 0)
			log_warn("cannot remove tracefs instance '%s': %s", t->name,
				 strerror(errno));
		tracefs_instance_free(t->inst);
	}
	if (t->tep)
		tep_free(t->tep);
	free(t);
}

/* The one teardown in flight (tracer_free_async()), joined by tracer_wait_freed(). */
static pthread_t freeing;
static bool freeing_started;

static void *free_thread(void *arg)
{
	tracer_free(arg);
	return NULL;
}

void tracer_free_async(struct tracer *t)
{
	if (!t)
		return;
	tracer_wait_freed();
	if (pthread_create(&freeing, NULL, free_thread, t) == 0)
		freeing_started = true;
	else
		tracer_free(t);
}

void tracer_wait_freed(void)
{
	if (freeing_started)
		pthread_join(freeing, NULL);
	freeing_started = false;
}

const char *tracer_instance_name(const struct tracer *t)
{
	return t->name;
}

bool tracer_has_event(const struct tracer *t, enum trace_event_type ev)
{
	return ev < TRACE_NR_EVENTS && t->enabled[ev];
}

int tracer_event_id(const struct tracer *t, enum trace_event_type ev)
{
	return ev < TRACE_NR_EVENTS ? t->ids[ev] : -1;
}

struct tep_handle *tracer_tep(const struct tracer *t)
{
	return t->tep;
}

int tracer_follow_pid(struct tracer *t, pid_t pid, int pidfd)
{
	char buf[64];

	if (tracefs_option_enable(t->inst, TRACEFS_OPTION_EVENT_FORK) < 0)
		return errno ? -errno : -EIO;
	if (pidfd >= 0) {
		snprintf(buf, sizeof(buf), "/proc/self/fdinfo/%d", pidfd);
		pid = outer_pid(pid, buf);
	}
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	return write_file(t, "set_event_pid", buf);
}

int tracer_set_pids(struct tracer *t, const int *pids, size_t n)
{
	char *buf, *p;
	int r;

	if (tracefs_option_enable(t->inst, TRACEFS_OPTION_EVENT_FORK) < 0)
		return errno ? -errno : -EIO;
	/*
	 * An empty set_event_pid means every task: "0" (the idle tasks, which
	 * neither fork nor touch the page cache) means none.
	 */
	if (n == 0)
		return write_file(t, "set_event_pid", "0");
	buf = malloc(n * 12 + 1);
	if (!buf)
		return -ENOMEM;
	p = buf;
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%d ", pids[i]);
	r = write_file(t, "set_event_pid", buf);
	free(buf);
	return r;
}

int tracer_add_pid(struct tracer *t, int pid)
{
	char buf[16];

	if (tracefs_option_enable(t->inst, TRACEFS_OPTION_EVENT_FORK) < 0)
		return errno ? -errno : -EIO;
	snprintf(buf, sizeof(buf), "%d", pid);
	if (tracefs_instance_file_append(t->inst, "set_event_pid", buf) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

char *tracer_pid_file(struct tracer *t)
{
	char *path = tracefs_instance_get_file(t->inst, "set_event_pid");
	char *ret = path ? strdup(path) : NULL;

	tracefs_put_tracing_file(path);
	return ret;
}

char *tracer_filter_file(struct tracer *t, const char *system, const char *event)
{
	char *name, *path, *ret;

	if (asprintf(&name, "events/%s/%s/filter", system, event) < 0)
		return NULL;
	path = tracefs_instance_get_file(t->inst, name);
	ret = path ? strdup(path) : NULL;
	tracefs_put_tracing_file(path);
	free(name);
	return ret;
}

int tracer_set_wakeup(struct tracer *t, unsigned percent)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", percent);
	return write_file(t, "buffer_percent", buf);
}

int tracer_set_filter(struct tracer *t, const char *system, const char *event, const char *filter)
{
	if (tracefs_event_file_write(t->inst, system, event, "filter", filter) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

int tracer_poll_fd(struct tracer *t)
{
	char *path;

	if (t->poll_fd >= 0)
		return t->poll_fd;
	path = tracefs_instance_get_file(t->inst, "trace_pipe");
	if (!path)
		return -ENOMEM;
	t->poll_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	tracefs_put_tracing_file(path);
	return t->poll_fd >= 0 ? t->poll_fd : -errno;
}

/*
 * The per-CPU readers are opened here, not in tracer_new(): libtracefs opens
 * them without O_CLOEXEC, and a command forked in between must not inherit them.
 */
static int open_cpus(struct tracer *t)
{
	t->streams = calloc((size_t)t->ncpus, sizeof(*t->streams));
	if (!t->streams)
		return -ENOMEM;
	for (int cpu = 0; cpu < t->ncpus; cpu++) {
		struct cpu_stream *st = &t->streams[cpu];

		st->tcpu = tracefs_cpu_open(t->inst, cpu, true);
		if (!st->tcpu)
			continue;	/* not a possible CPU */
		if (tracefs_cpu_read_size(st->tcpu) > t->page_size)
			t->page_size = tracefs_cpu_read_size(st->tcpu);
		st->kbuf = tep_kbuffer(t->tep);
		if (!st->kbuf)
			return -ENOMEM;
	}
	if (t->page_size <= 0)
		return -EIO;
	return 0;
}

int tracer_start(struct tracer *t)
{
	int r;

	if (!t->streams) {
		r = open_cpus(t);
		if (r < 0)
			return r;
	}
	t->start_ns = now_monotonic_ns();
	if (tracefs_trace_on(t->inst) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

uint64_t tracer_start_ns(const struct tracer *t)
{
	return t->start_ns;
}

int tracer_stop(struct tracer *t)
{
	if (tracefs_trace_off(t->inst) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* Load sub-buffer @st->cur and its first event; false when none is left. */
static bool stream_load(struct tracer *t, struct cpu_stream *st)
{
	for (; st->cur < st->npages; st->cur++) {
		int missed;

		if (kbuffer_load_subbuffer(st->kbuf, st->pages + st->cur * (size_t)t->page_size) < 0)
			continue;
		missed = kbuffer_missed_events(st->kbuf);
		if (missed > 0)
			t->missed += (uint64_t)missed;
		else if (missed < 0)
			t->missed++;	/* some were lost, the count is unknown */
		st->missed = missed;
		st->data = kbuffer_read_event(st->kbuf, &st->ts);
		if (st->data)
			return true;
	}
	st->data = NULL;
	return false;
}

static void stream_next(struct tracer *t, struct cpu_stream *st)
{
	st->missed = 0;
	st->data = kbuffer_next_event(st->kbuf, &st->ts);
	if (!st->data) {
		st->cur++;
		stream_load(t, st);
	}
}

/* Read up to STREAM_MAX_PAGES sub-buffers of one CPU; true if it had more. */
static int stream_fill(struct tracer *t, struct cpu_stream *st, bool *ret_more)
{
	st->npages = st->cur = 0;
	*ret_more = false;
	while (st->tcpu) {
		int n;

		if (st->npages == STREAM_MAX_PAGES) {
			*ret_more = true;
			break;
		}
		if (st->npages == st->cap) {
			size_t cap = st->cap ? st->cap * 2 : 16;
			char *p = realloc(st->pages, cap * (size_t)t->page_size);

			if (!p)
				return -ENOMEM;
			st->pages = p;
			st->cap = cap;
		}
		n = tracefs_cpu_read(st->tcpu, st->pages + st->npages * (size_t)t->page_size, true);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR && errno != 0)
				return -errno;
			break;
		}
		st->npages++;
	}
	stream_load(t, st);
	return 0;
}

/*
 * Records of all CPUs in time order: a task that added pages on one CPU may
 * fault on another, and the demand heuristics need the adds first.
 */
long tracer_read(struct tracer *t, tracer_record_fn fn, void *ctx)
{
	long total = 0;
	bool more;

	if (!t->streams)
		return 0;
	do {
		more = false;
		for (int cpu = 0; cpu < t->ncpus; cpu++) {
			bool m;
			int r = stream_fill(t, &t->streams[cpu], &m);

			if (r < 0)
				return r;
			more |= m;
		}
		for (;;) {
			struct cpu_stream *min = NULL;
			struct tep_record rec;
			int cpu = -1, r;

			for (int c = 0; c < t->ncpus; c++)
				if (t->streams[c].data && (!min || t->streams[c].ts < min->ts)) {
					min = &t->streams[c];
					cpu = c;
				}
			if (!min)
				break;
			rec = (struct tep_record){
				.ts = min->ts,
				.data = min->data,
				.size = kbuffer_event_size(min->kbuf),
				.record_size = kbuffer_curr_size(min->kbuf),
				.cpu = cpu,
				.missed_events = min->missed,
			};
			r = fn(&rec, ctx);
			if (r < 0)
				return r;
			total++;
			stream_next(t, min);
		}
	} while (more);
	return total;
}

/* "overrun: N" + "dropped events: N" of one CPU's stats file. */
static uint64_t cpu_lost(struct tracer *t, int cpu)
{
	char file[64];
	char *text, *p;
	uint64_t lost = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(t->inst, file, NULL);
	if (!text)
		return 0;
	p = strstr(text, "overrun:");
	if (p)
		lost += strtoull(p + strlen("overrun:"), NULL, 10);
	p = strstr(text, "dropped events:");
	if (p)
		lost += strtoull(p + strlen("dropped events:"), NULL, 10);
	free(text);
	return lost;
}

uint64_t tracer_lost_events(struct tracer *t)
{
	uint64_t stats = 0;

	for (int cpu = 0; t->streams && cpu < t->ncpus; cpu++)
		if (t->streams[cpu].tcpu)
			stats += cpu_lost(t, cpu);
	return stats > t->missed ? stats : t->missed;
}
