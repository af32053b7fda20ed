/* attnback.c - the attention backward pass on mat_sgemm_packed (private to
 * src/train; ops_attention_backward's fast path): per head, V_h^T and K_h
 * are packed once, and every product runs in blocks of ATT_ROWS query rows
 * that skip the causal zeros (dK = dS^T Q and dV = P^T dconcat, whose left
 * factor is upper triangular, with rows and columns reversed, which makes
 * it lower triangular). Also the softmax backward both paths share.
 */
#include "attnback.h"

#include <math.h>
#include <string.h>

#include "core/mat.h"
#include "vecloop.h"

static inline void soft_back(float *restrict d, const float *restrict p, float scale,
                             float dot, int n)
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

enum { ATT_ROWS = 16 }; /* query rows a block: each needs the keys up to its last */

size_t attnback_scratch(int T, int D, int H)
{
    const int d_k = D / H;
    size_t tt = (size_t)T * T, td = (size_t)T * d_k;
    if (!mat_packed_available())
        return 2 * tt;
    return 2 * tt + 2 * td + mat_packed_floats(d_k, T) + 2 * mat_packed_floats(T, d_k);
}

/* out (T, d_k) = A B for a lower triangular A (T, T) and B (T, d_k) (columns
 * of ld ldb) packed into Bp, a block of ATT_ROWS rows at a time against the
 * rows of B up to the block's last: the zeros above the diagonal are skipped. */
static void lower_product(float *out, int ldo, const float *A, const float *Bp, int T, int d_k)
{
    for (int i0 = 0; i0 < T; i0 += ATT_ROWS) {
        const int i1 = i0 + ATT_ROWS < T ? i0 + ATT_ROWS : T;
        mat_sgemm_packed(i1 - i0, d_k, i1, 1.0f, A + (long)i0 * T, T, Bp, T,
                         out + (long)i0 * ldo, ldo);
    }
}

/* out (T, d_k) = A^T B for a lower triangular A (T, T) and B (T, d_k) with
 * leading dimension D: A^T is upper triangular, so rows and columns are
 * reversed (r = T - 1 - i), which makes it lower triangular, and
 * lower_product does the rest. w holds T*T + 2*T*d_k floats and the pack. */
static void upper_product(float *out, const float *A, const float *B, int T, int d_k, int D,
                          float *w)
{
    float *rA = w, *rB = rA + (long)T * T, *rO = rB + (long)T * d_k, *Bp = rO + (long)T * d_k;
    /* rA[a][b] = A^T[T-1-a][T-1-b] = A[T-1-b][T-1-a], zero for b > a; only
     * the columns lower_product reads (up to the end of a's block) */
    for (int a = 0; a < T; a++) {
        const int end = (a / ATT_ROWS + 1) * ATT_ROWS < T ? (a / ATT_ROWS + 1) * ATT_ROWS : T;
        const float *col = A + (long)(T - 1) * T + (T - 1 - a);
        float *row = rA + (long)a * T;
        for (int b = 0; b <= a; b++)
            row[b] = col[-(long)b * T];
        for (int b = a + 1; b < end; b++)
            row[b] = 0.0f;
    }
    for (int r = 0; r < T; r++)
        memcpy(rB + (long)r * d_k, B + (long)(T - 1 - r) * D, (size_t)d_k * sizeof *rB);
    mat_pack(false, T, d_k, rB, d_k, Bp);
    lower_product(rO, d_k, rA, Bp, T, d_k);
    for (int r = 0; r < T; r++)
        memcpy(out + (long)(T - 1 - r) * D, rO + (long)r * d_k, (size_t)d_k * sizeof *out);
}

void attnback_packed(float *dQ, float *dK, float *dV, const float *dconcat, const float *Q,
                     const float *K, const float *V, const float *P, int T, int D, int H,
                     float *scratch)
{
    const int d_k = D / H;
    const float scale = 1.0f / sqrtf((float)d_k);
    float *dS = scratch, *w = scratch + (long)T * T;
    float *Vp = w + (long)T * T + 2L * T * d_k + mat_packed_floats(T, d_k);
    float *Kp = Vp + mat_packed_floats(d_k, T);
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
        upper_product(dK + c0, dS, Q + c0, T, d_k, D, w);         /* dK_h = dS^T Q_h */
        upper_product(dV + c0, P_h, dconcat + c0, T, d_k, D, w);  /* dV_h = P_h^T dconcat_h */
    }
}

