/* small.c - mat_sgemm_small, mat_sgemm_small_multi and mat_sgemm_tiled
 * (core/mat.h): the kernel for tiny products in GCC vector extensions,
 * cloned for AVX-512, AVX2 and the default target, and the tiles it runs
 * when BLAS may not be used. mat.c dispatches to them.
 */
#include "core/mat.h"

#include <assert.h>
#include <string.h>

/* The small kernel works on MAT_LANES columns at a time, each chunk as two
 * halves of MAT_HALF floats in GCC vector extensions (one AVX or AVX-512 ymm
 * register, two SSE ones). Wider vectors were lowered through the stack in
 * the AVX2 clone, many times slower. */
enum { MAT_LANES = 16, MAT_HALF = 8, MAT_PACK_MAX = 8192 /* floats of a packed B on the stack */ };
typedef float Half __attribute__((vector_size(MAT_HALF * sizeof(float))));

/* AVX-512 and AVX2 clones chosen at load time; -std=c11 means
 * -ffp-contract=off, so every clone does the same multiplies and adds in the
 * same order and gives the same bits. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define MAT_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MAT_CLONES
#endif

/* Inlined into each clone: a function taking vectors would be compiled for
 * the default target. */
#define MAT_INLINE static inline __attribute__((always_inline))

/* w <= MAT_HALF columns of one row of C from its accumulator. */
MAT_INLINE void half_store(float *c, const Half *acc, int w, float alpha, float beta)
{
    Half v = alpha * *acc;
    if (w == MAT_HALF && beta == 0.0f) {
        memcpy(c, &v, sizeof v);
        return;
    }
    float out[MAT_HALF];
    memcpy(out, &v, sizeof out);
    if (beta == 0.0f) /* C is not read: it may hold garbage or NaN */
        for (int k = 0; k < w; k++)
            c[k] = out[k];
    else
        for (int k = 0; k < w; k++)
            c[k] = out[k] + beta * c[k];
}

/* w <= MAT_LANES columns of one row of C from the two halves of a chunk. */
MAT_INLINE void chunk_store(float *c, const Half *lo, const Half *hi, int w, float alpha,
                            float beta)
{
    half_store(c, lo, w < MAT_HALF ? w : MAT_HALF, alpha, beta);
    if (w > MAT_HALF)
        half_store(c + MAT_HALF, hi, w - MAT_HALF, alpha, beta);
}

/* Rows [i, i + 4) of C, one chunk of columns from column j: eight
 * independent sums over k in order. Rows past M repeat row i: their sums are
 * not stored. */
MAT_INLINE void four_rows(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                          int ldb, float beta, float *C, int ldc, int i, int j)
{
    const float *a0 = A + (long)i * lda;
    const float *a1 = i + 1 < M ? a0 + lda : a0;
    const float *a2 = i + 2 < M ? a0 + 2L * lda : a0;
    const float *a3 = i + 3 < M ? a0 + 3L * lda : a0;
    Half s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, t0 = {0}, t1 = {0}, t2 = {0}, t3 = {0};
    for (int k = 0; k < K; k++) {
        Half lo, hi;
        memcpy(&lo, B + (long)k * ldb + j, sizeof lo);
        memcpy(&hi, B + (long)k * ldb + j + MAT_HALF, sizeof hi);
        s0 += a0[k] * lo, t0 += a0[k] * hi;
        s1 += a1[k] * lo, t1 += a1[k] * hi;
        s2 += a2[k] * lo, t2 += a2[k] * hi;
        s3 += a3[k] * lo, t3 += a3[k] * hi;
    }
    const int w = N - j < MAT_LANES ? N - j : MAT_LANES;
    float *c = C + (long)i * ldc + j;
    chunk_store(c, &s0, &t0, w, alpha, beta);
    if (i + 1 < M)
        chunk_store(c + ldc, &s1, &t1, w, alpha, beta);
    if (i + 2 < M)
        chunk_store(c + 2L * ldc, &s2, &t2, w, alpha, beta);
    if (i + 3 < M)
        chunk_store(c + 3L * ldc, &s3, &t3, w, alpha, beta);
}

