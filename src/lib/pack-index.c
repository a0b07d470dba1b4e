// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Indexing a parsed pack: each file's ranges in page order, the files in order
 * of first access, and lookups by (filesystem, inode) and (filesystem, path).
 * Built with the public accessors only.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ura/pack.h"

struct inode_key {
	uint64_t ino;
	uint32_t fs, file;
};

struct path_key {
	const char *path;	/* into the pack */
	uint32_t fs, file;
};

struct ura_pack_index {
	const struct ura_pack *pack;
	size_t nfiles;
	size_t *start;			/* ranges of file i: ranges[start[i] .. start[i + 1]) */
	uint32_t *ranges;
	uint32_t *files;		/* in order of first access */
	struct inode_key *by_inode;	/* by fs, inode, file */
	struct path_key *by_path;	/* by fs, path, file */
};

/* Page order, then first access, then index: decoded on the fly, so the index costs 4 bytes a range. */
static int cmp_range(const void *a, const void *b, void *pack)
{
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	struct ura_pack_range x, y;

	ura_pack_get_range(pack, ia, &x);
	ura_pack_get_range(pack, ib, &y);
	if (x.first_page != y.first_page)
		return x.first_page < y.first_page ? -1 : 1;
	if (x.first_access_ns != y.first_access_ns)
		return x.first_access_ns < y.first_access_ns ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/* Sort one file's ranges, unless they are in page order already (the usual case). */
static void sort_file_ranges(const struct ura_pack *pack, uint32_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cmp_range(&v[i - 1], &v[i], (void *)pack) > 0) {
			qsort_r(v, n, sizeof(*v), cmp_range, (void *)pack);
			return;
		}
}

static int cmp_inode_key(const void *a, const void *b)
{
	const struct inode_key *x = a, *y = b;

	if (x->fs != y->fs)
		return x->fs < y->fs ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

static int cmp_path_key(const void *a, const void *b)
{
	const struct path_key *x = a, *y = b;
	int c;

	if (x->fs != y->fs)
		return x->fs < y->fs ? -1 : 1;
	c = strcmp(x->path, y->path);
	if (c)
		return c;
	return x->file < y->file ? -1 : x->file > y->file;
}

void ura_pack_index_free(struct ura_pack_index *index)
{
	if (!index)
		return;
	free(index->start);
	free(index->ranges);
	free(index->files);
	free(index->by_inode);
	free(index->by_path);
	free(index);
}

/* Ranges grouped by file (a counting sort), each file's in page order. */
static int index_ranges(struct ura_pack_index *x, size_t nr)
{
	size_t *fill = calloc(x->nfiles + 1, sizeof(*fill));
	bool *seen = calloc(x->nfiles ? x->nfiles : 1, sizeof(*seen));
	size_t n = 0;
	int r = -ENOMEM;

	if (!fill || !seen)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		struct ura_pack_range rg;

		ura_pack_get_range(x->pack, i, &rg);
		x->start[rg.file_index + 1]++;
	}
	for (size_t i = 0; i < x->nfiles; i++)
		x->start[i + 1] += x->start[i];
	/* ranges come in first-access order: a file's first range is its first access */
	for (size_t i = 0; i < nr; i++) {
		struct ura_pack_range rg;

		ura_pack_get_range(x->pack, i, &rg);
		x->ranges[x->start[rg.file_index] + fill[rg.file_index]++] = (uint32_t)i;
		if (!seen[rg.file_index]) {
			seen[rg.file_index] = true;
			x->files[n++] = rg.file_index;
		}
	}
	for (size_t i = 0; i < x->nfiles; i++) {
		if (!seen[i])
			x->files[n++] = (uint32_t)i;
		sort_file_ranges(x->pack, x->ranges + x->start[i], x->start[i + 1] - x->start[i]);
	}
	r = 0;
out:
	free(fill);
	free(seen);
	return r;
}

