// SPDX-License-Identifier: GPL-2.0-or-later
/* The unit test runner: runs every registered suite, fails if any test failed */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int saved_stderr = -1;
static FILE *captured;

static int quiet_out = -1, quiet_err = -1;	/* stdout and stderr while quiet */

void unit_quiet(void)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	fflush(stdout);
	fflush(stderr);
	if (quiet_out < 0) {
		quiet_out = dup(STDOUT_FILENO);
		quiet_err = dup(STDERR_FILENO);
	}
	if (null < 0 || quiet_out < 0 || quiet_err < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(null, STDERR_FILENO) < 0)
		abort();
	close(null);
}

void unit_loud(void)
{
	if (quiet_out < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	dup2(quiet_out, STDOUT_FILENO);
	dup2(quiet_err, STDERR_FILENO);
	close(quiet_out);
	close(quiet_err);
	quiet_out = quiet_err = -1;
}

void unit_stderr_begin(void)
{
	fflush(stderr);
	captured = tmpfile();
	saved_stderr = dup(STDERR_FILENO);
	if (!captured || saved_stderr < 0 || dup2(fileno(captured), STDERR_FILENO) < 0)
		abort();
}

char *unit_stderr_end(void)
{
	off_t n;
	char *s;

	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	saved_stderr = -1;
	n = lseek(fileno(captured), 0, SEEK_END);	/* fd 2 wrote through the same offset */
	s = malloc(n > 0 ? (size_t)n + 1 : 1);
	if (!s || (n > 0 && pread(fileno(captured), s, (size_t)n, 0) != n))
		abort();
	s[n > 0 ? n : 0] = '\0';
	fclose(captured);
	captured = NULL;
	return s;
}

void unit_assert_usage_said(char *said, const char *line)
{
	const char *prog = program_invocation_short_name;
	char want[1024];

	if (line)
		snprintf(want, sizeof(want), "%s: %s\nTry '%s --help' for more information.\n",
			 prog, line, prog);
	else
		snprintf(want, sizeof(want), "Try '%s --help' for more information.\n", prog);
	ck_assert_str_eq(said, want);
	free(said);
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
