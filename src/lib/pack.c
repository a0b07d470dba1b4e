// SPDX-License-Identifier: LGPL-2.1-or-later
/* Reading packs: validate a pack image once, then decode its records on demand */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ura/pack.h"
#include "crc32c.h"
#include "pack-access.h"
#include "pack-internal.h"

struct section {
	const uint8_t *base;	/* first record, inside pack->data */
	uint32_t count;
	uint32_t entry_size;
};

struct ura_pack {
	uint8_t *data;		/* the whole file; records are decoded from here on demand */
	size_t len;
	unsigned major, minor;
	int64_t created_ns;
	const char *strings;	/* string table, NUL-terminated entries */
	size_t strings_len;
	struct section fs, files, ranges, meta;
	const uint8_t *info;	/* trace info record or NULL */
	struct section runs, range_sup, meta_sup, pending;	/* 1.1; count 0 when absent */
	const uint8_t *access;	/* 1.1: the access log section, or NULL */
	uint64_t access_size;
	struct pack_access_log log;	/* its records, checked */
	struct section ra_fs;	/* 1.1: readahead facts by filesystem */
};

static __thread const char *last_error = "no error";

const char *ura_pack_error(void)
{
	return last_error;
}

static int bad(const char *why)
{
	last_error = why;
	return -EBADMSG;
}

/* ---- reading ---- */

/* A string reference is valid when it lies in the table, ends in NUL and holds no other NUL. */
static int check_string(const struct ura_pack *p, const uint8_t *ref, const char **ret)
{
	uint32_t off = get_le32(ref), len = get_le32(ref + 4);

	if (!p->strings || (uint64_t)off + len >= p->strings_len)
		return bad("string reference out of bounds");
	if (p->strings[off + len] != '\0' || memchr(p->strings + off, '\0', len))
		return bad("malformed string");
	if (ret)
		*ret = p->strings + off;
	return 0;
}

static const char *string_at(const struct ura_pack *p, const uint8_t *ref)
{
	return p->strings + get_le32(ref);
}

