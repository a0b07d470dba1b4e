// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/replay-files.c: the fd cache, on ordinary files in a temporary directory */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <ura/pack.h>

#include "util-log.h"
#include "replay-files.h"
#include "unit.h"

#define NFILES 3

static char *dir;
static struct ura_pack *pack;
static struct replay_fs fs;
static struct replay_files files;

static char *in_dir(const char *name)
{
	char *p;

	ck_assert_int_ne(asprintf(&p, "%s/%s", dir, name), -1);
	return p;
}

/* (Re)write file @name with @len bytes: a new inode each time, renamed over the old one as a
 * package update does (an unlink and a create may be given the same inode number again). */
static void write_file(const char *name, size_t len)
{
	char *p = in_dir(name), *tmp, buf[256] = { 0 };
	int fd;

	ck_assert_int_ne(asprintf(&tmp, "%s.new", p), -1);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_le(len, sizeof(buf));
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	ck_assert_int_eq(rename(tmp, p), 0);
	free(tmp);
	free(p);
}

/* A pack of the files "0", "1", "2" as they are now, the directory taken as "/". */
static void make_pack(void)
{
	struct ura_pack_builder *b = NULL;
	char *path = in_dir("test.pack");
	struct stat sb;
	uint32_t fsi, fi;

	ck_assert_int_eq(stat(dir, &sb), 0);
	ck_assert_int_eq(ura_pack_builder_new(&b), 0);
	ck_assert_int_eq(ura_pack_builder_add_fs(b, &(struct ura_pack_fs){
		.major = major(sb.st_dev), .minor = minor(sb.st_dev), .mount_point = "/",
		.fstype = "", .source = "" }, &fsi), 0);
	for (int i = 0; i < NFILES; i++) {
		char name[2] = { (char)('0' + i), 0 }, *p = in_dir(name);
		struct ura_pack_file f = { .fs_index = fsi, .path = name };

		ck_assert_int_eq(stat(p, &sb), 0);
		f.ino = sb.st_ino;
		f.size = (uint64_t)sb.st_size;
		f.mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
		ck_assert_int_eq(ura_pack_builder_add_file(b, &f, &fi), 0);
		ck_assert_int_eq(ura_pack_builder_add_range(b, &(struct ura_pack_range){
			.file_index = fi, .page_count = 1, .flags = URA_PACK_RANGE_DEMANDED }), 0);
		free(p);
	}
	ck_assert_int_eq(ura_pack_builder_write(b, path, 0644), 0);
	ura_pack_builder_free(b);
	ck_assert_int_eq(ura_pack_open(path, &pack), 0);
	free(path);
}

/* Requests: two of file 0, one of file 1, one of file 2. */
static void setup(void)
{
	static const struct sched_item req[] = {
		{ .obj = 0, .len = 4096 }, { .obj = 1, .len = 4096 },
		{ .obj = 0, .len = 4096 }, { .obj = 2, .len = 4096 },
	};

	log_set_level(LOG_LVL_ERR - 1);
	dir = unit_mkdtemp();
	for (int i = 0; i < NFILES; i++) {
		char name[2] = { (char)('0' + i), 0 };

		write_file(name, 100);
	}
	make_pack();
	fs = (struct replay_fs){ .dir = dir, .dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) };
	ck_assert_int_ge(fs.dirfd, 0);
	ck_assert_int_eq(replay_files_init(&files, pack, &fs, NFILES, NULL, 0, req,
					   sizeof(req) / sizeof(req[0]), 0), 0);
	files.fd_cap = 100;
}

