/* mat.h - the one wrapper around cblas_sgemm, and its plain-C reference.
 *
 * Row-major everywhere. C (M, N) = alpha * op(A) (M, K) * op(B) (K, N) + beta * C.
 * Leading dimensions let callers address column slices (a head's d_k columns)
 * in place. With NO_BLAS=1 the reference does the work.
 */
#ifndef ATTNVIZ_MAT_H
#define ATTNVIZ_MAT_H

#include <stdbool.h>

/* C = alpha * op(A) op(B) + beta * C through cblas_sgemm (or the reference). */
void mat_sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
               const float *A, int lda, const float *B, int ldb, float beta,
               float *C, int ldc);

/* The same product by three plain loops in double: the test oracle. */
void mat_sgemm_ref(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                   const float *A, int lda, const float *B, int ldb, float beta,
                   float *C, int ldc);

/* Set BLAS threads: 1 for the small matrices of interactive use, more for big
 * ones. A no-op without OpenBLAS. */
void mat_set_threads(int n);

#endif
