/* vecadd.c - X += Y in vectors of eight (vecadd.h). */
#include "vecadd.h"

#include <string.h>

/* X[k] += pe[k] for k < count, eight at a time (gcc -O2 left the plain loop
 * scalar: X and pe might overlap); the same additions. An AVX clone adds the
 * eight in one instruction where the default target takes two halves and
 * twice the moves (a tenth of a sentence's inputs). */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx", "default")))
#endif
void vec_add(float *X, const float *pe, size_t count)
{
    typedef float Eight __attribute__((vector_size(8 * sizeof(float))));
    size_t k = 0;
    for (; k + 8 <= count; k += 8) {
        Eight x, p;
        memcpy(&x, X + k, sizeof x);
        memcpy(&p, pe + k, sizeof p);
        x += p;
        memcpy(X + k, &x, sizeof x);
    }
    for (; k < count; k++)
        X[k] += pe[k];
}
