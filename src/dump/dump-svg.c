// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The picture of a pack as one self-contained SVG: a header with the trace's details and
 * totals, a legend, then a row per metadata device and per file drawn, in first-access order.
 * In each row, a mark per timeline column with pages first read then: demanded pages above the
 * row's line, speculative pages below, the height by pages on a log scale, lighter when fewer
 * of a merged pack's runs had them; then the file's page map and its bytes in the pack.
 * No script and no external resource; everything that comes from the pack is escaped
 * (dump-markup.c). Numbers for programs are in data-* attributes (ura-dump(8)).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dump-svg.h"
#include "dump-markup.h"
#include "util.h"

#define MARGIN		16
#define LABEL_END	360		/* right edge of the file names */
#define LABEL_CHARS	46		/* characters of a name shown; the tail is kept */
#define TL_X		372		/* the timeline */
#define BIN_W		2
#define TL_W		(PICTURE_TIME_BINS * BIN_W)
#define MAP_X		(TL_X + TL_W + 24)
#define MAP_W		PICTURE_MAP_BINS	/* 1 px a column */
#define BYTES_END	(MAP_X + MAP_W + 84)
#define WIDTH		(BYTES_END + MARGIN)
#define ROW_H		20
#define MID		10		/* a row's line: demanded above, speculative below */
#define HALF		9.0		/* the tallest mark on either side */
#define LOW		2.5		/* the lowest: one page */
#define TEXT_Y		14		/* baseline of a row's text */
#define FULL_PAGES	4096		/* pages of a mark of full height: 16 MiB */

static const char style[] =
	"text{fill:#222}.dim{fill:#6b6b6b}.num{font-family:'DejaVu Sans Mono',monospace}"
	".ttl{font-size:15px;font-weight:bold}.d{fill:#1f5fa8}.s{fill:#f28e1c}.m{fill:#8a4fb0}"
	".mb{fill:#e4e4e4}.hl{fill:#fff}.z .hl{fill:#f5f5f5}.row:hover .hl,.row.on .hl{fill:#ffe9a6}"
	".mid{stroke:#cfcfcf;stroke-width:.5}.grid{stroke:#e0e0e0}.axis{stroke:#888}"
	".gap{stroke:#999;stroke-dasharray:3 3}.more text{font-style:italic}";

/* log2 of @n, linear between powers of two (enough for a mark's height, and no libm) */
static double approx_log2(uint64_t n)
{
	int e = n ? 63 - __builtin_clzll(n) : 0;

	return e + ((double)n / (double)(UINT64_C(1) << e) - 1);
}

/* Height of a mark of @pages pages: LOW for one page to HALF for FULL_PAGES and more. */
static double mark_height(uint64_t pages)
{
	double x = approx_log2(pages) / approx_log2(FULL_PAGES);

	return LOW + (HALF - LOW) * (x > 1 ? 1 : x);
}

/* Opacity of marks that @support of @runs runs had: 1 when all had them, never below 0.25. */
static double support_opacity(uint32_t support, size_t runs)
{
	double x = runs ? (double)support / (double)runs : 1;

	return 0.25 + 0.75 * (x > 1 ? 1 : x);
}

static void attr_u64(FILE *f, const char *name, uint64_t v)
{
	fprintf(f, " %s=\"%" PRIu64 "\"", name, v);
}

/* The absolute path of file @i, escaped, whole or in at most @max characters (0: whole). */
static void file_path(FILE *f, const struct ura_pack *pack, size_t i, size_t max)
{
	struct ura_pack_file file;
	struct ura_pack_fs fs;
	char *path;

	ura_pack_get_file(pack, i, &file);
	ura_pack_get_fs(pack, file.fs_index, &fs);
	path = path_join(fs.mount_point, file.path);
	markup_text_tail(f, path ? path : file.path, max);
	free(path);
}

