/* attnback.c - the attention backward pass on mat_sgemm_packed (private to
 * src/train; ops_attention_backward's fast path): per head, V_h^T and K_h
 * are packed once, and dP and dQ run in blocks of ATT_ROWS query rows that
 * skip the causal zeros. Also the softmax backward both paths share.
 *
 * dK = dS^T Q and dV = P^T dconcat have a transposed left factor, which
 * mat_sgemm_packed does not take: they were copied reversed and transposed
 * (making them lower triangular), their right factor packed, and the product
 * copied back, and those copies of strided columns cost more than the
 * products. So they run a small kernel of their own, upper_product (AVX2 and
 * FMA behind target attributes; this path runs only where
 * mat_packed_available, which needs both; plain loops elsewhere): a tile of
 * 6 output rows by 16 columns in twelve ymm registers while n runs from the
 * last row up to the tile's first, broadcasting A's row n (next to each
 * other) and loading B's. Each element sums its terms from the last row up
 * with fused multiply-adds, as the reversed products did (the causal zeros
 * aside), so the numbers are those of the copies.
 */
#include "attnback.h"

#include <math.h>
#include <string.h>

#include "core/mat.h"
#include "vecloop.h"

static inline void soft_back(float *restrict d, const float *restrict p, float scale, float dot,
                             int n)
{
    for (int c = 0; c < n; c++)
        d[c] = scale * p[c] * (d[c] - dot);
}

VEC_CLONES
void attnback_softmax_rows(float *dP, const float *P_h, int T, int i0, int i1, float scale)
{
    for (int i = i0; i < i1; i++) {
        const float *p_i = P_h + (long)i * T;
        float *d_i = dP + (long)i * T, acc[CHUNK] = {0}, dot = 0.0f;
        int j = 0;
        for (; j + CHUNK <= i + 1; j += CHUNK)
            for (int c = 0; c < CHUNK; c++)
                acc[c] += p_i[j + c] * d_i[j + c];
        for (int c = 0; j + c <= i; c++)
            acc[c] += p_i[j + c] * d_i[j + c];
        for (int c = 0; c < CHUNK; c++)
            dot += acc[c];
        BY_CHUNKS(i + 1, c, soft_back(d_i + c, p_i + c, scale, dot, CHUNK),
                  soft_back(d_i + c, p_i + c, scale, dot, i + 1 - c));
        memset(d_i + i + 1, 0, (size_t)(T - i - 1) * sizeof *d_i);
    }
}

enum { ATT_ROWS = 16 };         /* query rows a block: each needs the keys up to its last */
enum { TT_MR = 6, TT_NR = 16 }; /* upper_product's tile: rows, columns */

