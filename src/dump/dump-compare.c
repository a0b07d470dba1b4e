// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Two packs compared (ura-dump --compare A B): per file, matched across the packs by filesystem
 * and path as ura-trace --merge matches them, and per metadata filesystem or device, the pages
 * B adds and those it loses against A, in bytes; sorted by bytes changed, with totals. Views:
 * text (the files that changed) and JSON (every file); the HTML table is dump-html.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dump-compare.h"
#include "dump-text.h"
#include "merge.h"
#include "util-json.h"
#include "util.h"

/* One side's pages (or metadata bytes) of an entry: sorted, disjoint [first, end) spans. */
struct span {
	uint64_t first, end;
};

struct spans {
	struct span *v;
	size_t n, cap;
};

/* A file of A or B, to be sorted next to the same file of the other. */
struct key {
	uint32_t fs;		/* A's filesystem, or nfs(A) + B's for one A has not */
	uint8_t side;		/* 0: A, 1: B */
	const char *path;
	uint32_t file;
};

/* A metadata range of A or B, to be sorted by what it belongs to, then offset. */
struct mkey {
	uint32_t kind;		/* 0: a filesystem (k1 as key.fs), 1: a device (k1:k2) */
	uint32_t k1, k2;
	uint8_t side;
	uint32_t fs_index;	/* in its own pack */
	uint32_t major, minor;
	uint64_t first, end;	/* bytes */
};

struct comparer {
	const struct ura_pack *pack[2];
	struct ura_pack_index *index[2];
	uint32_t *fs_map;	/* B's filesystem -> key.fs */
	struct spans s[2];
	struct compare *c;
	size_t cap;
};

