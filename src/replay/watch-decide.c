// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: what each exec is. An exec is named by its program's key
 * (key.c: the root it runs in and the program's path there; for a script, the
 * script); one whose program has a pack, and whose data is not held for
 * resident, becomes a job of the queue (watch-queue.c). Where the key is known
 * only once the exec has completed (an interpreter's script is in its argv),
 * the likely key's pack is replayed at once and stopped if the key turns out
 * otherwise: an exec can take a second on a slow disk, which is a second of
 * prefetch.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "key-exec.h"
#include "sys-proc.h"
#include "sys-view.h"
#include "util-log.h"
#include "util.h"
#include "watch-alias.h"
#include "watch-decide.h"
#include "watch-exec.h"
#include "watch-hold.h"
#include "watch-names.h"
#include "watch-packs.h"
#include "watch-queue.h"
#include "watch-tree.h"

#define SCRIPTS_MAX	32	/* "#!" scripts whose interpreter's exec is still to come */
#define SCRIPT_NS	1000000000ull
#define STARTS_MAX	64	/* replays queued lately, by process and pack: one per start */
#define START_NS	2000000000ull
/*
 * Packs held for resident behind ignore marks at most, and how often each has
 * one sampled page probed: a page dropped without the kernel counting it (a
 * user's POSIX_FADV_DONTNEED of a program's file) ends the hold within
 * HELD_COVER_NS, whatever the number held: HELD_PROBES a second at least, more
 * when more are held. A held program seen starting (not marked) is probed too,
 * at most each PROBE_GAP_NS. Probes run on the workers: they open the pack's
 * files. A machine runs more distinct programs than 64 in a few seconds (100
 * --version starts of bench/learn-cpu.sh): with 64 held, a third of them were
 * checked again at every start.
 */
#define HELD_MAX	256
#define HELD_PROBES	4
#define HELD_PROBE_NS	1000000000ull
#define HELD_COVER_NS	16000000000ull
#define PROBE_GAP_NS	100000000ull

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
	struct watch_job *spec;	/* the replay started meanwhile (a reference), or NULL */
	char *spec_path;	/* the key it was started for */
	bool covered;		/* ... or left to an ancestor's replay (watch-tree.h) */
};

/* Processes lately seen: "#!" scripts whose interpreter is to come, and replays queued. */
struct watch_recent {
	pid_t pid;
	uint64_t at;		/* 0: free */
	uint64_t hash;		/* the pack's name (starts) */
	int arg;		/* the script's place in argv (scripts) */
	struct watch_job *spec;	/* scripts: the replay started for the script's path, or NULL */
	char *spec_path;
	bool covered;		/* scripts: that path left to an ancestor's replay */
};


struct watch_decide {
	const struct replay_options *o;
	struct watch_packs packs;
	struct watch_names *names;	/* the event loop's: which execs no pack can be for */
	struct watch_alias alias;	/* packs whose program path is a symlink, by its file */
	struct sys_view *const *view;	/* the loop's view, read again after each mount change */
	struct watch_queue *queue;	/* where the replays decided on go */
	struct key_self self;
	bool chatty;			/* -vv: every exec and its key */
	struct pending pending[PENDING_MAX];
	size_t npending;
	struct watch_recent scripts[SCRIPTS_MAX];
	struct watch_recent starts[STARTS_MAX];
	struct watch_tree tree;		/* the replays of process trees: a child their packs hold */
	/*
	 * A program whose data a check found resident is left alone while the hold
	 * lasts (watch-hold.h): its execs are skipped, and the kernel drops them
	 * (an ignore mark on its file). All such marks go when the hold of the
	 * oldest check behind one ends.
	 */
	struct watch_hold hold;
	uint64_t held_ns;		/* that oldest check, 0: no mark for resident data */
	/* the packs of those marks (references), a page of a few probed each HELD_PROBE_NS */
	struct watch_pack *held[HELD_MAX];
	size_t nheld, next_probe;
	uint64_t probed_ns;		/* when the last probes of them were queued */
	bool missed;			/* atomic: a probe found a page gone (watch-queue.h) */
};

