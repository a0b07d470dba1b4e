// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/sys-mountinfo.c: parsing crafted mountinfo text and choosing mounts */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sys-mountinfo.h"
#include "unit.h"

static int parse_str(const char *text, struct mount_table *ret)
{
	return mountinfo_parse(text, strlen(text), ret);
}

/* Lines as a 6.x kernel writes them, with and without optional fields. */
static const char sample[] =
	"22 27 0:21 / /proc rw,relatime shared:13 - proc proc rw\n"
	"27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
	"30 27 259:1048575 / /mnt/nvme rw,noatime master:4 propagate_from:2 unbindable - xfs "
	"/dev/nvme0n1p1 rw,attr2\n"
	"31 27 8:17 /srv/data /var/data rw - ext4 /dev/sdb1 rw\n"
	"32 27 0:45 /@home /home rw,relatime - btrfs /dev/sdc1 rw,subvolid=257,subvol=/@home\n";

START_TEST(test_parse_fields)
{
	struct mount_table t = { 0 };
	const struct mount_entry *e;

	ck_assert_int_eq(parse_str(sample, &t), 0);
	ck_assert_uint_eq(t.count, 5);
	e = &t.entries[1];
	ck_assert_uint_eq(e->id, 27);
	ck_assert_uint_eq(e->parent_id, 1);
	ck_assert_uint_eq(e->major, 254);
	ck_assert_uint_eq(e->minor, 0);
	ck_assert_str_eq(e->root, "/");
	ck_assert_str_eq(e->mount_point, "/");
	ck_assert_str_eq(e->options, "rw,relatime");
	ck_assert_str_eq(e->fstype, "ext4");
	ck_assert_str_eq(e->source, "/dev/vda");
	e = &t.entries[2];	/* several optional fields before the separator */
	ck_assert_str_eq(e->fstype, "xfs");
	ck_assert_str_eq(e->source, "/dev/nvme0n1p1");
	ck_assert_str_eq(e->mount_point, "/mnt/nvme");
	mountinfo_free(&t);
	ck_assert_ptr_null(t.entries);
	ck_assert_uint_eq(t.count, 0);
	mountinfo_free(&t);	/* twice is harmless */
	mountinfo_free(NULL);
}
END_TEST

START_TEST(test_big_minor)
{
	struct mount_table t = { 0 };
	const struct mount_entry *e;

	ck_assert_int_eq(parse_str(sample, &t), 0);
	e = &t.entries[2];
	ck_assert_uint_eq(e->major, 259);
	ck_assert_uint_eq(e->minor, 1048575);	/* never masked with 0xff */
	ck_assert_ptr_eq(mountinfo_find_dev(&t, 259, 1048575), e);
	ck_assert_ptr_null(mountinfo_find_dev(&t, 259, 1048575 & 0xff));
	ck_assert_ptr_null(mountinfo_find_dev(&t, 259, 0));
	mountinfo_free(&t);

	ck_assert_int_eq(parse_str("1 0 4095:1048575 / / rw - ext4 x rw\n", &t), 0);
	ck_assert_uint_eq(t.entries[0].major, 4095);
	mountinfo_free(&t);
}
END_TEST

START_TEST(test_escapes)
{
	struct mount_table t = { 0 };
	const char *text =
		"40 27 7:0 /dir\\040one /mnt/a\\040b\\011c\\012d\\134e rw - ext4 "
		"/dev/loop\\0400 rw\n"
		/* a backslash not starting a full octal escape stays as it is */
		"41 27 7:1 / /mnt/x\\y\\12 rw - vfat /dev/loop1 rw\n"
		/* high bytes (not UTF-8) come through */
		"42 27 7:2 / /mnt/\\377\\200 rw - ext4 /dev/loop2 rw\n";

	ck_assert_int_eq(parse_str(text, &t), 0);
	ck_assert_uint_eq(t.count, 3);
	ck_assert_str_eq(t.entries[0].root, "/dir one");
	ck_assert_str_eq(t.entries[0].mount_point, "/mnt/a b\tc\nd\\e");
	ck_assert_str_eq(t.entries[0].source, "/dev/loop 0");
	ck_assert_str_eq(t.entries[1].mount_point, "/mnt/x\\y\\12");
	ck_assert_str_eq(t.entries[2].mount_point, "/mnt/\377\200");
	mountinfo_free(&t);
}
END_TEST

