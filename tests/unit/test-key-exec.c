// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests: key-exec.c (the interpreter table, the script of a command line) and sys-proc.c */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "key-exec.h"
#include "sys-proc.h"
#include "unit.h"

START_TEST(test_script_arg)
{
	char *py[] = { "python3", "-O", "-u", "app.py", "x", NULL };
	char *pyc[] = { "python3", "-c", "print(1)", NULL };
	char *pym[] = { "python3.11", "-m", "http.server", NULL };
	char *sh[] = { "sh", "./build.sh", NULL };
	char *shc[] = { "bash", "-c", "ls", NULL };
	char *perl[] = { "perl5.36", "-w", "t.pl", NULL };
	char *dd[] = { "node", "--", "srv.js", NULL };
	char *ls[] = { "ls", "dir", NULL };
	char *none[] = { "python3", NULL };

	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", py, 5), 3);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", pyc, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3.11", pym, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/sh", sh, 2), 1);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", shc, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl5.36", perl, 3), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", dd, 3), 2);
	ck_assert_int_eq(key_exec_script_arg("/bin/ls", ls, 2), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", none, 1), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/pythonista", py, 5), -1);
}
END_TEST

/* Options that take a value, and options that are only flags: the script is found past them. */
START_TEST(test_script_arg_options)
{
	char *she[] = { "/bin/sh", "-e", "/usr/lib/x/run", "a", NULL };	/* #!/bin/sh -e */
	char *sho[] = { "bash", "-o", "pipefail", "+x", "s.sh", NULL };
	char *shs[] = { "dash", "-s", "a", NULL };
	char *pyw[] = { "python3", "-W", "ignore", "app.py", NULL };
	char *pye[] = { "python3", "-E", "-X", "dev", "app.py", NULL };
	char *perle[] = { "perl", "-w", "-e", "print 1", NULL };
	char *phpf[] = { "php", "-d", "x=1", "-f", "w.php", NULL };
	char *phpr[] = { "php", "-r", "echo 1;", NULL };
	char *lua[] = { "lua5.4", "-e", "x=1", "s.lua", NULL };
	char *ddash[] = { "python3", "--", NULL };
	char *stdin_[] = { "ruby", "-", "x.rb", NULL };

	ck_assert_int_eq(key_exec_script_arg("/usr/bin/dash", she, 4), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/bash", sho, 5), 4);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/dash", shs, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3.11", pyw, 4), 3);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3.11", pye, 5), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perle, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/php8.2", phpf, 5), 4);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/php8.2", phpr, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/lua5.4", lua, 4), -1);	/* runs x=1 */
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", ddash, 2), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", stdin_, 3), -1);
	ck_assert(key_exec_is_interpreter("/usr/bin/python3.11"));
	ck_assert(key_exec_is_interpreter("/usr/bin/dash"));
	ck_assert(!key_exec_is_interpreter("/usr/bin/ls"));
	ck_assert(!key_exec_is_interpreter("/lib64/ld-linux-x86-64.so.2"));
}
END_TEST

/*
 * Options and their values in one argument, and flags together: read as the
 * interpreter reads them. "python3 -cCODE /usr/bin/x" runs CODE, not x: were x
 * taken for its script, a user's code would be learned as root's program x.
 */