/* Paths are relative and normalised: no leading '/', no empty, "." or ".." component. */
const char *pack_path_problem(const char *path, size_t len)
{
	const char *c = path, *end = path + len;

	if (len == 0 || path[0] == '/' || path[len - 1] == '/')
		return "file path empty or absolute";
	while (c < end) {
		const char *slash = memchr(c, '/', (size_t)(end - c));
		size_t n = (size_t)((slash ? slash : end) - c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return "file path not normalised (empty, '.' or '..' component)";
		c += n + 1;
	}
	return NULL;
}

/*
 * Mount points are absolute and normalised, as the kernel shows them: "/" or "/a/b". A ".."
 * would let a pack replayed with --root name files outside the root.
 */
const char *pack_mount_point_problem(const char *mp, size_t len)
{
	if (len == 0 || mp[0] != '/')
		return "mount point not absolute";
	if (len > 1 && pack_path_problem(mp + 1, len - 1))
		return "mount point not normalised (empty, '.' or '..' component)";
	return NULL;
}

static int check_path(const char *path, size_t len)
{
	const char *why = pack_path_problem(path, len);

	return why ? bad(why) : 0;
}

static int check_mount_point(const char *mp, size_t len)
{
	const char *why = pack_mount_point_problem(mp, len);

	return why ? bad(why) : 0;
}

static int check_fs(const struct ura_pack *p, const uint8_t *r)
{
	const char *mp;
	int k;

	if ((k = check_string(p, r + FS_MNT, &mp)) < 0 ||
	    (k = check_string(p, r + FS_TYPE, NULL)) < 0 ||
	    (k = check_string(p, r + FS_SOURCE, NULL)) < 0)
		return k;
	return check_mount_point(mp, get_le32(r + FS_MNT + 4));
}

static int check_file(const struct ura_pack *p, const uint8_t *r)
{
	const char *path;
	int k;

	if (get_le32(r + FILE_FS) >= p->fs.count)
		return bad("file refers to a missing filesystem");
	k = check_string(p, r + FILE_PATH, &path);
	if (k < 0)
		return k;
	return check_path(path, get_le32(r + FILE_PATH + 4));
}

static int check_range(const struct ura_pack *p, const uint8_t *r, uint64_t *prev_time)
{
	uint64_t first = get_le64(r + RANGE_FIRST), t = get_le64(r + RANGE_TIME);
	uint32_t count = get_le32(r + RANGE_COUNT);

	if (get_le32(r + RANGE_FILE) >= p->files.count)
		return bad("range refers to a missing file");
	if (count == 0 || first >= PACK_MAX_PAGE || count > PACK_MAX_PAGE - first)
		return bad("range empty or past the largest page");
	if (t < *prev_time)
		return bad("ranges not in first-access order");
	*prev_time = t;
	return 0;
}

static int check_meta(const struct ura_pack *p, const uint8_t *r)
{
	uint32_t fs = get_le32(r + META_FS);
	uint64_t off = get_le64(r + META_OFFSET), len = get_le64(r + META_LENGTH);

	if (fs != URA_PACK_NO_INDEX && fs >= p->fs.count)
		return bad("metadata range refers to a missing filesystem");
	if (len == 0 || off % URA_PACK_PAGE_SIZE || len % URA_PACK_PAGE_SIZE ||
	    off >= PACK_MAX_BYTES || len > PACK_MAX_BYTES - off)
		return bad("metadata range empty, unaligned or too large");
	return 0;
}

static int check_info(const struct ura_pack *p, const uint8_t *r)
{
	int k = check_string(p, r + INFO_KERNEL, NULL);

	return k < 0 ? k : check_string(p, r + INFO_COMMAND, NULL);
}

/* Check one section table entry and record where its records are. */
static int load_section(struct ura_pack *p, const uint8_t *e, uint32_t *seen)
{
	uint32_t type = get_le32(e + SEC_TYPE), flags = get_le32(e + SEC_FLAGS);
	uint64_t off = get_le64(e + SEC_OFFSET), size = get_le64(e + SEC_SIZE);
	uint32_t count = get_le32(e + SEC_COUNT), esize = get_le32(e + SEC_ENTRY_SIZE);
	static const uint32_t min_size[] = {
		[SEC_STRINGS] = 1, [SEC_FILESYSTEMS] = FS_REC_SIZE, [SEC_FILES] = FILE_REC_SIZE,
		[SEC_RANGES] = RANGE_REC_SIZE, [SEC_METADATA] = META_REC_SIZE,
		[SEC_TRACE_INFO] = INFO_REC_SIZE, [SEC_RUNS] = RUN_REC_SIZE,
		[SEC_RANGE_SUPPORT] = SUP_REC_SIZE, [SEC_META_SUPPORT] = SUP_REC_SIZE,
		[SEC_PENDING] = PEND_REC_SIZE, [SEC_ACCESS] = 1, [SEC_RA_FS] = RAFS_REC_SIZE,
	};
	struct section *s = NULL;

	if (off > p->len || size > p->len - off || off % 8)
		return bad("section outside the file or unaligned");
	if (type == 0 || type > SEC_MAX_KNOWN) {
		if (flags & SEC_FLAG_REQUIRED) {
			last_error = "unknown required section (pack needs a newer reader)";
			return -EOPNOTSUPP;
		}
		return 0;	/* a later minor version's section: skip it */
	}
	if (*seen & (1u << type))
		return bad("duplicate section");
	*seen |= 1u << type;
	if (esize < min_size[type] || ((type == SEC_STRINGS || type == SEC_ACCESS) && esize != 1))
		return bad("section entry size too small");
	if ((uint64_t)count * esize != size)
		return bad("section size does not match its count");

	switch (type) {
	case SEC_STRINGS:
		p->strings = (const char *)p->data + off;
		p->strings_len = size;
		return 0;
	case SEC_TRACE_INFO:
		if (count != 1)
			return bad("trace info section must hold one record");
		p->info = p->data + off;
		return 0;
	case SEC_FILESYSTEMS:
		s = &p->fs;
		break;
	case SEC_FILES:
		s = &p->files;
		break;
	case SEC_RANGES:
		s = &p->ranges;
		break;
	case SEC_METADATA:
		s = &p->meta;
		break;
	case SEC_RUNS:
		s = &p->runs;
		break;
	case SEC_RANGE_SUPPORT:
		s = &p->range_sup;
		break;
	case SEC_META_SUPPORT:
		s = &p->meta_sup;
		break;
	case SEC_PENDING:
		s = &p->pending;
		break;
	case SEC_ACCESS:
		p->access = p->data + off;
		p->access_size = size;
		return 0;
	case SEC_RA_FS:
		s = &p->ra_fs;
		break;
	default:
		return 0;
	}
	s->base = p->data + off;
	s->count = count;
	s->entry_size = esize;
	return 0;
}

/*
 * Support records (1.1): one per range or metadata range, naming runs of the
 * run table; the count is the number of runs in the mask (at most 64 runs).
 */
static uint64_t all_runs(const struct ura_pack *p)
{
	return p->runs.count == PACK_MAX_RUNS ? UINT64_MAX : (UINT64_C(1) << p->runs.count) - 1;
}

/* Pending ranges (1.1): pages of a file, in any order, with the runs that had them. */
static int check_pending(const struct ura_pack *p)
{
	for (uint32_t i = 0; i < p->pending.count; i++) {
		const uint8_t *r = p->pending.base + (size_t)i * p->pending.entry_size;
		uint64_t first = get_le64(r + PEND_FIRST), mask = get_le64(r + PEND_MASK);
		uint32_t count = get_le32(r + PEND_COUNT);

		if (!p->runs.count)
			return bad("pending ranges without a run table");
		if (get_le32(r + PEND_FILE) >= p->files.count)
			return bad("pending range refers to a missing file");
		if (count == 0 || first >= PACK_MAX_PAGE || count > PACK_MAX_PAGE - first)
			return bad("pending range empty or past the largest page");
		if (mask == 0 || (mask & ~all_runs(p)) ||
		    get_le32(r + PEND_SUPPORT) != (uint32_t)__builtin_popcountll(mask))
			return bad("pending range support does not match its run mask");
	}
	return 0;
}

/* Readahead facts (1.1): filesystems of the pack, each once, in order. */
static int check_ra_fs(const struct ura_pack *p)
{
	for (uint32_t i = 0; i < p->ra_fs.count; i++) {
		const uint8_t *r = p->ra_fs.base + (size_t)i * p->ra_fs.entry_size;
		uint32_t fs = get_le32(r + RAFS_FS);

		if (fs >= p->fs.count)
			return bad("readahead facts of a missing filesystem");
		if (i && fs <= get_le32(r - p->ra_fs.entry_size + RAFS_FS))
			return bad("readahead facts not in filesystem order, or repeated");
		if (get_le32(r + RAFS_FAULT_AROUND) >= ACCESS_MAX_AROUND)
			return bad("fault-around window of a filesystem too large");
	}
	return 0;
}

/* The access log (1.1): every record checked, and marked for decoding. */
static int check_access(struct ura_pack *p)
{
	const char *why = NULL;
	int k;

	if (!p->access)
		return 0;
	k = pack_access_load(&p->log, p->access, p->access_size, p->files.count, &why);
	if (k == -EBADMSG)
		return bad(why);
	return k;
}

static int check_support(const struct ura_pack *p, const struct section *sup, uint32_t records,
			 bool present)
{
	uint64_t all = all_runs(p);

	if (!present)
		return 0;
	if (!p->runs.count)
		return bad("support counts without a run table");
	if (sup->count != records)
		return bad("support section does not have one record per range");
	for (uint32_t i = 0; i < sup->count; i++) {
		const uint8_t *r = sup->base + (size_t)i * sup->entry_size;
		uint64_t mask = get_le64(r + SUP_MASK);

		if (mask == 0 || (mask & ~all))
			return bad("range support names no run or a run past the run table");
		if (get_le32(r + SUP_COUNT) != (uint32_t)__builtin_popcountll(mask))
			return bad("range support count does not match its run mask");
	}
	return 0;
}

static int validate(struct ura_pack *p)
{
	const uint8_t *d = p->data;
	uint32_t hsize, nsec, seen = 0, crc;
	uint64_t secoff, prev_time = 0;
	uint8_t zero[4] = { 0 };
	int k;

	if (p->len < HDR_V1_SIZE)
		return bad("file shorter than a pack header");
	if (memcmp(d + HDR_MAGIC, PACK_MAGIC, PACK_MAGIC_LEN) != 0)
		return bad("bad magic: not a ura pack");
	/*
	 * The first 40 bytes keep their meaning in every major version, so the
	 * size and the checksum are checked first: a flipped bit then reads as
	 * corruption, never as "needs a newer reader".
	 */
	if (get_le64(d + HDR_FILE_SIZE) != p->len)
		return bad("file size does not match the header (truncated or extended)");
	crc = crc32c(0, d, HDR_CRC);
	crc = crc32c(crc, zero, sizeof(zero));
	crc = crc32c(crc, d + HDR_CRC + 4, p->len - HDR_CRC - 4);
	if (crc != get_le32(d + HDR_CRC))
		return bad("checksum mismatch");
	p->major = get_le16(d + HDR_MAJOR);
	p->minor = get_le16(d + HDR_MINOR);
	if (p->major != URA_PACK_VERSION_MAJOR) {
		last_error = "unsupported major version";
		return p->major > URA_PACK_VERSION_MAJOR ? -EOPNOTSUPP : -EBADMSG;
	}
	if (get_le32(d + HDR_INCOMPAT) & ~PACK_INCOMPAT_KNOWN) {
		last_error = "unknown incompatible feature flag (pack needs a newer reader)";
		return -EOPNOTSUPP;
	}
	hsize = get_le32(d + HDR_SIZE);
	if (hsize < HDR_V1_SIZE || hsize > p->len || hsize % 8)
		return bad("bad header size");
	p->created_ns = (int64_t)get_le64(d + HDR_CREATED);

	nsec = get_le32(d + HDR_NSECTIONS);
	secoff = get_le64(d + HDR_SECTIONS_OFF);
	if (secoff < hsize || secoff > p->len || (uint64_t)nsec * SEC_ENT_SIZE > p->len - secoff)
		return bad("section table outside the file");
	for (uint32_t i = 0; i < nsec; i++) {
		k = load_section(p, d + secoff + (uint64_t)i * SEC_ENT_SIZE, &seen);
		if (k < 0)
			return k;
	}
	if (p->strings && (p->strings_len == 0 || p->strings[p->strings_len - 1] != '\0'))
		return bad("string table not NUL-terminated");

	for (uint32_t i = 0; i < p->fs.count; i++)
		if ((k = check_fs(p, p->fs.base + (size_t)i * p->fs.entry_size)) < 0)
			return k;
	for (uint32_t i = 0; i < p->files.count; i++)
		if ((k = check_file(p, p->files.base + (size_t)i * p->files.entry_size)) < 0)
			return k;
	for (uint32_t i = 0; i < p->ranges.count; i++)
		if ((k = check_range(p, p->ranges.base + (size_t)i * p->ranges.entry_size,
				     &prev_time)) < 0)
			return k;
	for (uint32_t i = 0; i < p->meta.count; i++)
		if ((k = check_meta(p, p->meta.base + (size_t)i * p->meta.entry_size)) < 0)
			return k;
	if (p->info && (k = check_info(p, p->info)) < 0)
		return k;
	if ((seen & (1u << SEC_RUNS)) && (p->runs.count == 0 || p->runs.count > PACK_MAX_RUNS))
		return bad("run table empty or over 64 runs");
	if ((k = check_support(p, &p->range_sup, p->ranges.count,
			       seen & (1u << SEC_RANGE_SUPPORT))) < 0 ||
	    (k = check_support(p, &p->meta_sup, p->meta.count,
			       seen & (1u << SEC_META_SUPPORT))) < 0 ||
	    (k = check_pending(p)) < 0 || (k = check_ra_fs(p)) < 0 || (k = check_access(p)) < 0)
		return k;
	return 0;
}

/* Takes ownership of @data (malloc()ed). */
static int parse_owned(uint8_t *data, size_t len, struct ura_pack **ret)
{
	struct ura_pack *p;
	int r;

	p = calloc(1, sizeof(*p));
	if (!p) {
		free(data);
		return -ENOMEM;
	}
	p->data = data;
	p->len = len;
	r = validate(p);
	if (r < 0) {
		ura_pack_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

int ura_pack_parse(const void *data, size_t len, struct ura_pack **ret)
{
	uint8_t *copy;

	if (!data && len)
		return -EINVAL;
	if (len > PACK_MAX_FILE_SIZE)
		return -EFBIG;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, data, len);
	return parse_owned(copy, len, ret);
}

/*
 * The file is read, not mmap()ed: a pack truncated by someone else while we
 * hold it must not turn into SIGBUS in a boot-time replayer. One read of a
 * pack of 10^6 ranges (32 MB) costs a few ms; records are not copied again.
 */
int ura_pack_open_fd(int fd, struct ura_pack **ret)
{
	uint8_t *buf = NULL;
	struct stat st;
	size_t got = 0, want;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;	/* FIFO, socket, device: never read */
	if ((uint64_t)st.st_size > PACK_MAX_FILE_SIZE)
		return -EFBIG;
	want = (size_t)st.st_size;
	buf = malloc(want ? want : 1);
	if (!buf)
		return -ENOMEM;
	while (got < want) {
		ssize_t n = pread(fd, buf + got, want - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			free(buf);
			return r;
		}
		if (n == 0)
			break;	/* shrank under us: validation will say truncated */
		got += (size_t)n;
	}
	return parse_owned(buf, got, ret);
}

int ura_pack_open_file(const char *path)
{
	char proc[64];
	struct stat st;
	int pfd, fd;

	/* look first: a device or a FIFO is never opened (a watchdog starts, a tape rewinds) */
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0) {
		fd = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		fd = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) {
		/* no /proc (early boot): by path, and it must still be the file looked at */
		struct stat now;

		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
		if (fd >= 0 && (fstat(fd, &now) < 0 || !S_ISREG(now.st_mode) ||
				now.st_dev != st.st_dev || now.st_ino != st.st_ino)) {
			close(fd);
			fd = -1;
			errno = EINVAL;
		}
	}
	if (fd < 0)
		fd = -errno;
out:
	close(pfd);
	return fd;
}

int ura_pack_open(const char *path, struct ura_pack **ret)
{
	int fd, r;

	fd = ura_pack_open_file(path);
	if (fd < 0)
		return fd;
	r = ura_pack_open_fd(fd, ret);
	close(fd);
	return r;
}

void ura_pack_free(struct ura_pack *pack)
{
	if (!pack)
		return;
	pack_access_free(&pack->log);
	free(pack->data);
	free(pack);
}

size_t ura_pack_fs_count(const struct ura_pack *pack)
{
	return pack->fs.count;
}

size_t ura_pack_file_count(const struct ura_pack *pack)
{
	return pack->files.count;
}

size_t ura_pack_range_count(const struct ura_pack *pack)
{
	return pack->ranges.count;
}

size_t ura_pack_meta_count(const struct ura_pack *pack)
{
	return pack->meta.count;
}

static const uint8_t *record(const struct section *s, size_t index)
{
	return index < s->count ? s->base + index * s->entry_size : NULL;
}

int ura_pack_get_fs(const struct ura_pack *pack, size_t index, struct ura_pack_fs *ret)
{
	const uint8_t *r = record(&pack->fs, index);

	if (!r)
		return -ERANGE;
	pack_record_fs(r, pack->strings, ret);
	return 0;
}

int ura_pack_get_file(const struct ura_pack *pack, size_t index, struct ura_pack_file *ret)
{
	const uint8_t *r = record(&pack->files, index);

	if (!r)
		return -ERANGE;
	pack_record_file(r, pack->strings, ret);
	return 0;
}

int ura_pack_get_range(const struct ura_pack *pack, size_t index, struct ura_pack_range *ret)
{
	const uint8_t *r = record(&pack->ranges, index);

	if (!r)
		return -ERANGE;
	pack_record_range(r, ret);
	return 0;
}

int ura_pack_get_meta(const struct ura_pack *pack, size_t index, struct ura_pack_meta *ret)
{
	const uint8_t *r = record(&pack->meta, index);

	if (!r)
		return -ERANGE;
	pack_record_meta(r, ret);
	return 0;
}

void ura_pack_get_info(const struct ura_pack *pack, struct ura_pack_info *ret)
{
	const uint8_t *r = pack->info;

	*ret = (struct ura_pack_info){ .created_ns = pack->created_ns, .kernel_release = "",
				       .command = "" };
	if (!r)
		return;
	ret->duration_ns = get_le64(r + INFO_DURATION);
	ret->lost_events = get_le64(r + INFO_LOST);
	ret->unresolved_inodes = get_le64(r + INFO_UNRES_INODES);
	ret->unresolved_bytes = get_le64(r + INFO_UNRES_BYTES);
	ret->flags = get_le32(r + INFO_FLAGS);
	ret->read_ahead_kb = get_le32(r + INFO_RA_KB);
	ret->kernel_release = string_at(pack, r + INFO_KERNEL);
	ret->command = string_at(pack, r + INFO_COMMAND);
}

size_t ura_pack_runs(const struct ura_pack *pack)
{
	return pack->runs.count ? pack->runs.count : 1;
}

int ura_pack_get_run(const struct ura_pack *pack, size_t index, int64_t *ret_created_ns,
		     uint64_t *ret_duration_ns)
{
	const uint8_t *r = record(&pack->runs, index);
	struct ura_pack_info info;

	if (!r && (pack->runs.count || index > 0))
		return -ERANGE;
	if (!r) {		/* a pack of one run: the trace it was made from */
		ura_pack_get_info(pack, &info);
		if (ret_created_ns)
			*ret_created_ns = info.created_ns;
		if (ret_duration_ns)
			*ret_duration_ns = info.duration_ns;
		return 0;
	}
	if (ret_created_ns)
		*ret_created_ns = (int64_t)get_le64(r + RUN_CREATED);
	if (ret_duration_ns)
		*ret_duration_ns = get_le64(r + RUN_DURATION);
	return 0;
}

/* Without a support section every record was seen by every run of the pack. */
static int get_support(const struct ura_pack *pack, const struct section *sup, size_t records,
		       size_t index, uint32_t *ret_support, uint64_t *ret_mask)
{
	const uint8_t *r = record(sup, index);
	size_t runs = ura_pack_runs(pack);

	if (index >= records)
		return -ERANGE;
	if (ret_support)
		*ret_support = r ? get_le32(r + SUP_COUNT) : (uint32_t)runs;
	if (ret_mask)
		*ret_mask = r ? get_le64(r + SUP_MASK) : pack_all_runs(runs);
	return 0;
}

int ura_pack_get_range_support(const struct ura_pack *pack, size_t index, uint32_t *ret_support,
			       uint64_t *ret_mask)
{
	return get_support(pack, &pack->range_sup, pack->ranges.count, index, ret_support,
			   ret_mask);
}

int ura_pack_get_meta_support(const struct ura_pack *pack, size_t index, uint32_t *ret_support,
			      uint64_t *ret_mask)
{
	return get_support(pack, &pack->meta_sup, pack->meta.count, index, ret_support, ret_mask);
}

size_t ura_pack_pending_count(const struct ura_pack *pack)
{
	return pack->pending.count;
}

int ura_pack_get_pending(const struct ura_pack *pack, size_t index, struct ura_pack_range *ret,
			 uint32_t *ret_support, uint64_t *ret_mask)
{
	const uint8_t *r = record(&pack->pending, index);

	if (!r)
		return -ERANGE;
	pack_record_pending(r, ret, ret_support, ret_mask);
	return 0;
}

size_t ura_pack_access_count(const struct ura_pack *pack)
{
	return pack->log.count;
}

int ura_pack_get_access(const struct ura_pack *pack, size_t index, struct ura_pack_access *ret)
{
	return pack_access_get(&pack->log, index, ret);
}

/* The records are in filesystem order: a binary search. */
int ura_pack_get_ra_fs(const struct ura_pack *pack, size_t fs_index, struct ura_pack_ra_fs *ret)
{
	size_t lo = 0, hi = pack->ra_fs.count;

	if (fs_index >= pack->fs.count)
		return -ERANGE;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const uint8_t *r = record(&pack->ra_fs, mid);
		uint32_t fs = get_le32(r + RAFS_FS);

		if (fs == fs_index) {
			*ret = (struct ura_pack_ra_fs){
				.max_sectors_kb = get_le32(r + RAFS_MAX_SECTORS_KB),
				.fault_around_pages = get_le32(r + RAFS_FAULT_AROUND),
				.flags = get_le32(r + RAFS_FLAGS),
				.max_segments = get_le32(r + RAFS_MAX_SEGMENTS),
				.max_segment_kb = get_le32(r + RAFS_MAX_SEGMENT_KB),
			};
			return 0;
		}
		if (fs < fs_index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENODATA;
}

void ura_pack_version(const struct ura_pack *pack, unsigned *major, unsigned *minor)
{
	if (major)
		*major = pack->major;
	if (minor)
		*minor = pack->minor;
}