/* Queue a probe of the next sampled page of @p (watch_job_new_probe()); @now noted. */
static void probe(struct watch_decide *w, struct watch_pack *p, uint64_t now)
{
	struct watch_job *j;

	p->probed_ns = now;
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	j = watch_job_new_probe(p, *w->view, p->probe_seq++, &w->missed);
	if (j && !watch_queue_push(w->queue, j))
		watch_job_put(j);	/* too many replays waiting: the next look probes */
}

/* How many of @nheld held packs to probe each HELD_PROBE_NS: each within HELD_COVER_NS. */
static size_t probes_due(size_t nheld)
{
	size_t per = HELD_COVER_NS / HELD_PROBE_NS, n = (nheld + per - 1) / per;

	return n > HELD_PROBES ? n : HELD_PROBES;
}

/*
 * A mark for the resident data of @p (a reference, taken over): the marks'
 * hold starts at the oldest check behind one. False (@p still the caller's)
 * when HELD_MAX packs are held: the file is not marked.
 */
static bool hold_mark(struct watch_decide *w, struct watch_pack *p)
{
	uint64_t resident = __atomic_load_n(&p->resident_ns, __ATOMIC_ACQUIRE);
	size_t i;

	/* a probe found a page gone since consider() said held: not marked */
	if (!resident)
		return false;
	for (i = 0; i < w->nheld && w->held[i] != p; i++)
		;
	if (i == w->nheld) {
		if (w->nheld == HELD_MAX)
			return false;
		w->held[w->nheld++] = p;
	} else {
		watch_pack_put(p);	/* held already: its reference is the list's */
	}
	if (!w->held_ns || resident < w->held_ns)
		w->held_ns = resident;
	return true;
}

/* The marks for resident data go: their packs are let go. */
static void hold_release(struct watch_decide *w)
{
	while (w->nheld)
		watch_pack_put(w->held[--w->nheld]);
	w->next_probe = 0;
	w->held_ns = 0;
	__atomic_store_n(&w->missed, false, __ATOMIC_RELEASE);
}

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
	watch_job_put(r->spec);
	free(r->spec_path);
	*r = (struct watch_recent){ 0 };
}

/*
 * Remember @pid: in a free or expired slot, else in place of the oldest. Takes
 * over @spec and @spec_path (or the path @covered says was left to an ancestor's replay).
 */
static void watch_recent_add(struct watch_recent *r, size_t n, pid_t pid, uint64_t hash, int arg,
		       uint64_t now, struct watch_job *spec, char *spec_path, bool covered)
{
	size_t old = 0;

	for (size_t i = 1; i < n; i++)
		if (r[i].at < r[old].at)
			old = i;
	watch_recent_free(&r[old]);
	r[old] = (struct watch_recent){ .pid = pid, .at = now, .hash = hash, .arg = arg, .spec = spec,
				  .spec_path = spec_path, .covered = covered };
}

/*
 * The pack of a replay queued for @pid: its files noted, for @pid's tree
 * (watch-tree.h). Nothing noted when the process is gone or the pack too large.
 */
static void tree_note(struct watch_decide *w, pid_t pid, struct watch_pack *p, uint64_t now)
{
	struct ura_pack_info info;
	uint64_t start;
	pid_t parent;

	if (!p->tree_done) {
		p->tree_err = watch_tree_ids(p->pack, &p->tree_ids, &p->ntree_ids);
		p->tree_done = true;
	}
	if (p->tree_err < 0 || proc_parent_start(pid, &parent, &start) < 0)
		return;
	ura_pack_get_info(p->pack, &info);
	(void)watch_tree_note(&w->tree, pid, start, p->hash, p->tree_ids, p->ntree_ids,
			      info.duration_ns, now);
}

