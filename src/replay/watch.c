// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: the daemon. One thread polls the exec source, the
 * mount table and a signalfd, and names each exec by its program's key
 * (key.c: the root it runs in and the program's path there; for a
 * script, the script); an exec whose program has a pack becomes a job in a
 * bounded queue, taken by one of --max-replays worker threads, which replays
 * it with the engine (src/replay-engine.c) unless what it would read is
 * resident. The exec'ing program never waits. Where the key is known only once
 * the exec has completed (an interpreter's script is in its argv), the likely
 * key's pack is replayed at once and stopped if the key turns out otherwise:
 * an exec can take a second on a slow disk, which is a second of prefetch.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util-log.h"
#include "watch-exec.h"
#include "watch-hold.h"
#include "watch-names.h"
#include "watch-packs.h"
#include "watch.h"
#include "replay-engine.h"
#include "replay-mounts.h"
#include "sys-view.h"
#include "key-exec.h"
#include "sys-proc.h"
#include "util.h"

#define QUEUE_LEN	64	/* jobs waiting at most: more are dropped (and counted) */
#define PENDING_MAX	64	/* interpreters waiting for their exec to complete */
#define PENDING_NS	5000000000ull	/* ... at most this long (a cold exec reads from disk) */
#define PENDING_POLL_MS	1	/* how often they are looked at, their first PENDING_FAST_NS */
#define PENDING_FAST_NS	20000000ull	/* ... then every PENDING_SLOW_MS (a cold exec, or a failed one) */
#define PENDING_SLOW_MS	10
/* of them, of one user's processes (root's are not counted): a user's failing execs of an
 * interpreter (E2BIG after it was opened) wait the whole PENDING_NS, and would fill the table */
#define PENDING_PER_USER	(PENDING_MAX / 4)
/* ... and of all users together (a user with subordinate uids is many): root keeps half */
#define PENDING_USERS		(PENDING_MAX / 2)
#define SCRIPTS_MAX	32	/* "#!" scripts whose interpreter's exec is still to come */
#define SCRIPT_NS	1000000000ull
#define STARTS_MAX	64	/* replays queued lately, by process and pack: one per start */
#define START_NS	2000000000ull

/* A replay to run; shared (refcounted) by the queue, a worker, and a pending exec. */
struct job {
	unsigned refs;		/* atomic */
	bool cancel;		/* atomic: stop issuing (the engine's cancel flag) */
	char *instead;		/* when cancelled for another key: that program (for the log) */
	uint64_t since;		/* the exec's event */
	struct watch_pack *pack;
	char *exe;		/* the program's path in its root (the script for a script) */
	char *root;		/* its root as the daemon sees it, NULL for the daemon's own */
	pid_t pid;
	struct sys_view *view;	/* the system when the exec came (a reference) */
};

/* An interpreter exec'd: its argv names the script, once the exec completes. */
struct pending {
	pid_t pid;
	uid_t uid;		/* the process's real uid, (uid_t)-1 if not known */
	uint64_t next_poll;	/* when to look at it again */
	int script;		/* the "#!" script's place in argv (watch_exec_event), or 0 */
	dev_t dev;		/* the interpreter's identity: /proc/PID/exe once the exec is done */
	ino_t ino;
	uint64_t since, deadline;	/* the event's time, and how long to wait */
	char *path;		/* the interpreter's path in its root */
	struct key_root *root;
	struct job *spec;	/* the replay started meanwhile (a reference), or NULL */
	char *spec_path;	/* the key it was started for */
};

/* Processes lately seen: "#!" scripts whose interpreter is to come, and replays queued. */
struct watch_recent {
	pid_t pid;
	uint64_t at;		/* 0: free */
	uint64_t hash;		/* the pack's name (starts) */
	int arg;		/* the script's place in argv (scripts) */
	struct job *spec;	/* scripts: the replay started for the script's path, or NULL */
	char *spec_path;
};

struct watch {
	const struct replay_options *o;
	struct watch_packs packs;
	struct watch_names names;	/* the event loop's: which execs no pack can be for */
	struct sys_view *view;		/* read at start, again after each mount change */
	struct key_self self;
	bool chatty;			/* -vv: every exec and its key */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *queue[QUEUE_LEN];
	size_t head, len;
	struct job **running;		/* per worker: the job it runs, or NULL */
	bool stop;			/* atomic */
	uint64_t dropped;
	/* the event loop's own */
	struct pending pending[PENDING_MAX];
	size_t npending;
	struct watch_recent scripts[SCRIPTS_MAX];
	struct watch_recent starts[STARTS_MAX];
	/*
	 * A program whose data a check found resident is left alone while the hold
	 * lasts (watch-hold.h): its execs are skipped, and the kernel drops them
	 * (an ignore mark on its file). All such marks go when the hold of the
	 * oldest check behind one ends.
	 */
	struct watch_hold hold;
	uint64_t held_ns;		/* that oldest check, 0: no mark for resident data */
};

static struct job *job_get(struct job *j)
{
	if (j)
		__atomic_add_fetch(&j->refs, 1, __ATOMIC_RELAXED);
	return j;
}

static void job_put(struct job *j)
{
	if (!j || __atomic_sub_fetch(&j->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (j->pack)
		__atomic_store_n(&j->pack->busy, false, __ATOMIC_RELEASE);
	watch_pack_put(j->pack);
	free(j->instead);
	free(j->exe);
	free(j->root);
	sys_view_unref(j->view);
	free(j);
}

/* Stop @j: it was started for a key that turned out wrong (@instead), or the daemon stops. */
static void job_cancel(struct job *j, const char *instead)
{
	char *dup = instead ? strdup(instead) : NULL, *none = NULL;

	/* the worker may be reading it: set once, atomically */
	if (dup && !__atomic_compare_exchange_n(&j->instead, &none, dup, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
		free(dup);
	__atomic_store_n(&j->cancel, true, __ATOMIC_RELEASE);
}

/*
 * How a program is named in messages: "'/usr/bin/x'", "'/usr/bin/x' in root
 * '/srv/c'", or, for a root the daemon cannot reach by a path (a container's,
 * after pivot_root in its own mount namespace: the kernel names it "/"),
 * "'/usr/bin/x' in another mount namespace's root": '%s%s%s' with in_root()
 * and root_name().
 */
static const char *in_root(const char *root)
{
	return !root ? "" : strcmp(root, "/") != 0 ? "' in root '" :
	       "' in another mount namespace's root";
}

static const char *root_name(const char *root)
{
	return root && strcmp(root, "/") != 0 ? root : "";
}

static void run_job(struct watch *w, struct job *j)
{
	const char *rs = in_root(j->root), *rp = root_name(j->root);
	struct replay_options o = *w->o;
	struct replay_check ck;
	struct replay_stats st;
	struct replay_fs *fs = NULL;	/* where the check found the pack's filesystems */
	uint64_t t0 = now_monotonic_ns();
	const char *instead;
	int r;

	o.wait = false;
	o.cancel = &j->cancel;
	if (__atomic_load_n(&j->cancel, __ATOMIC_ACQUIRE)) {
		instead = __atomic_load_n(&j->instead, __ATOMIC_ACQUIRE);
		if (instead)
			log_debug("'%s%s%s' started (pid %d): its start is '%s', skipping", j->exe, rs,
				  rp, j->pid, instead);
		return;
	}
	/* the decision is on the exec's path: stop at the first page that is not resident */
	r = watch_pack_check(j->pack, j->view, true, &ck, &fs);
	if (r == 0 && ck.sampled && ck.resident == ck.sampled) {
		__atomic_store_n(&j->pack->resident_ns, now_monotonic_ns(), __ATOMIC_RELEASE);
		log_debug("'%s%s%s' started: all %u sampled pages of what its pack would read "
			  "(%.1f MiB%s) are resident (looked at in %.2f ms), skipping", j->exe, rs, rp,
			  ck.sampled, (double)j->pack->sampled_bytes / (1 << 20),
			  j->pack->sampled_shared ? "" : " but for ld.so and libc", (double)ck.ns / 1e6);
		goto out;
	}
	if (w->chatty)
		log_debug("'%s%s%s': replay starts %.2f ms after its exec's event", j->exe, rs, rp,
			  (double)(now_monotonic_ns() - j->since) / 1e6);
	/* the check looked on the live mounts: with --root or --dry-run the replay looks again */
	r = replay_run(j->pack->pack, j->view, o.root || o.dry_run ? NULL : fs, &o, &st);
	if (r < 0) {
		log_warn("cannot replay '%s' for '%s%s%s': %s, skipping", j->pack->path, j->exe, rs, rp,
			 strerror(-r));
		goto out;
	}
	instead = __atomic_load_n(&j->instead, __ATOMIC_ACQUIRE);
	log_info("'%s%s%s' started: issued %" PRIu64 " KiB in %" PRIu64 " requests (%" PRIu64
		 " KiB resident, %" PRIu64 " KiB skipped) in %.1f ms from '%s'%s%s%s", j->exe, rs, rp,
		 st.issued_bytes >> 10, st.requests, st.resident_bytes >> 10, st.skipped_bytes >> 10,
		 (double)(now_monotonic_ns() - t0) / 1e6, j->pack->path,
		 instead ? "; stopped: its start is '" : "", instead ? instead : "",
		 instead ? "'" : "");
out:
	replay_mounts_free(fs, ura_pack_fs_count(j->pack->pack));
}

struct worker_arg {
	struct watch *w;
	size_t slot;		/* its place in w->running */
};

static void *worker(void *arg)
{
	struct watch *w = ((struct worker_arg *)arg)->w;
	size_t slot = ((struct worker_arg *)arg)->slot;

	free(arg);
	for (;;) {
		struct job *j;

		pthread_mutex_lock(&w->lock);
		while (!w->len && !__atomic_load_n(&w->stop, __ATOMIC_RELAXED))
			pthread_cond_wait(&w->cond, &w->lock);
		if (__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		j = w->queue[w->head];
		w->head = (w->head + 1) % QUEUE_LEN;
		w->len--;
		w->running[slot] = j;
		pthread_mutex_unlock(&w->lock);
		run_job(w, j);
		pthread_mutex_lock(&w->lock);
		w->running[slot] = NULL;
		pthread_mutex_unlock(&w->lock);
		job_put(j);
	}
}

/* ---- what each exec is: the event loop ---- */

/*
 * The record of @pid (and @hash, unless 0) younger than @max_ns, or NULL;
 * taken out (moved to *@ret, which is returned) when @take.
 */
static const struct watch_recent *watch_recent_find(struct watch_recent *r, size_t n, pid_t pid, uint64_t hash,
					uint64_t now, uint64_t max_ns, bool take, struct watch_recent *ret)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].at && r[i].pid == pid && (!hash || r[i].hash == hash) &&
		    now - r[i].at < max_ns) {
			if (ret)
				*ret = r[i];
			if (take)	/* what it holds goes with the copy */
				r[i] = (struct watch_recent){ 0 };
			return take ? ret : &r[i];
		}
	return NULL;
}

static void watch_recent_free(struct watch_recent *r)
{
	job_put(r->spec);
	free(r->spec_path);
	*r = (struct watch_recent){ 0 };
}

/*
 * Remember @pid: in a free or expired slot, else in place of the oldest. Takes
 * over @spec and @spec_path.
 */
static void watch_recent_add(struct watch_recent *r, size_t n, pid_t pid, uint64_t hash, int arg,
		       uint64_t now, struct job *spec, char *spec_path)
{
	size_t old = 0;

	for (size_t i = 1; i < n; i++)
		if (r[i].at < r[old].at)
			old = i;
	watch_recent_free(&r[old]);
	r[old] = (struct watch_recent){ .pid = pid, .at = now, .hash = hash, .arg = arg, .spec = spec,
				  .spec_path = spec_path };
}

/*
 * The program @path (in @root) was exec'd by @pid: queue a replay of its pack,
 * if it has one and its data is not held for resident (*@ret_held, if not
 * NULL: that check's time, else 0). Return: the job (a reference, for the
 * caller to cancel) when @want_job, else NULL.
 */
static struct job *consider(struct watch *w, pid_t pid, const struct key_root *root,
			    const char *path, uint64_t since, bool want_job, uint64_t *ret_held)
{
	const char *rs = in_root(root->id ? root->path : NULL);
	const char *rp = root_name(root->id ? root->path : NULL);
	char name[NAME_MAX + 1] = "";
	struct watch_pack *p = NULL;
	struct job *j = NULL;
	uint64_t now = now_monotonic_ns(), h, resident;
	int r;

	r = watch_packs_lookup(&w->packs, root->id, path, &p, name);
	if (r < 0) {
		if (w->chatty && r == -ENOENT)
			log_debug("'%s%s%s' started (pid %d): no pack '%s'", path, rs, rp, pid,
				  name[0] ? name : "(none can be named)");
		else if (r != -ENOENT)
			log_debug("'%s%s%s' started (pid %d): its pack '%s' cannot be read, skipping",
				  path, rs, rp, pid, name);
		return NULL;
	}
	/* a look at the reclaim count before the check, and at each start after it */
	watch_hold_look(&w->hold, now);
	resident = __atomic_load_n(&p->resident_ns, __ATOMIC_ACQUIRE);
	if (watch_hold_holds(&w->hold, resident, now)) {
		if (w->chatty)
			log_debug("'%s%s%s' started (pid %d): its data was resident %.1f s ago and "
				  "nothing was reclaimed since, skipping", path, rs, rp, pid,
				  (double)(now - resident) / 1e9);
		if (ret_held)
			*ret_held = resident;
		watch_pack_put(p);
		return NULL;
	}
	/* one replay per start: a process that execs the program again (env, a wrapper) */
	h = hash_str(name);
	if (watch_recent_find(w->starts, STARTS_MAX, pid, h, now, START_NS, false, NULL)) {
		log_debug("'%s%s%s' started again by pid %d: replayed for it already, skipping", path,
			  rs, rp, pid);
		watch_pack_put(p);
		return NULL;
	}
	watch_recent_add(w->starts, STARTS_MAX, pid, h, 0, now, NULL, NULL);
	if (__atomic_exchange_n(&p->busy, true, __ATOMIC_ACQ_REL)) {
		log_debug("'%s%s%s' started (pid %d): its pack is being replayed, skipping", path, rs,
			  rp, pid);
		watch_pack_put(p);
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		__atomic_store_n(&p->busy, false, __ATOMIC_RELEASE);
		watch_pack_put(p);
		return NULL;
	}
	j->refs = 1;
	j->pack = p;
	j->since = since;
	j->pid = pid;
	j->exe = strdup(path);
	j->root = root->id ? strdup(root->path) : NULL;
	j->view = sys_view_ref(w->view);
	pthread_mutex_lock(&w->lock);
	if (!j->exe || (root->id && !j->root) || w->len == QUEUE_LEN) {
		w->dropped++;
		pthread_mutex_unlock(&w->lock);
		log_debug("'%s%s%s' started (pid %d): %s, skipping", path, rs, rp, pid,
			  j->exe ? "too many replays waiting" : strerror(ENOMEM));
		job_put(j);
		return NULL;
	}
	/* the caller's reference before a worker can take the job, run it and put it */
	if (want_job)
		job_get(j);
	w->queue[(w->head + w->len++) % QUEUE_LEN] = j;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return want_job ? j : NULL;
}

static void pending_free(struct pending *q)
{
	free(q->path);
	free(q->root);
	job_put(q->spec);
	free(q->spec_path);
	*q = (struct pending){ 0 };
}

static void pending_drop(struct watch *w, size_t i)
{
	pending_free(&w->pending[i]);
	w->pending[i] = w->pending[--w->npending];
}

/*
 * An interpreter: its script is known once the exec completes (fanotify comes
 * before): the argument @script of its argv (that of a "#!" script), or the
 * one key_exec_script_arg() finds (@script 0). @spec, the replay started
 * meanwhile for the key @spec_path, is taken over (and may be NULL).
 */
static void pend(struct watch *w, const struct watch_exec_event *ev, const struct key_root *root,
		 const char *path, int script, struct job *spec, char *spec_path)
{
	uint64_t now = now_monotonic_ns();
	struct pending q = { .pid = ev->pid, .script = script, .dev = ev->dev, .ino = ev->ino,
			     .since = now, .deadline = now + PENDING_NS, .spec = spec,
			     .spec_path = spec_path, .next_poll = now };
	size_t mine = 0, users = 0;

	if (proc_uid(ev->pid, &q.uid) < 0)
		q.uid = (uid_t)-1;
	for (size_t i = 0; q.uid != 0 && i < w->npending; i++) {
		mine += w->pending[i].uid == q.uid;
		users += w->pending[i].uid != 0;
	}
	if (w->npending == PENDING_MAX || mine >= PENDING_PER_USER || users >= PENDING_USERS) {
		log_debug("'%s' started (pid %d): too many interpreters waiting%s, skipping", path,
			  ev->pid, q.uid != 0 && w->npending < PENDING_MAX ? " of users" : "");
		pending_free(&q);
		return;
	}
	q.path = strdup(path);
	q.root = malloc(sizeof(*q.root));
	if (!q.path || !q.root) {
		pending_free(&q);
		return;
	}
	*q.root = *root;
	w->pending[w->npending++] = q;
}

/*
 * The argv of @pid once its exec of the file @q names has completed: 1 and
 * @buf filled (NUL-separated), 0 not yet, -errno (-ESRCH: gone).
 */
static int exec_done_argv(const struct pending *q, char *buf, size_t size, size_t *ret_len)
{
	struct statx stx;
	long n;
	int r;

	r = proc_statx(q->pid, "exe", STATX_INO, &stx);
	if (r < 0)
		return r;
	/* the old image still (an interpreter that re-execs itself is taken as done) */
	if (makedev(stx.stx_dev_major, stx.stx_dev_minor) != q->dev || stx.stx_ino != q->ino)
		return 0;
	n = proc_read(q->pid, "cmdline", buf, size);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return 0;	/* the new image's arguments are not in place yet */
	*ret_len = (size_t)n;
	return 1;
}

/*
 * The key of an interpreter whose exec completed: its script, else itself;
 * the replay started meanwhile goes on if it was for that key, else it stops
 * and that key's pack is replayed.
 */
static void settle(struct watch *w, struct pending *q, const char *key)
{
	if (q->spec && strcmp(q->spec_path, key) == 0) {
		if (w->chatty)
			log_debug("'%s' (pid %d): its replay was started for the right program", key,
				  q->pid);
		return;
	}
	if (q->spec)
		job_cancel(q->spec, key);
	consider(w, q->pid, q->root, key, q->since, false, NULL);
}

static void resolve(struct watch *w, struct pending *q, char *args, size_t len)
{
	char *argv[KEY_EXEC_ARGS_MAX + 1], script[PATH_MAX];
	int argc, k, r;

	argc = key_exec_args(args, len, argv, KEY_EXEC_ARGS_MAX);
	if (w->chatty)
		log_debug("'%s' (pid %d): its exec completed %.2f ms after the event", q->path,
			  q->pid, (double)(now_monotonic_ns() - q->since) / 1e6);
	k = q->script ? (q->script < argc ? q->script : -1) :
	    key_exec_script_arg(q->path, argv, argc);
	if (k < 0 || !argv[k][0]) {
		settle(w, q, q->path);
		return;
	}
	/*
	 * A key named by argv is believed only from root's own interpreter (a user's
	 * program named python3 could name any program), and in the daemon's mounts.
	 */
	r = key_exec_script_key(q->pid, q->root, argv[k], !q->script, sys_view_mounts(w->view),
				script, sizeof(script));
	if (r == -EPERM || r == -ESRCH) {
		if (r == -EPERM)
			log_debug("'%s' (pid %d): its argv names '%s', not believed (%s), skipping",
				  q->path, q->pid, argv[k], q->script ?
				  "a \"..\", or another mount namespace" :
				  "a \"..\", not root's interpreter, or another mount namespace");
		if (q->spec)
			job_cancel(q->spec, NULL);
		return;
	}
	if (r < 0)
		return;	/* its working directory cannot be named: the replay started goes on */
	settle(w, q, script);
}

/* How long until an interpreter waiting is to be looked at again (1 ms at least). */
static int pending_wait_ms(const struct watch *w)
{
	uint64_t now = now_monotonic_ns(), next = UINT64_MAX;

	for (size_t i = 0; i < w->npending; i++)
		if (w->pending[i].next_poll < next)
			next = w->pending[i].next_poll;
	return next <= now + PENDING_POLL_MS * 1000000ull ? PENDING_POLL_MS :
	       (int)((next - now) / 1000000ull) + 1;
}

/* Look at the interpreters waiting for their exec to complete. */
static void poll_pending(struct watch *w)
{
	char *args = NULL;
	uint64_t now = now_monotonic_ns();

	for (size_t i = 0; i < w->npending;) {
		struct pending *q = &w->pending[i];
		size_t len = 0;
		int r;

		if (!args && !(args = malloc(KEY_EXEC_CMDLINE_MAX + 1)))
			return;
		if (now < q->next_poll && now < q->deadline) {
			i++;
			continue;
		}
		r = exec_done_argv(q, args, KEY_EXEC_CMDLINE_MAX + 1, &len);
		if (r == 0 && now < q->deadline) {
			q->next_poll = now + (now - q->since < PENDING_FAST_NS ? PENDING_POLL_MS :
					      PENDING_SLOW_MS) * 1000000ull;
			i++;
			continue;
		}
		if (r > 0) {
			resolve(w, q, args, len);
		} else {
			/* gone: nothing to prefetch for; too slow: the replay started is the guess */
			if (r == -ESRCH && q->spec)
				job_cancel(q->spec, NULL);
			if (w->chatty)
				log_debug("'%s' started (pid %d): %s", q->path, q->pid,
					  r == 0 ? "its exec did not complete in time" :
					  r == -ESRCH ? "it exited before its arguments could be read" :
					  strerror(-r));
		}
		pending_drop(w, i);
	}
	free(args);
}

/*
 * May the kernel drop the next execs of this file (an ignore mark on its inode,
 * whatever root or path runs it)? Only in the daemon's own root, only when the
 * path is the very file as the daemon sees it (a user's mount namespace could
 * show a program with a pack at a path without one, and so silence its
 * replays), and only when no pack of another root may be for the path (a
 * container running the same file).
 */
static bool ignorable(struct watch *w, pid_t pid, const struct key_root *root, const char *path,
		      const struct key_file *file)
{
	return root->id == 0 && !watch_names_in_other_roots(&w->names, path) &&
	       key_trusted(pid, root, path, file, sys_view_mounts(w->view)) == 0;
}

/*
 * An exec (fanotify FAN_OPEN_EXEC: the exec is under way, the process still
 * runs its old image). Its key, as the learning daemon makes it: the process's
 * root and the program's path there; for a script, the script's path as
 * exec'd (argv: symlinks not resolved, relative to the working directory),
 * read once the exec has completed: for a "#!" script, its interpreter's
 * exec, which the kernel starts next in the same execve(), is where argv
 * names it; for an interpreter (python3 app.py), the script its argv names.
 * A script whose first page is not cached yet when its event is read (a cold
 * start: the kernel is reading it) is taken for a program, by its resolved
 * path; its interpreter, if known, then names it by argv too: one replay per
 * start either way.
 */
static bool on_exec(const struct watch_exec_event *ev, void *userdata)
{
	struct watch *w = userdata;
	struct key_root root;
	struct watch_recent script;
	struct job *spec;
	char path[PATH_MAX];
	uint64_t now = now_monotonic_ns();
	struct key_file file = { .dev = ev->dev, .ino = ev->ino, .uid = ev->uid, .mode = ev->mode };
	uint64_t held = 0;
	bool interp;
	int r;

	r = key_root_of(ev->pid, &w->self, &root);
	if (r < 0 || key_path_in_root(&root, ev->path, path, sizeof(path)) < 0) {
		if (w->chatty)
			log_debug("'%s' started (pid %d): %s, skipping", ev->path, ev->pid,
				  r == -ESRCH ? "it exited before its root could be read" :
				  r < 0 ? strerror(-r) : "its path is too long");
		return false;
	}
	/*
	 * Only root's interpreters name a script (key_interpreter_trusted()): a
	 * user's file named python3 is a program like any other, never waited on.
	 */
	interp = key_exec_is_interpreter(path);
	if (interp && !key_interpreter_trusted(&file)) {
		log_debug("'%s' started (pid %d): an interpreter's name, not root's: its argv is not "
			  "believed, a program like any other", path, ev->pid);
		interp = false;
	}
	/* no pack is for it: no more to look at (most execs; a flood of failing ones) */
	if (!watch_names_may_have(&w->names, root.id, path, now_realtime_ns())) {
		if (ev->script) {	/* its interpreter's exec comes next: as when it has no pack */
			watch_recent_add(w->scripts, SCRIPTS_MAX, ev->pid, 0, ev->script, now, NULL, NULL);
			return false;
		}
		/* an interpreter's pack is the script's its argv names: not known yet */
		if (!interp &&
		    !watch_recent_find(w->scripts, SCRIPTS_MAX, ev->pid, 0, now, SCRIPT_NS, false, NULL)) {
			if (w->chatty)
				log_debug("'%s' started (pid %d): no pack", path, ev->pid);
			return ignorable(w, ev->pid, &root, path, &file);	/* until a pack is added */
		}
	}
	/* a user's mount namespace may show any file at a system path: believe the file */
	if (key_trusted(ev->pid, &root, path, &file, sys_view_mounts(w->view)) < 0) {
		log_debug("'%s' started (pid %d): not that file in the daemon's mounts (another "
			  "mount namespace), skipping", path, ev->pid);
		return false;
	}
	if (ev->script) {
		/*
		 * Its interpreter comes next: the script is named in that one's argv.
		 * Meanwhile its path as the kernel names it (the same unless a symlink
		 * was on the way) is the guess.
		 */
		if (w->chatty)
			log_debug("'%s' started (pid %d): a script, named once its interpreter runs",
				  path, ev->pid);
		spec = consider(w, ev->pid, &root, path, now, true, NULL);
		watch_recent_add(w->scripts, SCRIPTS_MAX, ev->pid, 0, ev->script, now, spec,
			   spec ? strdup(path) : NULL);
		return false;
	}
	if (watch_recent_find(w->scripts, SCRIPTS_MAX, ev->pid, 0, now, SCRIPT_NS, true, &script)) {
		pend(w, ev, &root, path, script.arg, script.spec, script.spec_path);
		return false;
	}
	if (interp) {
		/* its own pack meanwhile: right for "python3 -c" and "sh -c", stopped for a script */
		spec = consider(w, ev->pid, &root, path, now, true, NULL);
		pend(w, ev, &root, path, 0, spec, spec ? strdup(path) : NULL);
		return false;
	}
	consider(w, ev->pid, &root, path, now, false, &held);
	if (!held || !ignorable(w, ev->pid, &root, path, &file))
		return false;
	if (!w->held_ns || held < w->held_ns)
		w->held_ns = held;
	return true;	/* dropped by the kernel until the marks go (the hold's end) */
}

/*
 * The files ignored (no pack was for them) are seen again once the directory
 * was read again: a pack may have been added. It is read again when an exec
 * looks at it, and every second while files are ignored: a program given a
 * pack is replayed from its next start, or, if nothing else started in
 * between, from its first start a second after its pack was written.
 */
static void forget_ignored(struct watch *w, struct watch_exec *src, uint64_t *reads)
{
	if (w->names.reads != *reads) {
		watch_exec_forget(src);
		*reads = w->names.reads;
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
	pthread_t *th = NULL;
	unsigned started = 0;
	uint64_t overflows = 0, names_reads = 0;
	sigset_t old;
	int sfd = -1, r;

	unsigned nworkers = o->max_replays ? o->max_replays : 1;

	w = calloc(1, sizeof(*w));
	th = calloc(nworkers, sizeof(*th));
	if (!w || !th || !(w->running = calloc(nworkers, sizeof(struct job *)))) {
		r = -ENOMEM;
		goto out_free;
	}
	w->o = o;
	w->chatty = o->verbosity >= 2;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	r = key_self_read(&w->self);
	if (r < 0)
		goto out;
	r = watch_packs_init(&w->packs, o->watch_dir);
	if (r == 0)
		r = watch_names_init(&w->names, o->watch_dir);
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
	for (; started < nworkers; started++) {
		struct worker_arg *a = malloc(sizeof(*a));

		if (!a) {
			r = -ENOMEM;
			goto out;
		}
		*a = (struct worker_arg){ w, started };
		r = -pthread_create(&th[started], NULL, worker, a);
		if (r < 0) {
			free(a);
			goto out;
		}
	}
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
		if (poll(p, 4, w->npending ? pending_wait_ms(w) : src.ignoring ? 1000 : -1) < 0) {
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
		if (w->held_ns && now_monotonic_ns() - w->held_ns >= WATCH_HOLD_MIN_NS) {
			uint64_t now = now_monotonic_ns();

			watch_hold_look(&w->hold, now);
			if (!watch_hold_holds(&w->hold, w->held_ns, now)) {
				watch_exec_forget(&src);	/* the resident programs looked at again */
				w->held_ns = 0;
			}
		}
		if (p[2].revents & (POLLPRI | POLLERR)) {
			int k = sys_view_refresh(&w->view, true);

			if (k >= 0)
				k = watch_exec_mounts_changed(&src, w->view);

			if (k < 0)
				log_warn("cannot watch execs on the new mounts: %s", strerror(-k));
		}
		if (p[1].revents) {
			int k = watch_exec_read(&src, on_exec, w);

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
		if (w->npending)
			poll_pending(w);
	}
out:
	/* stop: running replays see their cancel flag at their next request or pacing slice */
	pthread_mutex_lock(&w->lock);
	__atomic_store_n(&w->stop, true, __ATOMIC_RELEASE);
	for (unsigned k = 0; k < nworkers; k++)
		if (w->running[k])
			job_cancel(w->running[k], NULL);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	for (unsigned k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	while (w->len) {
		job_put(w->queue[w->head]);
		w->head = (w->head + 1) % QUEUE_LEN;
		w->len--;
	}
	while (w->npending)
		pending_drop(w, w->npending - 1);
	for (size_t k = 0; k < SCRIPTS_MAX; k++)
		watch_recent_free(&w->scripts[k]);
	if (w->dropped)
		log_debug("%" PRIu64 " replays dropped: too many waiting", w->dropped);
	watch_exec_close(&src);
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	watch_packs_free(&w->packs);
	watch_names_free(&w->names);
	sys_view_unref(w->view);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
out_free:
	free(th);
	if (w)
		free(w->running);
	free(w);
	return r;
}
