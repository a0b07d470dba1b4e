// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Building packs: collect records, drop the pages that several ranges of a file
 * repeat, put ranges in first-access order, encode, and write atomically; and
 * read back what was collected, as the pack written would hold it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ura/pack.h"
#include "crc32c.h"
#include "pack-access.h"
#include "pack-internal.h"

struct vec {
	void *items;
	size_t count, cap, size;
};

/*
 * Ranges and metadata ranges are held as their on-disk record followed by the
 * u64 mask of the runs that had them (0: every run), written to the support
 * sections of a 1.1 pack.
 */
#define RANGE_MEM_SIZE		(RANGE_REC_SIZE + 8)
#define RANGE_MEM_MASK		RANGE_REC_SIZE
#define META_MEM_SIZE		(META_REC_SIZE + 8)
#define META_MEM_MASK		META_REC_SIZE

struct ura_pack_builder {
	struct vec fs, files, ranges, meta;	/* of on-disk records, already encoded */
	struct vec runs;			/* run records (1.1), newest first */
	struct vec pending;			/* pending range records (1.1) */
	struct vec access;			/* the access log (1.1), already coded: bytes */
	uint32_t access_count;
	struct pack_access_state access_st;	/* what the next access is coded against */
	struct vec ra_fs;			/* readahead facts (1.1), by filesystem */
	struct vec strings;			/* bytes */
	struct {
		int64_t created_ns;
		uint64_t duration_ns, lost, unres_inodes, unres_bytes;
		uint32_t flags, ra_kb;
		uint8_t kernel[8], command[8];	/* string refs */
		int set;
	} info;
	const char *error;			/* why the last call failed, for the caller */
};

/* Fail with @err and remember why. */
static int fail(struct ura_pack_builder *b, int err, const char *why)
{
	b->error = why;
	return err;
}

const char *ura_pack_builder_error(const struct ura_pack_builder *b)
{
	return b && b->error ? b->error : "no error";
}

static void *vec_push(struct vec *v, size_t n)
{
	void *slot;

	if (n > SIZE_MAX / v->size - v->count)
		return NULL;
	if (v->count + n > v->cap) {
		size_t cap = v->cap ? v->cap : 64;
		void *items;

		while (cap < v->count + n)
			cap *= 2;
		items = realloc(v->items, cap * v->size);
		if (!items)
			return NULL;
		v->items = items;
		v->cap = cap;
	}
	slot = (uint8_t *)v->items + v->count * v->size;
	memset(slot, 0, n * v->size);
	v->count += n;
	return slot;
}

int ura_pack_builder_new(struct ura_pack_builder **ret)
{
	struct ura_pack_builder *b = calloc(1, sizeof(*b));
	uint8_t *nul;

	if (!b)
		return -ENOMEM;
	b->fs.size = FS_REC_SIZE;
	b->files.size = FILE_REC_SIZE;
	b->ranges.size = RANGE_MEM_SIZE;
	b->meta.size = META_MEM_SIZE;
	b->runs.size = RUN_REC_SIZE;
	b->pending.size = PEND_REC_SIZE;
	b->access.size = 1;
	b->ra_fs.size = RAFS_REC_SIZE;
	b->strings.size = 1;
	nul = vec_push(&b->strings, 1);	/* offset 0 is the empty string */
	if (!nul) {
		ura_pack_builder_free(b);
		return -ENOMEM;
	}
	*ret = b;
	return 0;
}

void ura_pack_builder_free(struct ura_pack_builder *b)
{
	if (!b)
		return;
	free(b->fs.items);
	free(b->files.items);
	free(b->ranges.items);
	free(b->meta.items);
	free(b->runs.items);
	free(b->pending.items);
	free(b->access.items);
	free(b->ra_fs.items);
	free(b->strings.items);
	free(b);
}

/* Append a string (NUL-free, @len bytes) and write its reference at @ref. */
static int add_string(struct ura_pack_builder *b, const char *s, size_t len, uint8_t *ref)
{
	size_t off = b->strings.count;
	uint8_t *dst;

	if (len == 0) {
		put_le32(ref, 0);
		put_le32(ref + 4, 0);
		return 0;
	}
	if (memchr(s, '\0', len))
		return fail(b, -EINVAL, "string holds a NUL byte");
	if (off + len + 1 > UINT32_MAX)
		return fail(b, -E2BIG, "string table over 4 GiB");
	dst = vec_push(&b->strings, len + 1);
	if (!dst)
		return -ENOMEM;
	memcpy(dst, s, len);
	put_le32(ref, (uint32_t)off);
	put_le32(ref + 4, (uint32_t)len);
	return 0;
}

static int add_cstring(struct ura_pack_builder *b, const char *s, uint8_t *ref)
{
	return add_string(b, s ? s : "", s ? strlen(s) : 0, ref);
}

