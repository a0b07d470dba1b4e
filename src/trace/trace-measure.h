/* SPDX-License-Identifier: GPL-2.0-or-later */
/* After a trace: measure the devices the pack's files are on, for ura-replay */
#ifndef URA_TRACE_MEASURE_H
#define URA_TRACE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#define TRACE_MEASURE_MAX	16	/* devices measured after a trace at most */

/**
 * trace_measure_devices() - keep a cost model of each of the @n devices @devs
 * @devs: major, minor: the devices of the pack just written (assemble_pack())
 * @always: measure again even where a model is kept (--probe always)
 *
 * ura-replay measures a device it has no model of, but at boot it runs before
 * the root filesystem is writable, where a model cannot be kept: the trace,
 * which writes its pack, measures then (5 to 9 s a device, once per device and
 * I/O limits; the first TRACE_MEASURE_MAX devices). Devices that cannot be read
 * (no node, not root) are skipped.
 */
void trace_measure_devices(const unsigned (*devs)[2], size_t n, bool always);

#endif
