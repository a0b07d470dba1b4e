// SPDX-License-Identifier: GPL-2.0-or-later
/* Measured device models, kept per device identity under /var/lib/ura/devices */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>

#include "dev-block.h"
#include "dev-cgroup.h"
#include "dev-cache.h"
#include "dev-probe.h"
#include "util-log.h"
#include "util.h"

#ifndef URA_LOCALSTATEDIR
#define URA_LOCALSTATEDIR "/var/lib"
#endif

#define MAX_FILE	4096

const char *dev_cache_dir(void)
{
	const char *e = getenv(DEVCACHE_ENV);

	return e && *e ? e : URA_LOCALSTATEDIR "/ura/devices";
}

int dev_cache_key(unsigned major, unsigned minor, char *buf, size_t size)
{
	unsigned dmaj = major, dmin = minor;
	int r;

	r = dev_block_identity(major, minor, buf, size);
	if (r < 0)
		return r;
	/* what the probe measures: models of older probes (no mixed stream) are measured again */
	{
		size_t n = strlen(buf);

		snprintf(buf + n, size - n, " probe=2");
	}
	cgroup_read_limits(major, minor, buf, size);
	if (dev_block_disk(major, minor, &dmaj, &dmin) == 0 && (dmaj != major || dmin != minor))
		cgroup_read_limits(dmaj, dmin, buf, size);
	return strlen(buf) + 1 >= size ? -ENAMETOOLONG : 0;
}

/* FNV-1a: the file name of a key, with @suffix (".model", ".failed") */
static void key_path(const char *dir, const char *key, const char *suffix, char *buf, size_t size)
{
	uint64_t h = hash_str(key);

	snprintf(buf, size, "%s/%016" PRIx64 "%s", dir, h, suffix);
}

static void key_file(const char *dir, const char *key, char *buf, size_t size)
{
	key_path(dir, key, ".model", buf, size);
}

int dev_cache_load(const char *dir, const char *key, struct devmodel *ret)
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
	/* root's models serve everyone; anyone else's only their owner */
	if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
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
	r = dev_model_parse(text, ret);
	if (r == 0)
		ret->source = DEVMODEL_CACHE;
out:
	close(fd);
	return r;
}

bool dev_cache_writable(const char *dir)
{
	char p[PATH_MAX];
	struct statvfs sv;

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return false;
	/* the nearest directory that exists decides */
	while (access(p, F_OK) < 0) {
		char *slash = strrchr(p, '/');

		if (!slash || slash == p) {
			snprintf(p, sizeof(p), "/");
			break;
		}
		*slash = '\0';
	}
	return statvfs(p, &sv) == 0 && !(sv.f_flag & ST_RDONLY) && access(p, W_OK) == 0;
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

int dev_cache_store(const char *dir, const char *key, const struct devmodel *m)
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
	r = dev_model_write(f, m);
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

/*
 * A measurement that failed is remembered, so that replays at every start do
 * not spend seconds failing again: "<hash>.failed" holds the key and the
 * error. A lasting cause (the device cannot be opened or read) is kept for a
 * day; a busy device (no steady rate: -ETIMEDOUT, -EBUSY) for an hour; a lack
 * of memory or threads not at all. --probe always (DEVCACHE_MEASURE) tries
 * regardless.
 */
#define RETRY_AFTER_S		(24L * 3600)
#define RETRY_BUSY_AFTER_S	3600L

static long retry_after(int err)
{
	switch (err) {
	case ENOMEM:
	case EAGAIN:
	case EINTR:
		return 0;
	case ETIMEDOUT:
	case EBUSY:
		return RETRY_BUSY_AFTER_S;
	default:
		return RETRY_AFTER_S;
	}
}

void dev_cache_remember_failure(const char *dir, const char *key, int err)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16];
	FILE *f;
	int fd;

	if (err >= 0 || !retry_after(-err) || mkdir_p(dir) < 0)
		return;
	key_path(dir, key, ".failed", path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	fprintf(f, "key %s\nfailed %d %lld\n", key, -err, (long long)time(NULL));
	if (fchmod(fileno(f), 0644) < 0) {
		fclose(f);
		unlink(tmp);
		return;
	}
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		unlink(tmp);
}

