/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the tools say, and how they exit, when a pack cannot be read */
#ifndef URA_PACK_ERRORS_H
#define URA_PACK_ERRORS_H

/* The cause of a failed ura_pack_open() (@r < 0), for "cannot read pack 'X': <cause>". */
const char *pack_strerror(int r);

/* The exit code for it: 66 for a missing pack, 65 for a corrupt or unusable one, else 1. */
int pack_exit_code(int r);

#endif