START_TEST(test_blank_lines_and_no_final_newline)
{
	struct mount_table t = { 0 };
	const char *text = "\n1 0 8:1 / / rw - ext4 /dev/sda1 rw\n\n2 1 0:5 / /dev rw - devtmpfs udev rw";

	ck_assert_int_eq(parse_str(text, &t), 0);
	ck_assert_uint_eq(t.count, 2);
	ck_assert_str_eq(t.entries[1].options, "rw");
	ck_assert_str_eq(t.entries[1].fstype, "devtmpfs");
	mountinfo_free(&t);

	ck_assert_int_eq(mountinfo_parse("", 0, &t), 0);
	ck_assert_uint_eq(t.count, 0);
	mountinfo_free(&t);
	ck_assert_int_eq(mountinfo_parse(NULL, 0, &t), 0);
	mountinfo_free(&t);
}
END_TEST

START_TEST(test_empty_source_and_missing_super_options)
{
	struct mount_table t = { 0 };

	/* A driver printing a space unescaped in its options does not spoil the table */
	ck_assert_int_eq(parse_str("5 1 0:51 / /n rw - cifs //srv/share rw,prefixpath=a b\n", &t), 0);
	ck_assert_str_eq(t.entries[0].source, "//srv/share");
	ck_assert_str_eq(t.entries[0].fstype, "cifs");
	mountinfo_free(&t);
	{
		char line[1024] = "6 1 0:52 / /m rw shared:1 master:2 - fuse.x src o";

		for (int i = 0; i < 100; i++)	/* far more fields than the parser keeps */
			strcat(line, " x");
		strcat(line, "\n");
		ck_assert_int_eq(parse_str(line, &t), 0);
		ck_assert_str_eq(t.entries[0].source, "src");
		mountinfo_free(&t);
	}

	/* mount -t tmpfs "" /mnt gives an empty source field */
	ck_assert_int_eq(parse_str("5 1 0:50 / /mnt rw - tmpfs  rw,size=4k\n", &t), 0);
	ck_assert_str_eq(t.entries[0].source, "");
	ck_assert_str_eq(t.entries[0].fstype, "tmpfs");
	mountinfo_free(&t);
	ck_assert_int_eq(parse_str("5 1 0:50 / /mnt rw - tmpfs none\n", &t), 0);
	ck_assert_str_eq(t.entries[0].source, "none");
	mountinfo_free(&t);
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const bad[] = {
		"1 0 8:1 / / rw ext4 /dev/sda1 rw\n",		/* no separator */
		"1 0 8:1 / / rw -\n",				/* nothing after it */
		"1 0 8:1 / / rw - ext4\n",			/* no source */
		"x 0 8:1 / / rw - ext4 /dev/sda1 rw\n",		/* id not a number */
		"1 -3 8:1 / / rw - ext4 /dev/sda1 rw\n",
		"1 0 81 / / rw - ext4 /dev/sda1 rw\n",		/* no colon */
		"1 0 8: / / rw - ext4 /dev/sda1 rw\n",
		"1 0 :1 / / rw - ext4 /dev/sda1 rw\n",
		"1 0 8:1:2 / / rw - ext4 /dev/sda1 rw\n",
		"1 0 4096:1 / / rw - ext4 /dev/sda1 rw\n",	/* major over 12 bits */
		"1 0 8:1048576 / / rw - ext4 /dev/sda1 rw\n",	/* minor over 20 bits */
		"1 0 8:99999999999 / / rw - ext4 /dev/sda1 rw\n",
		"99999999999 0 8:1 / / rw - ext4 /dev/sda1 rw\n",
		"1 0 8:1 / /mnt\\000x rw - ext4 /dev/sda1 rw\n",	/* escape of a NUL */
		"1 0 8:1 / /mnt\\777 rw - ext4 /dev/sda1 rw\n",	/* escape over 0377 */
		"1 0 8:1  / rw - ext4 /dev/sda1 rw\n",		/* empty root */
		"1 0 8:1 / / rw -  /dev/sda1 rw\n",		/* empty fstype */
		"1 0 8:1 / /\n",
		"1\n",
		"-\n",
		" \n",
		"1 0 8:1 / / rw - ext4 /dev/sda1 rw\ngarbage\n",	/* one bad line spoils all */
	};
	const struct mount_entry sentinel = { .id = 12345 };
	struct mount_table t = { .entries = (struct mount_entry *)&sentinel, .count = 7 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse_str(bad[i], &t) == -EBADMSG, "accepted bad line %zu: %s", i,
			      bad[i]);
		/* *ret untouched on failure */
		ck_assert_ptr_eq(t.entries, &sentinel);
		ck_assert_uint_eq(t.count, 7);
	}
	/* A NUL byte inside the text */
	ck_assert_int_eq(mountinfo_parse("1 0 8:1 / /\0 rw - ext4 x rw\n", 27, &t), -EBADMSG);
	ck_assert_int_eq(mountinfo_parse(NULL, 3, &t), -EINVAL);
}
END_TEST

