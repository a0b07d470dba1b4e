// SPDX-License-Identifier: GPL-2.0-or-later
/* Block devices by number: sysfs queue attributes and safe opening */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev-block.h"

#define SYS_DEV_BLOCK	"/sys/dev/block"

static int read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	return 0;
}

static int parse_unsigned(const char *s, unsigned *ret)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || v > UINT_MAX)
		return -ERANGE;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*ret = (unsigned)v;
	return 0;
}

/*
 * The queue attribute @attr of the disk that holds MAJ:MIN: a whole disk has
 * queue/ itself; a partition has a "partition" file and its disk is the
 * parent directory in sysfs ("..", resolved after the /sys/dev/block symlink).
 */
static int queue_attr_path(unsigned major, unsigned minor, const char *attr, char *buf,
			   size_t size)
{
	char dir[64];
	struct stat st;

	snprintf(dir, sizeof(dir), SYS_DEV_BLOCK "/%u:%u", major, minor);
	if (stat(dir, &st) < 0)
		return -errno;
	snprintf(buf, size, "%s/queue", dir);
	if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(buf, size, "%s/queue/%s", dir, attr);
		return 0;
	}
	snprintf(buf, size, "%s/partition", dir);
	if (stat(buf, &st) < 0)
		return -ENOENT;
	snprintf(buf, size, "%s/../queue/%s", dir, attr);
	return 0;
}

static int get_queue_uint(unsigned major, unsigned minor, const char *attr, unsigned *ret)
{
	char path[PATH_MAX], text[64];
	int r;

	r = queue_attr_path(major, minor, attr, path, sizeof(path));
	if (r < 0)
		return r;
	r = read_text(path, text, sizeof(text));
	if (r < 0)
		return r;
	return parse_unsigned(text, ret);
}

int dev_block_diskseq(unsigned major, unsigned minor, uint64_t *ret)
{
	char path[96], text[64];
	unsigned long long seq;
	int r;

	snprintf(path, sizeof(path), SYS_DEV_BLOCK "/%u:%u/diskseq", major, minor);
	r = read_text(path, text, sizeof(text));
	if (r == -ENOENT) {	/* a partition: its disk's */
		snprintf(path, sizeof(path), SYS_DEV_BLOCK "/%u:%u/../diskseq", major, minor);
		r = read_text(path, text, sizeof(text));
	}
	if (r < 0)
		return r;
	if (sscanf(text, "%llu", &seq) != 1)
		return -EBADMSG;
	*ret = seq;
	return 0;
}

int dev_block_reads(unsigned major, unsigned minor, uint64_t *ret)
{
	char path[64], text[256];
	unsigned long long reads;
	int r;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", major, minor);
	r = read_text(path, text, sizeof(text));
	if (r < 0)
		return r;
	if (sscanf(text, "%llu", &reads) != 1)
		return -EBADMSG;
	*ret = reads;
	return 0;
}

int dev_block_get_read_ahead_kb(unsigned major, unsigned minor, unsigned *ret)
{
	return get_queue_uint(major, minor, "read_ahead_kb", ret);
}

int dev_block_set_read_ahead_kb(unsigned major, unsigned minor, unsigned kb)
{
	char path[PATH_MAX], text[32];
	ssize_t n;
	int fd, r, len;

	r = queue_attr_path(major, minor, "read_ahead_kb", path, sizeof(path));
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	len = snprintf(text, sizeof(text), "%u\n", kb);
	do
		n = write(fd, text, (size_t)len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if (n != len)
		r = -EIO;
	else
		r = 0;
	close(fd);
	return r;
}

int dev_block_is_rotational(unsigned major, unsigned minor, bool *ret)
{
	unsigned v;
	int r;

	r = get_queue_uint(major, minor, "rotational", &v);
	if (r < 0)
		return r;
	*ret = v != 0;
	return 0;
}

int dev_block_max_sectors_kb(unsigned major, unsigned minor, unsigned *ret)
{
	return get_queue_uint(major, minor, "max_sectors_kb", ret);
}

int dev_block_max_segments(unsigned major, unsigned minor, unsigned *ret_segments,
			  unsigned *ret_segment_kb)
{
	unsigned segs, bytes;
	int r = get_queue_uint(major, minor, "max_segments", &segs);

	if (r == 0)
		r = get_queue_uint(major, minor, "max_segment_size", &bytes);
	if (r < 0)
		return r;
	*ret_segments = segs;
	*ret_segment_kb = bytes / 1024;
	return 0;
}

/* Open @path if it is the block device @dev; -ENODEV if it is something else. */
static int open_checked(const char *path, dev_t dev)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != dev) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

