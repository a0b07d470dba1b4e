// SPDX-License-Identifier: GPL-2.0-or-later
/* A device's cost model: the device time of one read as a function of its size */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dev-model.h"

void dev_model_from_costs(struct devmodel *m, uint64_t request_ns, uint64_t bandwidth,
			 bool rotational, enum dev_model_source source)
{
	static const uint64_t sizes[] = { 4096, 64u << 20 };	/* linear: two points say it all */

	*m = (struct devmodel){ .n = 2, .rotational = rotational, .source = source };
	/* bounded, so that no cost overflows: at most an hour a request, a byte a second */
	if (request_ns > DEVMODEL_MAX_NS)
		request_ns = DEVMODEL_MAX_NS;
	if (!bandwidth)
		bandwidth = 1;
	for (unsigned i = 0; i < 2; i++) {
		unsigned __int128 t = (unsigned __int128)sizes[i] * 1000000000u / bandwidth;

		m->size[i] = sizes[i];
		m->ns[i] = request_ns + (t > DEVMODEL_MAX_NS ? DEVMODEL_MAX_NS : (uint64_t)t);
		if (!m->ns[i])
			m->ns[i] = 1;
	}
}

/* In double: the plan calls this for every span it weighs (a 128-bit division was a tenth of it). */
static uint64_t lerp(uint64_t x0, uint64_t y0, uint64_t x1, uint64_t y1, uint64_t x)
{
	double v;

	if (x1 <= x0 || y1 <= y0)
		return y0;
	v = (double)(y1 - y0) * (double)(x - x0) / (double)(x1 - x0) + (double)y0;
	return v >= (double)(UINT64_MAX / 4) ? UINT64_MAX / 4 : (uint64_t)v;
}

uint64_t dev_model_cost(const struct devmodel *m, uint64_t bytes)
{
	unsigned i;

	if (!bytes)
		return 0;
	if (!m->n)
		return 1;
	if (bytes <= m->size[0] || m->n == 1)
		return m->ns[0] ? m->ns[0] : 1;
	for (i = 1; i + 1 < m->n && bytes > m->size[i]; i++)
		;
	if (bytes <= m->size[i])
		return lerp(m->size[i - 1], m->ns[i - 1], m->size[i], m->ns[i], bytes);
	/* past the last point: on the steeper of the last segment's slope and the
	 * last point's own rate, so that cost never stops growing with size */
	{
		uint64_t a = lerp(m->size[i - 1], m->ns[i - 1], m->size[i], m->ns[i], bytes);
		unsigned __int128 b = (unsigned __int128)m->ns[i] * bytes / m->size[i];

		if (b > UINT64_MAX / 4)
			b = UINT64_MAX / 4;
		return a > (uint64_t)b ? a : (uint64_t)b;
	}
}

uint64_t dev_model_request_ns(const struct devmodel *m)
{
	return m->n ? m->ns[0] : 0;
}

uint64_t dev_model_bandwidth(const struct devmodel *m)
{
	if (!m->n)
		return 0;
	return (uint64_t)((unsigned __int128)m->size[m->n - 1] * 1000000000u / m->ns[m->n - 1]);
}

uint64_t dev_model_balance_bytes(const struct devmodel *m)
{
	if (m->combine == DEVMODEL_BUDGETS && m->bps && m->iops)
		return m->bps / m->iops;
	return (uint64_t)((unsigned __int128)dev_model_request_ns(m) * dev_model_bandwidth(m) /
			  1000000000u);
}

uint64_t dev_model_total(const struct devmodel *m, uint64_t bytes, uint64_t reads,
			uint64_t sum_ns)
{
	unsigned __int128 b, r;

	if (m->combine != DEVMODEL_BUDGETS || !m->bps || !m->iops)
		return sum_ns;
	b = (unsigned __int128)bytes * 1000000000u / m->bps;
	r = (unsigned __int128)reads * 1000000000u / m->iops;
	if (r > b)
		b = r;
	return b > UINT64_MAX / 4 ? UINT64_MAX / 4 : (uint64_t)b;
}