static void teardown(void)
{
	replay_files_free(&files);
	if (fs.dirfd >= 0)
		close(fs.dirfd);
	ura_pack_free(pack);
	pack = NULL;
	unit_rmtree(dir);
	free(dir);
	dir = NULL;
}

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* Opened on first use, kept while requests remain, closed after the last one. */
START_TEST(test_open_on_first_use_close_after_last)
{
	int fd, again;

	for (int i = 0; i < NFILES; i++)
		ck_assert_int_eq(files.obj[i].fd, -1);
	ck_assert_uint_eq(files.open_files, 0);

	fd = replay_files_get(&files, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(files.obj[0].state, REPLAY_OBJ_OK);
	ck_assert_uint_eq(files.open_files, 1);
	replay_files_put(&files, 0, fd, REPLAY_RELEASE_HANDLED);	/* one of two requests */
	ck_assert_int_eq(files.obj[0].fd, fd);
	ck_assert(is_open(fd));

	again = replay_files_get(&files, 0);				/* the same descriptor */
	ck_assert_int_eq(again, fd);
	replay_files_put(&files, 0, again, REPLAY_RELEASE_KEEP);	/* a look: no request done */
	ck_assert(is_open(fd));
	again = replay_files_get(&files, 0);
	ck_assert_int_eq(again, fd);
	replay_files_put(&files, 0, again, REPLAY_RELEASE_HANDLED);	/* the last request */
	ck_assert_int_eq(files.obj[0].fd, -1);
	ck_assert(!is_open(fd));
	ck_assert_uint_eq(files.open_files, 0);

	/* two users of one file: closed when the last lets go */
	fd = replay_files_get(&files, 1);
	again = replay_files_get(&files, 1);
	ck_assert_int_eq(again, fd);
	ck_assert_uint_eq(files.obj[1].users, 2);
	replay_files_put(&files, 1, fd, REPLAY_RELEASE_KEEP);
	ck_assert(is_open(fd));
	replay_files_put(&files, 1, again, REPLAY_RELEASE_HANDLED);
	ck_assert_int_eq(files.obj[1].fd, -1);
	ck_assert(!is_open(fd));
	ck_assert_uint_eq(files.counts.stale_files + files.counts.missing_files + files.counts.refused_files + files.counts.errors, 0);
}
END_TEST

/* Over the cap, a file is closed after use, then opened (and checked) again when needed. */
START_TEST(test_reopen_over_cap)
{
	int a, b, fd;

	files.fd_cap = 1;
	a = replay_files_get(&files, 0);
	b = replay_files_get(&files, 1);
	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(b, 0);
	ck_assert_uint_eq(files.open_files, 2);
	replay_files_put(&files, 0, a, REPLAY_RELEASE_KEEP);		/* 2 > cap: closed */
	ck_assert_int_eq(files.obj[0].fd, -1);
	ck_assert_uint_eq(files.open_files, 1);
	replay_files_put(&files, 1, b, REPLAY_RELEASE_KEEP);		/* 1: kept */
	ck_assert_int_eq(files.obj[1].fd, b);

	fd = replay_files_get(&files, 0);				/* opened again */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(files.obj[0].state, REPLAY_OBJ_OK);
	ck_assert(!files.obj[0].reopen_failed);
	ck_assert_uint_eq(files.open_files, 2);
	replay_files_put(&files, 0, fd, REPLAY_RELEASE_HANDLED);	/* over the cap: closed */
	ck_assert_int_eq(files.obj[0].fd, -1);

	/* replaced meanwhile: the second open finds another file and gives up on it */
	write_file("0", 200);
	ck_assert_int_eq(replay_files_get(&files, 0), -1);
	ck_assert(files.obj[0].reopen_failed);
	write_file("0", 100);
	ck_assert_int_eq(replay_files_get(&files, 0), -1);		/* not tried again */
	ck_assert_uint_eq(files.open_files, 1);
	ck_assert_uint_eq(files.counts.errors, 0);
}
END_TEST

/* What the first open finds is counted once; a stale file is skipped (--stale=skip). */
START_TEST(test_missing_and_stale_counted_once)
{
	char *p = in_dir("2");

	ck_assert_int_eq(unlink(p), 0);
	free(p);
	write_file("1", 50);
	ck_assert_int_eq(replay_files_get(&files, 2), -1);
	ck_assert_int_eq(files.obj[2].state, REPLAY_OBJ_MISSING);
	ck_assert_int_eq(replay_files_get(&files, 2), -1);
	ck_assert_int_eq(replay_files_get(&files, 1), -1);
	ck_assert_int_eq(files.obj[1].state, REPLAY_OBJ_STALE);
	ck_assert_int_eq(replay_files_get(&files, 1), -1);
	ck_assert_uint_eq(files.counts.missing_files, 1);
	ck_assert_uint_eq(files.counts.stale_files, 1);
	ck_assert_uint_eq(files.open_files, 0);
	replay_files_put(&files, 2, -1, REPLAY_RELEASE_HANDLED);
	ck_assert_uint_eq(files.obj[2].pending, 0);
}
END_TEST

/* The one open of a pack's file (the replay's and --watch's check): what it gives, and why not. */
START_TEST(test_open_file)
{
	struct replay_fs nofs = { .dir = NULL, .dirfd = -1 };
	uint64_t size = 7;
	int fd = -7, err = -1;
	char *p = in_dir("2"), *q = in_dir("0");

	ck_assert_int_eq(replay_files_open_file(pack, &fs, 0, false, &fd, &size, &err),
			 REPLAY_OBJ_OK);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(size, 100);
	ck_assert_int_eq(err, 0);
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	/* changed since the trace: refused, unless asked for anyway; nothing set on refusal */
	write_file("1", 50);
	fd = -7;
	size = 7;
	ck_assert_int_eq(replay_files_open_file(pack, &fs, 1, false, &fd, &size, &err),
			 REPLAY_OBJ_STALE);
	ck_assert_int_eq(fd, -7);
	ck_assert_uint_eq(size, 7);
	ck_assert_int_eq(replay_files_open_file(pack, &fs, 1, true, &fd, &size, NULL),
			 REPLAY_OBJ_STALE);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(size, 50);
	close(fd);
	/* written in place (the same inode): told apart from a replaced file */
	fd = -7;
	ck_assert_int_eq(truncate(p, 10), 0);
	ck_assert_int_eq(replay_files_open_file(pack, &fs, 2, false, &fd, &size, &err),
			 REPLAY_OBJ_WRITTEN);
	ck_assert_int_eq(fd, -7);
	ck_assert_int_eq(replay_files_open_file(pack, &fs, 2, true, &fd, &size, &err),
			 REPLAY_OBJ_WRITTEN);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(size, 10);
	close(fd);
	fd = -7;
	/* not a regular file; a symlink (its reason given) */
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(replay_files_open_file(pack, &fs, 2, false, &fd, &size, &err),
			 REPLAY_OBJ_REFUSED);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(rmdir(p), 0);
	ck_assert_int_eq(symlink(q, p), 0);
	ck_assert_int_eq(replay_files_open_file(pack, &fs, 2, true, &fd, &size, &err),
			 REPLAY_OBJ_REFUSED);
	ck_assert_int_eq(err, ELOOP);
	/* missing: the file, its filesystem, or the index */
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(replay_files_open_file(pack, &fs, 2, true, &fd, &size, &err),
			 REPLAY_OBJ_MISSING);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(replay_files_open_file(pack, &nofs, 0, true, &fd, &size, &err),
			 REPLAY_OBJ_MISSING);
	ck_assert_int_eq(replay_files_open_file(pack, &fs, NFILES, true, &fd, &size, &err),
			 REPLAY_OBJ_MISSING);
	ck_assert_int_eq(fd, -7);
	free(p);
	free(q);
}
END_TEST

static Suite *replay_files_suite(void)
{
	Suite *s = suite_create("replay-files");
	TCase *tc = tcase_create("fd cache");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_open_on_first_use_close_after_last);
	tcase_add_test(tc, test_reopen_over_cap);
	tcase_add_test(tc, test_missing_and_stale_counted_once);
	tcase_add_test(tc, test_open_file);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(replay_files_suite)
