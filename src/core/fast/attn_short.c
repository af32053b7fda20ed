/* attn_short.c - a sentence's heads in one pass (n_k <= SOFTMAX_LANES keys).
 *
 * Scores, mask, softmax and P_h V_h of up to SOFTMAX_LANES query rows laid
 * across the lanes, t[j][r] being key j of row r, so every step is
 * whole-vector arithmetic and nothing is transposed in between: two products
 * and a softmax a head cost most of a short sentence's time through
 * mat_sgemm. The numbers are attention.c's general path's, bit for bit: each
 * score and each output sums the same terms in the same order as
 * mat_sgemm_small (the keys past a row's last visible one add exact zeros
 * there), and each row gets attention_softmax_row's operations. Q_h and V_h
 * are read DK_CHUNK columns at a time, so d_k has no limit. Q_h comes in
 * and P_h goes out through 8 x 8 register transposes, and where d_k is a
 * multiple of 8 P_h V_h is made from the weights in rows (8 columns across
 * the lanes): moves, and the same sums in the same order.
 */
#include <assert.h>
#include <math.h>

#include "attn_kernels.h"

enum { L = SOFTMAX_LANES, DK_CHUNK = 64, HALF = SOFTMAX_LANES / 2 };

/* The two products keep their L sums in two vectors of HALF floats (a ymm
 * register each with AVX): as float[L] arrays, gcc's AVX2 clone kept them on
 * the stack and spent most of a sentence's time there. Each lane still adds
 * the same terms in the same order. */
typedef float Half __attribute__((vector_size(HALF * sizeof(float))));
typedef int HalfI __attribute__((vector_size(HALF * sizeof(int))));

/* keep ? a : b lane by lane, keep being 0 or -1 in each lane (a macro: a
 * function returning a vector would be compiled for the default target) */
#define HALF_SELECT(keep, a, b) ((Half)(((HalfI)(a) & (keep)) | ((HalfI)(b) & ~(keep))))

/* The steps are inlined into each clone of attn_short_group, so that each is
 * compiled for that clone's vector width (called, they ran as SSE2 code). */
#define STEP static inline __attribute__((always_inline)) void

/* An 8 x 8 block transposed: out[c] lane r = in[r] lane c, by unpacks,
 * shuffles and lane swaps (vunpcklps, vshufps, vperm2f128 in the AVX2 clone)
 * instead of 64 scalar loads and stores. Moves only: the bits are kept. */
