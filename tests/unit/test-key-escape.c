// SPDX-License-Identifier: GPL-2.0-or-later
/* systemd's path escaping: fixed vectors, and the same answers as systemd-escape --path itself */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key-escape.h"
#include "unit.h"

static const struct {
	const char *in, *out;
} vectors[] = {
	{ "/usr/bin/python3.11", "usr-bin-python3.11" },
	{ "/opt/my-app/bin/x y", "opt-my\\x2dapp-bin-x\\x20y" },
	{ "/a/.hidden", "a-.hidden" },
	{ "/a//b/", "a-b" },
	{ "/\xc3\xa4", "\\xc3\\xa4" },
	{ "/a\\b", "a\\x5cb" },
	{ "/x:y_z", "x:y_z" },
	{ "/.x", "\\x2ex" },
	{ "/", "-" },
	{ "//", "-" },
	{ "", "-" },
	{ "/a/./b", "a-b" },
	{ "/-", "\\x2d" },
	{ "/a~b+c@d", "a\\x7eb\\x2bc\\x40d" },
	{ "/a%b", "a\\x25b" },
	{ "relative/path", "relative-path" },
	{ "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
	  "usr-lib-x86_64\\x2dlinux\\x2dgnu-ld\\x2dlinux\\x2dx86\\x2d64.so.2" },
	{ "/tmp/\x01\x7f\xff", "tmp-\\x01\\x7f\\xff" },
};

START_TEST(test_vectors)
{
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		char *s = NULL;

		ck_assert_int_eq(key_escape_path(vectors[i].in, &s), 0);
		ck_assert_str_eq(s, vectors[i].out);
		free(s);
	}
}
END_TEST

START_TEST(test_not_normalized)
{
	char *s = NULL;

	ck_assert_int_eq(key_escape_path("/a/../b", &s), -EINVAL);
	ck_assert_int_eq(key_escape_path("..", &s), -EINVAL);
	ck_assert_ptr_null(s);		/* *ret untouched on failure */
	ck_assert_int_eq(key_escape_path("/a/..b", &s), 0);	/* a name, not ".." */
	ck_assert_str_eq(s, "a-..b");
	free(s);
}
END_TEST

/* The same answer as systemd-escape --path, for each vector but the non-UTF-8 one (which
 * systemd-escape may refuse) and every printable ASCII character. */
START_TEST(test_systemd_escape)
{
	char path[64], cmd[512], want[256];
	FILE *p;

	if (system("systemd-escape --path /x >/dev/null 2>&1") != 0)
		return;		/* no systemd-escape here: the vectors above stand in */
	for (int c = 0x20; c < 0x7f; c++) {
		char *s = NULL;

		if (c == '\'' || c == '/')
			continue;
		snprintf(path, sizeof(path), "/d/%cx%c", c, c);
		snprintf(cmd, sizeof(cmd), "systemd-escape --path -- '%s'", path);
		p = popen(cmd, "r");
		ck_assert_ptr_nonnull(p);
		ck_assert_ptr_nonnull(fgets(want, sizeof(want), p));
		pclose(p);
		want[strcspn(want, "\n")] = '\0';
		ck_assert_int_eq(key_escape_path(path, &s), 0);
		ck_assert_msg(strcmp(s, want) == 0, "'%s': '%s', systemd-escape says '%s'", path, s,
			      want);
		free(s);
	}
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		char *s = NULL;

		if (strchr(vectors[i].in, '\'') || strchr(vectors[i].in, '\xff') || !*vectors[i].in)
			continue;
		snprintf(cmd, sizeof(cmd), "systemd-escape --path -- '%s' 2>/dev/null", vectors[i].in);
		p = popen(cmd, "r");
		ck_assert_ptr_nonnull(p);
		ck_assert_ptr_nonnull(fgets(want, sizeof(want), p));
		pclose(p);
		want[strcspn(want, "\n")] = '\0';
		ck_assert_int_eq(key_escape_path(vectors[i].in, &s), 0);
		ck_assert_str_eq(s, want);
		free(s);
	}
}
END_TEST

static Suite *pathescape_suite(void)
{
	Suite *s = suite_create("pathescape");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_vectors);
	tcase_add_test(tc, test_not_normalized);
	tcase_add_test(tc, test_systemd_escape);
	/* 110 runs of systemd-escape: more than the default 4 s under ASan beside the root tests */
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(pathescape_suite)
