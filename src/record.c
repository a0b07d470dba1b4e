// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-trace's glue: run and trace a command or the system, turn the events into a pack */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include <ura/pack.h>

#include "blockdev.h"
#include "log.h"
#include "mountinfo.h"
#include "pageset.h"
#include "record.h"
#include "resolve.h"
#include "tracer.h"
#include "util.h"

#define MIB			(1024.0 * 1024.0)
#define POLL_MS			100
#define READER_NICE		10	/* nice value while reading the trace */
#define RUN_STATE_DIR		"/run/ura"
#define FAULT_AROUND_PAGES	16	/* default fault_around_bytes / PAGE_SIZE */
#define PF_TABLE_SIZE		4096	/* last fault address per pid, direct-mapped */
#define RESOLVE_METHODS		(RESOLVE_HANDLE | RESOLVE_WALK)
#define REUSE_SLACK_NS		(10ll * 1000 * 1000)	/* clock skew allowed in that check */

/* Kernel dev_t (as in tracepoints): major << 20 | minor. */
#define KDEV_MAJOR(d)		((unsigned)((d) >> 20))
#define KDEV_MINOR(d)		((unsigned)((d) & 0xfffff))

struct fields {
	struct tep_format_field *dev, *ino, *index, *last, *order, *address, *ip, *error_code;
};

struct pf_slot {
	int pid;
	uint64_t page;		/* faulting user address >> 12 */
	uint64_t ts;
};

struct recorder {
	struct tep_handle *tep;
	int ids[TRACER_NR_EVENTS];
	struct fields f[TRACER_NR_EVENTS];
	struct tep_format_field *common_pid;
	struct pageset *ps;
	uint64_t t0;			/* record time that is 0 in the pack */
	int64_t t0_real;		/* t0 on the wall clock, 0 if unknown */
	bool t0_from_first;		/* --input: the first record sets t0 */
	uint64_t last_ts;		/* latest record time */
	uint64_t last_add_ts;		/* latest add event time */
	uint64_t events, counts[TRACER_NR_EVENTS], added_pages;
	uint64_t mm_faults, mm_fault_ns;
	struct tep_format_field *fg_func, *fg_calltime, *fg_rettime;
	struct pf_slot *pf;		/* PF_TABLE_SIZE slots */
	FILE *dump;			/* URA_TRACE_EVENTS: decoded events, for analysis */
	int error;
};

/* A device whose read_ahead_kb we changed. */
struct ra_saved {
	unsigned major, minor, old_kb;
};

struct ra_state {
	struct ra_saved *devs;
	size_t n;
	unsigned kb;			/* the value forced */
	bool restored;
	char path[PATH_MAX];
};

/* ---- events ---- */

static void recorder_bind(struct recorder *r, struct tep_handle *tep)
{
	r->tep = tep;
	for (int i = 0; i < TRACER_NR_EVENTS; i++) {
		const char *system, *name;
		struct tep_event *ev;

		tracer_event_names((enum tracer_event)i, &system, &name);
		ev = tep_find_event_by_name(tep, system, name);
		r->ids[i] = ev ? ev->id : -1;
		if (!ev)
			continue;
		r->f[i].dev = tep_find_field(ev, "s_dev");
		r->f[i].ino = tep_find_field(ev, "i_ino");
		r->f[i].index = tep_find_field(ev, "index");
		r->f[i].last = tep_find_field(ev, "last_index");
		r->f[i].order = tep_find_field(ev, "order");
		r->f[i].address = tep_find_field(ev, "address");
		r->f[i].ip = tep_find_field(ev, "ip");
		r->f[i].error_code = tep_find_field(ev, "error_code");
		if (!r->common_pid)
			r->common_pid = tep_find_common_field(ev, "common_pid");
	}
}

static uint64_t field_u64(const struct tep_format_field *f, const struct tep_record *rec)
{
	unsigned long long v = 0;

	if (!f || tep_read_number_field((struct tep_format_field *)f, rec->data, &v) < 0)
		return 0;
	return v;
}

static uint64_t rel_time(struct recorder *r, uint64_t ts)
{
	if (r->t0_from_first) {
		r->t0 = ts;
		r->t0_from_first = false;
	}
	if (ts > r->last_ts)
		r->last_ts = ts;
	return ts > r->t0 ? ts - r->t0 : 0;
}

/*
 * A fault-around window [first, last] maps every cached page of 16 aligned
 * virtual pages, touched or not: as evidence of use it over-reports (on a
 * Python start here, whole windows made the demanded set 1.5 times the true
 * demand, 2 times on a gcc run). The user fault that led to the window (the
 * page_fault_user just before, same pid) names the page really touched: its
 * offset in the window is its virtual page number modulo the window size,
 * unless the window was clipped at the start of the mapping (then the page
 * computed may lie past the window, and is ignored). The other pages of the
 * window are touched about half the time, whatever their position, so pages
 * within FAULT_NEAR_PAGES of the touched one count as demanded and the rest
 * as weak evidence (speculative if added): measured against runs at
 * read_ahead_kb 4, this keeps the demanded set near the true demand
 * (bench/trace-accuracy.sh). Without a fault address, the whole window counts.
 */
#define FAULT_NEAR_PAGES	5
#define FAULT_MAX_AGE_NS	(10ull * 1000 * 1000)

static void map_pages(struct recorder *r, int pid, uint32_t dev, uint64_t ino, uint64_t first,
		      uint64_t last, uint64_t ts, uint64_t rts)
{
	struct pf_slot *pf = &r->pf[(unsigned)pid % PF_TABLE_SIZE];
	uint64_t page = UINT64_MAX;
	bool cold = false;
	int ret = 0;

	if (pf->pid == pid && pf->page != UINT64_MAX && pf->ts <= ts &&
	    ts - pf->ts <= FAULT_MAX_AGE_NS) {
		page = first + (pf->page & (FAULT_AROUND_PAGES - 1));
		pf->page = UINT64_MAX;	/* one fault, one window */
	}
	if (last - first >= 64)
		last = first + 63;	/* not a fault-around window */
	/*
	 * Only cached pages are mapped. Where the trace saw pages of the window
	 * enter the cache, the others were not there (yet) and are no evidence;
	 * where it saw none, the window was cached before the trace began.
	 */
	for (uint64_t i = first; i <= last; i++)
		if (pageset_is_added(r->ps, dev, ino, i, NULL)) {
			cold = true;
			break;
		}
	for (uint64_t i = first; i <= last; i++) {
		bool near = page > last || (i + FAULT_NEAR_PAGES >= page && i <= page + FAULT_NEAR_PAGES);

		if (cold && i != page && !pageset_is_added(r->ps, dev, ino, i, NULL))
			continue;
		ret = pageset_access(r->ps, dev, ino, i, i, rts, near ? PAGESET_STRONG : PAGESET_WEAK);
		if (ret < 0)
			break;
	}
	if (ret < 0 && ret != -EINVAL)
		r->error = ret;
}

/* One line per event: "time pid event dev ino first last|order|address", for bench/ analysis. */
static void dump_event(struct recorder *r, int ev, const struct tep_record *rec, uint64_t rts)
{
	static const char *const names[TRACER_NR_EVENTS] = { "add", "fault", "get", "map", "pf" };
	const struct fields *f = &r->f[ev];

	if (ev == TRACER_PF_USER) {
		fprintf(r->dump, "%" PRIu64 " %d pf %" PRIx64 " %" PRIx64 " %" PRIx64 "\n", rts,
			(int)field_u64(r->common_pid, rec), field_u64(f->address, rec),
			field_u64(f->ip, rec), field_u64(f->error_code, rec));
		return;
	}
	fprintf(r->dump, "%" PRIu64 " %d %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", rts,
		(int)field_u64(r->common_pid, rec), names[ev], field_u64(f->dev, rec),
		field_u64(f->ino, rec), field_u64(f->index, rec),
		ev == TRACER_ADD ? field_u64(f->order, rec) : field_u64(f->last, rec));
}

