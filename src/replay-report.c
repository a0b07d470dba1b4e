// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay's end-of-run report: one line of text, or one JSON object */
#include <inttypes.h>
#include <string.h>

#include "dev-model.h"
#include "replay-report.h"
#include "util-json.h"
#include "util.h"

void replay_report(FILE *f, const struct replay_stats *s, bool json)
{
	double sec = (double)s->ns / 1e9, mib = (double)(1 << 20);
	double rate = sec > 0 ? (double)s->issued_bytes / mib / sec : 0;

	if (json) {
		fprintf(f, "{\"pack_bytes\":%" PRIu64 ",\"resident_bytes\":%" PRIu64
			",\"issued_bytes\":%" PRIu64 ",\"skipped_bytes\":%" PRIu64
			",\"past_eof_bytes\":%" PRIu64 ",\"unresident_bytes\":%" PRIu64 ",\"requests\":%" PRIu64
			",\"files\":%" PRIu64 ",\"stale_files\":%" PRIu64
			",\"missing_files\":%" PRIu64 ",\"refused_files\":%" PRIu64
			",\"errors\":%" PRIu64 ",\"memory_limited\":%s,\"max_bytes_reached\":%s"
			",\"seconds\":%.3f,\"mib_per_second\":%.1f,\"plan_seconds\":%.3f",
			s->pack_bytes, s->resident_bytes, s->issued_bytes, s->skipped_bytes,
			s->past_eof_bytes, s->unresident_bytes, s->requests, s->files, s->stale_files,
			s->missing_files, s->refused_files, s->errors,
			s->memory_limited ? "true" : "false",
			s->max_bytes_reached ? "true" : "false", sec, rate, (double)s->plan_ns / 1e9);
		fputs(",\"failures\":[", f);
		for (unsigned i = 0; i < s->ncauses; i++) {
			fprintf(f, "%s{\"error\":", i ? "," : "");
			json_quote(f, strerror(s->causes[i].err));
			fprintf(f, ",\"count\":%" PRIu64 "}", s->causes[i].count);
		}
		fputs("],\"devices\":[", f);
		for (unsigned i = 0; i < s->ndevs; i++) {
			const struct replay_dev_report *d = &s->devs[i];

			fprintf(f, "%s{\"device\":\"%u:%u\",\"model\":\"%s\",\"request_us\":%.1f"
				",\"bandwidth\":%" PRIu64 ",\"rotational\":%s,\"requests\":%" PRIu64
				",\"bytes\":%" PRIu64 ",\"plan_seconds\":%.3f,\"cold_requests\":%" PRIu64
				"}", i ? "," : "",
				d->major, d->minor, devmodel_source_name(d->source),
				(double)d->request_ns / 1e3, d->bandwidth,
				d->rotational ? "true" : "false", d->plan_requests, d->plan_bytes,
				(double)d->plan_ns / 1e9, d->cold_requests);
		}
		fputs("]}\n", f);
		return;
	}
	fprintf(f, "pack %.1f MiB, resident %.1f MiB, issued %.1f MiB in %" PRIu64 " requests, "
		"skipped %.1f MiB, past the end %.1f MiB, %" PRIu64 " files: %" PRIu64 " stale, %" PRIu64 " missing, %" PRIu64 " refused; "
		"%" PRIu64 " errors; %.3f s, %.1f MiB/s%s%s%s\n",
		(double)s->pack_bytes / mib, (double)s->resident_bytes / mib,
		(double)s->issued_bytes / mib, s->requests, (double)s->skipped_bytes / mib,
		(double)s->past_eof_bytes / mib, s->files, s->stale_files,
		s->missing_files, s->refused_files, s->errors, sec, rate,
		s->memory_limited ? "; stopped at the MemAvailable floor" : "",
		s->max_bytes_reached ? "; stopped at --max-bytes" : "",
		s->unresident_bytes ? "; some pages not resident" : "");
}
