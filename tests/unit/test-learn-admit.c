// SPDX-License-Identifier: GPL-2.0-or-later
/* learn-admit: which exec gets a learning window, each rule alone; which exec names are left out */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key.h"
#include "learn-admit.h"
#include "learn-programs.h"
#include "learn-windows.h"
#include "unit.h"

#define S	1000000000ull
#define NOW	(1000 * S)

/* What the rules ask of the system, answered from a table; each question counted. */
struct fake_file {
	const char *path;
	dev_t dev;
	ino_t ino;
};

static struct {
	const char *user_tree;		/* programs and names below it are a user's */
	unsigned program_asked, name_asked, stat_asked;
	size_t stat_n;			/* the paths of the last stat_paths() */
	const struct fake_file *files;	/* ends with a NULL path */
} sys;

static struct learn_windows ws;
static struct programs *programs;
static struct exec_seen *x;		/* the exec each test looks at (exec_of()) */
static struct admit a;

static bool below(const char *path, const char *dir)
{
	return dir && strncmp(path, dir, strlen(dir)) == 0;
}

static bool fake_program_private(void *ctx, const struct exec_program *prog, uint64_t now_ns)
{
	(void)ctx;
	ck_assert_uint_eq(now_ns, NOW);
	sys.program_asked++;
	return below(prog->path, sys.user_tree) || below(prog->exe, sys.user_tree);
}

static bool fake_name_private(void *ctx, const char *name)
{
	(void)ctx;
	sys.name_asked++;
	return below(name, sys.user_tree);
}

static int fake_stat_paths(void *ctx, const char *const *paths, size_t n, struct stat *ret)
{
	(void)ctx;
	sys.stat_asked++;
	sys.stat_n = n;
	for (size_t i = 0; i < n; i++) {
		const struct fake_file *f = sys.files;

		while (f && f->path && strcmp(f->path, paths[i]) != 0)
			f++;
		if (!f || !f->path)
			return -ENOENT;
		ret[i].st_dev = f->dev;
		ret[i].st_ino = f->ino;
	}
	return 0;
}

static void setup(void)
{
	memset(&sys, 0, sizeof(sys));
	windows_init(&ws, MAX_WINDOWS);
	ck_assert_int_eq(programs_new(600 * S, &programs), 0);
	x = calloc(1, sizeof(*x) + PATH_MAX);
	ck_assert_ptr_nonnull(x);
	a = (struct admit){ .ws = &ws, .programs = programs,
			    .program_private = fake_program_private,
			    .name_private = fake_name_private, .stat_paths = fake_stat_paths };
}

static void teardown(void)
{
	windows_fini(&ws);
	programs_free(programs);
	free(x);
}

/*
 * The exec of @filename by task @pid of user @uid at NOW - 1 s, in the daemon's own root:
 * it starts program @path, run by @exe (a script's interpreter), or by itself when NULL.
 */
static const struct exec_seen *exec_of(int pid, uid_t uid, const char *filename, const char *path,
				       const char *exe)
{
	memset(x, 0, sizeof(*x));
	x->pid = pid;
	x->ts = NOW - S;
	strcpy(x->prog.root.path, "/");
	snprintf(x->prog.path, sizeof(x->prog.path), "%s", path);
	snprintf(x->prog.exe, sizeof(x->prog.exe), "%s", exe ? exe : path);
	x->prog.uid = uid;
	snprintf(x->filename, PATH_MAX, "%s", filename);
	return x;
}

/* The verdict on program @path (run by @exe, or itself) exec'd by @pid of @uid, at NOW. */
static enum admit_verdict verdict(int pid, uid_t uid, const char *path, const char *exe)
{
	uint64_t wait = 0;

	return admit_exec(&a, exec_of(pid, uid, path, path, exe), NOW, &wait);
}