/*
 * The program @path (in @root), the file @dev:@ino (0: not known), was exec'd
 * by @pid: queue a replay of its pack, if it has one, its data is not held for
 * resident (*@ret_held, if not NULL: the pack, a reference, when it is, else
 * NULL) and the pack of a replay for @pid or an ancestor does not hold it
 * (watch-tree.h; *@ret_covered, if not NULL, says so). Return: the job (a
 * reference, for the caller to cancel) when @want_job, else NULL.
 */
static struct watch_job *consider(struct watch_decide *w, pid_t pid, const struct key_root *root,
			    const char *path, dev_t dev, ino_t ino, uint64_t since, bool want_job,
			    struct watch_pack **ret_held, bool *ret_covered)
{
	const char *rs = watch_in_root(root->id ? root->path : NULL);
	const char *rp = watch_root_name(root->id ? root->path : NULL);
	char name[NAME_MAX + 1] = "";
	struct watch_pack *p = NULL;
	struct watch_job *j = NULL;
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
		/* held past the minimum: a page of it probed, for an eviction nothing counted */
		if (now - resident >= WATCH_HOLD_MIN_NS && now - p->probed_ns >= PROBE_GAP_NS)
			probe(w, p, now);
		if (w->chatty)
			log_debug("'%s%s%s' started (pid %d): its data was resident %.1f s ago and "
				  "nothing was reclaimed since, skipping", path, rs, rp, pid,
				  (double)(now - resident) / 1e9);
		if (ret_held)
			*ret_held = p;
		else
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
	if (ino) {
		uint64_t at = 0;
		pid_t by = watch_tree_covered(&w->tree, pid, dev, ino, now, proc_parent_start, &at);

		if (by) {
			log_debug("'%s%s%s' started (pid %d): the pack replayed %.1f s ago for pid %d "
				  "holds it, as its start uses it, skipping", path, rs, rp, pid,
				  (double)(now - at) / 1e9, by);
			if (ret_covered)
				*ret_covered = true;
			watch_pack_put(p);
			return NULL;
		}
	}
	watch_recent_add(w->starts, STARTS_MAX, pid, h, 0, now, NULL, NULL, false);
	if (__atomic_exchange_n(&p->busy, true, __ATOMIC_ACQ_REL)) {
		log_debug("'%s%s%s' started (pid %d): its pack is being replayed, skipping", path, rs,
			  rp, pid);
		watch_pack_put(p);
		return NULL;
	}
	j = watch_job_new(p, pid, path, root->id ? root->path : NULL, *w->view, since);
	if (!j) {
		log_debug("'%s%s%s' started (pid %d): %s, skipping", path, rs, rp, pid,
			  strerror(ENOMEM));
		return NULL;
	}
	/* the caller's reference before a worker can take the job, run it and put it */
	if (want_job)
		watch_job_get(j);
	/* its tree's children, while its pack's window lasts (before a worker may free @p) */
	tree_note(w, pid, p, now);
	if (!watch_queue_push(w->queue, j)) {
		log_debug("'%s%s%s' started (pid %d): too many replays waiting, skipping", path, rs,
			  rp, pid);
		watch_tree_forget(&w->tree, pid, p->hash);
		if (want_job)
			watch_job_put(j);
		watch_job_put(j);
		return NULL;
	}
	return want_job ? j : NULL;
}

static void pending_free(struct pending *q)
{
	free(q->path);
	free(q->root);
	watch_job_put(q->spec);
	free(q->spec_path);
	*q = (struct pending){ 0 };
}

static void pending_drop(struct watch_decide *w, size_t i)
{
	pending_free(&w->pending[i]);
	w->pending[i] = w->pending[--w->npending];
}

/*
 * An interpreter: its script is known once the exec completes (fanotify comes
 * before): the argument @script of its argv (that of a "#!" script), or the
 * one key_exec_script_arg() finds (@script 0). @spec, the replay started
 * meanwhile for the key @spec_path, is taken over (and may be NULL; @covered:
 * that key was left to an ancestor's replay).
 */
bool watch_decide_pending_room(const uid_t *uids, size_t n, uid_t uid)
{
	size_t mine = 0, users = 0;

	for (size_t i = 0; uid != 0 && i < n; i++) {
		mine += uids[i] == uid;
		users += uids[i] != 0;
	}
	return n < PENDING_MAX && mine < PENDING_PER_USER && users < PENDING_USERS;
}

