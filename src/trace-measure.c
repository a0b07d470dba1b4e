// SPDX-License-Identifier: GPL-2.0-or-later
/* After a trace: measure the devices the pack's files are on, for ura-replay */
#include <errno.h>
#include <string.h>

#include <ura/pack.h>

#include "dev-cache.h"
#include "util-log.h"
#include "trace-measure.h"

void trace_measure_devices(const char *path, bool always)
{
	struct ura_pack *pack = NULL;
	unsigned done[16][2];
	size_t ndone = 0;
	int r;

	r = ura_pack_open(path, &pack);
	if (r < 0)
		return;		/* just written: nothing to say here */
	for (size_t i = 0; i < ura_pack_fs_count(pack) && ndone < 16; i++) {
		struct ura_pack_fs fs;
		struct devmodel m;
		bool seen = false;

		if (ura_pack_get_fs(pack, i, &fs) < 0 || (!fs.major && !fs.minor))
			continue;
		for (size_t k = 0; k < ndone; k++)
			seen |= done[k][0] == fs.major && done[k][1] == fs.minor;
		if (seen)
			continue;
		done[ndone][0] = fs.major;
		done[ndone++][1] = fs.minor;
		r = devcache_get(fs.major, fs.minor, always ? DEVCACHE_MEASURE : DEVCACHE_AUTO, &m);
		if (r == -EROFS)
			log_info("'%s' is read-only: not measuring device %u:%u", devcache_dir(),
				 fs.major, fs.minor);
		else if (r < 0 && r != -ENOENT)
			log_debug("cannot measure device %u:%u: %s, skipping", fs.major, fs.minor,
				  strerror(-r));
	}
	ura_pack_free(pack);
}
