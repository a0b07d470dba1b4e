// SPDX-License-Identifier: GPL-2.0-or-later
/* The tools' one JSON writer: a stream of objects, arrays and values on a FILE*, commas kept */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util-json.h"
#include "util.h"

/* What waits in the buffer, to the FILE. */
static void flush_buf(struct json *j)
{
	if (j->len)
		fwrite(j->buf, 1, j->len, j->f);
	j->len = 0;
}

/* Every byte goes through put() or putch(), which count the column for json_wrap(). */
static void put(struct json *j, const void *s, size_t n)
{
	if (n > sizeof(j->buf) - j->len) {
		flush_buf(j);
		if (n > sizeof(j->buf)) {
			fwrite(s, 1, n, j->f);
			j->col += (unsigned)n;
			return;
		}
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->col += (unsigned)n;
}

static void putch(struct json *j, char c)
{
	if (j->len == sizeof(j->buf))
		flush_buf(j);
	j->buf[j->len++] = c;
	j->col++;
}

static void newline(struct json *j, unsigned indent)
{
	static const char blank[] = "                                ";

	putch(j, '\n');
	j->col = 0;
	while (indent) {
		unsigned n = indent < sizeof(blank) - 1 ? indent : (unsigned)sizeof(blank) - 1;

		put(j, blank, n);
		indent -= n;
	}
}

/* The separator and line break before a member of the current container. */
static void member(struct json *j)
{
	struct json_level *lv = &j->level[j->depth - 1];

	if (lv->any)
		putch(j, ',');
	if (lv->lines)
		newline(j, 2 * j->depth);
	else if (lv->wrap)
		newline(j, lv->col);
	else if (lv->any && !j->compact)
		putch(j, ' ');
	lv->any = true;
	lv->wrap = false;
}

/* Before any value: the member separator in an array, nothing after a key. */
static void value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0) {
		if (j->done)
			j->misuse = true;	/* a second top-level value */
		j->done = true;
		return;
	}
	if (!j->level[j->depth - 1].array)
		j->misuse = true;		/* a value in an object without its key */
	member(j);
}

static void escape(struct json *j, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

	if (c == '"' || c == '\\') {
		putch(j, '\\');
		putch(j, (char)c);
	} else if (c == '\n') {
		put(j, "\\n", 2);
	} else if (c == '\t') {
		put(j, "\\t", 2);
	} else {
		put(j, u, sizeof(u));
	}
}

/* @s quoted; runs of bytes that need no escape are written at once. */
static void quoted(struct json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	size_t n = strlen(s), len;

	putch(j, '"');
	while (n) {
		unsigned char c = *p;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			len = 1;
		} else if (c >= 0x80 && (len = utf8_decode(p, n, NULL)) > 0) {
			;	/* valid UTF-8 passes unchanged */
		} else {
			put(j, run, (size_t)(p - run));
			escape(j, c);
			run = p + 1;
			len = 1;
		}
		p += len;
		n -= len;
	}
	put(j, run, (size_t)(p - run));
	putch(j, '"');
}

static void put_u64(struct json *j, uint64_t v)
{
	char buf[20], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put(j, p, (size_t)(buf + sizeof(buf) - p));
}

void json_begin(struct json *j, FILE *f, enum json_style style)
{
	j->f = f;
	j->len = 0;
	j->compact = style == JSON_COMPACT;
	j->misuse = j->after_key = j->done = false;
	j->depth = j->col = 0;
}

int json_end(struct json *j)
{
	if (j->depth || j->after_key || !j->done)
		j->misuse = true;
	putch(j, '\n');
	flush_buf(j);
	if (fflush(j->f) != 0 || ferror(j->f))
		return -EIO;
	return j->misuse ? -EINVAL : 0;
}

static void open_container(struct json *j, char c, bool array, enum json_layout layout)
{
	value(j);
	if (j->depth == JSON_MAX_DEPTH) {
		j->misuse = true;
		return;
	}
	putch(j, c);
	j->level[j->depth++] = (struct json_level){
		.array = array, .lines = layout == JSON_LINES && !j->compact, .col = j->col };
}

static void close_container(struct json *j, char c, bool array)
{
	if (!j->depth || j->level[j->depth - 1].array != array || j->after_key) {
		j->misuse = true;
		return;
	}
	if (j->level[j->depth - 1].lines)
		newline(j, 2 * (j->depth - 1));
	putch(j, c);
	j->depth--;
}

void json_object_begin(struct json *j, enum json_layout layout)
{
	open_container(j, '{', false, layout);
}

void json_object_end(struct json *j)
{
	close_container(j, '}', false);
}

void json_array_begin(struct json *j, enum json_layout layout)
{
	open_container(j, '[', true, layout);
}

void json_array_end(struct json *j)
{
	close_container(j, ']', true);
}

void json_key(struct json *j, const char *key)
{
	if (!j->depth || j->level[j->depth - 1].array || j->after_key) {
		j->misuse = true;
		return;
	}
	member(j);
	quoted(j, key);
	if (j->compact)
		putch(j, ':');
	else
		put(j, ": ", 2);
	j->after_key = true;
}

void json_wrap(struct json *j)
{
	if (j->depth && !j->compact && !j->level[j->depth - 1].lines)
		j->level[j->depth - 1].wrap = true;
}

void json_string(struct json *j, const char *s)
{
	value(j);
	quoted(j, s);
}

void json_stringf(struct json *j, const char *fmt, ...)
{
	char buf[128], *s = buf;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): clang 14 false positive */
	va_end(ap);
	if (n >= (int)sizeof(buf)) {
		va_start(ap, fmt);
		if (vasprintf(&s, fmt, ap) < 0) /* NOLINT(clang-analyzer-valist.Uninitialized): clang 14 false positive */
			s = NULL;
		va_end(ap);
	}
	if (n < 0 || !s) {
		j->misuse = true;	/* a bad format, or no memory: the document is not whole */
		value(j);
		put(j, "null", 4);
		return;
	}
	json_string(j, s);
	if (s != buf)
		free(s);
}

void json_u64(struct json *j, uint64_t v)
{
	value(j);
	put_u64(j, v);
}

void json_i64(struct json *j, int64_t v)
{
	value(j);
	if (v < 0)
		putch(j, '-');
	put_u64(j, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

void json_double(struct json *j, double v, int precision)
{
	char buf[64];
	int n;

	value(j);
	if (!isfinite(v)) {
		put(j, "null", 4);
		return;
	}
	n = snprintf(buf, sizeof(buf), "%.*f", precision, v);
	if (n < 0) {
		j->misuse = true;
	} else if ((size_t)n < sizeof(buf)) {
		put(j, buf, (size_t)n);
	} else {			/* 1e300 has 301 digits */
		flush_buf(j);
		fprintf(j->f, "%.*f", precision, v);
		j->col += (unsigned)n;
	}
}

void json_bool(struct json *j, bool v)
{
	value(j);
	if (v)
		put(j, "true", 4);
	else
		put(j, "false", 5);
}

void json_null(struct json *j)
{
	value(j);
	put(j, "null", 4);
}
