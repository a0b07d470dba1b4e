// SPDX-License-Identifier: GPL-2.0-or-later
/* The JSON writer: layouts, separators, escaping, numbers, misuse and write errors */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-json.h"
#include "unit.h"

struct doc {
	struct json j;
	FILE *f;
	char *buf;
	size_t len;
};

static void doc_begin(struct doc *d, enum json_style style)
{
	d->buf = NULL;
	d->f = open_memstream(&d->buf, &d->len);
	ck_assert_ptr_nonnull(d->f);
	json_begin(&d->j, d->f, style);
}

/* End the document, check json_end()'s result and the text, free it. */
static void doc_check(struct doc *d, int want_r, const char *want)
{
	ck_assert_int_eq(json_end(&d->j), want_r);
	fclose(d->f);
	if (want)
		ck_assert_str_eq(d->buf, want);
	free(d->buf);
}

/* One string value, as the document's only value. */
static void check_string(const char *s, const char *want)
{
	struct doc d;

	doc_begin(&d, JSON_SPACED);
	json_string(&d.j, s);
	doc_check(&d, 0, want);
}

START_TEST(test_spaced_layouts)
{
	struct doc d;

	doc_begin(&d, JSON_SPACED);
	json_object_begin(&d.j, JSON_LINES);
	json_key_string(&d.j, "version", "1.0");
	json_key(&d.j, "list");
	json_array_begin(&d.j, JSON_INLINE);
	json_object_begin(&d.j, JSON_INLINE);
	json_key_u64(&d.j, "a", 1);
	json_key_bool(&d.j, "b", false);
	json_object_end(&d.j);
	json_u64(&d.j, 2);
	json_array_end(&d.j);
	json_key(&d.j, "rows");
	json_array_begin(&d.j, JSON_LINES);
	json_object_begin(&d.j, JSON_INLINE);
	json_key_null(&d.j, "x");
	json_key(&d.j, "flags");
	json_array_begin(&d.j, JSON_INLINE);
	json_array_end(&d.j);
	json_object_end(&d.j);
	json_object_begin(&d.j, JSON_INLINE);
	json_object_end(&d.j);
	json_array_end(&d.j);
	json_key(&d.j, "empty");
	json_array_begin(&d.j, JSON_LINES);
	json_array_end(&d.j);
	json_object_end(&d.j);
	doc_check(&d, 0,
		  "{\n"
		  "  \"version\": \"1.0\",\n"
		  "  \"list\": [{\"a\": 1, \"b\": false}, 2],\n"
		  "  \"rows\": [\n"
		  "    {\"x\": null, \"flags\": []},\n"
		  "    {}\n"
		  "  ],\n"
		  "  \"empty\": [\n"
		  "  ]\n"
		  "}\n");
}
END_TEST

START_TEST(test_compact)
{
	struct doc d;

	doc_begin(&d, JSON_COMPACT);
	json_object_begin(&d.j, JSON_LINES);		/* compact: on one line all the same */
	json_key_u64(&d.j, "n", 3);
	json_key(&d.j, "l");
	json_array_begin(&d.j, JSON_LINES);
	json_object_begin(&d.j, JSON_INLINE);
	json_key_string(&d.j, "e", "x");
	json_key_double(&d.j, "s", 0.5, 3);
	json_object_end(&d.j);
	json_bool(&d.j, true);
	json_array_end(&d.j);
	json_wrap(&d.j);				/* no effect */
	json_key(&d.j, "z");
	json_array_begin(&d.j, JSON_INLINE);
	json_array_end(&d.j);
	json_object_end(&d.j);
	doc_check(&d, 0, "{\"n\":3,\"l\":[{\"e\":\"x\",\"s\":0.500},true],\"z\":[]}\n");
}
END_TEST

/* json_wrap(): the next member on a new line, under the first member of the object. */
START_TEST(test_wrap)
{
	struct doc d;

	doc_begin(&d, JSON_SPACED);
	json_object_begin(&d.j, JSON_LINES);
	json_key(&d.j, "totals");
	json_object_begin(&d.j, JSON_INLINE);
	json_key_u64(&d.j, "a", 1);
	json_key_u64(&d.j, "b", 2);
	json_wrap(&d.j);
	json_key_u64(&d.j, "c", 3);
	json_wrap(&d.j);
	json_key_string(&d.j, "d", "\xc3\xa9");
	json_object_end(&d.j);
	json_object_end(&d.j);
	doc_check(&d, 0,
		  "{\n"
		  "  \"totals\": {\"a\": 1, \"b\": 2,\n"
		  "             \"c\": 3,\n"
		  "             \"d\": \"\xc3\xa9\"}\n"
		  "}\n");
}
END_TEST