/* "metadata of / (ext4, 8:1)", or of the devices summed. */
static void metadata_label(FILE *f, const struct ura_pack *pack, const struct picture_row *r)
{
	struct ura_pack_fs fs;

	if (r->files > 1) {
		fprintf(f, "metadata of %" PRIu64 " more devices", r->files);
		return;
	}
	fputs("metadata of ", f);
	if (r->fs_index != URA_PACK_NO_INDEX && ura_pack_get_fs(pack, r->fs_index, &fs) == 0) {
		markup_text_tail(f, fs.mount_point, 24);
		fputs(" (", f);
		if (*fs.fstype) {
			markup_text_tail(f, fs.fstype, 12);
			fputs(", ", f);
		}
		fprintf(f, "%u:%u)", r->major, r->minor);
	} else {
		fprintf(f, "device %u:%u", r->major, r->minor);
	}
}

/* The marks of one kind of pages of a row: a path per support level. */
static void marks(FILE *f, const struct picture *p, const struct picture_row *r, int kind)
{
	bool level[URA_PACK_MAX_RUNS + 1] = { false };
	const char *cls = r->kind == PICTURE_ROW_METADATA ? "m" : kind == 0 ? "d" : "s";

	for (size_t c = 0; c < r->ncells; c++)
		if (r->cells[c].pages[kind])
			level[r->cells[c].support[kind] > URA_PACK_MAX_RUNS ? URA_PACK_MAX_RUNS :
			      r->cells[c].support[kind]] = true;
	for (uint32_t s = 0; s <= URA_PACK_MAX_RUNS; s++) {
		if (!level[s])
			continue;
		fprintf(f, "<path class=\"%s\"", cls);
		if (p->runs > 1)
			fprintf(f, " fill-opacity=\"%.2f\"", support_opacity(s, p->runs));
		fputs(" d=\"", f);
		for (size_t c = 0; c < r->ncells; c++) {
			const struct picture_cell *cell = &r->cells[c];
			uint32_t cs = cell->support[kind] > URA_PACK_MAX_RUNS ? URA_PACK_MAX_RUNS :
				      cell->support[kind];
			double h;

			if (!cell->pages[kind] || cs != s)
				continue;
			h = mark_height(cell->pages[kind]);
			fprintf(f, "M%u %.1fh%dv%.1fh-%dz", TL_X + cell->bin * BIN_W,
				kind == 0 ? MID - h : (double)MID, BIN_W, h, BIN_W);
		}
		fputs("\"/>", f);
	}
}

/* Page-map columns with @bit as one path of rectangles, @top to @top + @h. */
static void map_path(FILE *f, const struct picture_row *r, int x0, uint8_t bit, const char *cls,
		     double top, double h)
{
	bool any = false;

	for (int i = 0; i < PICTURE_MAP_BINS;) {
		int j = i;

		if (!(r->map[i] & bit)) {
			i++;
			continue;
		}
		while (j < PICTURE_MAP_BINS && (r->map[j] & bit))
			j++;
		if (!any)
			fprintf(f, "<path class=\"%s\" d=\"", cls);
		any = true;
		fprintf(f, "M%d %.1fh%dv%.1fh-%dz", x0 + i, top, j - i, h, j - i);
		i = j;
	}
	if (any)
		fputs("\"/>", f);
}

/* A row's page map at @x0: the file (or device) from offset 0 to its end, in MAP_W px. */
static void page_map(FILE *f, const struct picture_row *r, int x0, int y0, int h)
{
	if (r->map_pages == 0)
		return;
	fprintf(f, "<rect class=\"mb\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", x0, y0, MAP_W,
		h);
	if (r->kind == PICTURE_ROW_METADATA) {
		map_path(f, r, x0, PICTURE_MAP_DEMANDED, "m", y0, h);
		return;
	}
	map_path(f, r, x0, PICTURE_MAP_DEMANDED, "d", y0, h / 2.0);
	map_path(f, r, x0, PICTURE_MAP_SPECULATIVE, "s", y0 + h / 2.0, h / 2.0);
}

