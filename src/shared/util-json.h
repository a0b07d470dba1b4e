/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tools' one JSON writer: a stream of objects, arrays and values on a FILE*, commas kept */
#ifndef URA_UTIL_JSON_H
#define URA_UTIL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	8

/* How the whole document is spaced. */
enum json_style {
	JSON_SPACED,	/* ", " between members, ": " after keys, and JSON_LINES honoured */
	JSON_COMPACT,	/* "," and ":" only, every container on one line (one-line reports) */
};

/* How one container lays out its members (JSON_SPACED only). */
enum json_layout {
	JSON_INLINE,	/* {"a": 1, "b": [2, 3]} */
	JSON_LINES,	/* a member a line, indented two spaces a level; the close on a line */
};

#define JSON_BUF	4096

/*
 * The writer's state, on the caller's stack; only util-json.c looks inside. What it writes
 * waits in buf until buf is full or the document ends: a document of any size costs these
 * few KiB, and the many small writes of a large one cost a copy each, not a stdio call.
 */
struct json {
	FILE *f;
	size_t len;		/* bytes waiting in buf */
	bool compact;
	bool misuse;		/* a key outside an object, a value without its key, depth... */
	bool after_key;		/* a key was written: its value follows, no separator */
	bool done;		/* the top-level value was begun */
	unsigned depth;
	unsigned col;		/* bytes written since the last newline, for json_wrap() */
	struct json_level {
		bool array;
		bool lines;
		bool any;	/* a member was written */
		bool wrap;	/* the next member starts a new line, under the first */
		unsigned col;	/* the column of the first member */
	} level[JSON_MAX_DEPTH];
	char buf[JSON_BUF];
};

/* Start a document of one value on @f. */
void json_begin(struct json *j, FILE *f, enum json_style style);

/*
 * End it: a newline after the value, then write what waits and flush @f. Nothing else may
 * write to @f between json_begin() and json_end(). Return: 0; -EINVAL if the calls did not
 * make one balanced value; -EIO if @f had a write error.
 */
int json_end(struct json *j);

/* Containers; in an object every value follows a json_key(). */
void json_object_begin(struct json *j, enum json_layout layout);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, enum json_layout layout);
void json_array_end(struct json *j);

/* The key of the next member of the current object. */
void json_key(struct json *j, const char *key);

/*
 * A string: '"' and '\' escaped, newline and tab as \n and \t, other control bytes and every
 * byte that is not part of valid UTF-8 as \u00XX (its Latin-1 code point), so a file name of
 * any bytes stays visible and the output stays valid JSON.
 */
void json_string(struct json *j, const char *s);
/* A string made by printf from @fmt ("%u:%u" of a device), escaped as json_string() does. */
void json_stringf(struct json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
/* A number with @precision decimals ("%.*f"); NaN and infinities, which JSON lacks, as null. */
void json_double(struct json *j, double v, int precision);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/*
 * In a JSON_INLINE container: its next member starts a new line, aligned under its first
 * member (a long object kept readable). No effect in JSON_COMPACT.
 */
void json_wrap(struct json *j);

/* A member in one call: json_key() then the value. */
static inline void json_key_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

static inline void json_key_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

static inline void json_key_i64(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_i64(j, v);
}

static inline void json_key_double(struct json *j, const char *key, double v, int precision)
{
	json_key(j, key);
	json_double(j, v, precision);
}

static inline void json_key_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

static inline void json_key_null(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}

#endif
