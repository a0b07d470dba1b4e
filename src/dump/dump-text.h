/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rendering a pack for people (ureadahead --dump style), for totals, and as JSON */
#ifndef URA_DUMP_TEXT_H
#define URA_DUMP_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ra-emulate.h"
#include "ura/pack.h"

enum dump_sort {
	DUMP_SORT_ACCESS,	/* first access of each file (the pack's order) */
	DUMP_SORT_PATH,
	DUMP_SORT_SIZE,		/* largest file first */
};

enum dump_format {
	DUMP_TEXT,		/* per file: path, size, pages, page map */
	DUMP_STATS,		/* totals only */
	DUMP_JSON,		/* everything, schema in ura-dump(8) */
};

struct dump_totals {
	uint64_t files, ranges, bytes, demanded_bytes, metadata_ranges, metadata_bytes;
};

/* Sum the pack's tables. */
void dump_totals(const struct ura_pack *pack, struct dump_totals *ret);

/* Hit ratios from the readahead emulation at the trace's own window (ra_advise_hits()). */
struct dump_hits {
	const struct ra_counts *per_file;	/* by file index */
	struct ra_counts total;
	uint32_t window_kb;
};

/*
 * For people, on one line: a newline, tab, backslash or other control byte of @s is written as
 * a C-style escape (\n, \t, \\, \ooo), as ls -b does; other bytes pass unchanged.
 */
void dump_print_escaped(FILE *f, const char *s);

/* For people: a wall-clock time in UTC (2026-11-22T02:00:00Z, "unknown" when not set). */
void dump_format_time(int64_t ns, char *buf, size_t len);

/* For people: 512 B, 1.5 KiB, 12.3 MiB, 1.25 GiB. */
void dump_format_bytes(uint64_t bytes, char *buf, size_t len);

/* For people: 120,000. */
void dump_format_count(uint64_t n, char *buf, size_t len);

/* For people: 12 ns, 1.500 µs, 12.345 ms, 1.234 s. */
void dump_format_duration(uint64_t ns, char *buf, size_t len);

/*
 * dump_pack() - write @pack to @f
 * @name: the pack's file name, shown in the text and stats views
 * @hits: NULL when the pack has no access log: the stats and JSON then leave the ratios out
 * Return: 0, or -ENOMEM, or -EIO when writing @f failed.
 */
int dump_pack(FILE *f, const struct ura_pack *pack, const char *name, enum dump_format format,
	      enum dump_sort sort, const struct dump_hits *hits);

#endif
