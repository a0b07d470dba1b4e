// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The replay engine: the plan's requests handed to worker threads, each
 * skipping what is resident and readahead()ing the rest within the budgets;
 * --wait; and whether the pack should be recorded again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <inttypes.h>

#include "util-log.h"
#include "replay-budget.h"
#include "replay-files.h"
#include "replay-follow.h"
#include "replay-inflight.h"
#include "replay-plan.h"
#include "replay-engine.h"
#include "sys-safeopen.h"
#include "sys-residency.h"
#include "util.h"

#define WAIT_REISSUE_NS		200000000ull	/* --wait: readahead() again after 200 ms */

/* What the engine's requests did (the other stages count their own). */
struct io_counts {
	uint64_t resident_bytes, issued_bytes, skipped_bytes, past_eof_bytes, unresident_bytes;
	uint64_t requests;		/* readahead() calls */
	uint64_t errors;		/* failed reads */
};

/* One replay under way. */
struct engine {
	const struct ura_pack *pack;
	const struct replay_options *o;
	const struct replay_fs *fs;	/* where the pack's filesystems are now */
	struct replay_fs *found;	/* @fs when found here (else the caller's) */
	size_t nfs;
	struct replay_plan plan;
	struct replay_files files;
	struct replay_budget budget;
	struct replay_inflight inflight;
	struct replay_follow follow;	/* --read follow */
	uint8_t *done;		/* per request: issued or found resident */
	size_t next;		/* next request to take (atomic) */
	uint64_t t0;
	struct io_counts io;		/* atomic */
};

void replay_options_init(struct replay_options *o)
{
	*o = (struct replay_options){
		.stale = REPLAY_STALE_SKIP,
		.jobs = REPLAY_DEFAULT_JOBS,
		.ioprio = REPLAY_DEFAULT_IOPRIO,
		.lead_ns = REPLAY_DEFAULT_LEAD_NS,
		.queue_ns = REPLAY_DEFAULT_QUEUE_NS,
		.rotational = -1,
		.min_available_pct = REPLAY_DEFAULT_AVAIL_PCT,
		.max_replays = REPLAY_DEFAULT_MAX_REPLAYS,
	};
}

static void stat_add(uint64_t *v, uint64_t n)
{
	__atomic_fetch_add(v, n, __ATOMIC_RELAXED);
}

/* ---- the pack ---- */

int replay_open_pack(const char *path, struct ura_pack **ret)
{
	struct stat st;
	int fd, r;

	fd = ura_pack_open_file(path);	/* never a device or FIFO, even through a symlink */
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	/* the pack decides what a root process opens at boot: only root may write it */
	if (geteuid() == 0 && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		r = -EPERM;
		goto out;
	}
	/* read the very file checked above (the library refuses one over 1 GiB) */
	r = ura_pack_open_fd(fd, ret);
out:
	close(fd);
	return r;
}

/* ---- issuing ---- */

#define READ_BUF	(1u << 20)	/* read_through()'s scratch buffer */

/*
 * Read a range with pread(), waiting for it: what readahead() cannot bring up to
 * date, a read does (and --read wait reads every request so). @buf: READ_BUF bytes
 * of scratch, or NULL to allocate them here. Return: 0, or -errno of a failed read;
 * a file shorter than the range ends it early.
 */