/* A window open for program @path of root @root_id, exec'd by @pid of @uid. */
static void open_w(uint64_t root_id, const char *path, int pid, uid_t uid)
{
	struct learn_window *w = NULL;

	ck_assert_int_eq(windows_open(&ws, root_id, "/", path, pid, NOW - 2 * S, 10 * S, &w), 0);
	w->uid = uid;
}

/* "sh -c CMD": an interpreter given no script names no program; nothing else is asked. */
START_TEST(test_no_script)
{
	exec_of(100, 0, "/bin/sh", "/bin/sh", NULL);
	x->err = -ENOEXEC;
	ck_assert_int_eq(admit_exec(&a, x, NOW, NULL), ADMIT_NO_SCRIPT);
	ck_assert_uint_eq(sys.program_asked, 0);
	ck_assert_uint_eq(programs_count(programs), 0);	/* no budget spent */
}
END_TEST

/* A program gone (or deleted, a path too long, a key not believed) before its exec was read. */
START_TEST(test_gone)
{
	const int errs[] = { -ESRCH, -ENOENT, -ENAMETOOLONG, -EACCES, -EPERM };

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		exec_of(100, 0, "/usr/bin/true", "/usr/bin/true", NULL);
		x->err = errs[i];
		ck_assert_int_eq(admit_exec(&a, x, NOW, NULL), ADMIT_GONE);
	}
	ck_assert_uint_eq(sys.program_asked, 0);
	ck_assert_uint_eq(programs_count(programs), 0);
	/* the same exec with its program named is learned */
	x->err = 0;
	ck_assert_int_eq(admit_exec(&a, x, NOW, NULL), ADMIT_OPEN);
}
END_TEST

/* --only: by the key or the executable, each as given or canonical; nothing else. */
START_TEST(test_only)
{
	const char *only[] = { "/usr/bin/python3", "/usr/local/bin/tool" };
	const char *real[] = { "/usr/bin/python3.12", "/opt/tool/bin/tool" };

	/* no --only: every program */
	ck_assert_int_eq(verdict(100, 0, "/usr/bin/perl", NULL), ADMIT_OPEN);
	a.only = only;
	a.only_real = real;
	a.nonly = 2;
	/* by its key (a "#!" script's: its interpreter is not one of them), or the canonical path */
	ck_assert_int_eq(verdict(101, 0, "/usr/local/bin/tool", "/bin/sh"), ADMIT_OPEN);
	ck_assert_int_eq(verdict(102, 0, "/opt/tool/bin/tool", "/bin/sh"), ADMIT_OPEN);
	/* a script run by the interpreter --only names, as given or canonical */
	ck_assert_int_eq(verdict(103, 0, "/srv/a.py", "/usr/bin/python3"), ADMIT_OPEN);
	ck_assert_int_eq(verdict(104, 0, "/srv/b.py", "/usr/bin/python3.12"), ADMIT_OPEN);
	/* others are not, and are refused before anything is asked or spent */
	sys.program_asked = 0;
	ck_assert_int_eq(verdict(105, 0, "/usr/bin/perl", NULL), ADMIT_NOT_WANTED);
	ck_assert_int_eq(verdict(106, 0, "/usr/bin/python3.11", NULL), ADMIT_NOT_WANTED);
	ck_assert_int_eq(verdict(107, 0, "/srv/c.pl", "/usr/bin/perl"), ADMIT_NOT_WANTED);
	ck_assert_int_eq(verdict(108, 0, "/usr/local/bin/tool2", NULL), ADMIT_NOT_WANTED);
	ck_assert_uint_eq(sys.program_asked, 0);
}
END_TEST

/*
 * "#!/usr/bin/env python3" runs the script twice (the kernel execs env with the script, env
 * execs python3 with it): the second exec, in the first one's window, opens no other. Another
 * program that task or its child runs is a window of its own.
 */
