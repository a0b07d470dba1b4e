// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ura-replay --watch: a program whose data is resident costs a check at each
 * start (its pack's files opened, pages sampled), which on a machine that runs
 * many programs is most of the daemon's CPU. What was resident stays resident
 * until the kernel takes pages out of the cache, and /proc/vmstat counts that:
 * the hold lasts while the count stands still.
 */
#include "sys-reclaim.h"
#include "util.h"
#include "watch-hold.h"

void watch_hold_note(struct watch_hold *h, uint64_t before, uint64_t after, int r,
		     uint64_t count)
{
	if (r < 0) {
		h->blind = true;
		h->moved_ns = after;
	} else {
		/* the first reading is a baseline: nothing found before it is believed */
		if (!h->looked_ns || count != h->count)
			h->moved_ns = after;
		h->blind = false;
		h->count = count;
	}
	h->looked_ns = before;
}

void watch_hold_look(struct watch_hold *h, uint64_t now)
{
	uint64_t count = 0;
	int r;

	if (h->looked_ns && now - h->looked_ns < WATCH_HOLD_LOOK_NS)
		return;
	r = reclaim_count(&count);
	watch_hold_note(h, now, now_monotonic_ns(), r, count);
}

bool watch_hold_holds(const struct watch_hold *h, uint64_t resident_ns, uint64_t now)
{
	if (!resident_ns || now < resident_ns)
		return false;
	if (now - resident_ns < WATCH_HOLD_MIN_NS)
		return true;
	/* believed when a look before the check and one after it saw the same count */
	return !h->blind && now - resident_ns < WATCH_HOLD_MAX_NS && h->looked_ns &&
	       h->moved_ns < resident_ns && h->looked_ns > resident_ns;
}
