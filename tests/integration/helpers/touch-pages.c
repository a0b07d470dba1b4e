// SPDX-License-Identifier: GPL-2.0-or-later
/* touch-pages FILE PAGE...: mmap FILE and read one byte of each given 4 KiB page */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
	volatile unsigned char sum = 0;
	unsigned char *map;
	struct stat st;
	int fd;

	if (argc < 3) {
		fputs("usage: touch-pages FILE PAGE...\n", stderr);
		return 64;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "touch-pages: cannot open '%s': %m\n", argv[1]);
		return 1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "touch-pages: cannot map '%s': %m\n", argv[1]);
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		unsigned long page = strtoul(argv[i], NULL, 10);

		if (page * 4096 >= (unsigned long)st.st_size) {
			fprintf(stderr, "touch-pages: page %lu is past the end\n", page);
			return 1;
		}
		sum += map[page * 4096];
	}
	munmap(map, (size_t)st.st_size);
	close(fd);
	return sum == 255 ? 0 : 0;
}
