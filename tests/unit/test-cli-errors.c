// SPDX-License-Identifier: GPL-2.0-or-later
/* How the tools report a bad argument: the message, the hint, the return value */
#include <errno.h>

#include "cli-errors.h"
#include "unit.h"

START_TEST(test_bad_value)
{
	unit_stderr_begin();
	ck_assert_int_eq(cli_bad_value("--jobs", "0", "expected 1 to %d", 64), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "invalid value '0' for --jobs: expected 1 to 64");

	unit_stderr_begin();
	ck_assert_int_eq(cli_bad_value("--pack", "", "expected a file name"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "invalid value '' for --pack: expected a file name");
}
END_TEST

START_TEST(test_usage_error)
{
	unit_stderr_begin();
	ck_assert_int_eq(cli_usage_error("--%s and --%s exclude each other", "a", "b"), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), "--a and --b exclude each other");
}
END_TEST

START_TEST(test_hint)
{
	unit_stderr_begin();
	ck_assert_int_eq(cli_usage_hint(), -EINVAL);
	unit_assert_usage_said(unit_stderr_end(), NULL);
}
END_TEST

static Suite *cli_errors_suite(void)
{
	Suite *s = suite_create("cli-errors");
	TCase *tc = tcase_create("usage");

	tcase_add_test(tc, test_bad_value);
	tcase_add_test(tc, test_usage_error);
	tcase_add_test(tc, test_hint);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(cli_errors_suite)
