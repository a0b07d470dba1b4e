// SPDX-License-Identifier: GPL-2.0-or-later
/* Without libFuzzer: run a fuzz target once on each file named on the command line */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *f = fopen(path, "rbe");

	if (!f) {
		fprintf(stderr, "fuzz: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *n = realloc(buf, cap = cap ? cap * 2 : 4096);

			if (!n) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = n;
		}
		size_t got = fread(buf + len, 1, cap - len, f);

		if (got == 0)
			break;
		len += got;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char *argv[])
{
	int failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		failed |= run_file(argv[i]) < 0;
	if (!failed)
		printf("%s: %d inputs replayed\n", argv[0], argc - 1);
	return failed;
}
