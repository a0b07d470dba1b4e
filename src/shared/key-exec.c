// SPDX-License-Identifier: GPL-2.0-or-later
/* What an exec runs, as both daemons name it: the interpreter table, the script of a command line */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "key-exec.h"
#include "sys-proc.h"

/* Does @name (a basename) start with @prefix, followed by nothing, digits, dots or '-'? */
static bool named(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) != 0)
		return false;
	for (name += n; *name; name++)
		if (!((*name >= '0' && *name <= '9') || *name == '.' || *name == '-'))
			return false;
	return true;
}

/*
 * How an interpreter's command line names its script. Options are skipped up to
 * the first argument that is not one, which is the script; but an option of
 * @none means the program comes from elsewhere (the command line, a module,
 * standard input) and there is no script file, and an option of @arg takes the
 * next argument as its value (so that value is not the script). Lists end in
 * NULL; a NULL list is empty. In an argument of several options ("-Bc",
 * "-MFoo"), a letter of @rest takes the rest of the argument as its value (when
 * there is one), and one of @octal the octal digits after it.
 */
struct interp {
	const char *name;
	bool versioned;			/* "python3.11", "perl5.36": digits, dots, '-' may follow */
	const char *const *none;
	const char *const *arg;
	const char *rest;
	const char *octal;
};

#define LIST(...)	((const char *const[]){ __VA_ARGS__, NULL })

static const struct interp interps[] = {
	{ "python", true, LIST("-c", "-m"), LIST("-W", "-X", "--check-hash-based-pycs"), NULL, NULL },
	{ "pypy", true, LIST("-c", "-m"), LIST("-W", "-X"), NULL, NULL },
	/* perl's "-d" takes the rest only as "-d:MOD" or "-dt" (perlrun) */
	{ "perl", true, LIST("-e", "-E"), LIST("-I", "-x"), "CDFMVimx", "0l" },
	{ "ruby", true, LIST("-e"), LIST("-r", "-I", "-C", "-E", "--encoding"), "FKWix", "0" },
	{ "node", true, LIST("-e", "--eval", "-p", "--print"),
	  LIST("-r", "--require", "--import", "--loader", "--experimental-loader", "-C",
	       "--conditions", "--input-type", "--title"), NULL, NULL },
	{ "nodejs", true, LIST("-e", "--eval", "-p", "--print"),
	  LIST("-r", "--require", "--import", "--loader"), NULL, NULL },
	/* "-e STAT" runs STAT before a script that may follow: not that script's start */
	{ "lua", true, LIST("-e"), LIST("-l"), NULL, NULL },
	{ "luajit", true, LIST("-e"), LIST("-l", "-j", "-O", "-b"), NULL, NULL },
	{ "php", true, LIST("-r", "-a", "-S", "-B", "-R", "-F", "-E"),
	  LIST("-c", "-d", "-z", "-t", "--define"), NULL, NULL },		/* "-f FILE": the script, below */
	{ "tclsh", true, NULL, LIST("-encoding"), NULL, NULL },
	{ "wish", true, NULL, LIST("-encoding", "-display", "-geometry", "-name", "-use",
				    "-visual", "-colormap"), NULL, NULL },
	{ "Rscript", false, LIST("-e"), LIST("--default-packages"), NULL, NULL },
	/* shells: "-e" is errexit (#!/bin/sh -e), "-o OPTION" takes a value */
	{ "sh", false, LIST("-c", "-s", "-i"), LIST("-o", "+o", "--rcfile", "--init-file"), NULL, NULL },
	{ "bash", false, LIST("-c", "-s", "-i"), LIST("-o", "+o", "-O", "+O", "--rcfile",
						      "--init-file"), NULL, NULL },
	{ "dash", false, LIST("-c", "-s", "-i"), LIST("-o", "+o"), NULL, NULL },
	{ "zsh", false, LIST("-c", "-s", "-i"), LIST("-o", "+o"), NULL, NULL },
	{ "ksh", false, LIST("-c", "-s", "-i"), LIST("-o", "+o"), NULL, NULL },
	{ "mksh", false, LIST("-c", "-s", "-i"), LIST("-o", "+o", "-T"), NULL, NULL },
	{ "ash", false, LIST("-c", "-s", "-i"), LIST("-o", "+o"), NULL, NULL },
};

static bool listed(const char *const *list, const char *a)
{
	for (; list && *list; list++)
		if (strcmp(*list, a) == 0)
			return true;
	return false;
}

static const struct interp *interpreter(const char *exe)
{
	const char *base = strrchr(exe, '/');

	base = base ? base + 1 : exe;
	for (size_t i = 0; i < sizeof(interps) / sizeof(interps[0]); i++)
		if (interps[i].versioned ? named(base, interps[i].name) :
		    strcmp(base, interps[i].name) == 0)
			return &interps[i];
	return NULL;
}

bool key_exec_is_interpreter(const char *exe)
{
	return exe && interpreter(exe);
}

