/* gpt2_head.c - one head's causal attention over new query rows
 * (gpt2_kern.h): P = softmax(scale Q_h K_h^T) under the mask, O = P V_h,
 * each sum the packed kernel's chain of fused multiply-adds (the plain
 * loops without AVX2 and FMA), and a typed key's row read from the state's
 * blocks of cached keys and values, to the same bits.
 */
#include "gpt2_kern.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "../attn_kernels.h"
#include "core/attention.h"
#include "core/gpt2.h"
#include "core/mat.h"
#include "gpt2_x86.h"

size_t gpt2k_head_work(int m, int n, int d_k)
{
    (void)m;
    return mat_packed_available() ? mat_packed_floats(d_k, n) + mat_packed_floats(n, d_k) : 0;
}

/* Row r (position i = p + r) of P: scores of keys j <= i, softmax, zeros past i. */
static void head_softmax(int p, int m, int n, float *P)
{
    for (int r = 0; r < m; r++) {
        float *row = P + (size_t)r * n;
        const int vis = p + r + 1;
        attention_softmax_row(row, vis);
        memset(row + vis, 0, (size_t)(n - vis) * sizeof *row);
    }
}

/* The plain loops: scores, softmax, and O = P V, each sum over keys or
 * features in order. */
static void head_plain(int p, int n, int d_k, float scale, const float *Q_h, int ldq,
                       const float *K_h, const float *V_h, int ldkv, float *P, float *O, int ldo)
{
    const int m = n - p;
    for (int r = 0; r < m; r++) {
        const float *q = Q_h + (size_t)r * ldq;
        float *row = P + (size_t)r * n;
        for (int j = 0; j <= p + r; j++) {
            const float *k = K_h + (size_t)j * ldkv;
            float s = 0.0f;
            for (int c = 0; c < d_k; c++)
                s += q[c] * k[c];
            row[j] = s * scale;
        }
    }
    head_softmax(p, m, n, P);
    for (int r = 0; r < m; r++) {
        const float *row = P + (size_t)r * n;
        float *o = O + (size_t)r * ldo;
        memset(o, 0, (size_t)d_k * sizeof *o);
        for (int j = 0; j <= p + r; j++) {
            const float *v = V_h + (size_t)j * ldkv;
            for (int c = 0; c < d_k; c++)
                o[c] += row[j] * v[c];
        }
    }
}

#if KERN_X86
/* The scores of a block's first `keys` keys (all GPT2_KV_BLOCK computed:
 * the block's unused keys are zeros) from its tile of K transposed, Kt (d_k,
 * GPT2_KV_BLOCK): eight keys a lane-wise chain over the features in order
 * from zero, then the scale, as mat_sgemm_packed's. Meanwhile the tile at
 * next (the head's next block, or NULL) is asked for: a head's blocks lie
 * L H tiles apart, a jump the processor's own prefetcher does not foresee;
 * and the block's tile of V at vt (as many floats) into L2, for
 * block_values after the softmax. */
KERN_TARGET static void block_scores(int keys, int d_k, float scale, const float *q,
                                     const float *Kt, const float *next, const float *vt, float *P)
{
    __m256 a[GPT2_KV_BLOCK / 8];
    float out[GPT2_KV_BLOCK];
#pragma GCC unroll 8
    for (int g = 0; g < GPT2_KV_BLOCK / 8; g++)
        a[g] = _mm256_setzero_ps();
    for (int c = 0; c < d_k; c++) {
        const __m256 qc = _mm256_broadcast_ss(q + c);
        const float *k = Kt + (size_t)c * GPT2_KV_BLOCK;
        if (next)
            for (int l = 0; l < GPT2_KV_BLOCK; l += 16)
                _mm_prefetch((const char *)(next + (size_t)c * GPT2_KV_BLOCK + l), _MM_HINT_T0);
        for (int l = 0; l < GPT2_KV_BLOCK; l += 16)
            _mm_prefetch((const char *)(vt + (size_t)c * GPT2_KV_BLOCK + l), _MM_HINT_T1);
#pragma GCC unroll 8
        for (int g = 0; g < GPT2_KV_BLOCK / 8; g++)
            a[g] = _mm256_fmadd_ps(qc, _mm256_loadu_ps(k + 8 * g), a[g]);
    }
#pragma GCC unroll 8
    for (int g = 0; g < GPT2_KV_BLOCK / 8; g++)
        _mm256_storeu_ps(out + 8 * g, _mm256_mul_ps(a[g], _mm256_set1_ps(scale)));
    memcpy(P, out, (size_t)keys * sizeof *P);
}

