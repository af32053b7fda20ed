/* mat.c - the one wrapper around cblas_sgemm and the plain-C reference; the
 * kernel for tiny products is fast/small.c's.
 *
 * Every matrix product of attnviz goes through mat_sgemm, so shapes are
 * asserted in one place and NO_BLAS=1 swaps in the reference. Products of at
 * most MAT_SMALL_MNK multiply-adds (a ten-token sentence's: 10 x 32 x 32
 * projections, 10 x 10 x 8 head scores) run mat_sgemm_small: OpenBLAS spends
 * more on dispatch, locking and packing than on the arithmetic there (about
 * twice the time: README "Performance"); mat_sgemm_small_multi makes a sentence's Q, K and V in
 * one pass over X with the same sums. Larger ones, everything the forward
 * benchmark times, go to cblas_sgemm. The heads' thin products against a
 * packed K_h^T or V_h
 * (mat_sgemm_packed) go to thin.c's AVX2+FMA kernel. The reference
 * accumulates in double: it is the oracle the tests hold the fast paths to.
 */
#include "core/mat.h"

#include <assert.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "fast/thin.h"

#ifndef NO_BLAS
#include <cblas.h>
#endif

/* Element (r, c) of op(X), X row-major with leading dimension ld. */
static inline float elem(const float *X, int ld, bool trans, int r, int c)
{
    return trans ? X[(long)c * ld + r] : X[(long)r * ld + c];
}

void mat_check_shapes(bool trans_a, bool trans_b, int M, int N, int K, int lda, int ldb, int ldc)
{
    (void)trans_a, (void)trans_b, (void)M, (void)N, (void)K, (void)lda, (void)ldb, (void)ldc;
    assert(M >= 0 && N >= 0 && K >= 0);
    assert(lda >= (trans_a ? M : K) && lda >= 1);
    assert(ldb >= (trans_b ? K : N) && ldb >= 1);
    assert(ldc >= N && ldc >= 1);
}

void mat_sgemm_ref(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A,
                   int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    mat_check_shapes(trans_a, trans_b, M, N, K, lda, ldb, ldc);
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

bool mat_blas_usable(void)
{
#ifdef NO_BLAS
    return false;
#else
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return true;
    if (r.rlim_cur < MAT_BLAS_AS_MIN)
        return false;
    /* room for the buffers of the forward's two threads, reserved and
     * given back: a PROT_NONE map counts against RLIMIT_AS as theirs will */
    const size_t room = 2 * MAT_BLAS_BUFFER + ((size_t)1 << 20);
    void *p = mmap(NULL, room, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return false;
    munmap(p, room);
    return true;
#endif
}

void mat_sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A,
               int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    mat_check_shapes(trans_a, trans_b, M, N, K, lda, ldb, ldc);
    if (M == 0 || N == 0)
        return;
#ifdef NO_BLAS
    mat_sgemm_ref(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#else
    if (mat_small_fits(trans_a, M, N, K)) {
        mat_sgemm_small(trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    if (!mat_blas_usable()) {
        mat_sgemm_tiled(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
#endif
}

bool mat_packed_available(void)
{
#ifdef NO_BLAS
    return false;
#else
    return thin_available();
#endif
}

size_t mat_packed_floats(int K, int N)
{
    return thin_packed_floats(K, N);
}

void mat_pack(bool trans_b, int K, int N, const float *B, int ldb, float *Bp)
{
    assert(K >= 0 && N >= 0 && ldb >= (trans_b ? K : N) && ldb >= 1);
    thin_pack(trans_b, K, N, B, ldb, Bp);
}

void mat_pack_part(bool trans_b, int K, int N, const float *B, int ldb, float *Bp, int kp, int k0,
                   int j0)
{
    assert(K >= 0 && N >= 0 && k0 >= 0 && k0 + K <= kp && j0 >= 0 && j0 % THIN_NR == 0);
    assert(ldb >= (trans_b ? K : N) && ldb >= 1);
    thin_pack_into(trans_b, K, N, B, ldb, Bp + (size_t)k0 * THIN_NR + (size_t)j0 * kp, kp);
}

void mat_sgemm_packed_tri(int M, int N, int K, float alpha, const float *A, int lda,
                          const float *Bp, int kp, float *C, int ldc, int tri_n, int tri_k)
{
    const ThinTri tri = {tri_n > 0 ? tri_n : 0, tri_k > 0 ? tri_k : 0};
    assert(mat_packed_available());
    assert(M >= 0 && N >= 0 && K >= 0 && K <= kp && lda >= K && lda >= 1 && ldc >= N);
    if (M == 0 || N == 0)
        return;
    thin_gemm(M, N, K, alpha, A, lda, Bp, kp, C, ldc, &tri);
}

void mat_sgemm_packed(int M, int N, int K, float alpha, const float *A, int lda, const float *Bp,
                      int kp, float *C, int ldc)
{
    mat_sgemm_packed_tri(M, N, K, alpha, A, lda, Bp, kp, C, ldc, 0, 0);
}

void mat_set_threads(int n)
{
#if !defined(NO_BLAS) && defined(OPENBLAS_VERSION)
    /* a new worker maps its buffer as it starts, and retries for ever when
     * the address space has no room for it */
    if (n > 1 && !mat_blas_usable())
        n = 1;
    openblas_set_num_threads(n < 1 ? 1 : n);
#else
    (void)n;
#endif
}

const char *mat_blas_kernel(void)
{
#if !defined(NO_BLAS) && defined(OPENBLAS_VERSION)
    const char *name = openblas_get_corename();
    return name && *name ? name : "unknown";
#elif !defined(NO_BLAS)
    return "unknown";
#else
    return "none";
#endif
}

const char *mat_blas_config(void)
{
#if !defined(NO_BLAS) && defined(OPENBLAS_VERSION)
    const char *config = openblas_get_config();
    return config ? config : "unknown";
#elif !defined(NO_BLAS)
    return "unknown";
#else
    return "none";
#endif
}

bool mat_blas_switchable(void)
{
    return strstr(mat_blas_config(), "DYNAMIC_ARCH") != NULL;
}
