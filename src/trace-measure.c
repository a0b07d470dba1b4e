// SPDX-License-Identifier: GPL-2.0-or-later
/* After a trace: measure the devices the pack's files are on, for ura-replay */
#include <errno.h>
#include <string.h>

#include <ura/pack.h>

#include "devcache.h"
#include "log.h"
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
		char key[2048];
		bool seen = false;
		int kept = 0;

		if (ura_pack_get_fs(pack, i, &fs) < 0 || (!fs.major && !fs.minor))
			continue;
		for (size_t k = 0; k < ndone; k++)
			seen |= done[k][0] == fs.major && done[k][1] == fs.minor;
		if (seen)
			continue;
		done[ndone][0] = fs.major;
		done[ndone++][1] = fs.minor;
		if (devcache_key(fs.major, fs.minor, key, sizeof(key)) < 0)
			continue;	/* no such block device (tmpfs, btrfs' anonymous one) */
		if (!always && devcache_load(devcache_dir(), key, &m) == 0)
			continue;
		if (!devcache_writable(devcache_dir())) {
			log_info("'%s' is read-only: not measuring device %u:%u", devcache_dir(),
				 fs.major, fs.minor);
			continue;
		}
		log_info("measuring device %u:%u for ura-replay, once (kept in '%s')", fs.major,
			 fs.minor, devcache_dir());
		r = devcache_measure(fs.major, fs.minor, key, &m, &kept);
		if (r < 0)
			log_debug("cannot measure device %u:%u: %s, skipping", fs.major, fs.minor,
				  strerror(-r));
		else if (kept < 0)
			log_warn("cannot keep the model of device %u:%u in '%s': %s, skipping",
				 fs.major, fs.minor, devcache_dir(), strerror(-kept));
	}
	ura_pack_free(pack);
}