/*
 * An option argument not listed as it is: "--eval=CODE" (a long option and its
 * value), "-cCODE" (an option and its value in one argument), "-Bc", "-ec"
 * (options together), read the way the interpreter reads them, so that
 * "python3 -cCODE /usr/bin/x" does not name /usr/bin/x as its script (a user's
 * code learned as root's program x). Return: -1 when an option of @in->none is
 * in it (no script file), else how many of the next arguments are its values:
 * a shell takes one for each of its options that takes a value ("-euo
 * pipefail", "-ox NAME"), getopt one for the last option, when it takes a value
 * and has none attached.
 */
static int cluster(const struct interp *in, bool shell, const char *a)
{
	char o[3] = { a[0], 0, 0 };
	int next = 0;

	if (a[0] == '-' && a[1] == '-') {
		const char *eq = strchr(a, '=');
		char name[64];

		if (!eq || (size_t)(eq - a) >= sizeof(name))
			return 0;
		memcpy(name, a, (size_t)(eq - a));
		name[eq - a] = '\0';
		return listed(in->none, name) ? -1 : 0;
	}
	for (const char *c = a + 1; *c; c++) {
		o[1] = *c;
		if (listed(in->none, o) || (*c == 'f' && strcmp(in->name, "php") == 0))
			return -1;	/* php's "-fFILE": not told apart, not learned */
		if (shell) {
			next += listed(in->arg, o);
			continue;
		}
		if (listed(in->arg, o))
			return c[1] ? 0 : 1;	/* its value: the rest, or the next argument */
		if ((in->rest && strchr(in->rest, *c)) ||
		    (*c == 'd' && (c[1] == ':' || c[1] == 't') && strcmp(in->name, "perl") == 0))
			return 0;
		if (in->octal && strchr(in->octal, *c))
			while (c[1] >= '0' && c[1] <= '7')
				c++;
	}
	return next;
}

int key_exec_script_arg(const char *exe, char *const argv[], int argc)
{
	const struct interp *in = exe ? interpreter(exe) : NULL;
	bool shell = in && !in->versioned && strcmp(in->name, "Rscript") != 0;

	if (!in)
		return -1;
	for (int i = 1; i < argc && argv[i]; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)	/* the script follows */
			return i + 1 < argc && argv[i + 1] && argv[i + 1][0] ? i + 1 : -1;
		if (strcmp(a, "-") == 0)	/* standard input */
			return -1;
		if (a[0] != '-' && !(shell && a[0] == '+'))
			return a[0] ? i : -1;
		if (listed(in->none, a))
			return -1;
		if (strcmp(in->name, "php") == 0 && strcmp(a, "-f") == 0)
			return i + 1 < argc && argv[i + 1] && argv[i + 1][0] ? i + 1 : -1;
		if (listed(in->arg, a))
			i++;		/* the option's value */
		else if (a[1] && a[2]) {
			int values = cluster(in, shell, a);

			if (values < 0)
				return -1;
			i += values;
		}
	}
	return -1;
}

int key_exec_args(char *args, size_t len, char *argv[], int max)
{
	int argc = 0;

	for (size_t off = 0; off < len && argc < max;) {
		size_t n = strnlen(args + off, len - off);

		if (off + n == len)
			break;	/* not NUL-terminated: cut short */
		argv[argc++] = args + off;
		off += n + 1;
	}
	argv[argc] = NULL;
	return argc;
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int key_exec_script_of(const char *exe, const char *filename, char *const argv[], int argc,
		       bool *ret_by_kernel)
{
	int i;

	*ret_by_kernel = false;
	if (filename[0] && strcmp(base_of(filename), base_of(exe)) != 0)
		for (i = 1; i <= 2 && i < argc; i++)
			if (strcmp(argv[i], filename) == 0) {
				*ret_by_kernel = true;
				return i;
			}
	return key_exec_script_arg(exe, argv, argc);
}

/* Has @path a ".." component? */
static bool has_dotdot(const char *path)
{
	for (const char *c = path; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return true;
		c += n;
		c += strspn(c, "/");
	}
	return false;
}

int key_exec_script_key(pid_t pid, const struct key_root *root, const char *script, bool by_argv,
			const struct mount_table *mounts, char *buf, size_t size)
{
	char host[PATH_MAX], cwd[PATH_MAX] = "/";
	struct key_file interp;
	int r, len;

	if (has_dotdot(script))
		return -EPERM;
	if (by_argv) {
		r = key_file_of(pid, "exe", &interp);
		if (r < 0)
			return r;
		if (!key_interpreter_trusted(&interp))
			return -EPERM;
	}
	if (script[0] != '/') {
		r = proc_readlink(pid, "cwd", host, sizeof(host));
		if (r == 0)
			r = key_path_in_root(root, host, cwd, sizeof(cwd));
		if (r < 0)
			return r;
	}
	len = key_path_normalize(cwd, script, buf, size);
	if (len < 0)
		return len;
	r = key_trusted(pid, root, buf, NULL, mounts);
	return r < 0 ? r : len;
}