START_TEST(test_again)
{
	open_w(0, "/srv/app.py", 100, 0);
	ck_assert_int_eq(windows_fork(&ws, 100, 101), 0);
	ck_assert_int_eq(verdict(100, 0, "/srv/app.py", "/usr/bin/python3"), ADMIT_AGAIN);
	ck_assert_int_eq(verdict(101, 0, "/srv/app.py", "/usr/bin/python3"), ADMIT_AGAIN);
	ck_assert_uint_eq(programs_count(programs), 0);
	ck_assert_int_eq(verdict(100, 0, "/usr/bin/ls", NULL), ADMIT_OPEN);
	ck_assert_int_eq(verdict(101, 0, "/srv/other.py", "/usr/bin/python3"), ADMIT_OPEN);
	/* the same path in another root is another program */
	exec_of(100, 0, "/srv/app.py", "/srv/app.py", "/usr/bin/python3");
	x->prog.root.id = 7;
	strcpy(x->prog.root.path, "/srv/c");
	ck_assert_int_eq(admit_exec(&a, x, NOW, NULL), ADMIT_OPEN);
	/* a task in no window starting it: another run */
	ck_assert_int_eq(verdict(200, 0, "/srv/app.py", "/usr/bin/python3"), ADMIT_OPEN);
}
END_TEST

/* A program run from a user's tree is not learned by default (learn-run.c says which is). */
START_TEST(test_private)
{
	sys.user_tree = "/home/";
	ck_assert_int_eq(verdict(100, 1000, "/home/u/bin/x", NULL), ADMIT_PRIVATE);
	ck_assert_uint_eq(sys.program_asked, 1);
	ck_assert_uint_eq(programs_count(programs), 0);	/* no budget spent */
	ck_assert_int_eq(verdict(102, 1000, "/usr/bin/x", NULL), ADMIT_OPEN);
	ck_assert_uint_eq(sys.program_asked, 2);
	/* --include-user-files: learned, and nothing asked */
	a.include_user_files = true;
	ck_assert_int_eq(verdict(103, 1000, "/home/u/bin/x", NULL), ADMIT_OPEN);
	ck_assert_uint_eq(sys.program_asked, 2);
}
END_TEST

/* MAX_PER_PROGRAM runs of one program in their windows: the next waits, others do not. */
START_TEST(test_program_cap)
{
	struct learn_window taken;

	for (int i = 0; i < MAX_PER_PROGRAM; i++)
		open_w(0, "/usr/libexec/cc1", 1000 + i, 0);
	ck_assert_int_eq(verdict(2000, 0, "/usr/libexec/cc1", NULL), ADMIT_PROGRAM_BUSY);
	ck_assert_uint_eq(programs_count(programs), 0);	/* refused before its budget */
	ck_assert_int_eq(verdict(2001, 0, "/usr/bin/as", NULL), ADMIT_OPEN);
	/* the same path in another root is another program */
	exec_of(2002, 0, "/usr/libexec/cc1", "/usr/libexec/cc1", NULL);
	x->prog.root.id = 7;
	ck_assert_int_eq(admit_exec(&a, x, NOW, NULL), ADMIT_OPEN);
	/* one closed: room again */
	windows_take(&ws, &ws.w[0], &taken);
	windows_free_one(&taken);
	ck_assert_int_eq(verdict(2003, 0, "/usr/libexec/cc1", NULL), ADMIT_OPEN);
}
END_TEST

/* MAX_PER_USER windows of one user's programs: that user waits, others do not. */
START_TEST(test_user_cap)
{
	char path[64];

	for (int i = 0; i < MAX_PER_USER; i++) {
		snprintf(path, sizeof(path), "/usr/bin/p%d", i);
		open_w(0, path, 1000 + i, 1000);
	}
	ck_assert_int_eq(verdict(2000, 1000, "/usr/bin/q", NULL), ADMIT_USER_BUSY);
	ck_assert_uint_eq(programs_count(programs), 0);
	ck_assert_int_eq(verdict(2001, 1001, "/usr/bin/q", NULL), ADMIT_OPEN);
	ck_assert_int_eq(verdict(2002, 0, "/usr/bin/q", NULL), ADMIT_OPEN);
}
END_TEST