static void pend(struct watch_decide *w, const struct watch_exec_event *ev, const struct key_root *root,
		 const char *path, int script, struct watch_job *spec, char *spec_path, bool covered)
{
	uint64_t now = now_monotonic_ns();
	struct pending q = { .pid = ev->pid, .script = script, .dev = ev->dev, .ino = ev->ino,
			     .since = now, .deadline = now + PENDING_NS, .spec = spec,
			     .spec_path = spec_path, .covered = covered, .next_poll = now };
	uid_t uids[PENDING_MAX];

	if (proc_uid(ev->pid, &q.uid) < 0)
		q.uid = (uid_t)-1;
	for (size_t i = 0; i < w->npending; i++)
		uids[i] = w->pending[i].uid;
	if (!watch_decide_pending_room(uids, w->npending, q.uid)) {
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

/* The replay started for the likely key stops (for @instead, if not NULL), and its tree's note goes. */
static void cancel_spec(struct watch_decide *w, const struct pending *q, const char *instead)
{
	if (!q->spec)
		return;
	watch_tree_forget(&w->tree, q->pid, q->spec->pack->hash);
	watch_job_cancel(q->spec, instead);
}

/*
 * The key of an interpreter whose exec completed: its script, else itself;
 * the replay started meanwhile goes on if it was for that key, else it stops
 * and that key's pack is replayed.
 */
static void settle(struct watch_decide *w, struct pending *q, const char *key)
{
	if (q->spec && strcmp(q->spec_path, key) == 0) {
		if (w->chatty)
			log_debug("'%s' (pid %d): its replay was started for the right program", key,
				  q->pid);
		return;
	}
	if (q->covered && q->spec_path && strcmp(q->spec_path, key) == 0) {
		if (w->chatty)
			log_debug("'%s' (pid %d): left to an ancestor's replay", key, q->pid);
		return;
	}
	cancel_spec(w, q, key);
	consider(w, q->pid, q->root, key, 0, 0, q->since, false, NULL, NULL);
}

static void resolve(struct watch_decide *w, struct pending *q, char *args, size_t len)
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
	r = key_exec_script_key(q->pid, q->root, argv[k], !q->script, sys_view_mounts(*w->view),
				script, sizeof(script));
	if (r == -EPERM || r == -ESRCH) {
		if (r == -EPERM)
			log_debug("'%s' (pid %d): its argv names '%s', not believed (%s), skipping",
				  q->path, q->pid, argv[k], q->script ?
				  "a \"..\", or another mount namespace" :
				  "a \"..\", not root's interpreter, or another mount namespace");
		cancel_spec(w, q, NULL);
		return;
	}
	if (r < 0)
		return;	/* its working directory cannot be named: the replay started goes on */
	settle(w, q, script);
}

/* How long until an interpreter waiting is to be looked at again (1 ms at least). */
static int pending_wait_ms(const struct watch_decide *w)
{
	uint64_t now = now_monotonic_ns(), next = UINT64_MAX;

	for (size_t i = 0; i < w->npending; i++)
		if (w->pending[i].next_poll < next)
			next = w->pending[i].next_poll;
	return next <= now + PENDING_POLL_MS * 1000000ull ? PENDING_POLL_MS :
	       (int)((next - now) / 1000000ull) + 1;
}

/* Look at the interpreters waiting for their exec to complete. */
static void poll_pending(struct watch_decide *w)
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
			if (r == -ESRCH)
				cancel_spec(w, q, NULL);
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
 * replays), only when no pack of another root may be for the path (a
 * container running the same file), and only when the file has no other name:
 * a mark is on the inode, so a user's exec of a hard link with no pack
 * (zipinfo) would silence the replays of the name that has one (unzip).
 */
