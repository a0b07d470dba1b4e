// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for src/trace-resolve.c: naming inodes of a temporary tree, by walk and by handle */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/btrfs.h>
#include <linux/loop.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sys-mountinfo.h"
#include "trace-resolve.h"
#include "unit.h"

static char *tmp;	/* the test's directory; the tree under test is tmp/root */
static char *root;

static void setup(void)
{
	tmp = unit_mkdtemp();
	ck_assert_int_ne(asprintf(&root, "%s/root", tmp), -1);
	ck_assert_int_eq(mkdir(root, 0755), 0);
}

static void teardown(void)
{
	unit_rmtree(tmp);
	free(tmp);
	free(root);
	tmp = root = NULL;
}

static char *in_root(const char *rel)
{
	char *p;

	ck_assert_int_ne(asprintf(&p, "%s/%s", root, rel), -1);
	return p;
}

static void make_dir(const char *rel)
{
	char *p = in_root(rel);

	ck_assert_msg(mkdir(p, 0755) == 0, "mkdir %s: %s", p, strerror(errno));
	free(p);
}

/* Creates tmp/root/@rel with a little content and returns its inode. */
static uint64_t make_file(const char *rel)
{
	char *p = in_root(rel);
	struct stat st;
	int fd;

	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ck_assert_msg(fd >= 0, "create %s: %s", p, strerror(errno));
	ck_assert_int_eq(write(fd, "x", 1), 1);
	ck_assert_int_eq(fstat(fd, &st), 0);
	close(fd);
	free(p);
	return st.st_ino;
}

static uint64_t ino_of(const char *path)
{
	struct stat st;

	ck_assert_msg(lstat(path, &st) == 0, "lstat %s: %s", path, strerror(errno));
	return st.st_ino;
}

static void root_dev(unsigned *major_ret, unsigned *minor_ret)
{
	struct stat st;

	ck_assert_int_eq(stat(root, &st), 0);
	*major_ret = major(st.st_dev);
	*minor_ret = minor(st.st_dev);
}

static long resolve(struct resolve_item *items, size_t n, unsigned methods)
{
	unsigned ma, mi;

	root_dev(&ma, &mi);
	return resolve_inodes(root, ma, mi, items, n, methods, NULL);
}

static void items_free(struct resolve_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(items[i].path);
		items[i].path = NULL;
	}
}

/* Every path given must lead, from the root, back to the inode asked for. */
static void assert_paths_true(const struct resolve_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *p;

		if (!items[i].path)
			continue;
		ck_assert_msg(items[i].path[0] != '/', "absolute path '%s'", items[i].path);
		p = in_root(items[i].path);
		ck_assert_msg(ino_of(p) == items[i].ino, "'%s' is not inode %llu", items[i].path,
			      (unsigned long long)items[i].ino);
		free(p);
	}
}

/* The walk alone, then the fast path with the walk for what it leaves */
static const unsigned both_methods[2] = { RESOLVE_WALK, RESOLVE_WALK | RESOLVE_HANDLE };

/* The odd names every resolver must get right. */
static const char *const odd_names[] = {
	"plain",
	"a b",
	"new\nline",
	"tab\there",
	"\xff\xfe-not-utf8",
	" leading and trailing ",
	"d1/d2/d3/deep",
	"d1/sp ace dir/inner file",
	"d1/sp ace dir/x (deleted)",	/* looks like /proc's mark for a deleted file */
};

static size_t make_odd_tree(struct resolve_item *items)
{
	size_t n = 0;

	make_dir("d1");
	make_dir("d1/d2");
	make_dir("d1/d2/d3");
	make_dir("d1/sp ace dir");
	make_dir("emptydir");
	for (size_t i = 0; i < sizeof(odd_names) / sizeof(odd_names[0]); i++)
		items[n++] = (struct resolve_item){ .ino = make_file(odd_names[i]) };
	return n;
}

static void check_odd_tree(unsigned methods)
{
	struct resolve_item items[16] = { 0 };
	size_t n = make_odd_tree(items);

	ck_assert_int_eq(resolve(items, n, methods), (long)n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(items[i].path);
		ck_assert_str_eq(items[i].path, odd_names[i]);
	}
	items_free(items, n);
}

START_TEST(test_walk_odd_names)
{
	check_odd_tree(RESOLVE_WALK);
}
END_TEST

