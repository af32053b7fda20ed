/* vecloop.h - what the training passes of ops.c and attnback.c share to be
 * vectorised: the clones chosen at load time, the chunk length of their
 * fixed-length inner loops, and the loop over a row's chunks. Private to
 * src/train/.
 */
#ifndef ATTNVIZ_TRAIN_VECLOOP_H
#define ATTNVIZ_TRAIN_VECLOOP_H

/* AVX-512 and AVX2 clones chosen at load time, as in core/mat.c: with
 * -std=c11 (no contraction into FMA) each does the same operations in the
 * same order, so the numbers do not depend on the machine. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define VEC_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VEC_CLONES
#endif

enum { CHUNK = 16 }; /* fixed-length inner loops with restrict, which gcc -O2 vectorises */

/* call_chunk over whole chunks of [0, n) (c its first index), then call_rest
 * once for what is left. */
#define BY_CHUNKS(n, c, call_chunk, call_rest)                                                     \
    do {                                                                                           \
        int c = 0;                                                                                 \
        for (; c + CHUNK <= (n); c += CHUNK)                                                       \
            call_chunk;                                                                            \
        if (c < (n))                                                                               \
            call_rest;                                                                             \
    } while (0)

#endif
