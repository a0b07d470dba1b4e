// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoded events -> the access log: each read() (filemap_get_pages) and each
 * page fault on a file mapping of the trace, in order, with what the kernel's
 * readahead saw of it (the pages asked for; a fault's page, its fault-around
 * window, whether fault-around mapped it). Needs no tracefs: the event
 * sources feed it the events they feed the demand model.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace-access.h"

#define CHUNK_RECS	65536		/* records per allocation: 2 MiB */
#define MAX_WINDOW	65536		/* window pages kept (the kernel's: 512 at most) */
#define PF_INSTR	0x10		/* page_fault_user error_code: instruction (x86) */
#define MAX_PAGE	(UINT64_C(1) << 51)	/* the pack's page numbers stay below */

/* One access, 32 bytes. */
struct rec {
	uint64_t time;		/* ns since the trace began */
	uint64_t first;		/* READ: the first page; FAULT: the page */
	uint32_t file;		/* the log's file number */
	uint32_t pid;
	uint32_t extent;	/* READ: last - first; FAULT with a window: see below */
	uint8_t kind, flags;	/* URA_PACK_ACCESS_* */
};

/* A fault's window in @extent: how far below the page it starts, and its pages less one. */
#define WIN_BEFORE(e)	((e) & 0xffff)
#define WIN_LAST(e)	((e) >> 16)
#define WIN(before, last)	((uint32_t)(before) | (uint32_t)(last) << 16)

/* What the log knows of a task. */
struct task {
	int pid;
	bool used;
	bool fault;		/* a user fault not yet tied to a window or a file fault */
	bool fault_exec;
	uint64_t fault_vpage;	/* its address >> 12 */
	uint64_t fault_ts;
	size_t last;		/* the task's latest record + 1, 0 for none */
	uint64_t last_ts;	/* the event that made or changed it */
};

struct access_log {
	struct rec **chunks;
	size_t count, nchunks, max;
	bool truncated;
	unsigned fault_around;		/* a power of two */
	uint64_t last_time;		/* of the latest record: times never go back */
	/* files: (device, inode) <-> number, and a hash of the numbers + 1 */
	uint32_t *devs;
	uint64_t *inos;
	size_t nfiles, files_cap;
	uint32_t *file_slots;
	size_t file_slots_cap;
	/* tasks, by pid */
	struct task *tasks;
	size_t ntasks, tasks_cap;
	/* devices that added a folio larger than a page */
	uint32_t *large;
	size_t nlarge;
};

static unsigned pow2_floor(unsigned v)
{
	unsigned p = 1;

	while (v / 2 >= p)
		p *= 2;
	return p;
}

int access_log_new(unsigned fault_around_pages, size_t max, struct access_log **ret)
{
	struct access_log *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	if (fault_around_pages > MAX_WINDOW)
		fault_around_pages = MAX_WINDOW;
	l->fault_around = pow2_floor(fault_around_pages ? fault_around_pages : 1);
	l->max = max;
	*ret = l;
	return 0;
}

void access_log_free(struct access_log *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nchunks; i++)
		free(l->chunks[i]);
	free(l->chunks);
	free(l->devs);
	free(l->inos);
	free(l->file_slots);
	free(l->tasks);
	free(l->large);
	free(l);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return x;
}

static uint64_t file_hash(uint32_t dev, uint64_t ino)
{
	return mix(ino * 31 + dev);
}

/* The number of file (@dev, @ino), made on first use; -ENOMEM. */
static int file_id(struct access_log *l, uint32_t dev, uint64_t ino, uint32_t *ret)
{
	size_t mask, i;

	if (2 * (l->nfiles + 1) > l->file_slots_cap) {
		size_t cap = l->file_slots_cap ? 2 * l->file_slots_cap : 256;
		uint32_t *slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (size_t f = 0; f < l->nfiles; f++) {
			for (i = file_hash(l->devs[f], l->inos[f]) & (cap - 1); slots[i];
			     i = (i + 1) & (cap - 1))
				;
			slots[i] = (uint32_t)f + 1;
		}
		free(l->file_slots);
		l->file_slots = slots;
		l->file_slots_cap = cap;
	}
	mask = l->file_slots_cap - 1;
	for (i = file_hash(dev, ino) & mask; l->file_slots[i]; i = (i + 1) & mask) {
		uint32_t f = l->file_slots[i] - 1;

		if (l->devs[f] == dev && l->inos[f] == ino) {
			*ret = f;
			return 0;
		}
	}
	if (l->nfiles == l->files_cap) {
		size_t cap = l->files_cap ? 2 * l->files_cap : 256;
		uint32_t *devs = realloc(l->devs, cap * sizeof(*devs));
		uint64_t *inos;

		if (!devs)
			return -ENOMEM;
		l->devs = devs;
		inos = realloc(l->inos, cap * sizeof(*inos));
		if (!inos)
			return -ENOMEM;
		l->inos = inos;
		l->files_cap = cap;
	}
	l->devs[l->nfiles] = dev;
	l->inos[l->nfiles] = ino;
	l->file_slots[i] = (uint32_t)l->nfiles + 1;
	*ret = (uint32_t)l->nfiles++;
	return 0;
}