START_TEST(test_find_bind_mounts)
{
	struct mount_table t = { 0 };
	/* A bind of a subdirectory listed before the whole filesystem */
	const char *text =
		"1 0 254:0 / / rw - ext4 /dev/vda rw\n"
		"10 1 8:1 /exports/a /srv/a rw - ext4 /dev/sda1 rw\n"
		"11 1 8:1 / /data rw - ext4 /dev/sda1 rw\n"
		"12 1 8:1 / /d rw - ext4 /dev/sda1 rw\n"
		"13 1 8:2 /x/y/z /mnt/long rw - ext4 /dev/sda2 rw\n"
		"14 1 8:2 /x /mnt/short/but/longer/point rw - ext4 /dev/sda2 rw\n"
		"15 1 8:2 /x /m rw - ext4 /dev/sda2 rw\n";
	const struct mount_entry *e;

	ck_assert_int_eq(parse_str(text, &t), 0);
	e = mountinfo_find_dev(&t, 8, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->root, "/");
	ck_assert_str_eq(e->mount_point, "/d");	/* root "/", then the shortest mount point */
	/* Only binds of subdirectories: still found, shortest root then shortest point */
	e = mountinfo_find_dev(&t, 8, 2);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->root, "/x");
	ck_assert_str_eq(e->mount_point, "/m");
	ck_assert_ptr_null(mountinfo_find_dev(&t, 8, 3));
	ck_assert_ptr_null(mountinfo_find_dev(NULL, 8, 1));
	mountinfo_free(&t);
}
END_TEST

START_TEST(test_find_btrfs_subvolumes)
{
	struct mount_table t = { 0 };
	const char *subvols =
		"26 1 0:24 /@ / rw,relatime shared:1 - btrfs /dev/nvme0n1p2 rw,subvolid=256,subvol=/@\n"
		"27 26 0:24 /@home /home rw,relatime shared:2 - btrfs /dev/nvme0n1p2 "
		"rw,subvolid=257,subvol=/@home\n"
		"28 26 0:24 /@snapshots /.snapshots rw - btrfs /dev/nvme0n1p2 rw,subvolid=258\n";
	const char *with_top = "29 26 0:24 / /mnt/top rw - btrfs /dev/nvme0n1p2 rw,subvolid=5\n";
	const struct mount_entry *e;
	char *text;

	/* Only subvolumes are mounted: none has root "/" */
	ck_assert_int_eq(parse_str(subvols, &t), 0);
	e = mountinfo_find_dev(&t, 0, 24);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->root, "/@");
	ck_assert_str_eq(e->mount_point, "/");
	mountinfo_free(&t);

	/* The top-level subvolume mounted too: it shows everything */
	ck_assert_int_ne(asprintf(&text, "%s%s", subvols, with_top), -1);
	ck_assert_int_eq(parse_str(text, &t), 0);
	e = mountinfo_find_dev(&t, 0, 24);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->mount_point, "/mnt/top");
	mountinfo_free(&t);
	free(text);
}
END_TEST

START_TEST(test_find_skips_covered_mount)
{
	struct mount_table t = { 0 };
	/* 8:1 at /mnt is hidden by a tmpfs mounted over it; its bind at /srv is reachable */
	const char *text =
		"1 0 254:0 / / rw - ext4 /dev/vda rw\n"
		"20 1 8:1 / /mnt rw - ext4 /dev/sda1 rw\n"
		"21 1 8:1 /sub /srv rw - ext4 /dev/sda1 rw\n"
		"22 20 0:60 / /mnt rw - tmpfs tmpfs rw\n";
	const struct mount_entry *e;

	ck_assert_int_eq(parse_str(text, &t), 0);
	e = mountinfo_find_dev(&t, 8, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->mount_point, "/srv");
	mountinfo_free(&t);
}
END_TEST

