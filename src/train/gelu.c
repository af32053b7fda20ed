/* gelu.c - the MLP's bias and GELU forward pass eight floats at a time in
 * AVX2 intrinsics (private to src/train: ops.c's ops_bias_gelu_forward
 * takes it where the processor has AVX2).
 *
 * ops.c's chunks of fixed-length loops, which gcc -O2 vectorises, were a
 * visible part of a character model's step (README "Performance"): every
 * step of the tanh went through arrays on the stack. Here each
 * value stays in a register, and the operations are ops.c's, one for one
 * and in the same order (multiplies and adds, never fused; the division
 * and the truncation are exact in both), so the bits are the same.
 */
#include "gelu.h"

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define GELU_C 0.7978845608028654f /* sqrt(2 / pi), as in ops.c */
#define GELU_TARGET __attribute__((target("avx2")))
#define GELU_INLINE static inline __attribute__((always_inline)) GELU_TARGET

/* n (1 to 4) groups of eight, step by step across the groups (each step's n
 * operations next to each other), so that their n chains of dependent
 * operations overlap. */
GELU_INLINE void gelu_groups(const int n, float *g, float *t, float *h, const float *bias)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    const __m256 shifter = _mm256_set1_ps(12582912.0f);
    static const float coef[8] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24,
                                  1.0f / 6,    0.5f,       1.0f,       1.0f};
    __m256 x[4], u[4], a[4], k[4], r[4], p[4], e[4];
#define EACH _Pragma("GCC unroll 4") for (int q = 0; q < n; q++)
    EACH
    {
        x[q] = _mm256_add_ps(_mm256_loadu_ps(h + 8 * q), _mm256_loadu_ps(bias + 8 * q));
        _mm256_storeu_ps(h + 8 * q, x[q]);
    }
    EACH
    { /* u = GELU_C * (x + 0.044715 * x * x * x) */
        __m256 c = _mm256_mul_ps(_mm256_set1_ps(0.044715f), x[q]);
        c = _mm256_mul_ps(_mm256_mul_ps(c, x[q]), x[q]);
        u[q] = _mm256_mul_ps(_mm256_set1_ps(GELU_C), _mm256_add_ps(x[q], c));
    }
    EACH
    { /* a = max(-2 |u|, -87): a NaN stays a NaN, as in ops.c */
        a[q] = _mm256_mul_ps(_mm256_set1_ps(-2.0f), _mm256_andnot_ps(sign, u[q]));
        a[q] = _mm256_max_ps(_mm256_set1_ps(-87.0f), a[q]);
    }
    EACH
    {
        k[q] = _mm256_add_ps(_mm256_mul_ps(a[q], _mm256_set1_ps(1.44269504f)), shifter);
        k[q] = _mm256_sub_ps(k[q], shifter);
    }
    EACH
    {
        r[q] = _mm256_sub_ps(a[q], _mm256_mul_ps(k[q], _mm256_set1_ps(0.693145752f)));
        r[q] = _mm256_sub_ps(r[q], _mm256_mul_ps(k[q], _mm256_set1_ps(1.42860677e-6f)));
    }
    EACH p[q] = _mm256_set1_ps(coef[0]);
#pragma GCC unroll 8
    for (int c = 1; c < 8; c++) /* p = coef[c] + r * p, innermost first */
        EACH p[q] = _mm256_add_ps(_mm256_set1_ps(coef[c]), _mm256_mul_ps(r[q], p[q]));
    EACH
    {
        __m256i bits = _mm256_add_epi32(_mm256_cvttps_epi32(k[q]), _mm256_set1_epi32(127));
        e[q] = _mm256_mul_ps(p[q], _mm256_castsi256_ps(_mm256_slli_epi32(bits, 23)));
    }
    EACH
    {
        __m256 th = _mm256_div_ps(_mm256_sub_ps(one, e[q]), _mm256_add_ps(one, e[q]));
        __m256 tv = _mm256_or_ps(_mm256_andnot_ps(sign, th), _mm256_and_ps(sign, u[q]));
        _mm256_storeu_ps(t + 8 * q, tv);
        _mm256_storeu_ps(g + 8 * q, _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x[q]),
                                                  _mm256_add_ps(one, tv)));
    }
#undef EACH
}

/* Columns [0, w8) of rows [0, N), four groups of eight a step where there are. */
GELU_TARGET static void rows(float *g, float *t, float *h, const float *bias, int N, int W, int w8)
{
    for (int r = 0; r < N; r++) {
        const long o = (long)r * W;
        int c = 0;
        for (; c + 32 <= w8; c += 32)
            gelu_groups(4, g + o + c, t + o + c, h + o + c, bias + c);
        for (; c < w8; c += 8)
            gelu_groups(1, g + o + c, t + o + c, h + o + c, bias + c);
    }
}

int gelu_rows_avx2(float *g, float *t, float *h, const float *bias, int N, int W)
{
    __builtin_cpu_init();
    if (!bias || !__builtin_cpu_supports("avx2"))
        return 0;
    const int w8 = W - W % 8;
    rows(g, t, h, bias, N, W, w8);
    return w8;
}
#else
int gelu_rows_avx2(float *g, float *t, float *h, const float *bias, int N, int W)
{
    (void)g, (void)t, (void)h, (void)bias, (void)N, (void)W;
    return 0;
}
#endif
