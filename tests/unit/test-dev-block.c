// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/dev-block.c: sysfs queue attributes and opening devices by number */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/blkpg.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev-block.h"
#include "unit.h"

static int read_uint(const char *path, unsigned *ret)
{
	FILE *f = fopen(path, "re");
	int r;

	if (!f)
		return -errno;
	r = fscanf(f, "%u", ret) == 1 ? 0 : -EINVAL;
	fclose(f);
	return r;
}

/*
 * The test's own idea of the whole disk's queue directory, found another way
 * than dev-block.c does: the canonical sysfs path, minus the partition level.
 */
static char *queue_dir(unsigned ma, unsigned mi)
{
	char link[64], *real, *part, *q;
	struct stat st;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", ma, mi);
	real = realpath(link, NULL);
	if (!real)
		return NULL;
	ck_assert_int_ne(asprintf(&part, "%s/partition", real), -1);
	if (stat(part, &st) == 0)
		*strrchr(real, '/') = '\0';
	ck_assert_int_ne(asprintf(&q, "%s/queue", real), -1);
	free(part);
	free(real);
	return q;
}

static void check_attrs_match_sysfs(unsigned ma, unsigned mi)
{
	char *q = queue_dir(ma, mi), *p;
	unsigned got, want;
	bool rot;

	ck_assert_ptr_nonnull(q);
	ck_assert_int_ne(asprintf(&p, "%s/read_ahead_kb", q), -1);
	ck_assert_int_eq(read_uint(p, &want), 0);
	ck_assert_int_eq(dev_block_get_read_ahead_kb(ma, mi, &got), 0);
	ck_assert_uint_eq(got, want);
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/max_sectors_kb", q), -1);
	ck_assert_int_eq(read_uint(p, &want), 0);
	ck_assert_int_eq(dev_block_max_sectors_kb(ma, mi, &got), 0);
	ck_assert_uint_eq(got, want);
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/rotational", q), -1);
	ck_assert_int_eq(read_uint(p, &want), 0);
	ck_assert_int_eq(dev_block_is_rotational(ma, mi, &rot), 0);
	ck_assert_int_eq(rot, want != 0);
	free(p);
	free(q);
}

/* A block device to look at: the one under "/", else the first sysfs lists. */
static bool some_block_device(unsigned *ma, unsigned *mi)
{
	char link[64];
	struct stat st;
	FILE *f;

	if (stat("/", &st) == 0) {
		snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev),
			 minor(st.st_dev));
		if (access(link, F_OK) == 0) {
			*ma = major(st.st_dev);
			*mi = minor(st.st_dev);
			return true;
		}
	}
	f = popen("ls /sys/dev/block 2>/dev/null", "re");
	if (!f)
		return false;
	if (fscanf(f, "%u:%u", ma, mi) != 2) {
		pclose(f);
		return false;
	}
	pclose(f);
	return true;
}

START_TEST(test_missing_device)
{
	unsigned v = 77;
	bool rot = true;

	/* 0:N are anonymous devices (tmpfs, btrfs ...): no queue */
	ck_assert_int_eq(dev_block_get_read_ahead_kb(0, 1, &v), -ENOENT);
	ck_assert_int_eq(dev_block_get_read_ahead_kb(4095, 1048575, &v), -ENOENT);
	ck_assert_int_eq(dev_block_max_sectors_kb(4095, 1048575, &v), -ENOENT);
	ck_assert_int_eq(dev_block_is_rotational(4095, 1048575, &rot), -ENOENT);
	ck_assert_int_eq(dev_block_set_read_ahead_kb(4095, 1048575, 128), -ENOENT);
	ck_assert_uint_eq(v, 77);	/* *ret untouched on failure */
	ck_assert(rot);
	ck_assert_int_eq(dev_block_open(4095, 1048575), -ENODEV);
	ck_assert_int_eq(dev_block_open(0, 1), -ENODEV);
}
END_TEST

START_TEST(test_attrs)
{
	unsigned ma, mi;

	if (access("/sys/dev/block", F_OK) < 0 || !some_block_device(&ma, &mi)) {
		printf("# SKIP test_attrs: no /sys/dev/block devices here\n");
		return;
	}
	check_attrs_match_sysfs(ma, mi);
}
END_TEST

START_TEST(test_open)
{
	unsigned ma, mi;
	struct stat st;
	int fd;

	if (access("/sys/dev/block/7:0", F_OK) == 0) {
		ma = 7;
		mi = 0;	/* a loop device: opening one is allowed where the root disk may not be */
	} else if (!some_block_device(&ma, &mi)) {
		printf("# SKIP test_open: no /sys/dev/block devices here\n");
		return;
	}
	fd = dev_block_open(ma, mi);
	if (fd == -EACCES || fd == -EPERM) {
		printf("# SKIP test_open: opening %u:%u is not allowed here: %s\n", ma, mi,
		       strerror(-fd));
		return;
	}
	ck_assert_msg(fd >= 0, "dev_block_open(%u, %u): %s", ma, mi, strerror(-fd));
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISBLK(st.st_mode));
	ck_assert_uint_eq(st.st_rdev, makedev(ma, mi));
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	close(fd);
}
END_TEST