static int recorder_handle(struct recorder *r, struct tep_record *rec)
{
	int type = tep_data_type(r->tep, rec);
	int ev = -1, ret = 0;
	uint64_t rts, dev, ino, index;

	for (int i = 0; i < TRACER_NR_EVENTS; i++)
		if (r->ids[i] == type) {
			ev = i;
			break;
		}
	if (ev < 0)
		return 0;
	r->events++;
	r->counts[ev]++;
	rts = rel_time(r, rec->ts);
	if (r->dump)
		dump_event(r, ev, rec, rts);
	if (ev == TRACER_PF_USER) {
		int pid = (int)field_u64(r->common_pid, rec);
		struct pf_slot *pf = &r->pf[(unsigned)pid % PF_TABLE_SIZE];

		pf->pid = pid;
		pf->page = field_u64(r->f[ev].address, rec) >> 12;
		pf->ts = rec->ts;
		return 0;
	}
	dev = field_u64(r->f[ev].dev, rec);
	ino = field_u64(r->f[ev].ino, rec);
	index = field_u64(r->f[ev].index, rec);
	switch (ev) {
	case TRACER_ADD: {
		uint64_t order = field_u64(r->f[ev].order, rec);
		uint64_t nr = 1ull << (order < 20 ? order : 20);

		r->last_add_ts = rec->ts;
		r->added_pages += nr;
		ret = pageset_add(r->ps, (uint32_t)dev, ino, index, nr, rts);
		break;
	}
	case TRACER_FAULT:
		ret = pageset_access(r->ps, (uint32_t)dev, ino, index, index, rts, PAGESET_STRONG);
		break;
	case TRACER_GET_PAGES:
		/* a read(): precise, but not clipped at the end of the file (done later) */
		ret = pageset_access(r->ps, (uint32_t)dev, ino, index,
				     field_u64(r->f[ev].last, rec), rts, PAGESET_STRONG);
		break;
	case TRACER_MAP_PAGES:
		map_pages(r, (int)field_u64(r->common_pid, rec), (uint32_t)dev, ino, index,
			  field_u64(r->f[ev].last, rec), rec->ts, rts);
		break;
	}
	if (ret == -EINVAL)	/* a nonsensical record: skip it */
		ret = 0;
	if (ret < 0)
		r->error = ret;
	return ret;
}

static int live_record_cb(struct tep_record *rec, void *ctx)
{
	return recorder_handle(ctx, rec);
}

static void recorder_fini(struct recorder *r)
{
	if (r->dump)
		fclose(r->dump);
	r->dump = NULL;
	free(r->pf);
	r->pf = NULL;
	pageset_free(r->ps);
	r->ps = NULL;
}

static int recorder_init(struct recorder *r)
{
	const char *dump = getenv("URA_TRACE_EVENTS");
	int ret;

	memset(r, 0, sizeof(*r));
	r->pf = calloc(PF_TABLE_SIZE, sizeof(*r->pf));
	if (!r->pf)
		return -ENOMEM;
	for (int i = 0; i < PF_TABLE_SIZE; i++)
		r->pf[i].page = UINT64_MAX;
	if (dump && *dump) {
		r->dump = fopen(dump, "we");
		if (!r->dump)
			log_warn("cannot write '%s': %s, skipping", dump, strerror(errno));
	}
	ret = pageset_new(&r->ps);
	if (ret < 0)
		recorder_fini(r);
	return ret;
}

/* ---- read_ahead_kb: force, remember on disk, restore ---- */

static int ra_write_state(const struct ra_state *st)
{
	char tmp[PATH_MAX + 8];
	FILE *f;

	if (mkdir(RUN_STATE_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp", st->path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	for (size_t i = 0; i < st->n; i++)
		fprintf(f, "%u:%u %u\n", st->devs[i].major, st->devs[i].minor, st->devs[i].old_kb);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0) {
		int r = -errno;

		fclose(f);
		unlink(tmp);
		return r;
	}
	fclose(f);
	if (rename(tmp, st->path) < 0) {
		int r = -errno;

		unlink(tmp);
		return r;
	}
	return 0;
}

/*
 * Several ura-trace runs may force read_ahead_kb at once. Each state file holds
 * the values from before any of them: a run that starts while another one has a
 * device forced takes that one's value to restore, and a run that ends while
 * another one still has the device forced leaves it to the last one.
 */

/* A running ura-trace, not us (pids are reused: check the name too). */
static bool state_owner_alive(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (pid == getpid() || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return true;	/* cannot tell: assume it runs */
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return strncmp(comm, "ura-trace", 9) == 0;
}

static int ra_read_file(const char *path, struct ra_saved **devs, size_t *n)
{
	unsigned major, minor, kb;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%u:%u %u", &major, &minor, &kb) == 3) {
		struct ra_saved *m = realloc(*devs, (*n + 1) * sizeof(**devs));

		if (!m) {
			fclose(f);
			return -ENOMEM;
		}
		*devs = m;
		(*devs)[(*n)++] = (struct ra_saved){ major, minor, kb };
	}
	fclose(f);
	return 0;
}

/* The state files of running (@live) or dead (!@live) runs other than ours. */
static int ra_states(bool live, struct ra_saved **devs, size_t *n, char ***paths, size_t *npaths)
{
	struct dirent *de;
	int r = 0;
	DIR *d;

	d = opendir(RUN_STATE_DIR);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		int pid, len = 0;

		if (sscanf(de->d_name, "trace-%d.state%n", &pid, &len) != 1 ||
		    de->d_name[len] != '\0' || pid == getpid() || state_owner_alive(pid) != live)
			continue;
		snprintf(path, sizeof(path), "%s/%s", RUN_STATE_DIR, de->d_name);
		if (devs)
			ra_read_file(path, devs, n);
		if (paths) {
			char **m = realloc(*paths, (*npaths + 1) * sizeof(**paths));

			if (!m || !(m[*npaths] = strdup(path))) {
				if (m)
					*paths = m;
				r = -ENOMEM;
				break;
			}
			*paths = m;
			(*npaths)++;
		}
	}
	closedir(d);
	return r;
}

static const struct ra_saved *ra_find(const struct ra_saved *devs, size_t n, unsigned major,
				      unsigned minor)
{
	for (size_t i = 0; i < n; i++)
		if (devs[i].major == major && devs[i].minor == minor)
			return &devs[i];
	return NULL;
}

int record_restore_read_ahead(void)
{
	struct ra_saved *live = NULL;
	size_t nlive = 0, npaths = 0;
	char **paths = NULL;
	int count = 0, r;

	r = ra_states(true, &live, &nlive, NULL, NULL);
	if (r == 0)
		r = ra_states(false, NULL, NULL, &paths, &npaths);
	for (size_t i = 0; r == 0 && i < npaths; i++) {
		struct ra_saved *dead = NULL;
		size_t ndead = 0;

		if (ra_read_file(paths[i], &dead, &ndead) < 0) {
			free(dead);
			continue;
		}
		for (size_t k = 0; k < ndead; k++) {
			int e;

			/* a run still going has it forced, and will put it back */
			if (ra_find(live, nlive, dead[k].major, dead[k].minor))
				continue;
			e = blockdev_set_read_ahead_kb(dead[k].major, dead[k].minor, dead[k].old_kb);
			if (e < 0)
				log_warn("cannot restore read_ahead_kb of %u:%u to %u: %s, skipping",
					 dead[k].major, dead[k].minor, dead[k].old_kb, strerror(-e));
			else
				count++;
		}
		free(dead);
		unlink(paths[i]);
	}
	if (count)
		log_info("restored read_ahead_kb of %d device(s) changed by a killed ura-trace", count);
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(live);
	return r < 0 ? r : count;
}