/* A key that makes no pack name (not absolute, a ".." component) is not learned. */
START_TEST(test_no_name)
{
	ck_assert_int_eq(verdict(100, 0, "usr/bin/x", NULL), ADMIT_NO_NAME);
	ck_assert_int_eq(verdict(101, 0, "/usr/../bin/x", NULL), ADMIT_NO_NAME);
	ck_assert_uint_eq(programs_count(programs), 0);
}
END_TEST

/*
 * A program whose budget is spent waits for its next run, and says how long; but a copy
 * exec'd before its pack settled, read after, is learned with the runs that settled it.
 */
START_TEST(test_learned_lately)
{
	char name[NAME_MAX + 1];
	uint64_t wait = 0;

	for (int i = 0; i < LEARN_BURST; i++)
		ck_assert_int_eq(verdict(100 + i, 0, "/usr/bin/true", NULL), ADMIT_OPEN);
	ck_assert_int_eq(admit_exec(&a, exec_of(200, 0, "/usr/bin/true", "/usr/bin/true", NULL),
				    NOW, &wait), ADMIT_LEARNED_LATELY);
	ck_assert_uint_gt(wait, 590 * S);	/* one interval: the burst was spent just now */
	ck_assert_uint_le(wait, 601 * S);

	/* make: four runs, then its pack settled at NOW - 0.5 s */
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(verdict(300 + i, 0, "/usr/bin/make", NULL), ADMIT_OPEN);
	ck_assert_int_gt(key_pack_name(0, "/usr/bin/make", name, sizeof(name)), 0);
	ck_assert(programs_settled(programs, name, NOW - S / 2));
	/* a copy exec'd at NOW - 1 s, read now: learned */
	ck_assert_int_eq(verdict(400, 0, "/usr/bin/make", NULL), ADMIT_OPEN);
	/* one exec'd after it settled: not */
	wait = 0;
	exec_of(401, 0, "/usr/bin/make", "/usr/bin/make", NULL);
	x->ts = NOW - S / 4;
	ck_assert_int_eq(admit_exec(&a, x, NOW, &wait), ADMIT_LEARNED_LATELY);
	ck_assert_uint_gt(wait, 0);
}
END_TEST

/* A user's new programs: USER_NEW_BURST, then they wait; known programs and root's do not. */
START_TEST(test_user_new)
{
	char path[64];
	uint64_t wait = 0;

	ck_assert_int_eq(verdict(100, 0, "/usr/bin/known", NULL), ADMIT_OPEN);
	for (int i = 0; i < USER_NEW_BURST; i++) {
		snprintf(path, sizeof(path), "/usr/share/u/s%d", i);
		ck_assert_int_eq(verdict(200 + i, 1000, path, "/bin/sh"), ADMIT_OPEN);
	}
	ck_assert_int_eq(admit_exec(&a, exec_of(300, 1000, "/bin/sh", "/usr/share/u/new", "/bin/sh"),
				    NOW, &wait), ADMIT_USER_NEW);
	ck_assert_uint_gt(wait, 0);
	ck_assert_uint_le(wait, USER_NEW_INTERVAL_NS + 1);
	ck_assert_int_eq(verdict(301, 1001, "/usr/share/u/new", "/bin/sh"), ADMIT_OPEN);
	ck_assert_int_eq(verdict(302, 1000, "/usr/bin/known", NULL), ADMIT_OPEN);
	ck_assert_int_eq(verdict(303, 0, "/usr/share/u/new2", "/bin/sh"), ADMIT_OPEN);
}
END_TEST

/* The program a test's quiet rule is asked about: @path run by @exe (or itself), in root 0. */
static const struct exec_program *program(const char *path, const char *exe)
{
	return &exec_of(1, 0, path, path, exe)->prog;
}

