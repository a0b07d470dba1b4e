/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay's end-of-run report: one line of text, or one JSON object */
#ifndef URA_REPLAY_REPORT_H
#define URA_REPLAY_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "replay.h"

/**
 * replay_report() - print the end-of-run report
 * @f: where to
 * @s: the stats
 * @json: one JSON object instead of one line of text
 */
void replay_report(FILE *f, const struct replay_stats *s, bool json);

#endif
