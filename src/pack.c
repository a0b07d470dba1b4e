// SPDX-License-Identifier: LGPL-2.1-or-later
/* The pack format: validate and decode a pack image, build and atomically write a new one */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ura/pack.h"
#include "crc32c.h"
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
static int check_path(const char *path, size_t len)
{
	const char *c = path, *end = path + len;

	if (len == 0 || path[0] == '/' || path[len - 1] == '/')
		return bad("file path empty or absolute");
	while (c < end) {
		const char *slash = memchr(c, '/', (size_t)(end - c));
		size_t n = (size_t)((slash ? slash : end) - c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return bad("file path not normalised (empty, '.' or '..' component)");
		c += n + 1;
	}
	return 0;
}

/*
 * Mount points are absolute and normalised, as the kernel shows them: "/" or "/a/b". A ".."
 * would let a pack replayed with --root name files outside the root.
 */
static int check_mount_point(const char *mp, size_t len)
{
	if (len == 0 || mp[0] != '/')
		return bad("mount point not absolute");
	if (len > 1 && check_path(mp + 1, len - 1) < 0)
		return bad("mount point not normalised (empty, '.' or '..' component)");
	return 0;
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
		[SEC_TRACE_INFO] = INFO_REC_SIZE,
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
	if (esize < min_size[type] || (type == SEC_STRINGS && esize != 1))
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
	default:
		return 0;
	}
	s->base = p->data + off;
	s->count = count;
	s->entry_size = esize;
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

int ura_pack_open(const char *path, struct ura_pack **ret)
{
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	r = ura_pack_open_fd(fd, ret);
	close(fd);
	return r;
}

void ura_pack_free(struct ura_pack *pack)
{
	if (!pack)
		return;
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
	*ret = (struct ura_pack_fs){
		.major = get_le32(r + FS_MAJOR),
		.minor = get_le32(r + FS_MINOR),
		.mount_point = string_at(pack, r + FS_MNT),
		.fstype = string_at(pack, r + FS_TYPE),
		.source = string_at(pack, r + FS_SOURCE),
		.flags = get_le32(r + FS_FLAGS),
		.read_ahead_kb = get_le32(r + FS_RA_KB),
	};
	memcpy(ret->uuid, r + FS_UUID, sizeof(ret->uuid));
	return 0;
}

int ura_pack_get_file(const struct ura_pack *pack, size_t index, struct ura_pack_file *ret)
{
	const uint8_t *r = record(&pack->files, index);

	if (!r)
		return -ERANGE;
	*ret = (struct ura_pack_file){
		.fs_index = get_le32(r + FILE_FS),
		.flags = get_le32(r + FILE_FLAGS),
		.path = string_at(pack, r + FILE_PATH),
		.path_len = get_le32(r + FILE_PATH + 4),
		.ino = get_le64(r + FILE_INO),
		.size = get_le64(r + FILE_SIZE),
		.mtime_ns = (int64_t)get_le64(r + FILE_MTIME),
		.generation = get_le64(r + FILE_GEN),
		.btime_ns = (int64_t)get_le64(r + FILE_BTIME),
	};
	return 0;
}

int ura_pack_get_range(const struct ura_pack *pack, size_t index, struct ura_pack_range *ret)
{
	const uint8_t *r = record(&pack->ranges, index);

	if (!r)
		return -ERANGE;
	*ret = (struct ura_pack_range){
		.file_index = get_le32(r + RANGE_FILE),
		.flags = get_le32(r + RANGE_FLAGS),
		.first_page = get_le64(r + RANGE_FIRST),
		.page_count = get_le32(r + RANGE_COUNT),
		.first_access_ns = get_le64(r + RANGE_TIME),
	};
	return 0;
}

int ura_pack_get_meta(const struct ura_pack *pack, size_t index, struct ura_pack_meta *ret)
{
	const uint8_t *r = record(&pack->meta, index);

	if (!r)
		return -ERANGE;
	*ret = (struct ura_pack_meta){
		.fs_index = get_le32(r + META_FS),
		.major = get_le32(r + META_MAJOR),
		.minor = get_le32(r + META_MINOR),
		.offset = get_le64(r + META_OFFSET),
		.length = get_le64(r + META_LENGTH),
		.first_access_ns = get_le64(r + META_TIME),
	};
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

void ura_pack_version(const struct ura_pack *pack, unsigned *major, unsigned *minor)
{
	if (major)
		*major = pack->major;
	if (minor)
		*minor = pack->minor;
}

/* ---- building ---- */

struct vec {
	void *items;
	size_t count, cap, size;
};

struct ura_pack_builder {
	struct vec fs, files, ranges, meta;	/* of on-disk records, already encoded */
	struct vec strings;			/* bytes */
	struct {
		int64_t created_ns;
		uint64_t duration_ns, lost, unres_inodes, unres_bytes;
		uint32_t flags, ra_kb;
		uint8_t kernel[8], command[8];	/* string refs */
		int set;
	} info;
};

static void *vec_push(struct vec *v, size_t n)
{
	void *slot;

	if (n > SIZE_MAX / v->size - v->count)
		return NULL;
	if (v->count + n > v->cap) {
		size_t cap = v->cap ? v->cap : 64;
		void *items;

		while (cap < v->count + n)
			cap *= 2;
		items = realloc(v->items, cap * v->size);
		if (!items)
			return NULL;
		v->items = items;
		v->cap = cap;
	}
	slot = (uint8_t *)v->items + v->count * v->size;
	memset(slot, 0, n * v->size);
	v->count += n;
	return slot;
}

int ura_pack_builder_new(struct ura_pack_builder **ret)
{
	struct ura_pack_builder *b = calloc(1, sizeof(*b));
	uint8_t *nul;

	if (!b)
		return -ENOMEM;
	b->fs.size = FS_REC_SIZE;
	b->files.size = FILE_REC_SIZE;
	b->ranges.size = RANGE_REC_SIZE;
	b->meta.size = META_REC_SIZE;
	b->strings.size = 1;
	nul = vec_push(&b->strings, 1);	/* offset 0 is the empty string */
	if (!nul) {
		ura_pack_builder_free(b);
		return -ENOMEM;
	}
	*ret = b;
	return 0;
}

void ura_pack_builder_free(struct ura_pack_builder *b)
{
	if (!b)
		return;
	free(b->fs.items);
	free(b->files.items);
	free(b->ranges.items);
	free(b->meta.items);
	free(b->strings.items);
	free(b);
}

/* Append a string (NUL-free, @len bytes) and write its reference at @ref. */
static int add_string(struct ura_pack_builder *b, const char *s, size_t len, uint8_t *ref)
{
	size_t off = b->strings.count;
	uint8_t *dst;

	if (len == 0) {
		put_le32(ref, 0);
		put_le32(ref + 4, 0);
		return 0;
	}
	if (memchr(s, '\0', len))
		return -EINVAL;
	if (off + len + 1 > UINT32_MAX)
		return -E2BIG;
	dst = vec_push(&b->strings, len + 1);
	if (!dst)
		return -ENOMEM;
	memcpy(dst, s, len);
	put_le32(ref, (uint32_t)off);
	put_le32(ref + 4, (uint32_t)len);
	return 0;
}

static int add_cstring(struct ura_pack_builder *b, const char *s, uint8_t *ref)
{
	return add_string(b, s ? s : "", s ? strlen(s) : 0, ref);
}

int ura_pack_builder_add_fs(struct ura_pack_builder *b, const struct ura_pack_fs *fs,
			    uint32_t *ret_index)
{
	uint8_t rec[FS_REC_SIZE] = { 0 }, *slot;
	int r;

	if (!fs->mount_point || check_mount_point(fs->mount_point, strlen(fs->mount_point)) < 0)
		return -EINVAL;
	if (b->fs.count >= URA_PACK_NO_INDEX)
		return -E2BIG;
	put_le32(rec + FS_MAJOR, fs->major);
	put_le32(rec + FS_MINOR, fs->minor);
	if ((r = add_cstring(b, fs->mount_point, rec + FS_MNT)) < 0 ||
	    (r = add_cstring(b, fs->fstype, rec + FS_TYPE)) < 0 ||
	    (r = add_cstring(b, fs->source, rec + FS_SOURCE)) < 0)
		return r;
	put_le32(rec + FS_FLAGS, fs->flags);
	put_le32(rec + FS_RA_KB, fs->read_ahead_kb);
	memcpy(rec + FS_UUID, fs->uuid, sizeof(fs->uuid));
	slot = vec_push(&b->fs, 1);
	if (!slot)
		return -ENOMEM;
	memcpy(slot, rec, sizeof(rec));
	if (ret_index)
		*ret_index = (uint32_t)(b->fs.count - 1);
	return 0;
}

int ura_pack_builder_add_file(struct ura_pack_builder *b, const struct ura_pack_file *f,
			      uint32_t *ret_index)
{
	uint8_t rec[FILE_REC_SIZE] = { 0 }, *slot;
	size_t len;
	int r;

	if (f->fs_index >= b->fs.count || !f->path)
		return -EINVAL;
	len = f->path_len ? f->path_len : strlen(f->path);
	if (check_path(f->path, len) < 0 || memchr(f->path, '\0', len))
		return -EINVAL;
	if (b->files.count >= URA_PACK_NO_INDEX)
		return -E2BIG;
	put_le32(rec + FILE_FS, f->fs_index);
	put_le32(rec + FILE_FLAGS, f->flags);
	r = add_string(b, f->path, len, rec + FILE_PATH);
	if (r < 0)
		return r;
	put_le64(rec + FILE_INO, f->ino);
	put_le64(rec + FILE_SIZE, f->size);
	put_le64(rec + FILE_MTIME, (uint64_t)f->mtime_ns);
	put_le64(rec + FILE_GEN, f->generation);
	put_le64(rec + FILE_BTIME, (uint64_t)f->btime_ns);
	slot = vec_push(&b->files, 1);
	if (!slot)
		return -ENOMEM;
	memcpy(slot, rec, sizeof(rec));
	if (ret_index)
		*ret_index = (uint32_t)(b->files.count - 1);
	return 0;
}

int ura_pack_builder_add_range(struct ura_pack_builder *b, const struct ura_pack_range *r)
{
	uint8_t *rec;

	if (r->file_index >= b->files.count || r->page_count == 0 ||
	    r->first_page >= PACK_MAX_PAGE || r->page_count > PACK_MAX_PAGE - r->first_page)
		return -EINVAL;
	if (b->ranges.count >= UINT32_MAX)
		return -E2BIG;
	rec = vec_push(&b->ranges, 1);
	if (!rec)
		return -ENOMEM;
	put_le32(rec + RANGE_FILE, r->file_index);
	put_le32(rec + RANGE_FLAGS, r->flags);
	put_le64(rec + RANGE_FIRST, r->first_page);
	put_le32(rec + RANGE_COUNT, r->page_count);
	put_le64(rec + RANGE_TIME, r->first_access_ns);
	return 0;
}

int ura_pack_builder_add_meta(struct ura_pack_builder *b, const struct ura_pack_meta *m)
{
	const uint64_t max = PACK_MAX_BYTES;
	uint8_t *rec;

	if ((m->fs_index != URA_PACK_NO_INDEX && m->fs_index >= b->fs.count) || m->length == 0 ||
	    m->offset % URA_PACK_PAGE_SIZE || m->length % URA_PACK_PAGE_SIZE || m->offset >= max ||
	    m->length > max - m->offset)
		return -EINVAL;
	if (b->meta.count >= UINT32_MAX)
		return -E2BIG;
	rec = vec_push(&b->meta, 1);
	if (!rec)
		return -ENOMEM;
	put_le32(rec + META_FS, m->fs_index);
	put_le32(rec + META_MAJOR, m->major);
	put_le32(rec + META_MINOR, m->minor);
	put_le64(rec + META_OFFSET, m->offset);
	put_le64(rec + META_LENGTH, m->length);
	put_le64(rec + META_TIME, m->first_access_ns);
	return 0;
}

int ura_pack_builder_set_info(struct ura_pack_builder *b, const struct ura_pack_info *info)
{
	int r;

	if ((r = add_cstring(b, info->kernel_release, b->info.kernel)) < 0 ||
	    (r = add_cstring(b, info->command, b->info.command)) < 0)
		return r;
	b->info.created_ns = info->created_ns;
	b->info.duration_ns = info->duration_ns;
	b->info.lost = info->lost_events;
	b->info.unres_inodes = info->unresolved_inodes;
	b->info.unres_bytes = info->unresolved_bytes;
	b->info.flags = info->flags;
	b->info.ra_kb = info->read_ahead_kb;
	b->info.set = 1;
	return 0;
}

struct sort_key {
	uint64_t time;
	size_t index;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;	/* stable: keep insertion order */
}

/* Put the ranges in first-access order, keeping the order of equal times. */
static int sort_ranges(struct vec *v)
{
	struct sort_key *keys;
	uint8_t *sorted, *items = v->items;
	size_t i;

	for (i = 1; i < v->count; i++)
		if (get_le64(items + i * RANGE_REC_SIZE + RANGE_TIME) <
		    get_le64(items + (i - 1) * RANGE_REC_SIZE + RANGE_TIME))
			break;
	if (i >= v->count)
		return 0;	/* already in order, the usual case */
	keys = malloc(v->count * sizeof(*keys));
	sorted = malloc(v->count * RANGE_REC_SIZE);
	if (!keys || !sorted) {
		free(keys);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < v->count; i++)
		keys[i] = (struct sort_key){ get_le64(items + i * RANGE_REC_SIZE + RANGE_TIME), i };
	qsort(keys, v->count, sizeof(*keys), cmp_key);
	for (i = 0; i < v->count; i++)
		memcpy(sorted + i * RANGE_REC_SIZE, items + keys[i].index * RANGE_REC_SIZE,
		       RANGE_REC_SIZE);
	free(keys);
	free(v->items);
	v->items = sorted;
	v->cap = v->count;
	return 0;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void put_section(uint8_t *e, uint32_t type, uint64_t off, uint64_t size, uint32_t count,
			uint32_t esize)
{
	put_le32(e + SEC_TYPE, type);
	put_le32(e + SEC_FLAGS, SEC_FLAG_REQUIRED);
	put_le64(e + SEC_OFFSET, off);
	put_le64(e + SEC_SIZE, size);
	put_le32(e + SEC_COUNT, count);
	put_le32(e + SEC_ENTRY_SIZE, esize);
}

int ura_pack_builder_serialize(struct ura_pack_builder *b, void **ret_data, size_t *ret_len)
{
	struct vec *tables[] = { &b->strings, &b->fs, &b->files, &b->ranges, &b->meta };
	static const uint32_t types[] = { SEC_STRINGS, SEC_FILESYSTEMS, SEC_FILES, SEC_RANGES,
					  SEC_METADATA };
	const uint32_t nsec = 6;
	uint8_t *buf, *info;
	size_t off, len, secoff = HDR_V1_SIZE;
	uint64_t offs[5];

	int r = sort_ranges(&b->ranges);

	if (r < 0)
		return r;

	off = secoff + (size_t)nsec * SEC_ENT_SIZE;
	for (size_t i = 0; i < 5; i++) {
		if (tables[i]->count > UINT32_MAX)
			return -E2BIG;
		offs[i] = off;
		off = align8(off + tables[i]->count * tables[i]->size);
	}
	len = off + INFO_REC_SIZE;
	if (len > PACK_MAX_FILE_SIZE)
		return -E2BIG;
	buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;

	memcpy(buf + HDR_MAGIC, PACK_MAGIC, PACK_MAGIC_LEN);
	put_le16(buf + HDR_MAJOR, URA_PACK_VERSION_MAJOR);
	put_le16(buf + HDR_MINOR, URA_PACK_VERSION_MINOR);
	put_le32(buf + HDR_SIZE, HDR_V1_SIZE);
	put_le32(buf + HDR_NSECTIONS, nsec);
	put_le64(buf + HDR_FILE_SIZE, len);
	put_le64(buf + HDR_SECTIONS_OFF, secoff);
	put_le64(buf + HDR_CREATED, (uint64_t)b->info.created_ns);

	for (size_t i = 0; i < 5; i++) {
		size_t bytes = tables[i]->count * tables[i]->size;

		put_section(buf + secoff + i * SEC_ENT_SIZE, types[i], offs[i], bytes,
			    (uint32_t)tables[i]->count, (uint32_t)tables[i]->size);
		if (bytes)
			memcpy(buf + offs[i], tables[i]->items, bytes);
	}
	put_section(buf + secoff + (size_t)5 * SEC_ENT_SIZE, SEC_TRACE_INFO, off, INFO_REC_SIZE, 1,
		    INFO_REC_SIZE);
	info = buf + off;
	put_le64(info + INFO_DURATION, b->info.duration_ns);
	put_le64(info + INFO_LOST, b->info.lost);
	put_le64(info + INFO_UNRES_INODES, b->info.unres_inodes);
	put_le64(info + INFO_UNRES_BYTES, b->info.unres_bytes);
	put_le32(info + INFO_FLAGS, b->info.flags);
	put_le32(info + INFO_RA_KB, b->info.ra_kb);
	memcpy(info + INFO_KERNEL, b->info.kernel, 8);
	memcpy(info + INFO_COMMAND, b->info.command, 8);

	put_le32(buf + HDR_CRC, crc32c(0, buf, len));
	*ret_data = buf;
	*ret_len = len;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fsync_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, r = 0;

	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		r = -errno;
	close(fd);
	return r;
}

int ura_pack_builder_write(struct ura_pack_builder *b, const char *path, unsigned mode)
{
	char *tmp = NULL;
	void *data = NULL;
	size_t len = 0;
	int fd = -1, r;

	r = ura_pack_builder_serialize(b, &data, &len);
	if (r < 0)
		return r;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		r = -ENOMEM;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		tmp = NULL;	/* nothing to unlink */
		goto out;
	}
	if ((r = write_all(fd, data, len)) < 0)
		goto out;
	if (fchmod(fd, mode & 07777) < 0 || fsync(fd) < 0) {
		r = -errno;
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		r = -errno;
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		r = -errno;
		goto out;
	}
	free(tmp);
	tmp = NULL;	/* renamed: nothing to unlink */
	r = fsync_dir_of(path);
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(data);
	return r;
}