START_TEST(test_handle_and_walk_odd_names)
{
	check_odd_tree(RESOLVE_HANDLE | RESOLVE_WALK);
}
END_TEST

/* Can this process open files of the tree by handle (ext4 and CAP_DAC_READ_SEARCH)? */
static bool handles_work(const char *why_not[1])
{
	union {
		struct file_handle fh;
		char space[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	struct statfs sfs;
	int mount_id, dir_fd, fd;

	ck_assert_int_eq(statfs(root, &sfs), 0);
	if (sfs.f_type != 0xEF53) {
		*why_not = "the temporary directory is not on ext2/3/4";
		return false;
	}
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	dir_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dir_fd, 0);
	if (name_to_handle_at(dir_fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) < 0) {
		close(dir_fd);
		*why_not = "name_to_handle_at fails here";
		return false;
	}
	fd = open_by_handle_at(dir_fd, &h.fh, O_PATH | O_CLOEXEC);
	close(dir_fd);
	if (fd < 0) {
		*why_not = "open_by_handle_at needs CAP_DAC_READ_SEARCH";
		return false;
	}
	close(fd);
	return true;
}

START_TEST(test_handle_only)
{
	struct resolve_item items[16] = { 0 };
	size_t n = make_odd_tree(items);
	const char *why_not = NULL;
	long r;

	r = resolve(items, n, RESOLVE_HANDLE);
	ck_assert_int_ge(r, 0);
	assert_paths_true(items, n);
	if (!handles_work(&why_not)) {
		printf("# SKIP handle fast path not checked: %s\n", why_not);
		ck_assert_int_eq(r, 0);
		items_free(items, n);
		return;
	}
	/*
	 * The files were just created: their dentries are cached, the fast path names
	 * them all but the one whose name ends like /proc's mark of a deleted file
	 * (left to the walk).
	 */
	ck_assert_int_eq(r, (long)n - 1);
	for (size_t i = 0; i < n; i++) {
		if (strstr(odd_names[i], " (deleted)"))
			ck_assert_ptr_null(items[i].path);
		else
			ck_assert_str_eq(items[i].path, odd_names[i]);
	}
	items_free(items, n);
}
END_TEST

START_TEST(test_hard_links)
{
	struct resolve_item items[3] = { 0 };
	char *a, *b;

	make_dir("d");
	items[0].ino = make_file("h1");
	a = in_root("h1");
	b = in_root("d/h2");
	ck_assert_int_eq(link(a, b), 0);
	items[1].ino = items[0].ino;	/* the same inode asked for twice */
	for (size_t k = 0; k < 2; k++) {
		unsigned m = both_methods[k];

		ck_assert_int_eq(resolve(items, 2, m), 2);
		for (int i = 0; i < 2; i++) {
			ck_assert_ptr_nonnull(items[i].path);
			ck_assert_msg(!strcmp(items[i].path, "h1") || !strcmp(items[i].path, "d/h2"),
				      "hard link named '%s'", items[i].path);
		}
		ck_assert_ptr_ne(items[0].path, items[1].path);	/* each its own string */
		assert_paths_true(items, 2);
		items_free(items, 2);
	}
	free(a);
	free(b);
}
END_TEST

START_TEST(test_deleted_file)
{
	struct resolve_item items[2] = { 0 };
	char *p;
	int fd;

	items[0].ino = make_file("kept");
	items[1].ino = make_file("gone");
	p = in_root("gone");
	fd = open(p, O_RDONLY | O_CLOEXEC);	/* keeps the inode alive, as a traced file might */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(unlink(p), 0);
	for (size_t k = 0; k < 2; k++) {
		unsigned m = both_methods[k];

		ck_assert_int_eq(resolve(items, 2, m), 1);
		ck_assert_str_eq(items[0].path, "kept");
		ck_assert_ptr_null(items[1].path);
		items_free(items, 2);
	}
	close(fd);
	free(p);
}
END_TEST

START_TEST(test_items_left_alone)
{
	struct resolve_item items[3] = { 0 };
	char *preset = strdup("given/by/caller");

	items[0].ino = make_file("f");
	items[1] = (struct resolve_item){ .ino = items[0].ino, .path = preset };
	items[2].ino = 0;	/* no inode is numbered 0 */
	ck_assert_int_eq(resolve(items, 3, RESOLVE_WALK | RESOLVE_HANDLE), 2);
	ck_assert_str_eq(items[0].path, "f");
	ck_assert_ptr_eq(items[1].path, preset);
	ck_assert_ptr_null(items[2].path);
	items_free(items, 3);
	ck_assert_int_eq(resolve(NULL, 0, RESOLVE_WALK), 0);
	ck_assert_int_eq(resolve(items, 1, 0), 0);	/* no method: nothing named */
}
END_TEST

START_TEST(test_root_inode)
{
	struct resolve_item item = { .ino = ino_of(root) };

	ck_assert_int_eq(resolve(&item, 1, RESOLVE_WALK), 1);
	ck_assert_str_eq(item.path, ".");
	free(item.path);
}
END_TEST

/* Nothing outside the directory is named, neither through symlinks nor by handle. */
START_TEST(test_outside_not_named)
{
	struct resolve_item item = { 0 };
	char *out_dir, *out_file, *link_path;
	int fd;

	ck_assert_int_ne(asprintf(&out_dir, "%s/outside", tmp), -1);
	ck_assert_int_ne(asprintf(&out_file, "%s/outside/f", tmp), -1);
	ck_assert_int_eq(mkdir(out_dir, 0755), 0);
	fd = open(out_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	link_path = in_root("dirlink");
	ck_assert_int_eq(symlink(out_dir, link_path), 0);
	make_file("inside");
	item.ino = ino_of(out_file);
	for (size_t k = 0; k < 2; k++) {
		unsigned m = both_methods[k];

		ck_assert_int_eq(resolve(&item, 1, m), 0);
		ck_assert_ptr_null(item.path);
	}
	/* The symlink itself is an inode of the tree */
	item.ino = ino_of(link_path);
	ck_assert_int_eq(resolve(&item, 1, RESOLVE_WALK), 1);
	ck_assert_str_eq(item.path, "dirlink");
	free(item.path);
	free(out_dir);
	free(out_file);
	free(link_path);
}
END_TEST

/* inotify tells which directories the walk opened. */
START_TEST(test_walk_stops_early)
{
	struct resolve_item item = { 0 }, all[8] = { 0 };
	char names[8][16];
	int in, opened = 0;
	char buf[4096] __attribute__((aligned(8)));
	ssize_t len;

	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ck_assert_int_ge(in, 0);
	for (int i = 0; i < 8; i++) {
		char *p;

		snprintf(names[i], sizeof(names[i]), "sub%d", i);
		make_dir(names[i]);
		snprintf(names[i], sizeof(names[i]), "sub%d/file", i);
		all[i].ino = make_file(names[i]);
		p = in_root(names[i]);
		*strrchr(p, '/') = '\0';
		ck_assert_int_ge(inotify_add_watch(in, p, IN_OPEN | IN_ONLYDIR), 0);
		free(p);
	}
	item.ino = make_file("target");
	ck_assert_int_eq(resolve(&item, 1, RESOLVE_WALK), 1);
	ck_assert_str_eq(item.path, "target");
	free(item.path);
	len = read(in, buf, sizeof(buf));
	ck_assert_msg(len < 0 && errno == EAGAIN, "the walk went on after finding everything");

	/* Control: asking for files in every subdirectory opens them */
	ck_assert_int_eq(resolve(all, 8, RESOLVE_WALK), 8);
	assert_paths_true(all, 8);
	items_free(all, 8);
	while ((len = read(in, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + len; p += sizeof(struct inotify_event) +
						       ((struct inotify_event *)p)->len)
			opened += !!(((struct inotify_event *)p)->mask & IN_OPEN);
	ck_assert_int_ge(opened, 7);	/* the last file found may spare nothing, all 8 opened */
	close(in);
}
END_TEST

START_TEST(test_errors)
{
	struct resolve_item item = { .ino = 1 };
	struct statfs sfs;
	struct stat st;
	char *missing = in_root("missing");

	ck_assert_int_eq(resolve_inodes(missing, 0, 0, &item, 1, RESOLVE_WALK, NULL), -ENOENT);
	free(missing);
	ck_assert_int_eq(statfs(root, &sfs), 0);
	ck_assert_int_eq(stat(root, &st), 0);
	if (sfs.f_type != 0x9123683E) {	/* btrfs reports subvolume devices, so it is lenient */
		ck_assert_int_eq(resolve_inodes(root, major(st.st_dev) + 1, minor(st.st_dev), &item,
						1, RESOLVE_WALK, NULL),
				 -EXDEV);
	}
	ck_assert_ptr_null(item.path);
}
END_TEST

/* Mount tests run in a private mount namespace of the forked test process. */
static bool private_mounts(void)
{
	if (unshare(CLONE_NEWNS) < 0) {
		printf("# SKIP mount tests: cannot unshare the mount namespace (needs root)\n");
		return false;
	}
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0) {
		printf("# SKIP mount tests: cannot make mounts private: %s\n", strerror(errno));
		return false;
	}
	return true;
}

START_TEST(test_walk_stays_on_filesystem)
{
	struct resolve_item items[2] = { 0 };
	char *mnt, *f, *out_dir, *out_file, *bind;
	int fd;

	if (!private_mounts())
		return;
	/* Another filesystem mounted inside the tree */
	make_dir("mnt");
	mnt = in_root("mnt");
	ck_assert_int_eq(mount("ura-test", mnt, "tmpfs", 0, "size=64k"), 0);
	f = in_root("mnt/on-tmpfs");
	fd = open(f, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	items[0].ino = ino_of(f);
	/* A directory from outside the tree bind-mounted into it: same st_dev, other mount */
	ck_assert_int_ne(asprintf(&out_dir, "%s/outside", tmp), -1);
	ck_assert_int_ne(asprintf(&out_file, "%s/outside/f", tmp), -1);
	ck_assert_int_eq(mkdir(out_dir, 0755), 0);
	fd = open(out_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	items[1].ino = ino_of(out_file);
	make_dir("bind");
	bind = in_root("bind");
	ck_assert_int_eq(mount(out_dir, bind, "none", MS_BIND, NULL), 0);

	for (size_t k = 0; k < 2; k++) {
		unsigned m = both_methods[k];

		resolve(items, 2, m);
		/* An inode of the tree may share the tmpfs file's number; never the mount's path */
		ck_assert_msg(!items[0].path || strncmp(items[0].path, "mnt/", 4) != 0,
			      "walked into another filesystem: '%s'", items[0].path);
		ck_assert_msg(!items[1].path, "walked through a bind mount: '%s'", items[1].path);
		items_free(items, 2);
	}
	umount2(bind, MNT_DETACH);
	umount2(mnt, MNT_DETACH);
	free(mnt);
	free(f);
	free(out_dir);
	free(out_file);
	free(bind);
}
END_TEST

/* A bind mount of a subdirectory as the mount directory: handles see outside it. */
START_TEST(test_bind_of_subdir)
{
	struct resolve_item items[2] = { 0 };
	char *sub, *view;
	unsigned ma, mi;

	if (!private_mounts())
		return;
	make_dir("sub");
	make_dir("view");
	items[0].ino = make_file("sub/in-sub");
	items[1].ino = make_file("not-in-sub");
	sub = in_root("sub");
	view = in_root("view");
	ck_assert_int_eq(mount(sub, view, "none", MS_BIND, NULL), 0);
	root_dev(&ma, &mi);
	for (size_t k = 0; k < 2; k++) {
		unsigned m = both_methods[k];

		ck_assert_int_eq(resolve_inodes(view, ma, mi, items, 2, m, NULL), 1);
		ck_assert_str_eq(items[0].path, "in-sub");
		ck_assert_ptr_null(items[1].path);
		items_free(items, 2);
	}
	umount2(view, MNT_DETACH);
	free(sub);
	free(view);
}
END_TEST

/*
 * With handles, deleted files (one still open, one freed) are known to have no
 * name: the walk does not search the whole tree for them.
 */
START_TEST(test_deleted_files_spare_the_walk)
{
	struct resolve_item items[3] = { 0 };
	const char *why_not = NULL;
	char buf[4096] __attribute__((aligned(8)));
	char *open_path, *freed_path;
	int in, fd;

	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ck_assert_int_ge(in, 0);
	for (int i = 0; i < 4; i++) {
		char name[16], *p;

		snprintf(name, sizeof(name), "sub%d", i);
		make_dir(name);
		snprintf(name, sizeof(name), "sub%d/f", i);
		make_file(name);
		p = in_root(name);
		*strrchr(p, '/') = '\0';
		ck_assert_int_ge(inotify_add_watch(in, p, IN_OPEN | IN_ONLYDIR), 0);
		free(p);
	}
	items[0].ino = make_file("target");
	items[1].ino = make_file("deleted-open");
	items[2].ino = make_file("deleted-freed");	/* made last: its number is not reused */
	open_path = in_root("deleted-open");
	freed_path = in_root("deleted-freed");
	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(unlink(open_path), 0);
	ck_assert_int_eq(unlink(freed_path), 0);

	ck_assert_int_eq(resolve(items, 3, RESOLVE_HANDLE | RESOLVE_WALK), 1);
	ck_assert_str_eq(items[0].path, "target");
	ck_assert_ptr_null(items[1].path);
	ck_assert_ptr_null(items[2].path);
	items_free(items, 3);
	if (!handles_work(&why_not)) {
		printf("# SKIP deleted files sparing the walk: %s\n", why_not);
	} else {
		ck_assert_msg(read(in, buf, sizeof(buf)) < 0 && errno == EAGAIN,
			      "walked the tree for deleted files");
	}
	/* The walk alone cannot know: it looks everywhere, and finds nothing more */
	ck_assert_int_eq(resolve(items, 3, RESOLVE_WALK), 1);
	ck_assert_ptr_null(items[1].path);
	ck_assert_ptr_null(items[2].path);
	items_free(items, 3);
	ck_assert_int_gt(read(in, buf, sizeof(buf)), 0);
	close(fd);
	close(in);
	free(open_path);
	free(freed_path);
}
END_TEST

/* Very deep trees are walked to a bounded depth (one descriptor per level), without failing. */
START_TEST(test_deep_tree)
{
	struct resolve_item items[2] = { 0 };
	char rel[1024] = "";
	size_t len = 0;

	for (int level = 1; level <= 300; level++) {
		len += (size_t)snprintf(rel + len, sizeof(rel) - len, "%sd", level > 1 ? "/" : "");
		make_dir(rel);
		if (level == 200 || level == 300) {
			snprintf(rel + len, sizeof(rel) - len, "/f");
			items[level == 300].ino = make_file(rel);
			rel[len] = '\0';
		}
	}
	ck_assert_int_eq(resolve(items, 2, RESOLVE_WALK), 1);
	ck_assert_ptr_nonnull(items[0].path);
	ck_assert_uint_eq(strlen(items[0].path), 200 * 2 + 1);
	ck_assert_ptr_null(items[1].path);	/* below the walk's depth limit */
	assert_paths_true(items, 2);
	items_free(items, 2);
}
END_TEST

/* A loop device over @img; AUTOCLEAR detaches it once unmounted and closed. */
static int attach_loop(const char *img, char *dev, size_t size)
{
	struct loop_config cfg = { 0 };
	int ctl, img_fd, fd = -1, nr;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	img_fd = open(img, O_RDWR | O_CLOEXEC);
	if (ctl < 0 || img_fd < 0)
		goto out;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	if (nr < 0)
		goto out;
	snprintf(dev, size, "/dev/loop%d", nr);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		goto out;
	cfg.fd = (unsigned)img_fd;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	if (ioctl(fd, LOOP_CONFIGURE, &cfg) < 0) {
		close(fd);
		fd = -1;
	}
out:
	if (ctl >= 0)
		close(ctl);
	if (img_fd >= 0)
		close(img_fd);
	return fd;
}

/* The device mountinfo gives the mount at @dir. */
static void mount_dev(const char *dir, unsigned *ma, unsigned *mi)
{
	struct mount_table t = { 0 };
	bool found = false;

	ck_assert_int_eq(mountinfo_read("/proc/self/mountinfo", &t), 0);
	for (size_t i = 0; i < t.count; i++) {
		if (strcmp(t.entries[i].mount_point, dir) == 0) {
			*ma = t.entries[i].major;
			*mi = t.entries[i].minor;
			found = true;
		}
	}
	mountinfo_free(&t);
	ck_assert_msg(found, "'%s' not in mountinfo", dir);
}

/*
 * btrfs: st_dev is each subvolume's own anonymous device, while mountinfo and
 * the trace give the superblock's. A subvolume mount is walked with the
 * superblock's number; a wrong number is still refused; nested subvolumes
 * (inode numbers start again in each) are not entered.
 */
START_TEST(test_btrfs_subvolume)
{
	struct btrfs_ioctl_vol_args args = { 0 };
	struct mount_table mounts = { 0 };
	struct resolve_item item = { 0 };
	char *img, *top, *view, *real_top, *real_view, dev[64];
	unsigned ma, mi;
	int fd, loop_fd, top_fd;

	if (geteuid() != 0 || system("grep -qw btrfs /proc/filesystems && "
				     "command -v mkfs.btrfs >/dev/null") != 0) {
		printf("# SKIP test_btrfs_subvolume: needs root, btrfs and mkfs.btrfs\n");
		return;
	}
	if (!private_mounts())
		return;
	ck_assert_int_ne(asprintf(&img, "%s/btrfs.img", tmp), -1);
	fd = open(img, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 160 << 20), 0);
	close(fd);
	{
		char *cmd;

		ck_assert_int_ne(asprintf(&cmd, "mkfs.btrfs -q -f '%s' >/dev/null 2>&1", img), -1);
		ck_assert_int_eq(system(cmd), 0);
		free(cmd);
	}
	loop_fd = attach_loop(img, dev, sizeof(dev));
	if (loop_fd < 0) {
		printf("# SKIP test_btrfs_subvolume: no loop device: %s\n", strerror(errno));
		free(img);
		return;
	}
	make_dir("top");
	make_dir("view");
	top = in_root("top");
	view = in_root("view");
	real_top = realpath(top, NULL);
	real_view = realpath(view, NULL);
	if (mount(dev, top, "btrfs", 0, NULL) < 0) {	/* in a user namespace, say */
		printf("# SKIP test_btrfs_subvolume: cannot mount btrfs: %s\n", strerror(errno));
		close(loop_fd);
		free(img);
		free(top);
		free(view);
		free(real_top);
		free(real_view);
		return;
	}
	top_fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(top_fd, 0);
	snprintf(args.name, sizeof(args.name), "sub");
	ck_assert_int_eq(ioctl(top_fd, BTRFS_IOC_SUBVOL_CREATE, &args), 0);
	close(top_fd);
	make_dir("top/sub/dir");
	item.ino = make_file("top/sub/dir/file");
	make_file("top/file-in-top");
	ck_assert_int_eq(mount(dev, view, "btrfs", 0, "subvol=sub"), 0);
	mount_dev(real_view, &ma, &mi);
	ck_assert_int_eq(mountinfo_read("/proc/self/mountinfo", &mounts), 0);

	ck_assert_int_eq(resolve_inodes(view, ma, mi, &item, 1, RESOLVE_WALK | RESOLVE_HANDLE,
					&mounts), 1);
	ck_assert_str_eq(item.path, "dir/file");
	free(item.path);
	item.path = NULL;
	ck_assert_int_eq(resolve_inodes(view, ma, mi + 1000, &item, 1, RESOLVE_WALK, &mounts),
			 -EXDEV);
	/* without a mount table that cannot be told: the walk goes on */
	ck_assert_int_eq(resolve_inodes(view, ma, mi + 1000, &item, 1, RESOLVE_WALK, NULL), 1);
	free(item.path);
	item.path = NULL;
	/* From the top level, the subvolume is another inode space: not entered */
	mount_dev(real_top, &ma, &mi);
	resolve_inodes(top, ma, mi, &item, 1, RESOLVE_WALK, &mounts);
	mountinfo_free(&mounts);
	ck_assert_msg(!item.path || strncmp(item.path, "sub/", 4) != 0,
		      "walked into a subvolume: '%s'", item.path);
	free(item.path);

	umount2(view, MNT_DETACH);
	umount2(top, MNT_DETACH);
	close(loop_fd);
	free(img);
	free(top);
	free(view);
	free(real_top);
	free(real_view);
}
END_TEST

static Suite *resolve_suite(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("tree");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_walk_odd_names);
	tcase_add_test(tc, test_handle_and_walk_odd_names);
	tcase_add_test(tc, test_handle_only);
	tcase_add_test(tc, test_hard_links);
	tcase_add_test(tc, test_deleted_file);
	tcase_add_test(tc, test_items_left_alone);
	tcase_add_test(tc, test_root_inode);
	tcase_add_test(tc, test_outside_not_named);
	tcase_add_test(tc, test_walk_stops_early);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_deep_tree);
	tcase_add_test(tc, test_deleted_files_spare_the_walk);
	tcase_add_test(tc, test_walk_stays_on_filesystem);
	tcase_add_test(tc, test_bind_of_subdir);
	tcase_add_test(tc, test_btrfs_subvolume);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(resolve_suite)
