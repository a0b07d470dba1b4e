// SPDX-License-Identifier: GPL-2.0-or-later
/* Benchmark driver for resolve_inodes(): build a big tree, then time naming random inodes */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "trace-resolve.h"

struct entry {
	uint64_t ino;
	char *path;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "resolve-bench: %s '%s': %s\n", what, path, strerror(errno));
	exit(1);
}

/*
 * populate DIR NFILES: a tree DIR/t/aNN/bNN/cNN/fNNN, 10 x 10 x 50 directories of
 * NFILES / 5000 files each; prints "inode path" per file, paths relative to DIR.
 */
static int populate(const char *dir, long nfiles)
{
	long per_leaf = nfiles / 5000, made = 0;
	char rel[256], full[4096];
	struct stat st;

	snprintf(full, sizeof(full), "%s/t", dir);
	if (mkdir(full, 0755) < 0 && errno != EEXIST)
		die("cannot create", full);
	for (int a = 0; a < 10; a++)
		for (int b = 0; b < 10; b++)
			for (int c = 0; c < 50; c++) {
				snprintf(full, sizeof(full), "%s/t/a%02d", dir, a);
				mkdir(full, 0755);
				snprintf(full, sizeof(full), "%s/t/a%02d/b%02d", dir, a, b);
				mkdir(full, 0755);
				snprintf(full, sizeof(full), "%s/t/a%02d/b%02d/c%02d", dir, a, b, c);
				if (mkdir(full, 0755) < 0 && errno != EEXIST)
					die("cannot create", full);
				for (long f = 0; f < per_leaf; f++) {
					int fd;

					snprintf(rel, sizeof(rel), "t/a%02d/b%02d/c%02d/file-%04ld",
						 a, b, c, f);
					snprintf(full, sizeof(full), "%s/%s", dir, rel);
					fd = open(full, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
					if (fd < 0 || fstat(fd, &st) < 0)
						die("cannot create", full);
					close(fd);
					printf("%" PRIu64 " %s\n", (uint64_t)st.st_ino, rel);
					made++;
				}
			}
	fprintf(stderr, "resolve-bench: %ld files\n", made);
	return 0;
}

static struct entry *read_list(const char *path, size_t *ret_n)
{
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	char line[4096];
	FILE *f = fopen(path, "re");

	if (!f)
		die("cannot open", path);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				die("out of memory reading", path);
		}
		v[n].ino = strtoull(line, NULL, 10);
		v[n].path = strdup(sp + 1);
		n++;
	}
	fclose(f);
	*ret_n = n;
	return v;
}

/*
 * run MOUNT_DIR LIST NPICK SEED METHODS [touch] [deleted=N]: name NPICK inodes picked
 * at random from LIST; with "touch", open and close the picked files first, as a
 * traced program would have (their dentries are then cached); with "deleted=N",
 * also ask for N files created and deleted just before (temporary files of the
 * traced run), which have no name to find.
 */
static int run(int argc, char **argv)
{
	const char *mnt = argv[2];
	size_t n, npick = strtoul(argv[4], NULL, 10), ok = 0, wrong = 0;
	size_t other_link = 0;
	unsigned seed = (unsigned)strtoul(argv[5], NULL, 10), methods = 0;
	size_t ndel = 0, total;
	bool touch = false;
	struct entry *list = read_list(argv[3], &n);
	struct resolve_item *items;
	size_t *pick;
	struct stat st;
	double t0, t1;
	long r;

	for (int a = 7; a < argc; a++) {
		if (strcmp(argv[a], "touch") == 0)
			touch = true;
		else if (strncmp(argv[a], "deleted=", 8) == 0)
			ndel = strtoul(argv[a] + 8, NULL, 10);
	}
	if (strstr(argv[6], "handle"))
		methods |= RESOLVE_HANDLE;
	if (strstr(argv[6], "walk"))
		methods |= RESOLVE_WALK;
	if (npick > n)
		npick = n;
	pick = malloc(n * sizeof(*pick));
	items = calloc(npick + ndel, sizeof(*items));
	if (!pick || !items)
		die("out of memory for", argv[3]);
	/* A partial Fisher-Yates shuffle picks distinct entries */
	srand(seed);
	for (size_t i = 0; i < n; i++)
		pick[i] = i;
	for (size_t i = 0; i < npick; i++) {
		size_t j = i + (size_t)(((uint64_t)rand() << 31 | (uint64_t)rand()) % (n - i));
		size_t t = pick[i];

		pick[i] = pick[j];
		pick[j] = t;
		items[i].ino = list[pick[i]].ino;
	}
	if (stat(mnt, &st) < 0)
		die("cannot stat", mnt);
	if (touch) {
		for (size_t i = 0; i < npick; i++) {
			char full[4096];
			int fd;

			snprintf(full, sizeof(full), "%s/%s", mnt, list[pick[i]].path);
			fd = open(full, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				die("cannot open", full);
			close(fd);
		}
	}
	if (ndel) {
		char dir[4096], full[4096 + 32];

		snprintf(dir, sizeof(dir), "%s/scratch", mnt);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			die("cannot create", dir);
		for (size_t i = 0; i < ndel; i++) {
			struct stat fst;
			int fd;

			snprintf(full, sizeof(full), "%s/tmp-%zu", dir, i);
			fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0 || fstat(fd, &fst) < 0 || unlink(full) < 0)
				die("cannot create and delete", full);
			close(fd);
			items[npick + i].ino = fst.st_ino;
		}
	}
	total = npick + ndel;
	t0 = now();
	r = resolve_inodes(mnt, major(st.st_dev), minor(st.st_dev), items, total, methods, NULL);
	t1 = now();
	if (r < 0) {
		errno = (int)-r;
		die("cannot resolve in", mnt);
	}
	for (size_t i = npick; i < total; i++) {
		if (items[i].path) {
			fprintf(stderr, "resolve-bench: deleted inode %" PRIu64 " named '%s'\n",
				items[i].ino, items[i].path);
			wrong++;
			free(items[i].path);
		}
	}
	for (size_t i = 0; i < npick; i++) {
		if (!items[i].path)
			continue;
		if (strcmp(items[i].path, list[pick[i]].path) == 0) {
			ok++;
		} else {
			/* Another name of a file with hard links is right too */
			char full[4096];
			struct stat lst;

			snprintf(full, sizeof(full), "%s/%s", mnt, items[i].path);
			if (lstat(full, &lst) == 0 && lst.st_ino == items[i].ino &&
			    lst.st_dev == st.st_dev)
				other_link++;
			else
				wrong++;
		}
		free(items[i].path);
	}
	if (ndel) {
		char dir[4096];

		snprintf(dir, sizeof(dir), "%s/scratch", mnt);
		rmdir(dir);
	}
	printf("methods=%s touch=%d picked=%zu deleted=%zu resolved=%ld correct=%zu other-link=%zu "
	       "wrong=%zu seconds=%.3f\n", argv[6], touch, npick, ndel, r, ok, other_link, wrong,
	       t1 - t0);
	for (size_t i = 0; i < n; i++)
		free(list[i].path);
	free(list);
	free(pick);
	free(items);
	return wrong ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "populate") == 0)
		return populate(argv[2], strtol(argv[3], NULL, 10));
	if (argc >= 7 && strcmp(argv[1], "run") == 0)
		return run(argc, argv);
	fprintf(stderr, "usage: resolve-bench populate DIR NFILES > LIST\n"
			"       resolve-bench run MOUNT_DIR LIST NPICK SEED walk|handle|handle,walk "
			"[touch] [deleted=N]\n");
	return 2;
}
