/* sha1.h - SHA-1 (FIPS 180-4), incremental: the check of a small file from
 * the hub against its ETag, the git blob id, sha1("blob SIZE\0" + bytes)
 * (sha1.c). Not for anything that must resist a forger: it tells a
 * download cut or mangled on the way from a whole one.
 *
 * The state lives in the caller's Sha1: no globals, no allocation.
 */
#ifndef ATTNVIZ_SHA1_H
#define ATTNVIZ_SHA1_H

#include <stddef.h>
#include <stdint.h>

#include "core/mdblock.h"

typedef struct {
    uint32_t h[5];
    MdBlocks m; /* the message's blocks */
} Sha1;

void sha1_init(Sha1 *s);

/* Add data[0..len) to the message. */
void sha1_update(Sha1 *s, const void *data, size_t len);

/* The digest of the message so far, as 20 bytes and, when hex is not NULL,
 * as 40 lower-case hexadecimal digits and a NUL (hex[41]). s is spent. */
void sha1_final(Sha1 *s, uint8_t digest[20], char *hex);

#endif
