/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-replay's command line */
#ifndef URA_CLI_REPLAY_H
#define URA_CLI_REPLAY_H

#include <stdio.h>

#include "replay-options.h"

/** replay_usage() - print --help to @f */
void replay_usage(FILE *f);

/**
 * replay_parse_args() - parse ura-replay's command line into @o
 *
 * Return: 1 run, 0 exit successfully (help or version printed), -EINVAL usage
 * error (already reported, with the "Try ... --help" line).
 */
int replay_parse_args(int argc, char *argv[], struct replay_options *o);

#endif
