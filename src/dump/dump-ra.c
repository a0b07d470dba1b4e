// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-dump --ra-advise: the advisor's table, its two picks and how to apply them, as text or JSON */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "dump-ra.h"
#include "util-json.h"
#include "util.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static bool measured(const struct devmodel *m)
{
	return m->source == DEVMODEL_PROBE || m->source == DEVMODEL_CACHE ||
	       m->source == DEVMODEL_OPTIONS;
}

/* Emulated pages read at the trace's window against the pages the trace saw added, in %. */
static double check_error(const struct ra_advice *a)
{
	if (a->at_trace >= a->n || !a->trace_added_pages)
		return 0.0;
	return 100.0 * ((double)a->row[a->at_trace].c.pages_read - (double)a->trace_added_pages) /
	       (double)a->trace_added_pages;
}

static void text_apply(FILE *f, const struct ra_advice *a, const struct ra_device *dev)
{
	uint32_t kb = a->row[a->recommended].window_kb;
	const char *name = *dev->name ? dev->name : "DISK";

	fputs("\nTo apply it (until the next boot, then for good):\n", f);
	fprintf(f, "  blockdev --setra %" PRIu32 " /dev/%s\n", kb * 2, name);
	fprintf(f, "  echo %" PRIu32 " > /sys/block/%s/queue/read_ahead_kb\n", kb, name);
	fputs("  # /etc/udev/rules.d/60-read-ahead.rules:\n", f);
	fprintf(f, "  ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"%s\", "
		"ATTR{queue/read_ahead_kb}=\"%" PRIu32 "\"\n", name, kb);
	if (!*dev->name)
		fputs("  (the pack's device is not on this machine: put its name for DISK)\n", f);
}

static void text(FILE *f, const struct ura_pack *pack, const char *name,
		 const struct ra_advice *a, const struct ra_device *dev, int verbosity)
{
	const struct ra_advice_row *rec = &a->row[a->recommended], *copt = &a->row[a->copt];

	fprintf(f, "read_ahead_kb advice from pack %s: %zu accesses%s\n", name,
		ura_pack_access_count(pack), a->truncated ? " (the log was cut short)" : "");
	fprintf(f, "filesystem:   %s (%s, dev %u:%u)\n", a->fs.mount_point,
		*a->fs.fstype ? a->fs.fstype : "unknown type", a->fs.major, a->fs.minor);
	fprintf(f, "device:       %s%s, %s model: %.3f ms a request, %.1f MB/s\n",
		*dev->name ? "/dev/" : "", *dev->name ? dev->name : "not on this machine",
		dev_model_source_name(dev->model.source),
		(double)dev_model_request_ns(&dev->model) / 1e6,
		(double)dev_model_bandwidth(&dev->model) / 1e6);
	if (a->trace_kb)
		fprintf(f, "traced with:  read_ahead_kb %" PRIu32 "\n", a->trace_kb);
	else
		fputs("traced with:  read_ahead_kb unknown\n", f);
	if (a->at_trace < a->n)
		fprintf(f, "emulation:    %" PRIu64 " pages read at %" PRIu32 " KiB; the trace saw %"
			PRIu64 " added (%+.1f%%)\n", a->row[a->at_trace].c.pages_read, a->trace_kb,
			a->trace_added_pages, check_error(a));
	fprintf(f, "metadata:     %" PRIu64 " requests, %" PRIu64 " pages at every window\n\n",
		a->meta.requests, a->meta.pages_read);
	fputs("  window   requests(F)  pages read  unused(G)  ra hit  cache hit   est. I/O\n", f);
	for (size_t i = 0; i < a->n; i++) {
		const struct ra_advice_row *r = &a->row[i];

		fprintf(f, "%6" PRIu32 " KiB %12" PRIu64 " %11" PRIu64 " %10" PRIu64 " %6.1f%% %9.1f%%"
			" %8.3f s%s%s%s\n", r->window_kb, r->c.requests, r->c.pages_read, r->c.unused,
			pct(r->c.ra_used, r->c.ra_pages), pct(r->c.hits, r->c.accessed),
			(double)r->time_ns / 1e9, i == a->recommended ? "  <- least time" : "",
			i == a->copt ? "  <- least F^2+G^2" : "", i == a->at_trace ? "  (trace)" : "");
	}
	fprintf(f, "\nrecommended:  %" PRIu32 " KiB (least estimated I/O time: %.3f s",
		rec->window_kb, (double)rec->time_ns / 1e9);
	if (a->at_trace < a->n)
		fprintf(f, ", against %.3f s at the trace's %" PRIu32 " KiB",
			(double)a->row[a->at_trace].time_ns / 1e9, a->trace_kb);
	fputs(")\n", f);
	fprintf(f, "by F^2+G^2:   %" PRIu32 " KiB (paper 000's rule: requests and waste alike, "
		"blind to the device)\n", copt->window_kb);
	if (measured(&dev->model))
		fputs("Trust the first: it weighs each request and each page by what this device "
		      "costs.\n", f);
	else
		fputs("Both are rough: the device's costs are a guess (measure them with --device, "
		      "or give --request-us and --mbps); the first is still the one to try.\n", f);
	text_apply(f, a, dev);
	if (verbosity > 0) {
		fputs("\nper file (requests and unused pages at the recommended and the trace's "
		      "window):\n", f);
		for (size_t i = 0; i < a->nfiles; i++) {
			const struct ra_counts *at = &a->per_file[i * a->n + a->recommended];
			const struct ra_counts *tr = a->at_trace < a->n ?
						     &a->per_file[i * a->n + a->at_trace] : at;
			struct ura_pack_file pf;

			if (!at->pages_read && !tr->pages_read)
				continue;
			if (ura_pack_get_file(pack, i, &pf) < 0 || pf.fs_index != a->fs_index)
				continue;
			fprintf(f, "  F %6" PRIu64 " / %6" PRIu64 "  G %7" PRIu64 " / %7" PRIu64 "  %s\n",
				at->requests, tr->requests, at->unused, tr->unused, pf.path);
		}
	}
}

