// SPDX-License-Identifier: GPL-2.0-or-later
/* What an exec runs, as both daemons name it: the interpreter table, the script of a command line */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
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
 * @one: letters that take the one character after them, options following
 *	("-W0", "-Ku"), or the rest after a ':' ("-W:no-deprecated");
 * @family: interpreters that run each other's scripts ("#!" lines,
 *	key_exec_script_check()).
 * Options that hand the run to a user's code besides the script (python's
 * "-i", node's "--require", a debugger, a login shell's profile) count as
 * @none: the run is not the script's. Perl reads an argument of options up
 * to a space and then reads options again ("-i -eCODE"): an argument of
 * several options with a space in it names no script.
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
	const char *one;
	const char *family;
	bool versioned;			/* "python3.11", "perl5.36": digits, dots, '-' may follow */
};

#define LIST(...)	((const char *const[]){ __VA_ARGS__, NULL })

#define PYTHON_LONGS	LIST("--help", "--version", "--help-env", "--help-xoptions", "--help-all")
#define NODE_LONGS	LIST("--no-warnings", "--no-deprecation", "--throw-deprecation", \
			     "--trace-deprecation", "--pending-deprecation", "--trace-warnings", \
			     "--expose-gc", "--enable-source-maps", "--preserve-symlinks", \
			     "--preserve-symlinks-main", "--abort-on-uncaught-exception", \
			     "--experimental-modules", "--experimental-vm-modules", \
			     "--no-experimental-fetch", "--trace-uncaught", "--harmony", "--version", \
			     "--help")
/* code besides the script: preloaded, a snapshot's, an environment file's, a debugger's */
#define NODE_NONE	LIST("-e", "--eval", "-p", "--print", "--test", "--run", "-i", "-c", "--check", \
			     "--interactive", "-r", "--require", "--import", "--loader", \
			     "--experimental-loader", "--snapshot-blob", "--env-file", \
			     "--env-file-if-exists", "--inspect", "--inspect-brk", "--inspect-wait", \
			     "--experimental-policy", "--openssl-config", "--watch", "--watch-path")
#define NODE_ARG	LIST("-C", "--conditions", "--input-type", "--title", "--max-old-space-size", \
			     "--max-semi-space-size", "--stack-size", "--stack-trace-limit", \
			     "--unhandled-rejections", "--dns-result-order", "--max-http-header-size")
/* the letters of set(1) and the shells' own: "-e" is errexit (#!/bin/sh -e); a login ("-l")
 * runs the user's profile first */
#define SHELL_FLAGS	"abefhkmnprtuvxBCEHPT"
#define SHELL_NONE	LIST("-c", "-s", "-i", "-l")

