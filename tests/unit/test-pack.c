// SPDX-License-Identifier: GPL-2.0-or-later
/* Tests of the pack library: round trips, the golden pack, corruption, atomic writes */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crc32c.h"
#include "pack-internal.h"
#include "sample-pack.h"
#include "unit.h"

#define GOLDEN TEST_DATA_DIR "/golden-v1.pack"

static char *tmpdir;

static void setup(void)
{
	tmpdir = unit_mkdtemp();
}

static void teardown(void)
{
	unit_rmtree(tmpdir);
	free(tmpdir);
	tmpdir = NULL;
}

static void *read_file(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "cannot open %s: %s", path, strerror(errno));
	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static void serialize_sample(void **data, size_t *len)
{
	struct ura_pack_builder *b = NULL;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	ck_assert_int_eq(ura_pack_builder_serialize(b, data, len), 0);
	ura_pack_builder_free(b);
}

/* Rewrite the CRC after a deliberate edit, so the parser looks past the checksum. */
static void fix_crc(uint8_t *d, size_t len)
{
	put_le32(d + HDR_CRC, 0);
	put_le32(d + HDR_CRC, crc32c(0, d, len));
}

/* Offset of the first record of section @type in a pack image. */
static size_t section_offset(const uint8_t *d, uint32_t type)
{
	uint64_t secoff = get_le64(d + HDR_SECTIONS_OFF);

	for (uint32_t i = 0; i < get_le32(d + HDR_NSECTIONS); i++) {
		const uint8_t *e = d + secoff + i * SEC_ENT_SIZE;

		if (get_le32(e + SEC_TYPE) == type)
			return (size_t)get_le64(e + SEC_OFFSET);
	}
	ck_abort_msg("no section %u", type);
	return 0;
}

static uint8_t *section_entry(uint8_t *d, uint32_t type)
{
	uint64_t secoff = get_le64(d + HDR_SECTIONS_OFF);

	for (uint32_t i = 0; i < get_le32(d + HDR_NSECTIONS); i++) {
		uint8_t *e = d + secoff + i * SEC_ENT_SIZE;

		if (get_le32(e + SEC_TYPE) == type)
			return e;
	}
	ck_abort_msg("no section %u", type);
	return NULL;
}

