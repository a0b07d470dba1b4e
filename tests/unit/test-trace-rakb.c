// SPDX-License-Identifier: GPL-2.0-or-later
/* rakb: forcing read_ahead_kb, its state files, restoring after a crash, other live runs */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev-model.h"
#include "sys-mountinfo.h"
#include "trace-rakb.h"
#include "unit.h"

/* A fake sysfs: read_ahead_kb of three devices. */
static struct {
	unsigned major, minor, kb;
} devs[] = { { 8, 1, 128 }, { 8, 2, 256 }, { 8, 16, 512 } };

static int fake_get(unsigned major, unsigned minor, unsigned *ret)
{
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (devs[i].major == major && devs[i].minor == minor) {
			*ret = devs[i].kb;
			return 0;
		}
	return -ENOENT;
}

static int fake_set(unsigned major, unsigned minor, unsigned kb)
{
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (devs[i].major == major && devs[i].minor == minor) {
			devs[i].kb = kb;
			return 0;
		}
	return -ENOENT;
}

/* A read-only sysfs (a container's): every write fails. */
static int erofs_set(unsigned major, unsigned minor, unsigned kb)
{
	(void)major;
	(void)minor;
	(void)kb;
	return -EROFS;
}

/* Only 8:2 can be written. */
static int some_set(unsigned major, unsigned minor, unsigned kb)
{
	return major == 8 && minor == 2 ? fake_set(major, minor, kb) : -EROFS;
}

static unsigned kb_of(unsigned major, unsigned minor)
{
	unsigned kb = 0;

	ck_assert_int_eq(fake_get(major, minor, &kb), 0);
	return kb;
}

static const char mounts_text[] =
	"20 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
	"21 20 8:2 / /home rw - ext4 /dev/sda2 rw\n"
	"22 20 0:30 / /tmp rw - tmpfs tmpfs rw\n"
	"23 20 8:16 / /srv/data rw - xfs /dev/sdb rw\n";

static char *dir;
static struct rakb_env env;
static struct mount_table mt;

static void setup(void)
{
	dir = unit_mkdtemp();
	env = (struct rakb_env){ .state_dir = dir, .get_kb = fake_get, .set_kb = fake_set };
	ck_assert_int_eq(mountinfo_parse(mounts_text, strlen(mounts_text), &mt), 0);
}

static void teardown(void)
{
	mountinfo_free(&mt);
	unit_rmtree(dir);
	free(dir);
}

static char *state_path(pid_t pid)
{
	char *p;

	ck_assert_int_ne(asprintf(&p, "%s/trace-%d.state", dir, (int)pid), -1);
	return p;
}

