/* mat.c - the one wrapper around cblas_sgemm, and the plain-C reference.
 *
 * Every matrix product of attnviz goes through mat_sgemm, so shapes are
 * asserted in one place and NO_BLAS=1 swaps in the reference. The reference
 * accumulates in double: it is the oracle the tests hold the fast path to.
 */
#include "mat.h"

#include <assert.h>

#ifndef NO_BLAS
#include <cblas.h>
#endif

/* Element (r, c) of op(X), X row-major with leading dimension ld. */
static inline float elem(const float *X, int ld, bool trans, int r, int c)
{
    return trans ? X[(long)c * ld + r] : X[(long)r * ld + c];
}

static void check_shapes(bool trans_a, bool trans_b, int M, int N, int K, int lda, int ldb,
                         int ldc)
{
    (void)trans_a, (void)trans_b, (void)M, (void)N, (void)K, (void)lda, (void)ldb, (void)ldc;
    assert(M >= 0 && N >= 0 && K >= 0);
    assert(lda >= (trans_a ? M : K) && lda >= 1);
    assert(ldb >= (trans_b ? K : N) && ldb >= 1);
    assert(ldc >= N && ldc >= 1);
}

void mat_sgemm_ref(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                   const float *A, int lda, const float *B, int ldb, float beta,
                   float *C, int ldc)
{
    check_shapes(trans_a, trans_b, M, N, K, lda, ldb, ldc);
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
                acc += (double)elem(A, lda, trans_a, i, k) * elem(B, ldb, trans_b, k, j);
            float *c = &C[(long)i * ldc + j];
            /* beta == 0 must ignore C entirely (it may hold garbage or NaN). */
            *c = (float)(alpha * acc + (beta == 0.0f ? 0.0 : (double)beta * *c));
        }
    }
}

void mat_sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
               const float *A, int lda, const float *B, int ldb, float beta,
               float *C, int ldc)
{
    check_shapes(trans_a, trans_b, M, N, K, lda, ldb, ldc);
    if (M == 0 || N == 0)
        return;
#ifdef NO_BLAS
    mat_sgemm_ref(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#else
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, M, N, K, alpha,
                A, lda,
                B, ldb,
                beta, C, ldc);
#endif
}

void mat_set_threads(int n)
{
#if !defined(NO_BLAS) && defined(OPENBLAS_VERSION)
    openblas_set_num_threads(n < 1 ? 1 : n);
#else
    (void)n;
#endif
}