START_TEST(test_golden_matches_builder)
{
	size_t glen, len;
	void *golden, *data;

	serialize_sample(&data, &len);
	if (getenv("URA_REGEN_GOLDEN")) {
		int fd = open(GOLDEN, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
		close(fd);
	}
	golden = read_file(GOLDEN, &glen);
	/* the on-disk format of version 1 must not drift */
	ck_assert_uint_eq(glen, len);
	ck_assert_mem_eq(golden, data, len);
	free(golden);
	free(data);
}
END_TEST

START_TEST(test_golden_content)
{
	struct ura_pack *p = NULL;
	struct ura_pack_file f;
	struct ura_pack_fs fs;
	struct ura_pack_range r;
	struct ura_pack_meta m;
	struct ura_pack_info info;
	unsigned major, minor;
	uint64_t prev = 0;

	ck_assert_int_eq(ura_pack_open(GOLDEN, &p), 0);
	ura_pack_version(p, &major, &minor);
	ck_assert_uint_eq(major, 1);
	ck_assert_uint_eq(minor, 0);
	ck_assert_uint_eq(ura_pack_fs_count(p), 2);
	ck_assert_uint_eq(ura_pack_file_count(p), 4);
	ck_assert_uint_eq(ura_pack_range_count(p), 6);
	ck_assert_uint_eq(ura_pack_meta_count(p), 2);

	ck_assert_int_eq(ura_pack_get_fs(p, 1, &fs), 0);
	ck_assert_uint_eq(fs.major, 259);
	ck_assert_uint_eq(fs.minor, 1048575);
	ck_assert_str_eq(fs.mount_point, "/mnt/with space");
	ck_assert_str_eq(fs.fstype, "btrfs");
	ck_assert_int_eq(ura_pack_get_fs(p, 0, &fs), 0);
	ck_assert_uint_eq(fs.flags, URA_PACK_FS_HAS_UUID);
	ck_assert_uint_eq(fs.uuid[0], 0xde);
	ck_assert_uint_eq(fs.read_ahead_kb, 128);

	ck_assert_int_eq(ura_pack_get_file(p, 2, &f), 0);
	ck_assert_str_eq(f.path, "we\xff" "ird name\nwith newline");
	ck_assert_uint_eq(f.path_len, strlen(f.path));
	ck_assert_uint_eq(f.ino, 1ULL << 40);
	ck_assert_uint_eq(f.flags, URA_PACK_FILE_HAS_BTIME);
	ck_assert_int_eq(ura_pack_get_file(p, 0, &f), 0);
	ck_assert_uint_eq(f.generation, 77);
	ck_assert_int_eq(f.mtime_ns, 1700000000123456789LL);

	for (size_t i = 0; i < ura_pack_range_count(p); i++) {
		ck_assert_int_eq(ura_pack_get_range(p, i, &r), 0);
		ck_assert_uint_ge(r.first_access_ns, prev);
		prev = r.first_access_ns;
	}
	/* equal times keep insertion order: file 0 page 100 before file 2 page 1 */
	ck_assert_int_eq(ura_pack_get_range(p, 3, &r), 0);
	ck_assert_uint_eq(r.file_index, 0);
	ck_assert_uint_eq(r.first_page, 100);
	ck_assert_int_eq(ura_pack_get_range(p, 0, &r), 0);
	ck_assert_uint_eq(r.first_access_ns, 10);
	ck_assert_uint_eq(r.flags, 0);

	ck_assert_int_eq(ura_pack_get_meta(p, 1, &m), 0);
	ck_assert_uint_eq(m.fs_index, URA_PACK_NO_INDEX);
	ck_assert_uint_eq(m.major, 7);
	ck_assert_uint_eq(m.minor, 3);

	ura_pack_get_info(p, &info);
	ck_assert_int_eq(info.created_ns, 1763776800000000000LL);
	ck_assert_str_eq(info.command, "python3 -c pass");
	ck_assert_str_eq(info.kernel_release, "6.18.0-test");
	ck_assert_uint_eq(info.lost_events, 3);
	ck_assert_uint_eq(info.flags, URA_PACK_INFO_COLD);

	ck_assert_int_eq(ura_pack_get_range(p, 6, &r), -ERANGE);
	ck_assert_int_eq(ura_pack_get_file(p, 4, &f), -ERANGE);
	ck_assert_int_eq(ura_pack_get_fs(p, 2, &fs), -ERANGE);
	ck_assert_int_eq(ura_pack_get_meta(p, 2, &m), -ERANGE);
	ura_pack_free(p);
}
END_TEST

START_TEST(test_round_trip_many)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	char *path;
	const size_t nfs = 40, nfiles = 3000, nranges = 20000, nmeta = 500;

	srand(42);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	for (size_t i = 0; i < nfs; i++) {
		char mnt[64];

		snprintf(mnt, sizeof(mnt), "/mnt/fs %zu", i);
		ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
			.major = (uint32_t)i, .minor = (uint32_t)(i * 4097) & 0xfffff,
			.mount_point = mnt, .fstype = "ext4" }, NULL), 0);
	}
	for (size_t i = 0; i < nfiles; i++) {
		char name[64];

		snprintf(name, sizeof(name), "d%zu/f\n%zu", i % 17, i);
		ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
			.fs_index = (uint32_t)(i % nfs), .path = name, .ino = i * 3 + 1,
			.size = i * 4096, .mtime_ns = (int64_t)i }, NULL), 0);
	}
	for (size_t i = 0; i < nranges; i++)
		ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
			.file_index = (uint32_t)(i % nfiles), .first_page = i,
			.page_count = (uint32_t)(i % 50 + 1), .flags = i & 1,
			.first_access_ns = (uint64_t)(rand() % 1000) }), 0);
	for (size_t i = 0; i < nmeta; i++)
		ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){
			.fs_index = (uint32_t)(i % nfs), .major = 8, .minor = (uint32_t)i,
			.offset = i * 8192, .length = 4096, .first_access_ns = i }), 0);
	ck_assert_int_ge(asprintf(&path, "%s/many.pack", tmpdir), 0);
	ck_assert_int_eq(ura_pack_builder_write(b, path, 0600), 0);
	ura_pack_builder_free(b);

	ck_assert_int_eq(ura_pack_open(path, &p), 0);
	ck_assert_uint_eq(ura_pack_fs_count(p), nfs);
	ck_assert_uint_eq(ura_pack_file_count(p), nfiles);
	ck_assert_uint_eq(ura_pack_range_count(p), nranges);
	ck_assert_uint_eq(ura_pack_meta_count(p), nmeta);
	for (size_t i = 0; i < nfiles; i += 97) {
		struct ura_pack_file f;
		char name[64];

		ck_assert_int_eq(ura_pack_get_file(p, i, &f), 0);
		snprintf(name, sizeof(name), "d%zu/f\n%zu", i % 17, i);
		ck_assert_str_eq(f.path, name);
		ck_assert_uint_eq(f.ino, i * 3 + 1);
		ck_assert_uint_eq(f.fs_index, i % nfs);
	}
	{
		/* every range came through, in time order, stable among equal times */
		uint64_t prev_t = 0, prev_page = 0, sum = 0;

		for (size_t i = 0; i < nranges; i++) {
			struct ura_pack_range r;

			ck_assert_int_eq(ura_pack_get_range(p, i, &r), 0);
			ck_assert_uint_ge(r.first_access_ns, prev_t);
			if (i && r.first_access_ns == prev_t)
				ck_assert_uint_gt(r.first_page, prev_page);
			ck_assert_uint_eq(r.page_count, r.first_page % 50 + 1);
			ck_assert_uint_eq(r.file_index, r.first_page % nfiles);
			ck_assert_uint_eq(r.flags, r.first_page & 1);
			prev_t = r.first_access_ns;
			prev_page = r.first_page;
			sum += r.first_page;
		}
		ck_assert_uint_eq(sum, (uint64_t)nranges * (nranges - 1) / 2);
	}
	{
		struct stat st;

		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_uint_eq(st.st_mode & 0777, 0600);
	}
	ura_pack_free(p);
	free(path);
}
END_TEST

