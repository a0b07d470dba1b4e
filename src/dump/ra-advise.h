/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The read_ahead_kb advisor: the emulation at every candidate window, and the two recommendations */
#ifndef URA_RA_ADVISE_H
#define URA_RA_ADVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dev-model.h"
#include "ra-emulate.h"
#include "ura/pack.h"

#define RA_ADVISE_MAX_WINDOWS	16

struct sys_view;

/* One candidate maximum window. */
struct ra_advice_row {
	uint32_t window_kb;
	struct ra_counts c;		/* the advised filesystem's files */
	double copt;			/* F^2 + G^2 (paper 000) */
	uint64_t time_ns;		/* estimated device time, metadata included */
};

struct ra_advice {
	uint32_t fs_index;		/* the filesystem advised for: the one most read */
	struct ura_pack_fs fs;
	uint32_t trace_kb;		/* the window in force during the trace, 0 unknown */
	size_t n;
	struct ra_advice_row row[RA_ADVISE_MAX_WINDOWS];	/* by window */
	size_t recommended;		/* least estimated time */
	size_t copt;			/* least Copt */
	size_t at_trace;		/* the row of trace_kb, or n when unknown */
	struct ra_counts meta;		/* the same at every window */
	uint64_t trace_added_pages;	/* data pages the trace saw added on that filesystem */
	size_t nfiles;			/* per_file: nfiles rows of n counts (file-major) */
	struct ra_counts *per_file;
	bool truncated;			/* the access log was cut short */
};

/* ra_advise_fs() - the filesystem advised for: the one with the most pages added (and those) */
uint32_t ra_advise_fs(const struct ura_pack *pack, uint64_t *ret_pages);

/**
 * ra_advise() - emulate every candidate window over @pack's access log
 * @model: the device's costs (ra_advise_model())
 * @decisions: if set, the emulation at the trace's window logs its decisions there
 *
 * Candidates: 4 KiB to 4 MiB in powers of two, 384 KiB, and the window of the trace.
 * Return: 0, -ENODATA (no access log), -ENOMEM. Free @ret with ra_advise_free().
 */
int ra_advise(const struct ura_pack *pack, const struct devmodel *model, FILE *decisions,
	      struct ra_advice *ret);

void ra_advise_free(struct ra_advice *a);

/**
 * ra_advise_hits() - the emulation at the trace's own window, for hit ratios
 * @ret_per_file: ura_pack_file_count() counts, malloc()ed (free() them)
 * @ret_kb: the window emulated
 *
 * Readahead hit ratio: ra_used / ra_pages (pages read beyond those asked for,
 * and used); page-cache hit ratio: hits / accessed.
 * Return: 0, -ENODATA (no access log, or no window known), -ENOMEM.
 */
int ra_advise_hits(const struct ura_pack *pack, struct ra_counts **ret_per_file,
		   struct ra_counts *ret_total, uint32_t *ret_kb);

/* How the device model was found (--device, --request-us/--mbps, or nothing). */
struct ra_model_opts {
	bool have_dev;			/* --device: this device's model */
	unsigned major, minor;
	uint64_t request_ns, bandwidth;	/* --request-us, --mbps (bytes per second); 0: not given */
};

/* The device advised for: the whole disk (read_ahead_kb lives there) and its costs. */
struct ra_device {
	struct devmodel model;
	unsigned major, minor;		/* 0:0 when not on this machine */
	char name[32];			/* "sda", "" when unknown */
};

/**
 * ra_advise_measure() - the step before ra_advise_model(): what it reads, into @view
 *
 * The facts of the device behind @fs (or the one asked for) and of its whole
 * disk, and unless figures are given the disk's model: the view's, kept, or
 * measured now (dev_cache_get(), DEVCACHE_AUTO: a measurement takes 5 to 9 s
 * and is kept; a failure is noted in the view).
 * Return: 0 or -ENOMEM.
 */
int ra_advise_measure(struct sys_view *view, const struct ura_pack_fs *fs,
		      const struct ra_model_opts *o);

/**
 * ra_advise_model() - the device behind @fs (or the one asked for) and its cost model
 * @view: the devices' facts and models (ra_advise_measure()); nothing else is asked
 *
 * Figures given win; else the disk's model in @view; else a guess from
 * sysfs's rotational flag, else the flash guess.
 */
void ra_advise_model(const struct sys_view *view, const struct ura_pack_fs *fs,
		     const struct ra_model_opts *o, struct ra_device *ret);

#endif
