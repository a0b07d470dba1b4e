// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Opening a path below a directory safely: openat2(2) with RESOLVE_* flags, a
 * component-by-component walk where it is missing, mount ids to tell a mount
 * crossed, and the open of a regular file that never opens a FIFO or a device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/mount.h>
#include <linux/openat2.h>

#include "sys-safeopen.h"

int safeopen_openat2(int dirfd, const char *path, int flags, uint64_t resolve)
{
	static int no_openat2;
	struct open_how how = { .flags = (uint64_t)flags, .resolve = resolve };
	int fd;

	if (__atomic_load_n(&no_openat2, __ATOMIC_RELAXED))
		return -ENOSYS;
	fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	/* E2BIG: a kernel that knows openat2 but not this struct open_how */
	if (errno == ENOSYS || errno == E2BIG) {
		__atomic_store_n(&no_openat2, 1, __ATOMIC_RELAXED);
		return -ENOSYS;
	}
	return -errno;
}

int safeopen_mount_id(int fd, uint64_t *ret)
{
	uint64_t buf[(sizeof(struct file_handle) + MAX_HANDLE_SZ) / 8 + 1];
	struct file_handle *fh = (struct file_handle *)buf;
	struct statx stx;
	int mnt;

	/* not synced: a FUSE server asked for attributes may never answer */
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_MNT_ID,
		  &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID)) {
		*ret = stx.stx_mnt_id;
		return 0;
	}
	fh->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", fh, &mnt, AT_EMPTY_PATH) == 0) {
		*ret = (uint64_t)mnt;
		return 0;
	}
	return -EOPNOTSUPP;
}

int safeopen_same_mount(int a, int b)
{
	uint64_t ia, ib;
	struct stat sa, sb;

	if (safeopen_mount_id(a, &ia) == 0 && safeopen_mount_id(b, &ib) == 0)
		return ia == ib;
	if (fstat(a, &sa) < 0 || fstat(b, &sb) < 0)
		return -errno;
	return sa.st_dev == sb.st_dev;
}

/* Refuse what openat2 would: absolute paths, "..", empty components. */
static bool path_is_clean(const char *p)
{
	if (*p == '/' || !*p)
		return false;
	for (const char *s = p; s; s = strchr(s, '/')) {
		if (*s == '/')
			s++;
		if (*s == '/' || !*s || (s[0] == '.' && s[1] == '.' && (!s[2] || s[2] == '/')))
			return false;
	}
	return true;
}

/*
 * @fd's mount, when it is not @*last: asked of @mount_ok (-EXDEV when it says
 * no, or when the mount cannot be told); @*last becomes it.
 */
static int mount_allowed(int fd, uint64_t *last, bool (*mount_ok)(void *ctx, uint64_t mnt_id),
			 void *ctx)
{
	uint64_t id;

	if (!mount_ok)
		return 0;
	if (safeopen_mount_id(fd, &id) < 0)
		return -EXDEV;
	if (id != *last && !mount_ok(ctx, id))
		return -EXDEV;
	*last = id;
	return 0;
}

/*
 * @name below @dirfd as an O_PATH descriptor, mounts on it followed but none
 * triggered (open_tree(2), Linux 5.2; openat() before, which may automount),
 * a symlink not followed; -1 with errno.
 */
static int open_no_automount(int dirfd, const char *name)
{
	static int no_open_tree;
	int fd;

	if (!__atomic_load_n(&no_open_tree, __ATOMIC_RELAXED)) {
		fd = (int)syscall(SYS_open_tree, dirfd, name,
				  OPEN_TREE_CLOEXEC | AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW);
		if (fd >= 0 || errno != ENOSYS)
			return fd;
		__atomic_store_n(&no_open_tree, 1, __ATOMIC_RELAXED);
	}
	return openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

/* The S_IFMT of @fd, its filesystem not asked (a FUSE server may never answer); or -errno. */
static int type_unsynced(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_TYPE,
		  &stx) < 0)
		return -errno;
	return stx.stx_mode & S_IFMT;
}

