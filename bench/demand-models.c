// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replay the events of a traced run through ura-trace's demand model
 * (src/trace-demand.c) at several fault-around distances, against the true
 * demand of a run without readahead.
 *
 *   URA_TRACE_EVENTS=run.ev   ura-trace --cold --pack run.pack -- CMD
 *   URA_TRACE_EVENTS=truth.ev ura-trace --cold --read-ahead-kb 4 --pack truth.pack -- CMD
 *   make bench/demand-models && bench/demand-models MAJ:MIN run.ev run.pack truth.ev
 *
 * Only files of device MAJ:MIN count. The true demand is every page the
 * read_ahead_kb 4 run added (no readahead: each was a demand miss). Models of
 * a fault-around window: "whole" (every cached page of it), "fault" (only the
 * page the user fault touched), "near-K" (the touched page and the window's
 * cached pages within K pages of it; ura-trace uses DEMAND_NEAR_PAGES).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ura/pack.h>

#include "trace-pageset.h"
#include "trace-demand.h"

struct page_key {
	uint64_t ino, page;
};

struct keys {
	struct page_key *v;
	size_t n, cap;
};

static void push(struct keys *k, uint64_t ino, uint64_t page)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 4096;
		k->v = realloc(k->v, k->cap * sizeof(*k->v));
		if (!k->v) {
			perror("realloc");
			exit(1);
		}
	}
	k->v[k->n++] = (struct page_key){ ino, page };
}

static int cmp_key(const void *a, const void *b)
{
	const struct page_key *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page;
}

/* Sort and drop duplicates. */
static void uniq(struct keys *k)
{
	size_t n = 0;

	qsort(k->v, k->n, sizeof(*k->v), cmp_key);
	for (size_t i = 0; i < k->n; i++)
		if (!n || cmp_key(&k->v[n - 1], &k->v[i]) != 0)
			k->v[n++] = k->v[i];
	k->n = n;
}

/* One line of an URA_TRACE_EVENTS log (trace-demand.c's print_event()); false when malformed. */
static bool parse_event(const char *line, struct trace_event *ev)
{
	static const char *const names[] = { "add", "fault", "get", "map", "pf" };
	static const enum trace_event_type types[] = { TRACE_EVENT_ADD, TRACE_EVENT_FAULT,
		TRACE_EVENT_GET_PAGES, TRACE_EVENT_MAP_PAGES, TRACE_EVENT_PF_USER };
	char kind[8];
	uint64_t a, b;
	int pid;

	memset(ev, 0, sizeof(*ev));
	if (sscanf(line, "%" SCNu64 " %d %7s", &ev->ts, &pid, kind) != 3)
		return false;
	ev->pid = pid;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(kind, names[i]) == 0)
			ev->type = types[i];
	if (ev->type == TRACE_EVENT_PF_USER && strcmp(kind, "pf") == 0)
		return sscanf(line, "%*u %*d %*s %" SCNx64 " %" SCNx64 " %" SCNx64, &ev->address,
			      &ev->ip, &ev->error_code) == 3;
	if (sscanf(line, "%*u %*d %*s %" SCNu32 " %" SCNu64 " %" SCNu64 " %" SCNu64, &ev->dev,
		   &ev->ino, &a, &b) != 4)
		return false;
	ev->first = a;
	if (strcmp(kind, "add") == 0) {
		if (b > 20)
			return false;
		ev->order = (unsigned)b;
		ev->last = a + (UINT64_C(1) << b) - 1;
	} else if (strcmp(kind, "fault") == 0) {
		ev->last = a;
	} else if (strcmp(kind, "get") == 0 || strcmp(kind, "map") == 0) {
		ev->last = b;
	} else {
		return false;
	}
	return true;
}

