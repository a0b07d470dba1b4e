/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay --watch: how long a program whose data was found resident is left alone */
#ifndef URA_WATCH_HOLD_H
#define URA_WATCH_HOLD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A program whose pack's data a check found resident is not looked at again
 * for WATCH_HOLD_MIN_NS whatever happens, and then for as long as the kernel
 * has reclaimed no page-cache page (sys-reclaim.h: reclaim, a cgroup's limit,
 * drop_caches), up to WATCH_HOLD_MAX_NS: eviction by POSIX_FADV_DONTNEED or
 * truncation leaves no count: such a page is seen missing by the next check
 * after the hold, or by a probe of the held packs (watch-decide.c), which
 * reaches each within 16 s. The end of a hold removes every mark, and each
 * program held is checked again at its next start: at 30 s, a machine running
 * 100 distinct programs in turn checked a third of them at every round
 * (bench/learn-cpu.sh). The maximum bounds what a probe's one page can miss.
 */
#define WATCH_HOLD_MIN_NS	1000000000ull
#define WATCH_HOLD_MAX_NS	120000000000ull
/* the count is read again when it is older than this, when a decision needs it */
#define WATCH_HOLD_LOOK_NS	10000000ull

struct watch_hold {
	uint64_t count;		/* the reclaim count at the last look */
	uint64_t looked_ns;	/* when its read began (monotonic), 0: never */
	uint64_t moved_ns;	/* the look that saw it move: nothing resident before is believed */
	bool blind;		/* the count cannot be read: WATCH_HOLD_MIN_NS only */
};

/**
 * watch_hold_note() - a reading of the reclaim count, taken between @before and @after
 * @r: 0, or the -errno of the read (@count ignored)
 *
 * What it shows held at @before (resident since then, and no reclaim), and a
 * count that moved may have moved as late as @after.
 */
void watch_hold_note(struct watch_hold *h, uint64_t before, uint64_t after, int r,
		     uint64_t count);

/**
 * watch_hold_look() - watch_hold_note() of the count now, unless read in the last
 * WATCH_HOLD_LOOK_NS
 */
void watch_hold_look(struct watch_hold *h, uint64_t now);

/**
 * watch_hold_holds() - is data found resident at @resident_ns (0: never) still
 * taken for resident at @now?
 *
 * Yes for WATCH_HOLD_MIN_NS; after that, only up to WATCH_HOLD_MAX_NS, when the
 * count was read since @resident_ns and has not moved since (the last reading
 * counts: watch_hold_look() first).
 */
bool watch_hold_holds(const struct watch_hold *h, uint64_t resident_ns, uint64_t now);

#endif