START_TEST(test_script_arg_clusters)
{
	char *pyc[] = { "python3", "-cimport glob", "/usr/bin/lsb_release", NULL };
	char *pybc[] = { "python3", "-Bc", "pass", "/usr/bin/x", NULL };
	char *pyw[] = { "python3", "-Wignore", "app.py", NULL };
	char *pyx[] = { "python3", "-OXdev", "app.py", NULL };
	char *pym[] = { "python3", "-mhttp.server", "/usr/bin/x", NULL };
	char *perle[] = { "perl", "-eprint 1", "/usr/bin/x", NULL };
	char *perlwe[] = { "perl", "-we", "print 1", "/usr/bin/x", NULL };
	char *perlm[] = { "perl", "-MCPAN", "s.pl", NULL };
	char *perli[] = { "perl", "-Ilib", "s.pl", NULL };
	char *shec[] = { "sh", "-ec", "true", "/usr/bin/x", NULL };
	char *sheuo[] = { "bash", "-euo", "pipefail", "s.sh", NULL };
	char *nodee[] = { "node", "--eval=1", "/usr/bin/x", NULL };
	char *noder[] = { "node", "--require=x", "app.js", NULL };
	char *rubyr[] = { "ruby", "-rjson", "app.rb", NULL };
	char *phpf[] = { "php", "-fw.php", "/usr/bin/x", NULL };
	/* options that take the rest of their argument: their values are not options; perl's
	 * -M, -m, -F and -I, ruby's -r, python's -X load or make code of a user's: no script */
	char *perllib[] = { "perl", "-Mlib=x", "evil.pl", "/usr/bin/x", NULL };
	char *perltm[] = { "perl", "-MTest::More", "t.pl", NULL };
	char *perlde[] = { "perl", "-dexit", "x", NULL };
	char *perldm[] = { "perl", "-d:Trace", "s.pl", NULL };	/* a debugger's module */
	char *perlle[] = { "perl", "-le", "print 1", "/usr/bin/x", NULL };
	char *perl0e[] = { "perl", "-0777e", "print 1", "/usr/bin/x", NULL };
	char *perlie[] = { "perl", "-ie", "s.pl", NULL };
	char *rubyf[] = { "ruby", "-Fr", "evil.rb", "/usr/bin/x", NULL };
	char *rubyw[] = { "ruby", "-W:no-deprecated", "app.rb", NULL };
	char *shox[] = { "bash", "-ox", "vi", "evil.sh", NULL };

	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", pyc, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", pybc, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", pyw, 3), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", pyx, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", pym, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perle, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlwe, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlm, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perli, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/sh", shec, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", sheuo, 4), 3);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", nodee, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", noder, 3), -1);	/* x runs first */
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", rubyr, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/php", phpf, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perllib, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perltm, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlde, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perldm, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlle, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perl0e, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlie, 3), 2);	/* -i's ".e" */
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", rubyf, 4), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", rubyw, 3), 2);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", shox, 4), 3);
}
END_TEST

/*
 * Options the table does not know may take the next argument as their value:
 * such a command line names no script, rather than a wrong one (a user's code
 * keyed as root's program). Each of these ran the user's file or code.
 */
START_TEST(test_script_arg_unknown)
{
	char *perlx[] = { "perl", "-x", "/tmp/evil.pl", "/usr/bin/x", NULL };
	char *perlwx[] = { "perl", "-wx", "/tmp/evil.pl", "/usr/bin/x", NULL };
	char *perls[] = { "perl", "-S", "x", NULL };	/* found in PATH, not in cwd */
	char *rubys[] = { "ruby", "-S", "x", NULL };
	char *bashs[] = { "bash", "+s", "/usr/sbin/sshd", NULL };
	char *bashc[] = { "bash", "+c", "true", NULL };
	char *phprun[] = { "php", "--run=echo 1;", "/usr/bin/x", NULL };
	char *phpfile[] = { "php", "--file=/tmp/e.php", "/usr/bin/x", NULL };
	char *luajito[] = { "luajit", "-O", "/tmp/e.lua", "/usr/bin/x", NULL };
	char *luajitb[] = { "luajit", "-b", "/usr/bin/x", "out", NULL };
	char *noderd[] = { "node", "--report-dir", "/usr/bin/x", "/tmp/e.js", NULL };
	char *rubyd[] = { "ruby", "--disable", "gems", "app.rb", NULL };
	char *rubyde[] = { "ruby", "--disable=gems", "app.rb", NULL };
	char *zshe[] = { "zsh", "--emulate", "/usr/bin/x", "e", NULL };
	char *pyq[] = { "python3", "-Z", "/usr/bin/x", NULL };		/* no such option */
	char *shq[] = { "sh", "-g", "/usr/bin/x", NULL };
	/* known options without a value still lead to the script */
	char *nodev8[] = { "node", "--max-old-space-size=4096", "--no-warnings", "app.js", NULL };
	char *bashl[] = { "bash", "--norc", "-x", "s.sh", NULL };
	char *rscript[] = { "Rscript", "--vanilla", "s.R", NULL };
	char *wish[] = { "wish", "-sync", "-name", "x", "s.tcl", NULL };
	char *nodeold[] = { "node", "--max-old-space-size", "4096", "app.js", NULL };
	char *bashend[] = { "bash", "-", "s.sh", NULL };
	/* code of the user's besides the script: options read again after a space (perl), a
	 * value of one character and more options (ruby), the user's input, profile, preload */
	char *perlsp[] = { "perl", "-i -eprint 1", "/usr/bin/x", NULL };
	char *perlfsp[] = { "perl", "-F, -eprint 1", "/usr/bin/x", NULL };
	char *perldte[] = { "perl", "-dte", "print 1", "/usr/bin/x", NULL };
	char *perlhex[] = { "perl", "-0x41e", "print 1", "/usr/bin/x", NULL };
	char *rubyw0e[] = { "ruby", "-W0eprint 1", "/usr/bin/x", NULL };
	char *rubyke[] = { "ruby", "-Kueprint 1", "/usr/bin/x", NULL };
	char *pyi[] = { "python3", "-i", "/usr/bin/x", NULL };
	char *bashlogin[] = { "bash", "-l", "/usr/bin/x", NULL };
	char *bashlong[] = { "bash", "--login", "/usr/bin/x", NULL };
	char *nodeblob[] = { "node", "--snapshot-blob=/tmp/e.blob", "/usr/bin/x", NULL };
	char *nodeenv[] = { "node", "--env-file", "/tmp/e.env", "/usr/bin/x", NULL };
	char *nodeins[] = { "node", "--inspect=9229", "/usr/bin/x", NULL };
	char *perlmcode[] = { "perl", "-MData::Dumper;print 1", "/usr/bin/x", NULL };
	char *perlinc[] = { "perl", "-I/home/u", "/usr/bin/x", NULL };
	char *rubyinc[] = { "ruby", "-I", "/home/u", "/usr/bin/x", NULL };
	char *bashdbg[] = { "bash", "--debugger", "/usr/bin/x", NULL };
	char *bashext[] = { "bash", "-O", "extdebug", "/usr/bin/x", NULL };
	char *nodechk[] = { "node", "--check", "/usr/bin/x", NULL };

	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlx, 4), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlwx, 4), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perls, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", rubys, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", bashs, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", bashc, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/php", phprun, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/php", phpfile, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/luajit", luajito, 4), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/luajit", luajitb, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", noderd, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", rubyd, 4), 3);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", rubyde, 3), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/zsh", zshe, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", pyq, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/sh", shq, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", nodev8, 4), 3);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", bashl, 4), 3);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/Rscript", rscript, 3), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/wish8.6", wish, 5), 4);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", nodeold, 4), 3);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", bashend, 3), 2);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlsp, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlfsp, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perldte, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlhex, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", rubyw0e, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", rubyke, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/python3", pyi, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", bashlogin, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", bashlong, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", nodeblob, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", nodeenv, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", nodeins, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlmcode, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/perl", perlinc, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/ruby", rubyinc, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", bashdbg, 3), -1);
	ck_assert_int_eq(key_exec_script_arg("/bin/bash", bashext, 4), -1);
	ck_assert_int_eq(key_exec_script_arg("/usr/bin/node", nodechk, 3), -1);
}
END_TEST

