/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Exit codes of the ura tools (sysexits.h values), repeated in every man page */
#ifndef URA_CLI_EXIT_CODES_H
#define URA_CLI_EXIT_CODES_H

#define EXIT_OK			0
#define EXIT_FAIL		1	/* any other failure */
#define EXIT_USAGE		64	/* EX_USAGE: bad option or argument */
#define EXIT_DATAERR		65	/* EX_DATAERR: corrupt pack */
#define EXIT_NOINPUT		66	/* EX_NOINPUT: pack (or input) missing */
#define EXIT_UNAVAILABLE	69	/* EX_UNAVAILABLE: no tracefs or a needed event */
#define EXIT_NOPERM		77	/* EX_NOPERM: needs root */

#endif
