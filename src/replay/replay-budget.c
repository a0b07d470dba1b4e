// SPDX-License-Identifier: GPL-2.0-or-later
/* How much the replay may still read: --max-bytes and the MemAvailable floor */
#include <inttypes.h>
#include <stdio.h>

#include "util-log.h"
#include "replay-budget.h"

#define MEM_CHECK_BYTES		(8ull << 20)	/* read MemAvailable after this much was granted */

uint64_t replay_mem_available(uint64_t *ret_total)
{
	char line[128];
	uint64_t avail = UINT64_MAX, total = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long kb;

		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			total = kb << 10;
		else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			avail = kb << 10;
	}
	fclose(f);
	if (ret_total)
		*ret_total = total;
	return avail;
}

void replay_budget_init(struct replay_budget *b, uint64_t max_bytes, uint64_t mem_floor)
{
	*b = (struct replay_budget){ .max_bytes = max_bytes, .mem_floor = mem_floor, .ready = true };
	pthread_mutex_init(&b->lock, NULL);
}

void replay_budget_free(struct replay_budget *b)
{
	if (b->ready)
		pthread_mutex_destroy(&b->lock);
	b->ready = false;
}

bool replay_budget_grant(struct replay_budget *b, uint64_t len)
{
	bool ok = true;

	pthread_mutex_lock(&b->lock);
	if (b->stop) {
		ok = false;
	} else if (b->max_bytes && b->reserved + len > b->max_bytes) {
		b->max_bytes_reached = true;
		ok = false;
	} else {
		b->since_check += len;
		if (b->since_check >= MEM_CHECK_BYTES || b->reserved == 0) {
			uint64_t avail = replay_mem_available(NULL);

			b->since_check = 0;
			if (avail < b->mem_floor + len) {
				b->memory_limited = true;
				log_info("MemAvailable down to %" PRIu64 " MiB, stopping",
					 avail >> 20);
				ok = false;
			}
		}
	}
	if (ok)
		b->reserved += len;
	else
		__atomic_store_n(&b->stop, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&b->lock);
	return ok;
}

bool replay_budget_stopped(const struct replay_budget *b)
{
	return __atomic_load_n(&b->stop, __ATOMIC_ACQUIRE);
}
