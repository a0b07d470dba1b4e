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

/**
 * key_unescape_path() - the absolute path @name (@len bytes, as key_escape_path() made it
 * from an absolute path) stands for: '-' is '/', "\xNN" the byte NN, "-" alone "/"
 * @buf: @size bytes, NUL-terminated on success
 *
 * Escaping loses nothing but the simplification: the path found escapes to @name again
 * whenever @name is an escape at all (a caller that must be sure escapes it again).
 * Return: the path's length, -EINVAL (not an escape: another byte, a bad or NUL "\x"),
 * -ENAMETOOLONG.
 */
int key_unescape_path(const char *name, size_t len, char *buf, size_t size);

#endif
