// SPDX-License-Identifier: GPL-2.0-or-later
/* ura-replay: prefetch the pages of a pack into the page cache */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-replay.h"
#include "cli-exit-codes.h"
#include "util-log.h"
#include "cli-errors.h"
#include "replay-report.h"
#include "watch.h"
#include "replay-engine.h"
#include "sys-view.h"
#include "util.h"
#include "util-json.h"

/*
 * --daemon: fork into the background with a start-up handshake. The parent
 * waits until the child calls detach_done() and then exits with the status
 * the child gave it (0 once the child holds the pack); if the child dies
 * first, the parent exits 1. The child starts a new session, moves to "/" and
 * points stdin and stdout at /dev/null.
 * Return: in the child, the handshake descriptor (>= 0); -errno if fork or
 * pipe failed (in the caller, nothing detached). The parent does not return.
 */
static int detach(void)
{
	int p[2], fd;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid > 0) {
		unsigned char status;
		ssize_t n;

		close(p[1]);
		do
			n = read(p[0], &status, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 ? status : EXIT_FAIL);
	}
	close(p[0]);
	(void)setsid();
	if (chdir("/") < 0)
		log_debug("cannot change to '/': %s", strerror(errno));
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	return p[1];
}

/* Tell the waiting parent to exit with @status; closes @fd (-1: not detached). */
static void detach_done(int fd, int status)
{
	unsigned char b = (unsigned char)status;

	if (fd < 0)
		return;
	while (write(fd, &b, 1) < 0 && errno == EINTR)
		;
	close(fd);
}

static int open_pack(const char *path, struct ura_pack **ret)
{
	int r = replay_open_pack(path, ret);

	if (r == 0)
		return EXIT_OK;
	if (r == -EPERM)
		log_err("cannot read pack '%s': not owned by root or writable by group or others, "
			"refusing it", path);
	else
		log_err("cannot read pack '%s': %s", path, cli_pack_strerror(r));
	return cli_pack_exit_code(r);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* --check-stale: how much of the pack is on changed files, and whether it is stale. */
static void check_report(FILE *f, const char *path, const struct ura_pack *pack,
			 const struct replay_stats *s, bool stale, bool json)
{
	uint64_t changed = s->stale_files + s->missing_files + s->refused_files;
	int64_t now = now_realtime_ns();
	struct ura_pack_info info;
	double days = -1, mib = (double)(1 << 20);
	struct json j;

	ura_pack_get_info(pack, &info);
	if (info.created_ns > 0 && now > info.created_ns)
		days = (double)(now - info.created_ns) / (86400.0 * 1e9);
	if (!json) {
		char age[64] = "traced at an unknown time";

		if (days >= 0)
			snprintf(age, sizeof(age), "traced %.1f days ago", days);
		fprintf(f, "pack '%s': %" PRIu64 " of %" PRIu64 " files (%.1f%%) and %.1f of %.1f MiB "
			"(%.1f%%) changed, missing or refused; %s; %s\n", path, changed, s->files,
			pct(changed, s->files), (double)s->changed_bytes / mib,
			(double)s->file_bytes / mib, pct(s->changed_bytes, s->file_bytes), age,
			stale ? "stale: trace it again" : "up to date");
		return;
	}
	json_begin(&j, f, JSON_COMPACT);
	json_object_begin(&j, JSON_INLINE);
	json_key_string(&j, "pack", path);
	json_key_u64(&j, "files", s->files);
	json_key_u64(&j, "changed_files", changed);
	json_key_u64(&j, "stale_files", s->stale_files);
	json_key_u64(&j, "written_files", s->written_files);
	json_key_u64(&j, "missing_files", s->missing_files);
	json_key_u64(&j, "refused_files", s->refused_files);
	json_key_u64(&j, "file_bytes", s->file_bytes);
	json_key_u64(&j, "changed_bytes", s->changed_bytes);
	json_key_u64(&j, "written_bytes", s->written_bytes);
	json_key_double(&j, "changed_files_pct", pct(changed, s->files), 2);
	json_key_double(&j, "changed_bytes_pct", pct(s->changed_bytes, s->file_bytes), 2);
	if (days >= 0)
		json_key_double(&j, "age_days", days, 2);
	else
		json_key_null(&j, "age_days");
	json_key_u64(&j, "errors", s->errors);
	json_key_bool(&j, "stale", stale);
	json_object_end(&j);
	json_end(&j);
}

static int watch(const struct replay_options *o)
{
	int r = watch_run(o);

	if (r == 0)
		return EXIT_OK;
	log_err("cannot watch execs: %s", strerror(-r));
	if (r == -EPERM)
		return EXIT_NOPERM;
	return r == -ENOSYS || r == -EINVAL || r == -ENODEV ? EXIT_UNAVAILABLE : EXIT_FAIL;
}

int main(int argc, char *argv[])
{
	struct replay_options o;
	struct replay_stats st;
	struct ura_pack *pack = NULL;
	struct sys_view *view = NULL;
	int r, notify = -1, status;
	bool stale;

	/*
	 * The schedule is built in a few large buffers one after the other: keep
	 * freed ones in the heap for the next instead of unmapping them and
	 * faulting in fresh zeroed pages (a third of the time of a 100,000-range pack).
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	r = replay_parse_args(argc, argv, &o);
	if (r <= 0)
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	log_set_level(LOG_LVL_INFO + o.verbosity);
	if (o.watch_dir)
		return watch(&o);

	if (o.daemon) {
		notify = detach();
		if (notify < 0)
			log_warn("cannot detach: %s, replaying in the foreground", strerror(-notify));
	}
	status = open_pack(o.pack, &pack);
	detach_done(notify, status);
	if (status != EXIT_OK)
		return status;

	/* the system, read once: the mounts now, each device's facts as the replay asks */
	r = sys_view_read(SYS_VIEW_MOUNTS, &view);
	if (r >= 0)
		r = replay_run(pack, view, NULL, &o, &st);
	sys_view_unref(view);
	stale = r == 0 && !o.dry_run && replay_needs_retrace(pack, &st, now_realtime_ns());
	if (r == 0 && o.check_stale && (o.json || log_get_level() >= LOG_LVL_INFO))
		check_report(stdout, o.pack, pack, &st, stale, o.json);
	if (stale && o.mark_stale) {
		int k = replay_mark_stale(o.mark_stale);

		if (k < 0)
			log_warn("cannot create '%s': %s", o.mark_stale, strerror(-k));
		else
			log_info("pack '%s' is stale or old, marked for tracing again ('%s')",
				 o.pack, o.mark_stale);
	}
	ura_pack_free(pack);
	if (r < 0) {
		log_err("cannot replay '%s': %s", o.pack, strerror(-r));
		return EXIT_FAIL;
	}
	if (!o.check_stale && (o.json || log_get_level() >= LOG_LVL_INFO))
		replay_report(o.daemon ? stderr : stdout, &st, o.json);
	/* changed files are the pack's age; anything else that failed is a failure */
	for (unsigned i = 0; i < st.ncauses; i++)
		log_err("%" PRIu64 " %s of '%s' failed: %s", st.causes[i].count,
			st.causes[i].count == 1 ? "open or read" : "opens or reads", o.pack,
			strerror(st.causes[i].err));
	if (st.errors > 0 && !st.ncauses)
		log_err("%" PRIu64 " opens or reads of '%s' failed", st.errors, o.pack);
	return st.errors ? EXIT_FAIL : EXIT_OK;
}
