// SPDX-License-Identifier: GPL-2.0-or-later
/* Measured device models, kept per device identity under /var/lib/ura/devices */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blockdev.h"
#include "devcache.h"

#ifndef URA_LOCALSTATEDIR
#define URA_LOCALSTATEDIR "/var/lib"
#endif

#define MAX_FILE	4096

const char *devcache_dir(void)
{
	const char *e = getenv(DEVCACHE_ENV);

	return e && *e ? e : URA_LOCALSTATEDIR "/ura/devices";
}

static void append(char *buf, size_t size, const char *s)
{
	size_t used = strlen(buf);

	if (used < size)
		snprintf(buf + used, size - used, "%s", s);
}

/* The limit lines for MAJ:MIN in one cgroup file, appended as " NAME=value,...". */
static void append_limits(char *buf, size_t size, const char *path, const char *name,
			  unsigned major, unsigned minor)
{
	char line[256], want[32], word[300];
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	snprintf(want, sizeof(want), "%u:%u ", major, minor);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (char *p = line; *p; p++)
			if (*p == ' ')
				*p = ',';
		snprintf(word, sizeof(word), " %s=%s", name, line);
		append(buf, size, word);
	}
	fclose(f);
}

/* The cgroup path of this process for v1 "blkio" or for v2 (@v2); 0 or -ENOENT. */
static int own_cgroup(bool v2, char *buf, size_t size)
{
	char line[PATH_MAX + 64];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *path;
		bool match = false;

		if (!ctl)
			continue;
		path = strchr(++ctl, ':');
		if (!path)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		if (v2) {
			match = *ctl == '\0';
		} else {
			for (char *t = strtok(ctl, ","); t; t = strtok(NULL, ","))
				match |= strcmp(t, "blkio") == 0;
		}
		if (match && strlen(path) < size && !strstr(path, "..")) {
			snprintf(buf, size, "%s", path);
			r = 0;
			break;
		}
	}
	fclose(f);
	return r;
}

static void append_cgroup_limits(char *buf, size_t size, unsigned major, unsigned minor)
{
	static const char *const v1[] = { "blkio.throttle.read_bps_device",
					  "blkio.throttle.read_iops_device" };
	char cg[PATH_MAX], path[PATH_MAX + 128];

	for (int v2 = 0; v2 <= 1; v2++) {
		if (own_cgroup(v2, cg, sizeof(cg)) < 0)
			continue;
		/* every level from ours up to the root limits us */
		for (;;) {
			const char *base = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/blkio";
			char *slash;

			if (v2) {
				snprintf(path, sizeof(path), "%s%s/io.max", base, cg);
				append_limits(buf, size, path, "io.max", major, minor);
			} else {
				for (size_t i = 0; i < 2; i++) {
					snprintf(path, sizeof(path), "%s%s/%s", base, cg, v1[i]);
					append_limits(buf, size, path, v1[i] + 15, major, minor);
				}
			}
			slash = strrchr(cg, '/');
			if (!slash || slash == cg)
				break;
			*slash = '\0';
		}
	}
}

int devcache_key(unsigned major, unsigned minor, char *buf, size_t size)
{
	unsigned dmaj = major, dmin = minor;
	int r;

	r = blockdev_identity(major, minor, buf, size);
	if (r < 0)
		return r;
	append_cgroup_limits(buf, size, major, minor);
	if (blockdev_disk(major, minor, &dmaj, &dmin) == 0 && (dmaj != major || dmin != minor))
		append_cgroup_limits(buf, size, dmaj, dmin);
	return strlen(buf) + 1 >= size ? -ENAMETOOLONG : 0;
}

/* FNV-1a: the file name of a key */
static void key_file(const char *dir, const char *key, char *buf, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	snprintf(buf, size, "%s/%016" PRIx64 ".model", dir, h);
}

int devcache_load(const char *dir, const char *key, struct devmodel *ret)
{
	char path[PATH_MAX], text[MAX_FILE + 1];
	const char *line;
	struct stat st;
	ssize_t n;
	int fd, r;

	key_file(dir, key, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		r = -EPERM;
		goto out;
	}
	n = read(fd, text, MAX_FILE + 1);
	if (n < 0 || n > MAX_FILE) {
		r = n < 0 ? -errno : -EBADMSG;
		goto out;
	}
	text[n] = '\0';
	/* the first line names what was measured: another device may share the hash */
	line = text;
	if (strncmp(line, "key ", 4) != 0 || strncmp(line + 4, key, strlen(key)) != 0 ||
	    line[4 + strlen(key)] != '\n') {
		r = strncmp(line, "key ", 4) == 0 ? -ENOENT : -EBADMSG;
		goto out;
	}
	r = devmodel_parse(text, ret);
	if (r == 0)
		ret->source = DEVMODEL_CACHE;
out:
	close(fd);
	return r;
}

static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int devcache_store(const char *dir, const char *key, const struct devmodel *m)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16];
	FILE *f = NULL;
	int fd = -1, r, dfd;

	if (strchr(key, '\n'))
		return -EINVAL;
	r = mkdir_p(dir);
	if (r < 0)
		return r;
	key_file(dir, key, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto fail;
	}
	fprintf(f, "key %s\nmeasured %lld\n", key, (long long)time(NULL));
	r = devmodel_write(f, m);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		r = -errno;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r < 0)
		goto fail;
	if (chmod(tmp, 0644) < 0 || rename(tmp, path) < 0) {
		r = -errno;
		goto fail;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	unlink(tmp);
	return r;
}
