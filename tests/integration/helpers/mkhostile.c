// SPDX-License-Identifier: GPL-2.0-or-later
/* mkhostile: build hostile test packs, with raw path bytes the builder refuses patched in */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <ura/pack.h>

#include "crc32c.h"
#include "pack-internal.h"

#define MAX_FS		16
#define MAX_PATCH	64

/* A path or mount point the builder refused: stored as a placeholder, patched after. */
struct patch {
	bool fs;		/* a mount point, else a file path */
	uint32_t index;
	char *path;
};

static char *mounts[MAX_FS];
static int nfs;
static struct patch patches[MAX_PATCH];
static int npatch;

static void die(const char *what, int err)
{
	fprintf(stderr, "mkhostile: %s: %s\n", what, strerror(err));
	exit(1);
}

static void usage(void)
{
	fputs("usage: mkhostile OUT SPEC...\n"
	      "  fs:MAJ:MIN:MOUNT        a filesystem (numbered from 0), MOUNT any bytes\n"
	      "  fsof:PATH               the filesystem holding PATH (its mount point found by climbing)\n"
	      "  file:FS:PATH            a file with exactly this relative PATH (any bytes, even\n"
	      "                          \"..\" or empty); inode, size, mtime from MOUNT/PATH if it exists\n"
	      "  range:FILE:FIRST:COUNT  pages of file FILE (numbered from 0), demanded\n"
	      "  many:FILE:N             N one-page ranges of FILE at pages 0, 2, 4, ...\n"
	      "  meta:MAJ:MIN:OFF:LEN    a block-device metadata range\n"
	      "  at:NS                   first-access time of what follows\n"
	      "  tail:FS:N               N files tail/NNNNNNN, file k with 1 + k * 7919 %% 64 pages\n"
	      "                          (speculative when k %% 3 is 0), read 1 us apart\n"
	      "  command:TEXT            the traced command (any bytes)\n"
	      "  kernel:TEXT             the kernel release (any bytes)\n", stderr);
	exit(64);
}

/* The mount point of @path: climb while the device stays the same. */
static char *mount_of(const char *path)
{
	char cur[PATH_MAX], up[PATH_MAX];
	struct stat st, ust;

	if (!realpath(path, cur))
		die(path, errno);
	if (stat(cur, &st) < 0)
		die(cur, errno);
	for (;;) {
		char *slash = strrchr(cur, '/');

		if (slash == cur) {
			if (stat("/", &ust) == 0 && ust.st_dev == st.st_dev)
				return strdup("/");
			return strdup(cur);
		}
		memcpy(up, cur, (size_t)(slash - cur));
		up[slash - cur] = '\0';
		if (stat(up, &ust) < 0 || ust.st_dev != st.st_dev)
			return strdup(cur);
		strcpy(cur, up);
	}
}

/* A string of the length of @s (at least 1) that no other placeholder equals. */
static char *placeholder(const char *s)
{
	size_t len = strlen(s);
	char *ph = malloc(len + 2);

	if (!ph || npatch == MAX_PATCH)
		die(s, ENOMEM);
	memset(ph, 'q', len ? len : 1);
	ph[len ? len : 1] = '\0';
	if (len > 1 || npatch)
		ph[len > 1 ? 1 : 0] = (char)('A' + npatch % 26);
	return ph;
}

static void add_patch(bool fs, uint32_t index, const char *path)
{
	patches[npatch].fs = fs;
	patches[npatch].index = index;
	patches[npatch++].path = strdup(path);
}

static void add_fs(struct ura_pack_builder *b, unsigned maj, unsigned min, const char *mnt)
{
	struct ura_pack_fs fs = {
		.major = maj, .minor = min, .mount_point = mnt, .fstype = "", .source = "",
	};
	int r;

	if (nfs == MAX_FS)
		die("filesystems", E2BIG);
	r = ura_pack_builder_add_fs(b, &fs, NULL);
	if (r == -EINVAL) {
		char *ph = placeholder(mnt);

		fs.mount_point = ph;
		ph[0] = '/';
		r = ura_pack_builder_add_fs(b, &fs, NULL);
		free(ph);
		if (r == 0)
			add_patch(true, (uint32_t)nfs, mnt);
	}
	if (r < 0)
		die(mnt, -r);
	mounts[nfs++] = strdup(mnt);
}

