// SPDX-License-Identifier: GPL-2.0-or-later
/* What an exec runs, as both daemons name it: the interpreter table, the script of a command line */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

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
 * How an interpreter's command line names its script: options are skipped up to
 * the first argument that is not one, which is the script. The reading fails
 * closed: an option the table does not know may take the next argument as its
 * value (node's "--report-dir DIR"), so a command line with one names no script
 * (not learned, not replayed as a script), rather than a wrong one: a user's
 * code keyed as root's program. Per interpreter:
 * @flags: letters of options that take no value ("-O", "-Bu");
 * @longs: whole arguments that are options with no value ("--norc", "-sync");
 * @none: the program comes from elsewhere (the command line, a module, standard
 *	input, a search of PATH) and there is no script file;
 * @arg: options that take the next argument as their value, or one attached
 *	("-Wignore", "--encoding=x");
 * @rest: letters that take the rest of their argument as their value, if any
 *	("-MFoo", "-x", "-xdir");
 * @octal: letters followed by octal digits ("-0777", "-l");
 * @any_eq: any "--name=value" is an option and its value (node's V8 flags).
 * Lists end in NULL; a NULL list is empty. Shells also take "+x" for "-x".
 */
struct interp {
	const char *name;
	const char *flags;
	const char *const *longs;
	const char *const *none;
	const char *const *arg;
	const char *rest;
	const char *octal;
	bool versioned;			/* "python3.11", "perl5.36": digits, dots, '-' may follow */
	bool any_eq;
};

#define LIST(...)	((const char *const[]){ __VA_ARGS__, NULL })

#define PYTHON_LONGS	LIST("--help", "--version", "--help-env", "--help-xoptions", "--help-all")
#define NODE_LONGS	LIST("--no-warnings", "--no-deprecation", "--throw-deprecation", \
			     "--trace-deprecation", "--pending-deprecation", "--trace-warnings", \
			     "--expose-gc", "--enable-source-maps", "--preserve-symlinks", \
			     "--preserve-symlinks-main", "--abort-on-uncaught-exception", \
			     "--inspect", "--inspect-brk", "--experimental-modules", \
			     "--experimental-vm-modules", "--no-experimental-fetch", \
			     "--trace-uncaught", "--check", "--interactive", "--version", \
			     "--help")
#define NODE_NONE	LIST("-e", "--eval", "-p", "--print", "--test", "--run")
#define NODE_ARG	LIST("-r", "--require", "--import", "--loader", "--experimental-loader", \
			     "-C", "--conditions", "--input-type", "--title")
/* the letters of set(1) and the shells' own: "-e" is errexit (#!/bin/sh -e), "-l" a login */
#define SHELL_FLAGS	"abefhklmnprtuvxBCEHPT"
#define SHELL_NONE	LIST("-c", "-s", "-i")

