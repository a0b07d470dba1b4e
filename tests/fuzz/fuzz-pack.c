// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the pack parser, and every accessor through the dump views */
#include <stdio.h>

#include "dump.h"
#include "ura/pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ura_pack *p = NULL;
	FILE *null;

	if (ura_pack_parse(data, size, &p) < 0)
		return 0;
	null = fopen("/dev/null", "we");
	if (null) {
		dump_pack(null, p, "fuzz", DUMP_TEXT, DUMP_SORT_PATH);
		dump_pack(null, p, "fuzz", DUMP_JSON, DUMP_SORT_SIZE);
		dump_pack(null, p, "fuzz", DUMP_STATS, DUMP_SORT_ACCESS);
		fclose(null);
	}
	ura_pack_free(p);
	return 0;
}
