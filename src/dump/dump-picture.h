/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the picture of a pack shows: its rows, the long tail collapsed, pages binned by time */
#ifndef URA_DUMP_PICTURE_H
#define URA_DUMP_PICTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump-text.h"
#include "ura/pack.h"

#define PICTURE_TIME_BINS	360	/* columns of the timeline */
#define PICTURE_MAP_BINS	160	/* columns of a page map */
#define PICTURE_DEFAULT_ROWS	150	/* file rows drawn when the pack has more files */

/* Page-map bits of a column */
#define PICTURE_MAP_DEMANDED	(1u << 0)
#define PICTURE_MAP_SPECULATIVE	(1u << 1)

enum picture_row_kind {
	PICTURE_ROW_METADATA,	/* the metadata blocks of one device */
	PICTURE_ROW_FILE,
	PICTURE_ROW_MORE,	/* the files not drawn, summed in one row */
};

/* The pages a row had first read in one column of the timeline. */
struct picture_cell {
	uint32_t bin;			/* 0 .. PICTURE_TIME_BINS - 1 */
	uint64_t pages[2];		/* [0] demanded (metadata: all), [1] speculative */
	uint32_t support[2];		/* pages-weighted mean support of each, rounded */
};

struct picture_row {
	enum picture_row_kind kind;
	size_t rank;			/* FILE: place in first-access order (ura-dump --json) */
	size_t file;			/* FILE: index in the pack's file table */
	uint32_t fs_index;		/* METADATA: filesystem of the device, or URA_PACK_NO_INDEX */
	uint32_t major, minor;		/* METADATA: the block device */
	uint64_t files;			/* MORE: files summed; METADATA: devices (1 but in the last
					 * row of many); FILE: 1 */
	uint64_t ranges, bytes, demanded_bytes;
	uint64_t first_ns, last_ns;	/* first access of its earliest and latest range */
	uint32_t support_min, support_max;
	bool gap_before;		/* FILE: files were left out between it and the row above */
	struct picture_cell *cells;	/* by bin, only the columns with pages */
	size_t ncells;
	uint64_t map_pages;		/* pages the page map spans: the file (device) up to its end */
	uint8_t map[PICTURE_MAP_BINS];	/* PICTURE_MAP_* of each column (FILE and METADATA) */
};

struct picture {
	const struct ura_pack *pack;
	struct dump_totals totals;
	size_t runs;
	uint64_t end_ns;		/* the time axis: 0 .. end_ns, a multiple of step_ns */
	uint64_t step_ns;		/* between its ticks */
	struct picture_row *rows;	/* metadata rows, file rows by first access, MORE last */
	size_t nrows;
	size_t file_rows;		/* FILE rows among them */
	const struct picture_row *more;	/* the MORE row, or NULL when every file is drawn */
};

/*
 * picture_new() - lay out the picture of @pack
 * @max_rows: file rows to draw at most (0: every file). When the pack has more files, the
 *	first max_rows - max_rows / 3 files by first access are drawn, then of the rest the
 *	max_rows / 3 with the most bytes in the pack (in first-access order among the others),
 *	and every file left out is summed in one MORE row.
 * @ret: on success, the picture; free with picture_free()
 * Return: 0 or -ENOMEM.
 */
int picture_new(const struct ura_pack *pack, size_t max_rows, struct picture **ret);

/** picture_free() - release a picture; NULL is allowed */
void picture_free(struct picture *p);

/* The bin of a time on the axis 0 .. @end_ns, with @bins columns. */
uint32_t picture_bin(uint64_t t_ns, uint64_t end_ns, uint32_t bins);

#endif