START_TEST(test_truncated)
{
	struct ura_pack *p = NULL;
	size_t len;
	void *data;

	serialize_sample(&data, &len);
	for (size_t n = 0; n < len; n++) {
		ck_assert_int_eq(ura_pack_parse(data, n, &p), -EBADMSG);
		ck_assert_ptr_null(p);		/* *ret untouched on failure */
	}
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ura_pack_free(p);
	free(data);
}
END_TEST

START_TEST(test_extended)
{
	struct ura_pack *p = NULL;
	size_t len;
	uint8_t *data;

	serialize_sample((void **)&data, &len);
	data = realloc(data, len + 8);
	memset(data + len, 0, 8);
	ck_assert_int_eq(ura_pack_parse(data, len + 8, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "file size does not match the header (truncated or extended)");
	free(data);
}
END_TEST

START_TEST(test_bit_flips)
{
	struct ura_pack *p = NULL;
	size_t len;
	uint8_t *data;

	serialize_sample((void **)&data, &len);
	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit++) {
			data[i] ^= (uint8_t)(1u << bit);
			ck_assert_msg(ura_pack_parse(data, len, &p) == -EBADMSG,
				      "flip of byte %zu bit %d not caught", i, bit);
			ck_assert_ptr_null(p);
			data[i] ^= (uint8_t)(1u << bit);
		}
	free(data);
}
END_TEST

