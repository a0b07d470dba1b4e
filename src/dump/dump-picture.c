// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the picture of a pack shows, before any drawing: a time axis, a row per metadata device
 * and per file drawn, the long tail of files summed in one row, and each row's pages binned by
 * the column of the timeline they were first read in, and by the column of the file they are
 * in (the page map). The drawing costs O(rows x columns) whatever the size of the pack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dump-picture.h"

#define META_ROWS	8	/* metadata rows at most: the last sums the devices after it */
#define MAX_TICKS	10

/* Pages of one row in each timeline column, summed while the row is filled. */
struct bins {
	uint64_t pages[PICTURE_TIME_BINS][2];
	double weighted[PICTURE_TIME_BINS][2];	/* pages x support, for the mean support */
};

uint32_t picture_bin(uint64_t t_ns, uint64_t end_ns, uint32_t bins)
{
	double x;

	if (end_ns == 0 || t_ns >= end_ns)
		return bins - 1;
	x = (double)t_ns / (double)end_ns * bins;
	return x >= bins ? bins - 1 : (uint32_t)x;
}

/* The axis: 0 to the first multiple of a 1-2-5 step at or after @tmax, in at most 10 steps. */
static void axis(uint64_t tmax, uint64_t *ret_end, uint64_t *ret_step)
{
	static const uint64_t mult[] = { 1, 2, 5 };
	uint64_t pow = 1, step = 1, n;

	if (tmax == 0)
		tmax = 1;
	for (;;) {
		size_t i;

		for (i = 0; i < sizeof(mult) / sizeof(mult[0]); i++) {
			step = mult[i] * pow;
			if (tmax / step + (tmax % step != 0) <= MAX_TICKS)
				break;
		}
		if (i < sizeof(mult) / sizeof(mult[0]) || pow > UINT64_MAX / 100)
			break;
		pow *= 10;
	}
	n = tmax / step + (tmax % step != 0);
	*ret_end = n > UINT64_MAX / step ? UINT64_MAX : n * step;
	*ret_step = step;
}

static void bins_add(struct bins *b, uint32_t bin, int kind, uint64_t pages, uint32_t support)
{
	b->pages[bin][kind] += pages;
	b->weighted[bin][kind] += (double)pages * support;
}

/* Move the columns with pages into @row's cells, and clear @b for the next row. */
static int bins_take(struct bins *b, struct picture_row *row)
{
	size_t n = 0;

	for (uint32_t i = 0; i < PICTURE_TIME_BINS; i++)
		n += b->pages[i][0] || b->pages[i][1];
	row->cells = calloc(n ? n : 1, sizeof(*row->cells));
	if (!row->cells)
		return -ENOMEM;
	for (uint32_t i = 0; i < PICTURE_TIME_BINS; i++) {
		struct picture_cell *c;

		if (!b->pages[i][0] && !b->pages[i][1])
			continue;
		c = &row->cells[row->ncells++];
		c->bin = i;
		for (int k = 0; k < 2; k++) {
			c->pages[k] = b->pages[i][k];
			if (c->pages[k])
				c->support[k] = (uint32_t)(b->weighted[i][k] / (double)c->pages[k] + 0.5);
		}
	}
	memset(b, 0, sizeof(*b));
	return 0;
}

/* Mark the page-map columns of pages [first, first + count) of @row. */
static void map_mark(struct picture_row *row, uint64_t first, uint64_t count, uint8_t bit)
{
	uint64_t last = first + count - 1, b0, b1;

	if (row->map_pages == 0 || count == 0)
		return;
	if (last >= row->map_pages)
		last = row->map_pages - 1;
	if (first > last)
		return;
	/* the columns that pages first .. last cover, also when a page is wider than a column */
	b0 = first * PICTURE_MAP_BINS / row->map_pages;
	b1 = ((last + 1) * PICTURE_MAP_BINS + row->map_pages - 1) / row->map_pages - 1;
	for (uint64_t b = b0; b <= b1 && b < PICTURE_MAP_BINS; b++)
		row->map[b] |= bit;
}