#if defined(__clang__) || __GNUC__ >= 12
#define SHUF(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#else
typedef int HalfIdx __attribute__((vector_size(HALF * sizeof(int))));
#define SHUF(a, b, ...) __builtin_shuffle((a), (b), (HalfIdx){__VA_ARGS__})
#endif
STEP transpose8(const Half in[8], Half out[8])
{
    Half t[8], u[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; k += 2) {
        t[k] = SHUF(in[k], in[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[k + 1] = SHUF(in[k], in[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
#pragma GCC unroll 8
    for (int k = 0; k < 8; k += 4) {
        u[k] = SHUF(t[k], t[k + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        u[k + 1] = SHUF(t[k], t[k + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        u[k + 2] = SHUF(t[k + 1], t[k + 3], 0, 1, 8, 9, 4, 5, 12, 13);
        u[k + 3] = SHUF(t[k + 1], t[k + 3], 2, 3, 10, 11, 6, 7, 14, 15);
    }
#pragma GCC unroll 8
    for (int k = 0; k < 4; k++) {
        out[k] = SHUF(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        out[k + 4] = SHUF(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

/* dst[c][r0 + r] = src[r * ld + c] for c < 8, r < rows <= 8 (zero for r
 * past rows): 8 columns of up to 8 rows into lanes r0.. of L-lane rows. */
STEP gather8(const float *src, long ld, int rows, float (*dst)[L], int r0)
{
    Half in[8], out[8];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
        in[r] = (Half){0};
        if (r < rows)
            memcpy(&in[r], src + r * ld, sizeof in[r]);
    }
    transpose8(in, out);
#pragma GCC unroll 8
    for (int c = 0; c < 8; c++)
        memcpy(dst[c] + r0, &out[c], sizeof out[c]);
}

/* dst[r * ld + c] = src[c][r0 + r] (times lane r of *times, when not NULL)
 * for c < 8, r < rows <= 8: the other way. */
STEP scatter8_times(float (*src)[L], int r0, int rows, const Half *times, float *dst, long ld)
{
    Half in[8], out[8];
#pragma GCC unroll 8
    for (int c = 0; c < 8; c++) {
        memcpy(&in[c], src[c] + r0, sizeof in[c]);
        if (times)
            in[c] *= *times;
    }
    transpose8(in, out);
#pragma GCC unroll 8
    for (int r = 0; r < rows; r++)
        memcpy(dst + r * ld, &out[r], sizeof out[r]);
}

/* dst[r * ld + c] = src[c][r0 + r] for c < 8, r < rows <= 8: the other way. */
STEP scatter8(float (*src)[L], int r0, int rows, float *dst, long ld)
{
    scatter8_times(src, r0, rows, NULL, dst, ld);
}

/* short_scores' sums for keys k0 and k0 + step (step 0: the one key twice)
 * into t[0] and t[1], continuing them (more) or from zero. */
STEP scores_two(const float *k0, long step, bool more, int cn, const float (*qv)[L], float (*t)[L])
{
    const float *k1 = k0 + step;
    Half l0 = {0}, h0 = {0}, l1 = {0}, h1 = {0};
    if (more) {
        memcpy(&l0, t[0], sizeof l0), memcpy(&h0, t[0] + HALF, sizeof h0);
        memcpy(&l1, t[1], sizeof l1), memcpy(&h1, t[1] + HALF, sizeof h1);
    }
    for (int c = 0; c < cn; c++) {
        Half q_lo, q_hi;
        memcpy(&q_lo, qv[c], sizeof q_lo);
        memcpy(&q_hi, qv[c] + HALF, sizeof q_hi);
        l0 += k0[c] * q_lo, h0 += k0[c] * q_hi;
        l1 += k1[c] * q_lo, h1 += k1[c] * q_hi;
    }
    memcpy(t[0], &l0, sizeof l0), memcpy(t[0] + HALF, &h0, sizeof h0);
    memcpy(t[1], &l1, sizeof l1), memcpy(t[1] + HALF, &h1, sizeof h1);
}

/* t[j][r] = sum over c of Q_h[g0 + r][c] K_h[j][c] for j < jend; lanes past
 * m are zeros: finite, never stored. Four keys at a time, so that eight
 * chains of adds hide the adds' latency (one key's two chains waited on it),
 * the last one or two in a block of two; a block's keys past jend repeat
 * key j and fill rows of t nobody reads. */
STEP short_scores(const AttnShortHead *sh, int g0, int m, int jend, int d_k, float t[L][L])
{
    const int d = sh->d_model;
    const float *Q_h = sh->Q_h + (long)g0 * d;
    float qv[DK_CHUNK][L];
    _Static_assert(L % 4 == 0, "a block of four keys stays inside t");
    for (int c0 = 0; c0 < d_k; c0 += DK_CHUNK) {
        const int cn = d_k - c0 < DK_CHUNK ? d_k - c0 : DK_CHUNK;
        if (cn % 8 == 0) { /* 8 x 8 blocks: lanes past m zero */
            for (int c = 0; c < cn; c += 8) {
                gather8(Q_h + c0 + c, d, m < 8 ? m : 8, qv + c, 0);
                gather8(m > 8 ? Q_h + 8L * d + c0 + c : Q_h, d, m - 8, qv + c, 8);
            }
        } else {
            for (int r = 0; r < m; r++)
                for (int c = 0; c < cn; c++)
                    qv[c][r] = Q_h[(long)r * d + c0 + c];
            for (int r = m; r < L; r++) /* not memset: a call for a few stores */
                for (int c = 0; c < cn; c++)
                    qv[c][r] = 0.0f;
        }
        int j = 0;
        for (; j + 2 < jend; j += 4) {
            const float *k0 = sh->K_h + (long)j * d + c0;
            const float *k1 = j + 1 < jend ? k0 + d : k0;
            const float *k2 = j + 2 < jend ? k0 + 2L * d : k0;
            const float *k3 = j + 3 < jend ? k0 + 3L * d : k0;
            /* the first chunk's sums start at zero */
            Half l0 = {0}, h0 = {0}, l1 = {0}, h1 = {0}, l2 = {0}, h2 = {0}, l3 = {0}, h3 = {0};
            if (c0 > 0) {
                memcpy(&l0, t[j], sizeof l0), memcpy(&h0, t[j] + HALF, sizeof h0);
                memcpy(&l1, t[j + 1], sizeof l1), memcpy(&h1, t[j + 1] + HALF, sizeof h1);
                memcpy(&l2, t[j + 2], sizeof l2), memcpy(&h2, t[j + 2] + HALF, sizeof h2);
                memcpy(&l3, t[j + 3], sizeof l3), memcpy(&h3, t[j + 3] + HALF, sizeof h3);
            }
            for (int c = 0; c < cn; c++) {
                Half q_lo, q_hi;
                memcpy(&q_lo, qv[c], sizeof q_lo);
                memcpy(&q_hi, qv[c] + HALF, sizeof q_hi);
                l0 += k0[c] * q_lo, h0 += k0[c] * q_hi;
                l1 += k1[c] * q_lo, h1 += k1[c] * q_hi;
                l2 += k2[c] * q_lo, h2 += k2[c] * q_hi;
                l3 += k3[c] * q_lo, h3 += k3[c] * q_hi;
            }
            memcpy(t[j], &l0, sizeof l0), memcpy(t[j] + HALF, &h0, sizeof h0);
            memcpy(t[j + 1], &l1, sizeof l1), memcpy(t[j + 1] + HALF, &h1, sizeof h1);
            memcpy(t[j + 2], &l2, sizeof l2), memcpy(t[j + 2] + HALF, &h2, sizeof h2);
            memcpy(t[j + 3], &l3, sizeof l3), memcpy(t[j + 3] + HALF, &h3, sizeof h3);
        }
        if (j < jend) /* one or two keys left: a block of two, the same sums */
            scores_two(sh->K_h + (long)j * d + c0, j + 1 < jend ? d : 0, c0 > 0, cn, qv, t + j);
    }
}

/* t[j] = e^(t[j] - max) lane by lane for j < jend, and 1 / the sum of each
 * lane's over j in order into inv. Subtracting the maximum keeps e^x <= 1;
 * -inf gives exactly 0. The sums in registers. */
STEP short_exp(float t[L][L], int jend, Half max_lo, Half max_hi, Half *inv_lo, Half *inv_hi)
{
    const Half clamp = (Half){0} + EXP_CLAMP;
    Half sum_lo = {0}, sum_hi = {0};
    for (int j = 0; j < jend; j++) {
        Half lo, hi;
        memcpy(&lo, t[j], sizeof lo);
        memcpy(&hi, t[j] + HALF, sizeof hi);
        lo -= max_lo, hi -= max_hi;
        lo = HALF_SELECT(lo > clamp, lo, clamp);
        hi = HALF_SELECT(hi > clamp, hi, clamp);
        memcpy(t[j], &lo, sizeof lo);
        memcpy(t[j] + HALF, &hi, sizeof hi);
        for (int r = 0; r < L; r++)
            t[j][r] = exp_nonpositive(t[j][r]);
        memcpy(&lo, t[j], sizeof lo);
        memcpy(&hi, t[j] + HALF, sizeof hi);
        sum_lo += lo, sum_hi += hi;
    }
    *inv_lo = 1.0f / sum_lo, *inv_hi = 1.0f / sum_hi;
}

/* Scale, mask (keeping the scores when asked) and softmax t in place, then
 * the weights into P_h (and flat). The last step, each e^x times its row's
 * 1 / sum, is done in t when keep_t (short_values reads t) and otherwise on
 * the way out, in the transposes: the same multiplications. */
STEP short_softmax(const AttnShortHead *sh, int g0, int m, const int *vis_m, int jend, bool keep_t,
                   float t[L][L], float *flat)
{
    const int n_k = sh->n_k;
    const float scale = sh->scale;
    float *P_h = sh->P_h + (long)g0 * n_k, *S_h = sh->S_h ? sh->S_h + (long)g0 * n_k : NULL;
    int vis[L];
    for (int r = 0; r < L; r++)
        vis[r] = r < m ? vis_m[r] : jend;
    /* t[j][r] = j < vis[r] ? t[j][r] * scale : -inf, a whole half at a time
     * (as a loop over r gcc left it scalar: a fifth of a sentence's heads),
     * and each lane's maximum over j as max = t > max ? t : max, in the same
     * pass and in registers (as a float[L], through the stack) */
    HalfI vis_lo, vis_hi;
    memcpy(&vis_lo, vis, sizeof vis_lo);
    memcpy(&vis_hi, vis + HALF, sizeof vis_hi);
    const Half ninf = (Half){0} - INFINITY;
    Half max_lo = ninf, max_hi = ninf;
    for (int j = 0; j < jend; j++) {
        Half lo, hi;
        memcpy(&lo, t[j], sizeof lo);
        memcpy(&hi, t[j] + HALF, sizeof hi);
        lo = HALF_SELECT(j < vis_lo, lo * scale, ninf);
        hi = HALF_SELECT(j < vis_hi, hi * scale, ninf);
        memcpy(t[j], &lo, sizeof lo);
        memcpy(t[j] + HALF, &hi, sizeof hi);
        max_lo = HALF_SELECT(lo > max_lo, lo, max_lo);
        max_hi = HALF_SELECT(hi > max_hi, hi, max_hi);
    }
    for (int r = 0; r < m && S_h; r++)
        for (int j = 0; j < n_k; j++)
            S_h[(long)r * n_k + j] = j < vis[r] ? t[j][r] : -INFINITY;
    Half inv_lo, inv_hi;
    short_exp(t, jend, max_lo, max_hi, &inv_lo, &inv_hi);
    for (int j = 0; j < jend && keep_t; j++) {
        Half lo, hi;
        memcpy(&lo, t[j], sizeof lo);
        memcpy(&hi, t[j] + HALF, sizeof hi);
        lo *= inv_lo, hi *= inv_hi;
        memcpy(t[j], &lo, sizeof lo);
        memcpy(t[j] + HALF, &hi, sizeof hi);
    }
    /* P_h's rows (contiguous, n_k floats each) from t's columns, 8 x 8
     * blocks at a time into flat with P_h's layout: keys 8.. first, so that
     * a row's 8 floats running into the next row are overwritten by that
     * row's keys 0..7 afterwards; then one copy. Keys from jend on (no row
     * of the group sees them) weigh exactly 0. */
    for (int j = jend; j < n_k; j++)
        memset(t[j], 0, sizeof t[j]);
    for (int j0 = (n_k - 1) / 8 * 8; j0 >= 0; j0 -= 8)
        for (int r0 = 0; r0 < m; r0 += 8)
            scatter8_times(t + j0, r0, 8,
                           keep_t ? NULL
                           : r0   ? &inv_hi
                                  : &inv_lo,
                           flat + r0 * n_k + j0, n_k);
    memcpy(P_h, flat, sizeof *flat * (size_t)m * n_k);
}

/* out rows g0.. = sum over j of P_h[r][j] V_h[j][c], four columns at a time
 * in registers (eight chains of adds, as in short_scores), then written row
 * by row. A block's columns past cn repeat column c and fill rows of ov
 * nobody reads. */
STEP short_values(const AttnShortHead *sh, int g0, int m, int jend, int d_k, float t[L][L])
{
    const int d = sh->d_model;
    float ov[DK_CHUNK][L];
    _Static_assert(DK_CHUNK % 4 == 0, "a block of four columns stays inside ov");
    for (int c0 = 0; c0 < d_k; c0 += DK_CHUNK) {
        const int cn = d_k - c0 < DK_CHUNK ? d_k - c0 : DK_CHUNK;
        for (int c = 0; c < cn; c += 4) {
            const float *v0 = sh->V_h + c0 + c;
            const int e1 = c + 1 < cn, e2 = c + 2 < cn ? 2 : 0, e3 = c + 3 < cn ? 3 : 0;
            Half l0 = {0}, h0 = {0}, l1 = {0}, h1 = {0}, l2 = {0}, h2 = {0}, l3 = {0}, h3 = {0};
            for (int j = 0; j < jend; j++) {
                const float *v = v0 + (long)j * d;
                Half t_lo, t_hi;
                memcpy(&t_lo, t[j], sizeof t_lo);
                memcpy(&t_hi, t[j] + HALF, sizeof t_hi);
                l0 += v[0] * t_lo, h0 += v[0] * t_hi;
                l1 += v[e1] * t_lo, h1 += v[e1] * t_hi;
                l2 += v[e2] * t_lo, h2 += v[e2] * t_hi;
                l3 += v[e3] * t_lo, h3 += v[e3] * t_hi;
            }
            memcpy(ov[c], &l0, sizeof l0), memcpy(ov[c] + HALF, &h0, sizeof h0);
            memcpy(ov[c + 1], &l1, sizeof l1), memcpy(ov[c + 1] + HALF, &h1, sizeof h1);
            memcpy(ov[c + 2], &l2, sizeof l2), memcpy(ov[c + 2] + HALF, &h2, sizeof h2);
            memcpy(ov[c + 3], &l3, sizeof l3), memcpy(ov[c + 3] + HALF, &h3, sizeof h3);
        }
        float *out = sh->out + (long)g0 * d + c0;
        if (cn % 8 == 0) {
            for (int c = 0; c < cn; c += 8) {
                scatter8(ov + c, 0, m < 8 ? m : 8, out + c, d);
                if (m > 8)
                    scatter8(ov + c, 8, m - 8, out + 8L * d + c, d);
            }
            continue;
        }
        for (int r = 0; r < m; r++)
            for (int c = 0; c < cn; c++)
                out[(long)r * d + c] = ov[c][r];
    }
}

/* out rows g0.. = sum over j of P_h[r][j] V_h[j][c] from the weights in
 * rows (flat, n_k floats a row): 8 columns across the lanes, four rows at a
 * time (four chains of adds), V_h's rows read straight from memory. The same
 * sums in the same order as short_values (and mat_sgemm_small): the keys
 * from a row's last visible one to jend add exact zeros. For d_k a multiple
 * of 8; the last one or two rows two at a time; rows past m repeat row r and
 * are not stored. */
STEP short_values_rows(const AttnShortHead *sh, int g0, int m, int jend, int d_k, const float *flat)
{
    const int d = sh->d_model, n_k = sh->n_k;
    for (int c0 = 0; c0 < d_k; c0 += 8) {
        const float *v0 = sh->V_h + c0;
        int r = 0;
        for (; r + 2 < m; r += 4) {
            const float *p0 = flat + (long)r * n_k;
            const float *p1 = r + 1 < m ? p0 + n_k : p0;
            const float *p2 = r + 2 < m ? p0 + 2L * n_k : p0;
            const float *p3 = r + 3 < m ? p0 + 3L * n_k : p0;
            Half a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
            for (int j = 0; j < jend; j++) {
                Half v;
                memcpy(&v, v0 + (long)j * d, sizeof v);
                a0 += p0[j] * v, a1 += p1[j] * v, a2 += p2[j] * v, a3 += p3[j] * v;
            }
            float *out = sh->out + (long)(g0 + r) * d + c0;
            memcpy(out, &a0, sizeof a0);
            if (r + 1 < m)
                memcpy(out + d, &a1, sizeof a1);
            if (r + 2 < m)
                memcpy(out + 2L * d, &a2, sizeof a2);
            if (r + 3 < m)
                memcpy(out + 3L * d, &a3, sizeof a3);
        }
        if (r < m) { /* one or two rows left: two at a time, the same sums */
            const float *p0 = flat + (long)r * n_k, *p1 = r + 1 < m ? p0 + n_k : p0;
            Half a0 = {0}, a1 = {0};
            for (int j = 0; j < jend; j++) {
                Half v;
                memcpy(&v, v0 + (long)j * d, sizeof v);
                a0 += p0[j] * v, a1 += p1[j] * v;
            }
            float *out = sh->out + (long)(g0 + r) * d + c0;
            memcpy(out, &a0, sizeof a0);
            if (r + 1 < m)
                memcpy(out + d, &a1, sizeof a1);
        }
    }
}

/* The three steps for a head of d_k columns; inlined where d_k is a
 * constant, the loops over its columns unroll (most of a toy model's time
 * was their loop counting). */
STEP short_steps(const AttnShortHead *sh, int g0, int m, const int *vis, int jend, int d_k)
{
    /* the weights across the lanes (t), then in rows (flat) */
    struct {
        float t[L][L], flat[L * L + 8];
    } w;
    float(*t)[L] = w.t;
    short_scores(sh, g0, m, jend, d_k, t);
    const bool lanes = sh->out && d_k % 8 != 0; /* short_values reads t */
    short_softmax(sh, g0, m, vis, jend, lanes, t, w.flat);
    if (lanes)
        short_values(sh, g0, m, jend, d_k, t);
    else if (sh->out)
        short_values_rows(sh, g0, m, jend, d_k, w.flat);
}

SOFTMAX_CLONES
void attn_short_group(const AttnShortHead *sh, int g0, int m, const int *vis)
{
    /* the keys any of the rows sees: the last row's */
    const int jend = vis[m - 1];
    assert(sh->n_k <= L && m >= 1 && m <= L && jend >= 1 && jend <= sh->n_k);
    /* the same operations in every case: only the loop counts differ */
    switch (sh->d_k) {
    case 8: short_steps(sh, g0, m, vis, jend, 8); break;
    case 16: short_steps(sh, g0, m, vis, jend, 16); break;
    case 32: short_steps(sh, g0, m, vis, jend, 32); break;
    case 64: short_steps(sh, g0, m, vis, jend, 64); break;
    default: short_steps(sh, g0, m, vis, jend, sh->d_k); break;
    }
}
