// SPDX-License-Identifier: GPL-2.0-or-later
/* mkpack: build a test pack of whole files (and metadata ranges) without tracing; check residency */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fs.h>

#include <ura/pack.h>

#include "sys-residency.h"

#define MAX_FS 16

struct fsent {
	dev_t dev;
	char mnt[PATH_MAX];
	uint32_t index;
};

static struct fsent fss[MAX_FS];
static int nfs;

static void die(const char *what, int err)
{
	fprintf(stderr, "mkpack: %s: %s\n", what, strerror(err));
	exit(1);
}

/* The mount point of @path's filesystem: climb while the device stays the same. */
static void mount_of(const char *path, dev_t dev, char *ret)
{
	char cur[PATH_MAX], up[PATH_MAX];
	struct stat st;

	snprintf(cur, sizeof(cur), "%s", path);
	for (;;) {
		char *slash = strrchr(cur, '/');

		if (!slash || slash == cur) {
			if (stat("/", &st) == 0 && st.st_dev == dev)
				strcpy(ret, "/");
			else
				strcpy(ret, cur);
			return;
		}
		memcpy(up, cur, (size_t)(slash - cur));
		up[slash - cur] = '\0';
		if (stat(up, &st) < 0 || st.st_dev != dev) {
			strcpy(ret, cur);
			return;
		}
		strcpy(cur, up);
	}
}

static uint32_t fs_index(struct ura_pack_builder *b, dev_t dev, const char *path)
{
	struct ura_pack_fs fs = { 0 };
	int r;

	for (int i = 0; i < nfs; i++)
		if (fss[i].dev == dev)
			return fss[i].index;
	if (nfs == MAX_FS)
		die("filesystems", E2BIG);
	fss[nfs].dev = dev;
	mount_of(path, dev, fss[nfs].mnt);
	fs.major = major(dev);
	fs.minor = minor(dev);
	fs.mount_point = fss[nfs].mnt;
	fs.fstype = "";
	fs.source = "";
	r = ura_pack_builder_add_fs(b, &fs, &fss[nfs].index);
	if (r < 0)
		die("add fs", -r);
	return fss[nfs++].index;
}

/* --resident FILE [OFF LEN]: print the resident bytes; --evict FILE [OFF LEN]: drop them. */
static int page_tool(int argc, char *argv[])
{
	unsigned long long off = 0, len = 0;
	unsigned char *vec = NULL;
	uint64_t n = 0;
	int fd, r;

	fd = open(argv[2], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		die(argv[2], errno);
	if (argc >= 5) {
		off = strtoull(argv[3], NULL, 0);
		len = strtoull(argv[4], NULL, 0);
	} else {
		struct stat st;

		if (fstat(fd, &st) < 0)
			die(argv[2], errno);
		len = (unsigned long long)st.st_size;
	}
	if (strcmp(argv[1], "--evict") == 0) {
		fdatasync(fd);
		errno = posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
		if (errno)
			die("fadvise", errno);
		close(fd);
		return 0;
	}
	if (len) {
		vec = malloc(len / URA_PACK_PAGE_SIZE + 1);
		if (!vec)
			die("malloc", ENOMEM);
		r = residency_map(fd, off, len, vec);
		if (r < 0)
			die("mincore", -r);
		for (unsigned long long p = 0; p < (len + URA_PACK_PAGE_SIZE - 1) / URA_PACK_PAGE_SIZE; p++)
			n += vec[p];
		free(vec);
	}
	close(fd);
	printf("%llu %llu\n", (unsigned long long)n * URA_PACK_PAGE_SIZE > len ? len :
	       (unsigned long long)n * URA_PACK_PAGE_SIZE, len);
	return 0;
}

int main(int argc, char *argv[])
{
	struct ura_pack_builder *b = NULL;
	uint64_t t = 1000;
	int r;

	if (argc >= 3 && (strcmp(argv[1], "--resident") == 0 || strcmp(argv[1], "--evict") == 0))
		return page_tool(argc, argv);
	if (argc < 2) {
		fputs("usage: mkpack OUT [FILE | FILE@FIRST+COUNT | meta:MAJ:MIN:OFF:LEN | "
		      "spec:FILE | at:NS]...\n"
		      "       mkpack --resident|--evict FILE [OFF LEN]\n", stderr);
		return 64;
	}
	r = ura_pack_builder_new(&b);
	if (r < 0)
		die("builder", -r);
	for (int i = 2; i < argc; i++, t += 1000) {
		char path[PATH_MAX], arg[PATH_MAX], *at;
		unsigned maj, min;
		unsigned long long off, len, first = 0, count = 0;
		struct ura_pack_file f = { 0 };
		struct ura_pack_range rg = { 0 };
		bool spec = false;
		uint32_t fi;
		struct stat st;
		int fd, gen;

		if (sscanf(argv[i], "at:%llu", &off) == 1) {	/* first access of what follows */
			t = off;
			continue;
		}
		if (sscanf(argv[i], "meta:%u:%u:%llu:%llu", &maj, &min, &off, &len) == 4) {
			struct ura_pack_meta m = {
				.fs_index = URA_PACK_NO_INDEX, .major = maj, .minor = min,
				.offset = off, .length = len, .first_access_ns = t,
			};

			r = ura_pack_builder_add_meta(b, &m);
			if (r < 0)
				die(argv[i], -r);
			continue;
		}
		snprintf(arg, sizeof(arg), "%s", argv[i]);
		if (strncmp(arg, "spec:", 5) == 0) {	/* a speculative range: not demanded */
			memmove(arg, arg + 5, strlen(arg + 5) + 1);
			spec = true;
		}
		at = strrchr(arg, '@');
		if (at) {
			*at = '\0';
			if (sscanf(at + 1, "%llu+%llu", &first, &count) != 2)
				die(argv[i], EINVAL);
		}
		if (!realpath(arg, path))
			die(arg, errno);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0)
			die(path, errno);
		fi = fs_index(b, st.st_dev, path);
		for (int k = 0; k < nfs; k++)
			if (fss[k].dev == st.st_dev) {
				size_t n = strlen(fss[k].mnt);

				f.path = path + (strcmp(fss[k].mnt, "/") ? n + 1 : 1);
			}
		f.fs_index = fi;
		f.ino = st.st_ino;
		f.size = (uint64_t)st.st_size;
		f.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		if (ioctl(fd, FS_IOC_GETVERSION, &gen) == 0) {
			f.flags |= URA_PACK_FILE_HAS_GENERATION;
			f.generation = (uint32_t)gen;
		}
		close(fd);
		r = ura_pack_builder_add_file(b, &f, &rg.file_index);
		if (r < 0)
			die(path, -r);
		if (!at) {
			first = 0;
			count = ((uint64_t)st.st_size + 4095) / 4096;
		}
		rg.flags = spec ? 0 : URA_PACK_RANGE_DEMANDED;
		rg.first_access_ns = t;
		/* ranges of at most 2^31 pages each */
		while (count) {
			uint64_t n = count > (1u << 30) ? (1u << 30) : count;

			rg.first_page = first;
			rg.page_count = (uint32_t)n;
			r = ura_pack_builder_add_range(b, &rg);
			if (r < 0)
				die(path, -r);
			first += n;
			count -= n;
		}
	}
	r = ura_pack_builder_write(b, argv[1], 0644);
	if (r < 0)
		die(argv[1], -r);
	ura_pack_builder_free(b);
	return 0;
}
