/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text from a pack made safe to write into SVG, HTML and XML */
#ifndef URA_DUMP_MARKUP_H
#define URA_DUMP_MARKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * markup_text() - write @s as character data or an attribute value (either quote)
 *
 * Any byte string gives well-formed, markup-free UTF-8 text: & < > " ' become
 * entities; a backslash is written \\, a newline \n, a tab \t; a control
 * character, a byte that is not part of valid UTF-8, a character XML cannot
 * carry (U+FFFE, U+FFFF) and the bidirectional controls that would reorder what
 * is shown around them are written byte by byte as \ooo (three octal digits),
 * as ura-dump's text view writes control bytes.
 */
void markup_text(FILE *f, const char *s);

/*
 * markup_text_tail() - as markup_text(), in at most @max characters
 *
 * A longer text is cut at its start and written as "…" and its last @max - 1
 * characters (an escape counts as the characters it takes), so a path keeps its
 * file name; @max 0 is no limit. Return: true when the text was cut.
 */
bool markup_text_tail(FILE *f, const char *s, size_t max);

#endif