/* The error of a failed measurement of @key less than a day ago, or 0. */
int dev_cache_recent_failure(const char *dir, const char *key)
{
	char path[PATH_MAX], text[MAX_FILE + 1];
	size_t klen = strlen(key);
	long long when;
	struct stat st;
	int fd, err;
	ssize_t n;

	key_path(dir, key, ".failed", path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_uid == 0 || st.st_uid == geteuid()) ? read(fd, text, MAX_FILE) : -1;
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	if (strncmp(text, "key ", 4) != 0 || strncmp(text + 4, key, klen) != 0 ||
	    text[4 + klen] != '\n' ||
	    sscanf(text + 5 + klen, "failed %d %lld", &err, &when) != 2 || err <= 0 ||
	    err > 4095 || when > (long long)time(NULL) || time(NULL) - when >= retry_after(err))
		return 0;
	return -err;
}

static void forget_failure(const char *dir, const char *key)
{
	char path[PATH_MAX];

	key_path(dir, key, ".failed", path, sizeof(path));
	unlink(path);
}

/* Measure MAJ:MIN now and keep the model; 0 (*ret_store: whether it was kept) or -errno. */
static int measure(unsigned major, unsigned minor, const char *key, struct devmodel *ret,
		   int *ret_store)
{
	struct devmodel m;
	uint64_t size = 0;
	int fd, r;

	fd = dev_block_open(major, minor);
	if (fd < 0)
		return fd;
	if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	r = dev_probe_measure(fd, size, NULL, &m);
	close(fd);
	if (r < 0)
		return r;
	*ret_store = dev_cache_store(dev_cache_dir(), key, &m);
	*ret = m;
	return 0;
}

int dev_cache_get(unsigned major, unsigned minor, enum dev_cache_how how, struct devmodel *ret)
{
	uint64_t t0;
	char key[2048];
	int r, kept = 0;

	r = dev_cache_key(major, minor, key, sizeof(key));
	if (r < 0)
		return -ENOENT;		/* no such block device (tmpfs, btrfs' anonymous one) */
	if (how != DEVCACHE_MEASURE) {
		r = dev_cache_load(dev_cache_dir(), key, ret);
		if (r == 0)
			return 0;
		if (r != -ENOENT)
			log_warn("cannot read the model of device %u:%u from '%s': %s, skipping",
				 major, minor, dev_cache_dir(), strerror(-r));
		if (how == DEVCACHE_LOAD)
			return -ENOENT;
		r = dev_cache_recent_failure(dev_cache_dir(), key);
		if (r < 0) {
			log_debug("device %u:%u: measuring failed less than a day ago (%s), not again",
				  major, minor, strerror(-r));
			return r;
		}
	}
	/* where a model cannot be kept (a read-only root early at boot), every start would measure */
	if (!dev_cache_writable(dev_cache_dir()))
		return -EROFS;
	log_info("measuring device %u:%u, once (kept in '%s')", major, minor, dev_cache_dir());
	t0 = now_monotonic_ns();
	r = measure(major, minor, key, ret, &kept);
	if (r < 0) {
		dev_cache_remember_failure(dev_cache_dir(), key, r);
		return r;
	}
	forget_failure(dev_cache_dir(), key);
	log_debug("device %u:%u measured in %.2f s", major, minor,
		  (double)(now_monotonic_ns() - t0) / 1e9);
	if (kept < 0)
		log_warn("cannot keep the model of device %u:%u in '%s': %s, skipping", major, minor,
			 dev_cache_dir(), strerror(-kept));
	return 0;
}
