/* softmax.c - one row's softmax, the one every path of attnviz uses
 * (attention_softmax_row in attention.h): the heads' blocks, the sentence
 * kernel's rows (attn_short.c makes the same operations across lanes) and
 * the pooled views' recomputed rows.
 *
 * The row goes in chunks of SOFTMAX_LANES: the maximum per lane, then
 * e^(x - max) by attn_kernels.h's polynomial with SOFTMAX_LANES partial sums
 * added in lane order, then one multiply by the sum's inverse; the tail is
 * padded to a whole chunk with -inf, which weighs exactly 0. The same IEEE
 * operations on every x86-64 and in every clone, so the bits do not depend on
 * the processor; where AVX2 is there softmax_x86.c does them in registers.
 */
#include "core/attention.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "attn_kernels.h"

static inline void max_chunk(const float *restrict row, float *restrict m)
{
    for (int c = 0; c < SOFTMAX_LANES; c++)
        m[c] = row[c] > m[c] ? row[c] : m[c];
}

/* Eight lanes of the row sums (a ymm register with AVX): as a float array
 * the sums went through the stack on every chunk. Each lane still adds the
 * same terms in the same order, so the bits are those of any vector width. */
typedef float SumHalf __attribute__((vector_size(8 * sizeof(float))));

/* row[c] = e^(row[c] - max); lo, hi (lanes 0-7, 8-15) += row[c]. The clamp
 * is its own loop: in one loop with the polynomial gcc folds the clamped
 * constant through it and leaves branches behind, which stops vectorisation.
 * Inlined into each clone (a function taking vectors would be compiled for
 * the default target). */
static inline __attribute__((always_inline)) void exp_chunk(float *restrict row, float max,
                                                            SumHalf *lo, SumHalf *hi)
{
    float x[SOFTMAX_LANES];
    for (int c = 0; c < SOFTMAX_LANES; c++) {
        float v = row[c] - max;
        x[c] = v > EXP_CLAMP ? v : EXP_CLAMP;
    }
    for (int c = 0; c < SOFTMAX_LANES; c++)
        row[c] = exp_nonpositive(x[c]);
    SumHalf a, b;
    memcpy(&a, row, sizeof a);
    memcpy(&b, row + 8, sizeof b);
    *lo += a, *hi += b;
}

static inline void scale_chunk(float *restrict row, float f)
{
    for (int c = 0; c < SOFTMAX_LANES; c++)
        row[c] *= f;
}

SOFTMAX_CLONES
void attention_softmax_row(float *row, int len)
{
    const int L = SOFTMAX_LANES, full = len - len % L;
    float m[SOFTMAX_LANES], acc[SOFTMAX_LANES], tail[SOFTMAX_LANES];
    SumHalf lo = {0}, hi = {0};
    assert(len >= 1);
    if (softmax_x86_available()) { /* the same operations, in registers */
        softmax_x86_row(row, len);
        return;
    }
    /* The tail is padded to a whole chunk: -inf pads weigh exactly 0. */
    for (int c = 0; c < L; c++) {
        m[c] = -INFINITY;
        tail[c] = full + c < len ? row[full + c] : -INFINITY;
    }
    for (int j = 0; j < full; j += L)
        max_chunk(row + j, m);
    max_chunk(tail, m);
    float max = m[0];
    for (int c = 1; c < L; c++)
        max = m[c] > max ? m[c] : max;
    assert(isfinite(max));
    /* Subtracting the maximum keeps e^x <= 1; -inf gives exactly 0. */
    for (int j = 0; j < full; j += L)
        exp_chunk(row + j, max, &lo, &hi);
    exp_chunk(tail, max, &lo, &hi);
    memcpy(acc, &lo, sizeof lo);
    memcpy(acc + 8, &hi, sizeof hi);
    float sum = 0.0f;
    for (int c = 0; c < L; c++)
        sum += acc[c];
    float inv = 1.0f / sum;
    for (int j = 0; j < full; j += L)
        scale_chunk(row + j, inv);
    scale_chunk(tail, inv);
    memcpy(row + full, tail, (size_t)(len - full) * sizeof *row);
}
