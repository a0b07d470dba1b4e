// SPDX-License-Identifier: GPL-2.0-or-later
/* A live trace: the tracefs instance, the traced command or the system, the poll loop, signals */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ura/pack.h>

#include "cli-trace.h"
#include "dev-block.h"
#include "dev-cache.h"
#include "dev-model.h"
#include "util-log.h"
#include "sys-mountinfo.h"
#include "trace-rakb.h"
#include "trace-access.h"
#include "trace-demand.h"
#include "trace-events.h"
#include "trace-evict.h"
#include "trace-summary.h"
#include "trace-session.h"
#include "trace-tracer.h"
#include "util.h"

#define POLL_MS			100
#define READER_NICE		10	/* nice value while reading the trace */
#define READS_DEVICES		64	/* devices whose reads the summary counts, at most */

static int drop_caches(void)
{
	int fd, r = 0;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3", 1) != 1)
		r = -errno;
	close(fd);
	return r;
}

struct child {
	pid_t pid;
	int pidfd;
	int go_fd;		/* write a byte: exec now */
	int err_fd;		/* the exec's errno, or EOF when it succeeded */
};

/* Fork the command, held before exec until child_release(). */
static int child_spawn(char **argv, const sigset_t *mask, struct child *ret)
{
	int go[2] = { -1, -1 }, err[2] = { -1, -1 };
	pid_t pid;
	int r;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		r = -errno;
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto fail;
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		sigprocmask(SIG_SETMASK, mask, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	ret->pid = pid;
	ret->go_fd = go[1];
	ret->err_fd = err[0];
	ret->pidfd = pidfd_open(pid, 0);
	if (ret->pidfd < 0) {
		r = -errno;
		close(ret->go_fd);
		close(ret->err_fd);
		waitpid(pid, NULL, 0);
		return r;
	}
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return r;
}

/* Let the child exec; 0, or the exec's -errno. */
static int child_release(struct child *ch)
{
	ssize_t n;
	int e = 0;

	n = write(ch->go_fd, "x", 1);
	close(ch->go_fd);
	ch->go_fd = -1;
	if (n != 1)
		return -EPIPE;
	do
		n = read(ch->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ch->err_fd);
	ch->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

static int status_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

struct loop_state {
	struct tracer *t;
	const struct trace_decoder *decoder;
	struct trace_demand *demand;
	struct access_log *access;	/* or NULL */
	const struct trace_options *o;
	struct child *ch;
	int sigfd;
	int signals;		/* received so far */
	int last_signal;
	bool child_done;
	int child_status;
	struct rakb_state *ra;	/* read_ahead_kb forced for the trace, put back after --read-ahead-for */
};

/* A record read from the ring buffers: decode it, feed it to the demand model and the log. */
static int feed_record(struct tep_record *rec, void *ctx)
{
	struct loop_state *ls = ctx;
	struct trace_event ev;
	int r;

	if (trace_events_decode(ls->decoder, rec, &ev) <= 0)
		return 0;
	r = demand_feed(ls->demand, &ev);
	if (r >= 0 && ls->access)
		r = access_feed(ls->access, &ev, ls->demand->t0);
	return r;
}

static int drain(struct loop_state *ls)
{
	long n = tracer_read(ls->t, feed_record, ls);

	if (n < 0) {
		log_err("cannot read the trace buffers: %s", strerror((int)-n));
		return (int)n;
	}
	return 0;
}

static void handle_signal(struct loop_state *ls)
{
	struct signalfd_siginfo si;

	while (read(ls->sigfd, &si, sizeof(si)) == sizeof(si)) {
		ls->signals++;
		ls->last_signal = (int)si.ssi_signo;
		/*
		 * Command mode: a signal sent to ura-trace alone (kill) goes on to the
		 * command, and the trace ends when it does; one from the terminal
		 * reached the command already. A second signal stops at once.
		 */
		if (ls->ch && ls->signals == 1 && si.ssi_code != SI_KERNEL &&
		    (pid_t)si.ssi_pid != ls->ch->pid)
			kill(ls->ch->pid, (int)si.ssi_signo);
		log_debug("signal %u received", si.ssi_signo);
	}
}

/* Poll until the command exits, a signal, --duration or --until-idle. */
static int trace_loop(struct loop_state *ls)
{
	const struct trace_options *o = ls->o;
	uint64_t start = tracer_start_ns(ls->t);

	for (;;) {
		struct pollfd p[2] = { { .fd = ls->sigfd, .events = POLLIN },
				       { .fd = ls->ch ? ls->ch->pidfd : -1, .events = POLLIN } };
		uint64_t now;
		int r;

		if (poll(p, 2, POLL_MS) < 0 && errno != EINTR) {
			r = -errno;
			log_err("cannot wait for events: %s", strerror(-r));
			return r;
		}
		if (p[0].revents & POLLIN)
			handle_signal(ls);
		r = drain(ls);
		if (r < 0)
			return r;
		if (ls->demand->error) {
			log_err("cannot record events: %s", strerror(-ls->demand->error));
			return ls->demand->error;
		}
		if (ls->ch && (p[1].revents & POLLIN)) {
			if (waitpid(ls->ch->pid, &ls->child_status, 0) == ls->ch->pid) {
				ls->child_done = true;
				return 0;
			}
		}
		if (!ls->ch && ls->signals)
			return 0;
		if (ls->signals > 1)
			return -EINTR;
		now = now_monotonic_ns();
		if (ls->ch && ls->ra && ls->ra->n && !ls->ra->restored &&
		    now - start >= o->read_ahead_for_ns) {
			rakb_restore(ls->ra);
			log_info("read_ahead_kb put back after %.1f s (--read-ahead-for): the rest "
				 "of the run is traced at the devices' own values",
				 (double)o->read_ahead_for_ns / 1e9);
		}
		if (!ls->ch && o->duration_ns && now - start >= o->duration_ns) {
			log_debug("duration reached");
			return 0;
		}
		if (!ls->ch && o->until_idle_ns) {
			uint64_t last = ls->demand->last_add_ts > start ? ls->demand->last_add_ts : start;

			if (now > last && now - last >= o->until_idle_ns) {
				log_debug("no page added for %.1f s: idle",
					  (double)(now - last) / 1e9);
				return 0;
			}
		}
	}
}

static void log_reader_usage(const struct trace_demand *d)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		log_debug("%" PRIu64 " records read, reader CPU time %.3f s user, %.3f s system",
			  d->events, (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
			  (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
}

void session_signals(sigset_t *ret)
{
	sigemptyset(ret);
	sigaddset(ret, SIGINT);
	sigaddset(ret, SIGTERM);
	sigaddset(ret, SIGHUP);
}

/* What --read-ahead-kb auto needs to pick a device's value. */
struct pick_ctx {
	const struct trace_options *o;
	dev_t measure[3];	/* the devices of / (or --root), the command and the working
				 * directory: measured if need be (0: none) */
};

/* The file execvp() would run for @cmd: a path, or the first match in $PATH. */
static int command_dev(const char *cmd, dev_t *ret)
{
	const char *path = getenv("PATH"), *p;
	char buf[PATH_MAX];
	struct stat st;

	if (strchr(cmd, '/'))
		return stat(cmd, &st) == 0 ? (*ret = st.st_dev, 0) : -errno;
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		if (len && len + strlen(cmd) + 2 <= sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, cmd);
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
				*ret = st.st_dev;
				return 0;
			}
		}
		p += len + (p[len] == ':');
	}
	return -ENOENT;
}

/*
 * --read-ahead-kb auto: each device at the value its cost model gives
 * (rakb_for_model()). The devices of the root directory, of the command and of
 * the working directory, seen for the first time, are measured now, before the
 * trace (O_DIRECT: the page cache is left as it is); other mounted devices are
 * not (there may be many, and slow: USB disks, images), and like a device with
 * no model to be had (--probe never) they are traced exactly, a page at a time,
 * until a trace with files on them measures them after it.
 */
static unsigned pick_by_model(unsigned major, unsigned minor, unsigned own_kb, void *arg)
{
	const struct pick_ctx *c = arg;
	bool measure = false;
	struct devmodel m;
	int r;

	for (size_t i = 0; i < sizeof(c->measure) / sizeof(c->measure[0]); i++)
		measure |= c->measure[i] && c->measure[i] == makedev(major, minor);
	r = dev_cache_get(major, minor, c->o->probe < 0 || !measure ? DEVCACHE_LOAD :
				       DEVCACHE_AUTO, &m);
	if (r < 0) {
		if (measure)
			log_info("no cost model of device %u:%u (%s): tracing it a page at a time",
				 major, minor, strerror(-r));
		return TRACE_RA_EXACT;
	}
	return rakb_for_model(&m, own_kb);
}

/*
 * Reads completed so far on each device a trace concerns (rakb_traced_devices()),
 * into @reads (UINT64_MAX where unknown); with @before, the reads since then.
 */
static uint64_t devices_reads(const struct mount_table *mt, const char *root, uint64_t *reads,
			      size_t max, const uint64_t *before)
{
	struct rakb_dev *devs = NULL;
	uint64_t total = 0;
	size_t n = 0;

	for (size_t i = 0; i < max; i++)
		reads[i] = UINT64_MAX;
	if (rakb_traced_devices(mt, root, &devs, &n) < 0)
		return 0;
	for (size_t i = 0; i < n && i < max; i++) {
		if (dev_block_reads(devs[i].major, devs[i].minor, &reads[i]) < 0)
			reads[i] = UINT64_MAX;
		else if (before && before[i] != UINT64_MAX && reads[i] >= before[i])
			total += reads[i] - before[i];
	}
	free(devs);
	return total;
}

int session_trace(const struct trace_options *o, const char *root,
		  const struct mount_table *mt, const sigset_t *child_mask,
		  struct trace_demand *d, struct access_log *log, struct rakb_state *ra,
		  unsigned *ret_info_flags, uint64_t *ret_duration_ns, struct trace_summary *sum)
{
	struct tracer_opts to = {
		.system = o->system,
		.exclude_pid = getpid(),
		.buffer_kb = o->buffer_kb,
		.access_events = o->events != TRACE_EVENTS_ADD,
		.fault_addresses = o->events == TRACE_EVENTS_ALL,
	};
	struct child ch = { .pid = -1, .pidfd = -1, .go_fd = -1, .err_fd = -1 };
	struct loop_state ls = { .o = o, .demand = d, .access = log, .sigfd = -1 };
	struct trace_decoder *decoder = NULL;
	struct tracer *t = NULL;
	sigset_t mask;
	unsigned info_flags = 0;
	uint64_t end_ns = 0, reads0[READS_DEVICES], reads1[READS_DEVICES];
	bool access;
	int r;

	/* SIGINT/SIGTERM/SIGHUP, blocked by the caller, become poll events */
	session_signals(&mask);
	ls.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (ls.sigfd < 0) {
		r = -errno;
		log_err("cannot watch signals: %s", strerror(-r));
		goto out;
	}

	rakb_restore_dead(&rakb_system);
	r = tracer_remove_orphans();
	if (r >= 0)
		r = tracer_new(&to, &t);
	if (r < 0) {
		/* no tracefs, no event, not allowed: the caller says so, with its exit code */
		if (r == -ENOENT || r == -ENODEV || r == -EPERM || r == -EACCES)
			sum->tracing_unavailable = true;
		else
			log_err("cannot set up tracing: %s", strerror(-r));
		goto out;
	}
	log_debug("tracing in instance '%s'", tracer_instance_name(t));
	r = trace_events_new(tracer_tep(t), &decoder);
	if (r < 0) {
		log_err("cannot start: %s", strerror(-r));
		goto out;
	}
	ls.decoder = decoder;
	d->evidence = demand_evidence(tracer_has_event(t, TRACE_EVENT_GET_PAGES),
				      tracer_has_event(t, TRACE_EVENT_MAP_PAGES));
	access = d->evidence != DEMAND_EVIDENCE_NONE;
	if (!access) {
		if (o->events != TRACE_EVENTS_ADD)
			log_warn("this kernel has no page access events: every page counts as demanded");
		info_flags |= URA_PACK_INFO_NO_ACCESS_EVENTS;
	} else if (d->evidence == DEMAND_EVIDENCE_PARTIAL) {
		log_info("this kernel has one kind of page access event: pages added with no sign "
			 "of use count as demanded");
	}
	sum->access_events = access;
	if (o->system)
		info_flags |= URA_PACK_INFO_SYSTEM;

	if (!o->system && !o->cold && !o->no_evict) {
		struct trace_evicted ev;

		/* a trace again of a command: its files as a cold start finds them */
		if (trace_evict_pack_files(o->pack, root, mt, &ev) == 0) {
			sum->evicted_files = ev.files;
			log_info("%" PRIu64 " files of '%s' out of the page cache first", ev.files,
				 o->pack);
		}
	}
	if (o->read_ahead_kb) {
		struct pick_ctx pc = { .o = o };
		struct stat st;

		if (stat(root ? root : "/", &st) == 0)
			pc.measure[0] = st.st_dev;
		if (o->system || command_dev(o->argv[0], &pc.measure[1]) < 0)
			pc.measure[1] = 0;
		if (stat(".", &st) == 0)
			pc.measure[2] = st.st_dev;
		r = o->read_ahead_kb == TRACE_RA_AUTO ?
		    rakb_force_each(ra, &rakb_system, pick_by_model, &pc, mt, root) :
		    rakb_force(ra, &rakb_system, o->read_ahead_kb, mt, root);
		if (r < 0 && o->read_ahead_kb_default) {
			/* a read-only /sys (a container): the devices' own values, and the
			 * pack's demand from the access events */
			log_warn("cannot set read_ahead_kb: %s, tracing with the devices' own",
				 strerror(-r));
			rakb_free(ra);
			*ra = (struct rakb_state){ 0 };
		} else if (r < 0) {
			log_err("cannot set read_ahead_kb: %s", strerror(-r));
			goto out;
		}
	}
	if (o->cold) {
		info_flags |= URA_PACK_INFO_COLD;
		r = drop_caches();
		if (r < 0) {
			log_err("cannot drop the page cache: %s", strerror(-r));
			goto out;
		}
	}

	/* a signal before the command started (measuring a device takes seconds) */
	{
		struct signalfd_siginfo si;

		if (read(ls.sigfd, &si, sizeof(si)) == sizeof(si)) {
			log_info("stopped by signal %u before the command started, no pack written",
				 si.ssi_signo);
			sum->exit_status = 128 + (int)si.ssi_signo;
			r = -EINTR;
			goto out;
		}
	}
	if (!o->system) {
		r = child_spawn(o->argv, child_mask, &ch);
		if (r < 0) {
			log_err("cannot start '%s': %s", o->argv[0], strerror(-r));
			goto out;
		}
		ls.ch = &ch;
		r = tracer_follow_pid(t, ch.pid, ch.pidfd);
		if (r < 0) {
			log_err("cannot filter on pid %d: %s", (int)ch.pid, strerror(-r));
			goto out;
		}
	}
	d->t0 = now_monotonic_ns();
	devices_reads(mt, root, reads0, READS_DEVICES, NULL);
	r = tracer_start(t);
	if (r < 0) {
		log_err("cannot start tracing: %s", strerror(-r));
		goto out;
	}
	d->t0 = tracer_start_ns(t);
	d->t0_real = now_realtime_ns() - (int64_t)(now_monotonic_ns() - d->t0);
	if (!o->system) {
		r = child_release(&ch);
		if (r < 0) {
			log_err("cannot run '%s': %s", o->argv[0], strerror(-r));
			waitpid(ch.pid, NULL, 0);
			ch.pid = -1;
			sum->exit_status = r == -ENOENT ? 127 : 126;
			r = -ENOEXEC;
			goto out;
		}
	}

	/*
	 * The reader is not in a hurry: the buffers hold seconds of events. Give the
	 * CPU to the traced programs first (the command was started before this).
	 */
	if (setpriority(PRIO_PROCESS, 0, READER_NICE) < 0)
		log_debug("cannot lower our priority: %s", strerror(errno));

	ls.t = t;
	ls.ra = ra;
	r = trace_loop(&ls);
	end_ns = now_monotonic_ns();
	sum->device_reads = devices_reads(mt, root, reads1, READS_DEVICES, reads0);
	tracer_stop(t);
	if (r == 0 || r == -EINTR) {
		int e = drain(&ls);

		if (e < 0 && r == 0)
			r = e;
	}
	log_reader_usage(d);
	sum->lost_events = tracer_lost_events(t);
	sum->seconds = (double)(end_ns - tracer_start_ns(t)) / 1e9;
	if (ls.child_done)
		sum->exit_status = status_code(ls.child_status);
	else if (ls.signals)
		sum->exit_status = 128 + ls.last_signal;
	if (r == -EINTR) {
		log_info("stopped by a second signal, no pack written");
		goto out;
	}
	if (r < 0)
		goto out;

	/* the instance goes as soon as the trace is read, while the files are named */
	tracer_free_async(t);
	t = NULL;
	rakb_restore(ra);
	if (sum->lost_events)
		log_warn("%" PRIu64 " events lost: the trace buffer overflowed, the pack is incomplete",
			 sum->lost_events);
	*ret_info_flags = info_flags;
	*ret_duration_ns = end_ns - d->t0;
out:
	if (ch.pid > 0 && !ls.child_done) {
		/* the command outlives an error of ours: let it run, as our own child no more */
		if (ch.go_fd >= 0)
			close(ch.go_fd);	/* not released yet: it exits 127 */
	}
	if (ch.pidfd >= 0)
		close(ch.pidfd);
	if (ch.err_fd >= 0)
		close(ch.err_fd);
	tracer_free(t);
	trace_events_free(decoder);
	/* before the signals are let in: a SIGINT must not leave a device forced */
	rakb_restore(ra);
	if (ls.sigfd >= 0)
		close(ls.sigfd);
	return r;
}