/* Whether @path is @dir or below it. */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* The disks under every mounted non-pseudo filesystem: a partition's queue is its disk's. */
static int ra_force(struct ra_state *st, unsigned kb, const char *root)
{
	const struct mount_entry *base = NULL;
	struct mount_table mt = { 0 };
	struct ra_saved *live = NULL;
	size_t nlive = 0;
	struct ra_saved *n;
	int r;

	st->kb = kb;
	snprintf(st->path, sizeof(st->path), "%s/trace-%d.state", RUN_STATE_DIR, (int)getpid());
	r = mountinfo_read("/proc/self/mountinfo", &mt);
	if (r < 0)
		return r;
	r = ra_states(true, &live, &nlive, NULL, NULL);
	if (r < 0)
		goto out;
	/* the mount the root directory itself is on: the deepest one above it */
	for (size_t i = 0; root && i < mt.count; i++)
		if (path_within(root, mt.entries[i].mount_point) &&
		    (!base || strlen(mt.entries[i].mount_point) >= strlen(base->mount_point)))
			base = &mt.entries[i];
	for (size_t i = 0; i < mt.count; i++) {
		const struct mount_entry *e = &mt.entries[i];
		const struct ra_saved *other;
		unsigned old, now;
		bool seen = false;

		if (e->major == 0 || mountinfo_is_pseudo_fs(e->fstype))
			continue;
		/* with --root, only the filesystems the root's files live on */
		if (root && !path_within(e->mount_point, root) && e != base)
			continue;
		for (size_t k = 0; k < st->n; k++)
			if (st->devs[k].major == e->major && st->devs[k].minor == e->minor)
				seen = true;
		if (seen || blockdev_get_read_ahead_kb(e->major, e->minor, &now) < 0)
			continue;
		/* forced by a run still going: its value from before is the one to restore */
		other = ra_find(live, nlive, e->major, e->minor);
		old = other ? other->old_kb : now;
		if (old == kb && now == kb)
			continue;
		n = realloc(st->devs, (st->n + 1) * sizeof(*n));
		if (!n) {
			r = -ENOMEM;
			goto out;
		}
		st->devs = n;
		st->devs[st->n++] = (struct ra_saved){ e->major, e->minor, old };
	}
	/* the record of what will change is on disk before anything changes */
	if (st->n) {
		r = ra_write_state(st);
		if (r < 0)
			goto out;
	}
	for (size_t k = 0; k < st->n; k++) {
		r = blockdev_set_read_ahead_kb(st->devs[k].major, st->devs[k].minor, kb);
		if (r < 0)
			log_warn("cannot set read_ahead_kb of %u:%u: %s, skipping", st->devs[k].major,
				 st->devs[k].minor, strerror(-r));
		else
			log_debug("read_ahead_kb of %u:%u: %u -> %u", st->devs[k].major,
				  st->devs[k].minor, st->devs[k].old_kb, kb);
	}
	r = 0;
out:
	free(live);
	mountinfo_free(&mt);
	return r;
}

/* Put the old values back (once); the list stays for the pack's records until ra_free(). */
static void ra_restore(struct ra_state *st)
{
	struct ra_saved *live = NULL;
	size_t nlive = 0;

	if (st->restored)
		return;
	st->restored = true;
	if (st->n)
		ra_states(true, &live, &nlive, NULL, NULL);
	for (size_t k = 0; k < st->n; k++) {
		int r;

		/* another run still has it forced: the last one puts it back */
		if (ra_find(live, nlive, st->devs[k].major, st->devs[k].minor))
			continue;
		r = blockdev_set_read_ahead_kb(st->devs[k].major, st->devs[k].minor,
					       st->devs[k].old_kb);
		if (r < 0)
			log_warn("cannot restore read_ahead_kb of %u:%u: %s", st->devs[k].major,
				 st->devs[k].minor, strerror(-r));
	}
	if (st->n)
		unlink(st->path);
	free(live);
}

static void ra_free(struct ra_state *st)
{
	ra_restore(st);
	free(st->devs);
	st->devs = NULL;
	st->n = 0;
}

/* read_ahead_kb of a device while the trace ran. */
static unsigned ra_during_trace(const struct ra_state *st, unsigned major, unsigned minor)
{
	unsigned kb;

	for (size_t k = 0; st && k < st->n; k++)
		if (st->devs[k].major == major && st->devs[k].minor == minor)
			return st->kb;
	return blockdev_get_read_ahead_kb(major, minor, &kb) < 0 ? 0 : kb;
}

/* ---- building the pack ---- */

struct pack_ctx {
	const struct record_opts *o;
	const struct ra_state *ra;	/* read_ahead_kb forced during the trace, or NULL */
	struct recorder *rec;
	struct ura_pack_builder *b;
	struct mount_table mt;
	struct record_summary *sum;
	unsigned flags;			/* PAGESET_* for ranges */
	dev_t pack_dev;			/* the pack's old file, left out */
	ino_t pack_ino;
	char *pack_abs;
	dev_t self_dev;			/* ura-trace's own executable */
	ino_t self_ino;
	/* filesystems added to the pack, by kernel dev and mount point */
	struct {
		uint32_t kdev;
		const char *mount_point;
		uint32_t index;
	} *fs;
	size_t nfs;
};

/* Mount point as the pack records it, and the prefix to strip from paths, under --root. */
static int root_view(const char *root, const char *mp, const char **ret_mp, const char **ret_strip)
{
	size_t rl;

	if (!root) {
		*ret_mp = mp;
		*ret_strip = "";
		return 0;
	}
	rl = strlen(root);
	if (strncmp(mp, root, rl) == 0 && (mp[rl] == '/' || mp[rl] == '\0')) {
		*ret_mp = mp[rl] ? mp + rl : "/";	/* a mount inside the root */
		*ret_strip = "";
		return 0;
	}
	if (strcmp(mp, "/") == 0) {
		*ret_mp = "/";				/* the root is a directory of this fs */
		*ret_strip = root + 1;
		return 0;
	}
	if (strncmp(root, mp, strlen(mp)) == 0 && root[strlen(mp)] == '/') {
		*ret_mp = "/";
		*ret_strip = root + strlen(mp) + 1;
		return 0;
	}
	return -ENOENT;					/* not visible from the root */
}

static int fs_index(struct pack_ctx *c, uint32_t kdev, const struct mount_entry *me,
		    const char *mount_point, uint32_t *ret)
{
	struct ura_pack_fs fs = { 0 };
	uint32_t idx;
	void *n;
	int r;

	for (size_t i = 0; i < c->nfs; i++)
		if (c->fs[i].kdev == kdev && strcmp(c->fs[i].mount_point, mount_point) == 0) {
			*ret = c->fs[i].index;
			return 0;
		}
	fs.major = KDEV_MAJOR(kdev);
	fs.minor = KDEV_MINOR(kdev);
	fs.mount_point = mount_point;
	fs.fstype = me ? me->fstype : "";
	fs.source = me ? me->source : "";
	fs.read_ahead_kb = ra_during_trace(c->ra, fs.major, fs.minor);
	n = realloc(c->fs, (c->nfs + 1) * sizeof(*c->fs));
	if (!n)
		return -ENOMEM;
	c->fs = n;
	r = ura_pack_builder_add_fs(c->b, &fs, &idx);
	if (r < 0)
		return r;
	c->fs[c->nfs].kdev = kdev;
	c->fs[c->nfs].mount_point = mount_point;
	c->fs[c->nfs].index = idx;
	c->nfs++;
	*ret = idx;
	return 0;
}