/* A count per candidate window of one file: "requests", "pages_read" or "unused" */
static void json_counts_array(struct json *j, const char *key, const struct ra_advice *a,
			      size_t file, size_t field)
{
	json_key(j, key);
	json_array_begin(j, JSON_INLINE);
	for (size_t w = 0; w < a->n; w++) {
		const struct ra_counts *c = &a->per_file[file * a->n + w];

		json_u64(j, field == 0 ? c->requests : field == 1 ? c->pages_read : c->unused);
	}
	json_array_end(j);
}

static int json(FILE *f, const struct ura_pack *pack, const struct ra_advice *a,
		const struct ra_device *dev)
{
	struct json j;

	json_begin(&j, f, JSON_SPACED);
	json_object_begin(&j, JSON_LINES);
	json_key(&j, "filesystem");
	json_object_begin(&j, JSON_INLINE);
	json_key_string(&j, "mount_point", a->fs.mount_point);
	json_key(&j, "dev");
	json_stringf(&j, "%u:%u", a->fs.major, a->fs.minor);
	json_object_end(&j);
	json_key(&j, "device");
	json_object_begin(&j, JSON_INLINE);
	json_key_string(&j, "name", dev->name);
	json_key(&j, "dev");
	json_stringf(&j, "%u:%u", dev->major, dev->minor);
	json_key_string(&j, "model", dev_model_source_name(dev->model.source));
	json_key_double(&j, "request_us", (double)dev_model_request_ns(&dev->model) / 1e3, 1);
	json_key_double(&j, "mbps", (double)dev_model_bandwidth(&dev->model) / 1e6, 1);
	json_object_end(&j);
	json_key_u64(&j, "accesses", ura_pack_access_count(pack));
	json_key_bool(&j, "truncated", a->truncated);
	json_key_u64(&j, "trace_kb", a->trace_kb);
	json_key_u64(&j, "recommended_kb", a->row[a->recommended].window_kb);
	json_key_u64(&j, "copt_kb", a->row[a->copt].window_kb);
	json_key_string(&j, "trust", measured(&dev->model) ? "time" : "guess");
	json_key_u64(&j, "trace_added_pages", a->trace_added_pages);
	json_key(&j, "metadata");
	json_object_begin(&j, JSON_INLINE);
	json_key_u64(&j, "requests", a->meta.requests);
	json_key_u64(&j, "pages", a->meta.pages_read);
	json_key_u64(&j, "time_ns", a->meta.io_ns);
	json_object_end(&j);

	json_key(&j, "windows");
	json_array_begin(&j, JSON_LINES);
	for (size_t i = 0; i < a->n; i++) {
		const struct ra_advice_row *r = &a->row[i];

		json_object_begin(&j, JSON_INLINE);
		json_key_u64(&j, "window_kb", r->window_kb);
		json_key_u64(&j, "F", r->c.requests);
		json_key_u64(&j, "G", r->c.unused);
		json_key_u64(&j, "requests", r->c.requests);
		json_key_u64(&j, "pages_read", r->c.pages_read);
		json_key_u64(&j, "unused", r->c.unused);
		json_key_u64(&j, "readahead_pages", r->c.ra_pages);
		json_key_u64(&j, "readahead_used", r->c.ra_used);
		json_key_u64(&j, "accessed", r->c.accessed);
		json_key_u64(&j, "hits", r->c.hits);
		json_key_double(&j, "copt", r->copt, 0);
		json_key_u64(&j, "time_ns", r->time_ns);
		json_object_end(&j);
	}
	json_array_end(&j);

	json_key(&j, "files");
	json_array_begin(&j, JSON_LINES);
	for (size_t i = 0; i < a->nfiles; i++) {
		struct ura_pack_file pf;
		struct ura_pack_fs fs;
		bool any = false;
		char *path;

		for (size_t w = 0; w < a->n; w++)
			any |= a->per_file[i * a->n + w].pages_read > 0;
		if (!any || ura_pack_get_file(pack, i, &pf) < 0 || pf.fs_index != a->fs_index ||
		    ura_pack_get_fs(pack, pf.fs_index, &fs) < 0)
			continue;
		path = path_join(fs.mount_point, pf.path);
		json_object_begin(&j, JSON_INLINE);
		json_key_string(&j, "path", path ? path : pf.path);
		free(path);
		json_counts_array(&j, "requests", a, i, 0);
		json_counts_array(&j, "pages_read", a, i, 1);
		json_counts_array(&j, "unused", a, i, 2);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	return json_end(&j);
}

int dump_ra_advice(FILE *f, const struct ura_pack *pack, const char *name,
		   const struct ra_advice *a, const struct ra_device *dev, bool as_json,
		   int verbosity)
{
	if (as_json)
		return json(f, pack, a, dev);
	text(f, pack, name, a, dev, verbosity);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