static int walk(int dirfd, const char *path, int flags, unsigned walk_flags,
		bool (*mount_ok)(void *ctx, uint64_t mnt_id), void *ctx)
{
	bool no_xdev = walk_flags & SAFEOPEN_WALK_NO_XDEV;
	int cur = dirfd, fd = -1, r;
	char *copy = NULL, *comp, *next;
	uint64_t mnt = UINT64_MAX;
	struct stat st;

	if (!path_is_clean(path))
		return -EXDEV;
	r = mount_allowed(dirfd, &mnt, mount_ok, ctx);
	if (r < 0)
		return r;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	/*
	 * Each directory is opened O_PATH | O_NOFOLLOW | O_DIRECTORY from the one
	 * before: a symlink is never followed, whatever replaces a component
	 * meanwhile (it then fails with ENOTDIR; the fstatat only names the cause).
	 * With @mount_ok, a path a user may have chosen: no automount is triggered
	 * (an autofs map could mount a server of the user's choosing), and the
	 * type of what is entered is asked unsynced, after its mount was allowed.
	 */
	for (comp = copy; (next = strchr(comp, '/')); comp = next) {
		*next++ = '\0';
		fd = mount_ok ? open_no_automount(cur, comp) :
			   openat(cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			/* (never with @mount_ok: a stat could enter a mount not yet allowed) */
			if (!mount_ok && r == -ENOTDIR &&
			    fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				r = -ELOOP;
			goto out;
		}
		if (no_xdev && (r = safeopen_same_mount(dirfd, fd)) <= 0) {
			r = r < 0 ? r : -EXDEV;
			goto out;
		}
		/* a mount crossed: looked at before anything is looked up in it */
		if ((r = mount_allowed(fd, &mnt, mount_ok, ctx)) < 0)
			goto out;
		if (mount_ok && (r = type_unsynced(fd)) != S_IFDIR) {
			r = r == S_IFLNK ? -ELOOP : r < 0 ? r : -ENOTDIR;
			goto out;
		}
		if (cur != dirfd)
			close(cur);
		cur = fd;
	}
	if (mount_ok) {
		fd = open_no_automount(cur, comp);
		if (fd < 0) {
			r = -errno;
			goto out;
		}
		if ((r = mount_allowed(fd, &mnt, mount_ok, ctx)) < 0)
			goto out;
		r = type_unsynced(fd);
		if (r == S_IFLNK || r < 0) {
			r = r < 0 ? r : -ELOOP;
			goto out;
		}
		r = fd;
		fd = -1;
		goto out;
	}
	fd = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOTDIR && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			r = -ELOOP;	/* O_DIRECTORY on a symlink */
		goto out;
	}
	/* with O_PATH, O_NOFOLLOW opens a symlink itself */
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		r = -ELOOP;
		goto out;
	}
	/* a file bind-mounted over the name is another mount too */
	if (no_xdev && (r = safeopen_same_mount(dirfd, fd)) <= 0) {
		r = r < 0 ? r : -EXDEV;
		goto out;
	}
	if ((r = mount_allowed(fd, &mnt, mount_ok, ctx)) < 0)
		goto out;
	r = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	if (cur != dirfd)
		close(cur);
	free(copy);
	return r;
}

int safeopen_walk(int dirfd, const char *path, int flags, unsigned walk_flags)
{
	return walk(dirfd, path, flags, walk_flags, NULL, NULL);
}

int safeopen_walk_mounts(int dirfd, const char *path, int flags,
			 bool (*mount_ok)(void *ctx, uint64_t mnt_id), void *ctx)
{
	return walk(dirfd, path, flags, 0, mount_ok, ctx);
}

static int beneath(int dirfd, const char *path, int flags)
{
	int fd = safeopen_openat2(dirfd, path, flags | O_NOFOLLOW | O_CLOEXEC,
				  RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS |
				  RESOLVE_NO_XDEV);

	if (fd != -ENOSYS)
		return fd;
	return safeopen_walk(dirfd, path, flags, SAFEOPEN_WALK_NO_XDEV);
}

int safeopen_reopen(int pfd, int flags)
{
	char proc[64];
	int fd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == EPERM && (flags & O_NOATIME))
		fd = open(proc, (flags & ~O_NOATIME) | O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

int safeopen_beneath(int dirfd, const char *path, int flags)
{
	int fd = beneath(dirfd, path, flags);

	if (fd == -EPERM && (flags & O_NOATIME))	/* needs ownership or CAP_FOWNER */
		fd = beneath(dirfd, path, flags & ~O_NOATIME);
	return fd;
}

int safeopen_in_root(int rootfd, const char *path, int flags)
{
	const char *rel = path;
	int fd;

	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	fd = safeopen_openat2(rootfd, rel, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	if (fd != -ENOSYS)
		return fd;
	return safeopen_walk(rootfd, rel, flags, 0);
}

int safeopen_file(int dirfd, const char *path, struct statx *ret)
{
	struct statx stx;
	struct stat pst;
	int pfd = -1, fd = -1, r;

	/* look first with O_PATH: a FIFO, a device or a socket is never opened */
	pfd = safeopen_beneath(dirfd, path, O_PATH);
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, &pst) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(pst.st_mode)) {
		/* with O_PATH | O_NOFOLLOW, a symlink at the end is opened itself */
		r = S_ISDIR(pst.st_mode) ? -EISDIR : S_ISLNK(pst.st_mode) ? -ELOOP : -EBADFD;
		goto out;
	}
	fd = safeopen_beneath(dirfd, path, O_RDONLY | O_NOATIME | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		r = fd;		/* -ELOOP, -EXDEV: a symlink or a mount appeared meanwhile */
		goto out;
	}
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, &stx) < 0) {
		r = -errno;
		goto out;
	}
	/* replaced between the two opens: as if it had been found so */
	if (!S_ISREG(stx.stx_mode) || stx.stx_ino != pst.st_ino ||
	    makedev(stx.stx_dev_major, stx.stx_dev_minor) != pst.st_dev) {
		r = -EBADFD;
		goto out;
	}
	*ret = stx;
	r = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	if (pfd >= 0)
		close(pfd);
	return r;
}
