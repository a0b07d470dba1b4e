// SPDX-License-Identifier: GPL-2.0-or-later
/* The replay engine: open a pack's files safely, skip what is resident, readahead() the rest */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/fiemap.h>
#include <linux/fs.h>

#include "blockdev.h"
#include "devcache.h"
#include "exit-codes.h"
#include "fileid.h"
#include "log.h"
#include "mountinfo.h"
#include "replay.h"
#include "residency.h"
#include "safeopen.h"
#include "schedule.h"
#include "util.h"

#define NLOCKS			64
#define MEM_CHECK_BYTES		(8ull << 20)	/* read MemAvailable after this much was issued */
#define WAIT_REISSUE_NS		200000000ull	/* --wait: readahead() again after 200 ms */

enum obj_state { OBJ_UNOPENED, OBJ_OK, OBJ_STALE, OBJ_MISSING, OBJ_REFUSED, OBJ_ERROR };

/*
 * What the replay has in flight on one device: the bytes it issued minus the
 * bytes the device has read since (sectors read in /sys/dev/block/MAJ:MIN/stat).
 * Reads by others count as ours, so this errs towards issuing more.
 */
struct rqueue {
	int statfd;		/* -1: unknown device, no limit */
	uint64_t issued;	/* bytes */
	uint64_t issued_ns;	/* their device time by the model */
	uint64_t (*marks)[2];	/* per request issued: bytes and device time issued after it */
	size_t nmarks, cap, head;	/* marks[head..nmarks) are not read yet, as far as we know */
	uint64_t done_ns;	/* device time of the requests read */
	uint64_t read0;		/* bytes read by the device when counting began */
	uint64_t last_read;	/* bytes read at the last look */
	uint64_t last_change;	/* when that last changed */
	bool started;		/* read0 is set */
	pthread_mutex_t lock;
};

/* A filesystem of the pack, as found now. */
struct rfs {
	char *dir;		/* where its files are, or NULL when not found */
	int dirfd;		/* O_PATH descriptor of @dir, or -1 */
	uint32_t dev;		/* index into the device table */
};

/* A file (index < nfiles) or a block device holding metadata (index >= nfiles). */
struct robj {
	int fd;
	uint8_t state;		/* enum obj_state */
	bool warned;
	bool reopen_failed;	/* closed for the file limit, then could not be opened again */
	uint32_t pending;	/* requests not yet handled; the file is closed at zero */
	uint32_t users;		/* threads using @fd now */
	uint64_t size;		/* bytes now */
	unsigned major, minor;	/* block devices only */
};

struct ctx {
	const struct ura_pack *pack;
	const struct replay_options *o;
	size_t nfiles, nbdev, nobj;
	struct rfs *fs;
	size_t nfs;
	struct robj *obj;
	struct sched_dev *devs;
	unsigned (*devnum)[2];
	struct rqueue *queues;	/* per device: bytes in flight (--inflight) */
	size_t ndev;
	struct sched_item *req;
	size_t nreq;
	uint8_t *done;		/* per request: issued or found resident */
	size_t next;		/* next request to take (atomic) */
	uint64_t t0;
	bool stop;		/* atomic: a limit was reached */
	pthread_mutex_t locks[NLOCKS];
	pthread_mutex_t mem_lock;
	uint64_t mem_floor, reserved, since_check;
	uint64_t clipped_bytes;	/* of ranges past the pack's file or the device's size */
	size_t open_files;	/* atomic: file descriptors of files we hold */
	size_t fd_cap;		/* hold at most about this many: close after use beyond */
	struct replay_stats st;
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
	};
}

static void add(uint64_t *v, uint64_t n)
{
	__atomic_fetch_add(v, n, __ATOMIC_RELAXED);
}

/* ---- the pack ---- */