static void add_file(struct ura_pack_builder *b, unsigned fsi, const char *path)
{
	struct ura_pack_file f = { .fs_index = fsi, .path = path };
	char full[PATH_MAX * 2];
	struct stat st;
	uint32_t idx;
	int r;

	if (fsi >= (unsigned)nfs)
		die(path, EINVAL);
	/* follow symlinks: the record then matches what a careless replay would open */
	snprintf(full, sizeof(full), "%s/%s", mounts[fsi], path);
	if (stat(full, &st) == 0 || lstat(full, &st) == 0) {
		f.ino = st.st_ino;
		f.size = (uint64_t)st.st_size;
		f.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	}
	r = ura_pack_builder_add_file(b, &f, &idx);
	if (r == -EINVAL) {
		/* refused: store a placeholder of the same length, patched after */
		char *ph = placeholder(path);

		f.path = ph;
		r = ura_pack_builder_add_file(b, &f, &idx);
		free(ph);
		if (r == 0)
			add_patch(false, idx, path);
	}
	if (r < 0)
		die(path, -r);
}

static void add_range_flags(struct ura_pack_builder *b, uint32_t file, uint64_t first,
			    uint32_t count, uint64_t t, uint32_t flags)
{
	struct ura_pack_range rg = {
		.file_index = file, .flags = flags, .first_page = first,
		.page_count = count, .first_access_ns = t,
	};
	int r = ura_pack_builder_add_range(b, &rg);

	if (r < 0)
		die("range", -r);
}

static void add_range(struct ura_pack_builder *b, uint32_t file, uint64_t first, uint32_t count,
		      uint64_t t)
{
	add_range_flags(b, file, first, count, t, URA_PACK_RANGE_DEMANDED);
}

/* @n files of a synthetic long tail on filesystem @fsi, from time @t on; returns the time after. */
static uint64_t add_tail(struct ura_pack_builder *b, unsigned fsi, unsigned long long n, uint64_t t)
{
	for (unsigned long long k = 0; k < n; k++, t += 1000) {
		uint32_t pages = 1 + (uint32_t)(k * 7919 % 64), idx;
		struct ura_pack_file f = { .fs_index = fsi, .size = (uint64_t)pages * 4096 };
		char path[32];
		int r;

		snprintf(path, sizeof(path), "tail/%07llu", k);
		f.path = path;
		r = ura_pack_builder_add_file(b, &f, &idx);
		if (r < 0)
			die(path, -r);
		add_range_flags(b, idx, 0, pages, t, k % 3 ? URA_PACK_RANGE_DEMANDED : 0);
	}
	return t;
}

/* Write the raw paths over their placeholders and fix the checksum. */
static void apply_patches(uint8_t *buf, size_t len)
{
	uint32_t nsec = get_le32(buf + HDR_NSECTIONS);
	uint64_t secoff = get_le64(buf + HDR_SECTIONS_OFF), strings = 0, files = 0, fss = 0;

	for (uint32_t i = 0; i < nsec; i++) {
		const uint8_t *e = buf + secoff + (uint64_t)i * SEC_ENT_SIZE;

		if (get_le32(e + SEC_TYPE) == SEC_STRINGS)
			strings = get_le64(e + SEC_OFFSET);
		else if (get_le32(e + SEC_TYPE) == SEC_FILES)
			files = get_le64(e + SEC_OFFSET);
		else if (get_le32(e + SEC_TYPE) == SEC_FILESYSTEMS)
			fss = get_le64(e + SEC_OFFSET);
	}
	for (int i = 0; i < npatch; i++) {
		uint8_t *ref = patches[i].fs ?
			buf + fss + (uint64_t)patches[i].index * FS_REC_SIZE + FS_MNT :
			buf + files + (uint64_t)patches[i].index * FILE_REC_SIZE + FILE_PATH;
		size_t n = strlen(patches[i].path);

		if (n == 0) {	/* offset 0 of the string table is the empty string */
			put_le32(ref, 0);
			put_le32(ref + 4, 0);
		} else {
			memcpy(buf + strings + get_le32(ref), patches[i].path, n);
		}
	}
	put_le32(buf + HDR_CRC, 0);
	put_le32(buf + HDR_CRC, crc32c(0, buf, len));
}

