/* thin.c - register-tiled AVX2+FMA products for the heads' thin shapes.
 *
 * A head's scores Q_h K_h^T have only d_k terms per element and its values
 * P_h V_h only d_k columns; OpenBLAS 0.3.21 packs all of K_h or V_h again on
 * every call of a row block, well below a core's peak (README "Performance").
 * Here op(B) is packed once into panels of THIN_NR columns (thin_pack) and
 * every row block of A is multiplied against them in place (thin_gemm): a
 * tile of THIN_MR rows by THIN_NR columns lives in twelve ymm registers
 * while k runs, each step two loads of the panel, one broadcast per row of A
 * and twelve fused multiply-adds. Every element sums its terms in the same
 * order whatever the tile, so a row's numbers do not depend on the block or
 * the thread that computed it.
 *
 * The functions carry target attributes rather than the build's flags, so
 * the file builds with -O2 for any x86-64 and the caller asks thin_available
 * at run time. Elsewhere (or with another compiler) the same functions are
 * plain loops and thin_available says no.
 */
#include "thin.h"

#include <assert.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define THIN_X86 1
#include <immintrin.h>
#define THIN_TARGET __attribute__((target("avx2,fma")))
#else
#define THIN_X86 0
#define THIN_TARGET
#endif

/* Floats of A copied at a time when K is short (16 KiB, half of L1). */
enum { THIN_APACK = 4096 };

#define THIN_INLINE static inline __attribute__((always_inline)) THIN_TARGET

