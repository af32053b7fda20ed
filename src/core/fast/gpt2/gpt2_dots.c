/* gpt2_dots.c - the logits' dots (gpt2_kern.h): out[v] = x . A[v] over
 * lm_head's rows, one pass over A for a row of x or, for the logit lens,
 * for several rows at once, each dot the same chain whichever.
 */
#include "gpt2_kern.h"

#include <assert.h>
#include <math.h>

#include "core/mat.h"
#include "gpt2_x86.h"

enum { KERN_DOTS_ROWS = 6 }; /* rows of X gpt2k_dots_rows takes a pass over A for */

#if KERN_X86
KERN_TARGET static void dots_avx2(int N, int K, const float *A, int lda, const float *x, float *out)
{
    for (int v = 0; v < N; v++) {
        const float *a = A + (size_t)v * lda;
        __m256 c0 = _mm256_setzero_ps(), c1 = c0;
        int k = 0;
        for (; k + 16 <= K; k += 16) {
            c0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(x + k), c0);
            c1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k + 8), _mm256_loadu_ps(x + k + 8), c1);
        }
        float lanes[8], s = 0.0f;
        _mm256_storeu_ps(lanes, _mm256_add_ps(c0, c1));
        for (int q = 0; q < 8; q++)
            s += lanes[q];
        for (; k < K; k++)
            s = fmaf(a[k], x[k], s);
        out[v] = s;
    }
}
#endif

void gpt2k_dots(int N, int K, const float *A, int lda, const float *x, float *out)
{
    assert(N >= 0 && K > 0 && lda >= K);
#if KERN_X86
    if (mat_packed_available()) {
        dots_avx2(N, K, A, lda, x, out);
        return;
    }
#endif
    for (int v = 0; v < N; v++) {
        const float *a = A + (size_t)v * lda;
        double s = 0.0;
        for (int k = 0; k < K; k++)
            s += (double)a[k] * x[k];
        out[v] = (float)s;
    }
}

#if KERN_X86
/* dots_avx2 for R rows of X at once: each row of A read once for all R,
 * each (row, v) summed in dots_avx2's order, so the bits are its. */
static inline __attribute__((always_inline)) KERN_TARGET void
dots_rows_tile(int R, int N, int K, const float *A, int lda, const float *X, int ldx, float *out,
               int ldo)
{
    for (int v = 0; v < N; v++) {
        const float *a = A + (size_t)v * lda;
        __m256 c0[KERN_DOTS_ROWS], c1[KERN_DOTS_ROWS];
#pragma GCC unroll 6
        for (int r = 0; r < R; r++)
            c0[r] = _mm256_setzero_ps(), c1[r] = c0[r];
        int k = 0;
        for (; k + 16 <= K; k += 16) {
            const __m256 a0 = _mm256_loadu_ps(a + k), a1 = _mm256_loadu_ps(a + k + 8);
#pragma GCC unroll 6
            for (int r = 0; r < R; r++) {
                const float *x = X + (size_t)r * ldx + k;
                c0[r] = _mm256_fmadd_ps(a0, _mm256_loadu_ps(x), c0[r]);
                c1[r] = _mm256_fmadd_ps(a1, _mm256_loadu_ps(x + 8), c1[r]);
            }
        }
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            const float *x = X + (size_t)r * ldx;
            float lanes[8], s = 0.0f;
            _mm256_storeu_ps(lanes, _mm256_add_ps(c0[r], c1[r]));
            for (int q = 0; q < 8; q++)
                s += lanes[q];
            for (int j = k; j < K; j++)
                s = fmaf(a[j], x[j], s);
            out[(size_t)r * ldo + v] = s;
        }
    }
}

KERN_TARGET static void dots_rows_avx2(int R, int N, int K, const float *A, int lda, const float *X,
                                       int ldx, float *out, int ldo)
{
    switch (R) {
    case 1: dots_rows_tile(1, N, K, A, lda, X, ldx, out, ldo); break;
    case 2: dots_rows_tile(2, N, K, A, lda, X, ldx, out, ldo); break;
    case 3: dots_rows_tile(3, N, K, A, lda, X, ldx, out, ldo); break;
    case 4: dots_rows_tile(4, N, K, A, lda, X, ldx, out, ldo); break;
    case 5: dots_rows_tile(5, N, K, A, lda, X, ldx, out, ldo); break;
    default: dots_rows_tile(6, N, K, A, lda, X, ldx, out, ldo); break;
    }
}
#endif

void gpt2k_dots_rows(int R, int N, int K, const float *A, int lda, const float *X, int ldx,
                     float *out, int ldo)
{
    assert(R >= 0 && N >= 0 && K > 0 && lda >= K && ldx >= K && ldo >= N);
    for (int r0 = 0; r0 < R; r0 += KERN_DOTS_ROWS) {
        const int r = R - r0 < KERN_DOTS_ROWS ? R - r0 : KERN_DOTS_ROWS;
#if KERN_X86
        if (mat_packed_available()) {
            dots_rows_avx2(r, N, K, A, lda, X + (size_t)r0 * ldx, ldx, out + (size_t)r0 * ldo, ldo);
            continue;
        }
#endif
        for (int q = 0; q < r; q++)
            gpt2k_dots(N, K, A, lda, X + (size_t)(r0 + q) * ldx, out + (size_t)(r0 + q) * ldo);
    }
}
