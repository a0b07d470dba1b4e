/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libura: the bytes of the access log (format 1.1, ura-pack(5)): encode, validate, decode */
#ifndef URA_PACK_ACCESS_H
#define URA_PACK_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "ura/pack.h"

/* The ACCESS section: a header, then the records, each coded against the one before. */
#define ACCESS_HDR_COUNT	0	/* u32 number of records */
#define ACCESS_HDR_RESERVED	4	/* u32, zero */
#define ACCESS_HDR_SIZE		8

/* A record's first byte */
#define ACCESS_TAG_KIND		0x03u	/* URA_PACK_ACCESS_READ or _FAULT */
#define ACCESS_TAG_FLAGS_SHIFT	2	/* bits 2-5: the URA_PACK_ACCESS_* flags */
#define ACCESS_TAG_FLAGS	0x3cu
#define ACCESS_TAG_FILE		0x40u	/* a file index follows (else: the last one) */
#define ACCESS_TAG_STREAM	0x80u	/* a stream follows (else: the last one) */

#define ACCESS_FLAGS_KNOWN	(URA_PACK_ACCESS_EXEC | URA_PACK_ACCESS_NO_AROUND | \
				 URA_PACK_ACCESS_MISSED | URA_PACK_ACCESS_GUESSED)

#define ACCESS_REC_MIN		3	/* tag, time, page: a fault without a window */
#define ACCESS_REC_MAX		64	/* more than the longest record (37 bytes) */

/* Pages in a fault-around window, at most (the kernel's largest is 512 with 4 KiB pages). */
#define ACCESS_MAX_AROUND	(UINT64_C(1) << 20)

/* Readahead facts a reader accepts: no fault-around window beyond the above. */
#define RA_FS_FLAGS_KNOWN	URA_PACK_RA_FS_LARGE_FOLIOS

/*
 * What a record leaves for the next to be coded against. Before the first:
 * time 0, file 0, stream 0, next page 0.
 */
struct pack_access_state {
	uint64_t time;		/* its time_ns */
	uint64_t next;		/* its last page + 1 */
	uint32_t file, stream;
};

/**
 * pack_access_problem() - what is wrong with @a as the record after @st, or NULL
 * @nfiles: files in the pack
 *
 * The rules of ura-pack(5): a known kind and flags, a file of the pack, time
 * order, pages below 2^51, a fault of one page inside its window of at most
 * ACCESS_MAX_AROUND pages. The builder and the reader apply the same rules.
 */
const char *pack_access_problem(const struct ura_pack_access *a,
				const struct pack_access_state *st, size_t nfiles);

/**
 * pack_access_encode() - code @a, which pack_access_problem() accepted, after @st
 * @buf: room for ACCESS_REC_MAX bytes
 *
 * Return: the bytes written; @st then describes @a.
 */
size_t pack_access_encode(struct pack_access_state *st, const struct ura_pack_access *a,
			  uint8_t *buf);

struct pack_access_mark;

/* The access log of a parsed pack; all zero for a pack without one. */
struct pack_access_log {
	const uint8_t *recs;		/* the first record, inside the pack's image */
	size_t len;			/* bytes of records */
	uint32_t count;
	struct pack_access_mark *marks;	/* where to start decoding, every 32 records */
	uint64_t serial;		/* tells logs apart for a thread's cursor */
};

/**
 * pack_access_load() - check every record of an ACCESS section and index it
 * @section: the section's bytes (header and records), @size of them
 * @nfiles: files in the pack
 * @why: on -EBADMSG, the reason
 *
 * Return: 0, -EBADMSG or -ENOMEM. The marks take 32 bytes per 32 records, and
 * the record count is checked against the bytes before they are allocated.
 */
int pack_access_load(struct pack_access_log *log, const uint8_t *section, uint64_t size,
		     size_t nfiles, const char **why);

/** pack_access_free() - release the marks; a zeroed log is allowed */
void pack_access_free(struct pack_access_log *log);

/**
 * pack_access_get() - decode record @index
 *
 * From the mark before it, or from where this thread's last call on the same
 * log stopped: reading the log in order decodes each record once.
 * Return: 0, or -ERANGE past the end.
 */
int pack_access_get(const struct pack_access_log *log, size_t index,
		    struct ura_pack_access *ret);

#endif
