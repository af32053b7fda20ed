/* exp_x86.h - attn_kernels.h's exp_nonpositive on 8 lanes of AVX2,
 * operation for operation (no fused multiply-add), so a lane gives the bits
 * the scalar function gives. Private to src/core/: softmax_x86.c's softmax
 * and gpt2_kern.c's GELU include it inside their AVX2 code, after including
 * <immintrin.h>; only x86-64 builds with gcc or clang see it.
 */
#ifndef ATTNVIZ_EXP_X86_H
#define ATTNVIZ_EXP_X86_H

#include <immintrin.h>

#include "attn_kernels.h"

/* e^x on each lane, x in [EXP_CLAMP, 0]; exactly 0 where k < EXP_KMIN. */
static inline __attribute__((always_inline, target("avx2"))) __m256 exp8(__m256 x)
{
    const __m256 shift = _mm256_set1_ps(0x1.8p23f);
    __m256 kf =
        _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)), shift), shift);
    __m256 r = _mm256_sub_ps(x, _mm256_mul_ps(kf, _mm256_set1_ps(0.693359375f)));
    r = _mm256_sub_ps(r, _mm256_mul_ps(kf, _mm256_set1_ps(-2.12194440e-4f)));
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(p, r), r), r),
                      _mm256_set1_ps(1.0f));
    __m256i bits =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(kf), _mm256_set1_epi32(127)), 23);
    __m256 keep = _mm256_cmp_ps(kf, _mm256_set1_ps(EXP_KMIN), _CMP_GT_OQ);
    return _mm256_mul_ps(p, _mm256_and_ps(_mm256_castsi256_ps(bits), keep));
}

#endif
