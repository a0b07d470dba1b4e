// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: the replays of a process tree (watch-tree.h). A small
 * table of the processes replayed for lately, looked at by walking an exec's
 * ancestors only while one of them may still cover it.
 */
#include <stdbool.h>
#include <sys/sysmacros.h>

#include <ura/pack.h>

#include "watch-packs.h"
#include "watch-tree.h"

static void entry_clear(struct watch_tree_entry *e)
{
	watch_pack_put(e->pack);
	*e = (struct watch_tree_entry){ 0 };
}

void watch_tree_note(struct watch_tree *t, pid_t pid, struct watch_pack *p, uint64_t now)
{
	struct watch_tree_entry *slot = NULL;
	struct ura_pack_info info;
	uint64_t span = TREE_SPAN_MIN_NS;

	if (p->pack) {
		ura_pack_get_info(p->pack, &info);
		span = info.duration_ns < TREE_SPAN_MIN_NS ? TREE_SPAN_MIN_NS :
		       info.duration_ns > TREE_SPAN_MAX_NS ? TREE_SPAN_MAX_NS : info.duration_ns;
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
	*slot = (struct watch_tree_entry){ .pid = pid, .at = now, .until = now + span, .pack = p };
}

/* Does @pack hold demanded pages of the file @dev:@ino (as recorded when it was made)? */
static bool holds_file(const struct ura_pack *pack, dev_t dev, ino_t ino)
{
	size_t nf = ura_pack_file_count(pack), nr = ura_pack_range_count(pack);

	for (size_t i = 0; i < nf; i++) {
		struct ura_pack_file f;
		struct ura_pack_fs fs;

		if (ura_pack_get_file(pack, i, &f) < 0 || f.ino != (uint64_t)ino ||
		    ura_pack_get_fs(pack, f.fs_index, &fs) < 0 || makedev(fs.major, fs.minor) != dev)
			continue;
		for (size_t k = 0; k < nr; k++) {
			struct ura_pack_range r;

			if (ura_pack_get_range(pack, k, &r) == 0 && r.file_index == i &&
			    (r.flags & URA_PACK_RANGE_DEMANDED))
				return true;
		}
	}
	return false;
}

pid_t watch_tree_covered(struct watch_tree *t, pid_t pid, dev_t dev, ino_t ino, uint64_t now,
			 pid_t (*parent_of)(pid_t), uint64_t *ret_at)
{
	bool any = false;

	for (size_t i = 0; i < TREE_MAX; i++) {
		if (t->e[i].pid && now >= t->e[i].until)
			entry_clear(&t->e[i]);	/* its pack let go: not kept for days */
		any |= t->e[i].pid != 0;
	}
	for (int d = 0; any && d < TREE_DEPTH && pid > 1; d++, pid = parent_of(pid)) {
		for (size_t i = 0; i < TREE_MAX; i++) {
			const struct watch_tree_entry *e = &t->e[i];

			if (e->pid != pid || now >= e->until || !e->pack->pack ||
			    !holds_file(e->pack->pack, dev, ino))
				continue;
			if (ret_at)
				*ret_at = e->at;
			return pid;
		}
	}
	return 0;
}

void watch_tree_clear(struct watch_tree *t)
{
	for (size_t i = 0; i < TREE_MAX; i++)
		entry_clear(&t->e[i]);
}