static uint64_t listed_pages(const struct pageset_file *f)
{
	return f->added_pages > f->used_pages ? f->added_pages : f->used_pages;
}

/*
 * Which 4 KiB pages of [@first, @first + @count) of @fd are in the page cache:
 * @ret[i] is 1 or 0. Only that window is mapped, whatever the file's size.
 * Return: 0, or -errno when it cannot tell.
 */
static int range_resident(int fd, uint64_t size, uint64_t first, uint64_t count,
			  unsigned char *ret)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t off = first * URA_PACK_PAGE_SIZE, end = (first + count) * URA_PACK_PAGE_SIZE, moff, mlen;
	unsigned char *vec = NULL;
	void *map;
	int r = 0;

	if (end > size)
		end = size;
	memset(ret, 0, count);
	if (off >= end)
		return 0;	/* past the end now */
	moff = off / psz * psz;
	mlen = end - moff;
	map = mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, (off_t)moff);
	if (map == MAP_FAILED)
		return -errno;
	vec = malloc((mlen + psz - 1) / psz);
	if (!vec)
		r = -ENOMEM;
	else if (mincore(map, mlen, vec) < 0)
		r = -errno;
	for (uint64_t i = 0; r == 0 && i < count; i++) {
		uint64_t b = (first + i) * URA_PACK_PAGE_SIZE;

		ret[i] = b < end && (vec[(b - moff) / psz] & 1);
	}
	free(vec);
	munmap(map, mlen);
	return r;
}

static int push_range(struct pageset_range **out, size_t *n, size_t *cap,
		      const struct pageset_range *rg, uint64_t page, uint64_t count)
{
	struct pageset_range *last = *n ? &(*out)[*n - 1] : NULL;

	if (last && last->first_page + last->page_count == page &&
	    last->demanded == rg->demanded && last->first_ns == rg->first_ns) {
		last->page_count += count;
		return 0;
	}
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct pageset_range *p = realloc(*out, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*out = p;
		*cap = c;
	}
	(*out)[(*n)++] = (struct pageset_range){ .first_page = page, .page_count = count,
						 .demanded = rg->demanded, .first_ns = rg->first_ns };
	return 0;
}

/*
 * Keep of @ranges only the pages of @full now in the page cache (mincore);
 * a range whose pages cannot be looked at is kept whole.
 * Return: the pages kept, or -errno.
 */
