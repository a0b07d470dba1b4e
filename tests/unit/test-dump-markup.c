// SPDX-License-Identifier: GPL-2.0-or-later
/* Text from a pack in SVG and HTML: no markup, well-formed UTF-8, visible escapes, cut tails */
#include <stdlib.h>
#include <string.h>

#include "dump-markup.h"
#include "unit.h"

/* What markup_text() (max 0) or markup_text_tail() writes for @s. */
static char *escaped(const char *s, size_t max, bool *ret_cut)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool cut = false;

	ck_assert_ptr_nonnull(f);
	if (max)
		cut = markup_text_tail(f, s, max);
	else
		markup_text(f, s);
	ck_assert_int_eq(fclose(f), 0);
	if (ret_cut)
		*ret_cut = cut;
	return buf;
}

#define ck_escaped(in, want)				\
	do {						\
		char *got_ = escaped(in, 0, NULL);	\
		ck_assert_str_eq(got_, want);		\
		free(got_);				\
	} while (0)

START_TEST(test_markup_characters)
{
	ck_escaped("plain/usr/lib/x.so", "plain/usr/lib/x.so");
	ck_escaped("</text><script>alert(1)</script>&\"'",
		   "&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;");
	ck_escaped("a]]>b", "a]]&gt;b");
	ck_escaped("", "");
}
END_TEST

START_TEST(test_escapes)
{
	ck_escaped("a\\b", "a\\\\b");
	ck_escaped("line\nnext\ttab", "line\\nnext\\ttab");
	ck_escaped("\x01x\x1f\x7f", "\\001x\\037\\177");
	ck_escaped("bad\xff" "byte", "bad\\377byte");
	ck_escaped("\xc3", "\\303");				/* truncated sequence */
	ck_escaped("\xc0\xaf", "\\300\\257");			/* overlong '/' */
	ck_escaped("\xed\xa0\x80", "\\355\\240\\200");		/* a surrogate */
	ck_escaped("\xc2\x85", "\\302\\205");			/* C1 control NEL */
	ck_escaped("\xef\xbf\xbe", "\\357\\277\\276");		/* U+FFFE */
	ck_escaped("x\xe2\x80\xaey", "x\\342\\200\\256y");	/* U+202E RIGHT-TO-LEFT OVERRIDE */
}
END_TEST

START_TEST(test_utf8_passes)
{
	ck_escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\xa6", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\xa6");
}
END_TEST

START_TEST(test_tail)
{
	bool cut;
	char *s;

	s = escaped("/usr/lib/python3.11/json/decoder.py", 40, &cut);
	ck_assert_str_eq(s, "/usr/lib/python3.11/json/decoder.py");
	ck_assert(!cut);
	free(s);
	s = escaped("/usr/lib/python3.11/json/decoder.py", 12, &cut);
	ck_assert_str_eq(s, "\xe2\x80\xa6" "/decoder.py");	/* 1 + 11 characters */
	ck_assert(cut);
	free(s);
	/* an escape is never split: \377 takes 4 characters, an entity 1 */
	s = escaped("abcdef\xff<gh", 6, &cut);
	ck_assert_str_eq(s, "\xe2\x80\xa6" "&lt;gh");
	free(s);
	s = escaped("abcdef\xff<gh", 8, &cut);
	ck_assert_str_eq(s, "\xe2\x80\xa6" "\\377&lt;gh");
	free(s);
	/* a multi-byte character is never split */
	s = escaped("\xc3\xa9\xc3\xa9\xc3\xa9", 2, &cut);
	ck_assert_str_eq(s, "\xe2\x80\xa6\xc3\xa9");
	free(s);
	s = escaped("abc", 1, &cut);
	ck_assert_str_eq(s, "\xe2\x80\xa6");
	ck_assert(cut);
	free(s);
}
END_TEST

/* Every byte value, alone and after a lead byte: never a raw markup character or a control. */
START_TEST(test_every_byte)
{
	for (int a = 1; a < 256; a++)
		for (int b = 0; b < 256; b += (a >= 0xc0 ? 1 : 255)) {
			char in[3] = { (char)a, (char)b, 0 };
			char *s = escaped(in, 0, NULL);

			for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
				ck_assert_msg(*p != '<' && *p != '>' && *p != '"' && *p != '\'',
					      "byte %02x %02x gave %s", a, b, s);
				ck_assert_msg(*p >= 0x20 && *p != 0x7f, "byte %02x %02x gave a control", a, b);
				if (*p == '&')
					ck_assert(strncmp((const char *)p, "&amp;", 5) == 0 ||
						  strncmp((const char *)p, "&lt;", 4) == 0 ||
						  strncmp((const char *)p, "&gt;", 4) == 0 ||
						  strncmp((const char *)p, "&quot;", 6) == 0 ||
						  strncmp((const char *)p, "&#39;", 5) == 0);
			}
			free(s);
		}
}
END_TEST

static Suite *markup_suite(void)
{
	Suite *s = suite_create("markup");
	TCase *tc = tcase_create("escape");

	tcase_add_test(tc, test_markup_characters);
	tcase_add_test(tc, test_escapes);
	tcase_add_test(tc, test_utf8_passes);
	tcase_add_test(tc, test_tail);
	tcase_add_test(tc, test_every_byte);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(markup_suite)
