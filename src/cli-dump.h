/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-dump's command line */
#ifndef URA_CLI_DUMP_H
#define URA_CLI_DUMP_H

#include <stdio.h>

#include "dump.h"

struct dump_options {
	const char *pack;
	enum dump_format format;
	enum dump_sort sort;
	int verbosity;		/* -v adds one, -q subtracts one */
};

void dump_usage(FILE *f);

/* Return: 1 run, 0 exit successfully (help or version printed), -EINVAL usage error (reported). */
int dump_parse_args(int argc, char *argv[], struct dump_options *o);

#endif
