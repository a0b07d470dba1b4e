/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd's path escaping (systemd-escape --path): the name of a program's pack in a directory */
#ifndef URA_PATHESCAPE_H
#define URA_PATHESCAPE_H

#include <stddef.h>

/**
 * path_escape() - escape @path as `systemd-escape --path` does
 * @path: an absolute or relative path
 * @ret: on success, the escaped name, malloc()ed
 *
 * The path is simplified first (repeated slashes and "." components go), "/"
 * and "" become "-"; otherwise leading and trailing slashes are dropped, each
 * '/' becomes '-', and every byte that is not an ASCII letter, digit, ':', '_'
 * or '.' (and a '.' at the very start) becomes "\xNN" in lowercase hex.
 *
 * Return: 0, -EINVAL (a ".." component: not a normalized path), -ENOMEM.
 */
int path_escape(const char *path, char **ret);

#endif
