/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --root: the canonical root directory, and how a mount and its paths look from it */
#ifndef URA_TRACE_ROOT_H
#define URA_TRACE_ROOT_H

#include <stdbool.h>

/**
 * root_canonical() - --root made canonical: absolute, no symlinks, no trailing '/'
 * @root: as given, or NULL
 * @ret: on success a malloc()ed path, or NULL for none or "/" (the view of no --root)
 *
 * Return: 0 or the -errno of realpath().
 */
int root_canonical(const char *root, char **ret);

/** root_path_within() - whether @path is @dir or below it ("/" holds everything) */
bool root_path_within(const char *path, const char *dir);

/**
 * root_view() - a mount as seen from the root directory @root
 * @root: canonical (root_canonical()), or NULL for "/"
 * @mount_point: where the mount is, seen from "/"
 * @ret_mount_point: the mount point as a pack made under @root records it
 *	(a pointer into @mount_point or @root, or "/")
 * @ret_strip: the prefix of paths relative to @mount_point that is the root
 *	directory itself ("" when the whole mount is visible); paths below the
 *	mount outside it are not visible from @root
 *
 * Return: 0, or -ENOENT when no file of the mount is visible from @root.
 */
int root_view(const char *root, const char *mount_point, const char **ret_mount_point,
	      const char **ret_strip);

#endif
