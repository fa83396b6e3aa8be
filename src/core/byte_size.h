/* Byte sizes as people write them: 512MiB, 12GB, 1.5G, 4096. */
#ifndef FC_CORE_BYTE_SIZE_H
#define FC_CORE_BYTE_SIZE_H

#include <stddef.h>

/* Parses s into *out: a number (decimal point allowed) and an optional unit,
 * B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB (case-insensitive). KB, MB, GB
 * and TB are powers of 1000, K, M, G, T and the *iB forms powers of 1024.
 * Returns 0, or -1 for anything else (empty, negative, unknown unit,
 * overflow). */
int fc_parse_byte_size(const char *s, size_t *out);

#endif
