// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc/self/mountinfo: parse it, find the mount that names a device's files */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys-mountinfo.h"

/* dev_t inside the kernel: 12-bit major, 20-bit minor. */
#define MAJOR_MAX	0xfffu
#define MINOR_MAX	0xfffffu

/* A line is cut into fields at single spaces: the kernel escapes spaces in names. */
#define MAX_FIELDS	64

struct field {
	const char *s;
	size_t len;
};

static int parse_uint(const struct field *f, unsigned max, unsigned *ret)
{
	unsigned long v = 0;

	if (f->len == 0 || f->len > 10)
		return -EBADMSG;
	for (size_t i = 0; i < f->len; i++) {
		if (f->s[i] < '0' || f->s[i] > '9')
			return -EBADMSG;
		v = v * 10 + (unsigned)(f->s[i] - '0');
	}
	if (v > max)
		return -EBADMSG;
	*ret = (unsigned)v;
	return 0;
}

static int parse_devnum(const struct field *f, unsigned *major, unsigned *minor)
{
	const char *colon = memchr(f->s, ':', f->len);
	struct field a, b;

	if (!colon)
		return -EBADMSG;
	a = (struct field){ f->s, (size_t)(colon - f->s) };
	b = (struct field){ colon + 1, f->len - a.len - 1 };
	if (parse_uint(&a, MAJOR_MAX, major) < 0 || parse_uint(&b, MINOR_MAX, minor) < 0)
		return -EBADMSG;
	return 0;
}

static bool is_odigit(char c)
{
	return c >= '0' && c <= '7';
}

/*
 * Copy a field, decoding the kernel's \ooo escapes (it escapes space, tab,
 * newline and backslash). A backslash not followed by three octal digits is
 * kept as it is; an escape that would give a NUL byte is malformed.
 */
static int unescape(const struct field *f, bool allow_empty, char **ret)
{
	char *out, *p;

	if (f->len == 0 && !allow_empty)
		return -EBADMSG;
	out = malloc(f->len + 1);
	if (!out)
		return -ENOMEM;
	p = out;
	for (size_t i = 0; i < f->len; i++) {
		if (f->s[i] == '\\' && i + 3 < f->len && is_odigit(f->s[i + 1]) &&
		    is_odigit(f->s[i + 2]) && is_odigit(f->s[i + 3])) {
			unsigned v = (unsigned)(f->s[i + 1] - '0') * 64 +
				     (unsigned)(f->s[i + 2] - '0') * 8 + (unsigned)(f->s[i + 3] - '0');

			if (v == 0 || v > 0xff) {
				free(out);
				return -EBADMSG;
			}
			*p++ = (char)v;
			i += 3;
			continue;
		}
		*p++ = f->s[i];
	}
	*p = '\0';
	*ret = out;
	return 0;
}

static void entry_free(struct mount_entry *e)
{
	free(e->root);
	free(e->mount_point);
	free(e->fstype);
	free(e->source);
	free(e->options);
}

/*
 * One line, as proc(5) has it:
 *   ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
 * The optional fields (shared:N, master:N, ...) run up to a lone "-".
 */
static int parse_line(const char *line, size_t len, struct mount_entry *ret)
{
	struct field f[MAX_FIELDS];
	struct mount_entry e = { 0 };
	size_t nf = 0, start = 0, sep;
	int r;

	if (memchr(line, '\0', len))
		return -EBADMSG;
	/* Past MAX_FIELDS fields, the rest is super options: not needed. */
	for (size_t i = 0; i <= len && nf < MAX_FIELDS; i++) {
		if (i < len && line[i] != ' ')
			continue;
		f[nf++] = (struct field){ line + start, i - start };
		start = i + 1;
	}
	/* The separator: the first lone "-" after the six fixed fields. */
	for (sep = 6; sep < nf; sep++)
		if (f[sep].len == 1 && f[sep].s[0] == '-')
			break;
	/*
	 * fstype and source must follow it. The super options come last; they may be
	 * missing, and a driver that prints its own options or device name may leave
	 * a space unescaped there: extra fields are not worth refusing every mount for.
	 */
	if (sep + 2 >= nf)
		return -EBADMSG;

	if (parse_uint(&f[0], UINT_MAX, &e.id) < 0 || parse_uint(&f[1], UINT_MAX, &e.parent_id) < 0 ||
	    parse_devnum(&f[2], &e.major, &e.minor) < 0)
		return -EBADMSG;
	r = unescape(&f[3], false, &e.root);
	if (r >= 0)
		r = unescape(&f[4], false, &e.mount_point);
	if (r >= 0)
		r = unescape(&f[5], false, &e.options);
	if (r >= 0)
		r = unescape(&f[sep + 1], false, &e.fstype);
	if (r >= 0)	/* an empty source is legal: mount -t tmpfs "" /mnt */
		r = unescape(&f[sep + 2], true, &e.source);
	if (r < 0) {
		entry_free(&e);
		return r;
	}
	*ret = e;
	return 0;
}

