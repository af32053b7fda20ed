/* test_random.h - arrays of seeded random floats for the tests of the core
 * and the layers above it (core/rng.h's numbers: the same on every run).
 */
#ifndef ATTNVIZ_TEST_RANDOM_H
#define ATTNVIZ_TEST_RANDOM_H

#include <stdlib.h>

#include "core/rng.h"
#include "test_common.h"

/* x[0..n) from r, uniform in [-std, std) as rng_symmetric gives them. */
static inline void test_random_fill(Rng *r, float *x, size_t n, float std)
{
    for (size_t k = 0; k < n; k++)
        x[k] = rng_symmetric(r, std);
}

/* n such floats in a new array; the caller frees it. */
static inline float *test_random_floats(Rng *r, size_t n, float std)
{
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    test_random_fill(r, x, n, std);
    return x;
}

#endif