bool thin_available(void)
{
#if THIN_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

size_t thin_packed_floats(int K, int N)
{
    size_t panels = ((size_t)N + THIN_NR - 1) / THIN_NR;
    return panels * THIN_NR * (size_t)(K > 0 ? K : 0);
}

#if THIN_X86
/* Rows k0 .. k0+7 of a panel, columns c0 .. c0+7, from 8 rows of B (keys
 * c0 .. c0+7 of the panel, terms k0 .. k0+7): one 8 x 8 transpose in registers. */
THIN_TARGET static void pack_8x8(const float *B, long ldb, float *dst)
{
    __m256 r[8], t[8], u[8];
    for (int q = 0; q < 8; q++)
        r[q] = _mm256_loadu_ps(B + q * ldb);
    for (int q = 0; q < 8; q += 2) {
        t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
        t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
    }
    for (int q = 0; q < 8; q += 4) {
        u[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
        u[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xee);
        u[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
        u[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xee);
    }
    for (int q = 0; q < 4; q++) {
        _mm256_storeu_ps(dst + q * THIN_NR, _mm256_permute2f128_ps(u[q], u[q + 4], 0x20));
        _mm256_storeu_ps(dst + (q + 4) * THIN_NR, _mm256_permute2f128_ps(u[q], u[q + 4], 0x31));
    }
}
#endif

/* Columns j .. j+w-1 of op(B) = B^T into one panel: whole 8 x 8 squares by
 * transposes in registers, the rest one float at a time. */
static void pack_trans(int K, int w, const float *B, int ldb, float *panel)
{
    int k8 = 0;
#if THIN_X86
    if (w == THIN_NR && thin_available()) { /* packing runs anywhere */
        k8 = K - K % 8;
        for (int k0 = 0; k0 < k8; k0 += 8)
            for (int c0 = 0; c0 < THIN_NR; c0 += 8)
                pack_8x8(B + (long)c0 * ldb + k0, ldb, panel + (long)k0 * THIN_NR + c0);
    }
#endif
    for (int c = 0; c < w; c++) {
        const float *row = B + (long)c * ldb;
        for (int k = k8; k < K; k++)
            panel[(long)k * THIN_NR + c] = row[k];
    }
}

void thin_pack(bool trans_b, int K, int N, const float *B, int ldb, float *Bp)
{
    thin_pack_into(trans_b, K, N, B, ldb, Bp, K);
}

void thin_pack_into(bool trans_b, int K, int N, const float *B, int ldb, float *Bp, int kp)
{
    assert(K >= 0 && N >= 0 && kp >= K);
    for (int j = 0; j < N; j += THIN_NR) {
        const int w = N - j < THIN_NR ? N - j : THIN_NR;
        float *panel = Bp + (size_t)j * kp;
        if (w < THIN_NR)
            memset(panel, 0, (size_t)K * THIN_NR * sizeof *panel);
        if (trans_b) /* column j + c of op(B) is row j + c of B */
            pack_trans(K, w, B + (long)j * ldb, ldb, panel);
        else
            for (int k = 0; k < K; k++)
                memcpy(panel + (long)k * THIN_NR, B + (long)k * ldb + j, (size_t)w * sizeof *B);
    }
}

#if THIN_X86

/* One row of the tile: alpha times its two accumulators, w <= THIN_NR columns. */
THIN_INLINE void row_store(float *c, __m256 lo, __m256 hi, __m256 alpha, int w)
{
    lo = _mm256_mul_ps(lo, alpha);
    hi = _mm256_mul_ps(hi, alpha);
    if (w == THIN_NR) {
        _mm256_storeu_ps(c, lo);
        _mm256_storeu_ps(c + 8, hi);
        return;
    }
    float out[THIN_NR];
    _mm256_storeu_ps(out, lo);
    _mm256_storeu_ps(out + 8, hi);
    memcpy(c, out, (size_t)w * sizeof *c);
}

/* One step of k for row r of the tile (when the tile has that row). */
#define THIN_ROW(r)                                                                                \
    if (mr > r) {                                                                                  \
        __m256 a = _mm256_broadcast_ss(a##r + k);                                                  \
        c##r##0 = _mm256_fmadd_ps(a, b0, c##r##0);                                                 \
        c##r##1 = _mm256_fmadd_ps(a, b1, c##r##1);                                                 \
    }

/* C rows [0, mr) (mr <= THIN_MR a constant where inlined), w columns, from
 * A's rows and one panel: every sum over k in order, held in registers. */
THIN_INLINE void tile(const int mr, int K, const float *A, long lda, const float *panel, float *C,
                      long ldc, int w, float alpha)
{
    /* rows past mr are never read: their pointers stay on row 0 */
    const float *a0 = A, *a1 = mr > 1 ? A + lda : A, *a2 = mr > 2 ? A + 2 * lda : A,
                *a3 = mr > 3 ? A + 3 * lda : A, *a4 = mr > 4 ? A + 4 * lda : A,
                *a5 = mr > 5 ? A + 5 * lda : A;
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
           c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
#pragma GCC unroll 4
    for (int k = 0; k < K; k++) {
        const __m256 b0 = _mm256_loadu_ps(panel + (long)k * THIN_NR);
        const __m256 b1 = _mm256_loadu_ps(panel + (long)k * THIN_NR + 8);
        THIN_ROW(0) THIN_ROW(1) THIN_ROW(2) THIN_ROW(3) THIN_ROW(4) THIN_ROW(5)
    }
    const __m256 al = _mm256_set1_ps(alpha);
    row_store(C, c00, c01, al, w);
    if (mr > 1)
        row_store(C + ldc, c10, c11, al, w);
    if (mr > 2)
        row_store(C + 2 * ldc, c20, c21, al, w);
    if (mr > 3)
        row_store(C + 3 * ldc, c30, c31, al, w);
    if (mr > 4)
        row_store(C + 4 * ldc, c40, c41, al, w);
    if (mr > 5)
        row_store(C + 5 * ldc, c50, c51, al, w);
}

/* One tile of mr rows (a constant in each case) from row i of the call. */
#define THIN_TILE(mr) tile(mr, kt, A + i * lda, lda, panel, C + i * ldc, ldc, w, alpha)

/* Rows [0, M) of a chunk against the panel of columns [j, j + w): whole
 * tiles, then the last rows in one. Row g0 + i of the call needs columns
 * below g0 + i + tri->n only and A's terms below g0 + i + tri->k only (a
 * limit of 0: all): a tile whose rows need none of the panel is skipped, and
 * a tile's sum stops after its last row's terms. */
THIN_TARGET static void panel_rows(int M, int K, const float *A, long lda, const float *panel,
                                   float *C, long ldc, int j, int w, float alpha,
                                   const ThinTri *tri, int g0)
{
    for (int i = 0; i < M; i += THIN_MR) {
        const int mr = M - i < THIN_MR ? M - i : THIN_MR, last = g0 + i + mr - 1;
        if (tri->n > 0 && j >= last + tri->n)
            continue;
        const int kt = tri->k > 0 && last + tri->k < K ? last + tri->k : K;
        switch (mr) {
        case 6: THIN_TILE(6); break;
        case 5: THIN_TILE(5); break;
        case 4: THIN_TILE(4); break;
        case 3: THIN_TILE(3); break;
        case 2: THIN_TILE(2); break;
        default: THIN_TILE(1); break;
        }
    }
}

THIN_TARGET void thin_gemm(int M, int N, int K, float alpha, const float *A, int lda,
                           const float *Bp, int kp, float *C, int ldc, const ThinTri *tri)
{
    static const ThinTri none = {0, 0};
    assert(M >= 0 && N >= 0 && K >= 0 && K <= kp && lda >= K && ldc >= N);
    tri = tri ? tri : &none;
    /* A short A (the scores' d_k terms) is copied a chunk of rows at a time
     * into a buffer that stays in L1 while every panel passes; its rows in
     * place lie a whole row of Q apart and crowd a few cache sets. Rows
     * already contiguous (lda == K: the trainer's) are used where they are. */
    const int mc = K > 0 ? THIN_APACK / K / THIN_MR * THIN_MR : 0;
    float abuf[THIN_APACK];
    for (int i0 = 0; i0 < M; i0 += mc >= THIN_MR ? mc : M) {
        const int m = mc >= THIN_MR && M - i0 > mc ? mc : M - i0;
        const float *Ai = A + (long)i0 * lda;
        long ld = lda;
        if (mc >= THIN_MR && lda != K) {
            for (int r = 0; r < m; r++)
                memcpy(abuf + (long)r * K, Ai + (long)r * lda, (size_t)K * sizeof *abuf);
            Ai = abuf, ld = K;
        }
        for (int j = 0; j < N; j += THIN_NR) {
            const int w = N - j < THIN_NR ? N - j : THIN_NR;
            panel_rows(m, K, Ai, ld, Bp + (size_t)j * kp, C + (long)i0 * ldc + j, ldc, j, w, alpha,
                       tri, i0);
        }
    }
}

#else

void thin_gemm(int M, int N, int K, float alpha, const float *A, int lda, const float *Bp, int kp,
               float *C, int ldc, const ThinTri *tri)
{
    (void)tri; /* every column, every term: what the limits leave out is exact */
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            const float *panel = Bp + (size_t)(j / THIN_NR) * THIN_NR * kp;
            float acc = 0.0f;
            for (int k = 0; k < K; k++)
                acc += A[(long)i * lda + k] * panel[(long)k * THIN_NR + j % THIN_NR];
            C[(long)i * ldc + j] = alpha * acc;
        }
}

#endif
