// SPDX-License-Identifier: GPL-2.0-or-later
/* What the tools say, and how they exit, on a bad argument and when a pack cannot be read */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli-exit-codes.h"
#include "cli-errors.h"
#include "ura/pack.h"

int cli_usage_hint(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", program_invocation_short_name);
	return -EINVAL;
}

int cli_common_option(int c, int *verbosity, void (*usage)(FILE *f))
{
	switch (c) {
	case 'v':
		(*verbosity)++;
		return 1;
	case 'q':
		(*verbosity)--;
		return 1;
	case 'h':
		usage(stdout);
		return 0;
	case 'V':
		printf("%s %s\n", program_invocation_short_name, URA_VERSION);
		return 0;
	default:
		return cli_usage_hint();	/* getopt has named the bad option */
	}
}

int cli_bad_value(const char *opt, const char *arg, const char *cause_fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: invalid value '%s' for %s: ", program_invocation_short_name, arg, opt);
	va_start(ap, cause_fmt);
	vfprintf(stderr, cause_fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): clang 14 false positive */
	va_end(ap);
	fputc('\n', stderr);
	return cli_usage_hint();
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): clang 14 false positive */
	va_end(ap);
	fputc('\n', stderr);
	return cli_usage_hint();
}

const char *cli_pack_strerror(int r)
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

int cli_pack_exit_code(int r)
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