/* Each edit makes the content wrong while the checksum is right: the checks must still say no. */
START_TEST(test_absurd_fields)
{
	static const struct {
		const char *what;
		int section;	/* 0: header offset; else section type (record offset) */
		size_t off;
		int width;
		uint64_t value;
		const char *error;
	} cases[] = {
		{ "header size", 0, HDR_SIZE, 4, 4, "bad header size" },
		{ "header size past end", 0, HDR_SIZE, 4, 1 << 20, "bad header size" },
		{ "section count", 0, HDR_NSECTIONS, 4, 0xffffffffu, "section table outside the file" },
		{ "section table offset", 0, HDR_SECTIONS_OFF, 8, UINT64_MAX - 3,
		  "section table outside the file" },
		{ "fs index", SEC_FILES, FILE_FS, 4, 2, "file refers to a missing filesystem" },
		{ "path offset", SEC_FILES, FILE_PATH, 4, 0xfffffff0u, "string reference out of bounds" },
		{ "path length", SEC_FILES, FILE_PATH + 4, 4, 0xffffffffu,
		  "string reference out of bounds" },
		{ "file index", SEC_RANGES, RANGE_FILE, 4, 4, "range refers to a missing file" },
		{ "zero pages", SEC_RANGES, RANGE_COUNT, 4, 0, "range empty or past the largest page" },
		{ "huge page", SEC_RANGES, RANGE_FIRST, 8, UINT64_MAX - 1,
		  "range empty or past the largest page" },
		{ "time order", SEC_RANGES, RANGE_TIME, 8, UINT64_MAX, "ranges not in first-access order" },
		{ "meta fs", SEC_METADATA, META_FS, 4, 9, "metadata range refers to a missing filesystem" },
		{ "meta unaligned", SEC_METADATA, META_OFFSET, 8, 4097,
		  "metadata range empty, unaligned or too large" },
		{ "meta length", SEC_METADATA, META_LENGTH, 8, UINT64_MAX & ~4095ULL,
		  "metadata range empty, unaligned or too large" },
		{ "mount point", SEC_FILESYSTEMS, FS_MNT, 4, 1u << 31, "string reference out of bounds" },
	};
	size_t len;
	uint8_t *orig, *data;

	serialize_sample((void **)&orig, &len);
	data = malloc(len);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ura_pack *p = NULL;
		size_t at;

		memcpy(data, orig, len);
		at = (cases[i].section ? section_offset(data, (uint32_t)cases[i].section) : 0) +
		     cases[i].off;
		if (cases[i].width == 4)
			put_le32(data + at, (uint32_t)cases[i].value);
		else
			put_le64(data + at, cases[i].value);
		fix_crc(data, len);
		ck_assert_msg(ura_pack_parse(data, len, &p) == -EBADMSG, "%s accepted", cases[i].what);
		ck_assert_ptr_null(p);
		ck_assert_msg(strcmp(ura_pack_error(), cases[i].error) == 0, "%s: got '%s'",
			      cases[i].what, ura_pack_error());
	}
	free(data);
	free(orig);
}
END_TEST

START_TEST(test_section_counts)
{
	struct ura_pack *p = NULL;
	size_t len;
	uint8_t *data, *e;

	serialize_sample((void **)&data, &len);
	e = section_entry(data, SEC_RANGES);
	put_le32(e + SEC_COUNT, 0x7fffffff);		/* count disagrees with size */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	put_le32(e + SEC_COUNT, 6);
	put_le64(e + SEC_SIZE, 1ULL << 40);		/* size past the end of the file */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "section outside the file or unaligned");
	put_le64(e + SEC_SIZE, 6 * RANGE_REC_SIZE);
	put_le32(e + SEC_ENTRY_SIZE, 8);		/* records shorter than version 1's */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	put_le32(e + SEC_ENTRY_SIZE, RANGE_REC_SIZE);
	put_le32(e + SEC_TYPE, SEC_FILES);		/* two file tables */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "duplicate section");
	ck_assert_ptr_null(p);
	free(data);
}
END_TEST

START_TEST(test_unknown_flags_and_sections)
{
	struct ura_pack *p = NULL;
	size_t len;
	uint8_t *data, *e;

	serialize_sample((void **)&data, &len);
	put_le32(data + HDR_INCOMPAT, 1u << 7);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EOPNOTSUPP);
	ck_assert_ptr_null(p);

	put_le32(data + HDR_INCOMPAT, 0);
	put_le32(data + HDR_COMPAT, 1u << 9);		/* unknown compatible flag: fine */
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ura_pack_free(p);
	p = NULL;

	/* a later minor version's section: skipped when optional, refused when required */
	e = section_entry(data, SEC_METADATA);
	put_le32(e + SEC_TYPE, 200);
	put_le32(e + SEC_FLAGS, 0);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ck_assert_uint_eq(ura_pack_meta_count(p), 0);
	ura_pack_free(p);
	p = NULL;
	put_le32(e + SEC_FLAGS, SEC_FLAG_REQUIRED);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EOPNOTSUPP);

	put_le16(data + HDR_MAJOR, 2);
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EOPNOTSUPP);
	ck_assert_str_eq(ura_pack_error(), "unsupported major version");
	ck_assert_ptr_null(p);
	free(data);
}
END_TEST

