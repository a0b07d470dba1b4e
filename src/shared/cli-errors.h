/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tools' command lines in common: the options all three have, and what they say and how
 * they exit on a bad argument and when a pack cannot be read
 */
#ifndef URA_CLI_ERRORS_H
#define URA_CLI_ERRORS_H

#include <stdio.h>

/*
 * A bad argument, said the same way by the three tools. Each prints to stderr
 *	PROG: invalid value 'ARG' for OPT: CAUSE	(cli_bad_value)
 *	PROG: MESSAGE			(cli_usage_error: a conflict, a missing pack...)
 * then, as every usage error does (cli_usage_hint alone after getopt's own message),
 *	Try 'PROG --help' for more information.
 * PROG is program_invocation_short_name. They return -EINVAL, which parse_args() returns and
 * main() turns into EXIT_USAGE (64).
 */
int cli_bad_value(const char *opt, const char *arg, const char *cause_fmt, ...)
	__attribute__((format(printf, 3, 4)));
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_usage_hint(void);

/*
 * cli_common_option() - the options every tool has, as the default case of its getopt switch:
 * -v/--verbose adds one to *@verbosity, -q/--quiet takes one, -h/--help prints @usage to
 * stdout, -V/--version prints "PROG VERSION"; anything else is an option getopt refused.
 * Return: 1 (go on), 0 (help or version printed: exit 0), -EINVAL (the hint printed).
 */
int cli_common_option(int c, int *verbosity, void (*usage)(FILE *f));

/* The cause of a failed ura_pack_open() (@r < 0), for "cannot read pack 'X': <cause>". */
const char *cli_pack_strerror(int r);

/* The exit code for it: 66 for a missing pack, 65 for a corrupt or unusable one, else 1. */
int cli_pack_exit_code(int r);

#endif
