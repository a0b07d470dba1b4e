// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-dump: show what a pack holds */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-dump.h"
#include "dump.h"
#include "exit-codes.h"
#include "log.h"
#include "pack-errors.h"

int main(int argc, char *argv[])
{
	struct dump_options o;
	struct ura_pack *pack = NULL;
	int r;

	r = dump_parse_args(argc, argv, &o);
	if (r <= 0)
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	log_set_level(LOG_LVL_INFO + o.verbosity);

	r = ura_pack_open(o.pack, &pack);
	if (r < 0) {
		log_err("cannot read pack '%s': %s", o.pack, pack_strerror(r));
		return pack_exit_code(r);
	}
	r = dump_pack(stdout, pack, o.pack, o.format, o.sort);
	ura_pack_free(pack);
	if (r < 0) {
		log_err("cannot write output: %s", strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
