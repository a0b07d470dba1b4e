/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* On-disk layout of a ura pack, version 1 (specified in man/ura-pack.5); never installed */
#ifndef URA_PACK_INTERNAL_H
#define URA_PACK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PACK_MAGIC		"URAPACK\0"
#define PACK_MAGIC_LEN		8

/* Header: all fields little-endian, offsets in bytes from the start of the file. */
#define HDR_MAGIC		0	/* u8[8] */
#define HDR_MAJOR		8	/* u16 */
#define HDR_MINOR		10	/* u16 */
#define HDR_SIZE		12	/* u32 header_size */
#define HDR_COMPAT		16	/* u32 compatible feature flags */
#define HDR_INCOMPAT		20	/* u32 incompatible feature flags */
#define HDR_CRC			24	/* u32 CRC32C of the file, this field read as zero */
#define HDR_NSECTIONS		28	/* u32 entries in the section table */
#define HDR_FILE_SIZE		32	/* u64 */
#define HDR_SECTIONS_OFF	40	/* u64 offset of the section table */
#define HDR_CREATED		48	/* s64 ns since the epoch */
#define HDR_V1_SIZE		96	/* 56..95 reserved, zero */

/* Feature flags known to this reader (none yet in version 1). */
#define PACK_COMPAT_KNOWN	0u
#define PACK_INCOMPAT_KNOWN	0u

/* Section table entry */
#define SEC_TYPE		0	/* u32 */
#define SEC_FLAGS		4	/* u32 */
#define SEC_OFFSET		8	/* u64, 8-aligned */
#define SEC_SIZE		16	/* u64 bytes */
#define SEC_COUNT		24	/* u32 records */
#define SEC_ENTRY_SIZE		28	/* u32 bytes per record, >= the size below */
#define SEC_ENT_SIZE		32

#define SEC_FLAG_REQUIRED	(1u << 0)	/* a reader that does not know the type must refuse */

enum {
	SEC_STRINGS = 1,
	SEC_FILESYSTEMS = 2,
	SEC_FILES = 3,
	SEC_RANGES = 4,
	SEC_METADATA = 5,
	SEC_TRACE_INFO = 6,
	/* 1.1: packs merged from several runs; written without REQUIRED, so 1.0 readers skip them */
	SEC_RUNS = 7,
	SEC_RANGE_SUPPORT = 8,
	SEC_META_SUPPORT = 9,
	SEC_PENDING = 10,
	/* 1.1: the access log of one trace and its filesystems' readahead facts; not REQUIRED */
	SEC_ACCESS = 11,
	SEC_RA_FS = 12,
	SEC_MAX_KNOWN = SEC_RA_FS,
};

/* Filesystem record */
#define FS_MAJOR		0
#define FS_MINOR		4
#define FS_MNT			8	/* string ref: u32 offset, u32 length */
#define FS_TYPE			16
#define FS_SOURCE		24
#define FS_FLAGS		32
#define FS_RA_KB		36
#define FS_UUID			40	/* u8[16] */
#define FS_REC_SIZE		64

/* File record */
#define FILE_FS			0
#define FILE_FLAGS		4
#define FILE_PATH		8	/* string ref */
#define FILE_INO		16
#define FILE_SIZE		24
#define FILE_MTIME		32
#define FILE_GEN		40
#define FILE_BTIME		48
#define FILE_REC_SIZE		64

/* Range record */
#define RANGE_FILE		0
#define RANGE_FLAGS		4
#define RANGE_FIRST		8	/* u64 */
#define RANGE_COUNT		16	/* u32 */
#define RANGE_TIME		24	/* u64 */
#define RANGE_REC_SIZE		32

/* Metadata record */
#define META_FS			0
#define META_MAJOR		4
#define META_MINOR		8
#define META_OFFSET		16
#define META_LENGTH		24
#define META_TIME		32
#define META_REC_SIZE		40

/* Trace info record (one) */
#define INFO_DURATION		0
#define INFO_LOST		8
#define INFO_UNRES_INODES	16
#define INFO_UNRES_BYTES	24
#define INFO_FLAGS		32
#define INFO_RA_KB		36
#define INFO_KERNEL		40	/* string ref */
#define INFO_COMMAND		48	/* string ref */
#define INFO_REC_SIZE		64

/* Run record (1.1): record i is bit i of the run masks, record 0 the newest run */
#define RUN_CREATED		0	/* s64 ns since the epoch */
#define RUN_DURATION		8	/* u64 ns */
#define RUN_REC_SIZE		16

/* Support record (1.1): one per range (RANGE_SUPPORT) or metadata range (META_SUPPORT) */
#define SUP_COUNT		0	/* u32 runs that had the pages: popcount of the mask */
#define SUP_MASK		8	/* u64 the runs that had them, bit i = run record i */
#define SUP_REC_SIZE		16

/* Pending range (1.1): pages too few runs had, kept as evidence for later merges, never replayed */
#define PEND_FILE		0	/* u32 index into the file table */
#define PEND_FLAGS		4	/* u32 DEMANDED */
#define PEND_FIRST		8	/* u64 */
#define PEND_COUNT		16	/* u32 */
#define PEND_SUPPORT		20	/* u32 popcount of the mask */
#define PEND_TIME		24	/* u64 */
#define PEND_MASK		32	/* u64 */
#define PEND_REC_SIZE		40

/* Readahead facts of a filesystem (1.1), by fs_index, each filesystem at most once */
#define RAFS_FS			0	/* u32 index into the filesystem table, increasing */
#define RAFS_MAX_SECTORS_KB	4	/* u32 the device's largest request, 0 unknown */
#define RAFS_FAULT_AROUND	8	/* u32 pages one fault maps around it, 0 unknown */
#define RAFS_FLAGS		12	/* u32 URA_PACK_RA_FS_* */
#define RAFS_MAX_SEGMENTS	16	/* u32 memory segments a request can hold, 0 unknown */
#define RAFS_MAX_SEGMENT_KB	20	/* u32 largest segment, 0 unknown */
#define RAFS_REC_SIZE		24

#define PACK_MAX_RUNS		64	/* one bit each in a u64 mask */

#define PACK_MAX_PAGE		(UINT64_C(1) << 51)	/* page numbers stay below, so bytes fit s64 */
#define PACK_MAX_BYTES		(PACK_MAX_PAGE * URA_PACK_PAGE_SIZE)
#define PACK_MAX_FILE_SIZE	(UINT64_C(1) << 30)	/* readers refuse larger files */

/* What is wrong with a file path or a mount point, or NULL when it is fine (pack.c). */
const char *pack_path_problem(const char *path, size_t len);
const char *pack_mount_point_problem(const char *mp, size_t len);

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/*
 * One record decoded (pack-record.c), from its bytes @r; a string's reference
 * is an offset into @strings. Shared by the reader and the builder's read-back.
 */
struct ura_pack_fs;
struct ura_pack_file;
struct ura_pack_range;
struct ura_pack_meta;
void pack_record_fs(const uint8_t *r, const char *strings, struct ura_pack_fs *ret);
void pack_record_file(const uint8_t *r, const char *strings, struct ura_pack_file *ret);
void pack_record_range(const uint8_t *r, struct ura_pack_range *ret);
void pack_record_meta(const uint8_t *r, struct ura_pack_meta *ret);
void pack_record_pending(const uint8_t *r, struct ura_pack_range *ret, uint32_t *ret_support,
			 uint64_t *ret_mask);

/* The run mask of every one of @runs runs (a record without a mask was in all of them). */
uint64_t pack_all_runs(size_t runs);

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

#endif
