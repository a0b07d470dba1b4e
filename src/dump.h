/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rendering a pack for people (ureadahead --dump style), for totals, and as JSON */
#ifndef URA_DUMP_H
#define URA_DUMP_H

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
 * dump_pack() - write @pack to @f
 * @name: the pack's file name, shown in the text and stats views
 * @hits: NULL when the pack has no access log: the stats and JSON then leave the ratios out
 * Return: 0, or -ENOMEM, or -EIO when writing @f failed.
 */
int dump_pack(FILE *f, const struct ura_pack *pack, const char *name, enum dump_format format,
	      enum dump_sort sort, const struct dump_hits *hits);

#endif