START_TEST(test_bad_paths)
{
	static const char *const bad_paths[] = { "", "/etc/passwd", "../x", "a/../../b", "a//b",
						 "./a", "a/.", "a/" };
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	size_t len, at;
	uint8_t *data;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .mount_point = "/" },
						 NULL), 0);
	for (size_t i = 0; i < sizeof(bad_paths) / sizeof(bad_paths[0]); i++)
		ck_assert_msg(ura_pack_builder_add_file(b, &(struct ura_pack_file){
			.path = bad_paths[i] }, NULL) == -EINVAL, "'%s' accepted", bad_paths[i]);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){ .fs_index = 1,
		.path = "x" }, NULL), -EINVAL);
	ck_assert_int_eq(ura_pack_builder_add_file(b, &(struct ura_pack_file){
		.path = "ab/cd" }, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){ .file_index = 1,
		.page_count = 1 }), -EINVAL);
	ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){ .file_index = 0,
		.page_count = 0 }), -EINVAL);
	ck_assert_int_eq(ura_pack_builder_add_meta(b, &(struct ura_pack_meta){ .offset = 1,
		.length = 4096 }), -EINVAL);
	ck_assert_int_eq(ura_pack_builder_serialize(b, (void **)&data, &len), 0);
	ura_pack_builder_free(b);

	/* a hostile writer puts ".." in the string table: the reader refuses it */
	at = section_offset(data, SEC_STRINGS);
	data = (uint8_t *)data;
	for (size_t i = at; i + 5 <= len; i++)
		if (memcmp(data + i, "ab/cd", 5) == 0) {
			memcpy(data + i, "../cd", 5);
			break;
		}
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(), "file path not normalised (empty, '.' or '..' component)");
	free(data);
}
END_TEST

/* A mount point with ".." would let a replay under --root leave the root. */
START_TEST(test_bad_mount_points)
{
	static const char *const bad_mnts[] = { "", "mnt", "/mnt/", "//", "/a//b", "/..",
						"/mnt/../etc", "/./mnt" };
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	size_t len, at;
	uint8_t *data;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	for (size_t i = 0; i < sizeof(bad_mnts) / sizeof(bad_mnts[0]); i++)
		ck_assert_msg(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
			.mount_point = bad_mnts[i] }, NULL) == -EINVAL, "'%s' accepted", bad_mnts[i]);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){ .mount_point = "/" },
						 NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.mount_point = "/mnt/x.y/..." }, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.mount_point = "/mnt/zz/etc" }, NULL), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, (void **)&data, &len), 0);
	ura_pack_builder_free(b);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ura_pack_free(p);
	p = NULL;

	/* a hostile writer puts ".." in a mount point: the reader refuses it */
	at = section_offset(data, SEC_STRINGS);
	for (size_t i = at; i + 11 <= len; i++)
		if (memcmp(data + i, "/mnt/zz/etc", 11) == 0) {
			memcpy(data + i, "/mnt/../etc", 11);
			break;
		}
	fix_crc(data, len);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), -EBADMSG);
	ck_assert_str_eq(ura_pack_error(),
			 "mount point not normalised (empty, '.' or '..' component)");
	ck_assert_ptr_null(p);
	free(data);
}
END_TEST

START_TEST(test_open_errors)
{
	struct ura_pack *p = NULL;
	char *path;

	ck_assert_int_eq(ura_pack_open("/nonexistent/ura.pack", &p), -ENOENT);
	ck_assert_int_eq(ura_pack_open(tmpdir, &p), -EISDIR);
	ck_assert_int_ge(asprintf(&path, "%s/fifo", tmpdir), 0);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(ura_pack_open(path, &p), -EINVAL);	/* no block on a FIFO */
	ck_assert_int_eq(ura_pack_open("/dev/null", &p), -EINVAL);
	ck_assert_ptr_null(p);
	free(path);
}
END_TEST

