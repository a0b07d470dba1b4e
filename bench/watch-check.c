// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * watch-check: what ura-replay --watch's skip decision costs per exec, with a large pack.
 *
 *   watch-check genpack DIR MIB FILE...  DIR/x.pack: MIB MiB of demanded ranges of the FILEs
 *                                        (1-32 pages each, 0-16 pages apart, in turn)
 *   watch-check time DIR RUNS            the pack read and sampled once (the first exec of the
 *                                        program), then RUNS looks at its sample with all of it
 *                                        resident (the replay skipped: every page looked at),
 *                                        RUNS with its files evicted (the replay decided at the
 *                                        first page), and RUNS warm replays (what a skip saves)
 *
 * Prints medians and min-max in ms. Evicting needs nothing but write access to the files'
 * page cache (posix_fadvise DONTNEED): run it on files nobody else is timing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <ura/pack.h>

#include "replay-engine.h"
#include "watch-packs.h"
#include "sys-view.h"
#include "util-log.h"
#include "util.h"

#define MAX_FS	16

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *ns, int n)
{
	qsort(ns, (size_t)n, sizeof(*ns), cmp_u64);
	printf("%-44s median %8.3f ms  [%.3f-%.3f]  (%d runs)\n", what, (double)ns[n / 2] / 1e6,
	       (double)ns[0] / 1e6, (double)ns[n - 1] / 1e6, n);
}

/* The mount point of @path's filesystem: climb while the device stays the same. */
static void mount_of(const char *path, dev_t dev, char *ret)
{
	char cur[PATH_MAX], up[PATH_MAX];
	struct stat st;

	snprintf(cur, sizeof(cur), "%s", path);
	for (;;) {
		char *slash = strrchr(cur, '/');

		if (slash == cur) {
			strcpy(ret, stat("/", &st) == 0 && st.st_dev == dev ? "/" : cur);
			return;
		}
		memcpy(up, cur, (size_t)(slash - cur));
		up[slash - cur] = '\0';
		if (stat(up, &st) < 0 || st.st_dev != dev) {
			strcpy(ret, cur);
			return;
		}
		strcpy(cur, up);
	}
}

static int genpack(const char *dir, uint64_t mib, char **files, int nfiles)
{
	struct ura_pack_builder *b = NULL;
	static char mnts[MAX_FS][PATH_MAX];
	dev_t devs[MAX_FS];
	uint32_t fsi[MAX_FS], *fidx = NULL;
	uint64_t *pages = NULL, *next = NULL, want = mib << 20, have = 0, t = 0, seed = 88172645463325252ull;
	char out[PATH_MAX];
	int nfs = 0, r;

	fidx = calloc((size_t)nfiles, sizeof(*fidx));
	pages = calloc((size_t)nfiles, sizeof(*pages));
	next = calloc((size_t)nfiles, sizeof(*next));
	if (!fidx || !pages || !next || (r = ura_pack_builder_new(&b)) < 0) {
		r = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < nfiles; i++) {
		char real[PATH_MAX];
		struct ura_pack_file f = { 0 };
		struct stat st;
		int k;

		if (!realpath(files[i], real) || stat(real, &st) < 0 || !S_ISREG(st.st_mode)) {
			r = -errno;
			fprintf(stderr, "watch-check: '%s': %s\n", files[i], strerror(errno));
			goto out;
		}
		for (k = 0; k < nfs && devs[k] != st.st_dev; k++)
			;
		if (k == nfs) {
			if (nfs == MAX_FS) {
				r = -E2BIG;
				goto out;
			}
			devs[nfs] = st.st_dev;
			mount_of(real, st.st_dev, mnts[nfs]);
			r = ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
				.major = major(st.st_dev), .minor = minor(st.st_dev),
				.mount_point = mnts[nfs], .fstype = "", .source = "" }, &fsi[nfs]);
			if (r < 0)
				goto out;
			nfs++;
		}
		f.fs_index = fsi[k];
		f.path = real + (strcmp(mnts[k], "/") ? strlen(mnts[k]) + 1 : 1);
		f.ino = st.st_ino;
		f.size = (uint64_t)st.st_size;
		f.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		r = ura_pack_builder_add_file(b, &f, &fidx[i]);
		if (r < 0)
			goto out;
		pages[i] = ((uint64_t)st.st_size + 4095) / 4096;
	}
	/* the files in turn, each read at scattered places, until the size is reached */
	for (bool more = true; have < want && more;) {
		more = false;
		for (int i = 0; i < nfiles && have < want; i++) {
			uint32_t count, gap;

			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			count = (uint32_t)(1 + seed % 32);
			gap = (uint32_t)((seed >> 16) % 17);
			if (next[i] + gap >= pages[i])
				continue;
			next[i] += gap;
			if (count > pages[i] - next[i])
				count = (uint32_t)(pages[i] - next[i]);
			r = ura_pack_builder_add_range(b, &(struct ura_pack_range){
				.file_index = fidx[i], .first_page = next[i], .page_count = count,
				.first_access_ns = t += 20000, .flags = URA_PACK_RANGE_DEMANDED });
			if (r < 0)
				goto out;
			next[i] += count;
			have += (uint64_t)count * 4096;
			more = true;
		}
	}
	snprintf(out, sizeof(out), "%s/x.pack", dir);
	r = ura_pack_builder_write(b, out, 0644);
	if (r == 0)
		printf("%s: %.1f MiB demanded in %d files\n", out, (double)have / (1 << 20), nfiles);
