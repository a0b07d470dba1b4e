// SPDX-License-Identifier: GPL-2.0-or-later
/* evict FILE...: drop the files' pages from the page cache (posix_fadvise DONTNEED) */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		int r;

		if (fd < 0) {
			fprintf(stderr, "evict: cannot open '%s': %m\n", argv[i]);
			rc = 1;
			continue;
		}
		/* dirty pages cannot be dropped: write them back first */
		fdatasync(fd);
		r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (r) {
			fprintf(stderr, "evict: '%s': %s\n", argv[i], strerror(r));
			rc = 1;
		}
		close(fd);
	}
	return rc;
}
