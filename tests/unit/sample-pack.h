/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small pack with every kind of record, shared by the pack tests and the golden file */
#ifndef URA_SAMPLE_PACK_H
#define URA_SAMPLE_PACK_H

#include <check.h>

#include "ura/pack.h"

/* Two filesystems, four files (odd names included), six ranges, two metadata ranges. */
static inline void sample_pack_build(struct ura_pack_builder *b)
{
	static const char odd[] = "we\xff" "ird name\nwith newline";
	struct ura_pack_fs fs0 = { .major = 8, .minor = 1, .mount_point = "/", .fstype = "ext4",
				   .source = "/dev/sda1", .flags = URA_PACK_FS_HAS_UUID,
				   .read_ahead_kb = 128,
				   .uuid = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 } };
	struct ura_pack_fs fs1 = { .major = 259, .minor = 1048575, .mount_point = "/mnt/with space",
				   .fstype = "btrfs", .source = "/dev/nvme0n1p3" };
	struct ura_pack_info info = { .created_ns = 1763776800000000000LL, .duration_ns = 1500000000,
				      .lost_events = 3, .unresolved_inodes = 2,
				      .unresolved_bytes = 8192, .flags = URA_PACK_INFO_COLD,
				      .kernel_release = "6.18.0-test", .command = "python3 -c pass" };
	uint32_t f;

	ck_assert_int_eq(ura_pack_builder_add_fs(b, &fs0, &f), 0);
	ck_assert_uint_eq(f, 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &fs1, &f), 0);
	ck_assert_uint_eq(f, 1);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.fs_index = 0, .path = "usr/bin/python3.11", .ino = 1234, .size = 6833392,
		.mtime_ns = 1700000000123456789LL, .generation = 77,
		.flags = URA_PACK_FILE_HAS_GENERATION }, &f), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.fs_index = 0, .path = "etc/ld.so.cache", .ino = 99, .size = 20000,
		.mtime_ns = 1600000000LL }, &f), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.fs_index = 1, .path = odd, .ino = 1ULL << 40, .size = 4096 * 3,
		.btime_ns = 5, .flags = URA_PACK_FILE_HAS_BTIME }, &f), 0);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.fs_index = 1, .path = "dir with space/file", .ino = 7, .size = 0 }, &f), 0);
	ck_assert_int_eq(ura_pack_builder_set_info(b, &info), 0);
	/* added out of time order: the pack stores first-access order */
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = 0, .first_page = 0, .page_count = 16, .first_access_ns = 1000,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = 1, .first_page = 0, .page_count = 5, .first_access_ns = 500,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = 0, .first_page = 100, .page_count = 32, .first_access_ns = 2000 }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = 2, .first_page = 1, .page_count = 2, .first_access_ns = 2000,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = 0, .first_page = 1600, .page_count = 68, .first_access_ns = 3000,
		.flags = URA_PACK_RANGE_DEMANDED }), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
		.file_index = 2, .first_page = 0, .page_count = 1, .first_access_ns = 10 }), 0);
	ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){
		.fs_index = 0, .major = 8, .minor = 1, .offset = 1 << 20, .length = 8192,
		.first_access_ns = 5 }), 0);
	ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){
		.fs_index = URA_PACK_NO_INDEX, .major = 7, .minor = 3, .offset = 0, .length = 4096,
		.first_access_ns = 6 }), 0);
}

#endif
