/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by the tools: number parsing, clocks, UTF-8, paths, "is this ura-trace" */
#ifndef URA_UTIL_H
#define URA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Parse a whole decimal unsigned number; 0 or -EINVAL / -ERANGE. *ret untouched on failure. */
int parse_u64(const char *s, uint64_t *ret);

/* Parse seconds, decimals allowed ("0.5", "30"), into ns; 0 or -EINVAL / -ERANGE. */
int parse_seconds(const char *s, uint64_t *ret_ns);

/* Parse a size with an optional K, M, G (powers of 1024) suffix into bytes. */
int parse_size(const char *s, uint64_t *ret);

/* FNV-1a of the string @s: names in hash tables and file names of keys. */
uint64_t hash_str(const char *s);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in ns. */
uint64_t now_monotonic_ns(void);
int64_t now_realtime_ns(void);

/*
 * The valid UTF-8 sequence at @p (at most @n bytes): its length (1 to 4), and its code point in
 * *@ret_cp if not NULL; 0 when it is not one (a stray, overlong or surrogate byte sequence).
 */
size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *ret_cp);

/* Join a mount point and a relative path ("/" + "etc/x" gives "/etc/x"); malloc()ed or NULL. */
char *path_join(const char *dir, const char *rel);

/*
 * Is @pid a running ura-trace? Pids are reused, so its name is checked too;
 * when /proc cannot tell, the answer is yes (leave its instance or state alone).
 */
bool pid_is_ura_trace(pid_t pid);

#endif
