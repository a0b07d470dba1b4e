// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which exec source should `ura-replay --watch` use? Measures the three ways a
 * daemon can learn of every exec() on the system (run as root):
 *
 *   proc      the proc connector: netlink PROC_EVENT_EXEC, then readlink(/proc/PID/exe)
 *   fanotify  FAN_OPEN_EXEC on the filesystem's mark: an fd of the file, readlink(/proc/self/fd/N)
 *   tracefs   sched:sched_process_exec in an own tracefs instance, read from its trace_pipe
 *
 *   exec-sources SOURCE latency [RATE SECONDS [EXE ARG...]]  exec EXE at RATE/s: latency, CPU
 *   exec-sources SOURCE burst N STALL_MS [EXE ARG...]        N execs, the reader asleep STALL_MS
 *   exec-sources SOURCE loop N [EXE ARG...]                  N execs back to back: time per exec
 *   exec-sources none loop N [EXE ARG...]                    the same with no source (baseline)
 *
 * EXE defaults to /bin/true (run with no arguments).
 *
 * Latency is from the child's clock_gettime() just before execve() to the
 * moment the reader knows the executable's path ("path"), and to its first
 * readahead() of the file's first 128 KiB issued ("readahead"). The child
 * writes its start time in a shared table indexed by pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#define SLOTS		(1u << 22)	/* pid_max at most */
#define INSTANCE	"/sys/kernel/tracing/instances/ura-bench-exec"

enum src { SRC_NONE, SRC_PROC, SRC_FANOTIFY, SRC_TRACEFS };

static uint64_t *start_ns;		/* shared: per pid, when the child called execve() */
static const char *exe = "/bin/true";
static char **exe_argv;			/* EXE and its arguments */
static char exe_real[PATH_MAX];
static volatile sig_atomic_t stop;
static double *lat_path, *lat_ra;
static size_t nlat, cap_lat;
static unsigned long events, matched, unresolved, lost_reports;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "exec-sources: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- the sources: open, then read events and hand (pid, path, fd) to note() ---- */

static int proc_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	/* netlink header, connector header (its data[] is the operation), the operation */
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	uint8_t msg[sizeof(struct nlmsghdr) + sizeof(struct cn_msg) + sizeof(op)] = { 0 };
	struct nlmsghdr nl = { .nlmsg_len = sizeof(msg), .nlmsg_type = NLMSG_DONE };
	struct cn_msg cn = { .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC }, .len = sizeof(op) };
	int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);

	if (fd < 0)
		die("netlink socket");
	sa.nl_pid = (unsigned)getpid();
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind");
	nl.nlmsg_pid = (unsigned)getpid();
	memcpy(msg, &nl, sizeof(nl));
	memcpy(msg + sizeof(nl), &cn, sizeof(cn));
	memcpy(msg + sizeof(nl) + sizeof(cn), &op, sizeof(op));
	if (send(fd, msg, sizeof(msg), 0) < 0)
		die("PROC_CN_MCAST_LISTEN");
	return fd;
}

static int fanotify_open(void)
{
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
			       O_RDONLY | O_CLOEXEC | O_LARGEFILE);

	if (fd < 0)
		die("fanotify_init");
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_EXEC, AT_FDCWD,
			  exe_real) < 0)
		die("fanotify_mark");
	return fd;
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		die(path);
	close(fd);
}

