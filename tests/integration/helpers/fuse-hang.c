// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse-hang DIR: mount a FUSE filesystem on DIR whose server never answers (it opens
 * /dev/fuse, mounts, and never reads a request), print "mounted", and wait until killed.
 * Any request to it (a lookup below DIR, a stat of DIR) waits until this process dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
	char opts[128];
	int fd;

	if (argc != 2) {
		fputs("usage: fuse-hang DIR\n", stderr);
		return 64;
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "fuse-hang: /dev/fuse: %s\n", strerror(errno));
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
	if (mount("fuse-hang", argv[1], "fuse.hang", MS_NOSUID | MS_NODEV, opts) < 0) {
		fprintf(stderr, "fuse-hang: mount '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	puts("mounted");
	fflush(stdout);
	for (;;)
		pause();
}
