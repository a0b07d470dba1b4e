// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: the replays of a process tree (watch-tree.h). A small
 * table of the processes replayed for lately, each with the files its pack
 * holds demanded pages of; an exec's ancestors are walked only while some
 * replay is remembered within its window.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <ura/pack.h>

#include "watch-tree.h"

static int cmp_id(const void *a, const void *b)
{
	const struct watch_tree_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

int watch_tree_ids(const struct ura_pack *pack, struct watch_tree_id **ret, size_t *ret_n)
{
	size_t nf = ura_pack_file_count(pack), nr = ura_pack_range_count(pack), n = 0;
	struct watch_tree_id *ids;
	bool *demanded;

	*ret = NULL;
	*ret_n = 0;
	if (nf == 0)
		return 0;
	demanded = calloc(nf, sizeof(*demanded));
	if (!demanded)
		return -ENOMEM;
	for (size_t k = 0; k < nr; k++) {
		struct ura_pack_range r;

		if (ura_pack_get_range(pack, k, &r) == 0 && r.file_index < nf &&
		    (r.flags & URA_PACK_RANGE_DEMANDED))
			demanded[r.file_index] = true;
	}
	for (size_t i = 0; i < nf; i++)
		n += demanded[i];
	if (n == 0 || n > TREE_FILES_MAX) {
		free(demanded);
		return n ? -E2BIG : 0;
	}
	ids = malloc(n * sizeof(*ids));
	if (!ids) {
		free(demanded);
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; i < nf; i++) {
		struct ura_pack_file f;
		struct ura_pack_fs fs;

		if (demanded[i] && ura_pack_get_file(pack, i, &f) == 0 &&
		    ura_pack_get_fs(pack, f.fs_index, &fs) == 0)
			ids[n++] = (struct watch_tree_id){ makedev(fs.major, fs.minor), (ino_t)f.ino };
	}
	free(demanded);
	qsort(ids, n, sizeof(*ids), cmp_id);
	*ret = ids;
	*ret_n = n;
	return 0;
}

static void entry_clear(struct watch_tree_entry *e)
{
	free(e->ids);
	*e = (struct watch_tree_entry){ 0 };
}

int watch_tree_note(struct watch_tree *t, pid_t pid, uint64_t start, uint64_t hash,
		    const struct watch_tree_id *ids, size_t n, uint64_t duration_ns, uint64_t now)
{
	uint64_t span = duration_ns < TREE_SPAN_MIN_NS ? TREE_SPAN_MIN_NS :
			duration_ns > TREE_SPAN_MAX_NS ? TREE_SPAN_MAX_NS : duration_ns;
	struct watch_tree_entry *slot = NULL;
	struct watch_tree_id *copy = NULL;

	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, ids, n * sizeof(*copy));
	}
	/* a free slot, or one past its window; else the oldest replay's */
	for (size_t i = 0; i < TREE_MAX; i++) {
		struct watch_tree_entry *e = &t->e[i];

		if (!e->pid || now >= e->until) {
			slot = e;
			break;
		}
		if (!slot || e->at < slot->at)
			slot = e;
	}
	entry_clear(slot);
	*slot = (struct watch_tree_entry){ .pid = pid, .start = start, .hash = hash, .at = now,
					   .until = now + span, .ids = copy, .nids = n };
	return 0;
}

void watch_tree_forget(struct watch_tree *t, pid_t pid, uint64_t hash)
{
	for (size_t i = 0; i < TREE_MAX; i++)
		if (t->e[i].pid == pid && t->e[i].hash == hash)
			entry_clear(&t->e[i]);
}

pid_t watch_tree_covered(struct watch_tree *t, pid_t pid, dev_t dev, ino_t ino, uint64_t now,
			 watch_tree_stat_fn stat_of, uint64_t *ret_at)
{
	const struct watch_tree_id key = { dev, ino };
	bool any = false;

	for (size_t i = 0; i < TREE_MAX; i++) {
		if (t->e[i].pid && now >= t->e[i].until)
			entry_clear(&t->e[i]);
		any |= t->e[i].pid != 0;
	}
	for (int d = 0; any && d < TREE_DEPTH && pid > 1; d++) {
		uint64_t start;
		pid_t parent;

		if (stat_of(pid, &parent, &start) < 0)
			return 0;
		for (size_t i = 0; i < TREE_MAX; i++) {
			const struct watch_tree_entry *e = &t->e[i];

			if (e->pid != pid || e->start != start || !e->nids ||
			    !bsearch(&key, e->ids, e->nids, sizeof(key), cmp_id))
				continue;
			if (ret_at)
				*ret_at = e->at;
			return pid;
		}
		pid = parent;
	}
	return 0;
}

void watch_tree_clear(struct watch_tree *t)
{
	for (size_t i = 0; i < TREE_MAX; i++)
		entry_clear(&t->e[i]);
}