int ura_pack_builder_add_fs(struct ura_pack_builder *b, const struct ura_pack_fs *fs,
			    uint32_t *ret_index)
{
	uint8_t rec[FS_REC_SIZE] = { 0 }, *slot;
	const char *why;
	int r;


	if (!fs->mount_point)
		return fail(b, -EINVAL, "filesystem without a mount point");
	why = pack_mount_point_problem(fs->mount_point, strlen(fs->mount_point));
	if (why)
		return fail(b, -EINVAL, why);
	if (b->fs.count >= URA_PACK_NO_INDEX)
		return fail(b, -E2BIG, "too many filesystems");
	put_le32(rec + FS_MAJOR, fs->major);
	put_le32(rec + FS_MINOR, fs->minor);
	if ((r = add_cstring(b, fs->mount_point, rec + FS_MNT)) < 0 ||
	    (r = add_cstring(b, fs->fstype, rec + FS_TYPE)) < 0 ||
	    (r = add_cstring(b, fs->source, rec + FS_SOURCE)) < 0)
		return r;
	put_le32(rec + FS_FLAGS, fs->flags);
	put_le32(rec + FS_RA_KB, fs->read_ahead_kb);
	memcpy(rec + FS_UUID, fs->uuid, sizeof(fs->uuid));
	slot = vec_push(&b->fs, 1);
	if (!slot)
		return -ENOMEM;
	memcpy(slot, rec, sizeof(rec));
	if (ret_index)
		*ret_index = (uint32_t)(b->fs.count - 1);
	return 0;
}

int ura_pack_builder_add_file(struct ura_pack_builder *b, const struct ura_pack_file *f,
			      uint32_t *ret_index)
{
	uint8_t rec[FILE_REC_SIZE] = { 0 }, *slot;
	const char *why;
	size_t len;
	int r;

	if (f->fs_index >= b->fs.count)
		return fail(b, -EINVAL, "file on an unknown filesystem (fs_index)");
	if (!f->path)
		return fail(b, -EINVAL, "file without a path");
	len = f->path_len ? f->path_len : strlen(f->path);
	why = pack_path_problem(f->path, len);
	if (!why && memchr(f->path, '\0', len))
		why = "file path holds a NUL byte";
	if (why)
		return fail(b, -EINVAL, why);
	if (b->files.count >= URA_PACK_NO_INDEX)
		return fail(b, -E2BIG, "too many files");
	put_le32(rec + FILE_FS, f->fs_index);
	put_le32(rec + FILE_FLAGS, f->flags);
	r = add_string(b, f->path, len, rec + FILE_PATH);
	if (r < 0)
		return r;
	put_le64(rec + FILE_INO, f->ino);
	put_le64(rec + FILE_SIZE, f->size);
	put_le64(rec + FILE_MTIME, (uint64_t)f->mtime_ns);
	put_le64(rec + FILE_GEN, f->generation);
	put_le64(rec + FILE_BTIME, (uint64_t)f->btime_ns);
	slot = vec_push(&b->files, 1);
	if (!slot)
		return -ENOMEM;
	memcpy(slot, rec, sizeof(rec));
	if (ret_index)
		*ret_index = (uint32_t)(b->files.count - 1);
	return 0;
}

int ura_pack_builder_add_run(struct ura_pack_builder *b, int64_t created_ns, uint64_t duration_ns)
{
	uint8_t *rec;

	if (b->runs.count >= PACK_MAX_RUNS)
		return fail(b, -E2BIG, "more than 64 runs");
	rec = vec_push(&b->runs, 1);
	if (!rec)
		return -ENOMEM;
	put_le64(rec + RUN_CREATED, (uint64_t)created_ns);
	put_le64(rec + RUN_DURATION, duration_ns);
	return 0;
}

/* A run mask names at least one run, and only runs added. */
static int check_mask(struct ura_pack_builder *b, uint64_t mask)
{
	uint64_t all = b->runs.count == PACK_MAX_RUNS ? UINT64_MAX :
		       (UINT64_C(1) << b->runs.count) - 1;

	if (mask == 0 || (mask & ~all))
		return fail(b, -EINVAL, "run mask empty or naming a run not added");
	return 0;
}

int ura_pack_builder_add_range_runs(struct ura_pack_builder *b, const struct ura_pack_range *r,
				    uint64_t runs_mask)
{
	int k = check_mask(b, runs_mask);

	if (k < 0)
		return k;
	k = ura_pack_builder_add_range(b, r);
	if (k < 0)
		return k;
	put_le64((uint8_t *)b->ranges.items + (b->ranges.count - 1) * RANGE_MEM_SIZE +
		 RANGE_MEM_MASK, runs_mask);
	return 0;
}

int ura_pack_builder_add_meta_runs(struct ura_pack_builder *b, const struct ura_pack_meta *m,
				   uint64_t runs_mask)
{
	int k = check_mask(b, runs_mask);

	if (k < 0)
		return k;
	k = ura_pack_builder_add_meta(b, m);
	if (k < 0)
		return k;
	put_le64((uint8_t *)b->meta.items + (b->meta.count - 1) * META_MEM_SIZE + META_MEM_MASK,
		 runs_mask);
	return 0;
}