/* Row i of C, one chunk of columns from column j, the same sums as four_rows. */
MAT_INLINE void one_row(int N, int K, float alpha, const float *A, int lda, const float *B, int ldb,
                        float beta, float *C, int ldc, int i, int j)
{
    const float *a0 = A + (long)i * lda;
    Half s0 = {0}, t0 = {0};
    for (int k = 0; k < K; k++) {
        Half lo, hi;
        memcpy(&lo, B + (long)k * ldb + j, sizeof lo);
        memcpy(&hi, B + (long)k * ldb + j + MAT_HALF, sizeof hi);
        s0 += a0[k] * lo, t0 += a0[k] * hi;
    }
    chunk_store(C + (long)i * ldc + j, &s0, &t0, N - j < MAT_LANES ? N - j : MAT_LANES, alpha,
                beta);
}

/* Rows i and i + 1 of C, one chunk of columns from column j, the same sums
 * as four_rows: two rows left over share their loads of B, and their four
 * chains of adds hide more of the adds' latency than two rows alone. */
MAT_INLINE void two_rows(int N, int K, float alpha, const float *A, int lda, const float *B,
                         int ldb, float beta, float *C, int ldc, int i, int j)
{
    const float *a0 = A + (long)i * lda, *a1 = a0 + lda;
    Half s0 = {0}, s1 = {0}, t0 = {0}, t1 = {0};
    for (int k = 0; k < K; k++) {
        Half lo, hi;
        memcpy(&lo, B + (long)k * ldb + j, sizeof lo);
        memcpy(&hi, B + (long)k * ldb + j + MAT_HALF, sizeof hi);
        s0 += a0[k] * lo, t0 += a0[k] * hi;
        s1 += a1[k] * lo, t1 += a1[k] * hi;
    }
    const int w = N - j < MAT_LANES ? N - j : MAT_LANES;
    float *c = C + (long)i * ldc + j;
    chunk_store(c, &s0, &t0, w, alpha, beta);
    chunk_store(c + ldc, &s1, &t1, w, alpha, beta);
}

/* C (M, N) = alpha A (M, K) B (K, N) + beta C, where every row of B may be
 * read MAT_LANES columns at a time (ldb and the columns padded): four rows
 * at a time, the last two together or the last one alone. Each element is
 * the same sequence of float operations whatever the grouping and the
 * vector width. */
MAT_INLINE void small_rows(int M, int N, int K, float alpha, const float *A, int lda,
                           const float *B, int ldb, float beta, float *C, int ldc)
{
    const int full = M % 4 == 3 ? M + 1 : M - M % 4; /* rows in groups of four */
    for (int j = 0; j < N; j += MAT_LANES) {
        for (int i = 0; i < full; i += 4)
            four_rows(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, i, j);
        if (M - full == 2)
            two_rows(N, K, alpha, A, lda, B, ldb, beta, C, ldc, full, j);
        else if (M - full == 1)
            one_row(N, K, alpha, A, lda, B, ldb, beta, C, ldc, full, j);
    }
}

