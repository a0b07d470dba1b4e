/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A pack as one self-contained HTML page: the picture, and sortable tables of its rows */
#ifndef URA_DUMP_HTML_H
#define URA_DUMP_HTML_H

#include <stdio.h>

#include "ura/pack.h"

/*
 * dump_html() - the page of @pack on @f: the picture of dump_svg() inline, then a table of
 * the files drawn (each with its page map) and of the metadata devices
 * @name: the pack's file name, shown in the title
 * @max_rows: file rows drawn at most, as picture_new()
 * Return: 0, or -ENOMEM, or -EIO when writing @f failed.
 */
int dump_html(FILE *f, const struct ura_pack *pack, const char *name, size_t max_rows);

struct compare;

/*
 * dump_html_compare() - the comparison of two packs (compare_new()) as one page: the totals, a
 * sortable table of the files changed (the first 1000 by bytes changed, the rest summed) and
 * one of the metadata
 * Return: 0, or -EIO when writing @f failed.
 */
int dump_html_compare(FILE *f, const struct compare *c, const char *name_a, const char *name_b);

/* The head of a page titled @title (escaped), its style and the opening <body>. */
void dump_html_begin(FILE *f, const char *title);

/* The page's script (sorting and highlighting, all optional) and its end. */
void dump_html_end(FILE *f);

#endif