int replay_open_pack(const char *path, struct ura_pack **ret)
{
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
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

/* ---- devices and the cost model ---- */

static int dev_slot(struct ctx *c, unsigned major, unsigned minor, uint32_t *ret)
{
	const struct replay_options *o = c->o;
	struct sched_dev *d;
	unsigned ra = 0, maxs = 0;
	uint64_t cap;
	size_t i;
	void *p;

	for (i = 0; i < c->ndev; i++)
		if (c->devnum[i][0] == major && c->devnum[i][1] == minor) {
			*ret = (uint32_t)i;
			return 0;
		}
	/* a pack names a few devices: grow one at a time */
	p = realloc(c->devs, (c->ndev + 1) * sizeof(*c->devs));
	if (!p)
		return -ENOMEM;
	c->devs = p;
	p = realloc(c->devnum, (c->ndev + 1) * sizeof(*c->devnum));
	if (!p)
		return -ENOMEM;
	c->devnum = p;
	d = &c->devs[c->ndev];
	*d = (struct sched_dev){ 0 };
	c->devnum[c->ndev][0] = major;
	c->devnum[c->ndev][1] = minor;
	(void)blockdev_get_read_ahead_kb(major, minor, &ra);
	(void)blockdev_max_sectors_kb(major, minor, &maxs);
	/* one readahead() reads at most max(read_ahead_kb, max request): never ask for more */
	cap = (uint64_t)(ra > maxs ? ra : maxs) << 10;
	if (!cap)
		cap = REPLAY_FALLBACK_CHUNK;
	d->chunk = o->chunk && o->chunk < cap ? o->chunk : cap;
	d->chunk = d->chunk < URA_PACK_PAGE_SIZE ? URA_PACK_PAGE_SIZE : d->chunk & ~(URA_PACK_PAGE_SIZE - 1);
	d->readahead = (uint64_t)ra << 10;
	if (blockdev_size(major, minor, &d->size) < 0)
		d->size = 0;
	d->max_request = (uint64_t)maxs << 10;
	log_debug("device %u:%u: chunk %" PRIu64 " KiB (read_ahead_kb %u, max_sectors_kb %u)",
		  major, minor, d->chunk >> 10, ra, maxs);
	*ret = (uint32_t)c->ndev++;
	return 0;
}


/*
 * The cost model of every device that has requests: the options' figures,
 * else the one measured before for this device and these I/O limits, else a
 * measurement now (once; --probe never skips it, --probe always redoes it),
 * else a guess from sysfs's rotational flag, which loop, virtio, USB and dm
 * devices often get wrong.
 */
static int setup_models(struct ctx *c)
{
	const struct replay_options *o = c->o;
	size_t nr = ura_pack_range_count(c->pack), nm = ura_pack_meta_count(c->pack);
	struct ura_pack_range rg;
	struct ura_pack_file f;
	struct ura_pack_meta pm;
	bool *used;
	uint32_t d0;
	int err;

	/* the devices with something to read: those that hold metadata get a slot now */
	for (size_t i = 0; i < nm && ura_pack_get_meta(c->pack, i, &pm) == 0; i++) {
		err = dev_slot(c, pm.major, pm.minor, &d0);
		if (err < 0)
			return err;
	}
	used = calloc(c->ndev ? c->ndev : 1, sizeof(*used));
	if (!used)
		return -ENOMEM;
	for (size_t i = 0; i < nm && ura_pack_get_meta(c->pack, i, &pm) == 0; i++)
		if (dev_slot(c, pm.major, pm.minor, &d0) == 0)
			used[d0] = true;
	for (size_t i = 0; i < nr && ura_pack_get_range(c->pack, i, &rg) == 0; i++)
		if ((o->all || (rg.flags & URA_PACK_RANGE_DEMANDED)) &&
		    ura_pack_get_file(c->pack, rg.file_index, &f) == 0 && f.fs_index < c->nfs)
			used[c->fs[f.fs_index].dev] = true;
	for (size_t d = 0; d < c->ndev; d++) {
		unsigned major = c->devnum[d][0], minor = c->devnum[d][1];
		struct sched_dev *dv = &c->devs[d];
		struct devmodel m = { 0 };
		bool rot = false, have = false;
		int r;
		bool sysfs = blockdev_is_rotational(major, minor, &rot) == 0;

		if (!sysfs)
			rot = false;
		if (o->request_ns || o->bandwidth) {
			devmodel_from_costs(&m, o->request_ns ? o->request_ns :
					    rot ? DEVMODEL_ROT_REQUEST_NS : DEVMODEL_SSD_REQUEST_NS,
					    o->bandwidth ? o->bandwidth :
					    rot ? DEVMODEL_ROT_BANDWIDTH : DEVMODEL_SSD_BANDWIDTH,
					    rot, DEVMODEL_OPTIONS);
			have = true;
		} else if (used[d]) {
			/*
			 * Measure only a device that holds the pack's files now (not one a
			 * pack merely names), and never in a dry run.
			 */
			enum devcache_how how = o->probe == REPLAY_PROBE_NEVER || o->dry_run ||
						!dv->has_files ? DEVCACHE_LOAD :
						o->probe == REPLAY_PROBE_ALWAYS ? DEVCACHE_MEASURE :
						DEVCACHE_AUTO;

			r = devcache_get(major, minor, how, &m);
			have = r == 0;
			if (r == -EROFS)
				log_info("'%s' is read-only: not measuring device %u:%u, guessing "
					 "its costs from sysfs", devcache_dir(), major, minor);
			else if (r < 0 && r != -ENOENT)
				log_info("cannot measure device %u:%u: %s, guessing its costs from "
					 "sysfs", major, minor, strerror(-r));
		}

		if (!have)
			devmodel_from_costs(&m, rot ? DEVMODEL_ROT_REQUEST_NS : DEVMODEL_SSD_REQUEST_NS,
					    rot ? DEVMODEL_ROT_BANDWIDTH : DEVMODEL_SSD_BANDWIDTH, rot,
					    sysfs ? DEVMODEL_SYSFS : DEVMODEL_DEFAULT);
		dv->model = m;
		dv->rotational = o->rotational >= 0 ? o->rotational : m.rotational;
		log_debug("device %u:%u: model from %s, %s, request %.0f us, %.1f MiB/s, "
			  "holes up to %" PRIu64 " KiB read", major, minor,
			  devmodel_source_name(m.source), dv->rotational ? "rotational" : "no seeks",
			  (double)devmodel_request_ns(&m) / 1e3,
			  (double)devmodel_bandwidth(&m) / (1 << 20), sched_max_gap(dv) >> 10);
		if (c->st.ndevs < REPLAY_REPORT_DEVS && used[d]) {
			struct replay_dev_report *rep = &c->st.devs[c->st.ndevs++];

			*rep = (struct replay_dev_report){
				.major = major, .minor = minor, .source = m.source,
				.request_ns = devmodel_request_ns(&m),
				.bandwidth = devmodel_bandwidth(&m),
				.rotational = dv->rotational,
			};
		}
	}
	free(used);
	return 0;
}

/* ---- opening files ---- */

/*
 * Open file @idx of the pack for reading and check it is the file that was
 * traced. Return: OBJ_OK (or OBJ_STALE with @read_stale) with *ret_fd and
 * *ret_size set, else the reason it is skipped. Logs nothing.
 */
static int open_file(struct ctx *c, uint32_t idx, bool read_stale, int *ret_fd,
		     uint64_t *ret_size, int *ret_err)
{
	struct ura_pack_file f;
	struct statx stx;
	int fd;
	bool stale;

	*ret_err = 0;
	if (ura_pack_get_file(c->pack, idx, &f) < 0 || c->fs[f.fs_index].dirfd < 0)
		return OBJ_MISSING;
	fd = safeopen_file(c->fs[f.fs_index].dirfd, f.path, &stx);
	if (fd < 0) {
		switch (fd) {
		case -ENOENT:
		case -ENOTDIR:
			return OBJ_MISSING;
		case -EISDIR:
		case -EBADFD:
		case -ESTALE:
			return OBJ_REFUSED;	/* not a regular file, or replaced meanwhile */
		case -ELOOP:
		case -EXDEV:
		case -ENAMETOOLONG:
			*ret_err = -fd;
			return OBJ_REFUSED;
		default:
			*ret_err = -fd;
			return OBJ_ERROR;
		}
	}
	stale = fileid_is_stale(fd, &stx, &f);
	if (stale && !read_stale) {
		close(fd);
		return OBJ_STALE;
	}
	if (c->o->fadvise_random)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	*ret_fd = fd;
	*ret_size = stx.stx_size;
	return stale ? OBJ_STALE : OBJ_OK;
}

static void file_name(struct ctx *c, uint32_t idx, char *buf, size_t len)
{
	struct ura_pack_file f;

	if (ura_pack_get_file(c->pack, idx, &f) < 0) {
		snprintf(buf, len, "#%u", idx);
		return;
	}
	snprintf(buf, len, "%s%s%s", c->fs[f.fs_index].dir ? c->fs[f.fs_index].dir : "",
		 c->fs[f.fs_index].dir && strcmp(c->fs[f.fs_index].dir, "/") != 0 ? "/" : "", f.path);
}

/* Count a failure of @err (an errno) among the causes the report lists. */
static void note_failure(struct ctx *c, int err)
{
	struct replay_stats *st = &c->st;
	unsigned k;

	pthread_mutex_lock(&c->mem_lock);
	for (k = 0; k < st->ncauses; k++)
		if (st->causes[k].err == err)
			break;
	if (k == st->ncauses && k < REPLAY_REPORT_CAUSES)
		st->causes[st->ncauses++].err = err;
	if (k < REPLAY_REPORT_CAUSES)
		st->causes[k].count++;
	pthread_mutex_unlock(&c->mem_lock);
}

/*
 * The descriptor of object @i, opening and checking a file on first use, and
 * again when it was closed to stay within the file limit; -1 to skip it.
 * Each descriptor returned is released with obj_put().
 */
static int obj_get(struct ctx *c, uint32_t i)
{
	pthread_mutex_t *lock = &c->locks[i % NLOCKS];
	struct robj *ob = &c->obj[i];
	int fd, err = 0;

	pthread_mutex_lock(lock);
	if (ob->state == OBJ_UNOPENED) {
		char name[PATH_MAX + 64];

		ob->fd = -1;
		ob->state = (uint8_t)open_file(c, i, c->o->stale == REPLAY_STALE_READ, &ob->fd,
					       &ob->size, &err);
		if (ob->fd >= 0)
			__atomic_fetch_add(&c->open_files, 1, __ATOMIC_RELAXED);
		if (ob->state != OBJ_OK)
			file_name(c, i, name, sizeof(name));
		switch (ob->state) {
		case OBJ_STALE:
			add(&c->st.stale_files, 1);
			log_info("'%s' changed since the trace, %s", name,
				 ob->fd >= 0 ? "reading it anyway" : "skipping");
			break;
		case OBJ_MISSING:
			add(&c->st.missing_files, 1);
			log_debug("'%s' is missing, skipping", name);
			break;
		case OBJ_REFUSED:
			add(&c->st.refused_files, 1);
			log_warn("'%s' is not a regular file on its filesystem, skipping", name);
			break;
		case OBJ_ERROR:
			add(&c->st.errors, 1);
			note_failure(c, err);
			log_warn("cannot open '%s': %s, skipping", name, strerror(err));
			break;
		}
	} else if (ob->fd < 0 && i < c->nfiles && !ob->reopen_failed &&
		   (ob->state == OBJ_OK || (ob->state == OBJ_STALE &&
					    c->o->stale == REPLAY_STALE_READ))) {
		/* closed to stay within the file limit: open it again, checked again */
		int st = open_file(c, i, c->o->stale == REPLAY_STALE_READ, &ob->fd, &ob->size,
				   &err);

		if (ob->fd >= 0) {
			__atomic_fetch_add(&c->open_files, 1, __ATOMIC_RELAXED);
		} else {
			char name[PATH_MAX + 64];

			ob->reopen_failed = true;
			file_name(c, i, name, sizeof(name));
			if (st == OBJ_ERROR) {
				add(&c->st.errors, 1);
				note_failure(c, err);
				log_warn("cannot open '%s' again: %s, skipping", name, strerror(err));
			} else {
				log_info("'%s' changed during the replay, skipping", name);
			}
		}
	}
	fd = ob->fd;
	if (fd >= 0)
		ob->users++;
	pthread_mutex_unlock(lock);
	return fd;
}

enum release {
	RELEASE_HANDLED,	/* one request of the object is handled: close after its last */
	RELEASE_KEEP,		/* a look only (FIEMAP, --wait): keep it open */
};

/*
 * Release what obj_get() gave (@fd >= 0). A file is closed once all of its
 * requests are handled, or at once while more files are open than the limit
 * allows.
 */
static void obj_put(struct ctx *c, uint32_t i, int fd, enum release how)
{
	pthread_mutex_t *lock = &c->locks[i % NLOCKS];
	struct robj *ob = &c->obj[i];
	bool done;

	pthread_mutex_lock(lock);
	if (fd >= 0 && ob->users)
		ob->users--;
	if (how == RELEASE_HANDLED && ob->pending)
		ob->pending--;
	done = how == RELEASE_HANDLED && !ob->pending;
	if (i < c->nfiles && ob->fd >= 0 && !ob->users &&
	    (done || __atomic_load_n(&c->open_files, __ATOMIC_RELAXED) > c->fd_cap)) {
		close(ob->fd);
		ob->fd = -1;
		__atomic_fetch_sub(&c->open_files, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(lock);
}

/* ---- residency ---- */

/* ---- issuing ---- */

static uint64_t mem_available(uint64_t *ret_total)
{
	char line[128];
	uint64_t avail = UINT64_MAX, total = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long kb;

		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			total = kb << 10;
		else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			avail = kb << 10;
	}
	fclose(f);
	if (ret_total)
		*ret_total = total;
	return avail;
}

/* May @len more bytes be read? Stops the replay at --max-bytes or the MemAvailable floor. */
static bool budget(struct ctx *c, uint64_t len)
{
	bool ok = true;

	pthread_mutex_lock(&c->mem_lock);
	if (c->stop) {
		ok = false;
	} else if (c->o->max_bytes && c->reserved + len > c->o->max_bytes) {
		c->st.max_bytes_reached = true;
		ok = false;
	} else {
		c->since_check += len;
		if (c->since_check >= MEM_CHECK_BYTES || c->reserved == 0) {
			uint64_t avail = mem_available(NULL);

			c->since_check = 0;
			if (avail < c->mem_floor + len) {
				c->st.memory_limited = true;
				log_info("MemAvailable down to %" PRIu64 " MiB, stopping",
					 avail >> 20);
				ok = false;
			}
		}
	}
	if (ok)
		c->reserved += len;
	else
		__atomic_store_n(&c->stop, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&c->mem_lock);
	return ok;
}

static int open_queues(struct ctx *c)
{
	c->queues = calloc(c->ndev ? c->ndev : 1, sizeof(*c->queues));
	if (!c->queues)
		return -ENOMEM;
	for (size_t d = 0; d < c->ndev; d++) {
		char path[64];

		c->queues[d].statfd = -1;
		pthread_mutex_init(&c->queues[d].lock, NULL);
		if (!c->o->inflight && !c->o->queue_ns)
			continue;
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", c->devnum[d][0],
			 c->devnum[d][1]);
		c->queues[d].statfd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return 0;
}

static void close_queues(struct ctx *c)
{
	for (size_t d = 0; c->queues && d < c->ndev; d++) {
		if (c->queues[d].statfd >= 0)
			close(c->queues[d].statfd);
		free(c->queues[d].marks);
		pthread_mutex_destroy(&c->queues[d].lock);
	}
	free(c->queues);
}

/* Bytes the device has read since boot, or UINT64_MAX. */
static uint64_t device_read_bytes(int statfd)
{
	char buf[256];
	unsigned long long ios, merges, sectors;
	ssize_t n = pread(statfd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return UINT64_MAX;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %llu", &ios, &merges, &sectors) != 3)
		return UINT64_MAX;
	return (uint64_t)sectors * 512;
}

/*
 * Keep the replay's queue on a device short: before issuing @len bytes that
 * cost @cost_ns by the model, wait until what is still queued costs at most
 * the --inflight time (default) or holds at most the --inflight bytes. A
 * program's own cache miss then waits behind that much of the prefetch at most,
 * not behind all of it: a blkio throttle, and most device queues, serve in
 * order. The device's progress is its sectors read (/sys/dev/block/MAJ:MIN/stat);
 * requests are taken as read in the order issued. Reads by others count as
 * ours, so this errs towards issuing more. If the device reads nothing for
 * 100 ms, what is left is taken as never to be read (pages that were cached
 * meanwhile, holes) and forgotten.
 */
static void inflight_wait(struct ctx *c, uint32_t dev, uint64_t len, uint64_t cost_ns)
{
	struct rqueue *rq = &c->queues[dev];
	uint64_t limit = c->o->inflight, limit_ns = c->o->queue_ns, done = 0;

	if (rq->statfd < 0)
		return;
	pthread_mutex_lock(&rq->lock);
	for (;;) {
		uint64_t rd = device_read_bytes(rq->statfd), now = now_monotonic_ns();
		struct timespec ts = { 0, 1000000 };
		bool room;

		if (rd == UINT64_MAX)
			break;
		if (!rq->started) {
			rq->started = true;
			rq->read0 = rd;
			rq->last_read = rd;
			rq->last_change = now;
		}
		done = rd - rq->read0;
		if (rd != rq->last_read) {
			rq->last_read = rd;
			rq->last_change = now;
		} else if (now - rq->last_change >= WAIT_REISSUE_NS / 2) {
			rq->issued = done;	/* the device went idle: nothing of ours is left */
			rq->head = rq->nmarks;
			rq->done_ns = rq->issued_ns;
		}
		while (rq->head < rq->nmarks && rq->marks[rq->head][0] <= done)
			rq->done_ns = rq->marks[rq->head++][1];
		if (limit)
			room = rq->issued <= done || rq->issued - done + len <= limit;
		else
			room = rq->issued_ns <= rq->done_ns ||
			       rq->issued_ns - rq->done_ns + cost_ns <= limit_ns;
		if (room || __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE))
			break;
		pthread_mutex_unlock(&rq->lock);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&rq->lock);
	}
	if (rq->issued < done)
		rq->issued = done;
	rq->issued += len;
	rq->issued_ns += cost_ns;
	if (rq->nmarks == rq->cap) {
		/* marks already read make room first */
		if (rq->head) {
			memmove(rq->marks, rq->marks + rq->head,
				(rq->nmarks - rq->head) * sizeof(*rq->marks));
			rq->nmarks -= rq->head;
			rq->head = 0;
		}
		if (rq->nmarks == rq->cap) {
			size_t nc = rq->cap ? rq->cap * 2 : 256;
			void *p = realloc(rq->marks, nc * sizeof(*rq->marks));

			if (p) {
				rq->marks = p;
				rq->cap = nc;
			}
		}
	}
	if (rq->nmarks < rq->cap) {
		rq->marks[rq->nmarks][0] = rq->issued;
		rq->marks[rq->nmarks++][1] = rq->issued_ns;
	} else {
		rq->done_ns = rq->issued_ns;	/* no memory: stop counting this one */
	}
	pthread_mutex_unlock(&rq->lock);
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

static void pace(struct ctx *c, uint64_t time_ns)
{
	struct timespec ts;
	uint64_t at;

	if (!c->o->lead_ns || time_ns <= c->o->lead_ns)
		return;
	at = c->t0 + time_ns - c->o->lead_ns;
	if (now_monotonic_ns() >= at)
		return;
	ts.tv_sec = (time_t)(at / 1000000000);
	ts.tv_nsec = (long)(at % 1000000000);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void do_request(struct ctx *c, size_t i)
{
	const struct sched_item *q = &c->req[i];
	struct robj *ob = &c->obj[q->obj];
	uint64_t len = q->len, have = 0, n;
	int fd = -1, r;

	if (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		add(&c->st.skipped_bytes, len);
		goto out;
	}
	pace(c, q->time_ns);
	fd = obj_get(c, q->obj);
	if (fd < 0) {
		add(&c->st.skipped_bytes, len);
		goto out;
	}
	/* past the end: a range recorded past it, or a file shorter now (--stale=read) */
	if (q->off >= ob->size) {
		add(&c->st.past_eof_bytes, len);
		goto out;
	}
	if (len > ob->size - q->off) {
		add(&c->st.past_eof_bytes, len - (ob->size - q->off));
		len = ob->size - q->off;
	}
	if (residency_bytes(fd, q->off, len, &n) == 0)
		have = n;
	add(&c->st.resident_bytes, have);
	if (have >= len) {
		c->done[i] = 1;
		goto out;
	}
	if (!budget(c, len - have)) {
		add(&c->st.skipped_bytes, len - have);
		goto out;
	}
	inflight_wait(c, q->dev, len - have, devmodel_cost(&c->devs[q->dev].model, len - have));
	r = issue(fd, q->off, len);
	if (r < 0) {
		char name[PATH_MAX + 64];

		add(&c->st.errors, 1);
		note_failure(c, -r);
		add(&c->st.skipped_bytes, len - have);
		if (!ob->warned) {
			ob->warned = true;
			if (q->obj < c->nfiles)
				file_name(c, q->obj, name, sizeof(name));
			else
				snprintf(name, sizeof(name), "block device %u:%u", ob->major,
					 ob->minor);
			log_warn("cannot read ahead '%s': %s, skipping", name, strerror(-r));
		}
		goto out;
	}
	add(&c->st.issued_bytes, len - have);
	add(&c->st.requests, 1);
	c->done[i] = 1;
out:
	obj_put(c, q->obj, fd, RELEASE_HANDLED);
}

/* I/O priority is per thread (without CLONE_IO): each thread that reads sets its own. */
static void set_ioprio(const struct ctx *c)
{
	if (c->o->ioprio >= 0 &&
	    syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, (int)gettid(), c->o->ioprio) < 0)
		log_debug("cannot set the I/O priority: %s", strerror(errno));
}

static void *worker(void *arg)
{
	struct ctx *c = arg;

	set_ioprio(c);
	for (;;) {
		size_t i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED);

		if (i >= c->nreq)
			break;
		do_request(c, i);
	}
	return NULL;
}

static int dispatch(struct ctx *c)
{
	unsigned jobs = c->o->jobs ? c->o->jobs : 1;
	pthread_t *th = NULL;
	unsigned started = 0;
	int r = 0;

	if (jobs > c->nreq)
		jobs = c->nreq ? (unsigned)c->nreq : 1;
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

/* ---- --wait ---- */

/* Read a range with pread(): what readahead() cannot bring up to date, a read does. */
static void read_through(int fd, uint64_t off, uint64_t len)
{
	size_t bufsize = 1u << 20;
	char *buf = malloc(bufsize);

	if (!buf)
		return;
	while (len) {
		size_t n = len < bufsize ? (size_t)len : bufsize;
		ssize_t got = pread(fd, buf, n, (off_t)off);

		if (got <= 0)
			break;
		off += (uint64_t)got;
		len -= (uint64_t)got;
	}
	free(buf);
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
static void wait_resident(struct ctx *c)
{
	uint64_t start = now_monotonic_ns(), deadline = start + REPLAY_WAIT_TIMEOUT_NS;
	struct wait_item *w = NULL;
	unsigned passes = 0;
	size_t k = 0;

	w = malloc((c->nreq ? c->nreq : 1) * sizeof(*w));
	if (!w)
		return;
again:
	for (size_t i = 0; i < c->nreq; i++)
		if (c->done[i])
			w[k++] = (struct wait_item){ .q = c->req[i], .changed = start, .asked = start };
	while (k) {
		uint64_t now = now_monotonic_ns();
		struct timespec ts = { 0, 2000000 };
		size_t m = 0;

		for (size_t i = 0; i < k; i++) {
			struct wait_item *it = &w[i];
			const struct sched_item *q = &it->q;
			uint64_t len = q->len, size, up, present;
			int rp;
			int fd = obj_get(c, q->obj);
			bool keep = false;

			if (fd < 0)
				continue;
			size = c->obj[q->obj].size;
			if (q->off >= size)
				goto next;
			if (len > size - q->off)
				len = size - q->off;
			if (residency_uptodate(fd, q->off, len, &up) < 0 || up >= len)
				goto next;
			if (now >= deadline) {
				add(&c->st.unresident_bytes, len - up);
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
					(void)issue(fd, q->off, len);
					it->asked = now;
				}
			} else if (now - it->changed >= 5 * WAIT_REISSUE_NS) {
				read_through(fd, q->off, len);
				it->changed = now_monotonic_ns();
			}
			keep = true;
next:
			obj_put(c, q->obj, fd, RELEASE_KEEP);
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

/* ---- set-up ---- */

static int setup_fs(struct ctx *c)
{
	struct mount_table tab = { 0 };
	bool have_tab = false;
	int rootfd = -1, root_err = 0, r;

	c->nfs = ura_pack_fs_count(c->pack);
	c->fs = calloc(c->nfs ? c->nfs : 1, sizeof(*c->fs));
	if (!c->fs)
		return -ENOMEM;
	if (c->o->root && !c->o->dry_run) {
		rootfd = open(c->o->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		root_err = errno;
	}
	if (!c->o->root && !c->o->dry_run) {
		r = mountinfo_read("/proc/self/mountinfo", &tab);
		if (r < 0)
			log_warn("cannot read '/proc/self/mountinfo': %s, using the pack's mount points",
				 strerror(-r));
		else
			have_tab = true;
	}
	for (size_t i = 0; i < c->nfs; i++) {
		struct rfs *fs = &c->fs[i];
		const struct mount_entry *e = NULL;
		struct ura_pack_fs pf;

		fs->dirfd = -1;
		if (ura_pack_get_fs(c->pack, i, &pf) < 0)
			continue;
		if (c->o->dry_run) {
			r = dev_slot(c, pf.major, pf.minor, &fs->dev);
			if (r < 0)
				goto out;
			continue;
		}
		if (c->o->root)
			fs->dir = path_join(c->o->root, pf.mount_point);
		else if (have_tab && (e = mountinfo_find_dev_at(&tab, pf.major, pf.minor, pf.mount_point)))
			fs->dir = strdup(e->mount_point);
		else
			fs->dir = strdup(pf.mount_point);
		if (!fs->dir) {
			r = -ENOMEM;
			goto out;
		}
		if (c->o->root) {
			/* no symlink inside the root may lead out of it */
			fs->dirfd = rootfd < 0 ? -root_err : safeopen_in_root(rootfd, pf.mount_point, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fs->dirfd < 0) {
				errno = -fs->dirfd;
				fs->dirfd = -1;
			}
		} else {
			fs->dirfd = open(fs->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		}
		if (fs->dirfd < 0 && e && strcmp(fs->dir, pf.mount_point) != 0) {
			/*
			 * The mount found by device number is not a usable directory
			 * (a file bind mount, as /run/host/os-release in a container):
			 * try the recorded mount point, if it is that filesystem.
			 */
			struct stat st;
			int fd = open(pf.mount_point, O_PATH | O_DIRECTORY | O_CLOEXEC);

			if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == makedev(pf.major, pf.minor)) {
				log_debug("filesystem %u:%u: '%s' is not a directory, using '%s'",
					  pf.major, pf.minor, fs->dir, pf.mount_point);
				free(fs->dir);
				fs->dir = strdup(pf.mount_point);
				fs->dirfd = fd;
				fd = -1;
				if (!fs->dir) {
					r = -ENOMEM;
					goto out;
				}
			}
			if (fd >= 0)
				close(fd);
		}
		/*
		 * The device the files are on now (--root, device numbers that
		 * changed since the trace): its cost model and its queue.
		 */
		{
			struct stat st;
			unsigned maj = pf.major, min = pf.minor;

			if (fs->dirfd >= 0 && fstat(fs->dirfd, &st) == 0) {
				maj = major(st.st_dev);
				min = minor(st.st_dev);
			}
			r = dev_slot(c, maj, min, &fs->dev);
			if (r < 0)
				goto out;
			if (fs->dirfd >= 0)
				c->devs[fs->dev].has_files = true;
		}
		if (fs->dirfd < 0) {
			log_info("filesystem %u:%u is not at '%s' (%s), skipping its files",
				 pf.major, pf.minor, fs->dir, strerror(errno));
			continue;
		}
		if (!c->o->root && !e)
			log_debug("filesystem %u:%u is not mounted, trying its old mount point '%s'",
				  pf.major, pf.minor, fs->dir);
	}
	r = 0;
out:
	if (rootfd >= 0)
		close(rootfd);
	if (have_tab)
		mountinfo_free(&tab);
	return r;
}

static uint32_t bdev_obj(struct ctx *c, unsigned major, unsigned minor)
{
	size_t k;

	for (k = 0; k < c->nbdev; k++)
		if (c->obj[c->nfiles + k].major == major && c->obj[c->nfiles + k].minor == minor)
			break;
	if (k == c->nbdev) {
		c->obj[c->nfiles + k].major = major;
		c->obj[c->nfiles + k].minor = minor;
		c->nbdev++;
	}
	return (uint32_t)(c->nfiles + k);
}

/*
 * Item @n was just filled in: merge it into the one before when the plan
 * would (a run of nearby ranges of one file then costs one item, not one
 * each: a pack may hold 10^7 ranges). Return: the count of items now.
 */
static size_t add_item(struct ctx *c, size_t n)
{
	struct sched_item *it = &c->req[n];

	if (n && sched_can_merge(&c->req[n - 1], it, &c->devs[it->dev])) {
		sched_merge(&c->req[n - 1], it);
		return n;
	}
	return n + 1;
}

struct file_key {
	uint64_t ino;
	uint32_t fs;
	uint32_t idx;
};

static int cmp_file_key(const void *a, const void *b)
{
	const struct file_key *x = a, *y = b;

	if (x->fs != y->fs)
		return x->fs < y->fs ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * A file listed twice in the pack (same filesystem, inode and path) is one
 * object: its ranges are then merged, and no page is read twice by two
 * workers that each found it missing. Fills @canon with the first index of each
 * file's copies. Return: 0 or -ENOMEM.
 */
static int dedup_files(struct ctx *c, uint32_t *canon)
{
	struct file_key *k = malloc((c->nfiles ? c->nfiles : 1) * sizeof(*k));
	struct ura_pack_file f, g;

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < c->nfiles; i++) {
		canon[i] = (uint32_t)i;
		if (ura_pack_get_file(c->pack, i, &f) < 0)
			f = (struct ura_pack_file){ .fs_index = UINT32_MAX };
		k[i] = (struct file_key){ .ino = f.ino, .fs = f.fs_index, .idx = (uint32_t)i };
	}
	qsort(k, c->nfiles, sizeof(*k), cmp_file_key);
	for (size_t i = 1, r = 0; i < c->nfiles; i++) {
		if (k[i].fs != k[r].fs || k[i].ino != k[r].ino) {
			r = i;
			continue;
		}
		if (ura_pack_get_file(c->pack, k[r].idx, &f) == 0 &&
		    ura_pack_get_file(c->pack, k[i].idx, &g) == 0 && f.path_len == g.path_len &&
		    memcmp(f.path, g.path, f.path_len) == 0)
			canon[k[i].idx] = k[r].idx;
	}
	free(k);
	return 0;
}

/*
 * Fault-around: a page fault on a file mapping maps the cached pages of the
 * aligned 64 KiB around it (the kernel's fault_around_bytes) without a fault
 * for each, so a trace made with the pages cached around (read_ahead_kb left
 * as it was) cannot tell which of them the program used: a third of the pages
 * a large program used were such (a clang start). The plan reads the
 * speculative pages in every such window that holds a demanded page, at the
 * window's first demanded access. A trace made with --cold has no speculative
 * pages: nothing changes for it.
 */
#define FAULT_AROUND_PAGES	16u

struct window {
	uint64_t win;		/* window number in the file */
	uint32_t file;
	uint64_t time_ns;	/* the first access of a demanded page in it */
};

static int cmp_window(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->win != y->win)
		return x->win < y->win ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

static bool same_window(const struct window *a, uint32_t file, uint64_t win)
{
	return a->file == file && a->win == win;
}

/* The windows of demanded pages, sorted, one per key with its earliest time. */
static int demanded_windows(const struct ctx *c, const uint32_t *canon, struct window **ret,
			    size_t *ret_n)
{
	size_t nr = ura_pack_range_count(c->pack), n = 0, cap = 0, k = 0;
	struct window *w = NULL;
	struct ura_pack_range rg;

	for (size_t i = 0; ura_pack_get_range(c->pack, i, &rg) == 0 && i < nr; i++) {
		uint64_t first, last;

		if (!(rg.flags & URA_PACK_RANGE_DEMANDED) || !rg.page_count)
			continue;
		first = rg.first_page / FAULT_AROUND_PAGES;
		last = (rg.first_page + rg.page_count - 1) / FAULT_AROUND_PAGES;
		/* a long demanded range needs only its two ends' windows */
		for (uint64_t x = first; x <= last; x = x == first && last > first + 1 ? last : x + 1) {
			uint32_t fi = canon[rg.file_index];

			if (n && same_window(&w[n - 1], fi, x))
				continue;	/* ranges in page order share windows: one will do */
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 1024;
				void *p = realloc(w, nc * sizeof(*w));

				if (!p) {
					free(w);
					return -ENOMEM;
				}
				w = p;
				cap = nc;
			}
			w[n++] = (struct window){ .win = x, .file = fi, .time_ns = rg.first_access_ns };
		}
	}
	if (n)
		qsort(w, n, sizeof(*w), cmp_window);
	for (size_t i = 0; i < n; i++)		/* keep the first (earliest) of each window */
		if (!k || !same_window(&w[k - 1], w[i].file, w[i].win))
			w[k++] = w[i];
	*ret = w;
	*ret_n = k;
	return 0;
}

static const struct window *find_window(const struct window *w, size_t n, uint32_t file,
				       uint64_t win)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w[mid].file < file || (w[mid].file == file && w[mid].win < win))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && same_window(&w[lo], file, win) ? &w[lo] : NULL;
}

/* Has the pack speculative ranges? (A trace made with --cold has none.) */
static bool any_speculative(const struct ura_pack *pack)
{
	struct ura_pack_range rg;

	for (size_t i = 0; ura_pack_get_range(pack, i, &rg) == 0; i++)
		if (!(rg.flags & URA_PACK_RANGE_DEMANDED))
			return true;
	return false;
}

/* Room for item @n in c->req (which has room for @cap items now); 0 or -ENOMEM. */
static int reserve_item(struct ctx *c, size_t n, size_t *cap)
{
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(c->req, (*cap * 2 + 16) * sizeof(*c->req));
	if (!p)
		return -ENOMEM;
	c->req = p;
	*cap = *cap * 2 + 16;
	return 0;
}

/*
 * The parts of speculative range @rg of file @fi that lie in windows of
 * demanded pages, as items at those windows' times; 0 or -ENOMEM.
 */
static int add_fault_around(struct ctx *c, const struct ura_pack_range *rg, uint32_t fi,
			    uint32_t dev, const struct window *w, size_t nw, size_t *n,
			    size_t *cap)
{
	uint64_t end = rg->first_page + rg->page_count;

	for (uint64_t pg = rg->first_page; pg < end;) {
		uint64_t wend = (pg / FAULT_AROUND_PAGES + 1) * FAULT_AROUND_PAGES;
		const struct window *hit = find_window(w, nw, fi, pg / FAULT_AROUND_PAGES);

		if (wend > end)
			wend = end;
		if (hit) {
			if (reserve_item(c, *n, cap) < 0)
				return -ENOMEM;
			c->req[*n] = (struct sched_item){
				.off = pg * URA_PACK_PAGE_SIZE,
				.len = (wend - pg) * URA_PACK_PAGE_SIZE,
				.time_ns = hit->time_ns,
				.obj = fi,
				.dev = dev,
			};
			if (!c->obj[fi].pending++)
				c->st.files++;
			*n = add_item(c, *n);
		}
		pg = wend;
	}
	return 0;
}

/* The pack's selected ranges and metadata ranges, merged into first-access order. */
static int build_items(struct ctx *c)
{
	size_t nr = ura_pack_range_count(c->pack), nm = ura_pack_meta_count(c->pack);
	size_t ir = 0, im = 0, n = 0, cap = nr + nm + 1, nw = 0;
	uint32_t *file_dev = NULL, *canon = NULL;
	uint64_t *file_pages = NULL;
	struct window *win = NULL;
	struct ura_pack_range rg;
	struct ura_pack_meta m;
	bool have_r, have_m;
	int r = -ENOMEM;
	void *p;

	c->nfiles = ura_pack_file_count(c->pack);
	/* metadata objects: at most one per metadata range */
	c->obj = calloc(c->nfiles + nm + 1, sizeof(*c->obj));
	c->req = malloc((nr + nm + 1) * sizeof(*c->req));
	file_dev = malloc((c->nfiles + 1) * sizeof(*file_dev));
	file_pages = malloc((c->nfiles + 1) * sizeof(*file_pages));
	canon = malloc((c->nfiles + 1) * sizeof(*canon));
	if (!c->obj || !c->req || !file_dev || !file_pages || !canon || dedup_files(c, canon) < 0)
		goto out;
	for (size_t i = 0; i < c->nfiles + nm + 1; i++)
		c->obj[i].fd = -1;
	for (size_t i = 0; i < c->nfiles; i++) {
		struct ura_pack_file f;

		if (ura_pack_get_file(c->pack, i, &f) < 0 || f.fs_index >= c->nfs) {
			r = -EINVAL;
			goto out;
		}
		file_dev[i] = c->fs[f.fs_index].dev;
		/* a file may have grown since (then it is stale, and maybe read anyway) */
		file_pages[i] = (f.size > UINT64_MAX / 2 ? UINT64_MAX / 2 : f.size) / URA_PACK_PAGE_SIZE + 1 +
				REPLAY_PAST_SIZE / URA_PACK_PAGE_SIZE;
	}
	if (!c->o->all && any_speculative(c->pack) && demanded_windows(c, canon, &win, &nw) < 0)
		goto out;
	have_r = ura_pack_get_range(c->pack, ir, &rg) == 0;
	have_m = ura_pack_get_meta(c->pack, im, &m) == 0;
	while (have_r || have_m) {
		struct sched_item *it;

		r = reserve_item(c, n, &cap);
		if (r < 0)
			goto out;
		it = &c->req[n];
		if (have_r && (!have_m || rg.first_access_ns <= m.first_access_ns)) {
			if (c->o->all || (rg.flags & URA_PACK_RANGE_DEMANDED)) {
				uint32_t fi = canon[rg.file_index];
				uint64_t lim = file_pages[rg.file_index], cut;

				/*
				 * Far past the size the pack recorded, the file is past its
				 * end now or changed: count, don't plan, so that a hostile
				 * range of 2^32 pages costs nothing.
				 */
				cut = rg.first_page >= lim ? rg.page_count :
				      rg.first_page + rg.page_count > lim ?
				      rg.first_page + rg.page_count - lim : 0;
				c->clipped_bytes += cut * URA_PACK_PAGE_SIZE;
				rg.page_count -= (uint32_t)cut;
				if (!rg.page_count) {
					have_r = ura_pack_get_range(c->pack, ++ir, &rg) == 0;
					continue;
				}
				*it = (struct sched_item){
					.off = rg.first_page * URA_PACK_PAGE_SIZE,
					.len = (uint64_t)rg.page_count * URA_PACK_PAGE_SIZE,
					.time_ns = rg.first_access_ns,
					.obj = fi,
					.dev = file_dev[fi],
				};
				if (!c->obj[fi].pending++)
					c->st.files++;
				n = add_item(c, n);
			} else if (nw && rg.first_page < file_pages[rg.file_index]) {
				uint32_t fi = canon[rg.file_index];

				if (rg.first_page + rg.page_count > file_pages[rg.file_index])
					rg.page_count = (uint32_t)(file_pages[rg.file_index] -
								   rg.first_page);
				r = add_fault_around(c, &rg, fi, file_dev[fi], win, nw, &n, &cap);
				if (r < 0)
					goto out;
			}
			have_r = ura_pack_get_range(c->pack, ++ir, &rg) == 0;
		} else {
			uint32_t o = bdev_obj(c, m.major, m.minor);

			uint64_t size, len = m.length;

			r = dev_slot(c, m.major, m.minor, &it->dev);
			if (r < 0)
				goto out;
			/* as for files: past the device's end, count, don't plan */
			size = c->devs[it->dev].size;
			if (size) {
				uint64_t cut = m.offset >= size ? len :
					       len > size - m.offset ? len - (size - m.offset) : 0;

				c->clipped_bytes += cut;
				len -= cut;
			} else if (len > REPLAY_META_MAX) {
				len = REPLAY_META_MAX;	/* no such device: its reads will fail */
			}
			*it = (struct sched_item){
				.off = m.offset,
				.len = len,
				.time_ns = m.first_access_ns,
				.obj = o,
				.dev = it->dev,
			};
			if (len)
				n = add_item(c, n);
			have_m = ura_pack_get_meta(c->pack, ++im, &m) == 0;
		}
	}
	c->nobj = c->nfiles + c->nbdev;
	c->nreq = n;
	p = realloc(c->req, (n ? n : 1) * sizeof(*c->req));	/* give back what merging saved */
	if (p)
		c->req = p;
	r = 0;
out:
	free(win);
	free(canon);
	free(file_pages);
	free(file_dev);
	return r;
}

/* Open the block devices that hold metadata, by number. */
static void setup_bdevs(struct ctx *c)
{
	for (size_t k = 0; k < c->nbdev; k++) {
		struct robj *ob = &c->obj[c->nfiles + k];
		int fd = blockdev_open(ob->major, ob->minor);
		uint64_t size = 0;

		ob->fd = -1;
		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0) {
			log_info("cannot open block device %u:%u: %s, skipping its metadata",
				 ob->major, ob->minor, strerror(fd < 0 ? -fd : errno));
			if (fd >= 0)
				close(fd);
			ob->state = OBJ_MISSING;
			continue;
		}
		ob->fd = fd;
		ob->size = size;
		ob->state = OBJ_OK;
	}
}

/* FIEMAP: where the request starts on the disk, for rotational order. */
static uint64_t physical(int fd, uint64_t off, uint64_t len)
{
	/* a struct fiemap followed by room for one extent, 8-aligned */
	uint64_t buf[(sizeof(struct fiemap) + sizeof(struct fiemap_extent)) / 8 + 1];
	struct fiemap *fm = (struct fiemap *)buf;
	const struct fiemap_extent *e = &fm->fm_extents[0];

	memset(buf, 0, sizeof(buf));
	fm->fm_start = off;
	fm->fm_length = len;
	fm->fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0 || !fm->fm_mapped_extents)
		return UINT64_MAX;
	return e->fe_physical + (off > e->fe_logical ? off - e->fe_logical : 0);
}

static bool any_rotational(const struct ctx *c)
{
	for (size_t d = 0; d < c->ndev; d++)
		if (c->devs[d].rotational)
			return true;
	return false;
}

/*
 * Metadata before file data, within each time bin of @bin_ns (UINT64_MAX: the
 * whole pack), keeping each kind's order. Opening a file reads its inode and
 * directories: if that happens before the metadata ranges are issued, the
 * filesystem reads them itself, block by block (ext4's inode table readahead
 * sends one 4 KiB bio per block), instead of in our large requests.
 * Return: the number of metadata requests in the first bin.
 */
static size_t meta_first(struct ctx *c, uint64_t bin_ns)
{
	struct sched_item *tmp = NULL, *q = c->req;
	size_t i = 0, first = 0, nmeta = 0;

	for (size_t x = 0; x < c->nreq; x++)
		nmeta += q[x].obj >= c->nfiles;
	if (!nmeta)
		return 0;
	/* room for the metadata requests only: the file data is moved within the array */
	tmp = malloc(nmeta * sizeof(*tmp));
	if (!tmp)
		return 0;	/* keep first-access order */
	while (i < c->nreq) {
		uint64_t bin = bin_ns == UINT64_MAX ? 0 : q[i].time_ns / bin_ns;
		size_t j = i, k = i, nm = 0;

		while (j < c->nreq && (bin_ns == UINT64_MAX || q[j].time_ns / bin_ns == bin))
			j++;
		/* a stable partition of [i, j): metadata aside, file data packed forward */
		for (size_t x = i; x < j; x++) {
			if (q[x].obj >= c->nfiles)
				tmp[nm++] = q[x];
			else
				q[k++] = q[x];
		}
		memmove(q + i + nm, q + i, (k - i) * sizeof(*q));
		memcpy(q + i, tmp, nm * sizeof(*q));
		if (i == 0)
			first = nm;
		i = j;
	}
	free(tmp);
	return first;
}

/*
 * Physical order within time bins where a disk is rotational. One FIEMAP per
 * file: its first extent stands for the whole file, which on a filesystem that
 * allocates in extents is close enough to order requests.
 */
static int order_rotational(struct ctx *c, size_t from)
{
	uint64_t *base = NULL;

	if (!any_rotational(c))
		return 0;
	base = malloc((c->nfiles ? c->nfiles : 1) * sizeof(*base));
	if (!base)
		return -ENOMEM;
	for (size_t i = 0; i < c->nfiles; i++)
		base[i] = UINT64_MAX;
	for (size_t i = from; i < c->nreq; i++) {
		struct sched_item *q = &c->req[i];

		if (!c->devs[q->dev].rotational || c->o->dry_run) {
			q->phys = 0;
		} else if (q->obj >= c->nfiles) {
			q->phys = q->off;
		} else {
			if (base[q->obj] == UINT64_MAX) {
				int fd = obj_get(c, q->obj);

				base[q->obj] = fd >= 0 ? physical(fd, 0, 1) : UINT64_MAX - 1;
				obj_put(c, q->obj, fd, RELEASE_KEEP);
			}
			q->phys = base[q->obj] >= UINT64_MAX - 1 ? UINT64_MAX : base[q->obj] + q->off;
		}
	}
	free(base);
	return sched_order_physical(c->req + from, c->nreq - from, REPLAY_DEFAULT_BIN_NS);
}

static void ctx_free(struct ctx *c)
{
	for (size_t i = 0; c->obj && i < c->nobj; i++)
		if (c->obj[i].fd >= 0)
			close(c->obj[i].fd);
	for (size_t i = 0; c->fs && i < c->nfs; i++) {
		if (c->fs[i].dirfd >= 0)
			close(c->fs[i].dirfd);
		free(c->fs[i].dir);
	}
	for (int i = 0; i < NLOCKS; i++)
		pthread_mutex_destroy(&c->locks[i]);
	pthread_mutex_destroy(&c->mem_lock);
	free(c->fs);
	free(c->obj);
	close_queues(c);
	free(c->devs);
	free(c->devnum);
	free(c->req);
	free(c->done);
}

/*
 * Raise the soft file limit to the hard one (systemd gives services 1024 of
 * 524288) and return how many files the replay may hold open at once: the
 * limit, less room for the pack, the block devices, sysfs and stdio.
 */
static size_t raise_nofile(unsigned jobs)
{
	struct rlimit rl;
	rlim_t reserve;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 64;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t want = rl.rlim_max;

		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20))
		rl.rlim_cur = 1u << 20;
	/* each worker holds up to two more while it opens a file */
	reserve = REPLAY_FD_RESERVE + 2 * (rlim_t)jobs;
	return rl.rlim_cur > 2 * reserve ? (size_t)(rl.rlim_cur - reserve) :
	       rl.rlim_cur > 16 ? (size_t)rl.rlim_cur / 2 : 4;
}