/* A script named by argv must be one its interpreter runs: not a compiled program, not another's. */
START_TEST(test_script_check)
{
	static const struct {
		const char *name, *text, *interp;
		int want;
		size_t len;	/* 0: strlen(text) */
	} cases[] = {
		{ "plain", "print(1)\n", "/usr/bin/python3", 0, 0 },
		{ "py", "#!/usr/bin/python3 -Es\nprint(1)\n", "/usr/bin/python3.11", 0, 0 },
		{ "env", "#! /usr/bin/env -S python3 -u\nprint(1)\n", "/usr/bin/python3", 0, 0 },
		{ "elf", "\177ELF\2\1\1\0\0\0\0", "/usr/bin/python3", -ENOEXEC, 11 },
		{ "jar", "PK\3\4\24\0\10\0", "/usr/bin/python3", -ENOEXEC, 8 },
		{ "empty", "", "/usr/bin/python3", -ENOEXEC, 0 },
		{ "crlf", "#!/bin/sh\r\ntrue\r\n", "/bin/dash", 0, 0 },
		{ "nodejs", "#!/usr/bin/env node\n", "/usr/bin/nodejs", 0, 0 },
		{ "pypy", "#!/usr/bin/python3\n", "/usr/bin/pypy3", 0, 0 },
		{ "envu", "#!/usr/bin/env -u X python3\n", "/usr/bin/python3", 0, 0 },
		{ "pysh", "#!/usr/bin/python3\nprint(1)\n", "/bin/sh", -ENOEXEC, 0 },
		{ "bash", "#!/bin/bash\ntrue\n", "/bin/dash", 0, 0 },	/* any shell for a shell */
		{ "perl", "#!/usr/bin/perl\n1;\n", "/usr/bin/python3", -ENOEXEC, 0 },
		{ "envvar", "#!/usr/bin/env X=1 python3\n", "/usr/bin/python3", 0, 0 },
		{ "envperl", "#!/usr/bin/env X=1 perl\n", "/usr/bin/python3", -ENOEXEC, 0 },
	};
	char *dir = unit_mkdtemp(), path[600];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f;
		int r;

		snprintf(path, sizeof(path), "%s/%s", dir, cases[i].name);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fwrite(cases[i].text, 1, cases[i].len ? cases[i].len : strlen(cases[i].text), f);
		ck_assert_int_eq(fclose(f), 0);
		r = key_exec_script_check(path, cases[i].interp, NULL);
		if (r == -EOPNOTSUPP) {	/* no RWF_NOWAIT on the filesystem of TMPDIR */
			fprintf(stderr, "test_script_check: %s: no RWF_NOWAIT reads, not checked\n", dir);
			break;
		}
		ck_assert_msg(r == cases[i].want, "%s: %d, not %d", cases[i].name, r, cases[i].want);
	}
	/* a symlink on the way: followed when root's */
	snprintf(path, sizeof(path), "%s/current", dir);
	ck_assert_int_eq(symlink("plain", path), 0);
	snprintf(path, sizeof(path), "%s/current", dir);
	ck_assert_int_eq(key_exec_script_check(path, "/usr/bin/python3", NULL),
			 geteuid() == 0 ? 0 : -EPERM);
	if (geteuid() == 0) {
		ck_assert_int_eq(lchown(path, 65534, 65534), 0);
		ck_assert_int_eq(key_exec_script_check(path, "/usr/bin/python3", NULL), -EPERM);
	}
	/* nor through a link of the kernel's (/proc/self/cwd is root's to a root process) */
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert_int_eq(key_exec_script_check("/proc/self/cwd/plain", "/usr/bin/python3", NULL),
			 -EPERM);
	ck_assert_int_eq(chdir("/"), 0);
	/* not a regular file; not there */
	ck_assert_int_eq(key_exec_script_check(dir, "/usr/bin/python3", NULL), -EPERM);
	snprintf(path, sizeof(path), "%s/none", dir);
	ck_assert_int_lt(key_exec_script_check(path, "/usr/bin/python3", NULL), 0);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

