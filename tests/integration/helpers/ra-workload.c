// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ra-workload DIR: the access patterns readahead treats differently, on the files
 * DIR/seq, DIR/rand, DIR/map, DIR/maprand and DIR/code (made by the test):
 * sequential read()s of 4 KiB, 16 KiB read()s at scattered offsets, an mmap read
 * page by page, an mmap read at scattered pages, and calls into pages of an
 * executable mapping (instruction fetches; x86-64 only, the file holds RET).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_in(const char *dir, const char *name, off_t *ret_size)
{
	char path[4096];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "ra-workload: cannot open '%s': %m\n", path);
		exit(1);
	}
	*ret_size = st.st_size;
	return fd;
}

/* the same scattered order on every run */
static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

int main(int argc, char *argv[])
{
	static char buf[16384];
	volatile unsigned sum = 0;
	uint64_t seed = 1;
	unsigned char *map;
	off_t size;
	int fd;

	if (argc != 2) {
		fputs("usage: ra-workload DIR\n", stderr);
		return 64;
	}
	fd = open_in(argv[1], "seq", &size);
	while (read(fd, buf, 4096) > 0)
		sum += (unsigned char)buf[0];
	close(fd);

	fd = open_in(argv[1], "rand", &size);
	for (int i = 0; i < 40; i++)
		if (pread(fd, buf, sizeof(buf), (off_t)(next(&seed) % (uint64_t)(size / 4096)) * 4096) > 0)
			sum += (unsigned char)buf[0];
	close(fd);

	fd = open_in(argv[1], "map", &size);
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	for (off_t off = 0; off < size; off += 4096)
		sum += map[off];
	munmap(map, (size_t)size);
	close(fd);

	fd = open_in(argv[1], "maprand", &size);
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	for (int i = 0; i < 60; i++)
		sum += map[(next(&seed) % (uint64_t)(size / 4096)) * 4096];
	munmap(map, (size_t)size);
	close(fd);

#ifdef __x86_64__
	fd = open_in(argv[1], "code", &size);
	map = mmap(NULL, (size_t)size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	for (int i = 0; i < 30; i++) {
		void (*fn)(void) = (void (*)(void))(uintptr_t)(map + (next(&seed) %
								      (uint64_t)(size / 4096)) * 4096);
		fn();
	}
	munmap(map, (size_t)size);
	close(fd);
#endif
	return sum == 12345 ? 2 : 0;
}
