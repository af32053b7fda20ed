/* rng.c - SplitMix64 and the float draws built on it.
 *
 * Integer arithmetic only, and floats built from 24 random bits so that every
 * value is exact in float32: the same seed gives bit-identical streams on any
 * machine, compiler and optimisation level. No libm call is made (sqrt(3) is a
 * constant). The state is always the caller's Rng; there is no global stream.
 */
#include "core/rng.h"

#define RNG_GOLDEN 0x9e3779b97f4a7c15ULL
#define RNG_SQRT3 1.7320508075688772f
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

void rng_seed(Rng *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t rng_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t rng_next(Rng *r)
{
    r->state += RNG_GOLDEN;
    return rng_mix(r->state);
}

float rng_uniform(Rng *r)
{
    /* The top 24 bits are the best mixed, and a 24-bit integer times 2^-24 is
     * exact in float32, so the result is strictly below 1. */
    return (float)(rng_next(r) >> 40) * (1.0f / 16777216.0f);
}

float rng_symmetric(Rng *r, float std)
{
    /* A uniform on [-a, a) has variance a^2 / 3, so a = std * sqrt(3). */
    float u = rng_uniform(r);
    return (2.0f * u - 1.0f) * std * RNG_SQRT3;
}

uint64_t rng_hash(const void *data, unsigned long len)
{
    const unsigned char *p = data;
    uint64_t h = FNV_OFFSET;
    for (unsigned long i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}