/* The pages of @dev the file's pack entry says the file has, by inode. */
static uint64_t file_pages(const struct ura_pack *pack, uint32_t major, uint32_t minor, uint64_t ino)
{
	for (size_t i = 0; i < ura_pack_file_count(pack); i++) {
		struct ura_pack_file f;
		struct ura_pack_fs fs;

		ura_pack_get_file(pack, i, &f);
		ura_pack_get_fs(pack, f.fs_index, &fs);
		if (f.ino == ino && fs.major == major && fs.minor == minor)
			return (f.size + URA_PACK_PAGE_SIZE - 1) / URA_PACK_PAGE_SIZE;
	}
	return UINT64_MAX;
}

static void run_model(const char *name, int near, const char *events, const struct ura_pack *pack,
		      uint32_t major, uint32_t minor, const struct keys *truth)
{
	uint32_t dev = major << 20 | minor;
	struct pageset_file *files = NULL;
	struct trace_demand d;
	struct keys demand = { 0 };
	size_t nfiles = 0, both = 0;
	char line[512];
	FILE *f;

	if (demand_init(&d) < 0 || !(f = fopen(events, "re"))) {
		fprintf(stderr, "cannot read '%s'\n", events);
		exit(1);
	}
	d.near_pages = near;
	while (fgets(line, sizeof(line), f)) {
		struct trace_event ev;

		if (parse_event(line, &ev) && demand_feed(&d, &ev) < 0) {
			fprintf(stderr, "out of memory\n");
			exit(1);
		}
	}
	fclose(f);
	if (pageset_files(d.pages, &files, &nfiles) < 0)
		exit(1);
	for (size_t i = 0; i < nfiles; i++) {
		struct pageset_range *rg = NULL;
		size_t n = 0;

		if (files[i].dev != dev)
			continue;
		if (pageset_file_ranges(d.pages, &files[i],
					file_pages(pack, major, minor, files[i].ino),
					demand_pack_flags(&d), &rg, &n) < 0)
			exit(1);
		for (size_t k = 0; k < n; k++)
			for (uint64_t p = 0; rg[k].demanded && p < rg[k].page_count; p++)
				push(&demand, files[i].ino, rg[k].first_page + p);
		free(rg);
	}
	uniq(&demand);
	for (size_t i = 0; i < demand.n; i++)
		both += bsearch(&demand.v[i], truth->v, truth->n, sizeof(*truth->v), cmp_key) != NULL;
	printf("%-8s demanded %7.2f MiB  true %7.2f MiB  ratio %4.2f  recall %4.2f  precision %4.2f\n",
	       name, demand.n / 256.0, truth->n / 256.0,
	       (double)demand.n / (double)(truth->n ? truth->n : 1),
	       (double)both / (double)(truth->n ? truth->n : 1),
	       (double)both / (double)(demand.n ? demand.n : 1));
	free(demand.v);
	free(files);
	demand_fini(&d);
}

int main(int argc, char **argv)
{
	struct keys truth = { 0 };
	struct ura_pack *pack = NULL;
	unsigned major, minor;
	char line[512], name[16];
	FILE *f;
	int r;

	if (argc != 5 || sscanf(argv[1], "%u:%u", &major, &minor) != 2) {
		fprintf(stderr, "usage: %s MAJ:MIN run.ev run.pack truth.ev\n", argv[0]);
		return 2;
	}
	r = ura_pack_open(argv[3], &pack);
	if (r < 0) {
		fprintf(stderr, "cannot read pack '%s': %s\n", argv[3], strerror(-r));
		return 1;
	}
	f = fopen(argv[4], "re");
	if (!f) {
		perror(argv[4]);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct trace_event ev;

		if (parse_event(line, &ev) && ev.type == TRACE_EVENT_ADD &&
		    ev.dev == (major << 20 | minor))
			for (uint64_t p = ev.first; p <= ev.last; p++)
				push(&truth, ev.ino, p);
	}
	fclose(f);
	uniq(&truth);
	run_model("whole", -1, argv[2], pack, major, minor, &truth);
	run_model("fault", 0, argv[2], pack, major, minor, &truth);
	for (int k = 2; k <= 8; k += 3) {
		snprintf(name, sizeof(name), "near-%d", k);
		run_model(name, k, argv[2], pack, major, minor, &truth);
	}
	free(truth.v);
	ura_pack_free(pack);
	return 0;
}
