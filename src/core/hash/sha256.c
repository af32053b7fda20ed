/* sha256.c - SHA-256 as FIPS 180-4 writes it (sha256.h): 64-byte blocks, a
 * message schedule of 64 words, 64 rounds, the length in bits at the end;
 * in plain C, and where an x86-64 processor has them with its SHA
 * extensions, several times faster (a 550 MB checkpoint is checked after
 * every download).
 */
#include "core/sha256.h"

#include <string.h>

#include "../fast/sha/sha256_x86.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

/* Round t on the working words a..h, named by the caller in their turn:
 * the eight rotate by renaming, not by moving. */
#define ROUND(a, b, c, d, e, f, g, h, t)                                                           \
    do {                                                                                           \
        uint32_t t1 =                                                                              \
            h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];        \
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));       \
        d += t1;                                                                                   \
        h = t1 + t2;                                                                               \
    } while (0)

/* One 64-byte block into the state, in plain C. */
static void compress(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t += 8) {
        ROUND(a, b, c, d, e, f, g, k, t);
        ROUND(k, a, b, c, d, e, f, g, t + 1);
        ROUND(g, k, a, b, c, d, e, f, t + 2);
        ROUND(f, g, k, a, b, c, d, e, t + 3);
        ROUND(e, f, g, k, a, b, c, d, t + 4);
        ROUND(d, e, f, g, k, a, b, c, t + 5);
        ROUND(c, d, e, f, g, k, a, b, t + 6);
        ROUND(b, c, d, e, f, g, k, a, t + 7);
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}
#undef ROUND

/* One block by the processor's SHA extensions (fast/sha256_x86.c). */
static void compress_x86(uint32_t h[8], const uint8_t *p)
{
    sha256_x86_block(h, p, K);
}

void sha256_init_portable(Sha256 *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    mdblock_init(&s->m);
    s->compress = compress;
}

void sha256_init(Sha256 *s)
{
    sha256_init_portable(s);
    if (sha256_x86_available())
        s->compress = compress_x86;
}

bool sha256_accelerated(const Sha256 *s)
{
    return s->compress != compress;
}

void sha256_update(Sha256 *s, const void *data, size_t len)
{
    mdblock_update(&s->m, s->h, s->compress, data, len);
}

void sha256_final(Sha256 *s, uint8_t digest[32], char *hex)
{
    mdblock_final(&s->m, s->h, s->compress, 8, digest, hex);
}
