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

/* A filesystem UUID in its usual form, 8-4-4-4-12 hex digits. */
static void format_uuid(const uint8_t *u, char buf[static 37])
{
	char *p = buf;

	for (int i = 0; i < 16; i++)
		p += sprintf(p, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
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

/* part/whole as a fraction, or null with nothing to divide */
static void json_ratio(struct json *j, const char *key, uint64_t part, uint64_t whole)
{
	if (whole)
		json_key_double(j, key, (double)part / (double)whole, 4);
	else
		json_key_null(j, key);
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

static void json_hits(struct json *j, uint64_t added, uint64_t demanded,
		      const struct ra_counts *c)
{
	json_object_begin(j, JSON_INLINE);
	json_key_u64(j, "pages_added", added);
	json_key_u64(j, "demanded", demanded);
	json_key_u64(j, "speculative", added - demanded);
	if (c) {
		json_key_u64(j, "readahead_pages", c->ra_pages);
		json_key_u64(j, "readahead_used", c->ra_used);
		json_ratio(j, "readahead_hit_ratio", c->ra_used, c->ra_pages);
		json_key_u64(j, "accessed", c->accessed);
		json_key_u64(j, "cache_hits", c->hits);
		json_ratio(j, "page_cache_hit_ratio", c->hits, c->accessed);
	}
	json_object_end(j);
}

static void stats(FILE *f, const struct ura_pack *pack, const char *name)
{
	struct ura_pack_info info;
	struct dump_totals t;

	ura_pack_get_info(pack, &info);
	dump_totals(pack, &t);
	text_header(f, pack, name);
	fprintf(f, "kernel:       %s\n", *info.kernel_release ? info.kernel_release : "unknown");
	fprintf(f, "trace:        %.3f s%s%s%s%s\n", (double)info.duration_ns / 1e9,
		info.flags & URA_PACK_INFO_SYSTEM ? ", system-wide" : "",
		info.flags & URA_PACK_INFO_COLD ? ", cold" : "",
		info.flags & URA_PACK_INFO_WARM ? ", warm start (seen in fault-around windows)" : "",
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

static void json_dev(struct json *j, const char *key, unsigned major, unsigned minor)
{
	json_key(j, key);
	json_stringf(j, "%u:%u", major, minor);
}

static void json_fs(struct json *j, const struct ura_pack *pack, size_t i)
{
	struct ura_pack_ra_fs ra;
	struct ura_pack_fs fs;
	char uuid[37];

	ura_pack_get_fs(pack, i, &fs);
	json_object_begin(j, JSON_INLINE);
	json_key_u64(j, "index", i);
	json_dev(j, "dev", fs.major, fs.minor);
	json_key_u64(j, "major", fs.major);
	json_key_u64(j, "minor", fs.minor);
	json_key_string(j, "mount_point", fs.mount_point);
	json_key_string(j, "fstype", fs.fstype);
	json_key_string(j, "source", fs.source);
	if (fs.flags & URA_PACK_FS_HAS_UUID) {
		format_uuid(fs.uuid, uuid);
		json_key_string(j, "uuid", uuid);
	} else {
		json_key_null(j, "uuid");
	}
	json_key_u64(j, "read_ahead_kb", fs.read_ahead_kb);
	json_key(j, "ra");
	if (ura_pack_get_ra_fs(pack, i, &ra) == 0) {
		json_object_begin(j, JSON_INLINE);
		json_key_u64(j, "max_sectors_kb", ra.max_sectors_kb);
		json_key_u64(j, "fault_around_pages", ra.fault_around_pages);
		json_key_bool(j, "large_folios", ra.flags & URA_PACK_RA_FS_LARGE_FOLIOS);
		json_key_u64(j, "max_segments", ra.max_segments);
		json_key_u64(j, "max_segment_kb", ra.max_segment_kb);
		json_object_end(j);
	} else {
		json_null(j);
	}
	json_object_end(j);
}

/* The members of a range (of a file's or of the pending ones) */
static void json_range(struct json *j, const struct ura_pack_range *rg, uint32_t support,
		       uint64_t mask)
{
	json_key_u64(j, "offset", rg->first_page * URA_PACK_PAGE_SIZE);
	json_key_u64(j, "length", (uint64_t)rg->page_count * URA_PACK_PAGE_SIZE);
	json_key_u64(j, "first_access_ns", rg->first_access_ns);
	json_key_bool(j, "demanded", rg->flags & URA_PACK_RANGE_DEMANDED);
	json_key_u64(j, "support", support);
	json_key_u64(j, "run_mask", mask);
}

static void json_file(struct json *j, const struct by_file *g, size_t i,
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
	json_object_begin(j, JSON_INLINE);
	json_key_string(j, "path", path ? path : file.path);
	free(path);
	json_key_u64(j, "index", i);
	json_key_u64(j, "fs", file.fs_index);
	json_dev(j, "dev", fs.major, fs.minor);
	json_key_u64(j, "ino", file.ino);
	json_key_u64(j, "size", file.size);
	json_key_i64(j, "mtime_ns", file.mtime_ns);
	if (file.flags & URA_PACK_FILE_HAS_GENERATION)
		json_key_u64(j, "generation", file.generation);
	if (file.flags & URA_PACK_FILE_HAS_BTIME)
		json_key_i64(j, "btime_ns", file.btime_ns);
	json_key(j, "ranges");
	json_array_begin(j, JSON_INLINE);
	for (size_t k = 0; k < n; k++) {
		struct ura_pack_range rg;
		uint32_t support;
		uint64_t mask;

		ura_pack_get_range(g->pack, idx[k], &rg);
		ura_pack_get_range_support(g->pack, idx[k], &support, &mask);
		json_object_begin(j, JSON_INLINE);
		json_range(j, &rg, support, mask);
		json_object_end(j);
	}
	json_array_end(j);
	file_pages(g, i, &added, &demanded);
	json_key(j, "hits");
	json_hits(j, added, demanded, hits ? &hits->per_file[i] : NULL);
	json_object_end(j);
}

/* One record of the access log: {"time_ns", "file", "stream", "kind", "first", "last", ...}. */
static void json_access(struct json *j, const struct ura_pack_access *a)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} flags[] = {
		{ URA_PACK_ACCESS_EXEC, "exec" }, { URA_PACK_ACCESS_NO_AROUND, "no_around" },
		{ URA_PACK_ACCESS_MISSED, "missed" }, { URA_PACK_ACCESS_GUESSED, "guessed" },
	};

	json_object_begin(j, JSON_INLINE);
	json_key_u64(j, "time_ns", a->time_ns);
	json_key_u64(j, "file", a->file_index);
	json_key_u64(j, "stream", a->stream);
	json_key_string(j, "kind", a->kind == URA_PACK_ACCESS_READ ? "read" : "fault");
	json_key_u64(j, "first", a->first);
	json_key_u64(j, "last", a->last);
	if (a->kind == URA_PACK_ACCESS_FAULT && !(a->flags & URA_PACK_ACCESS_NO_AROUND)) {
		json_key_u64(j, "around_first", a->around_first);
		json_key_u64(j, "around_last", a->around_last);
	}
	json_key(j, "flags");
	json_array_begin(j, JSON_INLINE);
	for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
		if (a->flags & flags[k].flag)
			json_string(j, flags[k].name);
	json_array_end(j);
	json_object_end(j);
}

static int json(FILE *f, const struct ura_pack *pack, const struct by_file *g,
		const struct dump_hits *hits)
{
	struct ura_pack_info info;
	struct dump_totals t;
	unsigned major, minor;
	char when[32];
	struct json j;

	ura_pack_get_info(pack, &info);
	ura_pack_version(pack, &major, &minor);
	dump_totals(pack, &t);
	dump_format_time(info.created_ns, when, sizeof(when));
	json_begin(&j, f, JSON_SPACED);
	json_object_begin(&j, JSON_LINES);
	json_key(&j, "version");
	json_stringf(&j, "%u.%u", major, minor);
	json_key_string(&j, "created", when);
	json_key_i64(&j, "created_ns", info.created_ns);
	json_key_u64(&j, "runs", ura_pack_runs(pack));
	json_key(&j, "run_list");
	json_array_begin(&j, JSON_INLINE);
	for (size_t i = 0; i < ura_pack_runs(pack); i++) {
		int64_t created;
		uint64_t duration;

		ura_pack_get_run(pack, i, &created, &duration);
		json_object_begin(&j, JSON_INLINE);
		json_key_i64(&j, "created_ns", created);
		json_key_u64(&j, "duration_ns", duration);
		json_object_end(&j);
	}
	json_array_end(&j);

	json_key(&j, "trace");
	json_object_begin(&j, JSON_INLINE);
	json_key_string(&j, "kernel_release", info.kernel_release);
	json_key_string(&j, "command", info.command);
	json_key_u64(&j, "duration_ns", info.duration_ns);
	json_key_u64(&j, "lost_events", info.lost_events);
	json_key_u64(&j, "unresolved_inodes", info.unresolved_inodes);
	json_key_u64(&j, "unresolved_bytes", info.unresolved_bytes);
	json_key_u64(&j, "read_ahead_kb", info.read_ahead_kb);
	json_key_bool(&j, "access_events", !(info.flags & URA_PACK_INFO_NO_ACCESS_EVENTS));
	json_key_bool(&j, "system", info.flags & URA_PACK_INFO_SYSTEM);
	json_key_bool(&j, "cold", info.flags & URA_PACK_INFO_COLD);
	json_key_bool(&j, "warm", info.flags & URA_PACK_INFO_WARM);
	json_key_bool(&j, "access_log_truncated", info.flags & URA_PACK_INFO_ACCESS_TRUNCATED);
	json_object_end(&j);

	json_key(&j, "filesystems");
	json_array_begin(&j, JSON_LINES);
	for (size_t i = 0; i < ura_pack_fs_count(pack); i++)
		json_fs(&j, pack, i);
	json_array_end(&j);

	json_key(&j, "files");
	json_array_begin(&j, JSON_LINES);
	for (size_t k = 0; k < g->nfiles; k++)
		json_file(&j, g, g->order[k], hits);
	json_array_end(&j);

	json_key(&j, "metadata");
	json_array_begin(&j, JSON_LINES);
	for (size_t i = 0; i < ura_pack_meta_count(pack); i++) {
		struct ura_pack_meta m;
		uint32_t support;
		uint64_t mask;

		ura_pack_get_meta(pack, i, &m);
		ura_pack_get_meta_support(pack, i, &support, &mask);
		json_object_begin(&j, JSON_INLINE);
		json_dev(&j, "device", m.major, m.minor);
		if (m.fs_index == URA_PACK_NO_INDEX)
			json_key_null(&j, "fs");
		else
			json_key_u64(&j, "fs", m.fs_index);
		json_key_u64(&j, "offset", m.offset);
		json_key_u64(&j, "length", m.length);
		json_key_u64(&j, "first_access_ns", m.first_access_ns);
		json_key_u64(&j, "support", support);
		json_key_u64(&j, "run_mask", mask);
		json_object_end(&j);
	}
	json_array_end(&j);

	json_key(&j, "pending");
	json_array_begin(&j, JSON_LINES);
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
		json_object_begin(&j, JSON_INLINE);
		json_key_string(&j, "path", path ? path : file.path);
		free(path);
		json_range(&j, &rg, support, mask);
		json_object_end(&j);
	}
	json_array_end(&j);

	json_key_u64(&j, "access_count", ura_pack_access_count(pack));
	json_key(&j, "access");
	json_array_begin(&j, JSON_LINES);
	for (size_t i = 0; i < ura_pack_access_count(pack); i++) {
		struct ura_pack_access a;

		if (ura_pack_get_access(pack, i, &a) < 0)
			break;
		json_access(&j, &a);
	}
	json_array_end(&j);

	json_key(&j, "totals");
	json_object_begin(&j, JSON_INLINE);
	json_key_u64(&j, "files", t.files);
	json_key_u64(&j, "ranges", t.ranges);
	json_key_u64(&j, "bytes", t.bytes);
	json_key_u64(&j, "demanded_bytes", t.demanded_bytes);
	json_key_u64(&j, "metadata_ranges", t.metadata_ranges);
	json_key_u64(&j, "metadata_bytes", t.metadata_bytes);
	json_key(&j, "hits");
	json_hits(&j, t.bytes / URA_PACK_PAGE_SIZE, t.demanded_bytes / URA_PACK_PAGE_SIZE,
		  hits ? &hits->total : NULL);
	if (hits)
		json_key_u64(&j, "hit_window_kb", hits->window_kb);
	json_object_end(&j);
	json_object_end(&j);
	return json_end(&j);
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
		r = json(f, pack, &g, hits);
	} else {
		text(f, pack, name, &g);
	}
	by_file_free(&g);
	if (r < 0)
		return r;
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
