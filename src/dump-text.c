// SPDX-License-Identifier: GPL-2.0-or-later
/* Rendering a pack for people (ureadahead --dump style), for totals, and as JSON */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dump-text.h"
#include "util-json.h"
#include "util.h"

#define MAP_WIDTH	64	/* characters in a page-map line */

/* The pack's files in display order, with the index that lists each one's ranges. */
struct by_file {
	struct ura_pack_index *index;
	size_t nfiles;
	size_t *order;		/* files in display order */
	const struct ura_pack *pack;
};

static void by_file_free(struct by_file *g)
{
	ura_pack_index_free(g->index);
	free(g->order);
}

static const struct ura_pack *sort_pack;	/* qsort has no context argument */

static int cmp_path(const void *a, const void *b)
{
	struct ura_pack_file fa, fb;
	struct ura_pack_fs sa, sb;
	int c;

	ura_pack_get_file(sort_pack, *(const size_t *)a, &fa);
	ura_pack_get_file(sort_pack, *(const size_t *)b, &fb);
	ura_pack_get_fs(sort_pack, fa.fs_index, &sa);
	ura_pack_get_fs(sort_pack, fb.fs_index, &sb);
	c = strcmp(sa.mount_point, sb.mount_point);
	return c ? c : strcmp(fa.path, fb.path);
}

