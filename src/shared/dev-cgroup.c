// SPDX-License-Identifier: GPL-2.0-or-later
/* The I/O limits this process's cgroups put on a block device */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dev-cgroup.h"

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

void cgroup_read_limits(unsigned major, unsigned minor, char *buf, size_t size)
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