/* DEVNAME= from the uevent file: a name under /dev such as "sda1" or "mapper/x". */
static int uevent_devname(unsigned major, unsigned minor, char *buf, size_t size)
{
	char path[64], text[4096] = "";
	const char *p, *nl;
	size_t len;
	int r;

	snprintf(path, sizeof(path), SYS_DEV_BLOCK "/%u:%u/uevent", major, minor);
	r = read_text(path, text, sizeof(text));
	if (r < 0)
		return r;
	for (p = text; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (strncmp(p, "DEVNAME=", 8) != 0)
			continue;
		p += 8;
		len = strcspn(p, "\n");
		if (len == 0 || len >= size)
			return -ENOENT;
		memcpy(buf, p, len);
		buf[len] = '\0';
		/* sysfs is trusted, but stay under /dev whatever it says */
		if (buf[0] == '/' || strstr(buf, "..") != NULL)
			return -ENOENT;
		return 0;
	}
	return -ENOENT;
}

int dev_block_open(unsigned major, unsigned minor)
{
	char path[PATH_MAX], name[256];
	dev_t dev = makedev(major, minor);
	int fd, r;

	snprintf(path, sizeof(path), "/dev/block/%u:%u", major, minor);
	fd = open_checked(path, dev);
	if (fd >= 0)
		return fd;
	r = fd;
	if (uevent_devname(major, minor, name, sizeof(name)) == 0) {
		snprintf(path, sizeof(path), "/dev/%s", name);
		fd = open_checked(path, dev);
		if (fd >= 0)
			return fd;
		if (r == -ENOENT || r == -ENODEV)
			r = fd;
	}
	/* A real failure (say -EACCES) says more than "not found". */
	return r == -ENOENT ? -ENODEV : r;
}

/* Append "NAME=value" for the sysfs attribute @dir/@attr when it exists (first line only). */
static void append_attr(char *buf, size_t size, const char *dir, const char *attr,
			const char *name)
{
	char path[PATH_MAX], text[512];
	size_t used = strlen(buf);

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (read_text(path, text, sizeof(text)) < 0)
		return;
	text[strcspn(text, "\n")] = '\0';
	for (char *p = text; *p; p++)		/* one line, no spaces: a key of words */
		if (*p <= ' ' || *p == 0x7f)
			*p = '_';
	if (text[0] && used < size)
		snprintf(buf + used, size - used, " %s=%s", name, text);
}

int dev_block_identity(unsigned major, unsigned minor, char *buf, size_t size)
{
	char dir[64], disk[80];
	struct stat st;

	if (!size)
		return -EINVAL;
	snprintf(dir, sizeof(dir), SYS_DEV_BLOCK "/%u:%u", major, minor);
	if (stat(dir, &st) < 0)
		return -errno;
	snprintf(disk, sizeof(disk), "%s/partition", dir);
	if (stat(disk, &st) == 0)
		snprintf(disk, sizeof(disk), "%s/..", dir);
	else
		snprintf(disk, sizeof(disk), "%s", dir);
	snprintf(buf, size, "dev=%u:%u", major, minor);
	append_attr(buf, size, dir, "size", "sectors");
	append_attr(buf, size, disk, "device/wwid", "wwid");
	append_attr(buf, size, disk, "wwid", "wwid");
	append_attr(buf, size, disk, "device/serial", "serial");
	append_attr(buf, size, disk, "device/model", "model");
	append_attr(buf, size, disk, "device/cid", "cid");	/* MMC and SD cards */
	append_attr(buf, size, disk, "dm/uuid", "dm");
	append_attr(buf, size, disk, "md/uuid", "md");
	append_attr(buf, size, disk, "loop/backing_file", "loop");
	append_attr(buf, size, disk, "loop/offset", "loopoff");
	return 0;
}

int dev_block_disk(unsigned major, unsigned minor, unsigned *ret_major, unsigned *ret_minor)
{
	char path[96], text[64];
	unsigned a, b;
	struct stat st;
	int r;

	snprintf(path, sizeof(path), SYS_DEV_BLOCK "/%u:%u/partition", major, minor);
	if (stat(path, &st) < 0) {
		snprintf(path, sizeof(path), SYS_DEV_BLOCK "/%u:%u", major, minor);
		if (stat(path, &st) < 0)
			return -errno;
		*ret_major = major;
		*ret_minor = minor;
		return 0;
	}
	snprintf(path, sizeof(path), SYS_DEV_BLOCK "/%u:%u/../dev", major, minor);
	r = read_text(path, text, sizeof(text));
	if (r < 0)
		return r;
	if (sscanf(text, "%u:%u", &a, &b) != 2)
		return -EINVAL;
	*ret_major = a;
	*ret_minor = b;
	return 0;
}

int dev_block_name(unsigned major, unsigned minor, char *buf, size_t size)
{
	char path[64], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), SYS_DEV_BLOCK "/%u:%u", major, minor);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base || strlen(base) >= size)
		return -ENAMETOOLONG;
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}

int dev_block_size(unsigned major, unsigned minor, uint64_t *ret)
{
	char path[64], text[64];
	unsigned long long sectors;
	char *end;
	int r;

	snprintf(path, sizeof(path), SYS_DEV_BLOCK "/%u:%u/size", major, minor);
	r = read_text(path, text, sizeof(text));
	if (r < 0)
		return r;
	errno = 0;
	sectors = strtoull(text, &end, 10);
	if (errno || end == text || sectors > UINT64_MAX / 512)
		return -EINVAL;
	*ret = (uint64_t)sectors * 512;
	return 0;
}
