// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the pack parser, and every accessor through the dump views */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "dump-compare.h"
#include "dump-html.h"
#include "dump-svg.h"
#include "dump-text.h"
#include "pack-internal.h"
#include "ra-advise.h"
#include "ura/pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input's checksum is made right before parsing, or almost no mutated
 * input would get past it; the checksum itself is tested by the unit tests.
 * Corpus files therefore reach the same code with and without libFuzzer.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ura_pack *p = NULL;
	struct compare *c = NULL;
	uint8_t *copy;
	FILE *null;

	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (size >= HDR_CRC + 4) {
		put_le32(copy + HDR_CRC, 0);
		put_le32(copy + HDR_CRC, crc32c(0, copy, size));
	}
	if (ura_pack_parse(copy, size, &p) == 0) {
		null = fopen("/dev/null", "we");
		if (null) {
			struct dump_hits hits = { 0 };
			struct ra_counts *per_file = NULL;
			struct devmodel model;
			struct ra_advice a;

			dump_pack(null, p, "fuzz", DUMP_TEXT, DUMP_SORT_PATH, NULL);
			if (ra_advise_hits(p, &per_file, &hits.total, &hits.window_kb) == 0)
				hits.per_file = per_file;
			dump_pack(null, p, "fuzz", DUMP_JSON, DUMP_SORT_SIZE, per_file ? &hits : NULL);
			dump_pack(null, p, "fuzz", DUMP_STATS, DUMP_SORT_ACCESS, per_file ? &hits : NULL);
			free(per_file);
			/* the advisor: every window, with the emulation's decisions logged */
			dev_model_from_costs(&model, 500000, 20000000, false, DEVMODEL_OPTIONS);
			if (ra_advise(p, &model, null, &a) == 0)
				ra_advise_free(&a);
			dump_svg(null, p, "fuzz", 2);
			dump_svg(null, p, "fuzz", 0);
			dump_html(null, p, "fuzz", 1);
			if (compare_new(p, p, &c) == 0) {	/* a pack against itself */
				compare_print(null, c, "a", "b", false);
				compare_print(null, c, "a", "b", true);
				dump_html_compare(null, c, "a", "b");
				compare_free(c);
			}
			fclose(null);
		}
		ura_pack_free(p);
	}
	free(copy);
	return 0;
}