/* A command line as /proc gives it: NUL-separated; a last argument cut short is left out. */
START_TEST(test_args)
{
	char full[] = "python3\0-u\0app.py\0";
	char cut[] = "python3\0app.py\0/very/long/arg";
	char *argv[4];

	ck_assert_int_eq(key_exec_args(full, sizeof(full) - 1, argv, 3), 3);
	ck_assert_str_eq(argv[0], "python3");
	ck_assert_str_eq(argv[2], "app.py");
	ck_assert_ptr_null(argv[3]);
	ck_assert_int_eq(key_exec_args(cut, sizeof(cut) - 1, argv, 3), 2);
	ck_assert_ptr_null(argv[2]);
	ck_assert_int_eq(key_exec_args(full, sizeof(full) - 1, argv, 1), 1);	/* at most max */
	ck_assert_ptr_null(argv[1]);
	ck_assert_int_eq(key_exec_args(full, 0, argv, 3), 0);
}
END_TEST

/* A "#!" script is the kernel's (the file exec'd); an interpreter's script is its argv's. */
START_TEST(test_script_of)
{
	char *shebang[] = { "/usr/bin/python3", "/opt/t/run", "x", NULL };
	char *shebang_arg[] = { "/bin/sh", "-e", "/opt/t/run.sh", NULL };
	char *direct[] = { "python3", "-u", "app.py", NULL };
	char *prog[] = { "ls", "-l", NULL };
	char *same[] = { "python3", "python3", NULL };
	char *named[] = { "x", "-cCODE", "/usr/bin/python3", NULL };
	bool k;

	ck_assert_int_eq(key_exec_script_of("/usr/bin/python3.11", "/opt/t/run", shebang, 3, &k), 1);
	ck_assert(k);
	ck_assert_int_eq(key_exec_script_of("/usr/bin/dash", "/opt/t/run.sh", shebang_arg, 3, &k), 2);
	ck_assert(k);
	ck_assert_int_eq(key_exec_script_of("/usr/bin/python3", "/usr/bin/python3", direct, 3, &k),
			 2);
	ck_assert(!k);
	ck_assert_int_eq(key_exec_script_of("/usr/bin/python3", "", direct, 3, &k), 2);
	ck_assert(!k);
	ck_assert_int_eq(key_exec_script_of("/usr/bin/ls", "/usr/bin/ls", prog, 2, &k), -1);
	/* an exec through a symlink of another name that no argument repeats: the program */
	ck_assert_int_eq(key_exec_script_of("/usr/bin/ls", "/bin/dir", prog, 2, &k), -1);
	ck_assert(!k);
	/* the file exec'd named again as an argument of the same name is not a "#!" script */
	ck_assert_int_eq(key_exec_script_of("/usr/bin/python3", "/usr/bin/python3", same, 2, &k),
			 1);
	ck_assert(!k);
	/* an interpreter exec'd by another of its names ("x") is no "#!" script of its own */
	ck_assert_int_eq(key_exec_script_of("/usr/bin/python3.11", "/usr/bin/python3", named, 3, &k),
			 -1);
	ck_assert(!k);
}
END_TEST

