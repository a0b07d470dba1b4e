// SPDX-License-Identifier: GPL-2.0-or-later
/* Measure a block device's cost model: timed O_DIRECT reads at a few sizes */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "dev-probe.h"
#include "util.h"

#define ALIGN		4096u
#define MAX_DEPTH	16u
#define MAX_SAMPLES	65536u
#define PAUSE_NS	250000000L	/* between sizes: a throttle's slice ends */
#define MIX_MAX_PER_LARGE 256u		/* the mixed stream: at most so many 4 KiB reads a 1 MiB one */

static const uint64_t probe_sizes[] = { 4u << 10, 16u << 10, 64u << 10, 256u << 10,
					1u << 20, 4u << 20 };

void dev_probe_defaults(struct dev_probe_opts *o)
{
	*o = (struct dev_probe_opts){
		.depth = 4,
		.warm_ns = 250000000ull,	/* a blk-throttle slice (100 ms) and its burst */
		.min_ns = 400000000ull,
		.min_count = 8,
		.max_ns = 2000000000ull,
	};
}

struct run {
	int fd;
	uint64_t rsize;		/* bytes per read */
	uint64_t span;		/* reads fall in [0, span) */
	bool sequential;	/* one thread, consecutive reads */
	unsigned per_large;	/* mixed: every (per_large + 1)th read is of @large bytes */
	uint64_t large;
	bool stop;		/* atomic */
	bool failed;		/* atomic */
	uint64_t from;		/* completions before this are not kept (the warm-up) */
	uint64_t *done;		/* completion times after @from, 0 until written (atomic) */
	unsigned ndone;		/* atomic: slots taken in @done */
	uint64_t seed;
};

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void *reader(void *arg)
{
	struct run *r = arg;
	uint64_t slots = r->span / r->rsize, seed, next, len = r->rsize;
	uint64_t most = r->per_large && r->large > r->rsize ? r->large : r->rsize;
	unsigned nth = 0;
	void *buf = NULL;

	seed = __atomic_add_fetch(&r->seed, 0x9e3779b97f4a7c15ull, __ATOMIC_RELAXED) | 1;
	/* each thread starts at another place in the mix */
	nth = r->per_large ? (unsigned)(seed % (r->per_large + 1)) : 0;
	next = (xorshift(&seed) % slots) * r->rsize;
	if (posix_memalign(&buf, ALIGN, (size_t)most) != 0) {
		__atomic_store_n(&r->failed, true, __ATOMIC_RELAXED);
		return NULL;
	}
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		uint64_t off = next;
		ssize_t n = pread(r->fd, buf, (size_t)len, (off_t)off);
		uint64_t t;
		unsigned k;

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)len) {
			__atomic_store_n(&r->failed, true, __ATOMIC_RELAXED);
			break;
		}
		t = now_monotonic_ns();
		if (t >= r->from) {
			k = __atomic_fetch_add(&r->ndone, 1, __ATOMIC_RELAXED);
			if (k < MAX_SAMPLES)
				__atomic_store_n(&r->done[k], t, __ATOMIC_RELEASE);
		}
		if (r->per_large && ++nth % (r->per_large + 1) == 0) {
			len = r->large;
			next = (xorshift(&seed) % (r->span / r->large)) * r->large;
		} else if (r->sequential) {
			len = r->rsize;
			next = off + r->rsize < r->span ? off + r->rsize : 0;
		} else {
			len = r->rsize;
			next = (xorshift(&seed) % slots) * r->rsize;
		}
	}
	free(buf);
	return NULL;
}

