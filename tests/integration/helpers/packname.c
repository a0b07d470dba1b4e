// SPDX-License-Identifier: GPL-2.0-or-later
/* packname: the pack file name ura-replay --watch looks for, for a program inside a root */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "key.h"

int main(int argc, char *argv[])
{
	char name[NAME_MAX + 1];
	struct key_self self;
	struct stat st;
	int r;

	if (argc != 3) {
		fputs("usage: packname ROOT PATH   (PATH as a process whose root is ROOT names it)\n",
		      stderr);
		return 64;
	}
	if (key_self_read(&self) < 0 || stat(argv[1], &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	r = key_pack_name(key_root_id(&self, st.st_dev, st.st_ino), argv[2], name, sizeof(name));
	if (r < 0) {
		fprintf(stderr, "packname: %s: %s\n", argv[2], strerror(-r));
		return 1;
	}
	puts(name);
	return 0;
}