/* A pack names the mount it took its paths from: that one first, if it is still there. */
START_TEST(test_find_dev_at)
{
	struct mount_table t = { 0 };
	const char *text =
		"26 1 0:24 /@ / rw - btrfs /dev/sda2 rw,subvol=/@\n"
		"27 26 0:24 /@home /home rw - btrfs /dev/sda2 rw,subvol=/@home\n"
		"28 26 0:24 /@srv /srv rw - btrfs /dev/sda2 rw,subvol=/@srv\n"
		"29 28 0:61 / /srv rw - tmpfs tmpfs rw\n";
	const struct mount_entry *e;

	ck_assert_int_eq(parse_str(text, &t), 0);
	e = mountinfo_find_dev_at(&t, 0, 24, "/home");
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->root, "/@home");
	/* gone, covered, or another device there: the best mount of the device */
	ck_assert_str_eq(mountinfo_find_dev_at(&t, 0, 24, "/gone")->mount_point, "/");
	ck_assert(mountinfo_is_covered(&t, &t.entries[2]));
	ck_assert(!mountinfo_is_covered(&t, &t.entries[1]));
	ck_assert_str_eq(mountinfo_find_dev_at(&t, 0, 24, "/srv")->mount_point, "/");
	ck_assert_str_eq(mountinfo_find_dev_at(&t, 0, 24, NULL)->mount_point, "/");
	ck_assert_ptr_null(mountinfo_find_dev_at(&t, 0, 99, "/home"));
	mountinfo_free(&t);
}
END_TEST

/*
 * systemd-nspawn: the container's root is a bind of a host directory, and the
 * host's /usr/lib/os-release is bound onto the file /run/host/os-release, from
 * the same filesystem with a shorter root, listed first. A mount on a file
 * names no other file: the root mount must win. The file mount point is a real
 * file here, since that is what tells them apart.
 */
START_TEST(test_find_skips_file_bind)
{
	struct mount_table t = { 0 };
	const struct mount_entry *e;
	char *dir = unit_mkdtemp(), *file, *text;
	int fd;

	ck_assert_int_ne(asprintf(&file, "%s/os-release", dir), -1);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_ne(asprintf(&text,
		"300 299 8:2 /usr/lib/os-release %s ro,nosuid - ext4 /dev/sda2 rw\n"
		"298 297 8:2 /var/lib/machines/debian / rw,relatime - ext4 /dev/sda2 rw\n"
		"301 298 0:50 / /run rw - tmpfs tmpfs rw\n", file), -1);
	ck_assert_int_eq(parse_str(text, &t), 0);
	e = mountinfo_find_dev(&t, 8, 2);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->mount_point, "/");
	mountinfo_free(&t);
	free(text);

	/* the file bind alone: still found (better than nothing) */
	ck_assert_int_ne(asprintf(&text, "300 299 8:2 /usr/lib/os-release %s ro - ext4 x rw\n",
				  file), -1);
	ck_assert_int_eq(parse_str(text, &t), 0);
	e = mountinfo_find_dev(&t, 8, 2);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->mount_point, file);
	mountinfo_free(&t);
	free(text);
	free(file);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_read_self)
{
	struct mount_table t = { 0 };
	const struct mount_entry *e;
	struct stat st;

	ck_assert_int_eq(mountinfo_read("/nonexistent/mountinfo", &t), -ENOENT);
	if (stat("/proc/self/mountinfo", &st) < 0) {
		printf("# SKIP test_read_self: no /proc/self/mountinfo\n");
		return;
	}
	ck_assert_int_eq(mountinfo_read("/proc/self/mountinfo", &t), 0);
	ck_assert_uint_gt(t.count, 0);
	/* The filesystem of /proc itself is listed */
	ck_assert_int_eq(stat("/proc", &st), 0);
	e = mountinfo_find_dev(&t, major(st.st_dev), minor(st.st_dev));
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->fstype, "proc");
	ck_assert(mountinfo_is_pseudo_fs(e->fstype));
	mountinfo_free(&t);
}
END_TEST