/* Completions kept (after the warm-up), and the cost per read among them. */
static unsigned steady(const struct run *r, uint64_t *ret_ns)
{
	unsigned n = __atomic_load_n(&r->ndone, __ATOMIC_RELAXED), cnt = 0;
	uint64_t lo = UINT64_MAX, hi = 0;

	if (n > MAX_SAMPLES)
		n = MAX_SAMPLES;
	for (unsigned i = 0; i < n; i++) {
		uint64_t t = __atomic_load_n(&r->done[i], __ATOMIC_ACQUIRE);

		if (!t)
			continue;	/* taken, not written yet */
		cnt++;
		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	if (cnt >= 2)
		*ret_ns = (hi - lo) / (cnt - 1);
	return cnt;
}

/*
 * Time reads of @rsize bytes (with @per_large, a stream where every
 * (@per_large + 1)th read is of @large bytes); 0 with *ret_ns the cost of one
 * read in the stream, or -errno.
 */
static int time_reads(int fd, uint64_t dev_size, uint64_t rsize, bool sequential,
		      unsigned per_large, uint64_t large, const struct dev_probe_opts *o,
		      uint64_t *ret_ns)
{
	struct run r = { .fd = fd, .rsize = rsize, .sequential = sequential,
			 .per_large = per_large, .large = large };
	unsigned depth = sequential ? 1 : o->depth, started = 0, cnt = 0;
	pthread_t th[MAX_DEPTH];
	uint64_t t0, cost = 0;
	int err = 0;

	r.span = dev_size / rsize * rsize;
	r.seed = now_monotonic_ns() ^ (uint64_t)getpid() << 32;
	r.done = calloc(MAX_SAMPLES, sizeof(*r.done));
	if (!r.done)
		return -ENOMEM;
	if (depth > MAX_DEPTH)
		depth = MAX_DEPTH;
	if (!depth)
		depth = 1;
	t0 = now_monotonic_ns();
	r.from = t0 + o->warm_ns;
	for (; started < depth; started++)
		if (pthread_create(&th[started], NULL, reader, &r) != 0)
			break;
	if (!started) {
		free(r.done);
		return -EAGAIN;
	}
	for (;;) {
		struct timespec ts = { 0, 5000000 };
		uint64_t el = now_monotonic_ns() - t0;

		nanosleep(&ts, NULL);
		if (__atomic_load_n(&r.failed, __ATOMIC_RELAXED) || el >= o->max_ns)
			break;
		if (el < o->warm_ns + o->min_ns)
			continue;
		cnt = steady(&r, &cost);
		if (cnt >= o->min_count)
			break;
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	if (r.failed)
		err = -EIO;
	else if (steady(&r, &cost) < 3 || !cost)
		err = -ETIMEDOUT;
	free(r.done);
	if (err)
		return err;
	*ret_ns = cost;
	return 0;
}

/*
 * How many small reads to mix with each large one: as many as spend the reads
 * budget as fast as the large read spends the bytes budget, were there two
 * (@small_ns is a read's price there, less the bytes it also spends), so that
 * two budgets make the mix cost about what its large reads cost, and costs
 * that add up make it cost about twice that.
 */
static uint64_t mix_per_large(uint64_t small, uint64_t small_ns, uint64_t large,
			      uint64_t large_ns)
{
	uint64_t bytes_ns = (uint64_t)((unsigned __int128)large_ns * small / large), per;

	if (small_ns <= bytes_ns || large_ns <= small_ns)
		return MIX_MAX_PER_LARGE;	/* small reads cost their bytes only */
	per = (large_ns - small_ns) / (small_ns - bytes_ns);
	return per < 1 ? 1 : per > MIX_MAX_PER_LARGE ? MIX_MAX_PER_LARGE : per;
}

int dev_probe_measure(int fd, uint64_t size, const struct dev_probe_opts *o, struct devmodel *ret)
{
	struct dev_probe_opts def;
	struct devmodel m = { .source = DEVMODEL_PROBE };
	uint64_t seq = 0;
	int fl, r;

	if (!o) {
		dev_probe_defaults(&def);
		o = &def;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, (fl & ~O_NONBLOCK) | O_DIRECT) < 0)
		return -errno;
	if (size < 64 * probe_sizes[0])
		return -EINVAL;
	for (size_t i = 0; i < sizeof(probe_sizes) / sizeof(probe_sizes[0]); i++) {
		uint64_t ns = 0;

		if (probe_sizes[i] * 16 > size)
			break;
		/*
		 * A pause between sizes: a blkio throttle carries the budget a size
		 * left unused (bytes, while small reads use up requests) into the next
		 * one until its time slice ends; after an idle slice it starts afresh.
		 */
		if (i)
			nanosleep(&(struct timespec){ 0, PAUSE_NS }, NULL);
		r = time_reads(fd, size, probe_sizes[i], false, 0, 0, o, &ns);
		if (r < 0) {
			if (m.n >= 2 && r == -ETIMEDOUT)
				break;		/* a very slow device: the points so far */
			return r;
		}
		/* a larger read never costs less: noise between close points */
		if (m.n && ns < m.ns[m.n - 1])
			ns = m.ns[m.n - 1];
		m.size[m.n] = probe_sizes[i];
		m.ns[m.n++] = ns;
	}
	/* seeks: random small reads far dearer than sequential ones */
	if (time_reads(fd, size, probe_sizes[0], true, 0, 0, o, &seq) == 0)
		m.rotational = m.ns[0] > 8 * seq;
	/*
	 * How costs combine: small and large reads mixed, against the same reads in
	 * streams of one size. Costs that add up make the mix as dear as its parts;
	 * two budgets let the small reads ride on the bytes budget (dev_model_classify()).
	 */
	if (m.n >= 5 && probe_sizes[4] * 16 <= size) {
		struct dev_probe_opts mo = *o;
		uint64_t mixed = 0, per;

		per = mix_per_large(m.size[0], m.ns[0], m.size[4], m.ns[4]);
		/* whole groups, several of them, or the mix is measured by its phases */
		mo.min_count = (unsigned)(8 * (per + 1));
		if (mo.max_ns < 2 * o->max_ns)
			mo.max_ns = 2 * o->max_ns;
		nanosleep(&(struct timespec){ 0, PAUSE_NS }, NULL);
		if (time_reads(fd, size, probe_sizes[0], false, (unsigned)per, probe_sizes[4], &mo,
			       &mixed) == 0)
			dev_model_classify(&m, m.size[0], m.ns[0], m.size[4], m.ns[4], (unsigned)per,
					  mixed * (per + 1));
	}
	if (!dev_model_valid(&m))
		return -EIO;
	*ret = m;
	return 0;
}