static long keep_resident(const char *full, uint64_t size, struct pageset_range **ranges,
			  size_t *n)
{
	struct pageset_range *out = NULL;
	unsigned char *flags = NULL;
	size_t nout = 0, cap = 0;
	long kept = 0;
	int fd, r = 0;

	fd = open(full, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	for (size_t i = 0; i < *n && r == 0; i++) {
		const struct pageset_range *rg = &(*ranges)[i];
		unsigned char *f;

		f = realloc(flags, rg->page_count ? rg->page_count : 1);
		if (!f) {
			r = -ENOMEM;
			break;
		}
		flags = f;
		if (fd < 0 || range_resident(fd, size, rg->first_page, rg->page_count, flags) < 0) {
			r = push_range(&out, &nout, &cap, rg, rg->first_page, rg->page_count);
			kept += (long)rg->page_count;
			continue;
		}
		for (uint64_t p = 0; p < rg->page_count && r == 0; p++) {
			if (!flags[p])
				continue;
			r = push_range(&out, &nout, &cap, rg, rg->first_page + p, 1);
			kept++;
		}
	}
	if (r == 0) {
		free(*ranges);
		*ranges = out;
		*n = nout;
		out = NULL;
	}
	free(out);
	free(flags);
	if (fd >= 0)
		close(fd);
	return r < 0 ? r : kept;
}

/*
 * Ranges of one resolved file into the pack; with @resident_of, only its pages
 * now in the page cache (@resident_of is the file's full path).
 * Return: 1 if the file went in, 0 if it had no range to add, -errno.
 */
static int add_file_ranges(struct pack_ctx *c, const struct pageset_file *pf, uint32_t fsi,
			   const char *path, const struct statx *stx, const char *resident_of)
{
	struct ura_pack_file file = { 0 };
	struct pageset_range *ranges = NULL;
	size_t n = 0;
	uint32_t fi;
	int r;

	r = pageset_file_ranges(c->rec->ps, pf, (stx->stx_size + URA_PACK_PAGE_SIZE - 1) / URA_PACK_PAGE_SIZE, c->flags,
				&ranges, &n);
	if (r < 0)
		return r;
	if (resident_of) {
		long kept = keep_resident(resident_of, stx->stx_size, &ranges, &n);

		if (kept < 0) {
			r = (int)kept;
			goto out;
		}
	}
	if (n == 0)
		goto out;
	file.fs_index = fsi;
	file.path = path;
	file.path_len = strlen(path);
	file.ino = stx->stx_ino;
	file.size = stx->stx_size;
	file.mtime_ns = (int64_t)stx->stx_mtime.tv_sec * 1000000000 + stx->stx_mtime.tv_nsec;
	if (stx->stx_mask & STATX_BTIME) {
		file.flags |= URA_PACK_FILE_HAS_BTIME;
		file.btime_ns = (int64_t)stx->stx_btime.tv_sec * 1000000000 +
				stx->stx_btime.tv_nsec;
	}
	r = ura_pack_builder_add_file(c->b, &file, &fi);
	if (r < 0)
		goto out;
	c->sum->files++;
	for (size_t i = 0; i < n; i++) {
		struct ura_pack_range pr = {
			.file_index = fi,
			.flags = ranges[i].demanded ? URA_PACK_RANGE_DEMANDED : 0,
			.first_page = ranges[i].first_page,
			.first_access_ns = ranges[i].first_ns,
		};
		uint64_t left = ranges[i].page_count;

		/* the format counts pages in 32 bits */
		while (left) {
			pr.page_count = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
			r = ura_pack_builder_add_range(c->b, &pr);
			if (r < 0)
				goto out;
			c->sum->ranges++;
			c->sum->bytes += pr.page_count * URA_PACK_PAGE_SIZE;
			if (ranges[i].demanded)
				c->sum->demanded_bytes += pr.page_count * URA_PACK_PAGE_SIZE;
			else
				c->sum->speculative_bytes += pr.page_count * URA_PACK_PAGE_SIZE;
			pr.first_page += pr.page_count;
			left -= pr.page_count;
		}
	}
	r = 1;
out:
	free(ranges);
	return r;
}

/* NAMED_LEFT_OUT: the pack itself or ura-trace; NAMED_OUTSIDE: not below --root */
enum { NAMED_NOT_IT, NAMED_ADDED, NAMED_EMPTY, NAMED_LEFT_OUT, NAMED_OUTSIDE };

/*
 * Check that @rel, below @me's mount point, still is the traced inode @pf, a
 * regular file on @dev, and add its ranges (see add_file_ranges() for
 * @resident). @fsi is the pack's filesystem index for @me, made on first use.
 * Return: NAMED_*, or -errno.
 */
static int add_named(struct pack_ctx *c, const struct pageset_file *pf,
		     const struct mount_entry *me, const char *rel, dev_t dev, bool resident,
		     uint32_t *fsi)
{
	const char *mp, *strip;
	char *full = NULL;
	struct statx stx;
	size_t strip_len;
	int r;

	if (root_view(c->o->root, me->mount_point, &mp, &strip) < 0)
		return NAMED_NOT_IT;	/* the caller checked */
	strip_len = strlen(strip);
	full = path_join(me->mount_point, rel);
	if (!full)
		return -ENOMEM;
	/* the name found must still be that inode, a regular file */
	if (statx(AT_FDCWD, full, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &stx) < 0 ||
	    stx.stx_ino != pf->ino || !S_ISREG(stx.stx_mode) ||
	    makedev(stx.stx_dev_major, stx.stx_dev_minor) != dev) {
		r = NAMED_NOT_IT;
		goto out;
	}
	/*
	 * Inode numbers are reused: a file born after the trace saw its pages
	 * is another file than the one that had them (deleted since).
	 */
	if (c->rec->t0_real && (stx.stx_mask & STATX_BTIME) &&
	    (int64_t)stx.stx_btime.tv_sec * 1000000000 + stx.stx_btime.tv_nsec >
		    c->rec->t0_real + (int64_t)pf->first_ns + REUSE_SLACK_NS) {
		log_debug("'%s' is newer than the pages traced: inode reused", full);
		r = NAMED_NOT_IT;
		goto out;
	}
	r = NAMED_LEFT_OUT;
	if ((c->pack_ino && stx.stx_ino == c->pack_ino &&
	     makedev(stx.stx_dev_major, stx.stx_dev_minor) == c->pack_dev) ||
	    (c->pack_abs && strcmp(full, c->pack_abs) == 0) ||
	    (c->self_ino && stx.stx_ino == c->self_ino &&
	     makedev(stx.stx_dev_major, stx.stx_dev_minor) == c->self_dev))
		goto out;	/* the pack itself, or ura-trace (run by the child before exec) */
	if (strip_len) {
		/* under --root: only files below it, named from it */
		if (strncmp(rel, strip, strip_len) != 0 || rel[strip_len] != '/') {
			r = NAMED_OUTSIDE;
			goto out;
		}
		rel += strip_len + 1;
	}
	if (*fsi == URA_PACK_NO_INDEX) {
		r = fs_index(c, pf->dev, me, mp, fsi);
		if (r < 0)
			goto out;
	}
	r = add_file_ranges(c, pf, *fsi, rel, &stx, resident ? full : NULL);
	if (r >= 0)
		r = r ? NAMED_ADDED : NAMED_EMPTY;
out:
	free(full);
	return r;
}

static void count_unresolved(struct pack_ctx *c, const struct pageset_file *pf)
{
	/* deleted before it could be named, or out of reach */
	c->sum->unresolved_inodes++;
	c->sum->unresolved_bytes += listed_pages(pf) * URA_PACK_PAGE_SIZE;
}

/* Name the inodes of one filesystem and add them. */
static int add_fs_files(struct pack_ctx *c, const struct pageset_file *files, size_t n,
			const struct mount_entry *me)
{
	struct resolve_item *items = NULL;
	const char *mp, *strip;
	uint32_t fsi = URA_PACK_NO_INDEX;
	long found;
	int r = 0;

	if (root_view(c->o->root, me->mount_point, &mp, &strip) < 0) {
		c->sum->outside_root += n;
		return 0;
	}
	items = calloc(n, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		items[i].ino = files[i].ino;
	found = resolve_inodes(me->mount_point, me->major, me->minor, items, n, RESOLVE_METHODS);
	if (found < 0) {
		log_warn("cannot look for files in '%s': %s, skipping", me->mount_point,
			 strerror((int)-found));
		found = 0;
	}
	log_debug("'%s': %ld of %zu inodes named", me->mount_point, found, n);
	for (size_t i = 0; i < n; i++) {
		r = items[i].path ? add_named(c, &files[i], me, items[i].path,
					      makedev(me->major, me->minor), false, &fsi) :
				    NAMED_NOT_IT;
		if (r < 0)
			goto out;
		if (r == NAMED_NOT_IT)
			count_unresolved(c, &files[i]);
		else if (r == NAMED_OUTSIDE)
			c->sum->outside_root++;
	}
	r = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(items[i].path);
	free(items);
	return r;
}

/* Is @e's root inside that of @o (or the same, and @o the better view)? */
static bool view_inside(const struct mount_entry *e, const struct mount_entry *o)
{
	size_t ol = strlen(o->root);

	if (strcmp(o->root, "/") == 0)
		return true;
	return strncmp(e->root, o->root, ol) == 0 && (e->root[ol] == '/' || e->root[ol] == '\0');
}

/* A file with a traced btrfs inode number, in one subvolume of one mount. */
struct btrfs_match {
	size_t file;			/* index in the files of the filesystem */
	const struct mount_entry *me;
	char *rel;			/* below me->mount_point */
	dev_t dev;			/* the subvolume's st_dev */
	uint32_t *fsi;
	size_t order;			/* found in this order: best view first */
};

/*
 * Name the inodes of one subvolume, @sub below the mount @me, and note them.
 */
static int btrfs_subvolume(const struct pageset_file *files, size_t n,
			   const struct mount_entry *me, const char *sub, uint32_t *fsi,
			   struct btrfs_match **matches, size_t *nmatches)
{
	struct resolve_item *items = NULL;
	char *dir = NULL;
	struct stat st;
	long found;
	int r = 0;

	dir = path_join(me->mount_point, sub);
	items = calloc(n, sizeof(*items));
	if (!dir || !items) {
		r = -ENOMEM;
		goto out;
	}
	if (stat(dir, &st) < 0)
		goto out;	/* removed meanwhile */
	for (size_t i = 0; i < n; i++)
		items[i].ino = files[i].ino;
	found = resolve_inodes(dir, me->major, me->minor, items, n, RESOLVE_WALK);
	if (found == -ENOMEM) {
		r = -ENOMEM;
		goto out;
	}
	if (found < 0) {
		log_warn("cannot look for files in '%s': %s, skipping", dir, strerror((int)-found));
		goto out;
	}
	log_debug("btrfs subvolume '%s': %ld of %zu inode numbers found", dir, found, n);
	for (size_t i = 0; i < n; i++) {
		struct btrfs_match *m;

		if (!items[i].path)
			continue;
		m = realloc(*matches, (*nmatches + 1) * sizeof(**matches));
		if (!m) {
			r = -ENOMEM;
			goto out;
		}
		*matches = m;
		m[*nmatches] = (struct btrfs_match){ .file = i, .me = me, .dev = st.st_dev,
						     .fsi = fsi, .order = *nmatches };
		m[*nmatches].rel = strcmp(sub, ".") == 0 ? items[i].path :
				   path_join(sub, items[i].path);
		if (m[*nmatches].rel != items[i].path)
			free(items[i].path);
		items[i].path = NULL;
		if (!m[*nmatches].rel) {
			r = -ENOMEM;
			goto out;
		}
		(*nmatches)++;
	}
out:
	for (size_t i = 0; items && i < n; i++)
		free(items[i].path);
	free(items);
	free(dir);
	return r;
}

static int cmp_match(const void *a, const void *b)
{
	const struct btrfs_match *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * btrfs numbers inodes per subvolume, and the trace has only the superblock's
 * device: look in every subvolume of every mount of the filesystem. When an
 * inode number names several files, each gets the traced pages it has in the
 * page cache right after the trace (the files traced had them brought in).
 */
static int add_btrfs_files(struct pack_ctx *c, const struct pageset_file *files, size_t n)
{
	const struct mount_entry **views = NULL;
	struct btrfs_match *matches = NULL;
	uint32_t *fsis = NULL;
	size_t nviews = 0, nmatches = 0;
	unsigned major = KDEV_MAJOR(files[0].dev), minor = KDEV_MINOR(files[0].dev);
	const struct mount_entry *best = mountinfo_find_dev(&c->mt, major, minor);
	int r = 0;

	views = calloc(c->mt.count, sizeof(const struct mount_entry *));
	fsis = calloc(c->mt.count, sizeof(*fsis));
	if (!views || !fsis) {
		r = -ENOMEM;
		goto out;
	}
	/*
	 * The best mount first, then those with files it cannot reach. Under
	 * --root a view may see only part of its filesystem: take every mount
	 * then (a file found twice in one subvolume is one file, kept once).
	 */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < c->mt.count; i++) {
			const struct mount_entry *e = &c->mt.entries[i];
			const char *mp, *strip;
			bool seen = false;

			if ((pass == 0) != (e == best) || e->major != major || e->minor != minor ||
			    mountinfo_is_covered(&c->mt, e) ||
			    root_view(c->o->root, e->mount_point, &mp, &strip) < 0)
				continue;
			for (size_t v = 0; v < nviews && !seen; v++)
				seen = views[v] == e || (!c->o->root && view_inside(e, views[v]));
			if (!seen)
				views[nviews++] = e;
		}
	}
	for (size_t v = 0; v < nviews; v++) {
		char **subs = NULL;
		long nsubs;

		fsis[v] = URA_PACK_NO_INDEX;
		nsubs = resolve_subvolumes(views[v]->mount_point, &subs);
		if (nsubs < 0) {
			log_warn("cannot list the subvolumes of '%s': %s, skipping",
				 views[v]->mount_point, strerror((int)-nsubs));
			continue;
		}
		for (long k = 0; k < nsubs; k++) {
			if (r == 0)
				r = btrfs_subvolume(files, n, views[v], subs[k], &fsis[v], &matches,
						    &nmatches);
			free(subs[k]);
		}
		free(subs);
		if (r < 0)
			goto out;
	}
	if (nmatches)
		qsort(matches, nmatches, sizeof(*matches), cmp_match);
	for (size_t i = 0, m = 0; i < n; i++) {
		size_t first = m, count = 0;
		bool resident, handled = false, outside = false;

		while (m < nmatches && matches[m].file == i) {
			/* the same subvolume through another mount: the same file */
			if (m == first || matches[m].dev != matches[m - 1].dev)
				count++;
			else
				matches[m].file = SIZE_MAX;
			m++;
		}
		/*
		 * One candidate: it is the file. Several: tell them by the pages they
		 * have cached now (not for --input: the trace is from another time).
		 */
		resident = count > 1 && !c->o->input;
		for (int pass = 0; pass < 2 && !handled; pass++) {
			for (size_t k = first; k < m; k++) {
				if (matches[k].file == SIZE_MAX)
					continue;
				r = add_named(c, &files[i], matches[k].me, matches[k].rel,
					      matches[k].dev, resident, matches[k].fsi);
				if (r < 0)
					goto out;
				/* with the cache as judge, a file it gave nothing to is not it */
				handled |= r == NAMED_ADDED || r == NAMED_LEFT_OUT ||
					   (r == NAMED_EMPTY && !resident);
				outside |= r == NAMED_OUTSIDE;
			}
			if (!resident)
				break;
			/* none has them cached any more: keep them all */
			resident = false;
		}
		if (handled)
			continue;
		if (outside)
			c->sum->outside_root++;
		else
			count_unresolved(c, &files[i]);
	}
	r = 0;
out:
	for (size_t k = 0; k < nmatches; k++)
		free(matches[k].rel);
	free(matches);
	free(views);
	free(fsis);
	return r;
}

static bool is_block_device(unsigned major, unsigned minor)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major, minor);
	return major != 0 && access(path, F_OK) == 0;
}