START_TEST(test_pseudo_fs)
{
	static const char *const pseudo[] = {
		"proc", "sysfs", "tmpfs", "devtmpfs", "cgroup", "cgroup2", "devpts", "securityfs",
		"debugfs", "tracefs", "configfs", "pstore", "bpf", "mqueue", "hugetlbfs", "autofs",
		"fusectl", "efivarfs", "binfmt_misc", "nsfs", "ramfs", "rpc_pipefs",
	};
	static const char *const real[] = {
		"ext4", "ext3", "ext2", "xfs", "btrfs", "f2fs", "vfat", "overlay", "squashfs",
		"erofs", "fuse.sshfs", "nfs4", "9p", "virtiofs", "", "Proc", "tmpfs2",
	};

	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		ck_assert_msg(mountinfo_is_pseudo_fs(pseudo[i]), "%s should be pseudo", pseudo[i]);
	for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++)
		ck_assert_msg(!mountinfo_is_pseudo_fs(real[i]), "%s is not pseudo", real[i]);
	ck_assert(!mountinfo_is_pseudo_fs(NULL));
}
END_TEST

/* A mount in a private namespace (root, or a user namespace) flags the watch. */
START_TEST(test_watch)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *dir = unit_mkdtemp();
		int fd, r = 0;

		if (unshare(geteuid() == 0 ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS) < 0 ||
		    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0) {
			rmdir(dir);
			free(dir);
			_exit(77);	/* no namespaces here: nothing to test */
		}
		fd = mountinfo_watch();
		if (fd < 0 || mountinfo_changed(fd))
			r = 1;
		else if (mount("none", dir, "tmpfs", 0, NULL) < 0)
			r = 77;
		else if (!mountinfo_changed(fd))
			r = 2;
		umount(dir);
		rmdir(dir);
		free(dir);	/* valgrind checks the child's leaks too */
		_exit(r);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		return;
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert(mountinfo_changed(-1));
}
END_TEST

/* Below a FUSE mount, by the longest mount point; a deeper other mount is not FUSE. */
START_TEST(test_on_fuse)
{
	static const char text[] =
		"27 1 254:0 / / rw - ext4 /dev/vda rw\n"
		"40 27 0:50 / /home/u/fuse rw - fuse.sshfs me@host: rw\n"
		"41 40 0:51 / /home/u/fuse/tmp rw - tmpfs tmpfs rw\n";
	struct mount_table t = { 0 };

	ck_assert_int_eq(parse_str(text, &t), 0);
	ck_assert(mountinfo_on_fuse(&t, "/home/u/fuse"));
	ck_assert(mountinfo_on_fuse(&t, "/home/u/fuse/bin/x"));
	ck_assert(!mountinfo_on_fuse(&t, "/home/u/fusex/bin/x"));	/* not a path prefix */
	ck_assert(!mountinfo_on_fuse(&t, "/home/u/fuse/tmp/x"));	/* the deeper mount wins */
	ck_assert(!mountinfo_on_fuse(&t, "/usr/bin/x"));
	ck_assert(!mountinfo_on_fuse(NULL, "/home/u/fuse/x"));
	mountinfo_free(&t);
}
END_TEST

/* FUSE and network filesystems: a server answers, and may never */
START_TEST(test_may_hang)
{
	ck_assert(mountinfo_may_hang("fuse.sshfs") && mountinfo_may_hang("fuseblk"));
	ck_assert(mountinfo_may_hang("nfs4") && mountinfo_may_hang("cifs") &&
		  mountinfo_may_hang("9p") && mountinfo_may_hang("ceph"));
	ck_assert(mountinfo_may_hang("autofs"));	/* waits for a mount a user started */
	ck_assert(!mountinfo_may_hang("ext4") && !mountinfo_may_hang("btrfs") &&
		  !mountinfo_may_hang("tmpfs") && !mountinfo_may_hang("nfsd"));
}
END_TEST

static Suite *mountinfo_suite(void)
{
	Suite *s = suite_create("mountinfo");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_parse_fields);
	tcase_add_test(tc, test_big_minor);
	tcase_add_test(tc, test_escapes);
	tcase_add_test(tc, test_blank_lines_and_no_final_newline);
	tcase_add_test(tc, test_empty_source_and_missing_super_options);
	tcase_add_test(tc, test_malformed);
	suite_add_tcase(s, tc);
	tc = tcase_create("find");
	tcase_add_test(tc, test_find_bind_mounts);
	tcase_add_test(tc, test_find_btrfs_subvolumes);
	tcase_add_test(tc, test_find_skips_covered_mount);
	tcase_add_test(tc, test_find_dev_at);
	tcase_add_test(tc, test_find_skips_file_bind);
	tcase_add_test(tc, test_read_self);
	tcase_add_test(tc, test_watch);
	tcase_add_test(tc, test_pseudo_fs);
	tcase_add_test(tc, test_on_fuse);
	tcase_add_test(tc, test_may_hang);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(mountinfo_suite)
