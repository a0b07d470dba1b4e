/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What ura takes of the kernel's page cache when a trace or a pack does not say */
#ifndef URA_SYS_KERNEL_MM_H
#define URA_SYS_KERNEL_MM_H

/*
 * Pages one read fault maps around it: fault_around_bytes (debugfs) is 64 KiB
 * unless changed, and only root can read it where debugfs allows at all.
 */
#define KERNEL_FAULT_AROUND_PAGES	16u

#endif
