/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How much the replay may still read: --max-bytes and the MemAvailable floor */
#ifndef URA_REPLAY_BUDGET_H
#define URA_REPLAY_BUDGET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct replay_budget {
	uint64_t max_bytes;		/* 0: no limit */
	uint64_t mem_floor;		/* stop before MemAvailable falls below */
	uint64_t reserved;		/* bytes granted so far */
	uint64_t since_check;		/* granted since MemAvailable was last read */
	bool stop;			/* atomic: a limit was reached, read nothing more */
	bool memory_limited;		/* stopped at the MemAvailable floor */
	bool max_bytes_reached;
	bool ready;			/* initialised: replay_budget_free() has work */
	pthread_mutex_t lock;
};

/**
 * replay_mem_available() - MemAvailable in bytes, UINT64_MAX when unknown
 * @ret_total: if not NULL, MemTotal in bytes (0 when unknown)
 */
uint64_t replay_mem_available(uint64_t *ret_total);

/** replay_budget_init() - a budget of @max_bytes (0: none) that keeps MemAvailable above @mem_floor */
void replay_budget_init(struct replay_budget *b, uint64_t max_bytes, uint64_t mem_floor);

/** replay_budget_free() - accepts a zeroed @b too */
void replay_budget_free(struct replay_budget *b);

/**
 * replay_budget_grant() - may @len more bytes be read?
 *
 * No once --max-bytes would be passed or MemAvailable (read again after every
 * 8 MiB granted) is below the floor plus @len: then the budget is stopped for
 * good (replay_budget_stopped()) and says why in its flags.
 */
bool replay_budget_grant(struct replay_budget *b, uint64_t len);

/** replay_budget_stopped() - has a limit been reached? */
bool replay_budget_stopped(const struct replay_budget *b);

#endif
