/* rng.h - a small portable PRNG: the same numbers on every machine.
 *
 * The generator is SplitMix64 (Steele, Lea, Flood 2014, as in java.util's
 * SplittableRandom): a 64-bit counter advanced by the golden-ratio constant
 * 0x9e3779b97f4a7c15 and passed through a fixed bit mixer. It uses integer
 * arithmetic only. Floats are made from the top 24 bits, so they are exact in
 * float32 and no libm function is involved: the stream is bit-identical on any
 * machine and compiler. The state lives in the caller's Rng: no hidden globals.
 */
#ifndef ATTNVIZ_RNG_H
#define ATTNVIZ_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t state;
} Rng;

/* Start a stream from seed. */
void rng_seed(Rng *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t rng_next(Rng *r);

/* Uniform float in [0, 1), a multiple of 2^-24. */
float rng_uniform(Rng *r);

/* Uniform float in [-a, a) with a = std * sqrt(3): mean 0, standard deviation std.
 * Used instead of a normal distribution so that no libm call is needed. */
float rng_symmetric(Rng *r, float std);

/* The SplitMix64 bit mixer alone: a fixed bijection of 64-bit values. */
uint64_t rng_mix(uint64_t x);

/* FNV-1a 64-bit hash of bytes, for deriving a stream from a token's text. */
uint64_t rng_hash(const void *data, unsigned long len);

#endif