void dump_svg_page_map(FILE *f, const struct picture_row *row)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\" width=\"%d\" "
		"height=\"12\" viewBox=\"0 0 %d 12\">", MAP_W, MAP_W);
	page_map(f, row, 0, 0, 12);
	fputs("</svg>", f);
}

/* The tooltip of a row: what it holds, in words. */
static void row_title(FILE *f, const struct picture *p, const struct picture_row *r)
{
	char b[32], d[32], t0[32], t1[32];

	dump_format_bytes(r->bytes, b, sizeof(b));
	dump_format_bytes(r->demanded_bytes, d, sizeof(d));
	dump_format_duration(r->first_ns, t0, sizeof(t0));
	dump_format_duration(r->last_ns, t1, sizeof(t1));
	fputs("<title>", f);
	if (r->kind == PICTURE_ROW_FILE) {
		fprintf(f, "#%zu ", r->rank + 1);
		file_path(f, p->pack, r->file, 0);
		fprintf(f, "\n%s in %" PRIu64 " ranges, %s demanded", b, r->ranges, d);
	} else if (r->kind == PICTURE_ROW_METADATA) {
		metadata_label(f, p->pack, r);
		fprintf(f, "\n%s in %" PRIu64 " ranges", b, r->ranges);
	} else {
		char n[32];

		dump_format_count(r->files, n, sizeof(n));
		fprintf(f, "%s files not drawn, summed in this row\n%s in %" PRIu64
			" ranges, %s demanded", n, b, r->ranges, d);
	}
	if (r->ranges)
		fprintf(f, "; first read at %s, last at %s", t0, t1);
	if (p->runs > 1 && r->ranges)
		fprintf(f, "; support %u-%u of %zu runs", r->support_min, r->support_max, p->runs);
	fputs("</title>", f);
}

static void row_attrs(FILE *f, const struct picture *p, const struct picture_row *r)
{
	if (r->kind == PICTURE_ROW_FILE) {
		fputs(" data-kind=\"file\"", f);
		attr_u64(f, "data-rank", r->rank);
	} else if (r->kind == PICTURE_ROW_METADATA) {
		fprintf(f, " data-kind=\"metadata\" data-dev=\"%u:%u\"", r->major, r->minor);
		attr_u64(f, "data-devices", r->files);
	} else {
		fputs(" data-kind=\"more\"", f);
		attr_u64(f, "data-files", r->files);
	}
	attr_u64(f, "data-bytes", r->bytes);
	attr_u64(f, "data-demanded-bytes", r->demanded_bytes);
	attr_u64(f, "data-ranges", r->ranges);
	if (r->ranges) {
		attr_u64(f, "data-first-ns", r->first_ns);
		attr_u64(f, "data-last-ns", r->last_ns);
	}
	if (p->runs > 1 && r->ranges) {
		attr_u64(f, "data-support-min", r->support_min);
		attr_u64(f, "data-support-max", r->support_max);
	}
}

