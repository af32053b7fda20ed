/* sha256.h - SHA-256 (FIPS 180-4), incremental: the check of a downloaded
 * file against the sha256 its host names (sha256.c).
 *
 * The state lives in the caller's Sha256: no globals, no allocation.
 */
#ifndef ATTNVIZ_SHA256_H
#define ATTNVIZ_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/mdblock.h"

typedef struct {
    uint32_t h[8];
    MdBlocks m;          /* the message's blocks */
    MdCompress compress; /* the block function: plain C or the processor's */
} Sha256;

/* A new message, hashed with the processor's SHA extensions where it has
 * them (x86-64), else in plain C: the same digest either way. */
void sha256_init(Sha256 *s);

/* A new message hashed in plain C whatever the processor (the tests hold
 * the two ways to the same digests). */
void sha256_init_portable(Sha256 *s);

/* Whether s hashes with the processor's SHA extensions. */
bool sha256_accelerated(const Sha256 *s);

/* Add data[0..len) to the message. */
void sha256_update(Sha256 *s, const void *data, size_t len);

/* The digest of the message so far, as 32 bytes and, when hex is not NULL,
 * as 64 lower-case hexadecimal digits and a NUL (hex[65]). s is spent. */
void sha256_final(Sha256 *s, uint8_t digest[32], char *hex);

#endif