/* A script's key: relative to the process's working directory, normalised, in its root. */
START_TEST(test_script_key)
{
	struct key_root own = { .id = 0, .path = "/" };
	char *dir = unit_mkdtemp(), old[PATH_MAX], want[PATH_MAX + 8], buf[PATH_MAX];
	char real[PATH_MAX];

	ck_assert_ptr_nonnull(getcwd(old, sizeof(old)));
	ck_assert_ptr_nonnull(realpath(dir, real));
	ck_assert_int_eq(chdir(dir), 0);
	snprintf(want, sizeof(want), "%s/a/b.py", real);
	ck_assert_int_eq(key_exec_script_key(getpid(), &own, "./a//./b.py", false, NULL, buf,
					     sizeof(buf)), (int)strlen(want));
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(key_exec_script_key(getpid(), &own, "/x//./z.sh", false, NULL, buf,
					     sizeof(buf)), 7);
	ck_assert_str_eq(buf, "/x/z.sh");
	/* ".." after a symlink is not what it reads: "s/../../usr/bin/rev" may be a user's file */
	ck_assert_int_eq(key_exec_script_key(getpid(), &own, "s/../../usr/bin/rev", false, NULL,
					     buf, sizeof(buf)), -EPERM);
	ck_assert_int_eq(key_exec_script_key(getpid(), &own, "/x/y/..", false, NULL, buf,
					     sizeof(buf)), -EPERM);
	ck_assert_int_eq(key_exec_script_key(getpid(), &own, "/x/..y/z.sh", false, NULL, buf,
					     sizeof(buf)), 11);
	ck_assert_int_eq(key_exec_script_key(getpid(), &own, "/x/z.sh", false, NULL, buf, 4),
			 -ENAMETOOLONG);
	/* a process's links name what it chose (/proc/PID/cwd of an undumpable one is root's) */
	ck_assert_int_eq(key_exec_script_key(getpid(), &own, "/proc/self/cwd/x.py", false, NULL,
					     buf, sizeof(buf)), -EPERM);
	ck_assert_int_eq(chdir(old), 0);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

/* A process's entries in /proc; a process that is gone is -ESRCH. */
START_TEST(test_proc)
{
	char buf[PATH_MAX];
	uid_t uid = (uid_t)-1;
	pid_t child;
	long n;

	n = proc_read(getpid(), "cmdline", buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(buf[n], '\0');
	ck_assert_int_eq(proc_read(getpid(), "cmdline", buf, 2), 1);	/* cut, terminated */
	ck_assert_int_eq(buf[1], '\0');
	ck_assert_int_eq(proc_uid(getpid(), &uid), 0);
	ck_assert_int_eq(uid, getuid());
	ck_assert_int_eq(proc_parent(getpid()), getppid());
	ck_assert_int_eq(proc_readlink(getpid(), "cwd", buf, sizeof(buf)), 0);
	ck_assert_int_eq(buf[0], '/');
	ck_assert_int_eq(proc_readlink(getpid(), "cwd", buf, 1), -ENAMETOOLONG);
	ck_assert_int_gt(proc_sys_int("kernel/pid_max"), 0);
	ck_assert_int_eq(proc_sys_int("kernel/no-such-sysctl"), -1);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	ck_assert_int_eq(proc_readlink(child, "exe", buf, sizeof(buf)), -ESRCH);
	ck_assert_int_eq(proc_read(child, "cmdline", buf, sizeof(buf)), -ESRCH);
	ck_assert_int_eq(proc_uid(child, &uid), -ESRCH);
	ck_assert_int_eq(proc_parent(child), -1);
}
END_TEST

static Suite *key_exec_suite(void)
{
	Suite *s = suite_create("key-exec");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_script_arg);
	tcase_add_test(tc, test_script_arg_options);
	tcase_add_test(tc, test_script_arg_clusters);
	tcase_add_test(tc, test_script_arg_unknown);
	tcase_add_test(tc, test_script_check);
	tcase_add_test(tc, test_args);
	tcase_add_test(tc, test_script_of);
	tcase_add_test(tc, test_script_key);
	tcase_add_test(tc, test_proc);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(key_exec_suite)
