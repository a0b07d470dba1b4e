// SPDX-License-Identifier: GPL-2.0-or-later
/* The unit test runner: runs every registered suite, fails if any test failed */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define MAX_SUITES 64

static Suite *(*suites[MAX_SUITES])(void);
static int nsuites;

void unit_register(Suite *(*make)(void))
{
	if (nsuites == MAX_SUITES) {
		fprintf(stderr, "runner: too many suites\n");
		abort();
	}
	suites[nsuites++] = make;
}

char *unit_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (asprintf(&dir, "%s/ura-unit.XXXXXX", base && *base ? base : "/tmp") < 0)
		abort();
	if (!mkdtemp(dir))
		abort();
	return dir;
}

void unit_rmtree(const char *dir)
{
	char *cmd;

	if (!dir || asprintf(&cmd, "rm -rf '%s'", dir) < 0)
		return;
	if (system(cmd) != 0)
		fprintf(stderr, "runner: cannot remove %s\n", dir);
	free(cmd);
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (nsuites == 0) {
		fprintf(stderr, "runner: no suites\n");
		return 1;
	}
	sr = srunner_create(suites[0]());
	for (int i = 1; i < nsuites; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
