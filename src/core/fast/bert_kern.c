/* bert_kern.c - BERT's linear layers turned over, y^T = W x^T (bert_kern.h).
 *
 * A sentence has few rows (tens of tokens) and every weight matrix is
 * large, so the weights are the operand to stream: W's rows, stored (out,
 * in), are the left operand read in place, each broadcast one term at a
 * time, and x^T is the packed right operand (panels of 16 columns, k
 * rows each), small enough to stay in L2 while all of W passes. With
 * AVX-512 a tile is up to 12 rows of W by two panels (32 columns: a
 * 32-token sentence whole), 24 of the 32 registers summing, so each weight
 * is read once from memory and used for 32 products. Elsewhere the packed
 * AVX2 kernel of mat.h, which takes one panel at a time. Both sum every
 * element as one chain of fused multiply-adds over k from zero: the same
 * bits.
 */
#include "bert_kern.h"

#include <assert.h>
#include <stdbool.h>

#include "core/mat.h"

enum { BERTK_NR = 16, BERTK_MR = 12 };

#if defined(__x86_64__) && defined(__GNUC__)
#define BERTK_X86 1
#include <immintrin.h>
#define BERTK_TARGET512 __attribute__((target("avx512f,avx2,fma")))
#else
#define BERTK_X86 0
#endif

#if BERTK_X86
static bool bertk_avx512(void)
{
    static int has = -1;
    if (has < 0) {
        __builtin_cpu_init();
        has = __builtin_cpu_supports("avx512f") && mat_packed_available();
    }
    return has;
}

/* Add (or, first, store) R rows of P panels' float sums c to Yd's doubles,
 * the first w_last columns of the last panel. */
static inline __attribute__((always_inline)) BERTK_TARGET512 void
add512(int R, int P, __m512 c[][2], double *Yd, int ldy, int w_last, bool first)
{
    const __mmask16 lastf = (__mmask16)((1u << w_last) - 1u);
    const __mmask8 lo = (__mmask8)(lastf & 0xff), hi = (__mmask8)(lastf >> 8);
#pragma GCC unroll 12
    for (int r = 0; r < R; r++)
#pragma GCC unroll 2
        for (int q = 0; q < P; q++) {
            double *y = Yd + (size_t)r * ldy + q * BERTK_NR;
            const __mmask8 m0 = q == P - 1 ? lo : 0xff, m1 = q == P - 1 ? hi : 0xff;
            __m512d d0 = _mm512_cvtps_pd(_mm512_castps512_ps256(c[r][q]));
            __m512d d1 = _mm512_cvtps_pd(
                _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(c[r][q]), 1)));
            if (!first) {
                d0 = _mm512_add_pd(_mm512_maskz_loadu_pd(m0, y), d0);
                d1 = _mm512_add_pd(_mm512_maskz_loadu_pd(m1, y + 8), d1);
            }
            _mm512_mask_storeu_pd(y, m0, d0);
            _mm512_mask_storeu_pd(y + 8, m1, d1);
        }
}

/* Rows [0, R) of the P (1 or 2) panels at Xp (kp 16 floats apart), the
 * first w_last columns of the last panel, R P chains in flight: with Yt,
 * one float chain over K into Yt; with Yd, a chain over each kb terms
 * from zero, added to Yd's doubles in order. */
static inline __attribute__((always_inline)) BERTK_TARGET512 void
tile512(int R, int P, int K, int kb, const float *W, int ldw, const float *Xp, int kp, float *Yt,
        double *Yd, int ldy, int w_last)
{
    __m512 c[BERTK_MR][2];
    const float *b1 = Xp + (size_t)BERTK_NR * kp;
    for (int k0 = 0; k0 < K || k0 == 0; k0 += kb) {
        const int k1 = K - k0 < kb ? K : k0 + kb;
#pragma GCC unroll 12
        for (int r = 0; r < R; r++)
#pragma GCC unroll 2
            for (int q = 0; q < P; q++)
                c[r][q] = _mm512_setzero_ps();
        for (int k = k0; k < k1; k++) {
            const __m512 b0v = _mm512_loadu_ps(Xp + (size_t)k * BERTK_NR);
            const __m512 b1v = P > 1 ? _mm512_loadu_ps(b1 + (size_t)k * BERTK_NR) : b0v;
#pragma GCC unroll 12
            for (int r = 0; r < R; r++) {
                const __m512 a = _mm512_set1_ps(W[(size_t)r * ldw + k]);
                c[r][0] = _mm512_fmadd_ps(a, b0v, c[r][0]);
                if (P > 1)
                    c[r][1] = _mm512_fmadd_ps(a, b1v, c[r][1]);
            }
        }
        if (Yd)
            add512(R, P, c, Yd, ldy, w_last, k0 == 0);
    }
    if (Yd)
        return;
    const __mmask16 last = (__mmask16)((1u << w_last) - 1u);
#pragma GCC unroll 12
    for (int r = 0; r < R; r++) {
        float *y = Yt + (size_t)r * ldy;
        if (P > 1) {
            _mm512_storeu_ps(y, c[r][0]);
            _mm512_mask_storeu_ps(y + BERTK_NR, last, c[r][1]);
        } else {
            _mm512_mask_storeu_ps(y, last, c[r][0]);
        }
    }
}