static int read_through(int fd, uint64_t off, uint64_t len, char *buf)
{
	char *own = buf ? NULL : malloc(READ_BUF);
	int r = 0;

	if (!buf && !(buf = own))
		return -ENOMEM;
	while (len) {
		size_t n = len < READ_BUF ? (size_t)len : READ_BUF;
		ssize_t got = pread(fd, buf, n, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			r = -errno;
		if (got <= 0)
			break;
		off += (uint64_t)got;
		len -= (uint64_t)got;
	}
	free(own);
	return r;
}

static int issue(int fd, uint64_t off, uint64_t len)
{
	int r;

	if (readahead(fd, (off64_t)off, (size_t)len) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* readahead() refuses some files (and block devices on older kernels) */
	r = posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);
	return -r;
}

static bool cancelled(const struct engine *c)
{
	return c->o->cancel && __atomic_load_n(c->o->cancel, __ATOMIC_ACQUIRE);
}

/*
 * --lead: wait until the request's time comes. The wait is cut in slices of
 * PACE_SLICE_NS so that a cancel (ura-replay --watch's SIGTERM) ends it within
 * a slice, whatever the pacing: a paced replay may sleep for seconds.
 */
#define PACE_SLICE_NS	10000000ull
static void pace(const struct engine *c, uint64_t time_ns)
{
	uint64_t at, now;

	if (!c->o->lead_ns || time_ns <= c->o->lead_ns)
		return;
	at = c->t0 + time_ns - c->o->lead_ns;
	while ((now = now_monotonic_ns()) < at && !cancelled(c)) {
		uint64_t until = c->o->cancel && at - now > PACE_SLICE_NS ? now + PACE_SLICE_NS : at;
		struct timespec ts = { .tv_sec = (time_t)(until / 1000000000),
				       .tv_nsec = (long)(until % 1000000000) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* How device @dev's requests are read: --read auto follows them, except on a device read
 * in physical order (its requests are not in the order the program needs them) */
static enum replay_read read_mode(const struct engine *c, uint32_t dev)
{
	if (c->o->read != REPLAY_READ_AUTO)
		return c->o->read;
	return c->plan.devices.dev[dev].rotational ? REPLAY_READ_AHEAD : REPLAY_READ_FOLLOW;
}

/* Request @i of the plan; @buf: a worker's scratch for --read wait, or NULL */
static void do_request(struct engine *c, size_t i, char *buf)
{
	const struct sched_item *q = &c->plan.req[i];
	struct replay_obj *ob = &c->files.obj[q->obj];
	uint64_t len = q->len, have = 0, n, cost, last = 0;
	int fd = -1, r;
	enum replay_read mode;
	bool follows, exact, followed;

	if (replay_budget_stopped(&c->budget) || cancelled(c)) {
		stat_add(&c->io.skipped_bytes, len);
		goto out;
	}
	pace(c, q->time_ns);
	if (cancelled(c)) {
		stat_add(&c->io.skipped_bytes, len);
		goto out;
	}
	fd = replay_files_get(&c->files, q->obj);
	if (fd < 0) {
		stat_add(&c->io.skipped_bytes, len);
		goto out;
	}
	/* past the end: a range recorded past it, or a file shorter now (--stale=read) */
	if (q->off >= ob->size) {
		stat_add(&c->io.past_eof_bytes, len);
		goto out;
	}
	if (len > ob->size - q->off) {
		stat_add(&c->io.past_eof_bytes, len - (ob->size - q->off));
		len = ob->size - q->off;
	}
	if (residency_bytes(fd, q->off, len, &n) == 0)
		have = n;
	stat_add(&c->io.resident_bytes, have);
	if (have >= len) {
		c->done[i] = 1;
		goto out;
	}
	if (!replay_budget_grant(&c->budget, len - have)) {
		stat_add(&c->io.skipped_bytes, len - have);
		goto out;
	}
	cost = dev_model_cost(&c->plan.devices.dev[q->dev].model, len - have);
	mode = read_mode(c, q->dev);
	/* --read follow: the device's follower (if it has one: follow_start()) waits for it,
	 * leaves the in-flight count and puts the descriptor; the page it waits for is found
	 * before readahead() puts the rest in the cache. Metadata is left at once (a block
	 * device's folio that the filesystem holds in part is not brought up to date by
	 * readahead(): a read of it would read again) */
	follows = mode == REPLAY_READ_FOLLOW && replay_follow_has(&c->follow, q->dev);
	exact = mode == REPLAY_READ_WAIT || follows;
	followed = follows && q->obj < c->plan.nfiles;
	if (exact)
		replay_inflight_enter(&c->inflight, q->dev, len - have, cost);
	else
		replay_inflight_wait(&c->inflight, q->dev, len - have, cost);
	/* cancelled while waiting for pacing or room: nothing is issued after a cancel is seen */
	if (cancelled(c)) {
		if (exact)
			replay_inflight_leave(&c->inflight, q->dev, len - have, cost);
		stat_add(&c->io.skipped_bytes, len - have);
		goto out;
	}
	if (followed)
		last = have ? replay_follow_last_unread(fd, q->off, len) : q->off + len - 1;
	r = issue(fd, q->off, len);
	followed = followed && r == 0;
	if (mode == REPLAY_READ_WAIT && r == 0) {
		/* --read wait: queued (readahead() takes up to the device's read-ahead
		 * or I/O size at once; a read brings in the rest), then waited for */
		r = read_through(fd, q->off, len, buf);
	}
	if (exact && !followed)
		replay_inflight_leave(&c->inflight, q->dev, len - have, cost);
	if (r < 0) {
		char name[PATH_MAX + 64];

		stat_add(&c->io.errors, 1);
		replay_files_note_failure(&c->files, -r);
		stat_add(&c->io.skipped_bytes, len - have);
		if (!ob->warned) {
			ob->warned = true;
			replay_files_name(&c->files, q->obj, name, sizeof(name));
			log_warn("cannot read ahead '%s': %s, skipping", name, strerror(-r));
		}
		goto out;
	}
	replay_inflight_note(&c->inflight, q->dev, len - have);
	stat_add(&c->io.issued_bytes, len - have);
	stat_add(&c->io.requests, 1);
	c->done[i] = 1;
	if (followed) {
		struct replay_followed f = { .fd = fd, .obj = q->obj, .last = last,
					     .len = len - have, .cost_ns = cost };

		if (replay_follow_push(&c->follow, q->dev, &f))
			return;
		/* no follower (or the device stalled): not waited for */
		replay_inflight_leave(&c->inflight, q->dev, len - have, cost);
	}
out:
	replay_files_put(&c->files, q->obj, fd, REPLAY_RELEASE_HANDLED);
}

/* --read follow: a request the device has read */
static void release_followed(void *ctx, uint32_t obj, int fd)
{
	replay_files_put(ctx, obj, fd, REPLAY_RELEASE_HANDLED);
}

/*
 * A follower for each device whose requests are followed: read so (read_mode()), and what
 * it has in flight bounded (with no bound there is nothing to wait for, and the followed
 * requests' descriptors would stay open past the cap), on a block device (a read on a
 * network or FUSE filesystem waits on a server, which may never answer).
 */
static int follow_start(struct engine *c)
{
	size_t n = c->plan.devices.n;
	bool *want = calloc(n ? n : 1, sizeof(*want)), any = false;
	int r;

	if (!want)
		return -ENOMEM;
	for (size_t d = 0; d < n; d++) {
		want[d] = read_mode(c, (uint32_t)d) == REPLAY_READ_FOLLOW &&
			  replay_inflight_bounded(&c->inflight, (uint32_t)d);
		any |= want[d];
	}
	r = any ? replay_follow_start(&c->follow, &c->inflight, n, want, release_followed,
				      &c->files) : 0;
	free(want);
	return r;
}

/* I/O priority is per thread (without CLONE_IO): each thread that reads sets its own. */
static void set_ioprio(const struct engine *c)
{
	if (c->o->ioprio >= 0 &&
	    syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, (int)gettid(), c->o->ioprio) < 0)
		log_debug("cannot set the I/O priority: %s", strerror(errno));
}

static void *worker(void *arg)
{
	struct engine *c = arg;
	/* one scratch buffer per worker: reused, its pages are faulted in once */
	char *buf = c->o->read == REPLAY_READ_WAIT ? malloc(READ_BUF) : NULL;

	set_ioprio(c);
	for (;;) {
		size_t i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED);

		if (i >= c->plan.nreq)
			break;
		do_request(c, i, buf);
	}
	free(buf);
	return NULL;
}

static int dispatch(struct engine *c)
{
	unsigned jobs = c->o->jobs ? c->o->jobs : 1;
	pthread_t *th = NULL;
	unsigned started = 0;
	int r = 0;

	if (jobs > c->plan.nreq)
		jobs = c->plan.nreq ? (unsigned)c->plan.nreq : 1;
	if (!c->t0)
		c->t0 = now_monotonic_ns();
	if (jobs == 1) {
		worker(c);
		return 0;
	}
	th = calloc(jobs, sizeof(*th));
	if (!th)
		return -ENOMEM;
	for (; started < jobs; started++) {
		r = -pthread_create(&th[started], NULL, worker, c);
		if (r < 0)
			break;
	}
	if (!started)
		worker(c);	/* no thread at all: do the work here */
	for (unsigned k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	free(th);
	return 0;
}

struct wait_item {
	struct sched_item q;
	uint64_t seen;		/* up-to-date bytes at the last look */
	uint64_t changed;	/* when that last changed (or was acted on) */
	uint64_t asked;		/* when readahead() was last issued again */
};


/*
 * Return when every issued or resident range is resident and up to date, or at
 * the timeout. All ranges are watched together, so that pages evicted again
 * (memory pressure, someone's drop_caches) are asked for again at once:
 * - pages missing from the cache (cachestat): readahead() again, at most every 50 ms;
 * - all present but some not up to date for 1 s: read them with pread(), which
 *   waits for reads in flight and reads what readahead() cannot bring up to
 *   date (a block device folio partly held by a mounted filesystem).
 */
static void wait_resident(struct engine *c)
{
	uint64_t start = now_monotonic_ns(), deadline = start + REPLAY_WAIT_TIMEOUT_NS;
	struct wait_item *w = NULL;
	unsigned passes = 0;
	size_t k = 0;

	w = malloc((c->plan.nreq ? c->plan.nreq : 1) * sizeof(*w));
	if (!w)
		return;
again:
	for (size_t i = 0; i < c->plan.nreq; i++)
		if (c->done[i])
			w[k++] = (struct wait_item){ .q = c->plan.req[i], .changed = start, .asked = start };
	while (k) {
		uint64_t now = now_monotonic_ns();
		struct timespec ts = { 0, 2000000 };
		size_t m = 0;

		for (size_t i = 0; i < k; i++) {
			struct wait_item *it = &w[i];
			const struct sched_item *q = &it->q;
			uint64_t len = q->len, size, up, present;
			int rp;
			int fd = replay_files_get(&c->files, q->obj);
			bool keep = false;

			if (fd < 0)
				continue;
			size = c->files.obj[q->obj].size;
			if (q->off >= size)
				goto next;
			if (len > size - q->off)
				len = size - q->off;
			if (residency_uptodate(fd, q->off, len, &up) < 0 || up >= len)
				goto next;
			if (now >= deadline) {
				stat_add(&c->io.unresident_bytes, len - up);
				goto next;
			}
			if (up != it->seen) {
				it->seen = up;
				it->changed = now;
			}
			rp = residency_cached(fd, q->off, len, &present);
			if (rp == -ENOSYS) {	/* no cachestat: after a stall, ask again */
				present = now - it->changed >= WAIT_REISSUE_NS ? 0 : len;
				rp = 0;
			}
			if (rp == 0 && present < len) {
				if (now - it->asked >= WAIT_REISSUE_NS / 4) {
					/* what is not in the cache at all is read again */
					if (issue(fd, q->off, len) == 0)
						replay_inflight_note(&c->inflight, q->dev,
								     len - present);
					it->asked = now;
				}
			} else if (now - it->changed >= 5 * WAIT_REISSUE_NS) {
				(void)read_through(fd, q->off, len, NULL);
				it->changed = now_monotonic_ns();
			}
			keep = true;
next:
			replay_files_put(&c->files, q->obj, fd, REPLAY_RELEASE_KEEP);
			if (keep)
				w[m++] = *it;
		}
		k = m;
		if (k)
			nanosleep(&ts, NULL);
		else if (passes++ < 3 && now < deadline)
			goto again;	/* what was seen resident early may have been evicted since */
	}
	free(w);
}

/* ---- the run ---- */

/*
 * --check-stale: open and check each file of the plan as a replay would (same opens, same
 * identity check), read nothing, and close it after its last request. The states found are
 * what sum_stats() counts.
 */
static void check_files(struct engine *c)
{
	c->files.fd_cap = replay_files_raise_limit(1);
	for (size_t i = 0; i < c->plan.nreq; i++) {
		uint32_t obj = c->plan.req[i].obj;

		if (obj < c->plan.nfiles)
			replay_files_put(&c->files, obj, replay_files_get(&c->files, obj),
					 REPLAY_RELEASE_HANDLED);
	}
}

/*
 * --inflight auto: per device, the device time of REPLAY_AUTO_REQUESTS of its largest
 * requests (the larger of read_ahead_kb and max_sectors_kb). With the reads followed
 * (--read follow), one is read while the next waits, so the device never waits for the
 * replay; a miss of the program waits behind about two of its own read-around windows.
 * A device read in physical order within time bins (rotational) keeps the default: its
 * requests are not in the order the program needs them, and a short queue would leave
 * a page the program needs now to a later request.
 */
static void auto_limits(struct engine *c)
{
	for (size_t d = 0; d < c->plan.devices.n; d++) {
		const struct sched_dev *sd = &c->plan.devices.dev[d];
		uint64_t ns = sd->rotational ? REPLAY_PHYSICAL_QUEUE_NS :
			      REPLAY_AUTO_REQUESTS * dev_model_cost(&sd->model, sd->chunk);

		replay_inflight_set_limit_ns(&c->inflight, (uint32_t)d, ns ? ns : 1);
		log_debug("device %u:%u: in flight at most %.1f ms of device time",
			  c->plan.devices.devnum[d][0], c->plan.devices.devnum[d][1],
			  (double)ns / 1e6);
	}
}

/* The report: what each stage counted (plan, files, I/O, budget), summed. */
static void sum_stats(const struct engine *c, struct replay_stats *ret)
{
	const struct replay_plan_counts *p = &c->plan.counts;
	const struct replay_files_counts *f = &c->files.counts;
	struct replay_stats st = {
		.pack_bytes = p->pack_bytes,
		.resident_bytes = c->io.resident_bytes,
		.issued_bytes = c->io.issued_bytes,
		.skipped_bytes = c->io.skipped_bytes,
		.past_eof_bytes = p->past_eof_bytes + c->io.past_eof_bytes,
		.unresident_bytes = c->io.unresident_bytes,
		.requests = c->io.requests,
		.files = p->files,
		.stale_files = f->stale_files,
		.written_files = f->written_files,
		.missing_files = f->missing_files,
		.refused_files = f->refused_files,
		.errors = f->errors + c->io.errors,
		.ncauses = f->ncauses,
		.ndevs = p->ndevs,
		.plan_ns = p->plan_ns,
		.memory_limited = c->budget.memory_limited,
		.max_bytes_reached = c->budget.max_bytes_reached,
	};

	/* the bytes on changed files: a file's share of the boot is its bytes, not its count */
	for (size_t i = 0; c->files.obj && i < c->plan.nreq; i++) {
		const struct sched_item *q = &c->plan.req[i];

		if (q->obj >= c->plan.nfiles)
			continue;
		st.file_bytes += q->len;
		switch (c->files.obj[q->obj].state) {
		case REPLAY_OBJ_STALE:
		case REPLAY_OBJ_MISSING:
		case REPLAY_OBJ_REFUSED:
			st.changed_bytes += q->len;
			break;
		case REPLAY_OBJ_WRITTEN:
			st.written_bytes += q->len;
			break;
		}
	}
	for (unsigned i = 0; i < f->ncauses; i++) {
		st.causes[i].err = f->causes[i].err;
		st.causes[i].count = f->causes[i].count;
	}
	memcpy(st.devs, p->devs, sizeof(st.devs));
	*ret = st;
}

int replay_run(const struct ura_pack *pack, struct sys_view *view, const struct replay_fs *fs,
	       const struct replay_options *o, struct replay_stats *ret)
{
	struct engine c = { .pack = pack, .o = o, .fs = fs, .nfs = ura_pack_fs_count(pack) };
	struct replay_stats st;
	uint64_t start = now_monotonic_ns(), total = 0, avail, floor;
	int r;

	/* where the files are, and what the plan needs to know of their devices; then the plan */
	if (!c.fs) {
		r = replay_mounts_find(pack, view, o->root, o->dry_run, &c.found);
		c.fs = c.found;
		if (r < 0)
			goto out;
	}
	r = replay_devices_prepare(view, pack, c.fs, c.nfs, o);
	if (r < 0)
		goto out;
	r = replay_plan_build(pack, view, c.fs, c.nfs, o, &c.plan);
	if (r < 0)
		goto out;
	c.done = calloc(c.plan.nreq ? c.plan.nreq : 1, 1);
	if (!c.done) {
		r = -ENOMEM;
		goto out;
	}
	r = replay_files_init(&c.files, pack, c.fs, c.plan.nfiles,
			      (const unsigned (*)[2])c.plan.bdevs, c.plan.nbdev, c.plan.req,
			      c.plan.nreq,
			      (o->stale == REPLAY_STALE_READ ? REPLAY_FILES_READ_STALE : 0) |
			      (o->fadvise_random || o->read != REPLAY_READ_AHEAD ?
			       REPLAY_FILES_FADVISE_RANDOM : 0));
	if (r < 0)
		goto out;
	if (o->check_stale) {
		check_files(&c);
		goto done;
	}
	if (o->dry_run) {
		r = replay_plan_order_rotational(&c.plan, NULL);
		if (r < 0)
			goto out;
		c.io.requests = c.plan.nreq;
		replay_plan_log(&c.plan, pack);
		goto done;
	}
	c.files.fd_cap = replay_files_raise_limit(o->jobs);
	avail = replay_mem_available(&total);
	floor = o->min_available ? o->min_available : total / 100 * o->min_available_pct;
	log_debug("%zu requests on %zu devices; MemAvailable %" PRIu64 " MiB, floor %" PRIu64
		  " MiB", c.plan.nreq, c.plan.devices.n, avail >> 20, floor >> 20);
	replay_budget_init(&c.budget, o->max_bytes, floor);
	replay_files_open_bdevs(&c.files);
	r = replay_inflight_open(&c.inflight, (const unsigned (*)[2])c.plan.devices.devnum,
				 c.plan.devices.n, o->inflight,
				 o->queue_ns == REPLAY_QUEUE_AUTO ? 0 : o->queue_ns, &c.budget.stop);
	if (r < 0)
		goto out;
	if (o->queue_ns == REPLAY_QUEUE_AUTO && !o->inflight)
		auto_limits(&c);
	c.inflight.cancel = o->cancel;
	r = follow_start(&c);
	if (r < 0)
		goto out;
	/* rotational order opens every file: the metadata goes first, issued right here */
	if (c.plan.nmeta_first) {
		c.t0 = now_monotonic_ns();
		set_ioprio(&c);
		for (; c.next < c.plan.nmeta_first; c.next++)
			do_request(&c, c.next, NULL);
	}
	r = replay_plan_order_rotational(&c.plan, &c.files);
	if (r < 0)
		goto out;
	r = dispatch(&c);
	replay_follow_stop(&c.follow);
	if (r < 0)
		goto out;
	if (o->wait) {
		set_ioprio(&c);		/* the waiting thread may read too */
		wait_resident(&c);
	}
done:
	r = 0;
out:
	replay_follow_stop(&c.follow);
	sum_stats(&c, &st);
	if (c.inflight.queues) {
		struct replay_inflight_counts ic;

		replay_inflight_counts(&c.inflight, &ic);
		st.others_bytes = ic.others_bytes;
		st.queued_mean_ns = ic.queued_mean_ns;
	}
	st.ns = now_monotonic_ns() - start;
	*ret = st;
	replay_inflight_close(&c.inflight);
	replay_budget_free(&c.budget);
	replay_files_free(&c.files);
	replay_plan_free(&c.plan);
	replay_mounts_free(c.found, c.nfs);
	free(c.done);
	return r;
}
/* ---- what comes next ---- */

bool replay_needs_retrace(const struct ura_pack *pack, const struct replay_stats *s,
			  int64_t now_ns)
{
	uint64_t bad = s->stale_files + s->missing_files + s->refused_files;
	struct ura_pack_info info;

	if (s->files && bad * 100 > s->files * REPLAY_RETRACE_STALE_PCT)
		return true;
	/* a few large changed files (libLLVM, the kernel's modules) matter as much as many */
	if (s->file_bytes && s->changed_bytes * 100 > s->file_bytes * REPLAY_RETRACE_STALE_PCT)
		return true;
	ura_pack_get_info(pack, &info);
	return info.created_ns > 0 && now_ns > info.created_ns &&
	       (uint64_t)(now_ns - info.created_ns) > REPLAY_RETRACE_AGE_NS;
}

int replay_mark_stale(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
		      0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