static bool ignorable(struct watch_decide *w, const struct watch_exec_event *ev,
		      const struct key_root *root, const char *path, const struct key_file *file)
{
	return root->id == 0 && ev->nlink == 1 && !watch_names_in_other_roots(w->names, path) &&
	       key_trusted(ev->pid, root, path, file, sys_view_mounts(*w->view)) == 0;
}

/*
 * The root of @ev, @root, opened to look up packs from it: the daemon's "/", or
 * another root only from a process that shares the daemon's mounts and whose
 * root root made (a user's mount namespace could show any tree there), checked
 * to be that root once open (the pid may have been reused meanwhile). -1: none.
 */
static int alias_root(struct watch_decide *w, const struct watch_exec_event *ev,
		      const struct key_root *root)
{
	struct stat st;
	char at[64];
	int fd;

	if (!root->id)
		return open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!key_root_by_root(ev->pid, &w->self, root) || key_same_mounts(ev->pid) != 1)
		return -1;
	snprintf(at, sizeof(at), "/proc/%d/root", (int)ev->pid);
	fd = open(at, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || key_root_id(&w->self, st.st_dev, st.st_ino) != root->id)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The file of @ev (in @root) has no pack of its own name: is it the file a
 * pack's program path leads to (watch-alias.h)? Then @path becomes that path,
 * the key (the file is the one that path leads to: no other check is needed).
 * Lookups due are made first; when none leads to the file, those the kernel's
 * caches could not answer before are made again: the exec has just walked its
 * own path.
 */