/* A FIFO is never opened, not even through a symlink: a writer waiting on it stays blocked. */
START_TEST(test_open_never_opens_fifo)
{
	struct ura_pack *p = NULL;
	char *fifo, *link;
	int status, fd;
	pid_t pid;

	ck_assert_int_ge(asprintf(&fifo, "%s/fifo2", tmpdir), 0);
	ck_assert_int_ge(asprintf(&link, "%s/fifo2.pack", tmpdir), 0);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(symlink(fifo, link), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(open(fifo, O_WRONLY | O_CLOEXEC) >= 0 ? 0 : 1);	/* waits for a reader */
	usleep(100 * 1000);	/* the writer is waiting in open() by now */
	ck_assert_int_eq(ura_pack_open(link, &p), -EINVAL);
	ck_assert_int_eq(ura_pack_open(fifo, &p), -EINVAL);
	usleep(100 * 1000);
	ck_assert_int_eq(waitpid(pid, &status, WNOHANG), 0);	/* still waiting: never opened */
	fd = open(fifo, O_RDONLY | O_CLOEXEC);		/* let it go */
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	close(fd);
	free(fifo);
	free(link);
}
END_TEST

START_TEST(test_open_fd)
{
	struct ura_pack *p = NULL;
	int fd = open(GOLDEN, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(lseek(fd, 100, SEEK_SET), 100);	/* read from 0 whatever the offset */
	ck_assert_int_eq(ura_pack_open_fd(fd, &p), 0);
	ck_assert_uint_eq(ura_pack_range_count(p), 6);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 100);		/* and the offset is left alone */
	ura_pack_free(p);
	p = NULL;
	close(fd);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(ura_pack_open_fd(fd, &p), -EINVAL);
	close(fd);
	ck_assert_int_eq(ura_pack_open_fd(-1, &p), -EBADF);
	ck_assert_ptr_null(p);
}
END_TEST

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The previous pack must survive a write that fails: same bytes, no temporary left behind. */
static void check_previous_intact(const char *path, const void *old, size_t oldlen)
{
	size_t len;
	void *now = read_file(path, &len);

	ck_assert_uint_eq(len, oldlen);
	ck_assert_mem_eq(now, old, len);
	free(now);
	ck_assert_int_eq(count_entries(tmpdir), 1);
}

/* A forked child frees what it inherited, so valgrind's leak check stays quiet in it. */
static void child_cleanup(struct ura_pack_builder *b, char *path, void *old)
{
	ura_pack_builder_free(b);
	free(path);
	free(old);
	free(tmpdir);
}

static struct ura_pack_builder *big_builder(void)
{
	struct ura_pack_builder *b = NULL;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	for (int i = 0; i < 5000; i++)
		ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
			.file_index = 0, .first_page = (UINT64_C(1) << 20) + (uint64_t)i,
			.page_count = 1, .first_access_ns = 9000 }), 0);
	return b;
}

START_TEST(test_write_fails_fsize)
{
	struct ura_pack_builder *b = NULL;
	char *path;
	void *old;
	size_t oldlen;
	pid_t pid;
	int status, r;

	ck_assert_int_ge(asprintf(&path, "%s/p.pack", tmpdir), 0);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	ck_assert_int_eq(ura_pack_builder_write(b, path, 0644), 0);
	ura_pack_builder_free(b);
	old = read_file(path, &oldlen);

	/* no ck_assert in the child: Check's own messages must not meet the limits set there */
	b = big_builder();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit rl = { 4096, 4096 };

		signal(SIGXFSZ, SIG_IGN);	/* write() then fails with EFBIG */
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(2);
		r = ura_pack_builder_write(b, path, 0644);
		child_cleanup(b, path, old);
		_exit(r == -EFBIG ? 0 : r < 0 ? -r : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ura_pack_builder_free(b);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "write did not fail with EFBIG (status %#x)", status);
	check_previous_intact(path, old, oldlen);
	free(old);
	free(path);
}
END_TEST

