// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The exec source of ura-replay --watch: a fanotify group with FAN_OPEN_EXEC
 * on every filesystem, each event an open descriptor of the file being
 * executed, named by readlink(/proc/self/fd/N). Chosen by measurement
 * (bench/exec-sources.c, bench/README.md): the event comes as the kernel opens the file,
 * before the exec completes, and names the file itself (a script too, and no
 * /proc/PID race when the program exits at once); no tracing library needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util-log.h"
#include "sys-view.h"
#include "watch-exec.h"

#ifndef FAN_MARK_EVICTABLE
#define FAN_MARK_EVICTABLE	0x00000200	/* Linux 5.19 */
#endif

/* Filesystems nothing is executed from: not marked. */
static bool exec_less_fs(const char *fstype)
{
	static const char *const types[] = {
		"proc", "sysfs", "cgroup", "cgroup2", "tracefs", "debugfs", "devpts", "securityfs",
		"bpf", "pstore", "configfs", "mqueue", "fusectl", "binfmt_misc", "efivarfs",
		"autofs", "nsfs", "rpc_pipefs", "hugetlbfs", "selinuxfs", "devtmpfs",
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(fstype, types[i]) == 0)
			return true;
	/*
	 * FUSE: the kernel opens each event's file inside our read(), and a hung
	 * or hostile user FUSE server would block the daemon there.
	 */
	return mountinfo_is_fuse(fstype);
}

static int mark_all(struct watch_exec *s, const struct sys_view *view)
{
	const struct mount_table *t = sys_view_mounts(view);
	unsigned marked = 0;

	if (!t)
		return sys_view_mounts_error(view) < 0 ? sys_view_mounts_error(view) : -ENOENT;
	for (size_t i = 0; i < t->count; i++) {
		const struct mount_entry *e = &t->entries[i];
		bool seen = false;

		if (exec_less_fs(e->fstype))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = t->entries[j].major == e->major && t->entries[j].minor == e->minor &&
			       !exec_less_fs(t->entries[j].fstype);
		if (seen)
			continue;	/* the filesystem's mark covers all its mounts */
		if (fanotify_mark(s->fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_EXEC, AT_FDCWD,
				  e->mount_point) == 0 ||
		    fanotify_mark(s->fd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_EXEC, AT_FDCWD,
				  e->mount_point) == 0)
			marked++;
		else
			log_debug("cannot watch execs on '%s' (%s): %s, skipping", e->mount_point,
				  e->fstype, strerror(errno));
	}
	s->marked = marked;
	return marked ? 0 : -ENODEV;
}

int watch_exec_open(const struct sys_view *view, struct watch_exec *ret)
{
	struct watch_exec s = { .fd = -1 };
	int r;

	s.fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
			     O_RDONLY | O_CLOEXEC | O_LARGEFILE | O_NOATIME);
	if (s.fd < 0 && errno == EPERM)
		s.fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
				     O_RDONLY | O_CLOEXEC | O_LARGEFILE);
	if (s.fd < 0)
		return -errno;
	r = mark_all(&s, view);
	if (r < 0) {
		watch_exec_close(&s);
		return r;
	}
	*ret = s;
	return 0;
}

int watch_exec_mounts_changed(struct watch_exec *s, const struct sys_view *view)
{
	return mark_all(s, view);
}

static bool spacetab(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Is the file a "#!" script, and where does the kernel put the script's path
 * in its interpreter's argv? "INTERPRETER [ARG] SCRIPT ARGS...": 2 when the
 * "#!" line has an argument after the interpreter, else 1; 0: not a script.
 * The line is parsed as fs/binfmt_script.c does (the first 256 bytes). Read
 * from the page cache only (RWF_NOWAIT): the event loop never waits for a
 * disk, and the kernel is reading that page for the exec anyway; a page not
 * cached yet: 0.
 */
static int script_arg(int fd)
{
	char buf[256];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	ssize_t n = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	char *end, *name, *p;

	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	end = memchr(buf, '\n', (size_t)n);
	if (!end)
		end = buf + n;
	while (end > buf + 2 && spacetab(end[-1]))
		end--;
	for (name = buf + 2; name < end && spacetab(*name); name++)
		;
	if (name == end)
		return 0;	/* no interpreter: the kernel refuses it */
	for (p = name; p < end && *p && !spacetab(*p); p++)
		;
	if (p == end || !*p)
		return 1;
	while (p < end && spacetab(*p))
		p++;
	return p < end ? 2 : 1;
}

void watch_exec_forget(struct watch_exec *s)
{
	if (s->ignoring && fanotify_mark(s->fd, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL) == 0)
		s->ignoring = 0;	/* inode marks: the filesystems' own stay */
}

/* The file of event descriptor @fd: its next execs dropped by the kernel. */
static void ignore(struct watch_exec *s, int fd)
{
	if (s->no_ignore)
		return;
	if (s->ignoring >= WATCH_EXEC_IGNORE_MAX)
		watch_exec_forget(s);
	/* FAN_MARK_IGNORED_MASK, not FAN_MARK_IGNORE: Linux 5.19 has the one, not the other */
	if (fanotify_mark(s->fd, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK | FAN_MARK_EVICTABLE,
			  FAN_OPEN_EXEC, fd, NULL) == 0) {
		s->ignoring++;
		s->ignored++;
	} else if (errno == EINVAL) {
		s->no_ignore = true;	/* before Linux 5.19: a mark would pin the inode */
	}
}

int watch_exec_read(struct watch_exec *s, watch_exec_fn fn, void *userdata)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
	int count = 0;
	ssize_t n;

	for (;;) {
		n = read(s->fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? count : -errno;
		}
		if (n == 0)
			return count;
		for (struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)buf;
		     FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			char link[64], path[PATH_MAX];
			struct watch_exec_event ev = { .pid = (pid_t)m->pid, .path = path };
			struct statx stx;
			ssize_t k;

			if (m->vers != FANOTIFY_METADATA_VERSION) {
				/* close the descriptors of the events left in the buffer */
				for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n))
					if (m->vers == FANOTIFY_METADATA_VERSION && m->fd >= 0)
						close(m->fd);
				return -EPROTO;
			}
			if (m->mask & FAN_Q_OVERFLOW)
				s->overflows++;
			if (m->fd < 0)
				continue;
			snprintf(link, sizeof(link), "/proc/self/fd/%d", m->fd);
			k = readlink(link, path, sizeof(path) - 1);
			if (k > 0 && path[0] == '/' &&
			    statx(m->fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
				  STATX_INO | STATX_UID | STATX_MODE | STATX_NLINK, &stx) == 0) {
				path[k] = '\0';
				ev.dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
				ev.ino = stx.stx_ino;
				ev.uid = stx.stx_uid;
				ev.mode = stx.stx_mode;
				ev.nlink = stx.stx_nlink;
				ev.script = script_arg(m->fd);
			} else {
				k = 0;		/* not reachable from our root */
			}
			if (k > 0) {
				count++;
				if (fn(&ev, userdata))
					ignore(s, m->fd);
			}
			close(m->fd);
		}
	}
}

void watch_exec_close(struct watch_exec *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