static char *read_text(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "re");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A process named ura-trace, alive until killed: another run. */
static pid_t spawn_live_run(void)
{
	int p[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, "ura-trace");
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	close(p[1]);
	return pid;
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

START_TEST(test_force_and_restore)
{
	struct rakb_state st = { 0 };
	char *path = state_path(getpid());
	struct stat sb;

	ck_assert_int_eq(rakb_force(&st, &env, 20, &mt, NULL), 0);
	/* every non-pseudo filesystem's device, the old values on disk first */
	ck_assert_uint_eq(kb_of(8, 1), 20);
	ck_assert_uint_eq(kb_of(8, 2), 20);
	ck_assert_uint_eq(kb_of(8, 16), 20);
	ck_assert_str_eq(read_text(path), "8:1 128\n8:2 256\n8:16 512\n");
	ck_assert_uint_eq(rakb_during_trace(&st, 8, 2), 20);
	rakb_restore(&st);
	ck_assert_uint_eq(kb_of(8, 1), 128);
	ck_assert_uint_eq(kb_of(8, 2), 256);
	ck_assert_uint_eq(kb_of(8, 16), 512);
	ck_assert_int_eq(stat(path, &sb), -1);		/* state file gone */
	ck_assert_uint_eq(rakb_during_trace(&st, 8, 2), 20);	/* kept for the pack */
	rakb_free(&st);
	free(path);
}
END_TEST

/* 8:1 gets 8, 8:16 is left alone, the rest 64 */
static unsigned pick_some(unsigned major, unsigned minor, unsigned now_kb, void *arg)
{
	(void)major;
	(*(int *)arg)++;
	ck_assert_uint_eq(now_kb, minor == 1 ? 128 : minor == 2 ? 256 : 512);
	return minor == 1 ? 8 : minor == 16 ? 0 : 64;
}

START_TEST(test_force_each)
{
	struct rakb_state st = { 0 };
	char *path = state_path(getpid());
	int calls = 0;

	ck_assert_int_eq(rakb_force_each(&st, &env, pick_some, &calls, &mt, NULL), 0);
	ck_assert_int_ge(calls, 3);
	ck_assert_uint_eq(kb_of(8, 1), 8);
	ck_assert_uint_eq(kb_of(8, 2), 64);
	ck_assert_uint_eq(kb_of(8, 16), 512);
	ck_assert_str_eq(read_text(path), "8:1 128\n8:2 256\n");
	/* what each ran at, for the pack's filesystem records */
	ck_assert_uint_eq(rakb_during_trace(&st, 8, 1), 8);
	ck_assert_uint_eq(rakb_during_trace(&st, 8, 2), 64);
	ck_assert_uint_eq(rakb_during_trace(&st, 8, 16), 512);
	rakb_free(&st);
	ck_assert_uint_eq(kb_of(8, 1), 128);
	ck_assert_uint_eq(kb_of(8, 2), 256);
	free(path);
}
END_TEST

/* A model of two budgets, the testbed's throttle: @bps bytes and @iops reads a second. */
static struct devmodel budgets(uint64_t iops, uint64_t bps)
{
	struct devmodel m;

	dev_model_from_costs(&m, 1000000000ull / iops, bps, false, DEVMODEL_PROBE);
	m.combine = DEVMODEL_BUDGETS;
	m.bps = bps;
	m.iops = iops;
	return m;
}

START_TEST(test_for_model)
{
	struct devmodel m;

	/* the power of two at or below the balance size: reads cost their bytes */
	m = budgets(150, 120000000);		/* a disk: 800 KB */
	ck_assert_uint_eq(rakb_for_model(&m, 2560), 512);
	ck_assert_uint_eq(rakb_for_model(&m, 128), 128);	/* never above the device's own */
	m = budgets(1500, 150000000);		/* eMMC: 100 KB */
	ck_assert_uint_eq(rakb_for_model(&m, 2560), 64);
	m = budgets(2000, 20000000);		/* an SD card: 10 KB, bytes are dear */
	ck_assert_uint_eq(rakb_for_model(&m, 2560), 8);
	m = budgets(20000, 500000000);		/* an SSD: 25 KB */
	ck_assert_uint_eq(rakb_for_model(&m, 2560), 16);
	/* additive costs: the request's cost times the bandwidth (8 ms at 120 MiB/s) */
	dev_model_from_costs(&m, 8000000, 120u << 20, true, DEVMODEL_OPTIONS);
	ck_assert_uint_eq(rakb_for_model(&m, 0), 512);
	/* a device faster per request than a page's bytes: a page at a time */
	dev_model_from_costs(&m, 1000, 100u << 20, false, DEVMODEL_OPTIONS);
	ck_assert_uint_eq(rakb_for_model(&m, 128), 4);
	ck_assert_uint_eq(rakb_for_model(&(struct devmodel){ 0 }, 128), 4);
}
END_TEST

START_TEST(test_root_limits_devices)
{
	struct rakb_state st = { 0 };

	/* under --root /srv/data/img only the filesystem the root is on */
	ck_assert_int_eq(rakb_force(&st, &env, 16, &mt, "/srv/data/img"), 0);
	ck_assert_uint_eq(st.n, 1);
	ck_assert_uint_eq(kb_of(8, 16), 16);
	ck_assert_uint_eq(kb_of(8, 1), 128);
	rakb_free(&st);
	ck_assert_uint_eq(kb_of(8, 16), 512);
	/* --root / sees everything below: a mount inside the root counts */
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(rakb_force(&st, &env, 16, &mt, "/srv"), 0);
	ck_assert_uint_eq(st.n, 2);			/* / (the root is on it) and /srv/data */
	rakb_free(&st);
}
END_TEST

START_TEST(test_nothing_to_change_writes_nothing)
{
	struct rakb_state st = { 0 };
	char *path = state_path(getpid());
	struct stat sb;

	ck_assert_int_eq(rakb_force(&st, &env, 20, &mt, "/home"), 0);
	rakb_free(&st);
	memset(&st, 0, sizeof(st));
	devs[1].kb = 20;
	ck_assert_int_eq(rakb_force(&st, &env, 20, &mt, "/home"), 0);
	ck_assert_uint_eq(st.n, 0);
	ck_assert_int_eq(stat(path, &sb), -1);
	rakb_free(&st);
	devs[1].kb = 256;
	free(path);
}
END_TEST

START_TEST(test_cannot_set)
{
	struct rakb_state st = { 0 };
	struct rakb_env ro = env;
	char *path = state_path(getpid());
	struct stat sb;

	/* nothing could be set: nothing to restore, and the pack gets the real values */
	ro.set_kb = erofs_set;
	ck_assert_int_eq(rakb_force(&st, &ro, 4, &mt, NULL), 0);
	ck_assert_uint_eq(st.n, 0);
	ck_assert_int_eq(stat(path, &sb), -1);
	ck_assert_uint_eq(rakb_during_trace(&st, 8, 1), 128);
	ck_assert_uint_eq(rakb_during_trace(&st, 8, 16), 512);
	rakb_free(&st);
	/* one of three could: only it is in the state file and restored */
	memset(&st, 0, sizeof(st));
	ro.set_kb = some_set;
	ck_assert_int_eq(rakb_force(&st, &ro, 4, &mt, NULL), 0);
	ck_assert_uint_eq(st.n, 1);
	ck_assert_str_eq(read_text(path), "8:2 256\n");
	ck_assert_uint_eq(rakb_during_trace(&st, 8, 2), 4);
	ck_assert_uint_eq(rakb_during_trace(&st, 8, 1), 128);
	rakb_free(&st);
	ck_assert_uint_eq(kb_of(8, 2), 256);
	ck_assert_int_eq(stat(path, &sb), -1);
	free(path);
}
END_TEST

START_TEST(test_restore_dead)
{
	pid_t pid = dead_pid();
	char *path = state_path(pid);
	struct stat sb;

	devs[0].kb = 20;
	write_text(path, "8:1 100\n9:9 7\n");		/* 9:9 no longer exists */
	ck_assert_int_eq(rakb_restore_dead(&env), 1);
	ck_assert_uint_eq(kb_of(8, 1), 100);
	ck_assert_int_eq(stat(path, &sb), -1);
	ck_assert_int_eq(rakb_restore_dead(&env), 0);
	devs[0].kb = 128;
	free(path);
}
END_TEST

/* The fake disks' diskseq: 8:1 is detached and another disk attached as 8:1 by the test. */
static uint64_t seqs[] = { 11, 12, 13 };

static int fake_seq(unsigned major, unsigned minor, uint64_t *ret)
{
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (devs[i].major == major && devs[i].minor == minor) {
			*ret = seqs[i];
			return 0;
		}
	return -ENOENT;
}

/*
 * A disk detached during the trace and another attached under its number (a loop
 * device): the new one keeps its own value; the others get theirs back. Also after a crash.
 */
START_TEST(test_other_disk_since)
{
	struct rakb_state st = { 0 };
	char *path = state_path(getpid());

	env.get_seq = fake_seq;
	seqs[0] = 11;
	ck_assert_int_eq(rakb_force(&st, &env, 20, &mt, NULL), 0);
	ck_assert_str_eq(read_text(path), "8:1 128 11\n8:2 256 12\n8:16 512 13\n");
	seqs[0] = 14;		/* 8:1 is another disk now, at its own value */
	devs[0].kb = 2560;
	rakb_restore(&st);
	ck_assert_uint_eq(kb_of(8, 1), 2560);
	ck_assert_uint_eq(kb_of(8, 2), 256);
	rakb_free(&st);
	free(path);
	/* a killed run's file: the same */
	path = state_path(dead_pid());
	write_text(path, "8:1 100 11\n8:2 200 12\n");
	ck_assert_int_eq(rakb_restore_dead(&env), 1);
	ck_assert_uint_eq(kb_of(8, 1), 2560);
	ck_assert_uint_eq(kb_of(8, 2), 200);
	free(path);
	devs[0].kb = 128;
	devs[1].kb = 256;
	seqs[0] = 11;
}
END_TEST


/* A live run forced 8:1 from 100: we restore to its old value, and only the last one does. */
START_TEST(test_live_run_keeps_its_devices)
{
	pid_t other = spawn_live_run();
	char *other_path = state_path(other);
	struct rakb_state st = { 0 };
	struct stat sb;

	devs[0].kb = 20;
	write_text(other_path, "8:1 100\n");
	ck_assert_int_eq(rakb_restore_dead(&env), 0);		/* alive: left alone */
	ck_assert_int_eq(stat(other_path, &sb), 0);
	ck_assert_int_eq(rakb_force(&st, &env, 20, &mt, "/"), 0);
	for (size_t i = 0; i < st.n; i++)
		if (st.devs[i].major == 8 && st.devs[i].minor == 1)
			ck_assert_uint_eq(st.devs[i].old_kb, 100);	/* its value from before */
	rakb_restore(&st);
	ck_assert_uint_eq(kb_of(8, 1), 20);			/* still forced by the other */
	ck_assert_uint_eq(kb_of(8, 2), 256);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	ck_assert_int_eq(rakb_restore_dead(&env), 1);		/* now it is dead */
	ck_assert_uint_eq(kb_of(8, 1), 100);
	rakb_free(&st);
	devs[0].kb = 128;
	free(other_path);
}
END_TEST

static Suite *rakb_suite(void)
{
	Suite *s = suite_create("rakb");
	TCase *tc = tcase_create("rakb");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_force_and_restore);
	tcase_add_test(tc, test_force_each);
	tcase_add_test(tc, test_for_model);
	tcase_add_test(tc, test_root_limits_devices);
	tcase_add_test(tc, test_nothing_to_change_writes_nothing);
	tcase_add_test(tc, test_cannot_set);
	tcase_add_test(tc, test_restore_dead);
	tcase_add_test(tc, test_other_disk_since);
	tcase_add_test(tc, test_live_run_keeps_its_devices);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(rakb_suite)