int ura_pack_index_new(const struct ura_pack *pack, unsigned tables, struct ura_pack_index **ret)
{
	size_t nf = ura_pack_file_count(pack), nr = ura_pack_range_count(pack);
	struct ura_pack_index *x;
	int r = -ENOMEM;

	if (tables & ~URA_PACK_INDEX_ALL)
		return -EINVAL;
	if (!tables)
		tables = URA_PACK_INDEX_ALL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->pack = pack;
	x->nfiles = nf;
	if (tables & URA_PACK_INDEX_RANGES) {
		x->start = calloc(nf + 1, sizeof(*x->start));
		x->ranges = malloc((nr ? nr : 1) * sizeof(*x->ranges));
		x->files = malloc((nf ? nf : 1) * sizeof(*x->files));
		if (!x->start || !x->ranges || !x->files)
			goto fail;
		r = index_ranges(x, nr);
		if (r < 0)
			goto fail;
	}
	r = -ENOMEM;
	if (tables & URA_PACK_INDEX_INODES) {
		x->by_inode = malloc((nf ? nf : 1) * sizeof(*x->by_inode));
		if (!x->by_inode)
			goto fail;
	}
	if (tables & URA_PACK_INDEX_PATHS) {
		x->by_path = malloc((nf ? nf : 1) * sizeof(*x->by_path));
		if (!x->by_path)
			goto fail;
	}
	for (size_t i = 0; (x->by_inode || x->by_path) && i < nf; i++) {
		struct ura_pack_file f;

		ura_pack_get_file(pack, i, &f);
		if (x->by_inode)
			x->by_inode[i] = (struct inode_key){ .ino = f.ino, .fs = f.fs_index,
							     .file = (uint32_t)i };
		if (x->by_path)
			x->by_path[i] = (struct path_key){ .path = f.path, .fs = f.fs_index,
							   .file = (uint32_t)i };
	}
	if (x->by_inode)
		qsort(x->by_inode, nf, sizeof(*x->by_inode), cmp_inode_key);
	if (x->by_path)
		qsort(x->by_path, nf, sizeof(*x->by_path), cmp_path_key);
	*ret = x;
	return 0;
fail:
	ura_pack_index_free(x);
	return r;
}

int ura_pack_index_file_ranges(const struct ura_pack_index *index, size_t file_index,
			       const uint32_t **ret_ranges, size_t *ret_count)
{
	if (!index->ranges)
		return -ENODATA;
	if (file_index >= index->nfiles)
		return -ERANGE;
	*ret_ranges = index->ranges + index->start[file_index];
	*ret_count = index->start[file_index + 1] - index->start[file_index];
	return 0;
}

int ura_pack_index_files(const struct ura_pack_index *index, const uint32_t **ret_files,
			 size_t *ret_count)
{
	if (!index->files)
		return -ENODATA;
	*ret_files = index->files;
	*ret_count = index->nfiles;
	return 0;
}

int ura_pack_index_find_inode(const struct ura_pack_index *index, uint32_t fs_index, uint64_t ino,
			      size_t *ret_file)
{
	size_t lo = 0, hi = index->nfiles;
	struct inode_key want = { .ino = ino, .fs = fs_index, .file = 0 };

	if (!index->by_inode)
		return -ENODATA;
	while (lo < hi) {	/* the first key not below (fs, ino, 0) */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_inode_key(&index->by_inode[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == index->nfiles || index->by_inode[lo].fs != fs_index ||
	    index->by_inode[lo].ino != ino)
		return -ENOENT;
	*ret_file = index->by_inode[lo].file;
	return 0;
}

int ura_pack_index_find_path(const struct ura_pack_index *index, uint32_t fs_index,
			     const char *path, size_t *ret_file)
{
	size_t lo = 0, hi = index->nfiles;
	struct path_key want = { .path = path, .fs = fs_index, .file = 0 };

	if (!index->by_path)
		return -ENODATA;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_path_key(&index->by_path[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == index->nfiles || index->by_path[lo].fs != fs_index ||
	    strcmp(index->by_path[lo].path, path) != 0)
		return -ENOENT;
	*ret_file = index->by_path[lo].file;
	return 0;
}
