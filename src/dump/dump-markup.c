// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text from a pack made safe to write into SVG, HTML and XML. A pack is hostile input: a path
 * may hold any byte but NUL, so nothing of it may reach the output as markup, and what XML
 * cannot carry is shown as a visible escape rather than dropped.
 */
#include <stdint.h>
#include <string.h>

#include "dump-markup.h"
#include "util.h"

/* One character of the input and how it is written. */
struct unit {
	size_t len;		/* input bytes */
	size_t width;		/* characters written */
	const char *as;		/* written as this, or NULL */
	bool octal;		/* written as \ooo per byte */
};

/* Characters that reorder the text shown around them (Trojan Source), or are invisible marks. */
static bool bidi_control(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

static struct unit next_unit(const unsigned char *p, size_t n)
{
	uint32_t cp;
	size_t len = utf8_decode(p, n, &cp);

	if (len == 0)			/* not UTF-8 */
		return (struct unit){ .len = 1, .width = 4, .octal = true };
	switch (cp) {
	case '&':
		return (struct unit){ .len = 1, .width = 1, .as = "&amp;" };
	case '<':
		return (struct unit){ .len = 1, .width = 1, .as = "&lt;" };
	case '>':
		return (struct unit){ .len = 1, .width = 1, .as = "&gt;" };
	case '"':
		return (struct unit){ .len = 1, .width = 1, .as = "&quot;" };
	case '\'':
		return (struct unit){ .len = 1, .width = 1, .as = "&#39;" };
	case '\\':
		return (struct unit){ .len = 1, .width = 2, .as = "\\\\" };
	case '\n':
		return (struct unit){ .len = 1, .width = 2, .as = "\\n" };
	case '\t':
		return (struct unit){ .len = 1, .width = 2, .as = "\\t" };
	default:
		break;
	}
	/* C0 and C1 controls, DEL, the two non-characters XML forbids, bidi controls */
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0xfffe || cp == 0xffff ||
	    bidi_control(cp))
		return (struct unit){ .len = len, .width = 4 * len, .octal = true };
	return (struct unit){ .len = len, .width = 1 };
}

static void put_unit(FILE *f, const unsigned char *p, const struct unit *u)
{
	if (u->as)
		fputs(u->as, f);
	else if (u->octal)
		for (size_t i = 0; i < u->len; i++)
			fprintf(f, "\\%03o", p[i]);
	else
		fwrite(p, 1, u->len, f);
}

static void put_from(FILE *f, const unsigned char *p, size_t n)
{
	while (n) {
		struct unit u = next_unit(p, n);

		put_unit(f, p, &u);
		p += u.len;
		n -= u.len;
	}
}

void markup_text(FILE *f, const char *s)
{
	put_from(f, (const unsigned char *)s, strlen(s));
}

bool markup_text_tail(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), width = 0;

	for (size_t i = 0; i < n;) {
		struct unit u = next_unit(p + i, n - i);

		width += u.width;
		i += u.len;
	}
	if (width <= max || max == 0) {
		put_from(f, p, n);
		return false;
	}
	/* drop characters from the start until the rest and the ellipsis fit */
	while (n && width > max - 1) {
		struct unit u = next_unit(p, n);

		width -= u.width;
		p += u.len;
		n -= u.len;
	}
	fputs("\xe2\x80\xa6", f);	/* U+2026 HORIZONTAL ELLIPSIS */
	put_from(f, p, n);
	return true;
}
