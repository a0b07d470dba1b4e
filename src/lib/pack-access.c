// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libura: the bytes of the access log (format 1.1). Each record is coded
 * against the one before it (time and page deltas, file and stream only when
 * they change), so a record takes 4 to 12 bytes where fixed fields would take
 * 48; the reader checks every record once and keeps a mark every 32 records
 * to decode any record from.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pack-access.h"
#include "pack-internal.h"

#define ACCESS_MARK_EVERY	32

/* Where record i * ACCESS_MARK_EVERY starts, and the state it is coded against. */
struct pack_access_mark {
	size_t off;
	struct pack_access_state st;
};

const char *pack_access_problem(const struct ura_pack_access *a, const struct pack_access_state *st,
			   size_t nfiles)
{
	if (a->kind != URA_PACK_ACCESS_READ && a->kind != URA_PACK_ACCESS_FAULT)
		return "access of an unknown kind";
	if (a->flags & ~ACCESS_FLAGS_KNOWN)
		return "access with unknown flags";
	if (a->kind == URA_PACK_ACCESS_READ && a->flags)
		return "read access with fault flags";
	if (a->file_index >= nfiles)
		return "access to a missing file";
	if (a->time_ns < st->time)
		return "access log not in time order";
	if (a->last < a->first || a->last >= PACK_MAX_PAGE)
		return "access pages empty or past the largest page";
	if (a->kind == URA_PACK_ACCESS_READ)
		return NULL;
	if (a->last != a->first)
		return "fault access of more than one page";
	if (a->flags & URA_PACK_ACCESS_NO_AROUND)
		return a->flags & URA_PACK_ACCESS_GUESSED ?
		       "guessed fault page without a fault-around window" : NULL;
	if (a->around_first > a->first || a->around_last < a->last ||
	    a->around_last >= PACK_MAX_PAGE ||
	    a->around_last - a->around_first >= ACCESS_MAX_AROUND)
		return "fault-around window not around its page, or too large";
	return NULL;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* LEB128, at most 64 bits; -1 when truncated or longer. */
static int get_varint(const uint8_t *p, size_t len, size_t *off, uint64_t *ret)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (*off >= len)
			return -1;
		b = p[(*off)++];
		if (shift == 63 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret = v;
			return 0;
		}
	}
	return -1;
}

/* A signed delta as an unsigned varint: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ... */
static uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (0 - (d >> 63));
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

static bool has_window(const struct ura_pack_access *a)
{
	return a->kind == URA_PACK_ACCESS_FAULT && !(a->flags & URA_PACK_ACCESS_NO_AROUND);
}

size_t pack_access_encode(struct pack_access_state *st, const struct ura_pack_access *a,
			  uint8_t *buf)
{
	bool file = a->file_index != st->file, stream = a->stream != st->stream;
	size_t n = 1;

	buf[0] = (uint8_t)(a->kind | a->flags << ACCESS_TAG_FLAGS_SHIFT |
			   (file ? ACCESS_TAG_FILE : 0) | (stream ? ACCESS_TAG_STREAM : 0));
	n += put_varint(buf + n, a->time_ns - st->time);
	if (file)
		n += put_varint(buf + n, a->file_index);
	if (stream)
		n += put_varint(buf + n, a->stream);
	/* another file: the page itself; the same: how far from where the last one ended */
	n += put_varint(buf + n, file ? a->first : zigzag(a->first - st->next));
	if (a->kind == URA_PACK_ACCESS_READ)
		n += put_varint(buf + n, a->last - a->first);
	if (has_window(a)) {
		n += put_varint(buf + n, a->first - a->around_first);
		n += put_varint(buf + n, a->around_last - a->last);
	}
	*st = (struct pack_access_state){ .time = a->time_ns, .next = a->last + 1,
				     .file = a->file_index, .stream = a->stream };
	return n;
}