const char *compare_status_name(enum compare_status s)
{
	static const char *const names[] = { "same", "changed", "replaced", "added", "lost" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

/* Add [first, end) to spans that come sorted by first: merged with the last when they touch. */
static int spans_add(struct spans *s, uint64_t first, uint64_t end)
{
	if (s->n && first <= s->v[s->n - 1].end) {
		if (end > s->v[s->n - 1].end)
			s->v[s->n - 1].end = end;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct span *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct span){ first, end };
	return 0;
}

static uint64_t spans_size(const struct spans *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].end - s->v[i].first;
	return n;
}

/* What two sets of spans have in common. */
static uint64_t spans_common(const struct spans *a, const struct spans *b)
{
	uint64_t n = 0;

	for (size_t i = 0, j = 0; i < a->n && j < b->n;) {
		uint64_t lo = a->v[i].first > b->v[j].first ? a->v[i].first : b->v[j].first;
		uint64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;

		if (lo < hi)
			n += hi - lo;
		if (a->v[i].end < b->v[j].end)
			i++;
		else
			j++;
	}
	return n;
}

static struct compare_entry *push(struct compare_entry **v, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct compare_entry *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return NULL;
		*v = nv;
		*cap = c;
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	return &(*v)[(*n)++];
}

/* The pages of file @file of side @side into m->s[side]; its demanded bytes. */
static int file_spans(struct comparer *m, int side, uint32_t file, uint64_t *ret_demanded)
{
	const uint32_t *idx = NULL;
	size_t n = 0;
	uint64_t demanded = 0;
	int r;

	m->s[side].n = 0;
	if (ura_pack_index_file_ranges(m->index[side], file, &idx, &n) < 0)
		n = 0;
	for (size_t k = 0; k < n; k++) {
		struct ura_pack_range rg;

		ura_pack_get_range(m->pack[side], idx[k], &rg);
		r = spans_add(&m->s[side], rg.first_page, rg.first_page + rg.page_count);
		if (r < 0)
			return r;
		if (rg.flags & URA_PACK_RANGE_DEMANDED)
			demanded += (uint64_t)rg.page_count * URA_PACK_PAGE_SIZE;
	}
	*ret_demanded = demanded;
	return 0;
}

/* One file: in A (@ka), in B (@kb), or in both; named by A's record when both have it. */
static int compare_file(struct comparer *m, const struct key *ka, const struct key *kb)
{
	const struct key *own = ka ? ka : kb;
	struct compare_entry *e = push(&m->c->files, &m->c->nfiles, &m->cap);
	struct ura_pack_file fa, fb;
	struct ura_pack_fs fs;
	uint64_t common = 0;
	int r;

	if (!e)
		return -ENOMEM;
	m->s[0].n = m->s[1].n = 0;
	if (ka && (r = file_spans(m, 0, ka->file, &e->a_demanded_bytes)) < 0)
		return r;
	if (kb && (r = file_spans(m, 1, kb->file, &e->b_demanded_bytes)) < 0)
		return r;
	ura_pack_get_file(m->pack[own->side], own->file, &fa);
	ura_pack_get_fs(m->pack[own->side], fa.fs_index, &fs);
	e->mount_point = fs.mount_point;
	e->path = fa.path;
	e->a_bytes = spans_size(&m->s[0]) * URA_PACK_PAGE_SIZE;
	e->b_bytes = spans_size(&m->s[1]) * URA_PACK_PAGE_SIZE;
	if (ka && kb)
		common = spans_common(&m->s[0], &m->s[1]) * URA_PACK_PAGE_SIZE;
	e->added_bytes = e->b_bytes - common;
	e->lost_bytes = e->a_bytes - common;
	if (!ka)
		e->status = COMPARE_ADDED;
	else if (!kb)
		e->status = COMPARE_LOST;
	else {
		ura_pack_get_file(m->pack[1], kb->file, &fb);
		e->status = !merge_same_content(&fa, &fb) ? COMPARE_REPLACED :
			    e->added_bytes || e->lost_bytes ? COMPARE_CHANGED : COMPARE_SAME;
	}
	return 0;
}

static int cmp_key(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c;

	if (a->fs != b->fs)
		return a->fs < b->fs ? -1 : 1;
	if ((c = strcmp(a->path, b->path)) != 0)
		return c;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	return a->file < b->file ? -1 : a->file > b->file;
}

static int compare_files(struct comparer *m)
{
	size_t na = ura_pack_file_count(m->pack[0]), nb = ura_pack_file_count(m->pack[1]);
	struct key *k = malloc((na + nb ? na + nb : 1) * sizeof(*k));
	int r = 0;

	if (!k)
		return -ENOMEM;
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < (side ? nb : na); i++) {
			struct ura_pack_file f;

			ura_pack_get_file(m->pack[side], i, &f);
			k[side ? na + i : i] = (struct key){
				.fs = side ? m->fs_map[f.fs_index] : f.fs_index, .side = (uint8_t)side,
				.path = f.path, .file = (uint32_t)i };
		}
	qsort(k, na + nb, sizeof(*k), cmp_key);
	/* a file of A next to the same file of B: a pair; any other record stands alone */
	for (size_t i = 0; r == 0 && i < na + nb;) {
		bool pair = i + 1 < na + nb && k[i].side == 0 && k[i + 1].side == 1 &&
			    k[i].fs == k[i + 1].fs && strcmp(k[i].path, k[i + 1].path) == 0;

		if (pair)
			r = compare_file(m, &k[i], &k[i + 1]);
		else
			r = compare_file(m, k[i].side ? NULL : &k[i], k[i].side ? &k[i] : NULL);
		i += pair ? 2 : 1;
	}
	free(k);
	return r;
}

static int cmp_mkey(const void *x, const void *y)
{
	const struct mkey *a = x, *b = y;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->k1 != b->k1)
		return a->k1 < b->k1 ? -1 : 1;
	if (a->k2 != b->k2)
		return a->k2 < b->k2 ? -1 : 1;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static bool same_owner(const struct mkey *a, const struct mkey *b)
{
	return a->kind == b->kind && a->k1 == b->k1 && a->k2 == b->k2;
}

/* Metadata of one filesystem or device: records @k[0 .. n), A's first. */
static int compare_owner(struct comparer *m, const struct mkey *k, size_t n, size_t *cap)
{
	struct compare_entry *e = push(&m->c->metadata, &m->c->nmetadata, cap);
	uint64_t common;
	int r;

	if (!e)
		return -ENOMEM;
	m->s[0].n = m->s[1].n = 0;
	for (size_t i = 0; i < n; i++)
		if ((r = spans_add(&m->s[k[i].side], k[i].first, k[i].end)) < 0)
			return r;
	e->major = k[0].major;
	e->minor = k[0].minor;
	if (k[0].kind == 0) {
		struct ura_pack_fs fs;

		ura_pack_get_fs(m->pack[k[0].side], k[0].fs_index, &fs);
		e->mount_point = fs.mount_point;
	}
	e->a_bytes = spans_size(&m->s[0]);
	e->b_bytes = spans_size(&m->s[1]);
	common = spans_common(&m->s[0], &m->s[1]);
	e->added_bytes = e->b_bytes - common;
	e->lost_bytes = e->a_bytes - common;
	e->status = !e->a_bytes ? COMPARE_ADDED : !e->b_bytes ? COMPARE_LOST :
		    e->added_bytes || e->lost_bytes ? COMPARE_CHANGED : COMPARE_SAME;
	return 0;
}

