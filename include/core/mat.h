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
#include <stddef.h>

/* Products of at most this many multiply-adds, A not transposed, run
 * mat_sgemm_small instead of cblas_sgemm, whose fixed cost is larger there. */
#define MAT_SMALL_MNK (1L << 18)

/* Asserts that op(A) (M, K), op(B) (K, N) and C (M, N) fit their leading
 * dimensions (nothing with NDEBUG): every product's first line. */
void mat_check_shapes(bool trans_a, bool trans_b, int M, int N, int K, int lda, int ldb, int ldc);

/* C = alpha * op(A) op(B) + beta * C through cblas_sgemm, or mat_sgemm_small
 * when mat_small_fits, or mat_sgemm_tiled when !mat_blas_usable() (the
 * reference with NO_BLAS). */
void mat_sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A,
               int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* OpenBLAS maps a buffer of this many bytes for each thread that calls
 * cblas_sgemm, on its first call, and when the map fails it tries again for
 * ever (0.3.21's blas_memory_alloc): under an address-space limit
 * (RLIMIT_AS, ulimit -v) below MAT_BLAS_AS_MIN no product goes to it. */
#define MAT_BLAS_BUFFER ((size_t)128 << 20)
#define MAT_BLAS_AS_MIN ((unsigned long long)1 << 30)

/* Whether products past mat_sgemm_small may go to cblas_sgemm now: no
 * address-space limit, or one of at least MAT_BLAS_AS_MIN that still leaves
 * room for two of OpenBLAS's buffers (a map reserved and given back). False
 * with NO_BLAS. mat_sgemm asks it before each cblas_sgemm call and takes
 * mat_sgemm_tiled when it says no, so a small limit never hangs. */
bool mat_blas_usable(void);

/* The same product by attnviz's own kernel on any shape and transposes:
 * mat_sgemm_small's sums on tiles packed on the stack (K summed tile by
 * tile). Allocates nothing. */
void mat_sgemm_tiled(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A,
                     int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* Whether mat_sgemm takes the small kernel for this product. */
bool mat_small_fits(bool trans_a, int M, int N, int K);

/* The small kernel itself, A not transposed; needs mat_small_fits(false, M, N, K).
 * Each element is summed over k in order in float, so it does not depend on
 * the machine's vector width. */
void mat_sgemm_small(bool trans_b, int M, int N, int K, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc);

/* Whether mat_sgemm_small_multi takes these sizes: N a multiple of 32 and
 * each product within mat_small_fits. */
bool mat_small_multi_fits(int M, int N, int K);

/* C_p (M, N) = A (M, K) B_p (K, N) for p < count (1 to 3), one pass over A
 * (a sentence's Q, K and V from the same X): each C_p the bits of
 * mat_sgemm_small(false, M, N, K, 1, A, lda, B_p, ldb, 0, C_p, ldc). Needs
 * mat_small_multi_fits(M, N, K); every B_p has leading dimension ldb, every
 * C_p ldc. */
void mat_sgemm_small_multi(int count, int M, int N, int K, const float *A, int lda,
                           const float *const *B, int ldb, float *const *C, int ldc);

/* Thin products against a right operand packed once: a head's K_h^T or V_h,
 * reused by every block of query rows. Runs a register-tiled AVX2+FMA kernel
 * (src/core/fast/thin.c), so it exists only where mat_packed_available says so;
 * elsewhere (no AVX2 and FMA, or NO_BLAS) callers keep mat_sgemm. */
bool mat_packed_available(void);

/* Floats mat_pack needs for op(B) of K rows and N columns. */
size_t mat_packed_floats(int K, int N);

/* Copy op(B) (K, N) into Bp (mat_packed_floats(K, N) floats, the caller's):
 * trans_b: B is (N, K) with leading dimension ldb, else (K, N). */
void mat_pack(bool trans_b, int K, int N, const float *B, int ldb, float *Bp);

/* mat_pack of a part: op(B) (K, N) becomes rows [k0, k0 + K) and columns
 * [j0, j0 + N) of Bp, a pack of kp rows (mat_pack(.., kp, N', ..)), j0 a
 * multiple of 16 (a panel's first column). Parts that tile op(B) give the
 * pack mat_pack gives, so two threads can pack the rows they computed. */
void mat_pack_part(bool trans_b, int K, int N, const float *B, int ldb, float *Bp, int kp, int k0,
                   int j0);

/* C (M, N) = alpha A (M, K) op(B) (K, N) + 0 C, op(B) being the first K rows
 * and N columns of Bp = mat_pack(.., kp, N', ..) with K <= kp and N <= N'.
 * Needs mat_packed_available(). Each element sums its K products in order
 * with fused multiply-adds (so its bits do not depend on M, on the row
 * block, or on the thread). */
void mat_sgemm_packed(int M, int N, int K, float alpha, const float *A, int lda, const float *Bp,
                      int kp, float *C, int ldc);

/* mat_sgemm_packed under a causal mask, for row i of the call: tri_n > 0:
 * only columns below i + tri_n are wanted (the others may keep what they
 * held or get anything); tri_k > 0: A's row i is zero from column i + tri_k
 * on and those terms are skipped (the same bits). 0: no limit. */
void mat_sgemm_packed_tri(int M, int N, int K, float alpha, const float *A, int lda,
                          const float *Bp, int kp, float *C, int ldc, int tri_n, int tri_k);

/* The same product by three plain loops in double: the test oracle. */
void mat_sgemm_ref(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A,
                   int lda, const float *B, int ldb, float beta, float *C, int ldc);

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
