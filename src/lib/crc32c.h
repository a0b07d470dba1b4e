/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CRC32C (Castagnoli), the checksum of ura packs */
#ifndef URA_CRC32C_H
#define URA_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * crc32c() - continue a CRC32C over @len bytes
 * @crc: 0 to start, or the value returned for the bytes before
 * Return: the CRC32C of everything so far (as iSCSI and ext4 define it).
 */
uint32_t crc32c(uint32_t crc, const void *data, size_t len);

#endif