static const struct interp interps[] = {
	{ "python", "bBdEhiIOPqsSuvVx?", PYTHON_LONGS, LIST("-c", "-m"),
	  LIST("-W", "-X", "--check-hash-based-pycs"), NULL, NULL, true, false },
	{ "pypy", "bBdEhiOsSuvVx", PYTHON_LONGS, LIST("-c", "-m"), LIST("-W", "-X"), NULL, NULL,
	  true, false },
	/*
	 * perl's "-d" takes the rest only as "-d:MOD" or "-dt" (perlrun); "-x" a
	 * directory only when attached; "-S" searches PATH for the script.
	 */
	{ "perl", "acdfhnpstTuUvwWX", NULL, LIST("-e", "-E", "-S"), LIST("-I"), "CDFMVimx", "0l",
	  true, false },
	{ "ruby", "acdhlnpsUvwy", LIST("--verbose", "--version", "--copyright", "--help",
				       "--yydebug", "--disable-gems"),
	  LIST("-e", "-S"), LIST("-r", "-I", "-C", "-E", "--encoding", "--external-encoding",
				 "--internal-encoding", "--disable", "--enable", "--dump"), "FKWix", "0",
	  true, false },
	{ "node", "cihv", NODE_LONGS, NODE_NONE, NODE_ARG, NULL, NULL, true, true },
	{ "nodejs", "cihv", NODE_LONGS, NODE_NONE, NODE_ARG, NULL, NULL, true, true },
	/* "-e STAT" runs STAT before a script that may follow: not that script's start */
	{ "lua", "ivEW", NULL, LIST("-e"), LIST("-l"), NULL, NULL, true, false },
	/* luajit's "-O" takes a level only attached; "-b" saves or lists bytecode */
	{ "luajit", "ivE", NULL, LIST("-e", "-b"), LIST("-l", "-j"), "O", NULL, true, false },
	/* "-f FILE" is the script (below); "-s", "-l", "-w" show or check a file, run nothing */
	{ "php", "qnHe", LIST("--no-php-ini", "--no-header"),
	  LIST("-r", "-a", "-S", "-B", "-R", "-F", "-E", "-s", "-l", "-w", "-i", "-m", "-v", "-h"),
	  LIST("-c", "-d", "-z", "-t", "--php-ini", "--define", "--zend-extension"), NULL, NULL,
	  true, false },
	{ "tclsh", NULL, NULL, NULL, LIST("-encoding"), NULL, NULL, true, false },
	{ "wish", NULL, LIST("-sync"), NULL, LIST("-encoding", "-display", "-geometry", "-name",
						  "-use", "-visual", "-colormap"), NULL, NULL,
	  true, false },
	{ "Rscript", NULL, LIST("--verbose", "--vanilla", "--no-environ", "--no-site-file",
				"--no-init-file", "--no-restore", "--restore", "--no-save",
				"--save", "--no-echo", "--quiet", "--silent"),
	  LIST("-e"), LIST("--default-packages"), NULL, NULL, false, false },
	{ "sh", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o"), NULL, NULL, false, false },
	{ "bash", SHELL_FLAGS, LIST("--norc", "--noprofile", "--posix", "--login",
				    "--noediting", "--restricted", "--verbose", "--debugger"),
	  SHELL_NONE, LIST("-o", "+o", "-O", "+O", "--rcfile", "--init-file"), NULL, NULL, false,
	  false },
	{ "dash", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o"), NULL, NULL, false, false },
	/* zsh: a letter for most of its options ("-f": no rc files) */
	{ "zsh", "abdefghklmnprtuvwxyABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", NULL, SHELL_NONE,
	  LIST("-o", "+o"), NULL, NULL, false, false },
	{ "ksh", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o"), NULL, NULL, false, false },
	{ "mksh", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o", "-T"), NULL, NULL, false, false },
	{ "ash", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o"), NULL, NULL, false, false },
};

static bool listed(const char *const *list, const char *a)
{
	for (; list && *list; list++)
		if (strcmp(*list, a) == 0)
			return true;
	return false;
}

static bool letter_of(const char *letters, char c)
{
	return letters && c && strchr(letters, c);
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
 * An option argument not listed whole: "--eval=CODE" (a long option and its
 * value), "-cCODE" (an option and its value in one argument), "-Bc", "-ec"
 * (options together), read the way the interpreter reads them, so that
 * "python3 -cCODE /usr/bin/x" does not name /usr/bin/x as its script. Return:
 * -1 when an option of @in->none is in it (no script file) or one the table
 * does not know (it may take the next argument), else how many of the next
 * arguments are its values: a shell takes one for each of its options that
 * takes a value ("-euo pipefail", "-ox NAME"), getopt one for the last option,
 * when it takes a value and has none attached.
 */
static int cluster(const struct interp *in, bool shell, const char *a)
{
	char o[3] = { '-', 0, 0 };
	int next = 0;

	if (a[0] == '-' && a[1] == '-') {
		const char *eq = strchr(a, '=');
		char name[64];

		if (!eq || (size_t)(eq - a) >= sizeof(name))
			return -1;
		memcpy(name, a, (size_t)(eq - a));
		name[eq - a] = '\0';
		return listed(in->none, name) ? -1 :
		       in->any_eq || listed(in->arg, name) ? 0 : -1;
	}
	if (!a[1])
		return -1;
	for (const char *c = a + 1; *c; c++) {
		o[0] = shell ? '-' : a[0];	/* a shell's "+c" is its "-c" */
		o[1] = *c;
		if (listed(in->none, o) || (*c == 'f' && strcmp(in->name, "php") == 0))
			return -1;	/* php's "-fFILE": not told apart, not learned */
		if (shell) {
			o[0] = a[0];
			if (listed(in->arg, o))
				next++;
			else if (!letter_of(in->flags, *c))
				return -1;
			continue;
		}
		if (listed(in->arg, o))
			return c[1] ? 0 : 1;	/* its value: the rest, or the next argument */
		if (letter_of(in->rest, *c) ||
		    (*c == 'd' && (c[1] == ':' || c[1] == 't') && strcmp(in->name, "perl") == 0))
			return 0;
		if (letter_of(in->octal, *c)) {
			while (c[1] >= '0' && c[1] <= '7')
				c++;
			continue;
		}
		if (!letter_of(in->flags, *c))
			return -1;
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
		int values;

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
		if (listed(in->arg, a)) {
			i++;		/* the option's value */
			continue;
		}
		if (listed(in->longs, a))
			continue;
		values = cluster(in, shell, a);
		if (values < 0)
			return -1;
		i += values;
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

/* Does a "#!" line (past the "#!") name an interpreter of @in's kind: its path's basename, or env's operand? */
static bool shebang_names(const char *line, const struct interp *in)
{
	const struct interp *named_in;
	char word[PATH_MAX];
	bool first = true, env = false;

	for (const char *c = line;; first = false) {
		size_t len;

		c += strspn(c, " \t");
		len = strcspn(c, " \t");
		if (!len || len >= sizeof(word))
			return false;
		memcpy(word, c, len);
		word[len] = '\0';
		c += len;
		if (first && strcmp(base_of(word), "env") == 0)
			env = true;
		else if (!(env && word[0] == '-'))	/* env's own options ("-S") */
			break;
	}
	named_in = interpreter(word);
	if (!named_in)
		return false;
	if (named_in == in)
		return true;
	/* any shell runs a shell's script */
	return !in->versioned && !named_in->versioned && strcmp(in->name, "Rscript") != 0 &&
	       strcmp(named_in->name, "Rscript") != 0;
}

int key_exec_script_check(const char *key, const char *exe, const struct mount_table *mounts)
{
	const struct interp *in = interpreter(exe);
	char head[512];
	struct iovec iov = { head, sizeof(head) - 1 };
	ssize_t n;
	int fd;

	if (!in)
		return -ENOEXEC;
	fd = key_open_own(key, mounts);
	if (fd < 0)
		return fd;
	n = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	head[n] = '\0';
	if (n >= 4 && memcmp(head, "\177ELF", 4) == 0)
		return -ENOEXEC;
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		head[strcspn(head, "\n")] = '\0';
		if (!shebang_names(head + 2, in))
			return -ENOEXEC;
	}
	return 0;
}