static void write_file(const char *path, const uint8_t *buf, size_t len)
{
	char tmp[PATH_MAX];
	int fd;

	/* replace atomically, so a reader never sees half a pack */
	snprintf(tmp, sizeof(tmp), "%s.mkhostile", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die(tmp, errno);
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0)
			die(tmp, errno);
		buf += n;
		len -= (size_t)n;
	}
	if (fchmod(fd, 0644) < 0 || close(fd) < 0 || rename(tmp, path) < 0)
		die(path, errno);
}

int main(int argc, char *argv[])
{
	struct ura_pack_builder *b = NULL;
	struct ura_pack_info info = { .kernel_release = "", .command = "" };
	unsigned long long a, c, d, e;
	unsigned maj, min, fsi;
	uint64_t t = 1000;
	void *buf;
	size_t len;
	int n, r;

	if (argc < 2)
		usage();
	r = ura_pack_builder_new(&b);
	if (r < 0)
		die("builder", -r);
	for (int i = 2; i < argc; i++, t += 1000) {
		const char *s = argv[i];

		n = 0;
		if (sscanf(s, "fs:%u:%u:%n", &maj, &min, &n) == 2 && n) {
			add_fs(b, maj, min, s + n);
		} else if (strncmp(s, "fsof:", 5) == 0) {
			struct stat st;
			char *mnt;

			if (stat(s + 5, &st) < 0)
				die(s + 5, errno);
			mnt = mount_of(s + 5);
			add_fs(b, major(st.st_dev), minor(st.st_dev), mnt);
			free(mnt);
		} else if (sscanf(s, "file:%u:%n", &fsi, &n) == 1 && n) {
			add_file(b, fsi, s + n);
		} else if (sscanf(s, "range:%llu:%llu:%llu", &a, &c, &d) == 3) {
			add_range(b, (uint32_t)a, c, (uint32_t)d, t);
		} else if (sscanf(s, "many:%llu:%llu", &a, &c) == 2) {
			for (unsigned long long k = 0; k < c; k++)
				add_range(b, (uint32_t)a, 2 * k, 1, t + k);
			t += c;
		} else if (sscanf(s, "meta:%u:%u:%llu:%llu", &maj, &min, &d, &e) == 4) {
			struct ura_pack_meta m = {
				.fs_index = URA_PACK_NO_INDEX, .major = maj, .minor = min,
				.offset = d, .length = e, .first_access_ns = t,
			};

			r = ura_pack_builder_add_meta(b, &m);
			if (r < 0)
				die(s, -r);
		} else if (sscanf(s, "at:%llu", &a) == 1) {
			t = a;
		} else if (sscanf(s, "tail:%u:%llu", &fsi, &a) == 2) {
			t = add_tail(b, fsi, a, t);
		} else if (strncmp(s, "command:", 8) == 0) {
			info.command = s + 8;
		} else if (strncmp(s, "kernel:", 7) == 0) {
			info.kernel_release = s + 7;
		} else {
			usage();
		}
	}
	r = ura_pack_builder_set_info(b, &info);
	if (r < 0)
		die("info", -r);
	r = ura_pack_builder_serialize(b, &buf, &len);
	if (r < 0)
		die("serialize", -r);
	ura_pack_builder_free(b);
	apply_patches(buf, len);
	write_file(argv[1], buf, len);
	free(buf);
	for (int i = 0; i < nfs; i++)
		free(mounts[i]);
	for (int i = 0; i < npatch; i++)
		free(patches[i].path);
	return 0;
}