static void row_time(struct picture_row *row, uint64_t t)
{
	if (row->ranges == 0 || t < row->first_ns)
		row->first_ns = t;
	if (row->ranges == 0 || t > row->last_ns)
		row->last_ns = t;
}

static void row_support(struct picture_row *row, uint32_t support)
{
	if (row->ranges == 0 || support < row->support_min)
		row->support_min = support;
	if (support > row->support_max)
		row->support_max = support;
}

/* Add the ranges of file @file to @row (and its page map when @map). */
static void add_file(const struct picture *p, const struct ura_pack_index *x, size_t file,
		     struct picture_row *row, struct bins *b, bool map)
{
	const uint32_t *idx = NULL;
	size_t n = 0;

	if (ura_pack_index_file_ranges(x, file, &idx, &n) < 0)
		n = 0;
	if (map) {
		struct ura_pack_file f;

		ura_pack_get_file(p->pack, file, &f);
		row->map_pages = f.size / URA_PACK_PAGE_SIZE + (f.size % URA_PACK_PAGE_SIZE != 0);
		for (size_t k = 0; k < n; k++) {
			struct ura_pack_range rg;

			ura_pack_get_range(p->pack, idx[k], &rg);
			if (rg.first_page + rg.page_count > row->map_pages)
				row->map_pages = rg.first_page + rg.page_count;	/* file grew */
		}
	}
	for (size_t k = 0; k < n; k++) {
		struct ura_pack_range rg;
		uint32_t support = 1;
		int kind;

		ura_pack_get_range(p->pack, idx[k], &rg);
		ura_pack_get_range_support(p->pack, idx[k], &support, NULL);
		kind = rg.flags & URA_PACK_RANGE_DEMANDED ? 0 : 1;
		row_time(row, rg.first_access_ns);
		row_support(row, support);
		row->ranges++;
		row->bytes += (uint64_t)rg.page_count * URA_PACK_PAGE_SIZE;
		if (kind == 0)
			row->demanded_bytes += (uint64_t)rg.page_count * URA_PACK_PAGE_SIZE;
		bins_add(b, picture_bin(rg.first_access_ns, p->end_ns, PICTURE_TIME_BINS), kind,
			 rg.page_count, support);
		if (map)
			map_mark(row, rg.first_page, rg.page_count,
				 kind == 0 ? PICTURE_MAP_DEMANDED : PICTURE_MAP_SPECULATIVE);
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_meta(const void *a, const void *b, void *pack)
{
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	struct ura_pack_meta x, y;

	ura_pack_get_meta(pack, ia, &x);
	ura_pack_get_meta(pack, ib, &y);
	if (x.major != y.major)
		return x.major < y.major ? -1 : 1;
	if (x.minor != y.minor)
		return x.minor < y.minor ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/*
 * Metadata rows: one per device, in the order of the first access of its metadata (records
 * come in first-access order, so a device's lowest record index is its first); past
 * META_ROWS - 1 devices, the last row sums the rest and has no page map.
 */
static int metadata_rows(struct picture *p)
{
	size_t nm = ura_pack_meta_count(p->pack), ndev = 0, nrows;
	uint32_t *by_dev = NULL, *first = NULL, *row_of = NULL;
	struct bins *b = NULL;
	struct picture_row *rows = p->rows + p->nrows;
	int r = -ENOMEM;

	if (nm == 0)
		return 0;
	by_dev = malloc(nm * sizeof(*by_dev));
	first = malloc(nm * sizeof(*first));
	row_of = malloc(nm * sizeof(*row_of));
	b = calloc(META_ROWS, sizeof(*b));
	if (!by_dev || !first || !row_of || !b)
		goto out;
	for (size_t i = 0; i < nm; i++)
		by_dev[i] = (uint32_t)i;
	qsort_r(by_dev, nm, sizeof(*by_dev), cmp_meta, (void *)p->pack);
	/* each device's records are together, its first access first */
	for (size_t i = 0; i < nm; i++) {
		struct ura_pack_meta m, prev;

		ura_pack_get_meta(p->pack, by_dev[i], &m);
		if (i)
			ura_pack_get_meta(p->pack, by_dev[i - 1], &prev);
		if (i == 0 || m.major != prev.major || m.minor != prev.minor)
			first[ndev++] = by_dev[i];
		row_of[by_dev[i]] = first[ndev - 1];	/* for now: the device's first record */
	}
	qsort(first, ndev, sizeof(*first), cmp_u32);
	for (size_t i = 0; i < nm; i++) {
		uint32_t *at = bsearch(&row_of[i], first, ndev, sizeof(*first), cmp_u32);
		size_t rank = (size_t)(at - first);

		row_of[i] = (uint32_t)(rank < META_ROWS - 1 ? rank : META_ROWS - 1);
	}
	nrows = ndev < META_ROWS ? ndev : META_ROWS;
	for (size_t k = 0; k < nrows; k++) {
		struct ura_pack_meta m;

		ura_pack_get_meta(p->pack, first[k], &m);
		rows[k] = (struct picture_row){ .kind = PICTURE_ROW_METADATA, .fs_index = m.fs_index,
						.major = m.major, .minor = m.minor, .files = 1 };
		if (k == META_ROWS - 1)
			rows[k].files = ndev - k;	/* devices summed */
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < nm; i++) {
			struct picture_row *row = &rows[row_of[i]];
			struct ura_pack_meta m;
			uint32_t support = 1;
			uint64_t pages;

			ura_pack_get_meta(p->pack, i, &m);
			pages = m.length / URA_PACK_PAGE_SIZE + (m.length % URA_PACK_PAGE_SIZE != 0);
			if (pass == 0) {	/* the page map spans the device up to its last block read */
				if (row->files == 1 && m.offset / URA_PACK_PAGE_SIZE + pages > row->map_pages)
					row->map_pages = m.offset / URA_PACK_PAGE_SIZE + pages;
				continue;
			}
			ura_pack_get_meta_support(p->pack, i, &support, NULL);
			row_time(row, m.first_access_ns);
			row_support(row, support);
			row->ranges++;
			row->bytes += m.length;
			bins_add(&b[row_of[i]], picture_bin(m.first_access_ns, p->end_ns, PICTURE_TIME_BINS),
				 0, pages, support);
			map_mark(row, m.offset / URA_PACK_PAGE_SIZE, pages, PICTURE_MAP_DEMANDED);
		}
	for (size_t k = 0; k < nrows; k++) {
		r = bins_take(&b[k], &rows[k]);
		if (r < 0)
			goto out;
		p->nrows++;
	}
	r = 0;
out:
	free(by_dev);
	free(first);
	free(row_of);
	free(b);
	return r;
}

struct ranked {
	uint64_t bytes;
	size_t rank;
};

/* Most bytes first, then first access. */
static int cmp_biggest(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Which files get a row, by rank in first-access order (see picture_new()). */
static int choose_files(const struct picture *p, const uint32_t *files, size_t nf, size_t max_rows,
			bool *drawn)
{
	size_t nfirst, nbig;
	uint64_t *bytes = NULL;
	struct ranked *rest = NULL;

	if (max_rows == 0 || nf <= max_rows) {
		for (size_t i = 0; i < nf; i++)
			drawn[i] = true;
		return 0;
	}
	nbig = max_rows / 3;
	nfirst = max_rows - nbig;
	bytes = calloc(ura_pack_file_count(p->pack), sizeof(*bytes));
	rest = malloc((nf - nfirst) * sizeof(*rest));
	if (!bytes || !rest) {
		free(bytes);
		free(rest);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ura_pack_range_count(p->pack); i++) {
		struct ura_pack_range rg;

		ura_pack_get_range(p->pack, i, &rg);
		bytes[rg.file_index] += (uint64_t)rg.page_count * URA_PACK_PAGE_SIZE;
	}
	for (size_t i = 0; i < nfirst; i++)
		drawn[i] = true;
	for (size_t i = nfirst; i < nf; i++)
		rest[i - nfirst] = (struct ranked){ .bytes = bytes[files[i]], .rank = i };
	qsort(rest, nf - nfirst, sizeof(*rest), cmp_biggest);
	for (size_t k = 0; k < nbig; k++)
		drawn[rest[k].rank] = true;
	free(bytes);
	free(rest);
	return 0;
}

static int file_rows(struct picture *p, const struct ura_pack_index *x, size_t max_rows,
		     struct bins *b)
{
	const uint32_t *files = NULL;
	size_t nf = 0, prev = 0, left_out = 0;
	bool *drawn;
	int r;

	r = ura_pack_index_files(x, &files, &nf);
	if (r < 0)
		return r;
	drawn = calloc(nf ? nf : 1, sizeof(*drawn));
	if (!drawn)
		return -ENOMEM;
	r = choose_files(p, files, nf, max_rows, drawn);
	for (size_t i = 0; r == 0 && i < nf; i++) {
		struct picture_row *row = &p->rows[p->nrows];

		if (!drawn[i]) {
			left_out++;
			continue;
		}
		*row = (struct picture_row){ .kind = PICTURE_ROW_FILE, .rank = i, .file = files[i],
					     .fs_index = URA_PACK_NO_INDEX, .files = 1,
					     .gap_before = p->file_rows ? prev + 1 != i : i != 0 };
		add_file(p, x, files[i], row, b, true);
		r = bins_take(b, row);
		if (r == 0) {
			p->nrows++;
			p->file_rows++;
		}
		prev = i;
	}
	if (r == 0 && left_out) {
		struct picture_row *row = &p->rows[p->nrows];

		*row = (struct picture_row){ .kind = PICTURE_ROW_MORE, .fs_index = URA_PACK_NO_INDEX,
					     .files = left_out };
		for (size_t i = 0; i < nf; i++)
			if (!drawn[i])
				add_file(p, x, files[i], row, b, false);
		r = bins_take(b, row);
		if (r == 0)
			p->more = &p->rows[p->nrows++];
	}
	free(drawn);
	return r;
}

void picture_free(struct picture *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->rows && i < p->nrows; i++)
		free(p->rows[i].cells);
	free(p->rows);
	free(p);
}

int picture_new(const struct ura_pack *pack, size_t max_rows, struct picture **ret)
{
	size_t nf = ura_pack_file_count(pack), nr = ura_pack_range_count(pack);
	size_t nm = ura_pack_meta_count(pack);
	struct ura_pack_index *x = NULL;
	struct picture *p;
	struct bins *b = NULL;
	uint64_t tmax = 0;
	int r = -ENOMEM;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->pack = pack;
	p->runs = ura_pack_runs(pack);
	dump_totals(pack, &p->totals);
	for (size_t i = 0; i < nr; i++) {
		struct ura_pack_range rg;

		ura_pack_get_range(pack, i, &rg);
		tmax = rg.first_access_ns > tmax ? rg.first_access_ns : tmax;
	}
	for (size_t i = 0; i < nm; i++) {
		struct ura_pack_meta m;

		ura_pack_get_meta(pack, i, &m);
		tmax = m.first_access_ns > tmax ? m.first_access_ns : tmax;
	}
	axis(tmax, &p->end_ns, &p->step_ns);
	p->rows = calloc(META_ROWS + (max_rows && nf > max_rows ? max_rows + 1 : nf) + 1,
			 sizeof(*p->rows));
	b = calloc(1, sizeof(*b));
	if (!p->rows || !b)
		goto fail;
	r = ura_pack_index_new(pack, URA_PACK_INDEX_RANGES, &x);
	if (r < 0)
		goto fail;
	r = metadata_rows(p);
	if (r < 0)
		goto fail;
	r = file_rows(p, x, max_rows, b);
	if (r < 0)
		goto fail;
	ura_pack_index_free(x);
	free(b);
	*ret = p;
	return 0;
fail:
	ura_pack_index_free(x);
	free(b);
	picture_free(p);
	return r;
}