/* Rows [0, R) of Yt (R <= BERTK_MR) against P panels. */
BERTK_TARGET512 static void rows512(int R, int P, int K, int kb, const float *W, int ldw,
                                    const float *Xp, int kp, float *Yt, double *Yd, int ldy,
                                    int w_last)
{
#define BERTK_CASE(r)                                                                              \
    case r:                                                                                        \
        if (P > 1)                                                                                 \
            tile512(r, 2, K, kb, W, ldw, Xp, kp, Yt, Yd, ldy, w_last);                             \
        else                                                                                       \
            tile512(r, 1, K, kb, W, ldw, Xp, kp, Yt, Yd, ldy, w_last);                             \
        break;
    switch (R) {
        BERTK_CASE(1)
        BERTK_CASE(2)
        BERTK_CASE(3)
        BERTK_CASE(4)
        BERTK_CASE(5)
        BERTK_CASE(6)
        BERTK_CASE(7)
        BERTK_CASE(8)
        BERTK_CASE(9)
        BERTK_CASE(10)
        BERTK_CASE(11)
        BERTK_CASE(12)
    }
#undef BERTK_CASE
}

/* Every pair of panels (the last one alone when their count is odd), tiles
 * of BERTK_MR rows of W and what is left. */
BERTK_TARGET512 static void linear_t512(int M, int n, int K, int kb, const float *W, int ldw,
                                        const float *Xp, int kp, float *Yt, double *Yd, int ldy)
{
    for (int j = 0; j < n; j += 2 * BERTK_NR) {
        const int P = n - j > BERTK_NR ? 2 : 1;
        const int w_last =
            n - j - (P - 1) * BERTK_NR < BERTK_NR ? n - j - (P - 1) * BERTK_NR : BERTK_NR;
        const float *panel = Xp + (size_t)j * kp;
        for (int i = 0; i < M; i += BERTK_MR) {
            const int R = M - i < BERTK_MR ? M - i : BERTK_MR;
            rows512(R, P, K, kb, W + (size_t)i * ldw, ldw, panel, kp,
                    Yt ? Yt + (size_t)i * ldy + j : NULL, Yd ? Yd + (size_t)i * ldy + j : NULL, ldy,
                    w_last);
        }
    }
}
#endif

void bertk_linear_t(int M, int n, int K, const float *W, int ldw, const float *Xp, int kp,
                    float *Yt, int ldy)
{
    assert(mat_packed_available());
    assert(M >= 0 && n > 0 && K > 0 && ldw >= K && kp >= K && ldy >= n);
#if BERTK_X86
    if (bertk_avx512()) {
        linear_t512(M, n, K, K, W, ldw, Xp, kp, Yt, NULL, ldy);
        return;
    }
#endif
    /* Yt (M, n) = W (M, K) x^T (K, n) */
    mat_sgemm_packed(M, n, K, 1.0f, W, ldw, Xp, kp, Yt, ldy);
}

void bertk_linear_blocks(int M, int n, int K, int kb, const float *W, int ldw, const float *Xp,
                         int kp, double *Yd, int ldy, float *tmp)
{
    assert(mat_packed_available());
    assert(M >= 0 && n > 0 && K > 0 && kb > 0 && ldw >= K && kp >= K && ldy >= n);
#if BERTK_X86
    if (bertk_avx512()) {
        linear_t512(M, n, K, kb, W, ldw, Xp, kp, NULL, Yd, ldy);
        return;
    }
#endif
    for (int k0 = 0; k0 < K; k0 += kb) {
        const int b = K - k0 < kb ? K - k0 : kb;
        bertk_linear_t(M, n, b, W + k0, ldw, Xp + (size_t)BERTK_NR * k0, kp, tmp, n);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < n; j++) {
                double *y = Yd + (size_t)i * ldy + j;
                *y = k0 ? *y + tmp[(size_t)i * n + j] : tmp[(size_t)i * n + j];
            }
    }
}

const char *bertk_kernel(void)
{
#if BERTK_X86
    if (bertk_avx512())
        return "avx512+fma";
#endif
    return mat_packed_available() ? "avx2+fma" : "plain";
}