/* A file run by its key's own path is left out, whatever else; not in another root. */
START_TEST(test_quiet_key_path)
{
	ck_assert(admit_quiet_name(&a, "/usr/bin/true", program("/usr/bin/true", NULL)));
	a.include_user_files = true;
	ck_assert(admit_quiet_name(&a, "/usr/bin/true", program("/usr/bin/true", NULL)));
	ck_assert_uint_eq(sys.name_asked + sys.stat_asked, 0);
	/* a chroot's /usr/bin/true is another file under the same name */
	x->prog.root.id = 7;
	ck_assert(!admit_quiet_name(&a, "/usr/bin/true", &x->prog));
	a.include_user_files = false;
	ck_assert(!admit_quiet_name(&a, "/usr/bin/true", &x->prog));
	ck_assert_uint_eq(sys.name_asked + sys.stat_asked, 0);
}
END_TEST

/* An interpreter run as itself ("python3 -c"): its name runs whatever its arguments say. */
START_TEST(test_quiet_interpreter)
{
	ck_assert(!admit_quiet_name(&a, "/usr/bin/python3", program("/usr/bin/python3", NULL)));
	ck_assert(!admit_quiet_name(&a, "/bin/sh", program("/bin/sh", NULL)));
	ck_assert_uint_eq(sys.name_asked + sys.stat_asked, 0);
}
END_TEST

/*
 * Another name of a file run ("/bin/true" on a merged /usr): left out when it leads to the
 * key's file, through no user's directory, not in /proc or /dev.
 */
START_TEST(test_quiet_other_name)
{
	static const struct fake_file files[] = {
		{ "/usr/bin/true", 8, 100 }, { "/bin/true", 8, 100 }, { "/bin/false", 8, 101 },
		{ "/home/u/true", 8, 100 }, { NULL, 0, 0 },
	};
	const struct exec_program *p = program("/usr/bin/true", NULL);

	sys.files = files;
	sys.user_tree = "/home/";
	ck_assert(admit_quiet_name(&a, "/bin/true", p));
	ck_assert_uint_eq(sys.name_asked, 1);
	ck_assert_uint_eq(sys.stat_n, 2);		/* the key's file and the name's */
	/* another file, or none */
	ck_assert(!admit_quiet_name(&a, "/bin/false", p));
	ck_assert(!admit_quiet_name(&a, "/sbin/true", p));
	/* a user's link names what they choose later: not even looked up */
	sys.stat_asked = 0;
	ck_assert(!admit_quiet_name(&a, "/home/u/true", p));
	ck_assert_uint_eq(sys.stat_asked, 0);
	/* relative, /proc's and /dev's names: not asked about at all */
	sys.name_asked = 0;
	ck_assert(!admit_quiet_name(&a, "true", p));
	ck_assert(!admit_quiet_name(&a, "/proc/self/exe", p));
	ck_assert(!admit_quiet_name(&a, "/dev/fd/3", p));
	ck_assert_uint_eq(sys.name_asked + sys.stat_asked, 0);
	/* --include-user-files: no directory is known not to be a user's */
	a.include_user_files = true;
	ck_assert(!admit_quiet_name(&a, "/bin/true", p));
	ck_assert_uint_eq(sys.name_asked + sys.stat_asked, 0);
}
END_TEST

/*
 * A "#!" script the kernel was given by its key's path: left out when that file is not the
 * executable (a key that leads to the interpreter is the interpreter's name under another).
 */