static int compare_metadata(struct comparer *m)
{
	size_t na = ura_pack_meta_count(m->pack[0]), nb = ura_pack_meta_count(m->pack[1]), cap = 0;
	struct mkey *k = malloc((na + nb ? na + nb : 1) * sizeof(*k));
	int r = 0;

	if (!k)
		return -ENOMEM;
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < (side ? nb : na); i++) {
			struct ura_pack_meta md;
			struct mkey *x = &k[side ? na + i : i];

			ura_pack_get_meta(m->pack[side], i, &md);
			*x = (struct mkey){ .kind = md.fs_index == URA_PACK_NO_INDEX, .side = (uint8_t)side,
					    .fs_index = md.fs_index, .major = md.major,
					    .minor = md.minor, .first = md.offset,
					    .end = md.offset + md.length };
			if (x->kind == 0)
				x->k1 = side ? m->fs_map[md.fs_index] : md.fs_index;
			else {
				x->k1 = md.major;
				x->k2 = md.minor;
			}
		}
	qsort(k, na + nb, sizeof(*k), cmp_mkey);
	for (size_t i = 0, j; r == 0 && i < na + nb; i = j) {
		for (j = i + 1; j < na + nb && same_owner(&k[i], &k[j]); j++)
			;
		r = compare_owner(m, k + i, j - i, &cap);
	}
	free(k);
	return r;
}

/* Most bytes changed first, then by mount point and path. */
static int cmp_entry(const void *x, const void *y)
{
	const struct compare_entry *a = x, *b = y;
	uint64_t ca = a->added_bytes + a->lost_bytes, cb = b->added_bytes + b->lost_bytes;
	int c;

	if (ca != cb)
		return ca > cb ? -1 : 1;
	if (a->status != b->status)
		return a->status > b->status ? -1 : 1;
	if (a->mount_point != b->mount_point) {
		if (!a->mount_point || !b->mount_point)
			return a->mount_point ? -1 : 1;
		if ((c = strcmp(a->mount_point, b->mount_point)) != 0)
			return c;
	}
	if (a->path && b->path && (c = strcmp(a->path, b->path)) != 0)
		return c;
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	return a->minor < b->minor ? -1 : a->minor > b->minor;
}

static void totals(struct compare *c, const struct ura_pack *a, const struct ura_pack *b)
{
	struct compare_totals *t = &c->t;

	t->files_a = ura_pack_file_count(a);
	t->files_b = ura_pack_file_count(b);
	for (size_t i = 0; i < c->nfiles; i++) {
		const struct compare_entry *e = &c->files[i];

		t->same += e->status == COMPARE_SAME;
		t->changed += e->status == COMPARE_CHANGED;
		t->replaced += e->status == COMPARE_REPLACED;
		t->added += e->status == COMPARE_ADDED;
		t->lost += e->status == COMPARE_LOST;
		t->bytes_a += e->a_bytes;
		t->bytes_b += e->b_bytes;
		t->added_bytes += e->added_bytes;
		t->lost_bytes += e->lost_bytes;
	}
	for (size_t i = 0; i < c->nmetadata; i++) {
		t->metadata_bytes_a += c->metadata[i].a_bytes;
		t->metadata_bytes_b += c->metadata[i].b_bytes;
		t->metadata_added_bytes += c->metadata[i].added_bytes;
		t->metadata_lost_bytes += c->metadata[i].lost_bytes;
	}
}

void compare_free(struct compare *c)
{
	if (!c)
		return;
	free(c->files);
	free(c->metadata);
	free(c);
}

