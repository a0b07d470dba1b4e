// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: the daemon's event loop. One thread polls the exec
 * source (watch-exec.c), the mount table, the packs' directory and a
 * signalfd; each exec goes to watch-decide.c, which names it and queues a
 * replay of its pack (watch-queue.c, whose worker threads replay it unless
 * what it would read is resident). The exec'ing program never waits.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "sys-view.h"
#include "util-log.h"
#include "util.h"
#include "watch-decide.h"
#include "watch-exec.h"
#include "watch-names.h"
#include "watch-queue.h"
#include "watch.h"

struct watch {
	struct watch_names names;	/* which execs no pack can be for */
	struct sys_view *view;		/* read at start, again after each mount change */
	struct watch_queue queue;	/* the replays decided on, and the workers */
	struct watch_decide *decide;	/* what each exec is */
};

/*
 * The files ignored (no pack was for them) are seen again once the directory
 * was read again and had a pack added. It is read again when an exec looks at
 * it, and every second while files are ignored: a program given a pack is
 * replayed from its next start, or, if nothing else started in between, from
 * its first start a second after its pack was written. A pack rewritten (the
 * learning daemon merges each run it learns) adds no name: the files ignored
 * stay so (those held for resident data until their hold ends), and the
 * execs of a machine learning its programs are not all looked at again.
 */
static void forget_ignored(struct watch *w, struct watch_exec *src, uint64_t *added)
{
	if (w->names.added != *added) {
		log_debug("a pack was added: the execs ignored are looked at again");
		watch_exec_forget(src);
		watch_decide_marks_gone(w->decide);
		*added = w->names.added;
	}
}

static int signals_open(sigset_t *old)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, old) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) {
		int r = -errno;

		sigprocmask(SIG_SETMASK, old, NULL);
		return r;
	}
	return fd;
}

int watch_run(const struct replay_options *o)
{
	struct watch_exec src = { .fd = -1 };
	struct watch *w = NULL;
	uint64_t overflows = 0, names_reads = 0;
	sigset_t old;
	int sfd = -1, r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	r = watch_names_init(&w->names, o->watch_dir);
	if (r == 0)
		r = watch_decide_new(o, &w->names, &w->view, &w->queue, &w->decide);
	if (r < 0)
		goto out;
	sfd = signals_open(&old);
	if (sfd < 0) {
		r = sfd;
		goto out;
	}
	/* the view of the system: its watch first, then the table (a mount between them is seen) */
	r = sys_view_read(SYS_VIEW_WATCH, &w->view);
	if (r < 0)
		goto out;
	if (sys_view_watch_fd(w->view) < 0)
		log_debug("cannot watch the mount table: mounts made later are not seen");
	r = watch_exec_open(w->view, &src);
	if (r < 0)
		goto out;
	/* started with the three signals blocked: the workers inherit the mask */
	r = watch_queue_start(&w->queue, o, o->max_replays ? o->max_replays : 1);
	if (r < 0)
		goto out;
	if (access(o->watch_dir, F_OK) < 0)
		log_info("'%s' does not exist (yet): no pack to replay until it does", o->watch_dir);
	log_info("watching execs on %u filesystems, packs in '%s'", src.marked, o->watch_dir);
	for (;;) {
		struct pollfd p[4] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = src.fd, .events = POLLIN },
			{ .fd = sys_view_watch_fd(w->view), .events = POLLPRI },
			{ .fd = watch_names_notify_fd(&w->names), .events = POLLIN },
		};

		/*
		 * With files ignored, a pack written is seen when DIR says so (inotify),
		 * and the directory is looked at every second (no inotify, or not yet)
		 */
		int wait_ms = watch_decide_wait_ms(w->decide);

		if (poll(p, 4, wait_ms >= 0 ? wait_ms : src.ignoring ? 1000 : -1) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (p[0].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				log_debug("signal %u: stopping", si.ssi_signo);
			r = 0;
			break;
		}
		/* a pack added since (the directory read again): the files ignored are seen again */
		if (p[3].revents)
			watch_names_notified(&w->names, now_realtime_ns());
		else if (src.ignoring)
			watch_names_refresh(&w->names, now_realtime_ns());
		forget_ignored(w, &src, &names_reads);
		if (watch_decide_hold_over(w->decide, now_monotonic_ns())) {
			log_debug("the hold of the programs found resident is over: their execs "
				  "are looked at again");
			watch_exec_forget(&src);
		}
		if (p[2].revents & (POLLPRI | POLLERR)) {
			int k = sys_view_refresh(&w->view, true);

			if (k >= 0)
				k = watch_exec_mounts_changed(&src, w->view);

			if (k < 0)
				log_warn("cannot watch execs on the new mounts: %s", strerror(-k));
		}
		if (p[1].revents) {
			int k = watch_exec_read(&src, watch_decide_exec, w->decide);

			forget_ignored(w, &src, &names_reads);	/* a pack seen by those execs */

			if (k == -EMFILE || k == -ENFILE || k == -ENOMEM) {
				/* the kernel could not make an event's descriptor: it comes back */
				log_warn("cannot read exec events: %s, skipping", strerror(-k));
			} else if (k < 0) {
				log_err("cannot read exec events: %s", strerror(-k));
				r = k;
				break;
			}
			if (src.overflows > overflows) {
				log_warn("too many execs at once: the kernel dropped some exec events");
				overflows = src.overflows;
			}
		}
		watch_decide_poll(w->decide);
	}
out:
	watch_queue_stop(&w->queue);
	watch_decide_free(w->decide);
	watch_exec_close(&src);
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	watch_names_free(&w->names);
	sys_view_unref(w->view);
	free(w);
	return r;
}
