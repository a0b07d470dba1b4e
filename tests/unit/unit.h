/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests: each tests/unit/test-<module>.c registers its Check suite with UNIT_SUITE() */
#ifndef URA_UNIT_H
#define URA_UNIT_H

#include <check.h>

void unit_register(Suite *(*make)(void));

/* Registers @fn (a function returning a Suite *) with the runner at start-up. */
#define UNIT_SUITE(fn)								\
	static void __attribute__((constructor)) register_##fn(void)		\
	{									\
		unit_register(fn);						\
	}

/*
 * Usage errors print to stderr, help to stdout: unit_quiet() sends both to /dev/null, and
 * unit_loud() (a checked teardown of the test case) brings them back, so that the runner's
 * report is seen when tests run in one process (CK_FORK=no, as under valgrind).
 */
void unit_quiet(void);
void unit_loud(void);

/* What the code between the two calls writes to stderr, as a malloc()ed string. */
void unit_stderr_begin(void);
char *unit_stderr_end(void);

/*
 * Assert that @said (freed) is a usage error as the tools give it: "PROG: @line", then
 * "Try 'PROG --help' for more information."; with @line NULL, the hint alone.
 */
void unit_assert_usage_said(char *said, const char *line);

/* A fresh temporary directory for a test; removed with unit_rmtree(). */
char *unit_mkdtemp(void);
void unit_rmtree(const char *dir);

#endif
