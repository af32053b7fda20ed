/* softmax_x86.c - attention_softmax_row's arithmetic in AVX2 intrinsics.
 *
 * The same IEEE operations in the same order as the portable code in
 * softmax.c (attn_kernels.h's exp_nonpositive, SOFTMAX_LANES partial sums
 * added in lane order), so the bits are the same; no fused multiply-add.
 * What changes is where the numbers live: gcc's vectorised version of the
 * portable loops kept the clamped chunk and some constants on the stack and
 * ran the polynomial as a two-step inner loop; here every step of a chunk is
 * in ymm registers. Built with a target attribute, so it is only called
 * where softmax_x86_available says the processor has AVX2.
 */
#include "attn_kernels.h"

#include <assert.h>
#include <math.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define SX_TARGET __attribute__((target("avx2")))
#define SX_INLINE static inline __attribute__((always_inline)) SX_TARGET

#include "exp_x86.h"

bool softmax_x86_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

/* row[c] = e^(max(row[c] - max, EXP_CLAMP)) for 16 floats; sums lane by lane. */
SX_INLINE void exp16(float *row, __m256 max, __m256 *lo, __m256 *hi)
{
    const __m256 clamp = _mm256_set1_ps(EXP_CLAMP);
    __m256 a = exp8(_mm256_max_ps(_mm256_sub_ps(_mm256_loadu_ps(row), max), clamp));
    __m256 b = exp8(_mm256_max_ps(_mm256_sub_ps(_mm256_loadu_ps(row + 8), max), clamp));
    _mm256_storeu_ps(row, a);
    _mm256_storeu_ps(row + 8, b);
    *lo = _mm256_add_ps(*lo, a);
    *hi = _mm256_add_ps(*hi, b);
}

/* Two chunks at once: four independent polynomials in flight (one is a
 * chain of some twenty dependent operations), their sums added chunk by
 * chunk in order, as exp16 twice would. */
SX_INLINE void exp32(float *row, __m256 max, __m256 *lo, __m256 *hi)
{
    const __m256 clamp = _mm256_set1_ps(EXP_CLAMP);
    /* four named values: as an array gcc kept them on the stack */
    __m256 e0 = exp8(_mm256_max_ps(_mm256_sub_ps(_mm256_loadu_ps(row), max), clamp));
    __m256 e1 = exp8(_mm256_max_ps(_mm256_sub_ps(_mm256_loadu_ps(row + 8), max), clamp));
    __m256 e2 = exp8(_mm256_max_ps(_mm256_sub_ps(_mm256_loadu_ps(row + 16), max), clamp));
    __m256 e3 = exp8(_mm256_max_ps(_mm256_sub_ps(_mm256_loadu_ps(row + 24), max), clamp));
    _mm256_storeu_ps(row, e0);
    _mm256_storeu_ps(row + 8, e1);
    _mm256_storeu_ps(row + 16, e2);
    _mm256_storeu_ps(row + 24, e3);
    *lo = _mm256_add_ps(*lo, e0);
    *hi = _mm256_add_ps(*hi, e1);
    *lo = _mm256_add_ps(*lo, e2);
    *hi = _mm256_add_ps(*hi, e3);
}

SX_TARGET void softmax_x86_row(float *row, int len)
{
    enum { L = SOFTMAX_LANES };
    const int full = len - len % L;
    float tail[L], m[L], acc[L];
    assert(len >= 1 && L == 16);
    for (int c = 0; c < L; c++)
        tail[c] = full + c < len ? row[full + c] : -INFINITY;
    /* max_chunk: m[c] = row[c] > m[c] ? row[c] : m[c], which is maxps(row, m) */
    __m256 m0 = _mm256_set1_ps(-INFINITY), m1 = m0;
    for (int j = 0; j < full; j += L) {
        m0 = _mm256_max_ps(_mm256_loadu_ps(row + j), m0);
        m1 = _mm256_max_ps(_mm256_loadu_ps(row + j + 8), m1);
    }
    m0 = _mm256_max_ps(_mm256_loadu_ps(tail), m0);
    m1 = _mm256_max_ps(_mm256_loadu_ps(tail + 8), m1);
    _mm256_storeu_ps(m, m0);
    _mm256_storeu_ps(m + 8, m1);
    float max = m[0];
    for (int c = 1; c < L; c++)
        max = m[c] > max ? m[c] : max;
    assert(isfinite(max));
    const __m256 vmax = _mm256_set1_ps(max);
    __m256 lo = _mm256_setzero_ps(), hi = lo;
    int j = 0;
    for (; j + 2 * L <= full; j += 2 * L)
        exp32(row + j, vmax, &lo, &hi);
    for (; j < full; j += L)
        exp16(row + j, vmax, &lo, &hi);
    exp16(tail, vmax, &lo, &hi);
    _mm256_storeu_ps(acc, lo);
    _mm256_storeu_ps(acc + 8, hi);
    float sum = 0.0f;
    for (int c = 0; c < L; c++)
        sum += acc[c];
    const float inv = 1.0f / sum;
    const __m256 vinv = _mm256_set1_ps(inv);
    for (int k = 0; k < full; k += 8)
        _mm256_storeu_ps(row + k, _mm256_mul_ps(_mm256_loadu_ps(row + k), vinv));
    for (int c = 0; c < len - full; c++)
        row[full + c] = tail[c] * inv;
}

#else

bool softmax_x86_available(void)
{
    return false;
}

void softmax_x86_row(float *row, int len)
{
    (void)row, (void)len;
    assert(!"softmax_x86_row without x86");
}

#endif