static void draw_row(FILE *f, const struct picture *p, size_t i, int y)
{
	const struct picture_row *r = &p->rows[i];
	char b[32];

	fprintf(f, "<g class=\"row%s%s\" id=\"r%zu\"", i % 2 ? " z" : "",
		r->kind == PICTURE_ROW_MORE ? " more" : "", i);
	row_attrs(f, p, r);
	fprintf(f, " transform=\"translate(0,%d)\">", y);
	row_title(f, p, r);
	fprintf(f, "<rect class=\"hl\" x=\"%d\" width=\"%d\" height=\"%d\"/>", MARGIN,
		WIDTH - 2 * MARGIN, ROW_H);
	if (r->gap_before)
		fprintf(f, "<path class=\"gap\" d=\"M%d 0H%d\"/>", MARGIN, TL_X + TL_W);
	fprintf(f, "<path class=\"mid\" d=\"M%d %dh%d\"/>", TL_X, MID, TL_W);
	if (r->kind == PICTURE_ROW_FILE)
		fprintf(f, "<text class=\"dim num\" x=\"%d\" y=\"%d\">%zu</text>", MARGIN, TEXT_Y,
			r->rank + 1);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_END, TEXT_Y);
	if (r->kind == PICTURE_ROW_FILE) {
		file_path(f, p->pack, r->file, LABEL_CHARS);
	} else if (r->kind == PICTURE_ROW_METADATA) {
		metadata_label(f, p->pack, r);
	} else {
		char n[32];

		dump_format_count(r->files, n, sizeof(n));
		fprintf(f, "\xe2\x80\xa6 and %s more files", n);
	}
	fputs("</text>", f);
	marks(f, p, r, 0);
	marks(f, p, r, 1);
	page_map(f, r, MAP_X, 4, ROW_H - 8);
	dump_format_bytes(r->bytes, b, sizeof(b));
	fprintf(f, "<text class=\"num\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text></g>\n",
		BYTES_END, TEXT_Y, b);
}

/* A tick label: the time in the unit the whole axis is best read in. */
static void tick_label(FILE *f, uint64_t t, uint64_t end)
{
	if (end >= 1000000000)
		fprintf(f, "%g s", (double)t / 1e9);
	else if (end >= 1000000)
		fprintf(f, "%g ms", (double)t / 1e6);
	else if (end >= 1000)
		fprintf(f, "%g \xc2\xb5s", (double)t / 1e3);
	else
		fprintf(f, "%" PRIu64 " ns", t);
}

static double tick_x(uint64_t t, uint64_t end)
{
	return TL_X + (double)t / (double)end * TL_W;
}

static void ticks(FILE *f, const struct picture *p, int y)
{
	for (uint64_t k = 0; k <= p->end_ns / p->step_ns; k++) {
		uint64_t t = k * p->step_ns;

		fprintf(f, "<text class=\"dim\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">",
			tick_x(t, p->end_ns), y, k == 0 ? "start" : "middle");
		tick_label(f, t, p->end_ns);
		fputs("</text>", f);
	}
	fputc('\n', f);
}

static void grid(FILE *f, const struct picture *p, int y0, int y1)
{
	fputs("<path class=\"grid\" d=\"", f);
	for (uint64_t k = 0; k <= p->end_ns / p->step_ns; k++)
		fprintf(f, "M%.1f %dV%d", tick_x(k * p->step_ns, p->end_ns), y0, y1);
	fprintf(f, "\"/><path class=\"axis\" d=\"M%d %dh%dM%d %dh%d\"/>\n", TL_X, y0, TL_W, TL_X, y1,
		TL_W);
}

