/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-trace --merge: read the input packs, merge them, write the output pack */
#ifndef URA_TRACE_MERGE_H
#define URA_TRACE_MERGE_H

#include "cli-trace.h"
#include "merge.h"

/**
 * trace_merge() - merge the packs of @o->argv into @o->pack
 * @stats: filled on success
 *
 * Every input is read before the output is written (atomically), so the output
 * may be one of the inputs. Errors are logged, naming the file.
 * Return: 0, or the exit code of ura-trace (> 0).
 */
int trace_merge(const struct trace_options *o, struct merge_stats *stats);

#endif