START_TEST(test_escapes)
{
	check_string("", "\"\"\n");
	check_string("plain /usr/lib/x.so", "\"plain /usr/lib/x.so\"\n");
	check_string("q\"b\\", "\"q\\\"b\\\\\"\n");
	check_string("nl\ntab\tcr\r", "\"nl\\ntab\\tcr\\u000d\"\n");
	check_string("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"\n");
	/* valid UTF-8 of 2, 3 and 4 bytes passes unchanged */
	check_string("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		     "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n");
	/* a byte that is not UTF-8 is its Latin-1 code point; what follows it is read anew */
	check_string("a\xff" "b", "\"a\\u00ffb\"\n");
	check_string("\xc3(", "\"\\u00c3(\"\n");
	check_string("\xc0\xaf", "\"\\u00c0\\u00af\"\n");		/* overlong '/' */
	check_string("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"\n");	/* a surrogate */
	check_string("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"\n");	/* > U+10FFFF */
	check_string("end\xe2\x82", "\"end\\u00e2\\u0082\"\n");		/* cut short */
}
END_TEST

/* json_stringf(): short and longer than its buffer, escaped like json_string(). */
START_TEST(test_stringf)
{
	char want[400], arg[300];
	struct doc d;

	memset(arg, 'x', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = '\0';
	snprintf(want, sizeof(want), "[\"8:1\", \"\\\"%s\\\"\"]\n", arg);
	doc_begin(&d, JSON_SPACED);
	json_array_begin(&d.j, JSON_INLINE);
	json_stringf(&d.j, "%u:%u", 8u, 1u);
	json_stringf(&d.j, "\"%s\"", arg);
	json_array_end(&d.j);
	doc_check(&d, 0, want);
}
END_TEST

/* Keys are escaped like strings. */
START_TEST(test_key_escaped)
{
	struct doc d;

	doc_begin(&d, JSON_SPACED);
	json_object_begin(&d.j, JSON_INLINE);
	json_key_u64(&d.j, "a\"b", 1);
	json_object_end(&d.j);
	doc_check(&d, 0, "{\"a\\\"b\": 1}\n");
}
END_TEST

START_TEST(test_numbers)
{
	struct doc d;

	doc_begin(&d, JSON_SPACED);
	json_array_begin(&d.j, JSON_INLINE);
	json_u64(&d.j, 0);
	json_u64(&d.j, UINT64_MAX);
	json_i64(&d.j, -1);
	json_i64(&d.j, INT64_MIN);
	json_i64(&d.j, INT64_MAX);
	json_double(&d.j, 0.12345, 4);
	json_double(&d.j, 2.5, 0);
	json_double(&d.j, 3.5, 0);
	json_double(&d.j, 8032.649, 1);
	json_double(&d.j, -0.0004, 3);
	json_double(&d.j, NAN, 3);
	json_double(&d.j, INFINITY, 1);
	json_array_end(&d.j);
	doc_check(&d, 0, "[0, 18446744073709551615, -1, -9223372036854775808, "
		  "9223372036854775807, 0.1235, 2, 4, 8032.6, -0.000, null, null]\n");
}
END_TEST

/* A number wider than the writer's buffer is written whole. */
START_TEST(test_huge_double)
{
	char want[400];
	struct doc d;

	snprintf(want, sizeof(want), "{\"v\": %.2f,\n \"w\": 1}\n", 1e300);
	doc_begin(&d, JSON_SPACED);
	json_object_begin(&d.j, JSON_INLINE);
	json_key_double(&d.j, "v", 1e300, 2);
	json_wrap(&d.j);
	json_key_u64(&d.j, "w", 1);
	json_object_end(&d.j);
	doc_check(&d, 0, want);		/* and the column counted it */
}
END_TEST

START_TEST(test_misuse)
{
	struct doc d;

	doc_begin(&d, JSON_SPACED);			/* nothing written */
	doc_check(&d, -EINVAL, NULL);

	doc_begin(&d, JSON_SPACED);			/* unclosed */
	json_object_begin(&d.j, JSON_INLINE);
	doc_check(&d, -EINVAL, NULL);

	doc_begin(&d, JSON_SPACED);			/* a value without its key */
	json_object_begin(&d.j, JSON_INLINE);
	json_u64(&d.j, 1);
	json_object_end(&d.j);
	doc_check(&d, -EINVAL, NULL);

	doc_begin(&d, JSON_SPACED);			/* a key in an array */
	json_array_begin(&d.j, JSON_INLINE);
	json_key(&d.j, "k");
	json_array_end(&d.j);
	doc_check(&d, -EINVAL, NULL);

	doc_begin(&d, JSON_SPACED);			/* a key without its value */
	json_object_begin(&d.j, JSON_INLINE);
	json_key(&d.j, "k");
	json_object_end(&d.j);
	doc_check(&d, -EINVAL, NULL);

	doc_begin(&d, JSON_SPACED);			/* the wrong close */
	json_array_begin(&d.j, JSON_INLINE);
	json_object_end(&d.j);
	doc_check(&d, -EINVAL, NULL);

	doc_begin(&d, JSON_SPACED);			/* two top-level values */
	json_u64(&d.j, 1);
	json_u64(&d.j, 2);
	doc_check(&d, -EINVAL, NULL);

	doc_begin(&d, JSON_SPACED);			/* deeper than JSON_MAX_DEPTH */
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_array_begin(&d.j, JSON_INLINE);
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_array_end(&d.j);
	doc_check(&d, -EINVAL, NULL);
}
END_TEST

START_TEST(test_write_error)
{
	struct json j;
	FILE *f = fopen("/dev/full", "we");

	if (!f)
		return;		/* no /dev/full in this sandbox */
	json_begin(&j, f, JSON_SPACED);
	json_array_begin(&j, JSON_LINES);
	for (int i = 0; i < 10000; i++)
		json_string(&j, "more than one buffer of text");
	json_array_end(&j);
	ck_assert_int_eq(json_end(&j), -EIO);
	fclose(f);
}
END_TEST

static Suite *util_json_suite(void)
{
	Suite *s = suite_create("util-json");
	TCase *tc = tcase_create("writer");

	tcase_add_test(tc, test_spaced_layouts);
	tcase_add_test(tc, test_compact);
	tcase_add_test(tc, test_wrap);
	tcase_add_test(tc, test_escapes);
	tcase_add_test(tc, test_stringf);
	tcase_add_test(tc, test_key_escaped);
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_huge_double);
	tcase_add_test(tc, test_misuse);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(util_json_suite)