out:
	if (r < 0)
		fprintf(stderr, "watch-check: genpack: %s\n", strerror(-r));
	ura_pack_builder_free(b);
	free(fidx);
	free(pages);
	free(next);
	return r < 0;
}

/* Drop the pack's files from the page cache. */
static void evict(const struct ura_pack *pack)
{
	for (size_t i = 0; i < ura_pack_file_count(pack); i++) {
		struct ura_pack_file f;
		struct ura_pack_fs fs;
		char *path;
		int fd;

		if (ura_pack_get_file(pack, i, &f) < 0 || ura_pack_get_fs(pack, f.fs_index, &fs) < 0)
			continue;
		path = path_join(fs.mount_point, f.path);
		fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		if (fd >= 0) {
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			close(fd);
		}
		free(path);
	}
}

static int timing(const char *dir, int runs)
{
	struct watch_packs c;
	struct watch_pack *p = NULL;
	struct replay_options o;
	uint64_t *ns = calloc((size_t)runs, sizeof(*ns)), t0;
	struct replay_check ck = { 0 };
	struct sys_view *view = NULL;
	struct replay_stats st;
	int r;

	if (!ns || sys_view_read(SYS_VIEW_MOUNTS, &view) < 0)
		return 1;
	log_set_level(LOG_LVL_ERR);
	r = watch_packs_init(&c, dir);
	if (r < 0)
		return 1;
	t0 = now_monotonic_ns();
	r = watch_packs_lookup(&c, 0, "/x", &p, NULL);
	if (r < 0) {
		fprintf(stderr, "watch-check: '%s/x.pack': %s\n", dir, strerror(-r));
		return 1;
	}
	printf("pack read and sampled (first exec)            %8.3f ms: %zu files, %zu ranges, "
	       "%.1f MiB demanded, %u samples\n", (double)(now_monotonic_ns() - t0) / 1e6,
	       ura_pack_file_count(p->pack), ura_pack_range_count(p->pack),
	       (double)p->sampled_bytes / (1 << 20), p->nsamples);
	replay_options_init(&o);
	o.probe = REPLAY_PROBE_NEVER;
	(void)replay_run(p->pack, view, NULL, &o, &st);		/* everything resident from here on */
	for (int i = 0; i < runs; i++) {
		watch_pack_check(p, view, true, &ck, NULL);
		ns[i] = ck.ns;
	}
	printf("(warm: %u of %u sampled pages resident)\n", ck.resident, ck.sampled);
	report("check, all resident (replay skipped)", ns, runs);
	for (int i = 0; i < runs; i++) {
		evict(p->pack);
		watch_pack_check(p, view, true, &ck, NULL);
		ns[i] = ck.ns;
	}
	printf("(cold: %u of %u sampled pages resident before the first miss)\n", ck.resident,
	       ck.sampled);
	report("check, files evicted (replay decided)", ns, runs);
	(void)replay_run(p->pack, view, NULL, &o, &st);
	for (int i = 0; i < runs; i++) {
		t0 = now_monotonic_ns();
		(void)replay_run(p->pack, view, NULL, &o, &st);
		ns[i] = now_monotonic_ns() - t0;
	}
	report("warm replay instead (what a skip saves)", ns, runs);
	watch_pack_put(p);
	watch_packs_free(&c);
	sys_view_unref(view);
	free(ns);
	return 0;
}

int main(int argc, char *argv[])
{
	if (argc >= 5 && strcmp(argv[1], "genpack") == 0)
		return genpack(argv[2], strtoull(argv[3], NULL, 10), argv + 4, argc - 4);
	if (argc == 4 && strcmp(argv[1], "time") == 0)
		return timing(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	fputs("usage: watch-check genpack DIR MIB FILE...\n"
	      "       watch-check time DIR RUNS\n", stderr);
	return 64;
}
