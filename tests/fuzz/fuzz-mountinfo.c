// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: mountinfo_parse() and the lookups on what it returns */
#include <stddef.h>
#include <stdint.h>

#include "sys-mountinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mount_table t = { 0 };

	if (mountinfo_parse((const char *)data, size, &t) < 0)
		return 0;
	/* Look up every device listed, and one that is not, and classify each type */
	for (size_t i = 0; i < t.count; i++) {
		const struct mount_entry *e = mountinfo_find_dev(&t, t.entries[i].major,
								 t.entries[i].minor);

		if (!e || e->major != t.entries[i].major || e->minor != t.entries[i].minor)
			__builtin_trap();
		(void)mountinfo_is_pseudo_fs(t.entries[i].fstype);
	}
	(void)mountinfo_find_dev(&t, 4095, 1048575);
	mountinfo_free(&t);
	return 0;
}