int compare_new(const struct ura_pack *a, const struct ura_pack *b, struct compare **ret)
{
	struct comparer m = { .pack = { a, b } };
	size_t nfa = ura_pack_fs_count(a), nfb = ura_pack_fs_count(b);
	int r = -ENOMEM;

	m.c = calloc(1, sizeof(*m.c));
	m.fs_map = malloc((nfb ? nfb : 1) * sizeof(*m.fs_map));
	if (!m.c || !m.fs_map)
		goto out;
	for (size_t j = 0; j < nfb; j++) {
		struct ura_pack_fs fb;

		ura_pack_get_fs(b, j, &fb);
		m.fs_map[j] = (uint32_t)(nfa + j);
		for (size_t i = 0; i < nfa; i++) {
			struct ura_pack_fs fa;

			ura_pack_get_fs(a, i, &fa);
			if (merge_same_fs(&fa, &fb)) {
				m.fs_map[j] = (uint32_t)i;
				break;
			}
		}
	}
	for (int side = 0; side < 2; side++)
		if ((r = ura_pack_index_new(m.pack[side], URA_PACK_INDEX_RANGES, &m.index[side])) < 0)
			goto out;
	if ((r = compare_files(&m)) < 0 || (r = compare_metadata(&m)) < 0)
		goto out;
	if (m.c->nfiles)	/* the arrays are NULL while empty */
		qsort(m.c->files, m.c->nfiles, sizeof(*m.c->files), cmp_entry);
	if (m.c->nmetadata)
		qsort(m.c->metadata, m.c->nmetadata, sizeof(*m.c->metadata), cmp_entry);
	totals(m.c, a, b);
	*ret = m.c;
	m.c = NULL;
	r = 0;
out:
	compare_free(m.c);
	free(m.fs_map);
	for (int side = 0; side < 2; side++) {
		ura_pack_index_free(m.index[side]);
		free(m.s[side].v);
	}
	return r;
}

/* ---- views ---- */

static void signed_bytes(char sign, uint64_t v, char *buf, size_t len)
{
	char b[32];

	dump_format_bytes(v, b, sizeof(b));
	if (v)
		snprintf(buf, len, "%c%s", sign, b);
	else
		snprintf(buf, len, "%s", b);
}

static void text_line(FILE *f, const struct compare_entry *e, bool metadata)
{
	char add[40], lost[40];

	signed_bytes('+', e->added_bytes, add, sizeof(add));
	signed_bytes('-', e->lost_bytes, lost, sizeof(lost));
	fprintf(f, "%11s %11s  %-8s  ", add, lost, compare_status_name(e->status));
	if (!metadata) {
		char *path = path_join(e->mount_point, e->path);

		dump_print_escaped(f, path ? path : e->path);
		free(path);
	} else if (e->mount_point) {
		dump_print_escaped(f, e->mount_point);
		fprintf(f, " (%u:%u)", e->major, e->minor);
	} else {
		fprintf(f, "device %u:%u", e->major, e->minor);
	}
	fputc('\n', f);
}

static void text(FILE *f, const struct compare *c, const char *name_a, const char *name_b)
{
	const struct compare_totals *t = &c->t;
	char a[32], b[32], add[40], lost[40];

	fputs("compare ", f);
	dump_print_escaped(f, name_a);
	fputs(" -> ", f);
	dump_print_escaped(f, name_b);
	fprintf(f, "\nfiles:     %" PRIu64 " in A, %" PRIu64 " in B: %" PRIu64 " added, %" PRIu64
		" lost, %" PRIu64 " changed, %" PRIu64 " replaced, %" PRIu64 " the same\n",
		t->files_a, t->files_b, t->added, t->lost, t->changed, t->replaced, t->same);
	dump_format_bytes(t->bytes_a, a, sizeof(a));
	dump_format_bytes(t->bytes_b, b, sizeof(b));
	signed_bytes('+', t->added_bytes, add, sizeof(add));
	signed_bytes('-', t->lost_bytes, lost, sizeof(lost));
	fprintf(f, "data:      %s in A, %s in B: %s added, %s lost\n", a, b, add, lost);
	dump_format_bytes(t->metadata_bytes_a, a, sizeof(a));
	dump_format_bytes(t->metadata_bytes_b, b, sizeof(b));
	signed_bytes('+', t->metadata_added_bytes, add, sizeof(add));
	signed_bytes('-', t->metadata_lost_bytes, lost, sizeof(lost));
	fprintf(f, "metadata:  %s in A, %s in B: %s added, %s lost\n", a, b, add, lost);
	if (t->added + t->lost + t->changed + t->replaced)
		fprintf(f, "\n%11s %11s  %-8s  %s\n", "added", "lost", "status", "file");
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i].status != COMPARE_SAME)
			text_line(f, &c->files[i], false);
	if (t->metadata_added_bytes + t->metadata_lost_bytes)
		fprintf(f, "\n%11s %11s  %-8s  %s\n", "added", "lost", "status", "metadata of");
	for (size_t i = 0; i < c->nmetadata; i++)
		if (c->metadata[i].status != COMPARE_SAME)
			text_line(f, &c->metadata[i], true);
}

