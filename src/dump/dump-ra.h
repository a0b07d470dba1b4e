/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ura-dump --ra-advise: the advisor's table, its two picks and how to apply them, as text or JSON */
#ifndef URA_DUMP_RA_H
#define URA_DUMP_RA_H

#include <stdbool.h>
#include <stdio.h>

#include "ra-advise.h"

/*
 * dump_ra_advice() - write @a for @pack to @f
 * @dev: the device and the model the times came from
 * Return: 0 or -EIO.
 */
int dump_ra_advice(FILE *f, const struct ura_pack *pack, const char *name,
		   const struct ra_advice *a, const struct ra_device *dev, bool json,
		   int verbosity);

#endif