/*
 * A loop device over a small image with one partition; AUTOCLEAR detaches it
 * when the test process closes its descriptors (or dies). The kernel may have
 * no partition table parser at all (this one has none), so when the MBR is
 * not read the partition is added by hand with BLKPG.
 */
static int attach_partitioned_loop(const char *dir, unsigned *loop_nr)
{
	unsigned char mbr[512] = { 0 };
	struct loop_config cfg = { 0 };
	char *img, dev[64];
	int ctl = -1, img_fd = -1, loop_fd = -1, nr;
	unsigned char *e = mbr + 446;

	ck_assert_int_ne(asprintf(&img, "%s/disk.img", dir), -1);
	img_fd = open(img, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(img_fd, 0);
	e[4] = 0x83;			/* Linux */
	e[9] = 0x08;			/* first LBA 2048, little-endian */
	e[13] = 0x10;			/* 4096 sectors */
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	ck_assert_int_eq(pwrite(img_fd, mbr, sizeof(mbr), 0), (ssize_t)sizeof(mbr));
	ck_assert_int_eq(ftruncate(img_fd, 8 << 20), 0);
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		goto out;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	if (nr < 0)
		goto out;
	snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
	loop_fd = open(dev, O_RDWR | O_CLOEXEC);
	if (loop_fd < 0)
		goto out;
	cfg.fd = (unsigned)img_fd;
	cfg.info.lo_flags = LO_FLAGS_PARTSCAN | LO_FLAGS_AUTOCLEAR;
	if (ioctl(loop_fd, LOOP_CONFIGURE, &cfg) < 0) {
		close(loop_fd);
		loop_fd = -1;
		goto out;
	}
	*loop_nr = (unsigned)nr;
	snprintf(dev, sizeof(dev), "/sys/block/loop%d/loop%dp1", nr, nr);
	if (access(dev, F_OK) < 0) {
		struct blkpg_partition part = { .start = 1 << 20, .length = 2 << 20, .pno = 1 };
		struct blkpg_ioctl_arg arg = {
			.op = BLKPG_ADD_PARTITION, .datalen = sizeof(part), .data = &part,
		};

		if (ioctl(loop_fd, BLKPG, &arg) < 0) {
			close(loop_fd);
			loop_fd = -1;
		}
	}
out:
	if (ctl >= 0)
		close(ctl);
	close(img_fd);
	free(img);
	return loop_fd;
}

START_TEST(test_partition_uses_disk_queue)
{
	unsigned nr, pma, pmi, dma, dmi, v, saved;
	char path[128], *dir;
	struct stat st;
	int loop_fd, fd;
	FILE *f;

	if (geteuid() != 0 || access("/dev/loop-control", W_OK) < 0) {
		printf("# SKIP test_partition_uses_disk_queue: needs root and loop devices\n");
		return;
	}
	dir = unit_mkdtemp();
	loop_fd = attach_partitioned_loop(dir, &nr);
	if (loop_fd < 0) {
		printf("# SKIP test_partition_uses_disk_queue: cannot set up a loop device: %s\n",
		       strerror(errno));
		unit_rmtree(dir);
		free(dir);
		return;
	}
	ck_assert_int_eq(fstat(loop_fd, &st), 0);
	dma = major(st.st_rdev);
	dmi = minor(st.st_rdev);
	snprintf(path, sizeof(path), "/sys/block/loop%u/loop%up1/dev", nr, nr);
	f = fopen(path, "re");
	ck_assert_msg(f != NULL, "no partition '%s'", path);
	ck_assert_int_eq(fscanf(f, "%u:%u", &pma, &pmi), 2);
	fclose(f);

	check_attrs_match_sysfs(pma, pmi);
	ck_assert_int_eq(dev_block_get_read_ahead_kb(dma, dmi, &saved), 0);
	ck_assert_int_eq(dev_block_get_read_ahead_kb(pma, pmi, &v), 0);
	ck_assert_uint_eq(v, saved);
	/* Setting it through the partition sets the disk's */
	ck_assert_int_eq(dev_block_set_read_ahead_kb(pma, pmi, saved == 512 ? 256 : 512), 0);
	ck_assert_int_eq(dev_block_get_read_ahead_kb(dma, dmi, &v), 0);
	ck_assert_uint_eq(v, saved == 512 ? 256 : 512);
	ck_assert_int_eq(dev_block_set_read_ahead_kb(pma, pmi, saved), 0);
	ck_assert_int_eq(dev_block_get_read_ahead_kb(dma, dmi, &v), 0);
	ck_assert_uint_eq(v, saved);

	/* The partition's node is found by number (or by its uevent DEVNAME) */
	fd = dev_block_open(pma, pmi);
	ck_assert_msg(fd >= 0, "dev_block_open(%u, %u): %s", pma, pmi, strerror(-fd));
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISBLK(st.st_mode));
	ck_assert_uint_eq(st.st_rdev, makedev(pma, pmi));
	close(fd);
	close(loop_fd);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *dev_block_suite(void)
{
	Suite *s = suite_create("blockdev");
	TCase *tc = tcase_create("sysfs");

	tcase_add_test(tc, test_missing_device);
	tcase_add_test(tc, test_attrs);
	tcase_add_test(tc, test_open);
	tcase_add_test(tc, test_partition_uses_disk_queue);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(dev_block_suite)
