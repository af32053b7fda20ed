/* mat.h - the one wrapper around cblas_sgemm, its kernel for tiny products,
 * and its plain-C reference.
 *
 * Row-major everywhere. C (M, N) = alpha * op(A) (M, K) * op(B) (K, N) + beta * C.
 * Leading dimensions let callers address column slices (a head's d_k columns)
 * in place. With NO_BLAS=1 the reference does the work.
 */
#ifndef ATTNVIZ_MAT_H
#define ATTNVIZ_MAT_H

#include <stdbool.h>

/* Products of at most this many multiply-adds, A not transposed, run
 * mat_sgemm_small instead of cblas_sgemm, whose fixed cost is larger there. */
#define MAT_SMALL_MNK (1L << 18)

/* C = alpha * op(A) op(B) + beta * C through cblas_sgemm, or mat_sgemm_small
 * when mat_small_fits (or the reference with NO_BLAS). */
void mat_sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
               const float *A, int lda, const float *B, int ldb, float beta,
               float *C, int ldc);

/* Whether mat_sgemm takes the small kernel for this product. */
bool mat_small_fits(bool trans_a, int M, int N, int K);

/* The small kernel itself, A not transposed; needs mat_small_fits(false, M, N, K).
 * Each element is summed over k in order in float, so it does not depend on
 * the machine's vector width. */
void mat_sgemm_small(bool trans_b, int M, int N, int K, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc);

/* The same product by three plain loops in double: the test oracle. */
void mat_sgemm_ref(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                   const float *A, int lda, const float *B, int ldb, float beta,
                   float *C, int ldc);

/* Set BLAS threads: 1 for the small matrices of interactive use, more for big
 * ones. A no-op without OpenBLAS. */
void mat_set_threads(int n);

/* The kernel OpenBLAS chose for this processor when it loaded
 * (openblas_get_corename: "Haswell", "SkylakeX", "Prescott", ...), or "none"
 * without BLAS. A static string; never NULL. */
const char *mat_blas_kernel(void);

/* OpenBLAS's build line ("OpenBLAS 0.3.21 DYNAMIC_ARCH ... Haswell ..."), or
 * "none" without BLAS. A static string; never NULL. */
const char *mat_blas_config(void);

/* Whether this OpenBLAS carries kernels for several processors and so obeys
 * OPENBLAS_CORETYPE when it loads (a DYNAMIC_ARCH build). */
bool mat_blas_switchable(void);

#endif