/* The state of task @pid, made on first use; NULL without memory. */
static struct task *task_of(struct access_log *l, int pid)
{
	size_t mask, i;

	if (2 * (l->ntasks + 1) > l->tasks_cap) {
		size_t cap = l->tasks_cap ? 2 * l->tasks_cap : 256;
		struct task *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t k = 0; k < l->tasks_cap; k++) {
			if (!l->tasks[k].used)
				continue;
			for (i = mix((uint64_t)l->tasks[k].pid) & (cap - 1); t[i].used;
			     i = (i + 1) & (cap - 1))
				;
			t[i] = l->tasks[k];
		}
		free(l->tasks);
		l->tasks = t;
		l->tasks_cap = cap;
	}
	mask = l->tasks_cap - 1;
	for (i = mix((uint64_t)pid) & mask; l->tasks[i].used; i = (i + 1) & mask)
		if (l->tasks[i].pid == pid)
			return &l->tasks[i];
	l->tasks[i] = (struct task){ .pid = pid, .used = true };
	l->ntasks++;
	return &l->tasks[i];
}

static struct rec *rec_at(const struct access_log *l, size_t i)
{
	return &l->chunks[i / CHUNK_RECS][i % CHUNK_RECS];
}

/* Stop the log: at its limit, or out of memory. */
static void stop(struct access_log *l)
{
	l->truncated = true;
}

/* A new record of task @t at event time @ts (file, pages and kind set by the caller). */
static struct rec *append(struct access_log *l, struct task *t, const struct trace_event *ev,
			  uint64_t t0)
{
	uint64_t time = ev->ts > t0 ? ev->ts - t0 : 0;
	struct rec *r;

	if (l->count >= l->max) {
		stop(l);
		return NULL;
	}
	if (l->count % CHUNK_RECS == 0 && l->count / CHUNK_RECS == l->nchunks) {
		struct rec **chunks = realloc(l->chunks, (l->nchunks + 1) * sizeof(struct rec *));

		if (!chunks) {
			stop(l);
			return NULL;
		}
		l->chunks = chunks;
		l->chunks[l->nchunks] = malloc(CHUNK_RECS * sizeof(struct rec));
		if (!l->chunks[l->nchunks]) {
			stop(l);
			return NULL;
		}
		l->nchunks++;
	}
	/* the buffers of several CPUs are merged a round at a time: keep the log in order */
	if (time < l->last_time)
		time = l->last_time;
	l->last_time = time;
	r = rec_at(l, l->count++);
	*r = (struct rec){ .time = time, .pid = (uint32_t)ev->pid };
	t->last = l->count;
	t->last_ts = ev->ts;
	return r;
}

/* A user fault of @t recent enough to be the one behind an event at @ts. */
static bool fresh_fault(const struct task *t, uint64_t ts)
{
	return t->fault && t->fault_ts <= ts && ts - t->fault_ts <= TRACE_FAULT_MAX_AGE_NS;
}

static int on_read(struct access_log *l, struct task *t, const struct trace_event *ev,
		   uint32_t file, uint64_t t0)
{
	struct rec *r;

	if (ev->last < ev->first || ev->last >= MAX_PAGE || ev->last - ev->first > UINT32_MAX)
		return 0;
	t->fault = false;	/* a read() of the task: its faults are over */
	r = append(l, t, ev, t0);
	if (!r)
		return 0;
	r->file = file;
	r->kind = URA_PACK_ACCESS_READ;
	r->first = ev->first;
	r->extent = (uint32_t)(ev->last - ev->first);
	return 0;
}

