// SPDX-License-Identifier: GPL-2.0-or-later
/* What the tools say, and how they exit, when a pack cannot be read */
#include <errno.h>
#include <string.h>

#include "cli-exit-codes.h"
#include "cli-errors.h"
#include "ura/pack.h"

const char *pack_strerror(int r)
{
	switch (r) {
	case -EBADMSG:
	case -EOPNOTSUPP:
		return ura_pack_error();	/* what exactly is wrong with it */
	case -EINVAL:
		return "not a regular file";
	case -EFBIG:
		return "larger than any pack";
	default:
		return strerror(-r);
	}
}

int pack_exit_code(int r)
{
	switch (r) {
	case -ENOENT:
		return EXIT_NOINPUT;
	case -EBADMSG:
	case -EOPNOTSUPP:
	case -EFBIG:
	case -EINVAL:
	case -EISDIR:
		return EXIT_DATAERR;
	default:
		return EXIT_FAIL;
	}
}