static bool alias_of(struct watch_decide *w, const struct watch_exec_event *ev,
		     const struct key_root *root, char *path, size_t size)
{
	uint64_t now = now_monotonic_ns(), id;
	char key[PATH_MAX];
	const char *name;
	int fd = -2;

	if (watch_alias_due(&w->alias, w->names, root->id, now)) {
		fd = alias_root(w, ev, root);
		if (fd >= 0)
			watch_alias_lookup(&w->alias, root->id, fd, root->path,
					   sys_view_mounts(*w->view), now, false);
	}
	name = watch_alias_find(&w->alias, root->id, ev->dev, ev->ino);
	if (!name && fd != -1 && watch_alias_retry_due(&w->alias, root->id, now)) {
		if (fd == -2)
			fd = alias_root(w, ev, root);
		if (fd >= 0) {
			watch_alias_lookup(&w->alias, root->id, fd, root->path,
					   sys_view_mounts(*w->view), now, true);
			name = watch_alias_find(&w->alias, root->id, ev->dev, ev->ino);
		}
	}
	if (fd >= 0)
		close(fd);
	if (!name || key_pack_path(name, &id, key, sizeof(key)) < 0 || strlen(key) >= size)
		return false;
	if (w->chatty)
		log_debug("'%s' started (pid %d): the file '%s' leads to, taken for it", path,
			  ev->pid, key);
	memcpy(path, key, strlen(key) + 1);
	return true;
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
bool watch_decide_exec(const struct watch_exec_event *ev, void *userdata)
{
	struct watch_decide *w = userdata;
	struct key_root root;
	struct watch_recent script;
	struct watch_job *spec;
	char path[PATH_MAX];
	uint64_t now = now_monotonic_ns();
	struct key_file file = { .dev = ev->dev, .ino = ev->ino, .uid = ev->uid, .mode = ev->mode };
	struct watch_pack *held = NULL;
	bool interp, covered = false, aliased = false;
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
	if (!watch_names_may_have(w->names, root.id, path, now_realtime_ns()) &&
	    (interp || !(aliased = alias_of(w, ev, &root, path, sizeof(path))))) {
		if (ev->script) {	/* its interpreter's exec comes next: as when it has no pack */
			watch_recent_add(w->scripts, SCRIPTS_MAX, ev->pid, 0, ev->script, now, NULL, NULL,
					 false);
			return false;
		}
		/* an interpreter's pack is the script's its argv names: not known yet */
		if (!interp &&
		    !watch_recent_find(w->scripts, SCRIPTS_MAX, ev->pid, 0, now, SCRIPT_NS, false, NULL)) {
			if (w->chatty)
				log_debug("'%s' started (pid %d): no pack", path, ev->pid);
			return ignorable(w, ev, &root, path, &file);	/* until a pack is added */
		}
	}
	/* a user's mount namespace may show any file at a system path: believe the file */
	if (!aliased && key_trusted(ev->pid, &root, path, &file, sys_view_mounts(*w->view)) < 0) {
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
		spec = consider(w, ev->pid, &root, path, ev->dev, ev->ino, now, true, NULL, &covered);
		watch_recent_add(w->scripts, SCRIPTS_MAX, ev->pid, 0, ev->script, now, spec,
			   spec || covered ? strdup(path) : NULL, covered);
		return false;
	}
	if (watch_recent_find(w->scripts, SCRIPTS_MAX, ev->pid, 0, now, SCRIPT_NS, true, &script)) {
		pend(w, ev, &root, path, script.arg, script.spec, script.spec_path,
		     script.covered && script.spec_path);
		return false;
	}
	if (interp) {
		/* its own pack meanwhile: right for "python3 -c" and "sh -c", stopped for a script */
		spec = consider(w, ev->pid, &root, path, ev->dev, ev->ino, now, true, NULL, &covered);
		pend(w, ev, &root, path, 0, spec, spec || covered ? strdup(path) : NULL,
		     covered);
		return false;
	}
	consider(w, ev->pid, &root, path, ev->dev, ev->ino, now, false, &held, NULL);
	if (!held)
		return false;
	if (!ignorable(w, ev, &root, path, &file) || !hold_mark(w, held)) {
		watch_pack_put(held);
		return false;
	}
	return true;	/* dropped by the kernel until the marks go (the hold's end) */
}

int watch_decide_new(const struct replay_options *o, struct watch_names *names,
		     struct sys_view *const *view, struct watch_queue *queue,
		     struct watch_decide **ret)
{
	struct watch_decide *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->o = o;
	w->names = names;
	w->view = view;
	w->queue = queue;
	w->chatty = o->verbosity >= 2;
	r = key_self_read(&w->self);
	if (r == 0)
		r = watch_packs_init(&w->packs, o->watch_dir);
	if (r < 0) {
		watch_decide_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

void watch_decide_free(struct watch_decide *w)
{
	if (!w)
		return;
	while (w->npending)
		pending_drop(w, w->npending - 1);
	for (size_t k = 0; k < SCRIPTS_MAX; k++)
		watch_recent_free(&w->scripts[k]);
	hold_release(w);
	watch_tree_clear(&w->tree);
	watch_alias_free(&w->alias);
	watch_packs_free(&w->packs);
	free(w);
}

int watch_decide_wait_ms(const struct watch_decide *w)
{
	return w->npending ? pending_wait_ms(w) : -1;
}

void watch_decide_poll(struct watch_decide *w)
{
	if (w->npending)
		poll_pending(w);
}

bool watch_decide_hold_over(struct watch_decide *w, uint64_t now)
{
	if (!w->nheld || (w->held_ns && now - w->held_ns < WATCH_HOLD_MIN_NS))
		return false;
	watch_hold_look(&w->hold, now);
	if (!watch_hold_holds(&w->hold, w->held_ns, now) ||
	    __atomic_load_n(&w->missed, __ATOMIC_ACQUIRE)) {
		/*
		 * Every program held is checked again at its next start, not only
		 * those held longest: held again on an older check, each would end
		 * the next hold in turn, and the marks would go again and again
		 */
		for (size_t i = 0; i < w->nheld; i++)
			__atomic_store_n(&w->held[i]->resident_ns, 0, __ATOMIC_RELEASE);
		hold_release(w);
		return true;
	}
	if (now - w->probed_ns < HELD_PROBE_NS)
		return false;
	w->probed_ns = now;
	for (size_t k = 0; k < probes_due(w->nheld) && k < w->nheld; k++)
		probe(w, w->held[w->next_probe++ % w->nheld], now);
	return false;
}

void watch_decide_marks_gone(struct watch_decide *w)
{
	hold_release(w);
}
