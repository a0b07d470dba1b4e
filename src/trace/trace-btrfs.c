// SPDX-License-Identifier: GPL-2.0-or-later
/* btrfs: the files a traced inode number may be, in every subvolume of every mount */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util-log.h"
#include "sys-mountinfo.h"
#include "trace-pageset.h"
#include "trace-resolve.h"
#include "trace-btrfs.h"
#include "trace-root.h"
#include "util.h"

/* Is @e's root inside that of @o (or the same, and @o the better view)? */
static bool view_inside(const struct mount_entry *e, const struct mount_entry *o)
{
	size_t ol = strlen(o->root);

	if (strcmp(o->root, "/") == 0)
		return true;
	return strncmp(e->root, o->root, ol) == 0 && (e->root[ol] == '/' || e->root[ol] == '\0');
}

/*
 * Name the inodes of one subvolume, @sub below the mount @me, and note them.
 */
static int walk_subvolume(const struct mount_table *mt, const struct pageset_file *files, size_t n,
			  const struct mount_entry *me, size_t view, const char *sub, struct btrfs_candidate **matches,
			  size_t *nmatches)
{
	struct resolve_item *items = NULL;
	char *dir = NULL;
	struct stat st;
	long found;
	int fd = -1, r = 0;

	dir = path_join(me->mount_point, sub);
	items = calloc(n, sizeof(*items));
	if (!dir || !items) {
		r = -ENOMEM;
		goto out;
	}
	fd = resolve_open_dir(dir, mt);
	if (fd < 0 || fstat(fd, &st) < 0)
		goto out;	/* removed meanwhile, or not to be looked into */
	for (size_t i = 0; i < n; i++)
		items[i].ino = files[i].ino;
	found = resolve_inodes(dir, me->major, me->minor, items, n, RESOLVE_WALK, mt);
	if (found == -ENOMEM) {
		r = -ENOMEM;
		goto out;
	}
	if (found < 0) {
		log_warn("cannot look for files in '%s': %s, skipping", dir, strerror((int)-found));
		goto out;
	}
	log_debug("btrfs subvolume '%s': %ld of %zu inode numbers found", dir, found, n);
	for (size_t i = 0; i < n; i++) {
		struct btrfs_candidate *m;

		if (!items[i].path)
			continue;
		m = realloc(*matches, (*nmatches + 1) * sizeof(**matches));
		if (!m) {
			r = -ENOMEM;
			goto out;
		}
		*matches = m;
		m[*nmatches] = (struct btrfs_candidate){ .file = i, .mount = me, .dev = st.st_dev,
							 .view = view, .order = *nmatches };
		m[*nmatches].rel = strcmp(sub, ".") == 0 ? items[i].path :
				   path_join(sub, items[i].path);
		if (m[*nmatches].rel != items[i].path)
			free(items[i].path);
		items[i].path = NULL;
		if (!m[*nmatches].rel) {
			r = -ENOMEM;
			goto out;
		}
		(*nmatches)++;
	}
out:
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; items && i < n; i++)
		free(items[i].path);
	free(items);
	free(dir);
	return r;
}

static int cmp_match(const void *a, const void *b)
{
	const struct btrfs_candidate *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int btrfs_candidates(const struct mount_table *mt, const struct mount_entry *best,
		     const char *root, const struct pageset_file *files, size_t n,
		     struct btrfs_candidate **ret, size_t *ret_n, size_t *ret_nviews)
{
	const struct mount_entry **views = NULL;
	struct btrfs_candidate *matches = NULL;
	size_t nviews = 0, nmatches = 0;
	unsigned major = best->major, minor = best->minor;
	int r = 0;

	views = calloc(mt->count ? mt->count : 1, sizeof(const struct mount_entry *));
	if (!views)
		return -ENOMEM;
	/*
	 * The best mount first, then those with files it cannot reach. Under
	 * --root a view may see only part of its filesystem: take every mount
	 * then (a file found twice in one subvolume is one file, kept once).
	 */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < mt->count; i++) {
			const struct mount_entry *e = &mt->entries[i];
			const char *mp, *strip;
			bool seen = false;

			if ((pass == 0) != (e == best) || e->major != major || e->minor != minor ||
			    mountinfo_is_covered(mt, e) || root_view(root, e->mount_point, &mp, &strip) < 0)
				continue;
			for (size_t v = 0; v < nviews && !seen; v++)
				seen = views[v] == e || (!root && view_inside(e, views[v]));
			if (!seen)
				views[nviews++] = e;
		}
	}
	for (size_t v = 0; v < nviews; v++) {
		char **subs = NULL;
		long nsubs;

		nsubs = resolve_subvolumes(views[v]->mount_point, &subs, mt);
		if (nsubs < 0) {
			log_warn("cannot list the subvolumes of '%s': %s, skipping",
				 views[v]->mount_point, strerror((int)-nsubs));
			continue;
		}
		for (long k = 0; k < nsubs; k++) {
			if (r == 0)
				r = walk_subvolume(mt, files, n, views[v], v, subs[k], &matches,
						   &nmatches);
			free(subs[k]);
		}
		free(subs);
		if (r < 0)
			goto out;
	}
	if (nmatches)
		qsort(matches, nmatches, sizeof(*matches), cmp_match);
	/* the same subvolume through another mount: the same file */
	for (size_t m = 1; m < nmatches; m++)
		matches[m].duplicate = matches[m].file == matches[m - 1].file &&
				       matches[m].dev == matches[m - 1].dev;
	*ret = matches;
	*ret_n = nmatches;
	*ret_nviews = nviews;
	matches = NULL;
	nmatches = 0;
out:
	btrfs_candidates_free(matches, nmatches);
	free(views);
	return r;
}

void btrfs_candidates_free(struct btrfs_candidate *c, size_t n)
{
	for (size_t k = 0; c && k < n; k++)
		free(c[k].rel);
	free(c);
}