static const struct interp interps[] = {
	/*
	 * "-i": the user's input runs after the script, in its process; "-X
	 * pycache_prefix=DIR" compiled modules of the user's; "-V" runs nothing
	 */
	{ "python", "bBdEhIOPqRsStuvx?", PYTHON_LONGS, LIST("-c", "-m", "-i", "-X", "-V"),
	  LIST("-W", "--check-hash-based-pycs"), NULL, NULL, NULL, "python", true },
	{ "pypy", "bBdEhOsStuvx", PYTHON_LONGS, LIST("-c", "-m", "-i", "-X", "-V"), LIST("-W"), NULL,
	  NULL, NULL, "python", true },
	/*
	 * perl's "-d" starts the debugger, which takes the user's commands; "-M",
	 * "-m" and "-F" make their text code, "-I" a user's modules; "-x" takes a
	 * directory only when attached; "-S" searches PATH for the script; "-V"
	 * runs nothing; "-0x" hex digits
	 */
	{ "perl", "acfhnpstTuUvwWX", NULL, LIST("-e", "-E", "-S", "-d", "-M", "-m", "-F", "-I", "-V"),
	  NULL, "CDix", "0l", NULL, "perl", true },
	/*
	 * ruby's "-W" and "-K" take one character, and options may follow it; "-r"
	 * and "-I" load a user's code
	 */
	{ "ruby", "acdhlnpsUvwy", LIST("--verbose", "--version", "--copyright", "--help",
				       "--yydebug", "--disable-gems", "--jit", "--yjit"),
	  LIST("-e", "-S", "-r", "-I"), LIST("-C", "-E", "--encoding", "--external-encoding",
				 "--internal-encoding", "--disable", "--enable", "--dump"), "Fix", "0",
	  "KW", "ruby", true },
	{ "node", "hv", NODE_LONGS, NODE_NONE, NODE_ARG, NULL, NULL, NULL, "node", true },
	{ "nodejs", "hv", NODE_LONGS, NODE_NONE, NODE_ARG, NULL, NULL, NULL, "node", true },
	/* "-e STAT" runs STAT before a script that may follow: not that script's start */
	{ "lua", "vEW", NULL, LIST("-e", "-i"), LIST("-l"), NULL, NULL, NULL, "lua", true },
	/* luajit's "-O" takes a level only attached; "-b" saves or lists bytecode */
	{ "luajit", "vE", NULL, LIST("-e", "-b", "-i"), LIST("-l", "-j"), "O", NULL, NULL, "lua",
	  true },
	/* "-f FILE" is the script (below); "-s", "-l", "-w" show or check a file, run nothing */
	{ "php", "qnHe", LIST("--no-php-ini", "--no-header"),
	  LIST("-r", "-a", "-S", "-B", "-R", "-F", "-E", "-s", "-l", "-w", "-i", "-m", "-v", "-h"),
	  LIST("-c", "-d", "-z", "-t", "--php-ini", "--define", "--zend-extension"), NULL, NULL,
	  NULL, "php", true },
	{ "tclsh", NULL, NULL, NULL, LIST("-encoding"), NULL, NULL, NULL, "tcl", true },
	{ "wish", NULL, LIST("-sync"), NULL, LIST("-encoding", "-display", "-geometry", "-name",
						  "-use", "-visual", "-colormap"), NULL, NULL,
	  NULL, "tcl", true },
	{ "Rscript", NULL, LIST("--verbose", "--vanilla", "--no-environ", "--no-site-file",
				"--no-init-file", "--no-restore", "--restore", "--no-save",
				"--save", "--no-echo", "--quiet", "--silent"),
	  LIST("-e"), LIST("--default-packages"), NULL, NULL, NULL, "R", false },
	{ "sh", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o"), NULL, NULL, NULL, "sh", false },
	/* bash's "--debugger" and "-O extdebug" run a debugger's profile first */
	{ "bash", SHELL_FLAGS, LIST("--norc", "--noprofile", "--posix", "--noediting",
				    "--restricted", "--verbose"),
	  LIST("-c", "-s", "-i", "-l", "--login", "--debugger", "-O", "+O"),
	  LIST("-o", "+o", "--rcfile", "--init-file"), NULL, NULL, NULL, "sh", false },
	{ "dash", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o"), NULL, NULL, NULL, "sh", false },
	/* zsh: a letter for most of its options ("-f": no rc files); "-l" a login */
	{ "zsh", "abdefghkmnprtuvwxyABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	  LIST("--no-rcs", "--no-globalrcs"), SHELL_NONE, LIST("-o", "+o"), NULL, NULL, NULL, "sh",
	  false },
	{ "ksh", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o"), NULL, NULL, NULL, "sh", false },
	{ "mksh", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o", "-T"), NULL, NULL, NULL, "sh",
	  false },
	{ "ash", SHELL_FLAGS, NULL, SHELL_NONE, LIST("-o", "+o"), NULL, NULL, NULL, "sh", false },
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
		return listed(in->none, name) ? -1 : listed(in->arg, name) ? 0 : -1;
	}
	if (!a[1] || (!shell && strpbrk(a, " \t\n")))
		return -1;	/* perl reads options again after a space ("-i -eCODE") */
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
		if (letter_of(in->rest, *c))
			return 0;
		if (letter_of(in->octal, *c)) {
			if (c[1] == 'x' || c[1] == 'X')
				return -1;	/* perl's "-0xHH": not read */
			while (c[1] >= '0' && c[1] <= '7')
				c++;
			continue;
		}
		if (letter_of(in->one, *c)) {
			if (c[1] == ':')
				return 0;
			if (c[1])
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
		if (strcmp(a, "-") == 0)	/* standard input; a shell's end of options */
			return shell && i + 1 < argc && argv[i + 1] && argv[i + 1][0] ? i + 1 : -1;
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
	/* a file exec'd by an interpreter's name is no "#!" script ("x -cCODE /usr/bin/python3") */
	if (filename[0] && strcmp(base_of(filename), base_of(exe)) != 0 && !interpreter(filename))
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
	/* a process's links (/proc/PID/fd/N, /proc/PID/cwd/x) name what that process chose */
	if (strncmp(buf, "/proc/", 6) == 0 || strncmp(buf, "/sys/", 5) == 0 ||
	    strncmp(buf, "/dev/", 5) == 0)
		return -EPERM;
	r = key_trusted(pid, root, buf, NULL, mounts);
	return r < 0 ? r : len;
}

/*
 * Does a "#!" line (past the "#!") name an interpreter of @in's family: its
 * path's basename, or env's operand past its options and assignments?
 */
static bool shebang_names(const char *line, const struct interp *in)
{
	const struct interp *named_in;
	char word[PATH_MAX];
	bool first = true, env = false, skip = false;

	for (const char *c = line;; first = false) {
		size_t len;

		c += strspn(c, " \t\r");
		len = strcspn(c, " \t\r");
		if (!len || len >= sizeof(word))
			return false;
		memcpy(word, c, len);
		word[len] = '\0';
		c += len;
		if (first && strcmp(base_of(word), "env") == 0)
			env = true;
		else if (env && skip)
			skip = false;	/* the value of env's "-u NAME" */
		else if (env && word[0] == '-')
			skip = strcmp(word, "-u") == 0 || strcmp(word, "--unset") == 0;
		else if (!(env && strchr(word, '=')))	/* env's VAR=VALUE */
			break;
	}
	named_in = interpreter(word);
	return named_in && strcmp(named_in->family, in->family) == 0;
}

/*
 * What pread() gives of @fd's first page, when that page is in the page cache:
 * where RWF_NOWAIT is not supported (tmpfs before Linux 6.6), mincore(2) of a
 * mapping tells. Return: the bytes read, -EAGAIN (not cached), or -errno.
 */
static ssize_t read_cached(int fd, char *buf, size_t len)
{
	struct iovec iov = { buf, len };
	unsigned char vec = 0;
	ssize_t n = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
	void *map;

	if (n >= 0 || errno != EOPNOTSUPP)
		return n < 0 ? -errno : n;
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	n = mincore(map, 4096, &vec) < 0 ? -errno : (vec & 1) ? 0 : -EAGAIN;
	munmap(map, 4096);
	if (n < 0)
		return n;
	n = pread(fd, buf, len < 4096 ? len : 4096, 0);
	return n < 0 ? -errno : n;
}

int key_exec_script_check(const char *key, const char *exe, const struct mount_table *mounts)
{
	const struct interp *in = interpreter(exe);
	char head[512];
	ssize_t n;
	int fd;

	if (!in)
		return -ENOEXEC;
	fd = key_open_own(key, mounts);
	if (fd < 0)
		return fd;
	n = read_cached(fd, head, sizeof(head) - 1);
	close(fd);
	if (n < 0)
		return (int)n;
	/* empty, or a program of some binary format (ELF, a jar, PE): not its script */
	if (n == 0 || memchr(head, '\0', (size_t)n))
		return -ENOEXEC;
	head[n] = '\0';
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		head[strcspn(head, "\n")] = '\0';
		if (!shebang_names(head + 2, in))
			return -ENOEXEC;
	}
	return 0;
}
