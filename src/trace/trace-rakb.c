// SPDX-License-Identifier: GPL-2.0-or-later
/* read_ahead_kb forced during a trace: crash-safe state files, restore, the value a trace ran with */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dev-block.h"
#include "dev-model.h"
#include "util-log.h"
#include "sys-mountinfo.h"
#include "trace-rakb.h"
#include "trace-root.h"
#include "util.h"

const struct rakb_env rakb_system = {
	.state_dir = "/run/ura",
	.get_kb = dev_block_get_read_ahead_kb,
	.set_kb = dev_block_set_read_ahead_kb,
	.get_seq = dev_block_diskseq,
};

/* The disk of @major:@minor now (its diskseq), 0 if not known. */
static uint64_t seq_of(const struct rakb_env *env, unsigned major, unsigned minor)
{
	uint64_t seq = 0;

	if (!env->get_seq || env->get_seq(major, minor, &seq) < 0)
		return 0;
	return seq;
}

/* Is @d's device still the disk it was saved from (or cannot it be told)? */
static bool same_disk(const struct rakb_env *env, const struct rakb_saved *d)
{
	uint64_t now = seq_of(env, d->major, d->minor);

	if (d->seq && now && now != d->seq) {
		log_debug("read_ahead_kb of %u:%u not put back: another disk since (diskseq %llu, "
			  "was %llu)", d->major, d->minor, (unsigned long long)now,
			  (unsigned long long)d->seq);
		return false;
	}
	return true;
}

