// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A pack as one self-contained HTML page: the picture (dump-svg.c) inline, then a table of the
 * files drawn, each with its page map, and one of the metadata devices. The page is also
 * well-formed XML (polyglot HTML), loads nothing, and shows everything without its script,
 * which only sorts the tables (click a heading, or #sort=KEY / #sort=-KEY in the address) and
 * lights a file's row in the picture while the pointer is on its table row, and back.
 * Everything from the pack is escaped (dump-markup.c), and nothing from it goes into the script.
 * The page of ura-dump --compare has the same head and script, and a table of the files changed.
 */

#define COMPARE_ROWS	1000	/* files changed listed at most in the page of a comparison */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "dump-compare.h"
#include "dump-html.h"
#include "dump-svg.h"
#include "dump-markup.h"
#include "util.h"

static const char page_style[] =
	"body{font:13px 'DejaVu Sans',Verdana,sans-serif;color:#222;margin:16px;background:#fff}"
	"h1{font-size:18px;margin:0 0 10px}h2{font-size:15px;margin:22px 0 6px}"
	"table{border-collapse:collapse}th,td{padding:2px 8px;text-align:right;white-space:nowrap}"
	"th{background:#eee;position:sticky;top:0}table.sort th{cursor:pointer}"
	"th.asc::after{content:' \\25b2'}th.desc::after{content:' \\25bc'}"
	"td.p,th[data-key=path],th[data-key=filesystem]{text-align:left}"
	"td.p{font-family:'DejaVu Sans Mono',monospace}"
	"tbody tr:nth-child(even){background:#f5f5f5}tbody tr:hover,tbody tr.on{background:#ffe9a6}"
	"td.added{color:#1f5fa8}td.lost{color:#b5520c}tfoot td{font-style:italic}"
	"svg.map{vertical-align:middle}p.note{color:#555;max-width:70em}";

/*
 * Sorting and highlighting. It reads only the page (cells' data-v, rows' data-rank and
 * data-row), never data from the pack, and marks <html data-ready="1"> when it has run.
 */
static const char page_script[] =
	"(function () {\n"
	"\"use strict\";\n"
	"function value(tr, i, num) {\n"
	"  var c = tr.cells[i], v = c.getAttribute(\"data-v\");\n"
	"  if (v === null) v = c.textContent;\n"
	"  return num ? Number(v) : v;\n"
	"}\n"
	"function sortTable(table, i, desc) {\n"
	"  var heads = table.tHead.rows[0].cells, body = table.tBodies[0];\n"
	"  var num = heads[i].getAttribute(\"data-type\") === \"num\";\n"
	"  var rows = Array.prototype.slice.call(body.rows);\n"
	"  rows.sort(function (a, b) {\n"
	"    var x = value(a, i, num), y = value(b, i, num);\n"
	"    var c = num ? x - y : (x < y ? -1 : x > y ? 1 : 0);\n"
	"    if (c !== 0) return desc ? -c : c;\n"
	"    return Number(a.getAttribute(\"data-rank\")) -\n"
	"      Number(b.getAttribute(\"data-rank\"));\n"
	"  });\n"
	"  rows.forEach(function (r) { body.appendChild(r); });\n"
	"  for (var k = 0; k < heads.length; k++)\n"
	"    heads[k].className = k === i ? (desc ? \"desc\" : \"asc\") : \"\";\n"
	"  if (table.id)\n"
	"    document.documentElement.setAttribute(\"data-sorted\", table.id + \":\" +\n"
	"      (desc ? \"-\" : \"\") + heads[i].getAttribute(\"data-key\"));\n"
	"}\n"
	"var tables = document.querySelectorAll(\"table.sort\");\n"
	"Array.prototype.forEach.call(tables, function (table) {\n"
	"  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {\n"
	"    if (!th.getAttribute(\"data-key\")) return;\n"
	"    th.addEventListener(\"click\", function () {\n"
	"      sortTable(table, i, th.className === \"asc\");\n"
	"    });\n"
	"  });\n"
	"});\n"
	"function light(tr, on) {\n"
	"  var g = document.getElementById(tr.getAttribute(\"data-row\"));\n"
	"  tr.classList.toggle(\"on\", on);\n"
	"  if (g) g.classList.toggle(\"on\", on);\n"
	"}\n"
	"Array.prototype.forEach.call(document.querySelectorAll(\"tr[data-row]\"), function (tr) {\n"
	"  var g = document.getElementById(tr.getAttribute(\"data-row\"));\n"
	"  tr.addEventListener(\"mouseenter\", function () { light(tr, true); });\n"
	"  tr.addEventListener(\"mouseleave\", function () { light(tr, false); });\n"
	"  if (!g) return;\n"
	"  g.addEventListener(\"mouseenter\", function () { light(tr, true); });\n"
	"  g.addEventListener(\"mouseleave\", function () { light(tr, false); });\n"
	"  g.addEventListener(\"click\", function () { tr.scrollIntoView({block: \"center\"}); });\n"
	"});\n"
	"var m = /sort=(-?)([a-z_]+)/.exec(location.hash);\n"
	"if (m && tables.length) {\n"
	"  Array.prototype.forEach.call(tables[0].tHead.rows[0].cells, function (th, i) {\n"
	"    if (th.getAttribute(\"data-key\") === m[2]) sortTable(tables[0], i, m[1] === \"-\");\n"
	"  });\n"
	"}\n"
	"document.documentElement.setAttribute(\"data-ready\", \"1\");\n"
	"})();\n";

void dump_html_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\"/>\n<title>", f);
	markup_text(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", page_style);
}

