/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two packs compared: what B adds and loses against A, per file and in bytes (ura-dump --compare) */
#ifndef URA_DUMP_COMPARE_H
#define URA_DUMP_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ura/pack.h"

enum compare_status {
	COMPARE_SAME,		/* in both, the same pages */
	COMPARE_CHANGED,	/* in both, other pages */
	COMPARE_REPLACED,	/* in both, but other content (size, mtime, generation, birth time) */
	COMPARE_ADDED,		/* only in B */
	COMPARE_LOST,		/* only in A */
};

/* A file, or the metadata of a filesystem or device, in A and B. */
struct compare_entry {
	enum compare_status status;
	const char *mount_point;	/* into A or B; NULL for metadata of a device without one */
	const char *path;		/* relative to it; NULL for metadata */
	uint32_t major, minor;		/* metadata: the device (of A when both have it) */
	uint64_t a_bytes, b_bytes;	/* pages of it in each */
	uint64_t added_bytes;		/* in B, not in A */
	uint64_t lost_bytes;		/* in A, not in B */
	uint64_t a_demanded_bytes, b_demanded_bytes;
};

struct compare_totals {
	uint64_t files_a, files_b;
	uint64_t same, changed, replaced, added, lost;	/* files of each status */
	uint64_t bytes_a, bytes_b, added_bytes, lost_bytes;
	uint64_t metadata_bytes_a, metadata_bytes_b, metadata_added_bytes, metadata_lost_bytes;
};

struct compare {
	struct compare_entry *files;	/* by bytes changed (added + lost), most first, then path */
	size_t nfiles;
	struct compare_entry *metadata;	/* per filesystem, or device without one; likewise */
	size_t nmetadata;
	struct compare_totals t;
};

/*
 * compare_new() - what @b adds and loses against @a
 *
 * Files are matched by filesystem (mount point, and UUID when both have one) and path, as
 * ura-trace --merge matches them; metadata by filesystem, or device when it has none. Strings
 * point into the packs, which must outlive the result.
 * Return: 0 or -ENOMEM.
 */
int compare_new(const struct ura_pack *a, const struct ura_pack *b, struct compare **ret);

/** compare_free() - release a comparison; NULL is allowed */
void compare_free(struct compare *c);

/* "same", "changed", "replaced", "added", "lost" */
const char *compare_status_name(enum compare_status s);

/*
 * compare_print() - the comparison for people (files changed, by bytes) or as JSON (every
 * file; schema in ura-dump(8))
 * Return: 0, or -EIO when writing @f failed.
 */
int compare_print(FILE *f, const struct compare *c, const char *name_a, const char *name_b,
		  bool as_json);

#endif
