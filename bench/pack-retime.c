// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-retime: the pages of one pack in the order of another, to tell what a pack's
 * set of pages costs a replay from what its order costs.
 *
 *   pack-retime OUT SET.pack ORDER.pack
 *
 * OUT holds SET's filesystems, files, pages (demanded or not) and metadata; each page
 * takes the first access ORDER gives the same page of the same file (by path), and a
 * page ORDER lacks takes the time of ORDER's nearest page of that file, or, for a file
 * ORDER lacks, SET's time scaled by the two packs' durations. Metadata keeps SET's times.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ura/pack.h>

struct page_time {
	uint64_t page, time;
};

struct file_times {
	const char *path;
	struct page_time *p;
	size_t n, cap;
};

static int cmp_page(const void *a, const void *b)
{
	const struct page_time *x = a, *y = b;

	return x->page < y->page ? -1 : x->page > y->page;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct file_times *)a)->path, ((const struct file_times *)b)->path);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "pack-retime: %s: %s\n", what, strerror(err));
	exit(1);
}

/* Every page of @pack with its earliest first access, by file path (sorted). */
static struct file_times *index_times(const struct ura_pack *pack, size_t *ret_n)
{
	size_t nf = ura_pack_file_count(pack), nr = ura_pack_range_count(pack);
	struct file_times *ft = calloc(nf ? nf : 1, sizeof(*ft));

	if (!ft)
		die("calloc", ENOMEM);
	for (size_t i = 0; i < nf; i++) {
		struct ura_pack_file f;

		if (ura_pack_get_file(pack, i, &f) < 0)
			die("file", EINVAL);
		ft[i].path = f.path;
	}
	for (size_t i = 0; i < nr; i++) {
		struct ura_pack_range r;
		struct file_times *t;

		if (ura_pack_get_range(pack, i, &r) < 0)
			die("range", EINVAL);
		t = &ft[r.file_index];
		for (uint64_t p = r.first_page; p < r.first_page + r.page_count; p++) {
			if (t->n == t->cap) {
				t->cap = t->cap ? t->cap * 2 : 64;
				t->p = realloc(t->p, t->cap * sizeof(*t->p));
				if (!t->p)
					die("realloc", ENOMEM);
			}
			t->p[t->n++] = (struct page_time){ p, r.first_access_ns };
		}
	}
	for (size_t i = 0; i < nf; i++)
		qsort(ft[i].p, ft[i].n, sizeof(*ft[i].p), cmp_page);
	qsort(ft, nf, sizeof(*ft), cmp_path);
	*ret_n = nf;
	return ft;
}

/* The time @t gives page @page: its own, else its nearest page's; UINT64_MAX if no page. */
static uint64_t time_of(const struct file_times *t, uint64_t page)
{
	size_t lo = 0, hi = t->n;

	if (!t->n)
		return UINT64_MAX;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->p[mid].page < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && t->p[lo].page == page)
		return t->p[lo].time;
	if (lo == t->n)
		return t->p[t->n - 1].time;
	if (lo == 0)
		return t->p[0].time;
	return page - t->p[lo - 1].page <= t->p[lo].page - page ? t->p[lo - 1].time :
								   t->p[lo].time;
}

int main(int argc, char *argv[])
{
	struct ura_pack *set = NULL, *order = NULL;
	struct ura_pack_builder *b = NULL;
	struct ura_pack_info si, oi;
	struct file_times *ft;
	size_t nft;
	double scale;
	int r;

	if (argc != 4) {
		fputs("usage: pack-retime OUT SET.pack ORDER.pack\n", stderr);
		return 64;
	}
	if ((r = ura_pack_open(argv[2], &set)) < 0)
		die(argv[2], -r);
	if ((r = ura_pack_open(argv[3], &order)) < 0)
		die(argv[3], -r);
	ura_pack_get_info(set, &si);
	ura_pack_get_info(order, &oi);
	scale = si.duration_ns ? (double)oi.duration_ns / (double)si.duration_ns : 1.0;
	ft = index_times(order, &nft);
	if ((r = ura_pack_builder_new(&b)) < 0 || (r = ura_pack_builder_set_info(b, &si)) < 0)
		die("builder", -r);
	for (size_t i = 0; i < ura_pack_fs_count(set); i++) {
		struct ura_pack_fs fs;

		if ((r = ura_pack_get_fs(set, i, &fs)) < 0 ||
		    (r = ura_pack_builder_add_fs(b, &fs, NULL)) < 0)
			die("filesystem", -r);
	}
	for (size_t i = 0; i < ura_pack_file_count(set); i++) {
		struct ura_pack_file f;

		if ((r = ura_pack_get_file(set, i, &f)) < 0 ||
		    (r = ura_pack_builder_add_file(b, &f, NULL)) < 0)
			die("file", -r);
	}
	for (size_t i = 0; i < ura_pack_meta_count(set); i++) {
		struct ura_pack_meta m;

		if ((r = ura_pack_get_meta(set, i, &m)) < 0)
			die("metadata", -r);
		m.first_access_ns = (uint64_t)((double)m.first_access_ns * scale);
		if ((r = ura_pack_builder_add_meta(b, &m)) < 0)
			die("metadata", -r);
	}
	for (size_t i = 0; i < ura_pack_range_count(set); i++) {
		struct ura_pack_range rg, piece;
		struct ura_pack_file f;
		struct file_times key, *t;

		if ((r = ura_pack_get_range(set, i, &rg)) < 0 ||
		    (r = ura_pack_get_file(set, rg.file_index, &f)) < 0)
			die("range", -r);
		key.path = f.path;
		t = bsearch(&key, ft, nft, sizeof(*ft), cmp_path);
		piece = rg;
		piece.page_count = 0;
		for (uint64_t p = rg.first_page;; p++) {
			bool end = p == rg.first_page + rg.page_count;
			uint64_t tm = end ? UINT64_MAX : t ? time_of(t, p) : UINT64_MAX;

			if (!end && tm == UINT64_MAX)
				tm = (uint64_t)((double)rg.first_access_ns * scale);
			if (piece.page_count && (end || tm != piece.first_access_ns)) {
				if ((r = ura_pack_builder_add_range(b, &piece)) < 0)
					die(ura_pack_builder_error(b), -r);
				piece.page_count = 0;
			}
			if (end)
				break;
			if (!piece.page_count) {
				piece.first_page = p;
				piece.first_access_ns = tm;
			}
			piece.page_count++;
		}
	}
	if ((r = ura_pack_builder_write(b, argv[1], 0644)) < 0)
		die(argv[1], -r);
	ura_pack_builder_free(b);
	for (size_t i = 0; i < nft; i++)
		free(ft[i].p);
	free(ft);
	ura_pack_free(set);
	ura_pack_free(order);
	return 0;
}