int ura_pack_builder_add_pending(struct ura_pack_builder *b, const struct ura_pack_range *r,
				 uint64_t runs_mask)
{
	uint8_t *rec;
	int k = check_mask(b, runs_mask);

	if (k < 0)
		return k;
	if (r->file_index >= b->files.count)
		return fail(b, -EINVAL, "range of an unknown file (file_index)");
	if (r->page_count == 0)
		return fail(b, -EINVAL, "range without pages");
	if (r->first_page >= PACK_MAX_PAGE || r->page_count > PACK_MAX_PAGE - r->first_page)
		return fail(b, -EINVAL, "range past the largest page number (2^51)");
	if (b->pending.count >= UINT32_MAX)
		return fail(b, -E2BIG, "too many pending ranges");
	rec = vec_push(&b->pending, 1);
	if (!rec)
		return -ENOMEM;
	put_le32(rec + PEND_FILE, r->file_index);
	put_le32(rec + PEND_FLAGS, r->flags & URA_PACK_RANGE_DEMANDED);
	put_le64(rec + PEND_FIRST, r->first_page);
	put_le32(rec + PEND_COUNT, r->page_count);
	put_le32(rec + PEND_SUPPORT, (uint32_t)__builtin_popcountll(runs_mask));
	put_le64(rec + PEND_TIME, r->first_access_ns);
	put_le64(rec + PEND_MASK, runs_mask);
	return 0;
}

int ura_pack_builder_add_range(struct ura_pack_builder *b, const struct ura_pack_range *r)
{
	uint8_t *rec;

	if (r->file_index >= b->files.count)
		return fail(b, -EINVAL, "range of an unknown file (file_index)");
	if (r->page_count == 0)
		return fail(b, -EINVAL, "range without pages");
	if (r->first_page >= PACK_MAX_PAGE || r->page_count > PACK_MAX_PAGE - r->first_page)
		return fail(b, -EINVAL, "range past the largest page number (2^51)");
	if (b->ranges.count >= UINT32_MAX)
		return fail(b, -E2BIG, "too many ranges");
	rec = vec_push(&b->ranges, 1);
	if (!rec)
		return -ENOMEM;
	put_le32(rec + RANGE_FILE, r->file_index);
	put_le32(rec + RANGE_FLAGS, r->flags);
	put_le64(rec + RANGE_FIRST, r->first_page);
	put_le32(rec + RANGE_COUNT, r->page_count);
	put_le64(rec + RANGE_TIME, r->first_access_ns);
	return 0;
}

int ura_pack_builder_add_meta(struct ura_pack_builder *b, const struct ura_pack_meta *m)
{
	const uint64_t max = PACK_MAX_BYTES;
	uint8_t *rec;

	if (m->fs_index != URA_PACK_NO_INDEX && m->fs_index >= b->fs.count)
		return fail(b, -EINVAL, "metadata of an unknown filesystem (fs_index)");
	if (m->length == 0)
		return fail(b, -EINVAL, "metadata range without bytes");
	if (m->offset % URA_PACK_PAGE_SIZE || m->length % URA_PACK_PAGE_SIZE)
		return fail(b, -EINVAL, "metadata range not page aligned");
	if (m->offset >= max || m->length > max - m->offset)
		return fail(b, -EINVAL, "metadata range past the largest offset (2^63)");
	if (b->meta.count >= UINT32_MAX)
		return fail(b, -E2BIG, "too many metadata ranges");
	rec = vec_push(&b->meta, 1);
	if (!rec)
		return -ENOMEM;
	put_le32(rec + META_FS, m->fs_index);
	put_le32(rec + META_MAJOR, m->major);
	put_le32(rec + META_MINOR, m->minor);
	put_le64(rec + META_OFFSET, m->offset);
	put_le64(rec + META_LENGTH, m->length);
	put_le64(rec + META_TIME, m->first_access_ns);
	return 0;
}

int ura_pack_builder_add_access(struct ura_pack_builder *b, const struct ura_pack_access *a)
{
	uint8_t rec[ACCESS_REC_MAX], *dst;
	struct pack_access_state st = b->access_st;
	const char *why = pack_access_problem(a, &st, b->files.count);
	size_t n;

	if (why)
		return fail(b, -EINVAL, why);
	if (b->access_count == UINT32_MAX)
		return fail(b, -E2BIG, "access log over 2^32 records");
	n = pack_access_encode(&st, a, rec);
	dst = vec_push(&b->access, n);
	if (!dst)
		return -ENOMEM;
	memcpy(dst, rec, n);
	b->access_st = st;
	b->access_count++;
	return 0;
}

int ura_pack_builder_set_ra_fs(struct ura_pack_builder *b, uint32_t fs_index,
			       const struct ura_pack_ra_fs *r)
{
	uint8_t *items, *rec;
	size_t i;

	if (fs_index >= b->fs.count)
		return fail(b, -EINVAL, "readahead facts of an unknown filesystem (fs_index)");
	if (r->flags & ~RA_FS_FLAGS_KNOWN)
		return fail(b, -EINVAL, "readahead facts with unknown flags");
	if (r->fault_around_pages >= ACCESS_MAX_AROUND)
		return fail(b, -EINVAL, "fault-around window of 2^20 pages or more");
	/* kept in filesystem order, as written: few filesystems, so a list */
	items = b->ra_fs.items;
	for (i = 0; i < b->ra_fs.count && get_le32(items + i * RAFS_REC_SIZE + RAFS_FS) < fs_index;)
		i++;
	if (i == b->ra_fs.count || get_le32(items + i * RAFS_REC_SIZE + RAFS_FS) != fs_index) {
		if (!vec_push(&b->ra_fs, 1))
			return -ENOMEM;
		items = b->ra_fs.items;
		memmove(items + (i + 1) * RAFS_REC_SIZE, items + i * RAFS_REC_SIZE,
			(b->ra_fs.count - 1 - i) * RAFS_REC_SIZE);
	}
	rec = items + i * RAFS_REC_SIZE;
	put_le32(rec + RAFS_FS, fs_index);
	put_le32(rec + RAFS_MAX_SECTORS_KB, r->max_sectors_kb);
	put_le32(rec + RAFS_FAULT_AROUND, r->fault_around_pages);
	put_le32(rec + RAFS_FLAGS, r->flags);
	put_le32(rec + RAFS_MAX_SEGMENTS, r->max_segments);
	put_le32(rec + RAFS_MAX_SEGMENT_KB, r->max_segment_kb);
	return 0;
}

