/* sha256_x86.h - one SHA-256 block by x86-64's SHA extensions, private to
 * src/core/ (core/hash/sha256.c chooses it where the processor has them;
 * include/core/sha256.h is the interface).
 */
#ifndef ATTNVIZ_SHA256_X86_H
#define ATTNVIZ_SHA256_X86_H

#include <stdbool.h>
#include <stdint.h>

/* Whether this processor (and build) has the SHA extensions. */
bool sha256_x86_available(void);

/* The 64-byte block at p into the state h, with the round constants K.
 * Only where sha256_x86_available(). */
void sha256_x86_block(uint32_t h[8], const uint8_t *p, const uint32_t K[64]);

#endif