static int tracefs_open(void)
{
	int fd;

	if (mkdir(INSTANCE, 0755) < 0 && errno != EEXIST)
		die(INSTANCE);
	write_file(INSTANCE "/buffer_percent", "0");	/* wake the reader at every event */
	write_file(INSTANCE "/events/sched/sched_process_exec/enable", "1");
	fd = open(INSTANCE "/trace_pipe", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		die("trace_pipe");
	return fd;
}

static void tracefs_close(void)
{
	write_file(INSTANCE "/events/sched/sched_process_exec/enable", "0");
	if (rmdir(INSTANCE) < 0)
		perror("rmdir " INSTANCE);
}

static void note(pid_t pid, const char *path, int fd)
{
	uint64_t t0, t1, t2;
	int own = -1;

	events++;
	/* tracefs gives the name as execve() was given it, the others the file's real path */
	if (!path || (strcmp(path, exe_real) != 0 && strcmp(path, exe) != 0))
		return;
	t1 = now_ns();
	if (fd < 0)
		fd = own = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		readahead(fd, 0, 128 << 10);
	t2 = now_ns();
	if (own >= 0)
		close(own);
	t0 = __atomic_exchange_n(&start_ns[(unsigned)pid % SLOTS], 0, __ATOMIC_RELAXED);
	if (!t0)
		return;
	matched++;
	if (nlat == cap_lat) {
		cap_lat = cap_lat ? 2 * cap_lat : 4096;
		lat_path = realloc(lat_path, cap_lat * sizeof(double));
		lat_ra = realloc(lat_ra, cap_lat * sizeof(double));
		if (!lat_path || !lat_ra)
			die("realloc");
	}
	lat_path[nlat] = (double)(t1 - t0) / 1000.0;
	lat_ra[nlat++] = (double)(t2 - t0) / 1000.0;
}

static void proc_read(int fd)
{
	char buf[16384] __attribute__((aligned(8)));
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		if (n < 0) {
			if (errno == ENOBUFS) {	/* the socket's buffer overflowed: events lost */
				lost_reports++;
				continue;
			}
			return;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			struct cn_msg *cn = NLMSG_DATA(h);
			struct proc_event *ev = (struct proc_event *)cn->data;
			char link[64], path[PATH_MAX];
			ssize_t k;

			if (ev->what != PROC_EVENT_EXEC)
				continue;
			snprintf(link, sizeof(link), "/proc/%d/exe", ev->event_data.exec.process_tgid);
			k = readlink(link, path, sizeof(path) - 1);
			if (k < 0) {
				unresolved++;	/* gone already */
				events++;
				continue;
			}
			path[k] = '\0';
			note(ev->event_data.exec.process_tgid, path, -1);
		}
	}
}

static void fanotify_read(int fd)
{
	char buf[8192] __attribute__((aligned(8)));
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (struct fanotify_event_metadata *m = (void *)buf; FAN_EVENT_OK(m, n);
		     m = FAN_EVENT_NEXT(m, n)) {
			char link[64], path[PATH_MAX];
			ssize_t k;

			if (m->mask & FAN_Q_OVERFLOW)
				lost_reports++;
			if (m->fd < 0)
				continue;
			snprintf(link, sizeof(link), "/proc/self/fd/%d", m->fd);
			k = readlink(link, path, sizeof(path) - 1);
			if (k >= 0) {
				path[k] = '\0';
				note(m->pid, path, m->fd);
			}
			close(m->fd);
		}
	}
}