int mountinfo_parse(const char *text, size_t len, struct mount_table *ret)
{
	struct mount_table t = { 0 };
	size_t cap = 0, pos = 0;
	int r = 0;

	if (!text && len)
		return -EINVAL;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (end > pos) {	/* blank lines carry nothing */
			if (t.count == cap) {
				size_t ncap = cap ? cap * 2 : 32;
				struct mount_entry *n = realloc(t.entries, ncap * sizeof(*n));

				if (!n) {
					r = -ENOMEM;
					goto out;
				}
				t.entries = n;
				cap = ncap;
			}
			r = parse_line(text + pos, end - pos, &t.entries[t.count]);
			if (r < 0)
				goto out;
			t.count++;
		}
		pos = end + 1;
	}
	*ret = t;
	return 0;
out:
	mountinfo_free(&t);
	return r;
}

static int read_all(const char *path, char **ret, size_t *ret_len)
{
	size_t cap = 16384, len = 0;
	char *buf = NULL;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);

			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret = buf;
	*ret_len = len;
	buf = NULL;
	r = 0;
out:
	free(buf);
	close(fd);
	return r;
}

int mountinfo_watch(void)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

bool mountinfo_changed(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLPRI };

	if (fd < 0)
		return true;
	return poll(&pfd, 1, 0) != 0;	/* an event, or an error: read it again */
}

int mountinfo_read(const char *path, struct mount_table *ret)
{
	size_t len = 0;
	char *text = NULL;
	int r;

	r = read_all(path, &text, &len);
	if (r < 0)
		return r;
	r = mountinfo_parse(text, len, ret);
	free(text);
	return r;
}

void mountinfo_free(struct mount_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->count; i++)
		entry_free(&t->entries[i]);
	free(t->entries);
	t->entries = NULL;
	t->count = 0;
}

bool mountinfo_is_covered(const struct mount_table *t, const struct mount_entry *e)
{
	for (size_t i = 0; i < t->count; i++) {
		const struct mount_entry *o = &t->entries[i];

		if (o != e && o->parent_id == e->id && strcmp(o->mount_point, e->mount_point) == 0)
			return true;
	}
	return false;
}

/* Is @a a better way than @b to reach the files? */
static bool better(const struct mount_table *t, const struct mount_entry *a,
		   const struct mount_entry *b)
{
	bool ca = mountinfo_is_covered(t, a), cb = mountinfo_is_covered(t, b);
	bool ra = strcmp(a->root, "/") == 0, rb = strcmp(b->root, "/") == 0;
	size_t la, lb;

	if (ca != cb)
		return cb;
	if (ra != rb)
		return ra;
	la = strlen(a->root);
	lb = strlen(b->root);
	if (la != lb)
		return la < lb;
	return strlen(a->mount_point) < strlen(b->mount_point);
}

/*
 * Is @e mounted on something that is not a directory? A file bind mount (as
 * systemd-nspawn's /run/host/os-release, a bind of the host's root filesystem)
 * reaches no other file. Asked of the live system: false when it cannot tell.
 */
static bool on_non_directory(const struct mount_entry *e)
{
	struct statx stx;

	/* AT_STATX_DONT_SYNC: a FUSE mount on top, whose server may never answer, is not asked */
	if (statx(AT_FDCWD, e->mount_point, AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC, STATX_TYPE,
		  &stx) < 0 || !(stx.stx_mask & STATX_TYPE))
		return false;
	return !S_ISDIR(stx.stx_mode);
}