MAT_CLONES
static void small_kernel(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                         int ldb, float beta, float *C, int ldc)
{
    /* a model's projections (d_model 32 or 64, d_model columns) with the
     * sizes as constants: the loops unroll; the same operations */
    if (K == 32 && N == 32)
        small_rows(M, 32, 32, alpha, A, lda, B, ldb, beta, C, ldc);
    else if (K == 64 && N == 64)
        small_rows(M, 64, 64, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        small_rows(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* s0..s3 += x times the 32 floats at b, a product's four halves. Each
 * vector of B is read once, so gcc folds its load into the multiply. */
#define MAT_ACC4(s0, s1, s2, s3, x, b)                                                             \
    do {                                                                                           \
        Half b0_, b1_, b2_, b3_;                                                                   \
        memcpy(&b0_, (b), sizeof b0_), memcpy(&b1_, (b) + MAT_HALF, sizeof b1_);                   \
        memcpy(&b2_, (b) + 2 * MAT_HALF, sizeof b2_);                                              \
        memcpy(&b3_, (b) + 3 * MAT_HALF, sizeof b3_);                                              \
        s0 += (x)*b0_, s1 += (x)*b1_, s2 += (x)*b2_, s3 += (x)*b3_;                                \
    } while (0)

#define MAT_STORE4(c, s0, s1, s2, s3)                                                              \
    do {                                                                                           \
        memcpy((c), &s0, sizeof s0), memcpy((c) + MAT_HALF, &s1, sizeof s1);                       \
        memcpy((c) + 2 * MAT_HALF, &s2, sizeof s2);                                                \
        memcpy((c) + 3 * MAT_HALF, &s3, sizeof s3);                                                \
    } while (0)

/* One row a of A times count (2 or 3, a constant where inlined) B_p, 32
 * columns from column j, into C[p]: each sum over k in order from zero
 * (four_rows' operations, the same bits); one broadcast of a[k] serves
 * 4 count multiply-adds. */
MAT_INLINE void wide_row_multi(const int count, int K, const float *a, const float *const *B,
                               int ldb, float *const *C, long off, int j)
{
    Half q0 = {0}, q1 = {0}, q2 = {0}, q3 = {0}, k0 = {0}, k1 = {0}, k2 = {0}, k3 = {0};
    Half v0 = {0}, v1 = {0}, v2 = {0}, v3 = {0};
    const float *b0 = B[0] + j, *b1 = B[1] + j, *b2 = count > 2 ? B[2] + j : b1;
    int k = 0;
#pragma GCC unroll 4
    for (; k + 2 <= K; k += 2) { /* two k a step, four steps a turn: less counting */
        const long o = (long)k * ldb, o1 = o + ldb;
        MAT_ACC4(q0, q1, q2, q3, a[k], b0 + o);
        MAT_ACC4(k0, k1, k2, k3, a[k], b1 + o);
        if (count > 2)
            MAT_ACC4(v0, v1, v2, v3, a[k], b2 + o);
        MAT_ACC4(q0, q1, q2, q3, a[k + 1], b0 + o1);
        MAT_ACC4(k0, k1, k2, k3, a[k + 1], b1 + o1);
        if (count > 2)
            MAT_ACC4(v0, v1, v2, v3, a[k + 1], b2 + o1);
    }
    if (k < K) {
        const long o = (long)k * ldb;
        MAT_ACC4(q0, q1, q2, q3, a[k], b0 + o);
        MAT_ACC4(k0, k1, k2, k3, a[k], b1 + o);
        if (count > 2)
            MAT_ACC4(v0, v1, v2, v3, a[k], b2 + o);
    }
    MAT_STORE4(C[0] + off + j, q0, q1, q2, q3);
    MAT_STORE4(C[1] + off + j, k0, k1, k2, k3);
    if (count > 2)
        MAT_STORE4(C[2] + off + j, v0, v1, v2, v3);
}

/* Two rows a, a + lda of A times one B, 32 columns from column j (eight
 * chains of adds hide their latency), the same sums. */
MAT_INLINE void wide_row2(int K, const float *a, int lda, const float *B, int ldb, float *c,
                          int ldc, int j)
{
    Half s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, t0 = {0}, t1 = {0}, t2 = {0}, t3 = {0};
    const float *a1 = a + lda;
    int k = 0;
#pragma GCC unroll 4
    for (; k + 2 <= K; k += 2) {
        const float *b = B + (long)k * ldb + j;
        MAT_ACC4(s0, s1, s2, s3, a[k], b);
        MAT_ACC4(t0, t1, t2, t3, a1[k], b);
        MAT_ACC4(s0, s1, s2, s3, a[k + 1], b + ldb);
        MAT_ACC4(t0, t1, t2, t3, a1[k + 1], b + ldb);
    }
    if (k < K) {
        MAT_ACC4(s0, s1, s2, s3, a[k], B + (long)k * ldb + j);
        MAT_ACC4(t0, t1, t2, t3, a1[k], B + (long)k * ldb + j);
    }
    MAT_STORE4(c + j, s0, s1, s2, s3);
    MAT_STORE4(c + ldc + j, t0, t1, t2, t3);
}

MAT_INLINE void wide_row1(int K, const float *a, const float *B, int ldb, float *c, int j)
{
    Half s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    for (int k = 0; k < K; k++)
        MAT_ACC4(s0, s1, s2, s3, a[k], B + (long)k * ldb + j);
    MAT_STORE4(c + j, s0, s1, s2, s3);
}

/* Every row of the count (3, 2 or 1) products, 32 columns at a time. */
MAT_INLINE void wide_rows(int count, int M, int N, int K, const float *A, int lda,
                          const float *const *B, int ldb, float *const *C, int ldc)
{
    for (int j = 0; j < N; j += 4 * MAT_HALF) {
        int i = 0;
        if (count == 3)
            for (; i < M; i++)
                wide_row_multi(3, K, A + (long)i * lda, B, ldb, C, (long)i * ldc, j);
        if (count == 2)
            for (; i < M; i++)
                wide_row_multi(2, K, A + (long)i * lda, B, ldb, C, (long)i * ldc, j);
        for (; i + 2 <= M; i += 2)
            wide_row2(K, A + (long)i * lda, lda, B[0], ldb, C[0] + (long)i * ldc, ldc, j);
        if (i < M)
            wide_row1(K, A + (long)i * lda, B[0], ldb, C[0] + (long)i * ldc, j);
    }
}

MAT_CLONES
static void wide_kernel(int count, int M, int N, int K, const float *A, int lda,
                        const float *const *B, int ldb, float *const *C, int ldc)
{
    /* the sizes as constants where they are a model's (d_model 32 or 64) */
    if (count == 3 && K == 32 && N == 32)
        wide_rows(3, M, 32, 32, A, lda, B, ldb, C, ldc);
    else if (count == 3)
        wide_rows(3, M, N, K, A, lda, B, ldb, C, ldc);
    else if (count == 2 && K == 32 && N == 32)
        wide_rows(2, M, 32, 32, A, lda, B, ldb, C, ldc);
    else if (count == 2)
        wide_rows(2, M, N, K, A, lda, B, ldb, C, ldc);
    else if (K == 32 && N == 32)
        wide_rows(1, M, 32, 32, A, lda, B, ldb, C, ldc);
    else
        wide_rows(1, M, N, K, A, lda, B, ldb, C, ldc);
}

bool mat_small_multi_fits(int M, int N, int K)
{
    return N % 32 == 0 && mat_small_fits(false, M, N, K);
}

void mat_sgemm_small_multi(int count, int M, int N, int K, const float *A, int lda,
                           const float *const *B, int ldb, float *const *C, int ldc)
{
    assert(count >= 1 && count <= 3 && mat_small_multi_fits(M, N, K));
    for (int p = 0; p < count; p++)
        mat_check_shapes(false, false, M, N, K, lda, ldb, ldc);
    wide_kernel(count, M, N, K, A, lda, B, ldb, C, ldc);
}

bool mat_small_fits(bool trans_a, int M, int N, int K)
{
    long padded = (N + MAT_LANES - 1) / MAT_LANES * MAT_LANES;
    return !trans_a && (long)M * N * K <= MAT_SMALL_MNK && (long)K * padded <= MAT_PACK_MAX;
}

void mat_sgemm_small(bool trans_b, int M, int N, int K, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc)
{
    mat_check_shapes(false, trans_b, M, N, K, lda, ldb, ldc);
    assert(mat_small_fits(false, M, N, K));
    if (!trans_b && N % MAT_LANES == 0) {
        small_kernel(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    /* op(B) copied into whole chunks of columns, zero beyond N; a
     * transposed B is read along its rows */
    const int ldp = (N + MAT_LANES - 1) / MAT_LANES * MAT_LANES;
    float packed[MAT_PACK_MAX];
    for (int k = 0; k < K; k++)
        memset(packed + (long)k * ldp + N, 0, (size_t)(ldp - N) * sizeof *packed);
    if (trans_b)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < K; k++)
                packed[(long)k * ldp + j] = B[(long)j * ldb + k];
    else
        for (int k = 0; k < K; k++)
            memcpy(packed + (long)k * ldp, B + (long)k * ldb, (size_t)N * sizeof *packed);
    small_kernel(M, N, K, alpha, A, lda, packed, ldp, beta, C, ldc);
}

/* op(B)'s rows [k0, k0 + kc) and columns [j0, j0 + nc) into bp (ldp >= nc
 * a multiple of MAT_LANES, zero beyond nc). */
static void tile_pack_b(bool trans_b, const float *B, int ldb, int k0, int kc, int j0, int nc,
                        float *bp, int ldp)
{
    for (int k = 0; k < kc; k++) {
        float *row = bp + (long)k * ldp;
        memset(row + nc, 0, (size_t)(ldp - nc) * sizeof *row);
        if (trans_b)
            for (int j = 0; j < nc; j++)
                row[j] = B[(long)(j0 + j) * ldb + k0 + k];
        else
            memcpy(row, B + (long)(k0 + k) * ldb + j0, (size_t)nc * sizeof *row);
    }
}

void mat_sgemm_tiled(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A,
                     int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    mat_check_shapes(trans_a, trans_b, M, N, K, lda, ldb, ldc);
    /* a tile of op(B) (MAT_TILE_K, MAT_TILE_N) and one of op(A)
     * (MAT_TILE_M, MAT_TILE_K) on the stack, as mat_sgemm_small's pack */
    enum { MAT_TILE_N = 4 * MAT_LANES, MAT_TILE_K = MAT_PACK_MAX / MAT_TILE_N, MAT_TILE_M = 64 };
    float bp[MAT_TILE_K * MAT_TILE_N], ap[MAT_TILE_M * MAT_TILE_K];
    for (int j0 = 0; j0 < N; j0 += MAT_TILE_N) {
        const int nc = N - j0 < MAT_TILE_N ? N - j0 : MAT_TILE_N;
        const int ldp = (nc + MAT_LANES - 1) / MAT_LANES * MAT_LANES;
        /* K == 0 still passes once: C = beta C */
        for (int k0 = 0; k0 == 0 || k0 < K; k0 += MAT_TILE_K) {
            const int kc = K - k0 < MAT_TILE_K ? K - k0 : MAT_TILE_K;
            const float b = k0 == 0 ? beta : 1.0f; /* later tiles add to C */
            tile_pack_b(trans_b, B, ldb, k0, kc, j0, nc, bp, ldp);
            if (!trans_a) {
                small_kernel(M, nc, kc, alpha, A + k0, lda, bp, ldp, b, C + j0, ldc);
                continue;
            }
            for (int i0 = 0; i0 < M; i0 += MAT_TILE_M) {
                const int mc = M - i0 < MAT_TILE_M ? M - i0 : MAT_TILE_M;
                for (int i = 0; i < mc; i++) /* op(A) = A^T: A's columns as rows */
                    for (int k = 0; k < kc; k++)
                        ap[i * kc + k] = A[(long)(k0 + k) * lda + i0 + i];
                small_kernel(mc, nc, kc, alpha, ap, kc > 0 ? kc : 1, bp, ldp, b,
                             C + (long)i0 * ldc + j0, ldc);
            }
        }
    }
}
