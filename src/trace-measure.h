/* SPDX-License-Identifier: GPL-2.0-or-later */
/* After a trace: measure the devices the pack's files are on, for ura-replay */
#ifndef URA_TRACE_MEASURE_H
#define URA_TRACE_MEASURE_H

#include <stdbool.h>

/**
 * trace_measure_devices() - keep a cost model of every device of the pack at @path
 * @always: measure again even where a model is kept (--probe always)
 *
 * ura-replay measures a device it has no model of, but at boot it runs before
 * the root filesystem is writable, where a model cannot be kept: the trace,
 * which writes its pack, measures then (5 to 9 s a device, once per device and
 * I/O limits). Devices that cannot be read (no node, not root) are skipped.
 */
void trace_measure_devices(const char *path, bool always);

#endif