START_TEST(test_quiet_script)
{
	static const struct fake_file files[] = {
		{ "/usr/local/bin/tool", 8, 10 }, { "/usr/bin/python3.12", 8, 20 },
		{ "/usr/bin/python", 8, 20 }, { NULL, 0, 0 },
	};
	const struct exec_program *p = program("/usr/local/bin/tool", "/usr/bin/python3.12");

	sys.files = files;
	ck_assert(admit_quiet_name(&a, "/usr/local/bin/tool", p));
	ck_assert_uint_eq(sys.name_asked, 0);		/* the key's own path */
	ck_assert_uint_eq(sys.stat_n, 3);		/* the key's, the name's, the executable's */
	/* given by another name, relative: not */
	ck_assert(!admit_quiet_name(&a, "tool", p));
	/* the executable cannot be looked up: not */
	p = program("/usr/local/bin/tool", "/usr/bin/python3.13");
	ck_assert(!admit_quiet_name(&a, "/usr/local/bin/tool", p));
	/* "python /usr/bin/python": the key is the interpreter's own file */
	p = program("/usr/bin/python", "/usr/bin/python3.12");
	ck_assert(!admit_quiet_name(&a, "/usr/bin/python", p));
	/* --include-user-files: a script never */
	a.include_user_files = true;
	p = program("/usr/local/bin/tool", "/usr/bin/python3.12");
	ck_assert(!admit_quiet_name(&a, "/usr/local/bin/tool", p));
}
END_TEST

/* admit_stat_paths(): links lead to their file, a magic link is not followed, a miss stops. */
START_TEST(test_stat_paths)
{
	char *d = unit_mkdtemp();
	char f[PATH_MAX], hard[PATH_MAX], sym[PATH_MAX], gone[PATH_MAX];
	const char *paths[4] = { f, hard, sym, NULL };
	struct stat st[4];
	FILE *fp;
	int r;

	snprintf(f, sizeof(f), "%s/f", d);
	snprintf(hard, sizeof(hard), "%s/hard", d);
	snprintf(sym, sizeof(sym), "%s/sym", d);
	snprintf(gone, sizeof(gone), "%s/gone", d);
	fp = fopen(f, "we");
	ck_assert_ptr_nonnull(fp);
	fclose(fp);
	ck_assert_int_eq(link(f, hard), 0);
	ck_assert_int_eq(symlink("f", sym), 0);
	memset(st, 0, sizeof(st));
	r = admit_stat_paths(NULL, paths, 3, st);
	if (r == -ENOSYS) {
		/* no openat2 (valgrind, old kernels): nothing is left out of the exec events */
		unit_rmtree(d);
		free(d);
		return;
	}
	ck_assert_int_eq(r, 0);
	ck_assert(st[0].st_ino == st[1].st_ino && st[0].st_ino == st[2].st_ino);
	ck_assert(st[0].st_dev == st[1].st_dev && st[0].st_dev == st[2].st_dev);
	/* a magic link (the runner's own executable) is not followed */
	paths[1] = "/proc/self/exe";
	ck_assert_int_lt(admit_stat_paths(NULL, paths, 2, st), 0);
	/* a missing path fails, and the paths after it are not looked up */
	paths[0] = gone;
	paths[1] = f;
	memset(st, 0, sizeof(st));
	ck_assert_int_eq(admit_stat_paths(NULL, paths, 2, st), -ENOENT);
	ck_assert_uint_eq(st[1].st_ino, 0);
	unit_rmtree(d);
	free(d);
}
END_TEST

static Suite *learn_admit_suite(void)
{
	Suite *s = suite_create("learn-admit");
	TCase *tc = tcase_create("rules");
	TCase *tq = tcase_create("quiet");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_no_script);
	tcase_add_test(tc, test_gone);
	tcase_add_test(tc, test_only);
	tcase_add_test(tc, test_again);
	tcase_add_test(tc, test_private);
	tcase_add_test(tc, test_program_cap);
	tcase_add_test(tc, test_user_cap);
	tcase_add_test(tc, test_no_name);
	tcase_add_test(tc, test_learned_lately);
	tcase_add_test(tc, test_user_new);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tq, setup, teardown);
	tcase_add_test(tq, test_quiet_key_path);
	tcase_add_test(tq, test_quiet_interpreter);
	tcase_add_test(tq, test_quiet_other_name);
	tcase_add_test(tq, test_quiet_script);
	tcase_add_test(tq, test_stat_paths);
	suite_add_tcase(s, tq);
	return s;
}

UNIT_SUITE(learn_admit_suite)