/* O (d_k) += the block's first `keys` weights p times its rows of V (keys,
 * d_k): each feature's chain over the keys goes on in order from zero, as
 * mat_sgemm_packed's (which adds only exact zeros past the row's last key);
 * the tile at next asked for meanwhile, as block_scores does. */
KERN_TARGET static void block_values(int keys, int d_k, const float *p, const float *V,
                                     const float *next, float *O)
{
    int c0 = 0;
    for (; c0 + 64 <= d_k; c0 += 64) { /* eight chains: two FMAs a cycle */
        __m256 o[8];
#pragma GCC unroll 8
        for (int g = 0; g < 8; g++)
            o[g] = _mm256_loadu_ps(O + c0 + 8 * g);
        for (int i = 0; i < keys; i++) {
            if (next && c0 == 0)
                for (int l = 0; l < d_k; l += 16)
                    _mm_prefetch((const char *)(next + (size_t)i * d_k + l), _MM_HINT_T0);
            const __m256 w = _mm256_broadcast_ss(p + i);
            const float *v = V + (size_t)i * d_k + c0;
#pragma GCC unroll 8
            for (int g = 0; g < 8; g++)
                o[g] = _mm256_fmadd_ps(w, _mm256_loadu_ps(v + 8 * g), o[g]);
        }
#pragma GCC unroll 8
        for (int g = 0; g < 8; g++)
            _mm256_storeu_ps(O + c0 + 8 * g, o[g]);
    }
    for (; c0 + 8 <= d_k; c0 += 8) {
        __m256 o = _mm256_loadu_ps(O + c0);
        for (int i = 0; i < keys; i++)
            o = _mm256_fmadd_ps(_mm256_broadcast_ss(p + i),
                                _mm256_loadu_ps(V + (size_t)i * d_k + c0), o);
        _mm256_storeu_ps(O + c0, o);
    }
    for (; c0 < d_k; c0++) {
        float o = O[c0];
        for (int i = 0; i < keys; i++)
            o = fmaf(p[i], V[(size_t)i * d_k + c0], o);
        O[c0] = o;
    }
}
#endif

bool gpt2k_head_blocks(int n, int d_k, float scale, const float *q, const float *Kt, const float *V,
                       size_t block, float *P, float *O)
{
#if KERN_X86
    if (mat_packed_available()) {
        const int B = GPT2_KV_BLOCK;
        for (int j = 0; j < n; j += B) {
            const float *t = Kt + (size_t)(j / B) * block;
            block_scores(n - j < B ? n - j : B, d_k, scale, q, t, j + B < n ? t + block : NULL,
                         V + (size_t)(j / B) * block, P + j);
        }
        head_softmax(n - 1, 1, n, P);
        memset(O, 0, (size_t)d_k * sizeof *O);
        for (int j = 0; j < n; j += B) {
            const float *t = V + (size_t)(j / B) * block;
            block_values(n - j < B ? n - j : B, d_k, P + j, t, j + B < n ? t + block : NULL, O);
        }
        return true;
    }
#endif
    (void)n, (void)d_k, (void)scale, (void)q, (void)Kt, (void)V, (void)block, (void)P, (void)O;
    return false;
}

void gpt2k_head(int p, int n, int d_k, float scale, const float *Q_h, int ldq, const float *K_h,
                const float *V_h, int ldkv, float *P, float *O, int ldo, float *work)
{
    assert(p >= 0 && p < n && d_k > 0 && ldq >= d_k && ldkv >= d_k && ldo >= d_k);
    const int m = n - p;
    if (!mat_packed_available()) {
        head_plain(p, n, d_k, scale, Q_h, ldq, K_h, V_h, ldkv, P, O, ldo);
        return;
    }
    float *Kp = work, *Vp = work + mat_packed_floats(d_k, n);
    mat_pack(true, d_k, n, K_h, ldkv, Kp);
    /* P (m, n) = scale Q_h (m, d_k) K_h^T (d_k, n), row r wanting keys below p + r + 1 */
    mat_sgemm_packed_tri(m, n, d_k, scale, Q_h, ldq, Kp, d_k, P, n, p + 1, 0);
    head_softmax(p, m, n, P);
    mat_pack(false, n, d_k, V_h, ldkv, Vp);
    /* O (m, d_k) = P (m, n) V_h (n, d_k), row r's terms past key p + r skipped */
    mat_sgemm_packed_tri(m, d_k, n, 1.0f, P, n, Vp, n, O, ldo, 0, p + 1);
}
