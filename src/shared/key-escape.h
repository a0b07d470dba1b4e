/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd's path escaping (systemd-escape --path): the name of a program's pack in a directory */
#ifndef URA_KEY_ESCAPE_H
#define URA_KEY_ESCAPE_H

#include <stddef.h>

/**
 * key_escape_path() - escape @path as `systemd-escape --path` does
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
int key_escape_path(const char *path, char **ret);

#endif
