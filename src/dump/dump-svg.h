/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The picture of a pack as SVG: a timeline of what a start-up read, file by file */
#ifndef URA_DUMP_SVG_H
#define URA_DUMP_SVG_H

#include <stdio.h>

#include "dump-picture.h"

/*
 * dump_svg() - the picture of @pack as one self-contained SVG document on @f
 * @name: the pack's file name, shown in the header
 * @max_rows: file rows drawn at most, as picture_new()
 * Return: 0, or -ENOMEM, or -EIO when writing @f failed.
 */
int dump_svg(FILE *f, const struct ura_pack *pack, const char *name, size_t max_rows);

/* The picture's <svg> element alone, for a page that embeds it (dump_html()). */
void dump_svg_element(FILE *f, const struct picture *p, const char *name);

/* A row's page map as an <svg> element of its own (the HTML table's). */
void dump_svg_page_map(FILE *f, const struct picture_row *row);

#endif
