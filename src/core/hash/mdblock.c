/* mdblock.c - the blocks, padding and digest SHA-1 and SHA-256 share
 * (mdblock.h). */
#include "core/mdblock.h"

#include <string.h>

void mdblock_init(MdBlocks *m)
{
    m->bytes = 0;
    m->fill = 0;
}

void mdblock_update(MdBlocks *m, uint32_t *h, MdCompress compress, const void *data, size_t len)
{
    const uint8_t *p = data;
    m->bytes += len;
    if (m->fill) {
        size_t k = 64 - m->fill < len ? 64 - m->fill : len;
        memcpy(m->block + m->fill, p, k);
        m->fill += k, p += k, len -= k;
        if (m->fill < 64)
            return;
        compress(h, m->block);
        m->fill = 0;
    }
    for (; len >= 64; p += 64, len -= 64)
        compress(h, p);
    memcpy(m->block, p, len);
    m->fill = len;
}

void mdblock_final(MdBlocks *m, uint32_t *h, MdCompress compress, int words, uint8_t *digest,
                   char *hex)
{
    uint64_t bits = m->bytes * 8;
    uint8_t pad[72] = {0x80};
    size_t n = (m->fill < 56 ? 56 : 120) - m->fill;
    for (int k = 0; k < 8; k++)
        pad[n + k] = (uint8_t)(bits >> (56 - 8 * k));
    mdblock_update(m, h, compress, pad, n + 8);
    for (int k = 0; k < words; k++)
        for (int b = 0; b < 4; b++)
            digest[4 * k + b] = (uint8_t)(h[k] >> (24 - 8 * b));
    for (int k = 0; hex && k < 4 * words; k++) {
        hex[2 * k] = "0123456789abcdef"[digest[k] >> 4];
        hex[2 * k + 1] = "0123456789abcdef"[digest[k] & 15];
    }
    if (hex)
        hex[8 * words] = 0;
}