/*
 * Metadata: pages of a block device's own page cache. Their inode lives on the
 * kernel-internal bdev filesystem (an anonymous device, absent from
 * mountinfo), and its inode number is the block device's dev_t.
 */
static int add_meta(struct pack_ctx *c, const struct pageset_file *pf)
{
	unsigned major = KDEV_MAJOR(pf->ino), minor = KDEV_MINOR(pf->ino);
	const struct mount_entry *me = mountinfo_find_dev(&c->mt, major, minor);
	struct pageset_range *ranges = NULL;
	uint32_t fsi = URA_PACK_NO_INDEX;
	size_t n = 0;
	int r;

	if (me && !mountinfo_is_pseudo_fs(me->fstype)) {
		const char *mp, *strip;

		if (root_view(c->o->root, me->mount_point, &mp, &strip) == 0) {
			r = fs_index(c, (uint32_t)pf->ino, me, mp, &fsi);
			if (r < 0)
				return r;
		}
	}
	r = pageset_file_ranges(c->rec->ps, pf, UINT64_MAX, PAGESET_ALL_DEMANDED, &ranges, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct ura_pack_meta m = {
			.fs_index = fsi,
			.major = major,
			.minor = minor,
			.offset = ranges[i].first_page * URA_PACK_PAGE_SIZE,
			.length = ranges[i].page_count * URA_PACK_PAGE_SIZE,
			.first_access_ns = ranges[i].first_ns,
		};

		r = ura_pack_builder_add_meta(c->b, &m);
		if (r < 0)
			break;
		c->sum->meta_ranges++;
		c->sum->meta_bytes += m.length;
	}
	free(ranges);
	return r;
}

static char *join_argv(char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (char **a = argv; a && *a; a++)
		len += strlen(*a) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	*p = '\0';
	for (char **a = argv; a && *a; a++)
		p += sprintf(p, "%s%s", a == argv ? "" : " ", *a);
	return s;
}