void dump_html_end(FILE *f)
{
	/* CDATA for XML readers; in HTML the markers are inside JavaScript comments */
	fprintf(f, "<script>//<![CDATA[\n%s//]]></script>\n</body>\n</html>\n", page_script);
}

static void cell_u64(FILE *f, uint64_t v)
{
	fprintf(f, "<td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", v, v);
}

static void cell_bytes(FILE *f, uint64_t v)
{
	char b[32];

	dump_format_bytes(v, b, sizeof(b));
	fprintf(f, "<td data-v=\"%" PRIu64 "\">%s</td>", v, b);
}

static void cell_time(FILE *f, const struct picture_row *r, uint64_t ns)
{
	char b[32];

	if (!r->ranges) {
		fputs("<td data-v=\"-1\"></td>", f);
		return;
	}
	dump_format_duration(ns, b, sizeof(b));
	fprintf(f, "<td data-v=\"%" PRIu64 "\">%s</td>", ns, b);
}

static void cell_support(FILE *f, const struct picture *p, const struct picture_row *r)
{
	if (p->runs <= 1)
		return;
	if (!r->ranges)
		fputs("<td data-v=\"0\"></td>", f);
	else if (r->support_min == r->support_max)
		fprintf(f, "<td data-v=\"%u\">%u of %zu</td>", r->support_min, r->support_min, p->runs);
	else
		fprintf(f, "<td data-v=\"%u\">%u-%u of %zu</td>", r->support_min, r->support_min,
			r->support_max, p->runs);
}

static void head_cell(FILE *f, const char *key, bool num, const char *text)
{
	fprintf(f, "<th data-key=\"%s\"%s>%s</th>", key, num ? " data-type=\"num\"" : "", text);
}

static void common_heads(FILE *f, const struct picture *p)
{
	head_cell(f, "bytes", true, "in pack");
	head_cell(f, "demanded", true, "demanded");
	head_cell(f, "speculative", true, "speculative");
	head_cell(f, "ranges", true, "ranges");
	head_cell(f, "first", true, "first read");
	head_cell(f, "last", true, "last read");
	if (p->runs > 1)
		head_cell(f, "support", true, "support");
}

static void common_cells(FILE *f, const struct picture *p, const struct picture_row *r)
{
	cell_bytes(f, r->bytes);
	cell_bytes(f, r->demanded_bytes);
	cell_bytes(f, r->bytes - r->demanded_bytes);
	cell_u64(f, r->ranges);
	cell_time(f, r, r->first_ns);
	cell_time(f, r, r->last_ns);
	cell_support(f, p, r);
}

static void file_table(FILE *f, const struct picture *p)
{
	fputs("<h2>Files</h2>\n<table id=\"files\" class=\"sort\">\n<thead><tr>", f);
	head_cell(f, "rank", true, "#");
	head_cell(f, "path", false, "file");
	fputs("<th>page map</th>", f);
	common_heads(f, p);
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < p->nrows; i++) {
		const struct picture_row *r = &p->rows[i];
		struct ura_pack_file file;
		struct ura_pack_fs fs;
		char *path;

		if (r->kind != PICTURE_ROW_FILE)
			continue;
		ura_pack_get_file(p->pack, r->file, &file);
		ura_pack_get_fs(p->pack, file.fs_index, &fs);
		path = path_join(fs.mount_point, file.path);
		fprintf(f, "<tr data-rank=\"%zu\" data-row=\"r%zu\"><td data-v=\"%zu\">%zu</td>"
			"<td class=\"p\">", r->rank, i, r->rank + 1, r->rank + 1);
		markup_text(f, path ? path : file.path);
		free(path);
		fputs("</td><td>", f);
		dump_svg_page_map(f, r);
		fputs("</td>", f);
		common_cells(f, p, r);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n", f);
	if (p->more) {
		char n[32];

		dump_format_count(p->more->files, n, sizeof(n));
		fprintf(f, "<tfoot><tr data-row=\"r%zu\"><td></td><td class=\"p\">\xe2\x80\xa6 and %s "
			"more files, not drawn</td><td></td>", (size_t)(p->more - p->rows), n);
		common_cells(f, p, p->more);
		fputs("</tr></tfoot>\n", f);
	}
	fputs("</table>\n", f);
}