static void tracefs_read(int fd)
{
	static char buf[65536];
	static size_t have;
	ssize_t n;

	while ((n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *line = buf, *nl;

		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n'))) {
			char *f, *p;

			*nl = '\0';
			if (strstr(line, "LOST"))
				lost_reports++;
			f = strstr(line, "filename=");
			p = f ? strstr(f, " pid=") : NULL;
			if (f && p) {
				*p = '\0';
				/* the name as given to execve(): may be relative; not resolved here */
				note((pid_t)atoi(p + 5), f + 9, -1);
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
	}
}

/* ---- the load ---- */

static pid_t spawn(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char *argv[] = { (char *)exe, NULL };
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		__atomic_store_n(&start_ns[(unsigned)getpid() % SLOTS], now_ns(), __ATOMIC_RELAXED);
		execv(exe, exe_argv ? exe_argv : argv);
		_exit(127);
	}
	return pid;
}

static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void print_lat(const char *what, double *v)
{
	if (!nlat)
		return;
	qsort(v, nlat, sizeof(*v), cmp_double);
	printf("%s_us median %.1f p90 %.1f p99 %.1f min %.1f max %.1f\n", what, v[nlat / 2],
	       v[nlat * 9 / 10], v[nlat * 99 / 100], v[0], v[nlat - 1]);
}

static void drain(enum src s, int fd)
{
	if (s == SRC_PROC)
		proc_read(fd);
	else if (s == SRC_FANOTIFY)
		fanotify_read(fd);
	else if (s == SRC_TRACEFS)
		tracefs_read(fd);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char *argv[])
{
	enum src s;
	int fd = -1;
	pid_t reader;
	struct rusage ru;

	if (argc < 4) {
		fputs("usage: exec-sources proc|fanotify|tracefs latency [RATE SECONDS [EXE]]\n"
		      "       exec-sources proc|fanotify|tracefs burst N STALL_MS [EXE]\n"
		      "       exec-sources proc|fanotify|tracefs|none loop N [EXE]\n", stderr);
		return 64;
	}
	s = !strcmp(argv[1], "proc") ? SRC_PROC : !strcmp(argv[1], "fanotify") ? SRC_FANOTIFY :
	    !strcmp(argv[1], "tracefs") ? SRC_TRACEFS : SRC_NONE;
	start_ns = mmap(NULL, SLOTS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (start_ns == MAP_FAILED)
		die("mmap");
	if (!strcmp(argv[2], "latency") && argc > 5)
		exe_argv = argv + 5;
	else if (!strcmp(argv[2], "burst") && argc > 5)
		exe_argv = argv + 5;
	else if (!strcmp(argv[2], "loop") && argc > 4)
		exe_argv = argv + 4;
	if (exe_argv)
		exe = exe_argv[0];
	if (!realpath(exe, exe_real))
		die(exe);
	if (s == SRC_PROC)
		fd = proc_open();
	else if (s == SRC_FANOTIFY)
		fd = fanotify_open();
	else if (s == SRC_TRACEFS)
		fd = tracefs_open();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (!strcmp(argv[2], "loop")) {
		/* back to back, the reader draining in a child: the cost in the exec path */
		unsigned long n = strtoul(argv[3], NULL, 0);
		uint64_t t0;

		reader = -1;
		if (fd >= 0) {
			reader = fork();
			if (reader == 0) {
				struct pollfd p = { .fd = fd, .events = POLLIN };

				while (!stop) {
					if (poll(&p, 1, 100) > 0)
						drain(s, fd);
				}
				_exit(0);
			}
		}
		t0 = now_ns();
		for (unsigned long i = 0; i < n; i++) {
			pid_t pid = spawn();

			waitpid(pid, NULL, 0);
		}
		printf("%s loop %lu execs: %.1f us per fork+exec+wait\n", argv[1], n,
		       (double)(now_ns() - t0) / 1000.0 / (double)n);
		if (reader > 0) {
			kill(reader, SIGTERM);
			waitpid(reader, NULL, 0);
		}
	} else if (!strcmp(argv[2], "burst")) {
		/* the reader stalls: how many events survive */
		unsigned long n = strtoul(argv[3], NULL, 0), ms = strtoul(argv[4], NULL, 0);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t end;

		for (unsigned long i = 0; i < n; i++) {
			spawn();
			if (i % 64 == 63)
				reap();
		}
		while (wait(NULL) > 0)
			;
		usleep((useconds_t)ms * 1000);
		end = now_ns() + 1000000000ull;
		while (now_ns() < end && poll(&p, 1, 200) > 0)
			drain(s, fd);
		printf("%s burst %lu execs, reader stalled %lu ms: %lu of them seen (%lu events, "
		       "%lu unresolved), %lu loss reports\n", argv[1], n, ms, matched, events,
		       unresolved, lost_reports);
	} else {
		double rate = argc > 3 ? atof(argv[3]) : 100, secs = argc > 4 ? atof(argv[4]) : 10;
		uint64_t period = (uint64_t)(1e9 / rate), next = now_ns(), end;
		unsigned long spawned = 0;
		struct rusage before;

		/* the spawner is a child: RUSAGE_SELF is then the reader's alone */
		getrusage(RUSAGE_SELF, &before);
		end = next + (uint64_t)(secs * 1e9);
		reader = fork();
		if (reader == 0) {
			while (!stop && now_ns() < end) {
				struct timespec ts;

				spawn();
				spawned++;
				next += period;
				reap();
				ts.tv_sec = (time_t)(next / 1000000000ull);
				ts.tv_nsec = (long)(next % 1000000000ull);
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			}
			while (wait(NULL) > 0)
				;
			_exit(spawned > 255 ? 255 : 0);
		}
		spawned = (unsigned long)(rate * secs);
		end += 300000000ull;
		while (now_ns() < end) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, 50) > 0)
				drain(s, fd);
		}
		waitpid(reader, NULL, 0);
		getrusage(RUSAGE_SELF, &ru);
		printf("%s latency %.0f/s for %.0f s: %lu execs, %lu seen, %lu events, %lu unresolved, "
		       "%lu loss reports; reader CPU %.2f%% (user %.2f s, sys %.2f s)\n", argv[1], rate,
		       secs, spawned, matched, events, unresolved, lost_reports,
		       100.0 * ((double)(ru.ru_utime.tv_sec - before.ru_utime.tv_sec) +
				(double)(ru.ru_stime.tv_sec - before.ru_stime.tv_sec) +
				(double)(ru.ru_utime.tv_usec - before.ru_utime.tv_usec) / 1e6 +
				(double)(ru.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6) / secs,
		       (double)(ru.ru_utime.tv_sec - before.ru_utime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec - before.ru_utime.tv_usec) / 1e6,
		       (double)(ru.ru_stime.tv_sec - before.ru_stime.tv_sec) +
		       (double)(ru.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6);
		print_lat("path", lat_path);
		print_lat("readahead", lat_ra);
	}
	if (fd >= 0)
		close(fd);
	if (s == SRC_TRACEFS)
		tracefs_close();
	return 0;
}