static void json_entry(struct json *j, const struct compare_entry *e, bool metadata)
{
	json_object_begin(j, JSON_INLINE);
	if (!metadata) {
		char *path = path_join(e->mount_point, e->path);

		json_key_string(j, "path", path ? path : e->path);
		free(path);
	} else {
		if (e->mount_point)
			json_key_string(j, "filesystem", e->mount_point);
		else
			json_key_null(j, "filesystem");
		json_key(j, "device");
		json_stringf(j, "%u:%u", e->major, e->minor);
	}
	json_key_string(j, "status", compare_status_name(e->status));
	json_key_u64(j, "a_bytes", e->a_bytes);
	json_key_u64(j, "b_bytes", e->b_bytes);
	json_key_u64(j, "added_bytes", e->added_bytes);
	json_key_u64(j, "lost_bytes", e->lost_bytes);
	if (!metadata) {
		json_key_u64(j, "a_demanded_bytes", e->a_demanded_bytes);
		json_key_u64(j, "b_demanded_bytes", e->b_demanded_bytes);
	}
	json_object_end(j);
}

static int json(FILE *f, const struct compare *c, const char *name_a, const char *name_b)
{
	const struct compare_totals *t = &c->t;
	struct json j;

	json_begin(&j, f, JSON_SPACED);
	json_object_begin(&j, JSON_LINES);
	json_key_string(&j, "a", name_a);
	json_key_string(&j, "b", name_b);
	json_key(&j, "totals");
	json_object_begin(&j, JSON_INLINE);	/* three lines: files, data, metadata */
	json_key_u64(&j, "files_a", t->files_a);
	json_key_u64(&j, "files_b", t->files_b);
	json_key_u64(&j, "added_files", t->added);
	json_key_u64(&j, "lost_files", t->lost);
	json_key_u64(&j, "changed_files", t->changed);
	json_key_u64(&j, "replaced_files", t->replaced);
	json_key_u64(&j, "same_files", t->same);
	json_wrap(&j);
	json_key_u64(&j, "bytes_a", t->bytes_a);
	json_key_u64(&j, "bytes_b", t->bytes_b);
	json_key_u64(&j, "added_bytes", t->added_bytes);
	json_key_u64(&j, "lost_bytes", t->lost_bytes);
	json_wrap(&j);
	json_key_u64(&j, "metadata_bytes_a", t->metadata_bytes_a);
	json_key_u64(&j, "metadata_bytes_b", t->metadata_bytes_b);
	json_key_u64(&j, "metadata_added_bytes", t->metadata_added_bytes);
	json_key_u64(&j, "metadata_lost_bytes", t->metadata_lost_bytes);
	json_object_end(&j);
	json_key(&j, "files");
	json_array_begin(&j, JSON_LINES);
	for (size_t i = 0; i < c->nfiles; i++)
		json_entry(&j, &c->files[i], false);
	json_array_end(&j);
	json_key(&j, "metadata");
	json_array_begin(&j, JSON_LINES);
	for (size_t i = 0; i < c->nmetadata; i++)
		json_entry(&j, &c->metadata[i], true);
	json_array_end(&j);
	json_object_end(&j);
	return json_end(&j);
}

int compare_print(FILE *f, const struct compare *c, const char *name_a, const char *name_b,
		  bool as_json)
{
	if (as_json)
		return json(f, c, name_a, name_b);
	text(f, c, name_a, name_b);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
