/* mdblock.h - what SHA-1 and SHA-256 share: the message cut into 64-byte
 * blocks for a compression function, the padding with the message's length
 * in bits, and the state words written out big-endian as the digest and its
 * lower-case hexadecimal. Each hash keeps its own words and compression. */
#ifndef ATTNVIZ_MDBLOCK_H
#define ATTNVIZ_MDBLOCK_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t bytes;    /* message length so far */
    uint8_t block[64]; /* a partial block */
    size_t fill;       /* bytes in block */
} MdBlocks;

/* One 64-byte block into the state words h. */
typedef void (*MdCompress)(uint32_t *h, const uint8_t *block);

void mdblock_init(MdBlocks *m);

/* len bytes of data into h, a whole block at a time. */
void mdblock_update(MdBlocks *m, uint32_t *h, MdCompress compress, const void *data, size_t len);

/* The padding into h, then its `words` words as digest (4 bytes a word) and,
 * when hex is not NULL, as 8 * words hexadecimal digits and a NUL. */
void mdblock_final(MdBlocks *m, uint32_t *h, MdCompress compress, int words, uint8_t *digest,
                   char *hex);

#endif