int ura_pack_builder_set_info(struct ura_pack_builder *b, const struct ura_pack_info *info)
{
	int r;

	if ((r = add_cstring(b, info->kernel_release, b->info.kernel)) < 0 ||
	    (r = add_cstring(b, info->command, b->info.command)) < 0)
		return r;
	b->info.created_ns = info->created_ns;
	b->info.duration_ns = info->duration_ns;
	b->info.lost = info->lost_events;
	b->info.unres_inodes = info->unresolved_inodes;
	b->info.unres_bytes = info->unresolved_bytes;
	b->info.flags = info->flags;
	b->info.ra_kb = info->read_ahead_kb;
	b->info.set = 1;
	return 0;
}

struct sort_key {
	uint64_t time;
	size_t index;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;	/* stable: keep insertion order */
}

/* Put the ranges in first-access order, keeping the order of equal times. */
static int sort_ranges(struct vec *v)
{
	struct sort_key *keys;
	uint8_t *sorted, *items = v->items;
	size_t i;

	for (i = 1; i < v->count; i++)
		if (get_le64(items + i * RANGE_MEM_SIZE + RANGE_TIME) <
		    get_le64(items + (i - 1) * RANGE_MEM_SIZE + RANGE_TIME))
			break;
	if (i >= v->count)
		return 0;	/* already in order, the usual case */
	keys = malloc(v->count * sizeof(*keys));
	sorted = malloc(v->count * RANGE_MEM_SIZE);
	if (!keys || !sorted) {
		free(keys);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < v->count; i++)
		keys[i] = (struct sort_key){ get_le64(items + i * RANGE_MEM_SIZE + RANGE_TIME), i };
	qsort(keys, v->count, sizeof(*keys), cmp_key);
	for (i = 0; i < v->count; i++)
		memcpy(sorted + i * RANGE_MEM_SIZE, items + keys[i].index * RANGE_MEM_SIZE,
		       RANGE_MEM_SIZE);
	free(keys);
	free(v->items);
	v->items = sorted;
	v->cap = v->count;
	return 0;
}

/*
 * Overlapping ranges of a file: a page is stored once, in the range of its
 * earliest first access, and is demanded when any range that held it was.
 * Packs merged from several runs, or ranges added twice, then hold each page
 * once. Ranges that overlap no other are kept as they were added.
 */
struct span {
	uint64_t first, end, time;	/* pages [first, end) */
	uint64_t mask;			/* runs (0: all) */
	uint32_t file, flags;
	uint32_t order;			/* the range it comes from, in the order added */
};

struct spans {
	struct span *v;
	size_t n, cap;
};