static int build_pack(const struct record_opts *o, struct recorder *rec, const struct ra_state *ra,
		      unsigned info_flags, uint64_t duration_ns, struct record_summary *sum)
{
	struct pack_ctx c = { .o = o, .ra = ra, .rec = rec, .sum = sum };
	struct pageset_file *files = NULL;
	struct ura_pack_info info = { 0 };
	bool logged = false;
	struct utsname un;
	char *command = NULL;
	struct stat st;
	size_t nfiles = 0;
	int r;

	c.flags = (info_flags & URA_PACK_INFO_NO_ACCESS_EVENTS) ? PAGESET_ALL_DEMANDED : 0;
	if (stat(o->pack, &st) == 0) {
		c.pack_dev = st.st_dev;
		c.pack_ino = st.st_ino;
	}
	c.pack_abs = realpath(o->pack, NULL);
	if (stat("/proc/self/exe", &st) == 0) {
		c.self_dev = st.st_dev;
		c.self_ino = st.st_ino;
	}

	r = ura_pack_builder_new(&c.b);
	if (r < 0)
		goto out;
	r = mountinfo_read("/proc/self/mountinfo", &c.mt);
	if (r < 0) {
		log_err("cannot read '/proc/self/mountinfo': %s", strerror(-r));
		logged = true;
		goto out;
	}
	r = pageset_files(rec->ps, &files, &nfiles);
	if (r < 0)
		goto out;

	for (size_t i = 0; i < nfiles;) {
		uint32_t dev = files[i].dev;
		size_t j = i;
		const struct mount_entry *me;

		while (j < nfiles && files[j].dev == dev)
			j++;
		me = mountinfo_find_dev(&c.mt, KDEV_MAJOR(dev), KDEV_MINOR(dev));
		if (me && mountinfo_is_pseudo_fs(me->fstype)) {
			sum->skipped_pseudo += j - i;
		} else if (me && strcmp(me->fstype, "btrfs") == 0) {
			r = add_btrfs_files(&c, &files[i], j - i);
			if (r < 0)
				goto out;
		} else if (me) {
			r = add_fs_files(&c, &files[i], j - i, me);
			if (r < 0)
				goto out;
		} else {
			for (size_t k = i; k < j; k++) {
				if (KDEV_MAJOR(dev) == 0 &&
				    is_block_device(KDEV_MAJOR(files[k].ino), KDEV_MINOR(files[k].ino))) {
					r = add_meta(&c, &files[k]);
					if (r < 0)
						goto out;
					continue;
				}
				/* a filesystem unmounted since, or an internal inode */
				sum->unresolved_inodes++;
				sum->unresolved_bytes += listed_pages(&files[k]) * URA_PACK_PAGE_SIZE;
			}
		}
		i = j;
	}

	command = join_argv(o->argv);
	if (!command) {
		r = -ENOMEM;
		goto out;
	}
	info.created_ns = now_realtime_ns();
	info.duration_ns = duration_ns;
	info.lost_events = sum->lost_events;
	info.unresolved_inodes = sum->unresolved_inodes;
	info.unresolved_bytes = sum->unresolved_bytes;
	info.flags = info_flags;
	info.read_ahead_kb = o->read_ahead_kb;
	info.kernel_release = uname(&un) == 0 ? un.release : "";
	info.command = command;
	r = ura_pack_builder_set_info(c.b, &info);
	if (r < 0)
		goto out;
	r = ura_pack_builder_write(c.b, o->pack, 0644);
	if (r < 0) {
		log_err("cannot write pack '%s': %s", o->pack, strerror(-r));
		logged = true;
		goto out;
	}
	sum->pack_written = true;
out:
	if (r < 0 && !logged)
		log_err("cannot build the pack: %s", strerror(-r));
	free(command);
	free(files);
	free(c.fs);
	free(c.pack_abs);
	mountinfo_free(&c.mt);
	ura_pack_builder_free(c.b);
	return r;
}

/* ---- running ---- */

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
	struct recorder *rec;
	const struct record_opts *o;
	struct child *ch;
	int sigfd;
	int signals;		/* received so far */
	int last_signal;
	bool child_done;
	int child_status;
};

static int drain(struct loop_state *ls)
{
	long n = tracer_read(ls->t, live_record_cb, ls->rec);

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
	const struct record_opts *o = ls->o;
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
		if (ls->rec->error) {
			log_err("cannot record events: %s", strerror(-ls->rec->error));
			return ls->rec->error;
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
		if (!ls->ch && o->duration_ns && now - start >= o->duration_ns) {
			log_debug("duration reached");
			return 0;
		}
		if (!ls->ch && o->until_idle_ns) {
			uint64_t last = ls->rec->last_add_ts > start ? ls->rec->last_add_ts : start;

			if (now > last && now - last >= o->until_idle_ns) {
				log_debug("no page added for %.1f s: idle",
					  (double)(now - last) / 1e9);
				return 0;
			}
		}
	}
}