const struct mount_entry *mountinfo_find_dev(const struct mount_table *t, unsigned major,
					     unsigned minor)
{
	const struct mount_entry *best = NULL;
	bool best_nd = false;

	if (!t)
		return NULL;
	for (size_t i = 0; i < t->count; i++) {
		const struct mount_entry *e = &t->entries[i];
		bool nd;

		if (e->major != major || e->minor != minor)
			continue;
		/* a mount on a file comes last, whatever its root: it names one file only */
		nd = on_non_directory(e);
		if (!best || (nd != best_nd ? best_nd : better(t, e, best))) {
			best = e;
			best_nd = nd;
		}
	}
	return best;
}

const struct mount_entry *mountinfo_find_dev_at(const struct mount_table *t, unsigned major,
						unsigned minor, const char *mount_point)
{
	for (size_t i = 0; t && mount_point && i < t->count; i++) {
		const struct mount_entry *e = &t->entries[i];

		if (e->major == major && e->minor == minor &&
		    strcmp(e->mount_point, mount_point) == 0 && !mountinfo_is_covered(t, e))
			return e;
	}
	return mountinfo_find_dev(t, major, minor);
}

const struct mount_entry *mountinfo_find_path(const struct mount_table *t, const char *path)
{
	const struct mount_entry *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; t && i < t->count; i++) {
		const char *mp = t->entries[i].mount_point;
		size_t n = strlen(mp);

		if (n == 1 && mp[0] == '/')
			n = 0;
		if (strncmp(path, mp, n) == 0 && (path[n] == '/' || path[n] == '\0') &&
		    (!best || n >= best_len)) {
			best = &t->entries[i];
			best_len = n;
		}
	}
	return best;
}

bool mountinfo_on_fuse(const struct mount_table *t, const char *path)
{
	const struct mount_entry *e = mountinfo_find_path(t, path);

	return e && mountinfo_is_fuse(e->fstype);
}

bool mountinfo_is_fuse(const char *fstype)
{
	return strncmp(fstype, "fuse", 4) == 0;
}

bool mountinfo_may_hang(const char *fstype)
{
	/* a server answers for their files: one stopped, or unreachable, may never answer */
	static const char *const remote[] = {
		"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "afs", "ncpfs", "coda",
		"glusterfs", "lustre", "orangefs", "gfs2", "ocfs2",
	};

	/*
	 * autofs: a lookup below it waits for a mount under way, which any user
	 * starts (ls /net/HOST) and which may take minutes (an unreachable host)
	 */
	if (mountinfo_is_fuse(fstype) || strcmp(fstype, "autofs") == 0)
		return true;
	for (size_t i = 0; i < sizeof(remote) / sizeof(remote[0]); i++)
		if (strcmp(fstype, remote[i]) == 0)
			return true;
	return false;
}

bool mountinfo_is_pseudo_fs(const char *fstype)
{
	/* Memory, kernel-interface and special filesystems: nothing a disk read would bring in. */
	static const char *const pseudo[] = {
		"anon_inodefs", "autofs", "bdev", "binder", "binfmt_misc", "bpf", "cgroup",
		"cgroup2", "configfs", "cpuset", "debugfs", "devfs", "devpts", "devtmpfs",
		"dmabuf", "efivarfs", "functionfs", "fusectl", "gadgetfs", "hugetlbfs", "mqueue",
		"nfsd", "nsfs", "pidfs", "pipefs", "proc", "pstore", "ramfs", "resctrl", "rootfs",
		"rpc_pipefs", "secretmem", "securityfs", "selinuxfs", "smackfs", "sockfs",
		"sysfs", "tmpfs", "tracefs", "usbfs", "xenfs", "zsmalloc",
	};

	if (!fstype)
		return false;
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (strcmp(fstype, pseudo[i]) == 0)
			return true;
	return false;
}

bool mountinfo_walk_ok(void *mounts, uint64_t mnt_id)
{
	const struct mount_table *t = mounts;

	for (size_t i = 0; i < t->count; i++)
		if (t->entries[i].id == mnt_id)
			return !mountinfo_may_hang(t->entries[i].fstype);
	return false;
}