/* Title and two lines of details: the trace, then the totals. */
static void header(FILE *f, const struct picture *p, const char *name)
{
	const struct dump_totals *t = &p->totals;
	struct ura_pack_info info;
	char when[32], dur[32], a[32], b[32], c[32], n[32];

	ura_pack_get_info(p->pack, &info);
	fprintf(f, "<text class=\"ttl\" x=\"%d\" y=\"26\">", MARGIN);
	if (*info.command)
		markup_text_tail(f, info.command, 110);
	else
		fputs(info.flags & URA_PACK_INFO_SYSTEM ? "system-wide trace" : "(no command recorded)",
		      f);
	fputs("<tspan class=\"dim\" font-weight=\"normal\" font-size=\"12\">  \xe2\x80\x94 pack ", f);
	markup_text_tail(f, name, 60);
	fputs("</tspan></text>\n", f);

	dump_format_time(info.created_ns, when, sizeof(when));
	dump_format_duration(info.duration_ns, dur, sizeof(dur));
	dump_format_bytes(info.unresolved_bytes, a, sizeof(a));
	fprintf(f, "<text x=\"%d\" y=\"48\">created %s \xc2\xb7 kernel ", MARGIN, when);
	markup_text_tail(f, *info.kernel_release ? info.kernel_release : "unknown", 40);
	fprintf(f, " \xc2\xb7 trace %s%s%s%s \xc2\xb7 read_ahead_kb ", dur,
		info.flags & URA_PACK_INFO_SYSTEM ? ", system-wide" : "",
		info.flags & URA_PACK_INFO_COLD ? ", cold (page cache dropped)" : "",
		info.flags & URA_PACK_INFO_NO_ACCESS_EVENTS ? ", no access events (all demanded)" : "");
	if (info.read_ahead_kb)
		fprintf(f, "%u (forced)", info.read_ahead_kb);
	else
		fputs("as the devices had it", f);
	fprintf(f, " \xc2\xb7 lost events %" PRIu64 " \xc2\xb7 unresolved inodes %" PRIu64 " (%s)",
		info.lost_events, info.unresolved_inodes, a);
	if (p->runs > 1) {
		int64_t oldest = 0;

		ura_pack_get_run(p->pack, p->runs - 1, &oldest, NULL);
		dump_format_time(oldest, when, sizeof(when));
		fprintf(f, " \xc2\xb7 merged from %zu runs, the oldest %s", p->runs, when);
	}
	fputs("</text>\n", f);

	dump_format_count(t->files, n, sizeof(n));
	dump_format_bytes(t->bytes, a, sizeof(a));
	dump_format_bytes(t->demanded_bytes, b, sizeof(b));
	dump_format_bytes(t->bytes - t->demanded_bytes, c, sizeof(c));
	fprintf(f, "<text x=\"%d\" y=\"66\">%s files (%zu drawn) \xc2\xb7 %" PRIu64 " ranges \xc2\xb7 "
		"data %s: %s demanded, %s speculative", MARGIN, n, p->file_rows, t->ranges, a, b, c);
	dump_format_bytes(t->metadata_bytes, a, sizeof(a));
	fprintf(f, " \xc2\xb7 metadata %s in %" PRIu64 " ranges", a, t->metadata_ranges);
	if (ura_pack_pending_count(p->pack))
		fprintf(f, " \xc2\xb7 %zu pending ranges (too few runs had them; not drawn)",
			ura_pack_pending_count(p->pack));
	fputs("</text>\n", f);
}

static void swatch(FILE *f, int x, int y, const char *cls, const char *text)
{
	fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"10\" height=\"10\"/>"
		"<text x=\"%d\" y=\"%d\">%s</text>", cls, x, y - 9, x + 14, y, text);
}

/* The legend's first line, and where the rows begin: legend() takes 76 px, 18 more if merged. */
#define LEGEND_Y	92

static int rows_top(const struct picture *p)
{
	return LEGEND_Y + 76 + (p->runs > 1 ? 18 : 0);
}