size_t attnback_scratch(int T, int D, int H)
{
    const int d_k = D / H;
    size_t tt = (size_t)T * T, packed = tt + mat_packed_floats(d_k, T) + mat_packed_floats(T, d_k);
    return !mat_packed_available() || 2 * tt > packed ? 2 * tt : packed;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TT_TARGET __attribute__((target("avx2,fma")))
#define TT_INLINE static inline __attribute__((always_inline)) TT_TARGET

/* Row r of a tile: its two accumulators, w <= TT_NR columns. */
TT_INLINE void tt_store(float *o, __m256 lo, __m256 hi, int w)
{
    if (w == TT_NR) {
        _mm256_storeu_ps(o, lo);
        _mm256_storeu_ps(o + 8, hi);
        return;
    }
    float t[TT_NR];
    _mm256_storeu_ps(t, lo);
    _mm256_storeu_ps(t + 8, hi);
    memcpy(o, t, (size_t)w * sizeof *o);
}

#define TT_ROW(r)                                                                                  \
    if (mr > r) {                                                                                  \
        const __m256 a = _mm256_broadcast_ss(an + r);                                              \
        c##r##0 = _mm256_fmadd_ps(a, b0, c##r##0);                                                 \
        c##r##1 = _mm256_fmadd_ps(a, b1, c##r##1);                                                 \
    }

/* Rows [i, i + mr) (mr a constant where inlined) and columns [j, j + w) of
 * out = A^T B: n from T - 1 down to i; a panel narrower than TT_NR loads B
 * through a mask. */
TT_INLINE void tt_tile(const int mr, float *out, int ldo, const float *A, const float *B, int ldb,
                       int T, int i, int j, int w)
{
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
           c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    int lanes[TT_NR];
    for (int c = 0; c < TT_NR; c++)
        lanes[c] = c < w ? -1 : 0;
    const __m256i m0 = _mm256_loadu_si256((const __m256i *)lanes);
    const __m256i m1 = _mm256_loadu_si256((const __m256i *)(lanes + 8));
    const float *an = A + (long)(T - 1) * T + i, *bn = B + (long)(T - 1) * ldb + j;
    if (w == TT_NR)
        for (int n = T - 1; n >= i; n--, an -= T, bn -= ldb) {
            const __m256 b0 = _mm256_loadu_ps(bn), b1 = _mm256_loadu_ps(bn + 8);
            TT_ROW(0) TT_ROW(1) TT_ROW(2) TT_ROW(3) TT_ROW(4) TT_ROW(5)
        }
    else
        for (int n = T - 1; n >= i; n--, an -= T, bn -= ldb) {
            const __m256 b0 = _mm256_maskload_ps(bn, m0), b1 = _mm256_maskload_ps(bn + 8, m1);
            TT_ROW(0) TT_ROW(1) TT_ROW(2) TT_ROW(3) TT_ROW(4) TT_ROW(5)
        }
    float *o = out + (long)i * ldo + j;
    tt_store(o, c00, c01, w);
    if (mr > 1)
        tt_store(o + ldo, c10, c11, w);
    if (mr > 2)
        tt_store(o + 2L * ldo, c20, c21, w);
    if (mr > 3)
        tt_store(o + 3L * ldo, c30, c31, w);
    if (mr > 4)
        tt_store(o + 4L * ldo, c40, c41, w);
    if (mr > 5)
        tt_store(o + 5L * ldo, c50, c51, w);
}

#define TT_TILE(mr) tt_tile(mr, out, ldo, A, B, ldb, T, i, j, w)

TT_TARGET static void upper_product(float *out, int ldo, const float *A, const float *B, int ldb,
                                    int T, int d_k)
{
    for (int j = 0; j < d_k; j += TT_NR) {
        const int w = d_k - j < TT_NR ? d_k - j : TT_NR;
        for (int i = 0; i < T; i += TT_MR) {
            switch (T - i < TT_MR ? T - i : TT_MR) {
            case 6: TT_TILE(6); break;
            case 5: TT_TILE(5); break;
            case 4: TT_TILE(4); break;
            case 3: TT_TILE(3); break;
            case 2: TT_TILE(2); break;
            default: TT_TILE(1); break;
            }
        }
    }
}
#else
static void upper_product(float *out, int ldo, const float *A, const float *B, int ldb, int T,
                          int d_k)
{
    for (int i = 0; i < T; i++)
        for (int c = 0; c < d_k; c++) {
            float acc = 0.0f;
            for (int n = T - 1; n >= i; n--)
                acc = fmaf(A[(long)n * T + i], B[(long)n * ldb + c], acc);
            out[(long)i * ldo + c] = acc;
        }
}
#endif

void attnback_packed(float *dQ, float *dK, float *dV, const float *dconcat, const float *Q,
                     const float *K, const float *V, const float *P, int T, int D, int H,
                     float *scratch)
{
    const int d_k = D / H;
    const float scale = 1.0f / sqrtf((float)d_k);
    float *dS = scratch, *Vp = scratch + (long)T * T, *Kp = Vp + mat_packed_floats(d_k, T);
    for (int h = 0; h < H; h++) {
        const float *P_h = P + (long)h * T * T;
        const int c0 = h * d_k;
        mat_pack(true, d_k, T, V + c0, D, Vp);  /* V_h^T (d_k, T) */
        mat_pack(false, T, d_k, K + c0, D, Kp); /* K_h (T, d_k) */
        for (int i0 = 0; i0 < T; i0 += ATT_ROWS) {
            const int i1 = i0 + ATT_ROWS < T ? i0 + ATT_ROWS : T;
            /* dP (rows i0..i1, keys < i1) = dconcat_h V_h^T */
            mat_sgemm_packed(i1 - i0, i1, d_k, 1.0f, dconcat + (long)i0 * D + c0, D, Vp, d_k,
                             dS + (long)i0 * T, T);
            attnback_softmax_rows(dS, P_h, T, i0, i1, scale);
            /* dQ_h (rows i0..i1) = dS K_h (keys < i1) */
            mat_sgemm_packed(i1 - i0, d_k, i1, 1.0f, dS + (long)i0 * T, T, Kp, T,
                             dQ + (long)i0 * D + c0, D);
        }
        upper_product(dK + c0, D, dS, Q + c0, D, T, d_k);        /* dK_h = dS^T Q_h */
        upper_product(dV + c0, D, P_h, dconcat + c0, D, T, d_k); /* dV_h = P_h^T dconcat_h */
    }
}
