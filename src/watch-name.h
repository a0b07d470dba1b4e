/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pack file name of a program: $(systemd-escape --path EXE).pack */
#ifndef URA_PACK_NAME_H
#define URA_PACK_NAME_H

#include <stddef.h>

#define PACK_NAME_SUFFIX	".pack"

/**
 * pack_name_for_exe() - the file name of @exe's pack in a learning/watch directory
 * @exe: the absolute path of the executable as exec'd
 * @buf: filled with the NUL-terminated name, e.g. "usr-bin-true.pack"
 * @size: size of @buf
 *
 * The name is what `systemd-escape --path EXE` prints, followed by ".pack":
 * the path is simplified (repeated slashes, "." components and a trailing
 * slash dropped), the leading slash removed, each '/' becomes '-', and every
 * byte other than ASCII letters, digits, ':', '_' and '.' (a '.' only after
 * the first byte) becomes "\xNN" (lowercase hex). "/" gives "-".
 *
 * Return: the length of the name; -EINVAL when @exe is not absolute or has a
 * ".." component (systemd-escape refuses those too); -ENAMETOOLONG when the
 * name does not fit in @buf or exceeds NAME_MAX. @buf is written only on success.
 */
int pack_name_for_exe(const char *exe, char *buf, size_t size);

#endif
