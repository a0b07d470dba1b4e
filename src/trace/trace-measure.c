// SPDX-License-Identifier: GPL-2.0-or-later
/* After a trace: measure the devices the pack's files are on, for ura-replay */
#include <errno.h>
#include <string.h>

#include "dev-cache.h"
#include "util-log.h"
#include "trace-measure.h"

void trace_measure_devices(const unsigned (*devs)[2], size_t n, bool always)
{
	for (size_t i = 0; i < n && i < TRACE_MEASURE_MAX; i++) {
		unsigned major = devs[i][0], minor = devs[i][1];
		struct devmodel m;
		int r;

		r = dev_cache_get(major, minor, always ? DEVCACHE_MEASURE : DEVCACHE_AUTO, &m);
		if (r == -EROFS)
			log_info("'%s' is read-only: not measuring device %u:%u", dev_cache_dir(),
				 major, minor);
		else if (r < 0 && r != -ENOENT)
			log_debug("cannot measure device %u:%u: %s, skipping", major, minor,
				  strerror(-r));
	}
}
