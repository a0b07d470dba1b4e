// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay's end-of-run report: one line of text, or one JSON object */
#include <inttypes.h>
#include <string.h>

#include "dev-model.h"
#include "replay-report.h"
#include "util-json.h"

/* One JSON object on one line, for scripts and logs. */
static void report_json(FILE *f, const struct replay_stats *s, double sec, double rate)
{
	struct json j;

	json_begin(&j, f, JSON_COMPACT);
	json_object_begin(&j, JSON_INLINE);
	json_key_u64(&j, "pack_bytes", s->pack_bytes);
	json_key_u64(&j, "resident_bytes", s->resident_bytes);
	json_key_u64(&j, "issued_bytes", s->issued_bytes);
	json_key_u64(&j, "skipped_bytes", s->skipped_bytes);
	json_key_u64(&j, "past_eof_bytes", s->past_eof_bytes);
	json_key_u64(&j, "unresident_bytes", s->unresident_bytes);
	json_key_u64(&j, "requests", s->requests);
	json_key_u64(&j, "files", s->files);
	json_key_u64(&j, "stale_files", s->stale_files);
	json_key_u64(&j, "written_files", s->written_files);
	json_key_u64(&j, "missing_files", s->missing_files);
	json_key_u64(&j, "refused_files", s->refused_files);
	json_key_u64(&j, "file_bytes", s->file_bytes);
	json_key_u64(&j, "changed_bytes", s->changed_bytes);
	json_key_u64(&j, "written_bytes", s->written_bytes);
	json_key_u64(&j, "errors", s->errors);
	json_key_bool(&j, "memory_limited", s->memory_limited);
	json_key_bool(&j, "max_bytes_reached", s->max_bytes_reached);
	json_key_double(&j, "seconds", sec, 3);
	json_key_double(&j, "mib_per_second", rate, 1);
	json_key_double(&j, "plan_seconds", (double)s->plan_ns / 1e9, 3);
	json_key_u64(&j, "others_bytes", s->others_bytes);
	json_key_double(&j, "queued_ms", (double)s->queued_mean_ns / 1e6, 1);
	json_key(&j, "failures");
	json_array_begin(&j, JSON_INLINE);
	for (unsigned i = 0; i < s->ncauses; i++) {
		json_object_begin(&j, JSON_INLINE);
		json_key_string(&j, "error", strerror(s->causes[i].err));
		json_key_u64(&j, "count", s->causes[i].count);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "devices");
	json_array_begin(&j, JSON_INLINE);
	for (unsigned i = 0; i < s->ndevs; i++) {
		const struct replay_dev_report *d = &s->devs[i];

		json_object_begin(&j, JSON_INLINE);
		json_key(&j, "device");
		json_stringf(&j, "%u:%u", d->major, d->minor);
		json_key_string(&j, "model", dev_model_source_name(d->source));
		json_key_double(&j, "request_us", (double)d->request_ns / 1e3, 1);
		json_key_u64(&j, "bandwidth", d->bandwidth);
		json_key_bool(&j, "rotational", d->rotational);
		json_key_u64(&j, "requests", d->plan_requests);
		json_key_u64(&j, "bytes", d->plan_bytes);
		json_key_double(&j, "plan_seconds", (double)d->plan_ns / 1e9, 3);
		json_key_u64(&j, "cold_requests", d->cold_requests);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_end(&j);
}

void replay_report(FILE *f, const struct replay_stats *s, bool json)
{
	double sec = (double)s->ns / 1e9, mib = (double)(1 << 20);
	double rate = sec > 0 ? (double)s->issued_bytes / mib / sec : 0;
	char others[160] = "";

	if (json) {
		report_json(f, s, sec, rate);
		return;
	}
	if (s->others_bytes)
		snprintf(others, sizeof(others), "; others read %.1f MiB meanwhile, behind %.1f ms "
			 "of the replay's queue on average", (double)s->others_bytes / mib,
			 (double)s->queued_mean_ns / 1e6);
	fprintf(f, "pack %.1f MiB, resident %.1f MiB, issued %.1f MiB in %" PRIu64 " requests, "
		"skipped %.1f MiB, past the end %.1f MiB, %" PRIu64 " files: %" PRIu64 " stale, %" PRIu64 " written, %" PRIu64 " missing, "
		"%" PRIu64 " refused; "
		"%" PRIu64 " errors; %.3f s, %.1f MiB/s%s%s%s%s\n",
		(double)s->pack_bytes / mib, (double)s->resident_bytes / mib,
		(double)s->issued_bytes / mib, s->requests, (double)s->skipped_bytes / mib,
		(double)s->past_eof_bytes / mib, s->files, s->stale_files, s->written_files,
		s->missing_files, s->refused_files, s->errors, sec, rate, others,
		s->memory_limited ? "; stopped at the MemAvailable floor" : "",
		s->max_bytes_reached ? "; stopped at --max-bytes" : "",
		s->unresident_bytes ? "; some pages not resident" : "");
}