/* What the colours, heights and shades mean, and the column headings, from @y. */
static void legend(FILE *f, const struct picture *p, int y)
{
	static const struct { uint64_t pages; const char *text; } sizes[] = {
		{ 1, "4 KiB" }, { 16, "64 KiB" }, { 256, "1 MiB" }, { FULL_PAGES, "16 MiB+" },
	};
	char col[32];
	int x;

	swatch(f, MARGIN, y, "d", "demanded: pages the traced run used");
	swatch(f, 290, y, "s", "speculative: read ahead by the kernel, not used");
	swatch(f, 610, y, "m", "filesystem metadata (read through the block device)");
	y += 20;
	dump_format_duration(p->end_ns / PICTURE_TIME_BINS, col, sizeof(col));
	fprintf(f, "\n<text x=\"%d\" y=\"%d\">a mark: the pages first read in %s (%d px), "
		"demanded above the row's line, speculative below; its height, on a log scale:"
		"</text>", MARGIN, y, col, BIN_W);
	x = 735;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++, x += 74) {
		double h = mark_height(sizes[i].pages);

		fprintf(f, "<rect class=\"d\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>"
			"<text x=\"%d\" y=\"%d\">%s</text>", x, y - h, BIN_W, h, x + 6, y,
			sizes[i].text);
	}
	if (p->runs > 1) {
		y += 18;
		fprintf(f, "\n<text x=\"%d\" y=\"%d\">merged from %zu runs: the fewer runs had "
			"the pages, the lighter the mark:</text>", MARGIN, y, p->runs);
		x = 440;
		for (size_t s = 1; s <= p->runs; s += (p->runs > 8 ? (p->runs + 7) / 8 : 1)) {
			fprintf(f, "<rect class=\"d\" fill-opacity=\"%.2f\" x=\"%d\" y=\"%d\" "
				"width=\"10\" height=\"10\"/><text x=\"%d\" y=\"%d\">%zu</text>",
				support_opacity((uint32_t)s, p->runs), x, y - 9, x + 14, y, s);
			x += 44;
		}
		fprintf(f, "<text x=\"%d\" y=\"%d\">of %zu</text>", x, y, p->runs);
	}
	y += 18;
	fprintf(f, "\n<text x=\"%d\" y=\"%d\">page map: the file from its start (left) to its "
		"end (right); demanded pages in the upper half, speculative in the lower</text>\n",
		MARGIN, y);
	y += 22;
	fprintf(f, "<text class=\"dim\" x=\"%d\" y=\"%d\">#</text>"
		"<text class=\"dim\" x=\"%d\" y=\"%d\" text-anchor=\"end\">file, in order of "
		"first access</text><text class=\"dim\" x=\"%d\" y=\"%d\">page map</text>"
		"<text class=\"dim\" x=\"%d\" y=\"%d\" text-anchor=\"end\">in pack</text>\n",
		MARGIN, y, LABEL_END, y, MAP_X, y, BYTES_END, y);
}

void dump_svg_element(FILE *f, const struct picture *p, const char *name)
{
	const struct dump_totals *t = &p->totals;
	int top = rows_top(p);
	int bottom = top + (int)p->nrows * ROW_H, height = bottom + 40;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"picture\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"'DejaVu Sans',Verdana,sans-serif\" "
		"font-size=\"11\"", WIDTH, height, WIDTH, height);
	attr_u64(f, "data-files", t->files);
	attr_u64(f, "data-ranges", t->ranges);
	attr_u64(f, "data-bytes", t->bytes);
	attr_u64(f, "data-demanded-bytes", t->demanded_bytes);
	attr_u64(f, "data-metadata-ranges", t->metadata_ranges);
	attr_u64(f, "data-metadata-bytes", t->metadata_bytes);
	attr_u64(f, "data-runs", p->runs);
	attr_u64(f, "data-file-rows", p->file_rows);
	attr_u64(f, "data-more-files", p->more ? p->more->files : 0);
	attr_u64(f, "data-more-bytes", p->more ? p->more->bytes : 0);
	attr_u64(f, "data-end-ns", p->end_ns);
	fputs(">\n<title>ura pack ", f);
	markup_text(f, name);
	fprintf(f, "</title>\n<style>%s</style>\n<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		style, WIDTH, height);
	header(f, p, name);
	legend(f, p, LEGEND_Y);
	ticks(f, p, top - 4);
	grid(f, p, top, bottom);
	for (size_t i = 0; i < p->nrows; i++)
		draw_row(f, p, i, top + (int)i * ROW_H);
	ticks(f, p, bottom + 14);
	fprintf(f, "<text class=\"dim\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the "
		"trace began</text>\n</svg>\n", TL_X + TL_W / 2, bottom + 30);
}

int dump_svg(FILE *f, const struct ura_pack *pack, const char *name, size_t max_rows)
{
	struct picture *p = NULL;
	int r;

	r = picture_new(pack, max_rows, &p);
	if (r < 0)
		return r;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	dump_svg_element(f, p, name);
	picture_free(p);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