START_TEST(test_write_fails_readonly_dir)
{
	struct ura_pack_builder *b = NULL;
	char *path;
	void *old;
	size_t oldlen;
	pid_t pid;
	int status;

	ck_assert_int_ge(asprintf(&path, "%s/p.pack", tmpdir), 0);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	ck_assert_int_eq(ura_pack_builder_write(b, path, 0644), 0);
	ura_pack_builder_free(b);
	old = read_file(path, &oldlen);

	/* no ck_assert in the child: Check's own messages must not meet the limits set there */
	b = big_builder();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int r;

		/*
		 * root ignores mode bits, so as root make the directory truly
		 * read-only: a read-only bind mount in a private mount namespace.
		 */
		if (geteuid() == 0) {
			if (unshare(CLONE_NEWNS) < 0 ||
			    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
			    mount(tmpdir, tmpdir, "none", MS_BIND, NULL) < 0 ||
			    mount("none", tmpdir, "none", MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0)
				_exit(3);
		} else if (chmod(tmpdir, 0555) < 0) {
			_exit(3);
		}
		r = ura_pack_builder_write(b, path, 0644);
		child_cleanup(b, path, old);
		_exit(r == -EROFS || r == -EACCES ? 0 : r < 0 ? -r : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ura_pack_builder_free(b);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) != 3, "cannot make the directory read-only");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "write did not fail (status %#x)", status);
	chmod(tmpdir, 0755);
	check_previous_intact(path, old, oldlen);
	free(old);
	free(path);
}
END_TEST

START_TEST(test_write_replaces)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	char *path;

	ck_assert_int_ge(asprintf(&path, "%s/p.pack", tmpdir), 0);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	sample_pack_build(b);
	ck_assert_int_eq(ura_pack_builder_write(b, path, 0644), 0);
	ura_pack_builder_free(b);
	b = big_builder();
	ck_assert_int_eq(ura_pack_builder_write(b, path, 0644), 0);
	ura_pack_builder_free(b);
	ck_assert_int_eq(ura_pack_open(path, &p), 0);
	ck_assert_uint_eq(ura_pack_range_count(p), 5006);
	ura_pack_free(p);
	ck_assert_int_eq(count_entries(tmpdir), 1);
	free(path);
}
END_TEST

START_TEST(test_empty_pack)
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack *p = NULL;
	struct ura_pack_info info;
	size_t len;
	void *data;

	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_serialize(b, &data, &len), 0);
	ura_pack_builder_free(b);
	ck_assert_int_eq(ura_pack_parse(data, len, &p), 0);
	ck_assert_uint_eq(ura_pack_file_count(p) + ura_pack_range_count(p) + ura_pack_fs_count(p), 0);
	ura_pack_get_info(p, &info);
	ck_assert_str_eq(info.command, "");
	ura_pack_free(p);
	free(data);
}
END_TEST

START_TEST(test_crc32c_vectors)
{
	/* RFC 3720 B.4 check values */
	static const uint8_t zeros[32] = { 0 };
	uint8_t ones[32], inc[32];

	memset(ones, 0xff, sizeof(ones));
	for (int i = 0; i < 32; i++)
		inc[i] = (uint8_t)i;
	ck_assert_uint_eq(crc32c(0, "123456789", 9), 0xe3069283);
	ck_assert_uint_eq(crc32c(0, zeros, 32), 0x8a9136aa);
	ck_assert_uint_eq(crc32c(0, ones, 32), 0x62a8ab43);
	ck_assert_uint_eq(crc32c(0, inc, 32), 0x46dd794e);
	/* continuing a CRC equals one pass */
	ck_assert_uint_eq(crc32c(crc32c(0, "12345", 5), "6789", 4), 0xe3069283);
}
END_TEST

static Suite *pack_suite(void)
{
	Suite *s = suite_create("pack");
	TCase *tc = tcase_create("format");
	TCase *io = tcase_create("io");

	tcase_add_test(tc, test_golden_matches_builder);
	tcase_add_test(tc, test_golden_content);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_extended);
	tcase_add_test(tc, test_bit_flips);
	tcase_add_test(tc, test_absurd_fields);
	tcase_add_test(tc, test_section_counts);
	tcase_add_test(tc, test_unknown_flags_and_sections);
	tcase_add_test(tc, test_bad_paths);
	tcase_add_test(tc, test_bad_mount_points);
	tcase_add_test(tc, test_empty_pack);
	tcase_add_test(tc, test_crc32c_vectors);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(io, setup, teardown);
	tcase_add_test(io, test_round_trip_many);
	tcase_add_test(io, test_open_errors);
	tcase_add_test(io, test_open_never_opens_fifo);
	tcase_add_test(io, test_open_fd);
	tcase_add_test(io, test_write_fails_fsize);
	tcase_add_test(io, test_write_fails_readonly_dir);
	tcase_add_test(io, test_write_replaces);
	tcase_set_timeout(io, 60);
	suite_add_tcase(s, io);
	return s;
}

UNIT_SUITE(pack_suite)