/* Whether the task's latest record is a fault of @file, made or changed within the age limit. */
static struct rec *recent_fault(struct access_log *l, const struct task *t, uint32_t file,
				uint64_t ts)
{
	struct rec *r;

	if (!t->last || t->last_ts > ts || ts - t->last_ts > TRACE_FAULT_MAX_AGE_NS)
		return NULL;
	r = rec_at(l, t->last - 1);
	return r->kind == URA_PACK_ACCESS_FAULT && r->file == file ? r : NULL;
}

/*
 * A fault-around window [first, last]: the kernel maps the cached pages of the
 * window around a read fault, starting at the fault's virtual page rounded down
 * to the window size (unless the mapping starts later). So the page touched
 * is the window's first plus the fault's virtual page modulo the window size,
 * as trace-demand.c's map_window() has it. When that falls past the window,
 * the window was clipped at the mapping's start: the page is in the window,
 * but which is a guess (unless the window has one page).
 */
static int on_window(struct access_log *l, struct task *t, const struct trace_event *ev,
		     uint32_t file, uint64_t t0)
{
	uint64_t first = ev->first, last = ev->last, page = first;
	uint8_t flags = URA_PACK_ACCESS_GUESSED;
	struct rec *r;

	if (last < first || last >= MAX_PAGE)
		return 0;
	if (last - first >= MAX_WINDOW)
		last = first + MAX_WINDOW - 1;
	if (fresh_fault(t, ev->ts)) {
		uint64_t touched = first + (t->fault_vpage & (l->fault_around - 1));

		flags = t->fault_exec ? URA_PACK_ACCESS_EXEC : 0;
		if (touched <= last)
			page = touched;
		else if (first != last)	/* clipped at the mapping's start: a guess */
			flags |= URA_PACK_ACCESS_GUESSED;
		t->fault = false;	/* one fault, one window */
	} else if ((r = recent_fault(l, t, file, ev->ts)) &&
		   !(r->flags & URA_PACK_ACCESS_NO_AROUND) &&
		   r->first - WIN_BEFORE(r->extent) == first &&
		   r->first - WIN_BEFORE(r->extent) + WIN_LAST(r->extent) == last) {
		/* the same window again: the fault retried after its page was read */
		t->last_ts = ev->ts;
		return 0;
	}
	r = append(l, t, ev, t0);
	if (!r)
		return 0;
	r->file = file;
	r->kind = URA_PACK_ACCESS_FAULT;
	r->flags = flags;
	r->first = page;
	r->extent = WIN(page - first, last - first);
	return 0;
}

/*
 * A file fault on page @page: filemap_fault ran because fault-around did not
 * map the page (it was not cached, or there was no fault-around: a write).
 */
static int on_file_fault(struct access_log *l, struct task *t, const struct trace_event *ev,
			 uint32_t file, uint64_t t0)
{
	uint64_t page = ev->first, wfirst;
	struct rec *r;

	if (page >= MAX_PAGE)
		return 0;
	/* the fault its task's last record is: no user fault since, the page in its window */
	r = fresh_fault(t, ev->ts) ? NULL : recent_fault(l, t, file, ev->ts);
	if (r && !(r->flags & URA_PACK_ACCESS_NO_AROUND)) {
		uint64_t a = r->first - WIN_BEFORE(r->extent), z = a + WIN_LAST(r->extent);

		if (page >= a && page <= z) {
			r->flags = (uint8_t)((r->flags | URA_PACK_ACCESS_MISSED) &
					     ~URA_PACK_ACCESS_GUESSED);
			r->first = page;
			r->extent = WIN(page - a, z - a);
			t->last_ts = ev->ts;
			return 0;
		}
	} else if (r && r->first == page) {
		r->flags |= URA_PACK_ACCESS_MISSED;
		t->last_ts = ev->ts;
		return 0;
	}
	r = append(l, t, ev, t0);
	if (!r)
		return 0;
	r->file = file;
	r->kind = URA_PACK_ACCESS_FAULT;
	r->first = page;
	if (!fresh_fault(t, ev->ts)) {
		/* no read fault seen: a write or copy-on-write fault (the tracer filters those) */
		r->flags = URA_PACK_ACCESS_NO_AROUND | URA_PACK_ACCESS_MISSED;
		return 0;
	}
	/* a cold read fault: no page of its window was cached, so no map_pages */
	r->flags = URA_PACK_ACCESS_MISSED | (t->fault_exec ? URA_PACK_ACCESS_EXEC : 0);
	wfirst = page - (t->fault_vpage & (l->fault_around - 1));
	if (wfirst > page)
		wfirst = 0;	/* the mapping starts at the file's start, mid-window */
	r->extent = WIN(page - wfirst, l->fault_around - 1);
	t->fault = false;
	return 0;
}