static void metadata_table(FILE *f, const struct picture *p)
{
	bool any = false;

	for (size_t i = 0; i < p->nrows; i++) {
		const struct picture_row *r = &p->rows[i];
		struct ura_pack_fs fs;

		if (r->kind != PICTURE_ROW_METADATA)
			continue;
		if (!any) {
			fputs("<h2>Metadata</h2>\n<table id=\"metadata\" class=\"sort\">\n<thead><tr>",
			      f);
			head_cell(f, "device", false, "device");
			head_cell(f, "filesystem", false, "filesystem");
			fputs("<th>blocks read</th>", f);
			common_heads(f, p);
			fputs("</tr></thead>\n<tbody>\n", f);
			any = true;
		}
		fprintf(f, "<tr data-rank=\"%zu\" data-row=\"r%zu\">", i, i);
		if (r->files > 1)
			fprintf(f, "<td>%" PRIu64 " more devices</td><td class=\"p\"></td>", r->files);
		else
			fprintf(f, "<td>%u:%u</td><td class=\"p\">", r->major, r->minor);
		if (r->files == 1 && r->fs_index != URA_PACK_NO_INDEX &&
		    ura_pack_get_fs(p->pack, r->fs_index, &fs) == 0) {
			markup_text(f, fs.mount_point);
			if (*fs.fstype) {
				fputs(" (", f);
				markup_text(f, fs.fstype);
				fputc(')', f);
			}
		}
		if (r->files == 1)
			fputs("</td>", f);
		fputs("<td>", f);
		dump_svg_page_map(f, r);
		fputs("</td>", f);
		common_cells(f, p, r);
		fputs("</tr>\n", f);
	}
	if (any)
		fputs("</tbody>\n</table>\n", f);
}

