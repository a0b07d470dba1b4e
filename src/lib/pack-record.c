// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One record of each kind, decoded: the same bytes whether a parsed pack holds
 * them (pack.c) or a builder does before it writes them (pack-build.c).
 */
#include <string.h>

#include "ura/pack.h"
#include "pack-internal.h"

void pack_record_fs(const uint8_t *r, const char *strings, struct ura_pack_fs *ret)
{
	*ret = (struct ura_pack_fs){
		.major = get_le32(r + FS_MAJOR),
		.minor = get_le32(r + FS_MINOR),
		.mount_point = strings + get_le32(r + FS_MNT),
		.fstype = strings + get_le32(r + FS_TYPE),
		.source = strings + get_le32(r + FS_SOURCE),
		.flags = get_le32(r + FS_FLAGS),
		.read_ahead_kb = get_le32(r + FS_RA_KB),
	};
	memcpy(ret->uuid, r + FS_UUID, sizeof(ret->uuid));
}

void pack_record_file(const uint8_t *r, const char *strings, struct ura_pack_file *ret)
{
	*ret = (struct ura_pack_file){
		.fs_index = get_le32(r + FILE_FS),
		.flags = get_le32(r + FILE_FLAGS),
		.path = strings + get_le32(r + FILE_PATH),
		.path_len = get_le32(r + FILE_PATH + 4),
		.ino = get_le64(r + FILE_INO),
		.size = get_le64(r + FILE_SIZE),
		.mtime_ns = (int64_t)get_le64(r + FILE_MTIME),
		.generation = get_le64(r + FILE_GEN),
		.btime_ns = (int64_t)get_le64(r + FILE_BTIME),
	};
}

void pack_record_range(const uint8_t *r, struct ura_pack_range *ret)
{
	*ret = (struct ura_pack_range){
		.file_index = get_le32(r + RANGE_FILE),
		.flags = get_le32(r + RANGE_FLAGS),
		.first_page = get_le64(r + RANGE_FIRST),
		.page_count = get_le32(r + RANGE_COUNT),
		.first_access_ns = get_le64(r + RANGE_TIME),
	};
}

void pack_record_meta(const uint8_t *r, struct ura_pack_meta *ret)
{
	*ret = (struct ura_pack_meta){
		.fs_index = get_le32(r + META_FS),
		.major = get_le32(r + META_MAJOR),
		.minor = get_le32(r + META_MINOR),
		.offset = get_le64(r + META_OFFSET),
		.length = get_le64(r + META_LENGTH),
		.first_access_ns = get_le64(r + META_TIME),
	};
}

void pack_record_pending(const uint8_t *r, struct ura_pack_range *ret, uint32_t *ret_support,
			 uint64_t *ret_mask)
{
	*ret = (struct ura_pack_range){
		.file_index = get_le32(r + PEND_FILE),
		.flags = get_le32(r + PEND_FLAGS),
		.first_page = get_le64(r + PEND_FIRST),
		.page_count = get_le32(r + PEND_COUNT),
		.first_access_ns = get_le64(r + PEND_TIME),
	};
	if (ret_support)
		*ret_support = get_le32(r + PEND_SUPPORT);
	if (ret_mask)
		*ret_mask = get_le64(r + PEND_MASK);
}

uint64_t pack_all_runs(size_t runs)
{
	return runs >= PACK_MAX_RUNS ? UINT64_MAX : (UINT64_C(1) << runs) - 1;
}