void dev_model_classify(struct devmodel *m, uint64_t small, uint64_t small_ns, uint64_t large,
		       uint64_t large_ns, unsigned per_large, uint64_t mixed_ns)
{
	double add, bud, by_bytes, by_reads, bps, iops;

	m->combine = DEVMODEL_ADDITIVE;
	m->bps = m->iops = 0;
	if (!small || !small_ns || !large_ns || large <= small || !per_large || !mixed_ns)
		return;
	bps = (double)large * 1e9 / (double)large_ns;
	iops = 1e9 / (double)small_ns;
	add = (double)per_large * (double)small_ns + (double)large_ns;
	by_bytes = ((double)per_large * (double)small + (double)large) / bps * 1e9;
	by_reads = (double)(per_large + 1) / iops * 1e9;
	bud = by_bytes > by_reads ? by_bytes : by_reads;
	if (add < 1.2 * bud)
		return;		/* one budget binds either way: the models agree */
	if ((double)mixed_ns >= (add + bud) / 2)
		return;
	m->combine = DEVMODEL_BUDGETS;
	m->bps = (uint64_t)bps ? (uint64_t)bps : 1;
	m->iops = (uint64_t)iops ? (uint64_t)iops : 1;
}

bool dev_model_valid(const struct devmodel *m)
{
	if (m->n < 2 || m->n > DEVMODEL_MAX_POINTS)
		return false;
	for (unsigned i = 0; i < m->n; i++) {
		if (!m->size[i] || !m->ns[i] || m->ns[i] > 2 * DEVMODEL_MAX_NS ||
		    m->size[i] > (1ull << 40))
			return false;
		if (i && (m->size[i] <= m->size[i - 1] || m->ns[i] < m->ns[i - 1]))
			return false;
	}
	return true;
}

const char *dev_model_source_name(enum dev_model_source s)
{
	switch (s) {
	case DEVMODEL_SYSFS:
		return "sysfs";
	case DEVMODEL_OPTIONS:
		return "options";
	case DEVMODEL_CACHE:
		return "cache";
	case DEVMODEL_PROBE:
		return "probe";
	case DEVMODEL_DEFAULT:
		break;
	}
	return "default";
}

int dev_model_write(FILE *f, const struct devmodel *m)
{
	fprintf(f, "rotational %d\n", m->rotational ? 1 : 0);
	for (unsigned i = 0; i < m->n; i++)
		fprintf(f, "point %" PRIu64 " %" PRIu64 "\n", m->size[i], m->ns[i]);
	if (m->combine == DEVMODEL_BUDGETS)
		fprintf(f, "budgets %" PRIu64 " %" PRIu64 "\n", m->bps, m->iops);
	return ferror(f) ? -EIO : 0;
}

int dev_model_parse(const char *text, struct devmodel *ret)
{
	struct devmodel m = { .source = DEVMODEL_CACHE };
	const char *p = text;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[128];
		unsigned long long a, b;
		int rot, end = 0;

		const char *start = p;

		p += len + (eol != NULL);
		/* the cache's own lines, of any length: what was measured, and when */
		if (!len || *start == '#' || strncmp(start, "key ", 4) == 0 ||
		    strncmp(start, "measured ", 9) == 0)
			continue;
		if (len >= sizeof(line))
			return -EBADMSG;
		memcpy(line, start, len);
		line[len] = '\0';
		if (strchr(line, '-'))
			return -EBADMSG;	/* sscanf() would take "-1" as a huge number */
		if (sscanf(line, "rotational %d%n", &rot, &end) == 1 && !line[end] &&
		    (rot == 0 || rot == 1)) {
			m.rotational = rot;
		} else if (sscanf(line, "budgets %llu %llu%n", &a, &b, &end) == 2 && !line[end] &&
			   a && b && a <= (1ull << 50) && b <= 100000000ull) {
			m.combine = DEVMODEL_BUDGETS;
			m.bps = a;
			m.iops = b;
		} else if (sscanf(line, "point %llu %llu%n", &a, &b, &end) == 2 && !line[end]) {
			if (m.n == DEVMODEL_MAX_POINTS)
				return -EBADMSG;
			m.size[m.n] = a;
			m.ns[m.n++] = b;
		} else {
			return -EBADMSG;
		}
	}
	if (!dev_model_valid(&m))
		return -EBADMSG;
	*ret = m;
	return 0;
}