int dump_html(FILE *f, const struct ura_pack *pack, const char *name, size_t max_rows)
{
	struct picture *p = NULL;
	char *title = NULL;
	int r;

	r = picture_new(pack, max_rows, &p);
	if (r < 0)
		return r;
	if (asprintf(&title, "ura pack %s", name) < 0) {
		picture_free(p);
		return -ENOMEM;
	}
	dump_html_begin(f, title);
	fputs("<h1>", f);
	markup_text(f, title);
	fputs("</h1>\n<div>", f);
	dump_svg_element(f, p, name);
	fputs("</div>\n<p class=\"note\">The tables list the rows of the picture: click a heading "
	      "to sort; a row lights up in the picture while the pointer is on it.</p>\n", f);
	file_table(f, p);
	metadata_table(f, p);
	dump_html_end(f);
	free(title);
	picture_free(p);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

/* ---- ura-dump --compare --html ---- */

static void compare_cells(FILE *f, const struct compare_entry *e, bool demanded)
{
	char b[32];

	dump_format_bytes(e->added_bytes, b, sizeof(b));
	fprintf(f, "<td class=\"added\" data-v=\"%" PRIu64 "\">%s%s</td>", e->added_bytes,
		e->added_bytes ? "+" : "", b);
	dump_format_bytes(e->lost_bytes, b, sizeof(b));
	fprintf(f, "<td class=\"lost\" data-v=\"%" PRIu64 "\">%s%s</td>", e->lost_bytes,
		e->lost_bytes ? "-" : "", b);
	cell_bytes(f, e->a_bytes);
	cell_bytes(f, e->b_bytes);
	if (demanded) {
		cell_bytes(f, e->a_demanded_bytes);
		cell_bytes(f, e->b_demanded_bytes);
	}
}

static void compare_heads(FILE *f, bool demanded)
{
	head_cell(f, "added", true, "added");
	head_cell(f, "lost", true, "lost");
	head_cell(f, "a", true, "in A");
	head_cell(f, "b", true, "in B");
	if (demanded) {
		head_cell(f, "a_demanded", true, "demanded in A");
		head_cell(f, "b_demanded", true, "demanded in B");
	}
}

static void compare_summary(FILE *f, const struct compare *c, const char *name_a,
			    const char *name_b)
{
	const struct compare_totals *t = &c->t;
	char a[32], b[32], add[32], lost[32];

	fputs("<p>A: <code>", f);
	markup_text(f, name_a);
	fputs("</code><br/>B: <code>", f);
	markup_text(f, name_b);
	fprintf(f, "</code></p>\n<p>files: %" PRIu64 " in A, %" PRIu64 " in B: %" PRIu64 " added, %"
		PRIu64 " lost, %" PRIu64 " changed, %" PRIu64 " replaced (other content), %" PRIu64
		" the same<br/>", t->files_a, t->files_b, t->added, t->lost, t->changed, t->replaced,
		t->same);
	dump_format_bytes(t->bytes_a, a, sizeof(a));
	dump_format_bytes(t->bytes_b, b, sizeof(b));
	dump_format_bytes(t->added_bytes, add, sizeof(add));
	dump_format_bytes(t->lost_bytes, lost, sizeof(lost));
	fprintf(f, "data: %s in A, %s in B: +%s added, -%s lost<br/>", a, b, add, lost);
	dump_format_bytes(t->metadata_bytes_a, a, sizeof(a));
	dump_format_bytes(t->metadata_bytes_b, b, sizeof(b));
	dump_format_bytes(t->metadata_added_bytes, add, sizeof(add));
	dump_format_bytes(t->metadata_lost_bytes, lost, sizeof(lost));
	fprintf(f, "metadata: %s in A, %s in B: +%s added, -%s lost</p>\n", a, b, add, lost);
}

int dump_html_compare(FILE *f, const struct compare *c, const char *name_a, const char *name_b)
{
	uint64_t shown = 0, left = 0, left_added = 0, left_lost = 0;

	dump_html_begin(f, "ura-dump --compare");
	fputs("<h1>What B adds and loses against A</h1>\n", f);
	compare_summary(f, c, name_a, name_b);
	fputs("<h2>Files changed</h2>\n<table id=\"files\" class=\"sort\">\n<thead><tr>", f);
	head_cell(f, "rank", true, "#");
	head_cell(f, "path", false, "file");
	head_cell(f, "status", false, "status");
	compare_heads(f, true);
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < c->nfiles; i++) {
		const struct compare_entry *e = &c->files[i];
		char *path;

		if (e->status == COMPARE_SAME)
			continue;
		if (shown == COMPARE_ROWS) {
			left++;
			left_added += e->added_bytes;
			left_lost += e->lost_bytes;
			continue;
		}
		path = path_join(e->mount_point, e->path);
		fprintf(f, "<tr data-rank=\"%zu\"><td data-v=\"%zu\">%zu</td><td class=\"p\">", i, i,
			i + 1);
		markup_text(f, path ? path : e->path);
		free(path);
		fprintf(f, "</td><td>%s</td>", compare_status_name(e->status));
		compare_cells(f, e, true);
		fputs("</tr>\n", f);
		shown++;
	}
	fputs("</tbody>\n", f);
	if (left) {
		char n[32], a[32], l[32];

		dump_format_count(left, n, sizeof(n));
		dump_format_bytes(left_added, a, sizeof(a));
		dump_format_bytes(left_lost, l, sizeof(l));
		fprintf(f, "<tfoot><tr><td></td><td class=\"p\">\xe2\x80\xa6 and %s more files changed"
			"</td><td></td><td data-v=\"%" PRIu64 "\">+%s</td><td data-v=\"%" PRIu64
			"\">-%s</td><td></td><td></td><td></td><td></td></tr></tfoot>\n", n, left_added,
			a, left_lost, l);
	}
	fputs("</table>\n", f);
	if (c->nmetadata) {
		fputs("<h2>Metadata</h2>\n<table id=\"metadata\" class=\"sort\">\n<thead><tr>", f);
		head_cell(f, "filesystem", false, "filesystem or device");
		head_cell(f, "status", false, "status");
		compare_heads(f, false);
		fputs("</tr></thead>\n<tbody>\n", f);
		for (size_t i = 0; i < c->nmetadata; i++) {
			const struct compare_entry *e = &c->metadata[i];

			fprintf(f, "<tr data-rank=\"%zu\"><td class=\"p\">", i);
			if (e->mount_point) {
				markup_text(f, e->mount_point);
				fputc(' ', f);
			}
			fprintf(f, "(%u:%u)</td><td>%s</td>", e->major, e->minor,
				compare_status_name(e->status));
			compare_cells(f, e, false);
			fputs("</tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
	}
	dump_html_end(f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