/* Ranges (indices into the records) by file, first page, first access, then as added. */
static int cmp_record(const void *a, const void *b, void *items)
{
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	const uint8_t *x = (const uint8_t *)items + (size_t)ia * RANGE_MEM_SIZE;
	const uint8_t *y = (const uint8_t *)items + (size_t)ib * RANGE_MEM_SIZE;
	uint64_t u, w;

	if ((u = get_le32(x + RANGE_FILE)) != (w = get_le32(y + RANGE_FILE)))
		return u < w ? -1 : 1;
	if ((u = get_le64(x + RANGE_FIRST)) != (w = get_le64(y + RANGE_FIRST)))
		return u < w ? -1 : 1;
	if ((u = get_le64(x + RANGE_TIME)) != (w = get_le64(y + RANGE_TIME)))
		return u < w ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/* Output pieces as the ranges they come from were added, then in page order. */
static int cmp_order(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Append @s as ranges of at most UINT32_MAX pages. */
static int spans_push(struct spans *out, const struct span *s)
{
	for (uint64_t p = s->first; p < s->end;) {
		uint64_t e = s->end - p > UINT32_MAX ? p + UINT32_MAX : s->end;

		if (out->n == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 64;
			struct span *v = cap > SIZE_MAX / sizeof(*v) ? NULL :
					 realloc(out->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			out->v = v;
			out->cap = cap;
		}
		out->v[out->n] = *s;
		out->v[out->n].first = p;
		out->v[out->n].end = e;
		out->n++;
		p = e;
	}
	return 0;
}

/* A min-heap of span indices by first access, then by index. */
static bool earlier(const struct span *c, uint32_t a, uint32_t b)
{
	const struct span *x = &c[a], *y = &c[b];

	if (x->time != y->time)
		return x->time < y->time;
	return x < y;	/* the one first in the cluster */
}

static void heap_push(uint32_t *h, size_t *n, const struct span *c, uint32_t v)
{
	size_t i = (*n)++;

	while (i && earlier(c, v, h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap_pop(uint32_t *h, size_t *n, const struct span *c)
{
	uint32_t v = h[--*n];
	size_t i = 0;

	for (;;) {
		size_t ch = 2 * i + 1;

		if (ch >= *n)
			break;
		if (ch + 1 < *n && earlier(c, h[ch + 1], h[ch]))
			ch++;
		if (!earlier(c, h[ch], v))
			break;
		h[i] = h[ch];
		i = ch;
	}
	h[i] = v;
}

/*
 * @k spans of one file that overlap one another (sorted by first page), into
 * @out: between two consecutive boundaries the span of earliest first access
 * wins; neighbours of the same time and flags become one range.
 */
static int resolve_cluster(const struct span *c, size_t k, struct spans *out)
{
	uint64_t *bound = calloc(2 * k + 1, sizeof(*bound));
	uint64_t *dstart = calloc(k + 1, sizeof(*dstart)), *dend = calloc(k + 1, sizeof(*dend));
	uint32_t *heap = calloc(k + 1, sizeof(*heap));
	size_t nb = 0, nd = 0, nh = 0, next = 0, ds = 0, de = 0;
	struct span cur = { .end = 0 };
	bool have = false;
	int r = -ENOMEM;

	if (!bound || !dstart || !dend || !heap)
		goto out;
	for (size_t i = 0; i < k; i++) {
		bound[nb++] = c[i].first;
		bound[nb++] = c[i].end;
		if (c[i].flags & URA_PACK_RANGE_DEMANDED) {
			dstart[nd] = c[i].first;
			dend[nd++] = c[i].end;
		}
	}
	qsort(bound, nb, sizeof(*bound), cmp_u64);
	qsort(dend, nd, sizeof(*dend), cmp_u64);	/* dstart is sorted: c is */
	for (size_t i = 0; i + 1 < nb; i++) {
		uint64_t lo = bound[i], hi = bound[i + 1];
		struct span seg;

		if (lo == hi)
			continue;
		while (next < k && c[next].first <= lo)
			heap_push(heap, &nh, c, (uint32_t)next++);
		while (nh && c[heap[0]].end <= lo)
			heap_pop(heap, &nh, c);
		while (ds < nd && dstart[ds] <= lo)
			ds++;
		while (de < nd && dend[de] <= lo)
			de++;
		if (!nh)
			continue;
		seg = c[heap[0]];
		seg.first = lo;
		seg.end = hi;
		if (ds > de)	/* a demanded span holds [lo, hi) */
			seg.flags |= URA_PACK_RANGE_DEMANDED;
		if (have && cur.end == seg.first && cur.time == seg.time && cur.flags == seg.flags &&
		    cur.mask == seg.mask) {
			cur.end = seg.end;
			continue;
		}
		if (have && (r = spans_push(out, &cur)) < 0)
			goto out;
		cur = seg;
		have = true;
	}
	r = have ? spans_push(out, &cur) : 0;
out:
	free(bound);
	free(dstart);
	free(dend);
	free(heap);
	return r;
}

static void get_span(const uint8_t *items, uint32_t i, struct span *s)
{
	const uint8_t *rec = items + (size_t)i * RANGE_MEM_SIZE;

	s->mask = get_le64(rec + RANGE_MEM_MASK);
	s->file = get_le32(rec + RANGE_FILE);
	s->flags = get_le32(rec + RANGE_FLAGS);
	s->first = get_le64(rec + RANGE_FIRST);
	s->end = s->first + get_le32(rec + RANGE_COUNT);
	s->time = get_le64(rec + RANGE_TIME);
	s->order = i;
}

static void put_span(uint8_t *rec, const struct span *s)
{
	put_le32(rec + RANGE_FILE, s->file);
	put_le32(rec + RANGE_FLAGS, s->flags);
	put_le64(rec + RANGE_FIRST, s->first);
	put_le32(rec + RANGE_COUNT, (uint32_t)(s->end - s->first));
	put_le64(rec + RANGE_TIME, s->time);
	put_le64(rec + RANGE_MEM_MASK, s->mask);
}

/*
 * Sorting 4-byte indices finds overlaps without a copy of the ranges (the
 * usual pack has none: then nothing changes, not even the order); where there
 * are some, the result keeps the order the ranges were added in.
 */
static int drop_overlaps(struct vec *v)
{
	struct spans out = { 0 }, cluster = { 0 };
	uint32_t *idx = NULL;
	bool overlap = false;
	uint8_t *items = v->items;
	struct span a, b;
	int r = -ENOMEM;

	if (v->count < 2)
		return 0;
	idx = malloc(v->count * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < v->count; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, v->count, sizeof(*idx), cmp_record, items);
	for (size_t i = 1; i < v->count && !overlap; i++) {
		get_span(items, idx[i - 1], &a);
		get_span(items, idx[i], &b);
		overlap = a.file == b.file && b.first < a.end;
	}
	if (!overlap) {
		r = 0;
		goto out;
	}
	for (size_t i = 0; i < v->count;) {
		size_t j = i + 1;

		get_span(items, idx[i], &a);
		cluster.n = 0;
		if ((r = spans_push(&cluster, &a)) < 0)
			goto out;
		for (uint64_t end = a.end; j < v->count; j++) {
			get_span(items, idx[j], &b);
			if (b.file != a.file || b.first >= end)
				break;
			if (b.end > end)
				end = b.end;
			if ((r = spans_push(&cluster, &b)) < 0)
				goto out;
		}
		r = cluster.n == 1 ? spans_push(&out, &a) : resolve_cluster(cluster.v, cluster.n, &out);
		if (r < 0)
			goto out;
		i = j;
	}
	r = -E2BIG;
	if (out.n > UINT32_MAX)
		goto out;
	if (out.n)
		qsort(out.v, out.n, sizeof(*out.v), cmp_order);
	r = -ENOMEM;
	items = calloc(out.n ? out.n : 1, RANGE_MEM_SIZE);	/* reserved fields zero */
	if (!items)
		goto out;
	for (size_t i = 0; i < out.n; i++)
		put_span(items + i * RANGE_MEM_SIZE, &out.v[i]);
	free(v->items);
	v->items = items;
	v->count = v->cap = out.n;
	r = 0;
out:
	free(idx);
	free(cluster.v);
	free(out.v);
	return r;
}

int ura_pack_builder_normalize(struct ura_pack_builder *b)
{
	int r = drop_overlaps(&b->ranges);

	if (r == -E2BIG)
		return fail(b, r, "too many ranges");
	if (r < 0)
		return r;
	return sort_ranges(&b->ranges);
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void put_section(uint8_t *e, uint32_t type, uint32_t flags, uint64_t off, uint32_t count,
			uint32_t esize)
{
	put_le32(e + SEC_TYPE, type);
	put_le32(e + SEC_FLAGS, flags);
	put_le64(e + SEC_OFFSET, off);
	put_le64(e + SEC_SIZE, (uint64_t)count * esize);
	put_le32(e + SEC_COUNT, count);
	put_le32(e + SEC_ENTRY_SIZE, esize);
}

/* One section to write: @count records of @rec_size bytes, taken from @items every @stride. */
struct out_section {
	uint32_t type, flags, rec_size;
	const uint8_t *items;
	size_t count, stride;
	size_t mask_at;		/* support sections: where the mask is in each item */
	uint64_t off;
};

/* Support records from the masks the builder keeps after each record (0: every run). */
static void put_support(uint8_t *dst, const struct out_section *t, uint64_t all)
{
	for (size_t i = 0; i < t->count; i++) {
		uint64_t mask = get_le64(t->items + i * t->stride + t->mask_at);
		uint8_t *rec = dst + i * SUP_REC_SIZE;

		if (!mask)
			mask = all;
		put_le32(rec + SUP_COUNT, (uint32_t)__builtin_popcountll(mask));
		put_le64(rec + SUP_MASK, mask);
	}
}

/*
 * The sections of version 1.0 are REQUIRED; those of 1.1 (runs and support,
 * the access log and readahead facts) are not, so a 1.0 reader skips them and
 * reads a merged pack as one run, a traced pack without its access log. A
 * builder with none of them writes exactly a 1.0 pack.
 */
int ura_pack_builder_serialize(struct ura_pack_builder *b, void **ret_data, size_t *ret_len)
{
	bool merged = b->runs.count > 0;
	uint64_t all = b->runs.count == PACK_MAX_RUNS ? UINT64_MAX :
		       (UINT64_C(1) << b->runs.count) - 1;
	struct out_section t[] = {
		{ SEC_STRINGS, SEC_FLAG_REQUIRED, 1, b->strings.items, b->strings.count, 1, 0, 0 },
		{ SEC_FILESYSTEMS, SEC_FLAG_REQUIRED, FS_REC_SIZE, b->fs.items, b->fs.count,
		  FS_REC_SIZE, 0, 0 },
		{ SEC_FILES, SEC_FLAG_REQUIRED, FILE_REC_SIZE, b->files.items, b->files.count,
		  FILE_REC_SIZE, 0, 0 },
		{ SEC_RANGES, SEC_FLAG_REQUIRED, RANGE_REC_SIZE, NULL, 0, RANGE_MEM_SIZE, 0, 0 },
		{ SEC_METADATA, SEC_FLAG_REQUIRED, META_REC_SIZE, b->meta.items, b->meta.count,
		  META_MEM_SIZE, 0, 0 },
		{ SEC_RUNS, 0, RUN_REC_SIZE, b->runs.items, b->runs.count, RUN_REC_SIZE,
		  0, 0 },
		{ SEC_RANGE_SUPPORT, 0, SUP_REC_SIZE, NULL, 0, RANGE_MEM_SIZE, RANGE_MEM_MASK,
		  0 },
		{ SEC_META_SUPPORT, 0, SUP_REC_SIZE, b->meta.items, b->meta.count, META_MEM_SIZE,
		  META_MEM_MASK, 0 },
		{ SEC_PENDING, 0, PEND_REC_SIZE, b->pending.items, b->pending.count, PEND_REC_SIZE,
		  0, 0 },
		/* a byte array: its header, then the records as coded (filled below) */
		{ SEC_ACCESS, 0, 1, NULL, ACCESS_HDR_SIZE + b->access.count, 1, 0, 0 },
		{ SEC_RA_FS, 0, RAFS_REC_SIZE, b->ra_fs.items, b->ra_fs.count, RAFS_REC_SIZE, 0,
		  0 },
	};
	const size_t ntotal = sizeof(t) / sizeof(t[0]);
	struct out_section *sel[sizeof(t) / sizeof(t[0])];
	size_t ntables = 0;
	uint32_t nsec;
	uint8_t *buf, *info;
	size_t off, len, secoff = HDR_V1_SIZE;
	int r;

	for (size_t i = 0; i < ntotal; i++)
		if (i < 5 || (merged && t[i].type >= SEC_RUNS && t[i].type <= SEC_PENDING) ||
		    (t[i].type == SEC_ACCESS && b->access_count) ||
		    (t[i].type == SEC_RA_FS && b->ra_fs.count))
			sel[ntables++] = &t[i];
	nsec = (uint32_t)ntables + 1;	/* and the trace info */
	r = ura_pack_builder_normalize(b);
	if (r < 0)
		return r;
	t[3].items = t[6].items = b->ranges.items;	/* moved by the two steps above */
	t[3].count = t[6].count = b->ranges.count;

	off = secoff + (size_t)nsec * SEC_ENT_SIZE;
	for (size_t i = 0; i < ntables; i++) {
		if (sel[i]->count > UINT32_MAX)
			return fail(b, -E2BIG, "a table over 2^32 records");
		if (sel[i]->count * sel[i]->rec_size > PACK_MAX_FILE_SIZE)
			return fail(b, -E2BIG, "pack over 1 GiB");
		sel[i]->off = off;
		off = align8(off + sel[i]->count * sel[i]->rec_size);
	}
	len = off + INFO_REC_SIZE;
	if (len > PACK_MAX_FILE_SIZE)
		return fail(b, -E2BIG, "pack over 1 GiB");
	buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;

	memcpy(buf + HDR_MAGIC, PACK_MAGIC, PACK_MAGIC_LEN);
	put_le16(buf + HDR_MAJOR, URA_PACK_VERSION_MAJOR);
	put_le16(buf + HDR_MINOR, ntables > 5 ? 1 : 0);
	put_le32(buf + HDR_SIZE, HDR_V1_SIZE);
	put_le32(buf + HDR_NSECTIONS, nsec);
	put_le64(buf + HDR_FILE_SIZE, len);
	put_le64(buf + HDR_SECTIONS_OFF, secoff);
	put_le64(buf + HDR_CREATED, (uint64_t)b->info.created_ns);

	for (size_t i = 0; i < ntables; i++) {
		const struct out_section *s = sel[i];
		uint8_t *dst = buf + s->off;

		put_section(buf + secoff + i * SEC_ENT_SIZE, s->type, s->flags, s->off,
			    (uint32_t)s->count, s->rec_size);
		if (s->type == SEC_ACCESS) {
			put_le32(dst + ACCESS_HDR_COUNT, b->access_count);
			memcpy(dst + ACCESS_HDR_SIZE, b->access.items, b->access.count);
		} else if (s->mask_at) {
			put_support(dst, s, all);
		} else {
			for (size_t k = 0; k < s->count; k++)
				memcpy(dst + k * s->rec_size, s->items + k * s->stride,
				       s->rec_size);
		}
	}
	put_section(buf + secoff + ntables * SEC_ENT_SIZE, SEC_TRACE_INFO, SEC_FLAG_REQUIRED, off,
		    1, INFO_REC_SIZE);
	info = buf + off;
	put_le64(info + INFO_DURATION, b->info.duration_ns);
	put_le64(info + INFO_LOST, b->info.lost);
	put_le64(info + INFO_UNRES_INODES, b->info.unres_inodes);
	put_le64(info + INFO_UNRES_BYTES, b->info.unres_bytes);
	put_le32(info + INFO_FLAGS, b->info.flags);
	put_le32(info + INFO_RA_KB, b->info.ra_kb);
	memcpy(info + INFO_KERNEL, b->info.kernel, 8);
	memcpy(info + INFO_COMMAND, b->info.command, 8);

	put_le32(buf + HDR_CRC, crc32c(0, buf, len));
	*ret_data = buf;
	*ret_len = len;
	return 0;
}

/* ---- reading back: what ura_pack_get_*() would decode from the pack written now ---- */

static const char *string_at(const struct ura_pack_builder *b, const uint8_t *ref)
{
	return (const char *)b->strings.items + get_le32(ref);
}

static const uint8_t *item(const struct vec *v, size_t index)
{
	return index < v->count ? (const uint8_t *)v->items + index * v->size : NULL;
}

/* The mask of every run: a builder without runs writes a pack of one. */
static uint64_t all_runs(const struct ura_pack_builder *b)
{
	return pack_all_runs(ura_pack_builder_runs(b));
}

size_t ura_pack_builder_fs_count(const struct ura_pack_builder *b)
{
	return b->fs.count;
}

size_t ura_pack_builder_file_count(const struct ura_pack_builder *b)
{
	return b->files.count;
}

size_t ura_pack_builder_range_count(const struct ura_pack_builder *b)
{
	return b->ranges.count;
}

size_t ura_pack_builder_meta_count(const struct ura_pack_builder *b)
{
	return b->meta.count;
}

size_t ura_pack_builder_pending_count(const struct ura_pack_builder *b)
{
	return b->pending.count;
}

size_t ura_pack_builder_runs(const struct ura_pack_builder *b)
{
	return b->runs.count ? b->runs.count : 1;
}

int ura_pack_builder_get_fs(const struct ura_pack_builder *b, size_t index,
			    struct ura_pack_fs *ret)
{
	const uint8_t *r = item(&b->fs, index);

	if (!r)
		return -ERANGE;
	pack_record_fs(r, (const char *)b->strings.items, ret);
	return 0;
}

int ura_pack_builder_get_file(const struct ura_pack_builder *b, size_t index,
			      struct ura_pack_file *ret)
{
	const uint8_t *r = item(&b->files, index);

	if (!r)
		return -ERANGE;
	pack_record_file(r, (const char *)b->strings.items, ret);
	return 0;
}

int ura_pack_builder_get_range(const struct ura_pack_builder *b, size_t index,
			       struct ura_pack_range *ret)
{
	const uint8_t *r = item(&b->ranges, index);

	if (!r)
		return -ERANGE;
	pack_record_range(r, ret);
	return 0;
}

int ura_pack_builder_get_meta(const struct ura_pack_builder *b, size_t index,
			      struct ura_pack_meta *ret)
{
	const uint8_t *r = item(&b->meta, index);

	if (!r)
		return -ERANGE;
	pack_record_meta(r, ret);
	return 0;
}

/* The mask kept after a range or metadata record; 0 is every run, however many were added. */
static int get_support(const struct ura_pack_builder *b, const struct vec *v, size_t mask_at,
		       size_t index, uint32_t *ret_support, uint64_t *ret_mask)
{
	const uint8_t *r = item(v, index);
	uint64_t mask;

	if (!r)
		return -ERANGE;
	mask = get_le64(r + mask_at);
	if (!mask)
		mask = all_runs(b);
	if (ret_support)
		*ret_support = (uint32_t)__builtin_popcountll(mask);
	if (ret_mask)
		*ret_mask = mask;
	return 0;
}

int ura_pack_builder_get_range_support(const struct ura_pack_builder *b, size_t index,
				       uint32_t *ret_support, uint64_t *ret_mask)
{
	return get_support(b, &b->ranges, RANGE_MEM_MASK, index, ret_support, ret_mask);
}

int ura_pack_builder_get_meta_support(const struct ura_pack_builder *b, size_t index,
				      uint32_t *ret_support, uint64_t *ret_mask)
{
	return get_support(b, &b->meta, META_MEM_MASK, index, ret_support, ret_mask);
}

int ura_pack_builder_get_pending(const struct ura_pack_builder *b, size_t index,
				 struct ura_pack_range *ret, uint32_t *ret_support, uint64_t *ret_mask)
{
	const uint8_t *r = item(&b->pending, index);

	if (!r)
		return -ERANGE;
	pack_record_pending(r, ret, ret_support, ret_mask);
	return 0;
}

void ura_pack_builder_get_info(const struct ura_pack_builder *b, struct ura_pack_info *ret)
{
	*ret = (struct ura_pack_info){
		.created_ns = b->info.created_ns,
		.duration_ns = b->info.duration_ns,
		.lost_events = b->info.lost,
		.unresolved_inodes = b->info.unres_inodes,
		.unresolved_bytes = b->info.unres_bytes,
		.flags = b->info.flags,
		.read_ahead_kb = b->info.ra_kb,
		.kernel_release = string_at(b, b->info.kernel),
		.command = string_at(b, b->info.command),
	};
}

int ura_pack_builder_get_run(const struct ura_pack_builder *b, size_t index,
			     int64_t *ret_created_ns, uint64_t *ret_duration_ns)
{
	const uint8_t *r = item(&b->runs, index);

	if (!r && (b->runs.count || index > 0))
		return -ERANGE;
	if (ret_created_ns)	/* without runs, the one trace of the info */
		*ret_created_ns = r ? (int64_t)get_le64(r + RUN_CREATED) : b->info.created_ns;
	if (ret_duration_ns)
		*ret_duration_ns = r ? get_le64(r + RUN_DURATION) : b->info.duration_ns;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fsync_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, r = 0;

	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		r = -errno;
	close(fd);
	return r;
}

int ura_pack_builder_write(struct ura_pack_builder *b, const char *path, unsigned mode)
{
	char *tmp = NULL;
	void *data = NULL;
	size_t len = 0;
	int fd = -1, r;

	r = ura_pack_builder_serialize(b, &data, &len);
	if (r < 0)
		return r;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		r = -ENOMEM;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		tmp = NULL;	/* nothing to unlink */
		goto out;
	}
	if ((r = write_all(fd, data, len)) < 0)
		goto out;
	if (fchmod(fd, mode & 07777) < 0 || fsync(fd) < 0) {
		r = -errno;
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		r = -errno;
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		r = -errno;
		goto out;
	}
	free(tmp);
	tmp = NULL;	/* renamed: nothing to unlink */
	r = fsync_dir_of(path);
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(data);
	return r;
}