static int write_state(const struct rakb_state *st)
{
	char tmp[PATH_MAX + 8];
	FILE *f;

	if (mkdir(st->env->state_dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp", st->path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	for (size_t i = 0; i < st->n; i++)
		fprintf(f, st->devs[i].seq ? "%u:%u %u %llu\n" : "%u:%u %u\n", st->devs[i].major,
			st->devs[i].minor, st->devs[i].old_kb, (unsigned long long)st->devs[i].seq);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0) {
		int r = -errno;

		fclose(f);
		unlink(tmp);
		return r;
	}
	fclose(f);
	if (rename(tmp, st->path) < 0) {
		int r = -errno;

		unlink(tmp);
		return r;
	}
	return 0;
}

/*
 * Several ura-trace runs may force read_ahead_kb at once. Each state file holds
 * the values from before any of them: a run that starts while another one has a
 * device forced takes that one's value to restore, and a run that ends while
 * another one still has the device forced leaves it to the last one.
 */

static int read_state_file(const char *path, struct rakb_saved **devs, size_t *n)
{
	unsigned major, minor, kb;
	unsigned long long seq;
	char line[128];
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* "MAJ:MIN KB SEQ"; files of older versions have no SEQ */
	while (fgets(line, sizeof(line), f)) {
		struct rakb_saved *m;
		int k = sscanf(line, "%u:%u %u %llu", &major, &minor, &kb, &seq);

		if (k < 3)
			break;
		m = realloc(*devs, (*n + 1) * sizeof(**devs));
		if (!m) {
			fclose(f);
			return -ENOMEM;
		}
		*devs = m;
		(*devs)[(*n)++] = (struct rakb_saved){ .major = major, .minor = minor, .old_kb = kb,
						       .seq = k == 4 ? seq : 0 };
	}
	fclose(f);
	return 0;
}

/* The state files of running (@live) or dead (!@live) runs other than ours. */
static int other_states(const struct rakb_env *env, bool live, struct rakb_saved **devs, size_t *n, char ***paths, size_t *npaths)
{
	struct dirent *de;
	int r = 0;
	DIR *d;

	d = opendir(env->state_dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		int pid, len = 0;

		if (sscanf(de->d_name, "trace-%d.state%n", &pid, &len) != 1 ||
		    de->d_name[len] != '\0' || pid == getpid() || pid_is_ura_trace(pid) != live)
			continue;
		snprintf(path, sizeof(path), "%s/%s", env->state_dir, de->d_name);
		if (devs)
			read_state_file(path, devs, n);
		if (paths) {
			char **m = realloc(*paths, (*npaths + 1) * sizeof(**paths));

			if (!m || !(m[*npaths] = strdup(path))) {
				if (m)
					*paths = m;
				r = -ENOMEM;
				break;
			}
			*paths = m;
			(*npaths)++;
		}
	}
	closedir(d);
	return r;
}

static const struct rakb_saved *find_saved(const struct rakb_saved *devs, size_t n, unsigned major,
				      unsigned minor)
{
	for (size_t i = 0; i < n; i++)
		if (devs[i].major == major && devs[i].minor == minor)
			return &devs[i];
	return NULL;
}

int rakb_restore_dead(const struct rakb_env *env)
{
	struct rakb_saved *live = NULL;
	size_t nlive = 0, npaths = 0;
	char **paths = NULL;
	int count = 0, r;

	r = other_states(env, true, &live, &nlive, NULL, NULL);
	if (r == 0)
		r = other_states(env, false, NULL, NULL, &paths, &npaths);
	for (size_t i = 0; r == 0 && i < npaths; i++) {
		struct rakb_saved *dead = NULL;
		size_t ndead = 0;

		if (read_state_file(paths[i], &dead, &ndead) < 0) {
			free(dead);
			continue;
		}
		for (size_t k = 0; k < ndead; k++) {
			int e;

			/* a run still going has it forced, and will put it back */
			if (find_saved(live, nlive, dead[k].major, dead[k].minor) ||
			    !same_disk(env, &dead[k]))
				continue;
			e = env->set_kb(dead[k].major, dead[k].minor, dead[k].old_kb);
			if (e < 0)
				log_warn("cannot restore read_ahead_kb of %u:%u to %u: %s, skipping",
					 dead[k].major, dead[k].minor, dead[k].old_kb, strerror(-e));
			else
				count++;
		}
		free(dead);
		unlink(paths[i]);
	}
	if (count)
		log_info("restored read_ahead_kb of %d device(s) changed by a killed ura-trace", count);
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(live);
	return r < 0 ? r : count;
}

/* rakb_for_model() never picks more: a trace is not a place to try huge windows */
#define RAKB_MAX_PICK	16384u

static unsigned pick_fixed(unsigned major, unsigned minor, unsigned now_kb, void *arg)
{
	(void)major;
	(void)minor;
	(void)now_kb;
	return *(const unsigned *)arg;
}

int rakb_force(struct rakb_state *st, const struct rakb_env *env, unsigned kb,
	       const struct mount_table *mt, const char *root)
{
	int r = rakb_force_each(st, env, pick_fixed, &kb, mt, root);

	st->kb = kb;
	return r;
}

unsigned rakb_for_model(const struct devmodel *m, unsigned own_kb)
{
	uint64_t balance = dev_model_balance_bytes(m) / 1024;
	unsigned kb = 4;

	while ((uint64_t)kb * 2 <= balance && kb * 2 <= RAKB_MAX_PICK)
		kb *= 2;
	if (own_kb && kb > own_kb)
		kb = own_kb < 4 ? 4 : own_kb;
	return kb;
}

int rakb_traced_devices(const struct mount_table *mt, const char *root, struct rakb_dev **ret,
			size_t *ret_n)
{
	const struct mount_entry *base = NULL;
	struct rakb_dev *devs = NULL;
	size_t n = 0;

	/* the mount the root directory itself is on: the deepest one above it */
	for (size_t i = 0; root && i < mt->count; i++)
		if (root_path_within(root, mt->entries[i].mount_point) &&
		    (!base || strlen(mt->entries[i].mount_point) >= strlen(base->mount_point)))
			base = &mt->entries[i];
	for (size_t i = 0; i < mt->count; i++) {
		const struct mount_entry *e = &mt->entries[i];
		struct rakb_dev *m;
		bool seen = false;

		if (e->major == 0 || mountinfo_is_pseudo_fs(e->fstype))
			continue;
		/* with --root, only the filesystems the root's files live on */
		if (root && !root_path_within(e->mount_point, root) && e != base)
			continue;
		for (size_t k = 0; k < n; k++)
			if (devs[k].major == e->major && devs[k].minor == e->minor)
				seen = true;
		if (seen)
			continue;
		m = realloc(devs, (n + 1) * sizeof(*m));
		if (!m) {
			free(devs);
			return -ENOMEM;
		}
		devs = m;
		devs[n++] = (struct rakb_dev){ e->major, e->minor };
	}
	*ret = devs;
	*ret_n = n;
	return 0;
}

/* The disks under every mounted non-pseudo filesystem: a partition's queue is its disk's. */
int rakb_force_each(struct rakb_state *st, const struct rakb_env *env, rakb_pick_fn *pick,
		    void *arg, const struct mount_table *mt, const char *root)
{
	struct rakb_saved *live = NULL;
	struct rakb_dev *devs = NULL;
	unsigned *picks = NULL;
	size_t nlive = 0, ndevs = 0;
	struct rakb_saved *n;
	size_t forced;
	int r;

	st->env = env;
	st->kb = 0;
	snprintf(st->path, sizeof(st->path), "%s/trace-%d.state", env->state_dir, (int)getpid());
	r = other_states(env, true, &live, &nlive, NULL, NULL);
	if (r >= 0)
		r = rakb_traced_devices(mt, root, &devs, &ndevs);
	if (r >= 0 && !(picks = calloc(ndevs ? ndevs : 1, sizeof(*picks))))
		r = -ENOMEM;
	if (r < 0)
		goto out;
	/* what each device gets: a pick may take seconds (measuring a device) */
	for (size_t i = 0; i < ndevs; i++) {
		const struct rakb_saved *other = find_saved(live, nlive, devs[i].major,
							    devs[i].minor);
		unsigned now;

		picks[i] = 0;
		if (env->get_kb(devs[i].major, devs[i].minor, &now) < 0)
			continue;
		/* the device's own value, not what another run forced */
		picks[i] = pick(devs[i].major, devs[i].minor, other ? other->old_kb : now, arg);
	}
	/* the runs going on now, read again after the picks */
	free(live);
	live = NULL;
	nlive = 0;
	r = other_states(env, true, &live, &nlive, NULL, NULL);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < ndevs; i++) {
		const struct rakb_saved *other;
		unsigned major = devs[i].major, minor = devs[i].minor;
		unsigned old, now, kb = picks[i];

		if (kb == 0 || env->get_kb(major, minor, &now) < 0)
			continue;
		/* forced by a run still going: its value from before is the one to restore */
		other = find_saved(live, nlive, major, minor);
		old = other ? other->old_kb : now;
		if (old == kb && now == kb)
			continue;
		n = realloc(st->devs, (st->n + 1) * sizeof(*n));
		if (!n) {
			r = -ENOMEM;
			goto out;
		}
		st->devs = n;
		st->devs[st->n++] = (struct rakb_saved){ .major = major, .minor = minor, .old_kb = old,
							 .kb = kb, .seq = seq_of(env, major, minor) };
	}
	/* the record of what will change is on disk before anything changes */
	forced = st->n;
	if (st->n) {
		r = write_state(st);
		if (r < 0)
			goto out;
	}
	for (size_t k = 0, kept = 0; k < forced; k++) {
		r = env->set_kb(st->devs[k].major, st->devs[k].minor, st->devs[k].kb);
		if (r < 0) {
			/*
			 * e.g. EROFS in a container, whose /sys is read-only: the device
			 * keeps its value, which the pack must record, and there is
			 * nothing to restore
			 */
			log_warn("cannot set read_ahead_kb of %u:%u: %s, skipping", st->devs[k].major,
				 st->devs[k].minor, strerror(-r));
			st->n--;
			continue;
		}
		log_debug("read_ahead_kb of %u:%u: %u -> %u", st->devs[k].major,
			  st->devs[k].minor, st->devs[k].old_kb, st->devs[k].kb);
		st->devs[kept++] = st->devs[k];
	}
	/* the state file lists only what was changed */
	if (st->n != forced && st->n) {
		r = write_state(st);
		if (r < 0)
			log_warn("cannot update '%s': %s", st->path, strerror(-r));
	} else if (st->n != forced) {
		unlink(st->path);
	}
	r = 0;
out:
	free(picks);
	free(devs);
	free(live);
	return r;
}

