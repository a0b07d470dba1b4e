// SPDX-License-Identifier: GPL-2.0-or-later
/* Tool logging: "prog: message" on stderr, filtered by -v/-q */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "util-log.h"

static int log_level = LOG_LVL_INFO;

void log_set_level(int level)
{
	log_level = level < LOG_LVL_ERR ? LOG_LVL_ERR : level > LOG_LVL_DEBUG ? LOG_LVL_DEBUG : level;
}

int log_get_level(void)
{
	return log_level;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	int saved = errno;
	va_list ap;

	if ((int)level > log_level || level < LOG_LVL_ERR)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: %s", program_invocation_short_name, prefix[level]);
	vfprintf(stderr, fmt, ap); /* NOLINT(clang-analyzer-valist.Uninitialized): clang 14 false positive */
	fputc('\n', stderr);
	va_end(ap);
	errno = saved;
}