static int cmp_size(const void *a, const void *b)
{
	struct ura_pack_file fa, fb;

	ura_pack_get_file(sort_pack, *(const size_t *)a, &fa);
	ura_pack_get_file(sort_pack, *(const size_t *)b, &fb);
	if (fa.size != fb.size)
		return fa.size > fb.size ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int group_by_file(const struct ura_pack *pack, enum dump_sort sort, struct by_file *g)
{
	const uint32_t *files;
	size_t nf;
	int r;

	*g = (struct by_file){ .pack = pack };
	r = ura_pack_index_new(pack, URA_PACK_INDEX_RANGES, &g->index);
	if (r < 0)
		return r;
	r = ura_pack_index_files(g->index, &files, &nf);
	if (r < 0) {
		by_file_free(g);
		return r;
	}
	g->order = malloc((nf ? nf : 1) * sizeof(*g->order));
	if (!g->order) {
		by_file_free(g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nf; i++)		/* first access, files without ranges last */
		g->order[i] = files[i];
	g->nfiles = nf;
	sort_pack = pack;
	if (sort == DUMP_SORT_PATH)
		qsort(g->order, nf, sizeof(*g->order), cmp_path);
	else if (sort == DUMP_SORT_SIZE)
		qsort(g->order, nf, sizeof(*g->order), cmp_size);
	return 0;
}

/* The ranges of @file, in page order. */
static const uint32_t *file_ranges(const struct by_file *g, size_t file, size_t *ret_count)
{
	const uint32_t *idx = NULL;

	if (ura_pack_index_file_ranges(g->index, file, &idx, ret_count) < 0)
		*ret_count = 0;
	return idx;
}

void dump_totals(const struct ura_pack *pack, struct dump_totals *ret)
{
	struct dump_totals t = { .files = ura_pack_file_count(pack),
				 .ranges = ura_pack_range_count(pack),
				 .metadata_ranges = ura_pack_meta_count(pack) };

	for (size_t i = 0; i < t.ranges; i++) {
		struct ura_pack_range rg;

		ura_pack_get_range(pack, i, &rg);
		t.bytes += (uint64_t)rg.page_count * URA_PACK_PAGE_SIZE;
		if (rg.flags & URA_PACK_RANGE_DEMANDED)
			t.demanded_bytes += (uint64_t)rg.page_count * URA_PACK_PAGE_SIZE;
	}
	for (size_t i = 0; i < t.metadata_ranges; i++) {
		struct ura_pack_meta m;

		ura_pack_get_meta(pack, i, &m);
		t.metadata_bytes += m.length;
	}
	*ret = t;
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

void dump_format_time(int64_t ns, char *buf, size_t len)
{
	time_t secs = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns <= 0 || !gmtime_r(&secs, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "unknown");
}

void dump_format_bytes(uint64_t bytes, char *buf, size_t len)
{
	if (bytes < 1024)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else if (bytes < UINT64_C(1024) * 1024)
		snprintf(buf, len, "%.1f KiB", (double)bytes / 1024.0);
	else if (bytes < UINT64_C(1024) * 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", mib(bytes));
	else
		snprintf(buf, len, "%.2f GiB", mib(bytes) / 1024.0);
}

void dump_format_count(uint64_t n, char *buf, size_t len)
{
	char digits[24];
	size_t nd, o = 0;

	nd = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, n);
	for (size_t i = 0; i < nd && o + 2 < len; i++) {
		if (i && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	if (len)
		buf[o < len ? o : len - 1] = '\0';
}

void dump_format_duration(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000)
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.3f \xc2\xb5s", (double)ns / 1e3);
	else
		snprintf(buf, len, "%" PRIu64 " ns", ns);
}

static void print_uuid(FILE *f, const uint8_t *u)
{
	for (int i = 0; i < 16; i++)
		fprintf(f, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
}

/* ---- text ---- */

/*
 * One file per line: a newline, a control byte or a backslash in a name is
 * written as a C-style escape (\n, \t, \\, \ooo), as ls -b does, so a hostile
 * name cannot forge lines. Other bytes, UTF-8 included, pass unchanged.
 */
void dump_print_escaped(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\%03o", *p);
		else
			fputc(*p, f);
	}
}

/*
 * One character per bucket of pages, over the whole file: '#' some page of
 * the bucket is demanded, '-' pages in the pack but only speculative, '.' none.
 */
static void page_map(FILE *f, const struct by_file *g, size_t file, uint64_t file_pages)
{
	char map[MAP_WIDTH + 1];
	uint64_t per, cells;
	size_t n;
	const uint32_t *idx = file_ranges(g, file, &n);

	for (size_t k = 0; k < n; k++) {
		struct ura_pack_range rg;

		ura_pack_get_range(g->pack, idx[k], &rg);
		if (rg.first_page + rg.page_count > file_pages)
			file_pages = rg.first_page + rg.page_count;	/* file grew or shrank */
	}
	if (file_pages == 0)
		return;
	per = (file_pages + MAP_WIDTH - 1) / MAP_WIDTH;
	cells = (file_pages + per - 1) / per;
	memset(map, '.', cells);
	map[cells] = '\0';
	for (size_t k = 0; k < n; k++) {
		struct ura_pack_range rg;

		ura_pack_get_range(g->pack, idx[k], &rg);
		for (uint64_t c = rg.first_page / per; c <= (rg.first_page + rg.page_count - 1) / per;
		     c++) {
			if (rg.flags & URA_PACK_RANGE_DEMANDED)
				map[c] = '#';
			else if (map[c] == '.')
				map[c] = '-';
		}
	}
	fprintf(f, "\t[%s]\n", map);
}

static void text_file(FILE *f, const struct by_file *g, size_t i)
{
	struct ura_pack_file file;
	struct ura_pack_fs fs;
	uint64_t pages = 0, demanded = 0;
	uint32_t lo = UINT32_MAX, hi = 0, support;
	size_t n, runs = ura_pack_runs(g->pack);
	const uint32_t *idx = file_ranges(g, i, &n);
	char *path;

	ura_pack_get_file(g->pack, i, &file);
	ura_pack_get_fs(g->pack, file.fs_index, &fs);
	for (size_t k = 0; k < n; k++) {
		struct ura_pack_range rg;

		ura_pack_get_range(g->pack, idx[k], &rg);
		ura_pack_get_range_support(g->pack, idx[k], &support, NULL);
		pages += rg.page_count;
		if (rg.flags & URA_PACK_RANGE_DEMANDED)
			demanded += rg.page_count;
		lo = support < lo ? support : lo;
		hi = support > hi ? support : hi;
	}
	path = path_join(fs.mount_point, file.path);
	dump_print_escaped(f, path ? path : file.path);
	fprintf(f, " (%" PRIu64 " bytes, %" PRIu64 " pages in pack, %" PRIu64 " demanded",
		file.size, pages, demanded);
	if (runs > 1 && n && lo == hi)	/* merged: in how many of the runs its ranges were */
		fprintf(f, ", support %u of %zu runs", lo, runs);
	else if (runs > 1 && n)
		fprintf(f, ", support %u-%u of %zu runs", lo, hi, runs);
	fputs(")\n", f);
	free(path);
	page_map(f, g, i, (file.size + URA_PACK_PAGE_SIZE - 1) / URA_PACK_PAGE_SIZE);
}

/* The access log's records by kind. */
static void access_counts(const struct ura_pack *pack, size_t *ret_reads, size_t *ret_faults)
{
	size_t reads = 0, faults = 0;

	for (size_t i = 0; i < ura_pack_access_count(pack); i++) {
		struct ura_pack_access a;

		if (ura_pack_get_access(pack, i, &a) < 0)
			break;
		reads += a.kind == URA_PACK_ACCESS_READ;
		faults += a.kind == URA_PACK_ACCESS_FAULT;
	}
	*ret_reads = reads;
	*ret_faults = faults;
}

static void text_header(FILE *f, const struct ura_pack *pack, const char *name)
{
	struct ura_pack_info info;
	unsigned major, minor;
	char when[32];

	ura_pack_get_info(pack, &info);
	ura_pack_version(pack, &major, &minor);
	dump_format_time(info.created_ns, when, sizeof(when));
	fprintf(f, "pack %s: format %u.%u, created %s", name, major, minor, when);
	if (ura_pack_runs(pack) > 1)
		fprintf(f, ", merged from %zu runs", ura_pack_runs(pack));
	if (*info.command)
		fprintf(f, ", command '%s'", info.command);
	if (ura_pack_access_count(pack))
		fprintf(f, ", %zu accesses logged", ura_pack_access_count(pack));
	fputc('\n', f);
}

/* part/whole in %, or "-" with nothing to divide */
static void ratio(FILE *f, uint64_t part, uint64_t whole)
{
	if (whole)
		fprintf(f, "%5.1f%%", 100.0 * (double)part / (double)whole);
	else
		fputs("     -", f);
}

static void json_ratio(FILE *f, uint64_t part, uint64_t whole)
{
	if (whole)
		fprintf(f, "%.4f", (double)part / (double)whole);
	else
		fputs("null", f);
}

/* Pages of @file in the pack, and of those the demanded ones. */
static void file_pages(const struct by_file *g, size_t file, uint64_t *ret_pages,
		       uint64_t *ret_demanded)
{
	size_t n;
	const uint32_t *idx = file_ranges(g, file, &n);

	*ret_pages = *ret_demanded = 0;
	for (size_t k = 0; k < n; k++) {
		struct ura_pack_range rg;

		if (ura_pack_get_range(g->pack, idx[k], &rg) < 0)
			continue;
		*ret_pages += rg.page_count;
		if (rg.flags & URA_PACK_RANGE_DEMANDED)
			*ret_demanded += rg.page_count;
	}
}

/*
 * Per file: pages added, demanded, speculative, and with an access log the
 * readahead hit ratio (pages read beyond those asked for that were used) and
 * the page-cache hit ratio (pages asked for found cached), in the order of --sort.
 */
static void stats_hits(FILE *f, const struct by_file *g, const struct dump_hits *hits)
{
	if (hits) {
		fprintf(f, "readahead hit: ");
		ratio(f, hits->total.ra_used, hits->total.ra_pages);
		fprintf(f, " of %" PRIu64 " pages read ahead were used; page-cache hit: ",
			hits->total.ra_pages);
		ratio(f, hits->total.hits, hits->total.accessed);
		fprintf(f, " of %" PRIu64 " pages asked for (emulated at %" PRIu32 " KiB)\n",
			hits->total.accessed, hits->window_kb);
	} else {
		fputs("readahead hit: unknown (the pack has no access log)\n", f);
	}
	fputs("\n   added demanded speculative ra hit cache hit  file\n", f);
	for (size_t k = 0; k < g->nfiles; k++) {
		size_t i = g->order[k];
		uint64_t added, demanded;
		struct ura_pack_file file;
		struct ura_pack_fs fs;
		char *path;

		file_pages(g, i, &added, &demanded);
		if (!added || ura_pack_get_file(g->pack, i, &file) < 0 ||
		    ura_pack_get_fs(g->pack, file.fs_index, &fs) < 0)
			continue;
		fprintf(f, "%8" PRIu64 " %8" PRIu64 " %11" PRIu64 " ", added, demanded,
			added - demanded);
		ratio(f, hits ? hits->per_file[i].ra_used : 0, hits ? hits->per_file[i].ra_pages : 0);
		fputs("    ", f);
		ratio(f, hits ? hits->per_file[i].hits : 0, hits ? hits->per_file[i].accessed : 0);
		fputs("  ", f);
		path = path_join(fs.mount_point, file.path);
		dump_print_escaped(f, path ? path : file.path);
		free(path);
		fputc('\n', f);
	}
}

static void json_hits(FILE *f, uint64_t added, uint64_t demanded, const struct ra_counts *c)
{
	fprintf(f, "{\"pages_added\": %" PRIu64 ", \"demanded\": %" PRIu64 ", \"speculative\": %"
		PRIu64, added, demanded, added - demanded);
	if (c) {
		fprintf(f, ", \"readahead_pages\": %" PRIu64 ", \"readahead_used\": %" PRIu64
			", \"readahead_hit_ratio\": ", c->ra_pages, c->ra_used);
		json_ratio(f, c->ra_used, c->ra_pages);
		fprintf(f, ", \"accessed\": %" PRIu64 ", \"cache_hits\": %" PRIu64
			", \"page_cache_hit_ratio\": ", c->accessed, c->hits);
		json_ratio(f, c->hits, c->accessed);
	}
	fputc('}', f);
}

static void stats(FILE *f, const struct ura_pack *pack, const char *name)
{
	struct ura_pack_info info;
	struct dump_totals t;

	ura_pack_get_info(pack, &info);
	dump_totals(pack, &t);
	text_header(f, pack, name);
	fprintf(f, "kernel:       %s\n", *info.kernel_release ? info.kernel_release : "unknown");
	fprintf(f, "trace:        %.3f s%s%s%s\n", (double)info.duration_ns / 1e9,
		info.flags & URA_PACK_INFO_SYSTEM ? ", system-wide" : "",
		info.flags & URA_PACK_INFO_COLD ? ", cold" : "",
		info.flags & URA_PACK_INFO_NO_ACCESS_EVENTS ? ", no access events (all demanded)" : "");
	if (info.read_ahead_kb)
		fprintf(f, "read-ahead:   %u KiB (forced during the trace)\n", info.read_ahead_kb);
	if (ura_pack_runs(pack) > 1) {
		int64_t oldest;
		char when[32];

		ura_pack_get_run(pack, ura_pack_runs(pack) - 1, &oldest, NULL);
		dump_format_time(oldest, when, sizeof(when));
		fprintf(f, "runs:         %zu merged, the oldest from %s\n", ura_pack_runs(pack),
			when);
	}
	fprintf(f, "filesystems:  %zu\n", ura_pack_fs_count(pack));
	fprintf(f, "files:        %" PRIu64 "\n", t.files);
	fprintf(f, "ranges:       %" PRIu64 "\n", t.ranges);
	fprintf(f, "data:         %.1f MiB (%.1f MiB demanded, %.1f MiB speculative)\n",
		mib(t.bytes), mib(t.demanded_bytes), mib(t.bytes - t.demanded_bytes));
	fprintf(f, "metadata:     %.1f MiB in %" PRIu64 " ranges\n", mib(t.metadata_bytes),
		t.metadata_ranges);
	if (ura_pack_pending_count(pack))
		fprintf(f, "pending:      %zu ranges too few runs had (kept for later merges)\n",
			ura_pack_pending_count(pack));
	if (ura_pack_access_count(pack)) {
		size_t reads, faults;

		access_counts(pack, &reads, &faults);
		fprintf(f, "access log:   %zu accesses (%zu reads, %zu faults)%s\n",
			ura_pack_access_count(pack), reads, faults,
			info.flags & URA_PACK_INFO_ACCESS_TRUNCATED ? ", truncated at its limit" : "");
	} else {
		fputs("access log:   none\n", f);
	}
	fprintf(f, "lost events:  %" PRIu64 "\n", info.lost_events);
	fprintf(f, "unresolved:   %" PRIu64 " inodes, %.1f MiB\n", info.unresolved_inodes,
		mib(info.unresolved_bytes));
}

static void text(FILE *f, const struct ura_pack *pack, const char *name, const struct by_file *g)
{
	size_t nmeta = ura_pack_meta_count(pack);

	text_header(f, pack, name);
	for (size_t k = 0; k < g->nfiles; k++)
		text_file(f, g, g->order[k]);
	for (size_t i = 0; i < nmeta; i++) {
		struct ura_pack_meta m;

		uint32_t support;

		ura_pack_get_meta(pack, i, &m);
		ura_pack_get_meta_support(pack, i, &support, NULL);
		fprintf(f, "metadata %u:%u offset %" PRIu64 " length %" PRIu64 " at %.6f s",
			m.major, m.minor, m.offset, m.length, (double)m.first_access_ns / 1e9);
		if (ura_pack_runs(pack) > 1)
			fprintf(f, ", support %u of %zu runs", support, ura_pack_runs(pack));
		fputc('\n', f);
	}
}

/* ---- JSON ---- */

static void json_fs(FILE *f, const struct ura_pack *pack, size_t i)
{
	struct ura_pack_ra_fs ra;
	struct ura_pack_fs fs;

	ura_pack_get_fs(pack, i, &fs);
	fprintf(f, "%s\n    {\"index\": %zu, \"dev\": \"%u:%u\", \"major\": %u, \"minor\": %u, "
		"\"mount_point\": ", i ? "," : "", i, fs.major, fs.minor, fs.major, fs.minor);
	json_quote(f, fs.mount_point);
	fputs(", \"fstype\": ", f);
	json_quote(f, fs.fstype);
	fputs(", \"source\": ", f);
	json_quote(f, fs.source);
	fputs(", \"uuid\": ", f);
	if (fs.flags & URA_PACK_FS_HAS_UUID) {
		fputc('"', f);
		print_uuid(f, fs.uuid);
		fputc('"', f);
	} else {
		fputs("null", f);
	}
	fprintf(f, ", \"read_ahead_kb\": %u, \"ra\": ", fs.read_ahead_kb);
	if (ura_pack_get_ra_fs(pack, i, &ra) == 0)
		fprintf(f, "{\"max_sectors_kb\": %u, \"fault_around_pages\": %u, "
			"\"large_folios\": %s, \"max_segments\": %u, \"max_segment_kb\": %u}",
			ra.max_sectors_kb, ra.fault_around_pages,
			ra.flags & URA_PACK_RA_FS_LARGE_FOLIOS ? "true" : "false", ra.max_segments,
			ra.max_segment_kb);
	else
		fputs("null", f);
	fputc('}', f);
}

static void json_file(FILE *f, const struct by_file *g, size_t i, bool first,
		      const struct dump_hits *hits)
{
	struct ura_pack_file file;
	struct ura_pack_fs fs;
	size_t n;
	const uint32_t *idx = file_ranges(g, i, &n);
	uint64_t added, demanded;
	char *path;

	ura_pack_get_file(g->pack, i, &file);
	ura_pack_get_fs(g->pack, file.fs_index, &fs);
	path = path_join(fs.mount_point, file.path);
	fprintf(f, "%s\n    {\"path\": ", first ? "" : ",");
	json_quote(f, path ? path : file.path);
	free(path);
	fprintf(f, ", \"index\": %zu, \"fs\": %u, \"dev\": \"%u:%u\", \"ino\": %" PRIu64
		", \"size\": %" PRIu64 ", \"mtime_ns\": %" PRId64, i, file.fs_index, fs.major,
		fs.minor, file.ino, file.size, file.mtime_ns);
	if (file.flags & URA_PACK_FILE_HAS_GENERATION)
		fprintf(f, ", \"generation\": %" PRIu64, file.generation);
	if (file.flags & URA_PACK_FILE_HAS_BTIME)
		fprintf(f, ", \"btime_ns\": %" PRId64, file.btime_ns);
	fputs(", \"ranges\": [", f);
	for (size_t k = 0; k < n; k++) {
		struct ura_pack_range rg;
		uint32_t support;
		uint64_t mask;

		ura_pack_get_range(g->pack, idx[k], &rg);
		ura_pack_get_range_support(g->pack, idx[k], &support, &mask);
		fprintf(f, "%s{\"offset\": %" PRIu64 ", \"length\": %" PRIu64
			", \"first_access_ns\": %" PRIu64 ", \"demanded\": %s, \"support\": %u"
			", \"run_mask\": %" PRIu64 "}",
			k == 0 ? "" : ", ", rg.first_page * URA_PACK_PAGE_SIZE,
			(uint64_t)rg.page_count * URA_PACK_PAGE_SIZE, rg.first_access_ns,
			rg.flags & URA_PACK_RANGE_DEMANDED ? "true" : "false", support, mask);
	}
	file_pages(g, i, &added, &demanded);
	fputs("], \"hits\": ", f);
	json_hits(f, added, demanded, hits ? &hits->per_file[i] : NULL);
	fputc('}', f);
}

/* One record of the access log: {"time_ns", "file", "stream", "kind", "first", "last", ...}. */
static void json_access(FILE *f, const struct ura_pack_access *a, bool first)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} flags[] = {
		{ URA_PACK_ACCESS_EXEC, "exec" }, { URA_PACK_ACCESS_NO_AROUND, "no_around" },
		{ URA_PACK_ACCESS_MISSED, "missed" }, { URA_PACK_ACCESS_GUESSED, "guessed" },
	};

	fprintf(f, "%s\n    {\"time_ns\": %" PRIu64 ", \"file\": %u, \"stream\": %u, "
		"\"kind\": \"%s\", \"first\": %" PRIu64 ", \"last\": %" PRIu64, first ? "" : ",",
		a->time_ns, a->file_index, a->stream,
		a->kind == URA_PACK_ACCESS_READ ? "read" : "fault", a->first, a->last);
	if (a->kind == URA_PACK_ACCESS_FAULT && !(a->flags & URA_PACK_ACCESS_NO_AROUND))
		fprintf(f, ", \"around_first\": %" PRIu64 ", \"around_last\": %" PRIu64,
			a->around_first, a->around_last);
	fputs(", \"flags\": [", f);
	for (size_t k = 0, n = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
		if (a->flags & flags[k].flag)
			fprintf(f, "%s\"%s\"", n++ ? ", " : "", flags[k].name);
	fputs("]}", f);
}

static void json(FILE *f, const struct ura_pack *pack, const struct by_file *g,
		 const struct dump_hits *hits)
{
	struct ura_pack_info info;
	struct dump_totals t;
	unsigned major, minor;
	char when[32];

	ura_pack_get_info(pack, &info);
	ura_pack_version(pack, &major, &minor);
	dump_totals(pack, &t);
	dump_format_time(info.created_ns, when, sizeof(when));
	fprintf(f, "{\n  \"version\": \"%u.%u\",\n  \"created\": \"%s\",\n  \"created_ns\": %" PRId64
		",\n", major, minor, when, info.created_ns);
	fprintf(f, "  \"runs\": %zu,\n  \"run_list\": [", ura_pack_runs(pack));
	for (size_t i = 0; i < ura_pack_runs(pack); i++) {
		int64_t created;
		uint64_t duration;

		ura_pack_get_run(pack, i, &created, &duration);
		fprintf(f, "%s{\"created_ns\": %" PRId64 ", \"duration_ns\": %" PRIu64 "}",
			i ? ", " : "", created, duration);
	}
	fputs("],\n", f);
	fputs("  \"trace\": {\"kernel_release\": ", f);
	json_quote(f, info.kernel_release);
	fputs(", \"command\": ", f);
	json_quote(f, info.command);
	fprintf(f, ", \"duration_ns\": %" PRIu64 ", \"lost_events\": %" PRIu64
		", \"unresolved_inodes\": %" PRIu64 ", \"unresolved_bytes\": %" PRIu64
		", \"read_ahead_kb\": %u, \"access_events\": %s, \"system\": %s, \"cold\": %s"
		", \"access_log_truncated\": %s},\n",
		info.duration_ns, info.lost_events, info.unresolved_inodes, info.unresolved_bytes,
		info.read_ahead_kb, info.flags & URA_PACK_INFO_NO_ACCESS_EVENTS ? "false" : "true",
		info.flags & URA_PACK_INFO_SYSTEM ? "true" : "false",
		info.flags & URA_PACK_INFO_COLD ? "true" : "false",
		info.flags & URA_PACK_INFO_ACCESS_TRUNCATED ? "true" : "false");
	fputs("  \"filesystems\": [", f);
	for (size_t i = 0; i < ura_pack_fs_count(pack); i++)
		json_fs(f, pack, i);
	fputs("\n  ],\n  \"files\": [", f);
	for (size_t k = 0; k < g->nfiles; k++)
		json_file(f, g, g->order[k], k == 0, hits);
	fputs("\n  ],\n  \"metadata\": [", f);
	for (size_t i = 0; i < ura_pack_meta_count(pack); i++) {
		struct ura_pack_meta m;
		uint32_t support;
		uint64_t mask;

		ura_pack_get_meta(pack, i, &m);
		ura_pack_get_meta_support(pack, i, &support, &mask);
		fprintf(f, "%s\n    {\"device\": \"%u:%u\", \"fs\": ", i ? "," : "", m.major, m.minor);
		if (m.fs_index == URA_PACK_NO_INDEX)
			fputs("null", f);
		else
			fprintf(f, "%u", m.fs_index);
		fprintf(f, ", \"offset\": %" PRIu64 ", \"length\": %" PRIu64
			", \"first_access_ns\": %" PRIu64 ", \"support\": %u, \"run_mask\": %" PRIu64
			"}", m.offset, m.length, m.first_access_ns, support, mask);
	}
	fputs("\n  ],\n  \"pending\": [", f);
	for (size_t i = 0; i < ura_pack_pending_count(pack); i++) {
		struct ura_pack_range rg;
		struct ura_pack_file file;
		struct ura_pack_fs fs;
		uint32_t support;
		uint64_t mask;
		char *path;

		ura_pack_get_pending(pack, i, &rg, &support, &mask);
		ura_pack_get_file(pack, rg.file_index, &file);
		ura_pack_get_fs(pack, file.fs_index, &fs);
		path = path_join(fs.mount_point, file.path);
		fprintf(f, "%s\n    {\"path\": ", i ? "," : "");
		json_quote(f, path ? path : file.path);
		free(path);
		fprintf(f, ", \"offset\": %" PRIu64 ", \"length\": %" PRIu64
			", \"first_access_ns\": %" PRIu64 ", \"demanded\": %s, \"support\": %u"
			", \"run_mask\": %" PRIu64 "}", rg.first_page * URA_PACK_PAGE_SIZE,
			(uint64_t)rg.page_count * URA_PACK_PAGE_SIZE, rg.first_access_ns,
			rg.flags & URA_PACK_RANGE_DEMANDED ? "true" : "false", support, mask);
	}
	fprintf(f, "\n  ],\n  \"access_count\": %zu,\n  \"access\": [", ura_pack_access_count(pack));
	for (size_t i = 0; i < ura_pack_access_count(pack); i++) {
		struct ura_pack_access a;

		if (ura_pack_get_access(pack, i, &a) < 0)
			break;
		json_access(f, &a, i == 0);
	}
	fprintf(f, "\n  ],\n  \"totals\": {\"files\": %" PRIu64 ", \"ranges\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"demanded_bytes\": %" PRIu64
		", \"metadata_ranges\": %" PRIu64 ", \"metadata_bytes\": %" PRIu64 ", \"hits\": ",
		t.files, t.ranges, t.bytes, t.demanded_bytes, t.metadata_ranges, t.metadata_bytes);
	json_hits(f, t.bytes / URA_PACK_PAGE_SIZE, t.demanded_bytes / URA_PACK_PAGE_SIZE,
		  hits ? &hits->total : NULL);
	if (hits)
		fprintf(f, ", \"hit_window_kb\": %" PRIu32, hits->window_kb);
	fputs("}\n}\n", f);
}

int dump_pack(FILE *f, const struct ura_pack *pack, const char *name, enum dump_format format,
	      enum dump_sort sort, const struct dump_hits *hits)
{
	struct by_file g = { 0 };
	int r;

	r = group_by_file(pack, sort, &g);
	if (r < 0)
		return r;
	if (format == DUMP_STATS) {
		stats(f, pack, name);
		stats_hits(f, &g, hits);
	} else if (format == DUMP_JSON) {
		json(f, pack, &g, hits);
	} else {
		text(f, pack, name, &g);
	}
	by_file_free(&g);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
