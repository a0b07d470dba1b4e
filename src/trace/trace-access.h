/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Decoded events -> the access log: each read() and page fault of the trace, in order */
#ifndef URA_TRACE_ACCESS_H
#define URA_TRACE_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ura/pack.h>

#include "sys-kernel-mm.h"
#include "trace-events.h"

/*
 * Records kept at most: 32 bytes each in memory, so 128 MiB at the limit, and
 * about 40 MB in the pack. A boot makes about 10^6, a Python start a few
 * thousand; a trace that goes on past the limit keeps its first records and
 * says so (URA_PACK_INFO_ACCESS_TRUNCATED).
 */
#define ACCESS_LOG_MAX		4000000



struct access_log;

/**
 * access_log_new() - an empty log
 * @fault_around_pages: pages one read fault maps around it during the trace
 *	(access_read_fault_around()); rounded down to a power of two, at least 1
 * @max: records kept at most (ACCESS_LOG_MAX)
 * @ret: on success the log; free with access_log_free()
 *
 * Return: 0 or -ENOMEM.
 */
int access_log_new(unsigned fault_around_pages, size_t max, struct access_log **ret);

/** access_log_free() - NULL is allowed */
void access_log_free(struct access_log *l);

/**
 * access_feed() - turn one decoded event, in time order, into the log
 * @t0: the event time that is 0 in the pack (struct trace_demand's, after it
 *	saw the event)
 *
 * What each event makes (per task; ura-trace(8), ACCESS LOG):
 * - mm_filemap_get_pages: a READ of its pages;
 * - page_fault_user: remembered, for the task's next window or file fault;
 * - mm_filemap_map_pages: a FAULT on the page the remembered fault touched in
 *   the window (EXEC for an instruction fetch), or on the window's first page,
 *   GUESSED, when there is none or the page falls outside the window (of
 *   more than one page);
 * - mm_filemap_fault on page P: MISSED on the task's last record when that is
 *   a fault of the same file whose window holds P (its page becomes P); else a
 *   FAULT on P, MISSED, in the window the remembered fault gives, or
 *   NO_AROUND when there is none (a write fault, which the tracer filters);
 * - mm_filemap_add_to_page_cache: folios larger than a page mark their
 *   filesystem (access_large_folios()).
 * Past the limit, or out of memory, the log stops (access_truncated()).
 *
 * Return: 0 (nonsense events are skipped).
 */
int access_feed(struct access_log *l, const struct trace_event *ev, uint64_t t0);

/** access_count() - records in the log */
size_t access_count(const struct access_log *l);

/** access_truncated() - whether the log stopped before the trace did */
bool access_truncated(const struct access_log *l);

/**
 * access_get() - record @i, as the pack holds it
 * @ret: its file_index is the log's own file number (access_file())
 */
void access_get(const struct access_log *l, size_t i, struct ura_pack_access *ret);

/** access_file_count() - files the log refers to */
size_t access_file_count(const struct access_log *l);

/** access_file() - the device (kernel dev_t) and inode of the log's file @id */
void access_file(const struct access_log *l, uint32_t id, uint32_t *ret_dev, uint64_t *ret_ino);

/** access_large_folios() - whether the trace added a folio larger than a page on device @dev */
bool access_large_folios(const struct access_log *l, uint32_t dev);

/** access_fault_around() - the fault-around pages the log was made with */
unsigned access_fault_around(const struct access_log *l);

/**
 * access_read_fault_around() - pages one read fault maps: @path
 *	(/sys/kernel/debug/fault_around_bytes) / 4096, rounded down to a power of
 *	two; KERNEL_FAULT_AROUND_PAGES when it cannot be read
 */
unsigned access_read_fault_around(const char *path);

#endif
