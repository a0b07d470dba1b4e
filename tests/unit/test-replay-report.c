// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay's report: the JSON object and the line of text, every field */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "dev-model.h"
#include "replay-report.h"
#include "unit.h"

/* A replay with every field set: two causes of errors, two devices. */
static const struct replay_stats stats = {
	.pack_bytes = 10485760, .resident_bytes = 1048576, .issued_bytes = 8388608,
	.skipped_bytes = 1044480, .past_eof_bytes = 4096, .unresident_bytes = 8192,
	.requests = 17, .files = 9, .stale_files = 1, .missing_files = 2, .refused_files = 3,
	.file_bytes = 9437184, .changed_bytes = 1040384,
	.errors = 4, .causes = { { EACCES, 3 }, { EIO, 1 } }, .ncauses = 2,
	.devs = {
		{ .major = 254, .minor = 0, .source = DEVMODEL_SYSFS, .request_ns = 8032649,
		  .bandwidth = 123969576, .rotational = true, .plan_requests = 15,
		  .plan_bytes = 8388608, .plan_ns = 190250000, .cold_requests = 30 },
		{ .major = 8, .minor = 1, .source = DEVMODEL_CACHE, .request_ns = 100,
		  .bandwidth = 2000000000, .plan_requests = 2, .plan_bytes = 4096, .plan_ns = 2500 },
	},
	.ndevs = 2, .plan_ns = 190252500, .memory_limited = true, .ns = 1500000000,
	.others_bytes = 3145728, .queued_mean_ns = 25000000,
};

static char *report(const struct replay_stats *s, bool json)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	replay_report(f, s, json);
	fclose(f);
	return buf;
}

START_TEST(test_json)
{
	char *out = report(&stats, true);

	ck_assert_str_eq(out,
		"{\"pack_bytes\":10485760,\"resident_bytes\":1048576,\"issued_bytes\":8388608,"
		"\"skipped_bytes\":1044480,\"past_eof_bytes\":4096,\"unresident_bytes\":8192,"
		"\"requests\":17,\"files\":9,\"stale_files\":1,\"written_files\":0,\"missing_files\":2,"
		"\"refused_files\":3,\"file_bytes\":9437184,\"changed_bytes\":1040384,\"written_bytes\":0,"
		"\"errors\":4,\"memory_limited\":true,"
		"\"max_bytes_reached\":false,\"seconds\":1.500,\"mib_per_second\":5.3,"
		"\"plan_seconds\":0.190,\"others_bytes\":3145728,"
		"\"queued_ms\":25.0,\"failures\":[{\"error\":\"Permission denied\",\"count\":3},"
		"{\"error\":\"Input/output error\",\"count\":1}],\"devices\":["
		"{\"device\":\"254:0\",\"model\":\"sysfs\",\"request_us\":8032.6,"
		"\"bandwidth\":123969576,\"rotational\":true,\"requests\":15,\"bytes\":8388608,"
		"\"plan_seconds\":0.190,\"cold_requests\":30},"
		"{\"device\":\"8:1\",\"model\":\"cache\",\"request_us\":0.1,"
		"\"bandwidth\":2000000000,\"rotational\":false,\"requests\":2,\"bytes\":4096,"
		"\"plan_seconds\":0.000,\"cold_requests\":0}]}\n");
	free(out);
}
END_TEST

/* Nothing replayed: empty lists, and no rate without time. */
START_TEST(test_json_empty)
{
	char *out = report(&(struct replay_stats){ 0 }, true);

	ck_assert_str_eq(out,
		"{\"pack_bytes\":0,\"resident_bytes\":0,\"issued_bytes\":0,\"skipped_bytes\":0,"
		"\"past_eof_bytes\":0,\"unresident_bytes\":0,\"requests\":0,\"files\":0,"
		"\"stale_files\":0,\"written_files\":0,\"missing_files\":0,\"refused_files\":0,\"file_bytes\":0,"
		"\"changed_bytes\":0,\"written_bytes\":0,\"errors\":0,"
		"\"memory_limited\":false,\"max_bytes_reached\":false,\"seconds\":0.000,"
		"\"mib_per_second\":0.0,\"plan_seconds\":0.000,\"others_bytes\":0,"
		"\"queued_ms\":0.0,\"failures\":[],\"devices\":[]}\n");
	free(out);
}
END_TEST

START_TEST(test_text)
{
	char *out = report(&stats, false);

	ck_assert_str_eq(out,
		"pack 10.0 MiB, resident 1.0 MiB, issued 8.0 MiB in 17 requests, skipped 1.0 MiB, "
		"past the end 0.0 MiB, 9 files: 1 stale, 0 written, 2 missing, 3 refused; 4 errors; 1.500 s, "
		"5.3 MiB/s; others read 3.0 MiB meanwhile, behind 25.0 ms of the replay's "
		"queue on average; stopped at the MemAvailable floor; some pages not resident\n");
	free(out);
}
END_TEST

static Suite *replay_report_suite(void)
{
	Suite *s = suite_create("replay-report");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_json_empty);
	tcase_add_test(tc, test_text);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(replay_report_suite)