void rakb_restore(struct rakb_state *st)
{
	struct rakb_saved *live = NULL;
	size_t nlive = 0;

	if (st->restored)
		return;
	st->restored = true;
	if (st->n)
		other_states(st->env, true, &live, &nlive, NULL, NULL);
	for (size_t k = 0; k < st->n; k++) {
		int r;

		/* another run still has it forced: the last one puts it back */
		if (find_saved(live, nlive, st->devs[k].major, st->devs[k].minor) ||
		    !same_disk(st->env, &st->devs[k]))
			continue;
		r = st->env->set_kb(st->devs[k].major, st->devs[k].minor, st->devs[k].old_kb);
		if (r < 0)
			log_warn("cannot restore read_ahead_kb of %u:%u: %s", st->devs[k].major,
				 st->devs[k].minor, strerror(-r));
	}
	if (st->n)
		unlink(st->path);
	free(live);
}

void rakb_free(struct rakb_state *st)
{
	rakb_restore(st);
	free(st->devs);
	st->devs = NULL;
	st->n = 0;
}

unsigned rakb_during_trace(const struct rakb_state *st, unsigned major, unsigned minor)
{
	const struct rakb_env *env;
	unsigned kb;

	for (size_t k = 0; st && k < st->n; k++)
		if (st->devs[k].major == major && st->devs[k].minor == minor)
			return st->devs[k].kb;
	env = st && st->env ? st->env : &rakb_system;
	return env->get_kb(major, minor, &kb) < 0 ? 0 : kb;
}
