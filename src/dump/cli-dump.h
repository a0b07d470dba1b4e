/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-dump's command line */
#ifndef URA_CLI_DUMP_H
#define URA_CLI_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dump-text.h"
#include "ra-advise.h"

struct dump_options {
	const char *pack;
	const char *pack_b;	/* --compare: the pack compared with @pack */
	enum dump_format format;
	enum dump_sort sort;
	const char *svg;	/* --svg OUT: the picture ("-": standard output), or NULL */
	const char *html;	/* --html OUT: the page, or NULL */
	size_t rows;		/* --rows: file rows drawn at most, 0 every file */
	bool compare;
	int verbosity;		/* -v adds one, -q subtracts one */
	bool ra_advise;		/* --ra-advise */
	struct ra_model_opts model;	/* --device, --request-us, --mbps */
	const char *ra_log;	/* --ra-log FILE: the emulated decisions at the trace's window */
};

void dump_usage(FILE *f);

/* Return: 1 run, 0 exit successfully (help or version printed), -EINVAL usage error (reported). */
int dump_parse_args(int argc, char *argv[], struct dump_options *o);

#endif