int replay_run(const struct ura_pack *pack, const struct replay_options *o,
	       struct replay_stats *ret)
{
	struct ctx c = { .pack = pack, .o = o };
	uint64_t start = now_monotonic_ns(), total = 0, avail;
	size_t nmeta;
	bool rot;
	int r;

	for (int i = 0; i < NLOCKS; i++)
		pthread_mutex_init(&c.locks[i], NULL);
	pthread_mutex_init(&c.mem_lock, NULL);
	r = setup_fs(&c);
	if (r < 0)
		goto out;
	r = setup_models(&c);
	if (r < 0)
		goto out;
	r = build_items(&c);
	if (r < 0)
		goto out;
	r = sched_build(&c.req, c.nreq, (uint32_t)c.nobj, c.devs, c.ndev, &c.nreq);
	if (r < 0)
		goto out;
	/* what the replay sets out to read: overlaps once, merged holes included */
	c.st.pack_bytes = c.st.past_eof_bytes = c.clipped_bytes;
	for (size_t i = 0; i < c.nreq; i++) {
		const struct sched_item *q = &c.req[i];
		uint64_t cost = devmodel_cost(&c.devs[q->dev].model, q->len);

		c.st.pack_bytes += q->len;
		c.st.plan_ns += cost;
		for (unsigned d = 0; d < c.st.ndevs; d++)
			if (c.st.devs[d].major == c.devnum[q->dev][0] &&
			    c.st.devs[d].minor == c.devnum[q->dev][1]) {
				c.st.devs[d].plan_requests++;
				c.st.devs[d].plan_bytes += q->len;
				c.st.devs[d].plan_ns += cost;
			}
	}
	for (unsigned d = 0; d < c.st.ndevs; d++)
		for (size_t k = 0; k < c.ndev; k++)
			if (c.st.devs[d].major == c.devnum[k][0] && c.st.devs[d].minor == c.devnum[k][1]) {
				c.st.devs[d].cold_requests = c.devs[k].cold_requests;
				if (c.devs[k].penalty_ns)
					log_debug("device %u:%u: more requests than a cold start's %zu "
						  "at least cost: %.0f us more on each",
						  c.devnum[k][0], c.devnum[k][1], c.devs[k].cold_requests,
						  (double)c.devs[k].penalty_ns / 1e3);
			}
	c.done = calloc(c.nreq ? c.nreq : 1, 1);
	if (!c.done) {
		r = -ENOMEM;
		goto out;
	}
	/* each file is closed after its last request: count them again, per chunk */
	for (size_t i = 0; i < c.nobj; i++)
		c.obj[i].pending = 0;
	for (size_t i = 0; i < c.nreq; i++)
		c.obj[c.req[i].obj].pending++;
	/*
	 * Metadata first. Rotational order needs every file open (FIEMAP) before
	 * the first read: then all metadata goes first, issued right here.
	 */
	rot = any_rotational(&c);
	nmeta = meta_first(&c, UINT64_MAX);
	if (!rot)
		nmeta = 0;
	if (o->dry_run) {
		r = order_rotational(&c, nmeta);
		if (r < 0)
			goto out;
		c.st.requests = c.nreq;
		if (log_get_level() >= LOG_LVL_DEBUG)
			for (size_t i = 0; i < c.nreq; i++) {
				const struct sched_item *q = &c.req[i];
				char name[PATH_MAX + 64];

				if (q->obj < c.nfiles) {
					struct ura_pack_file f;

					if (ura_pack_get_file(pack, q->obj, &f) < 0)
						continue;
					snprintf(name, sizeof(name), "%u:%u '%s'",
						 c.devnum[q->dev][0], c.devnum[q->dev][1], f.path);
				} else {
					snprintf(name, sizeof(name), "block device %u:%u",
						 c.obj[q->obj].major, c.obj[q->obj].minor);
				}
				log_debug("request %zu: %s offset %" PRIu64 " length %" PRIu64
					  " at %.6f s", i, name, q->off, q->len,
					  (double)q->time_ns / 1e9);
			}
		goto done;
	}
	c.fd_cap = raise_nofile(o->jobs);
	avail = mem_available(&total);
	c.mem_floor = o->min_available ? o->min_available : total / 100 * o->min_available_pct;
	log_debug("%zu requests on %zu devices; MemAvailable %" PRIu64 " MiB, floor %" PRIu64
		  " MiB", c.nreq, c.ndev, avail >> 20, c.mem_floor >> 20);
	setup_bdevs(&c);
	r = open_queues(&c);
	if (r < 0)
		goto out;
	if (nmeta) {
		c.t0 = now_monotonic_ns();
		set_ioprio(&c);
		for (; c.next < nmeta; c.next++)
			do_request(&c, c.next);
	}
	r = order_rotational(&c, nmeta);
	if (r < 0)
		goto out;
	r = dispatch(&c);
	if (r < 0)
		goto out;
	if (o->wait) {
		set_ioprio(&c);		/* the waiting thread may read too */
		wait_resident(&c);
	}
done:
	r = 0;
out:
	c.st.ns = now_monotonic_ns() - start;
	*ret = c.st;
	ctx_free(&c);
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

/* ---- report ---- */

void replay_report(FILE *f, const struct replay_stats *s, bool json)
{
	double sec = (double)s->ns / 1e9, mib = (double)(1 << 20);
	double rate = sec > 0 ? (double)s->issued_bytes / mib / sec : 0;

	if (json) {
		fprintf(f, "{\"pack_bytes\":%" PRIu64 ",\"resident_bytes\":%" PRIu64
			",\"issued_bytes\":%" PRIu64 ",\"skipped_bytes\":%" PRIu64
			",\"past_eof_bytes\":%" PRIu64 ",\"unresident_bytes\":%" PRIu64 ",\"requests\":%" PRIu64
			",\"files\":%" PRIu64 ",\"stale_files\":%" PRIu64
			",\"missing_files\":%" PRIu64 ",\"refused_files\":%" PRIu64
			",\"errors\":%" PRIu64 ",\"memory_limited\":%s,\"max_bytes_reached\":%s"
			",\"seconds\":%.3f,\"mib_per_second\":%.1f,\"plan_seconds\":%.3f",
			s->pack_bytes, s->resident_bytes, s->issued_bytes, s->skipped_bytes,
			s->past_eof_bytes, s->unresident_bytes, s->requests, s->files, s->stale_files,
			s->missing_files, s->refused_files, s->errors,
			s->memory_limited ? "true" : "false",
			s->max_bytes_reached ? "true" : "false", sec, rate, (double)s->plan_ns / 1e9);
		fputs(",\"failures\":[", f);
		for (unsigned i = 0; i < s->ncauses; i++) {
			fprintf(f, "%s{\"error\":", i ? "," : "");
			json_string(f, strerror(s->causes[i].err));
			fprintf(f, ",\"count\":%" PRIu64 "}", s->causes[i].count);
		}
		fputs("],\"devices\":[", f);
		for (unsigned i = 0; i < s->ndevs; i++) {
			const struct replay_dev_report *d = &s->devs[i];

			fprintf(f, "%s{\"device\":\"%u:%u\",\"model\":\"%s\",\"request_us\":%.1f"
				",\"bandwidth\":%" PRIu64 ",\"rotational\":%s,\"requests\":%" PRIu64
				",\"bytes\":%" PRIu64 ",\"plan_seconds\":%.3f,\"cold_requests\":%" PRIu64
				"}", i ? "," : "",
				d->major, d->minor, devmodel_source_name(d->source),
				(double)d->request_ns / 1e3, d->bandwidth,
				d->rotational ? "true" : "false", d->plan_requests, d->plan_bytes,
				(double)d->plan_ns / 1e9, d->cold_requests);
		}
		fputs("]}\n", f);
		return;
	}
	fprintf(f, "pack %.1f MiB, resident %.1f MiB, issued %.1f MiB in %" PRIu64 " requests, "
		"skipped %.1f MiB, past the end %.1f MiB, %" PRIu64 " files: %" PRIu64 " stale, %" PRIu64 " missing, %" PRIu64 " refused; "
		"%" PRIu64 " errors; %.3f s, %.1f MiB/s%s%s%s\n",
		(double)s->pack_bytes / mib, (double)s->resident_bytes / mib,
		(double)s->issued_bytes / mib, s->requests, (double)s->skipped_bytes / mib,
		(double)s->past_eof_bytes / mib, s->files, s->stale_files,
		s->missing_files, s->refused_files, s->errors, sec, rate,
		s->memory_limited ? "; stopped at the MemAvailable floor" : "",
		s->max_bytes_reached ? "; stopped at --max-bytes" : "",
		s->unresident_bytes ? "; some pages not resident" : "");
}

/* ---- --daemon ---- */

int replay_detach(void)
{
	int p[2], fd;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid > 0) {
		unsigned char status;
		ssize_t n;

		close(p[1]);
		do
			n = read(p[0], &status, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 ? status : EXIT_FAIL);
	}
	close(p[0]);
	(void)setsid();
	if (chdir("/") < 0)
		log_debug("cannot change to '/': %s", strerror(errno));
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	return p[1];
}

void replay_detach_done(int fd, int status)
{
	unsigned char b = (unsigned char)status;

	if (fd < 0)
		return;
	while (write(fd, &b, 1) < 0 && errno == EINTR)
		;
	close(fd);
}