static void mark_large(struct access_log *l, uint32_t dev)
{
	uint32_t *v;

	for (size_t i = 0; i < l->nlarge; i++)
		if (l->large[i] == dev)
			return;
	v = realloc(l->large, (l->nlarge + 1) * sizeof(*v));
	if (!v)
		return;		/* a fact lost, not the log */
	l->large = v;
	l->large[l->nlarge++] = dev;
}

int access_feed(struct access_log *l, const struct trace_event *ev, uint64_t t0)
{
	struct task *t;
	uint32_t file;

	if (ev->type == TRACE_EVENT_ADD) {
		if (ev->order > 0)
			mark_large(l, ev->dev);
		return 0;
	}
	if (l->truncated || ev->type >= TRACE_NR_EVENTS)
		return 0;
	t = task_of(l, ev->pid);
	if (!t) {
		stop(l);
		return 0;
	}
	if (ev->type == TRACE_EVENT_PF_USER) {
		t->fault = true;
		t->fault_vpage = ev->address >> 12;
		t->fault_ts = ev->ts;
		t->fault_exec = ev->error_code & PF_INSTR;
		return 0;
	}
	if (file_id(l, ev->dev, ev->ino, &file) < 0) {
		stop(l);
		return 0;
	}
	switch (ev->type) {
	case TRACE_EVENT_GET_PAGES:
		return on_read(l, t, ev, file, t0);
	case TRACE_EVENT_MAP_PAGES:
		return on_window(l, t, ev, file, t0);
	case TRACE_EVENT_FAULT:
		return on_file_fault(l, t, ev, file, t0);
	default:
		return 0;
	}
}

size_t access_count(const struct access_log *l)
{
	return l->count;
}

bool access_truncated(const struct access_log *l)
{
	return l->truncated;
}

void access_get(const struct access_log *l, size_t i, struct ura_pack_access *ret)
{
	const struct rec *r = rec_at(l, i);

	*ret = (struct ura_pack_access){ .time_ns = r->time, .file_index = r->file,
					 .stream = r->pid, .kind = r->kind, .flags = r->flags,
					 .first = r->first, .last = r->first };
	if (r->kind == URA_PACK_ACCESS_READ) {
		ret->last = r->first + r->extent;
	} else if (!(r->flags & URA_PACK_ACCESS_NO_AROUND)) {
		ret->around_first = r->first - WIN_BEFORE(r->extent);
		ret->around_last = ret->around_first + WIN_LAST(r->extent);
	}
}

size_t access_file_count(const struct access_log *l)
{
	return l->nfiles;
}

void access_file(const struct access_log *l, uint32_t id, uint32_t *ret_dev, uint64_t *ret_ino)
{
	*ret_dev = l->devs[id];
	*ret_ino = l->inos[id];
}

bool access_large_folios(const struct access_log *l, uint32_t dev)
{
	for (size_t i = 0; i < l->nlarge; i++)
		if (l->large[i] == dev)
			return true;
	return false;
}

unsigned access_fault_around(const struct access_log *l)
{
	return l->fault_around;
}

unsigned access_read_fault_around(const char *path)
{
	char buf[32];
	unsigned long long bytes;
	char *end;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return KERNEL_FAULT_AROUND_PAGES;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return KERNEL_FAULT_AROUND_PAGES;
	buf[n] = '\0';
	bytes = strtoull(buf, &end, 10);
	if (end == buf || (*end && *end != '\n') || bytes / 4096 == 0 || bytes / 4096 > MAX_WINDOW)
		return KERNEL_FAULT_AROUND_PAGES;
	return pow2_floor((unsigned)(bytes / 4096));
}