/* Decode the record at *@off after @st; on success *@off and @st move past it. */
static int decode(const uint8_t *p, size_t len, size_t *off, struct pack_access_state *st,
		  size_t nfiles, struct ura_pack_access *ret, const char **why)
{
	struct ura_pack_access a = { 0 };
	const char *problem;
	uint64_t v, w;
	uint8_t tag;

	*why = "access record truncated or malformed";
	if (*off >= len)
		return -EBADMSG;
	tag = p[(*off)++];
	a.kind = tag & ACCESS_TAG_KIND;
	a.flags = (tag & ACCESS_TAG_FLAGS) >> ACCESS_TAG_FLAGS_SHIFT;
	if (a.kind != URA_PACK_ACCESS_READ && a.kind != URA_PACK_ACCESS_FAULT) {
		*why = "access of an unknown kind";
		return -EBADMSG;	/* the fields that follow are unknown too */
	}
	if (get_varint(p, len, off, &v) < 0)
		return -EBADMSG;
	if (v > UINT64_MAX - st->time) {
		*why = "access time past 2^64 ns";
		return -EBADMSG;
	}
	a.time_ns = st->time + v;
	a.file_index = st->file;
	a.stream = st->stream;
	if ((tag & ACCESS_TAG_FILE) && (get_varint(p, len, off, &v) < 0 || v > UINT32_MAX))
		return -EBADMSG;
	if (tag & ACCESS_TAG_FILE)
		a.file_index = (uint32_t)v;
	if ((tag & ACCESS_TAG_STREAM) && (get_varint(p, len, off, &v) < 0 || v > UINT32_MAX))
		return -EBADMSG;
	if (tag & ACCESS_TAG_STREAM)
		a.stream = (uint32_t)v;
	if (get_varint(p, len, off, &v) < 0)
		return -EBADMSG;
	a.first = (tag & ACCESS_TAG_FILE) ? v : st->next + unzigzag(v);
	a.last = a.first;
	if (a.kind == URA_PACK_ACCESS_READ) {
		if (get_varint(p, len, off, &v) < 0)
			return -EBADMSG;
		if (a.first >= PACK_MAX_PAGE || v >= PACK_MAX_PAGE) {
			*why = "access pages empty or past the largest page";
			return -EBADMSG;
		}
		a.last = a.first + v;
	}
	if (has_window(&a)) {
		if (get_varint(p, len, off, &v) < 0 || get_varint(p, len, off, &w) < 0)
			return -EBADMSG;
		if (v > a.first || w >= ACCESS_MAX_AROUND || a.last >= PACK_MAX_PAGE) {
			*why = "fault-around window not around its page, or too large";
			return -EBADMSG;
		}
		a.around_first = a.first - v;
		a.around_last = a.last + w;
	}
	problem = pack_access_problem(&a, st, nfiles);
	if (problem) {
		*why = problem;
		return -EBADMSG;
	}
	*st = (struct pack_access_state){ .time = a.time_ns, .next = a.last + 1,
				     .file = a.file_index, .stream = a.stream };
	if (ret)
		*ret = a;
	return 0;
}

int pack_access_load(struct pack_access_log *log, const uint8_t *section, uint64_t size,
		     size_t nfiles, const char **why)
{
	static uint64_t serials;
	struct pack_access_state st = { 0 };
	struct pack_access_mark *marks;
	uint32_t count;
	size_t off = 0, len;
	int r;

	if (size < ACCESS_HDR_SIZE) {
		*why = "access log shorter than its header";
		return -EBADMSG;
	}
	count = get_le32(section + ACCESS_HDR_COUNT);
	len = (size_t)(size - ACCESS_HDR_SIZE);
	if (count > len / ACCESS_REC_MIN) {
		*why = "access log counts more records than its bytes hold";
		return -EBADMSG;
	}
	marks = calloc(count / ACCESS_MARK_EVERY + 1, sizeof(*marks));
	if (!marks)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		if (i % ACCESS_MARK_EVERY == 0)
			marks[i / ACCESS_MARK_EVERY] = (struct pack_access_mark){ off, st };
		r = decode(section + ACCESS_HDR_SIZE, len, &off, &st, nfiles, NULL, why);
		if (r < 0) {
			free(marks);
			return r;
		}
	}
	if (off != len) {
		free(marks);
		*why = "access log longer than its records";
		return -EBADMSG;
	}
	*log = (struct pack_access_log){ .recs = section + ACCESS_HDR_SIZE, .len = len,
					 .count = count, .marks = marks,
					 .serial = __atomic_add_fetch(&serials, 1,
								      __ATOMIC_RELAXED) };
	return 0;
}

void pack_access_free(struct pack_access_log *log)
{
	free(log->marks);
	log->marks = NULL;
}

/*
 * Where this thread's last pack_access_get() stopped: the next record, so that
 * reading a log in order decodes each record once. Logs are told apart by
 * serial, never by address (a freed pack's address is reused).
 */
static __thread struct {
	uint64_t serial;	/* 0: none */
	size_t index;		/* the record at @off */
	size_t off;
	struct pack_access_state st;
} cursor;

int pack_access_get(const struct pack_access_log *log, size_t index, struct ura_pack_access *ret)
{
	const struct pack_access_mark *m;
	struct pack_access_state st;
	const char *why;
	size_t i, off;
	int r;

	if (index >= log->count)
		return -ERANGE;
	m = &log->marks[index / ACCESS_MARK_EVERY];
	i = index - index % ACCESS_MARK_EVERY;
	off = m->off;
	st = m->st;
	if (cursor.serial == log->serial && cursor.index <= index && cursor.index > i) {
		i = cursor.index;
		off = cursor.off;
		st = cursor.st;
	}
	for (; i < index; i++)
		if ((r = decode(log->recs, log->len, &off, &st, SIZE_MAX, NULL, &why)) < 0)
			return r;	/* checked when the pack was read: never */
	r = decode(log->recs, log->len, &off, &st, SIZE_MAX, ret, &why);
	if (r < 0)
		return r;
	cursor.serial = log->serial;
	cursor.index = index + 1;
	cursor.off = off;
	cursor.st = st;
	return 0;
}