static void log_reader_usage(const struct recorder *rec)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		log_debug("%" PRIu64 " records read, reader CPU time %.3f s user, %.3f s system",
			  rec->events, (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
			  (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
}

/* --root made canonical: absolute, no symlinks, no trailing '/'; NULL for "/" or none. */
static int canonical_root(const struct record_opts *o, struct record_opts *copy, char **ret)
{
	*copy = *o;
	*ret = NULL;
	if (!o->root)
		return 0;
	*ret = realpath(o->root, NULL);
	if (!*ret) {
		int r = -errno;

		log_err("cannot use root '%s': %s", o->root, strerror(-r));
		return r;
	}
	copy->root = strcmp(*ret, "/") == 0 ? NULL : *ret;
	return 0;
}

/*
 * What both entry points do first: clear @sum, resolve --root into @copy
 * (@ret_root owns it), set up @rec. Logs its errors.
 */
static int record_begin(const struct record_opts *o, struct record_opts *copy, char **ret_root,
			struct recorder *rec, struct record_summary *sum)
{
	int r;

	memset(sum, 0, sizeof(*sum));
	r = canonical_root(o, copy, ret_root);
	if (r < 0)
		return r;
	r = recorder_init(rec);
	if (r < 0) {
		log_err("cannot start: %s", strerror(-r));
		free(*ret_root);
		*ret_root = NULL;
	}
	return r;
}

int record_trace(const struct record_opts *opts, struct record_summary *sum)
{
	struct record_opts copy;
	const struct record_opts *o = &copy;
	struct tracer_opts to = {
		.system = opts->system,
		.exclude_pid = getpid(),
		.buffer_kb = opts->buffer_kb,
		.access_events = !opts->no_access_events,
		.fault_addresses = !opts->no_access_events && !opts->no_fault_addresses,
	};
	struct child ch = { .pid = -1, .pidfd = -1, .go_fd = -1, .err_fd = -1 };
	struct loop_state ls = { .o = o, .sigfd = -1 };
	struct ra_state ra = { 0 };
	struct recorder rec;
	struct tracer *t = NULL;
	char *root = NULL;
	sigset_t mask, old;
	unsigned info_flags = 0;
	uint64_t end_ns = 0;
	bool access;
	int r;

	r = record_begin(opts, &copy, &root, &rec, sum);
	if (r < 0)
		return r;

	/* SIGINT/SIGTERM/SIGHUP become poll events: every exit path cleans up */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	ls.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (ls.sigfd < 0) {
		r = -errno;
		log_err("cannot watch signals: %s", strerror(-r));
		goto out;
	}

	record_restore_read_ahead();
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
	recorder_bind(&rec, tracer_tep(t));
	access = tracer_has_event(t, TRACER_GET_PAGES) && tracer_has_event(t, TRACER_MAP_PAGES);
	if (!access) {
		if (!o->no_access_events)
			log_warn("this kernel has no page access events: every page counts as demanded");
		info_flags |= URA_PACK_INFO_NO_ACCESS_EVENTS;
	}
	sum->access_events = access;
	if (o->system)
		info_flags |= URA_PACK_INFO_SYSTEM;

	if (o->read_ahead_kb) {
		r = ra_force(&ra, o->read_ahead_kb, o->root);
		if (r < 0) {
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

	if (!o->system) {
		r = child_spawn(o->argv, &old, &ch);
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
	rec.t0 = now_monotonic_ns();
	r = tracer_start(t);
	if (r < 0) {
		log_err("cannot start tracing: %s", strerror(-r));
		goto out;
	}
	rec.t0 = tracer_start_ns(t);
	rec.t0_real = now_realtime_ns() - (int64_t)(now_monotonic_ns() - rec.t0);
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
	ls.rec = &rec;
	r = trace_loop(&ls);
	end_ns = now_monotonic_ns();
	tracer_stop(t);
	if (r == 0 || r == -EINTR) {
		int d = drain(&ls);

		if (d < 0 && r == 0)
			r = d;
	}
	log_reader_usage(&rec);
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

	/* the instance goes as soon as the trace is read; naming files takes a while */
	tracer_free(t);
	t = NULL;
	ra_restore(&ra);
	if (sum->lost_events)
		log_warn("%" PRIu64 " events lost: the trace buffer overflowed, the pack is incomplete",
			 sum->lost_events);

	sum->events = rec.events;
	sum->add_events = rec.counts[TRACER_ADD];
	sum->added_pages = rec.added_pages;
	sum->fault_events = rec.counts[TRACER_FAULT];
	r = build_pack(o, &rec, &ra, info_flags, end_ns - rec.t0, sum);
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
	ra_free(&ra);
	if (ls.sigfd >= 0)
		close(ls.sigfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	recorder_fini(&rec);
	free(root);
	return r;
}

/* ---- trace-cmd input ---- */

static int dat_event_cb(struct tracecmd_input *h, struct tep_event *ev, struct tep_record *record,
			int cpu, void *data)
{
	struct recorder *r = data;

	return recorder_handle(r, record) < 0 ? -1 : 0;
}

/* As in a function_graph trace: count handle_mm_fault calls and their time. */
static int dat_funcgraph_cb(struct tracecmd_input *h, struct tep_event *ev,
			    struct tep_record *record, int cpu, void *data)
{
	struct recorder *r = data;
	unsigned long long func, call, ret;
	const char *name;

	if (!r->fg_func) {
		r->fg_func = tep_find_field(ev, "func");
		r->fg_calltime = tep_find_field(ev, "calltime");
		r->fg_rettime = tep_find_field(ev, "rettime");
		if (!r->fg_func || !r->fg_calltime || !r->fg_rettime)
			return 0;
	}
	if (tep_read_number_field(r->fg_func, record->data, &func) < 0 ||
	    tep_read_number_field(r->fg_calltime, record->data, &call) < 0 ||
	    tep_read_number_field(r->fg_rettime, record->data, &ret) < 0)
		return 0;
	name = tep_find_function(tracecmd_get_tep(h), func);
	if (name && strcmp(name, "handle_mm_fault") == 0) {
		r->mm_faults++;
		if (ret > call)
			r->mm_fault_ns += ret - call;
	}
	return 0;
}

static int dat_missed_cb(struct tracecmd_input *h, struct tep_event *ev,
			 struct tep_record *record, int cpu, void *data)
{
	uint64_t *lost = data;

	*lost += record->missed_events > 0 ? (uint64_t)record->missed_events : 1;
	return 0;
}

static int dat_iterate(struct tracecmd_input *h, struct recorder *rec, uint64_t *lost)
{
	for (int i = 0; i < TRACER_NR_EVENTS; i++) {
		const char *system, *name;

		tracer_event_names((enum tracer_event)i, &system, &name);
		tracecmd_follow_event(h, system, name, dat_event_cb, rec);
	}
	tracecmd_follow_event(h, "ftrace", "funcgraph_exit", dat_funcgraph_cb, rec);
	tracecmd_follow_missed_events(h, dat_missed_cb, lost);
	if (tracecmd_iterate_events(h, NULL, 0, NULL, NULL) < 0)
		return rec->error ? rec->error : -EBADMSG;
	return rec->error;
}

int record_from_trace_dat(const struct record_opts *opts, struct record_summary *sum)
{
	struct record_opts copy;
	const struct record_opts *o = &copy;
	struct tracecmd_input *h = NULL;
	struct recorder rec;
	unsigned info_flags = 0;
	uint64_t lost = 0;
	char *root = NULL;
	int r;

	r = record_begin(opts, &copy, &root, &rec, sum);
	if (r < 0)
		return r;
	if (access(o->input, R_OK) < 0) {
		r = -errno;
		log_err("cannot read '%s': %s", o->input, strerror(-r));
		sum->bad_input = true;
		goto out;
	}
	h = tracecmd_open(o->input, 0);
	if (!h) {
		r = -EBADMSG;
		log_err("cannot read '%s': not a trace-cmd trace.dat", o->input);
		sum->bad_input = true;
		goto out;
	}
	recorder_bind(&rec, tracecmd_get_tep(h));
	rec.t0_from_first = true;
	if (rec.ids[TRACER_ADD] < 0) {
		r = -ENODEV;
		log_err("'%s' has no filemap:mm_filemap_add_to_page_cache events", o->input);
		sum->bad_input = true;
		goto out;
	}
	/* the events may be in the top buffer or in instances (trace-cmd record -B) */
	r = dat_iterate(h, &rec, &lost);
	for (int i = 0; r >= 0 && i < tracecmd_buffer_instances(h); i++) {
		struct tracecmd_input *ih = tracecmd_buffer_instance_handle(h, i);

		if (!ih)
			continue;
		r = dat_iterate(ih, &rec, &lost);
		tracecmd_close(ih);
	}
	if (r < 0) {
		log_err("cannot read the events of '%s': %s", o->input, strerror(-r));
		goto out;
	}

	/* demand needs the read and fault-around events in the recording (their formats) */
	sum->access_events = rec.ids[TRACER_GET_PAGES] >= 0 && rec.ids[TRACER_MAP_PAGES] >= 0;
	if (!sum->access_events)
		info_flags |= URA_PACK_INFO_NO_ACCESS_EVENTS;
	sum->events = rec.events;
	sum->add_events = rec.counts[TRACER_ADD];
	sum->added_pages = rec.added_pages;
	sum->fault_events = rec.counts[TRACER_FAULT];
	sum->mm_faults = rec.mm_faults;
	sum->mm_fault_ns = rec.mm_fault_ns;
	sum->lost_events = lost;
	sum->seconds = (double)(rec.last_ts - rec.t0) / 1e9;
	r = build_pack(o, &rec, NULL, info_flags, rec.last_ts - rec.t0, sum);
out:
	if (h)
		tracecmd_close(h);
	recorder_fini(&rec);
	free(root);
	return r;
}

/* ---- summary ---- */

void record_print_summary(FILE *f, const struct record_summary *s, bool json)
{
	if (json) {
		fprintf(f, "{\"files\":%" PRIu64 ",\"ranges\":%" PRIu64 ",\"bytes\":%" PRIu64
			",\"demanded_bytes\":%" PRIu64 ",\"speculative_bytes\":%" PRIu64
			",\"metadata_bytes\":%" PRIu64 ",\"metadata_ranges\":%" PRIu64
			",\"lost_events\":%" PRIu64 ",\"unresolved_inodes\":%" PRIu64
			",\"unresolved_bytes\":%" PRIu64 ",\"pseudo_fs_files\":%" PRIu64
			",\"outside_root_files\":%" PRIu64 ",\"events\":%" PRIu64
			",\"page_cache_additions\":%" PRIu64 ",\"pages_added\":%" PRIu64
			",\"filemap_faults\":%" PRIu64 ",\"mm_faults\":%" PRIu64
			",\"access_events\":%s,\"seconds\":%.3f}\n",
			s->files, s->ranges, s->bytes, s->demanded_bytes, s->speculative_bytes,
			s->meta_bytes, s->meta_ranges, s->lost_events, s->unresolved_inodes,
			s->unresolved_bytes, s->skipped_pseudo, s->outside_root, s->events,
			s->add_events, s->added_pages, s->fault_events, s->mm_faults,
			s->access_events ? "true" : "false", s->seconds);
		return;
	}
	fprintf(f, "%s: %" PRIu64 " files, %" PRIu64 " ranges, %.1f MiB (demanded %.1f MiB, "
		"speculative %.1f MiB), metadata %.1f MiB, %" PRIu64 " lost events, %" PRIu64
		" unresolved inodes, %.2f s\n", program_invocation_short_name, s->files, s->ranges,
		(double)s->bytes / MIB, (double)s->demanded_bytes / MIB,
		(double)s->speculative_bytes / MIB, (double)s->meta_bytes / MIB, s->lost_events,
		s->unresolved_inodes, s->seconds);
}
