/* combine.c - heads combined, query rows summed, attention rollout and
 * value-weighted norms, over any AttnSource (combine.h).
 *
 * Rows are fetched one at a time through the source's callback, so a
 * memory-mapped 2.4 GB array is never copied whole; only the rollout holds
 * (n, n) matrices, and combine_rollout_row not even those. Sums over heads
 * run in head order in float; row sums for renormalising and vector norms in
 * double. Nothing here prints or keeps state between calls.
 */
#include "core/combine.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/mat.h"

#define ROLL_BLOCK 64 /* rows of A_hat built at once by combine_rollout_row */

void combine_rows(const AttnSource *s, int l, int h, int i0, int i1, float *out)
{
    size_t n_k = (size_t)s->n_k;
    for (int i = i0; i < i1; i++) {
        float *o = out + (size_t)(i - i0) * n_k;
        const float *r = combine_row(s, l, h, i, o);
        if (r != o)
            memcpy(o, r, n_k * sizeof(float));
    }
}

const char *combine_mode_name(CombineMode m)
{
    switch (m) {
    case COMBINE_MEAN: return "mean";
    case COMBINE_MAX: return "max";
    case COMBINE_SUM: return "sum";
    }
    return "?";
}

void combine_heads_row(const AttnSource *s, int l, CombineMode m, int i, float *buf, float *out)
{
    int n_k = s->n_k;
    assert(buf != out);
    const float *r = combine_row(s, l, 0, i, buf);
    memcpy(out, r, (size_t)n_k * sizeof(float));
    for (int h = 1; h < s->H; h++) {
        r = combine_row(s, l, h, i, buf);
        if (m == COMBINE_MAX) {
            for (int j = 0; j < n_k; j++)
                out[j] = r[j] > out[j] ? r[j] : out[j];
        } else {
            for (int j = 0; j < n_k; j++)
                out[j] += r[j];
        }
    }
    if (m == COMBINE_MEAN) {
        float H = (float)s->H;
        for (int j = 0; j < n_k; j++)
            out[j] /= H;
    }
}

static const float *heads_row_cb(const void *ctx, int l, int h, int i, float *buf)
{
    const CombinedHeads *c = ctx;
    (void)h;
    combine_heads_row(c->in, l, c->mode, i, c->scratch, buf);
    return buf;
}

static void heads_release_cb(const void *ctx, int l)
{
    const CombinedHeads *c = ctx;
    if (c->in->release)
        c->in->release(c->in->ctx, l);
}

int combine_heads_init(CombinedHeads *c, const AttnSource *in, CombineMode mode)
{
    memset(c, 0, sizeof(*c));
    c->scratch = malloc((size_t)(in->n_k > 0 ? in->n_k : 1) * sizeof(float));
    if (!c->scratch)
        return AV_ERR_NOMEM;
    c->in = in;
    c->mode = mode;
    c->src = (AttnSource){in->L, 1, in->n_q, in->n_k, heads_row_cb, heads_release_cb, c};
    return AV_OK;
}

void combine_heads_free(CombinedHeads *c)
{
    free(c->scratch);
    memset(c, 0, sizeof(*c));
}

void combine_rows_sum(const AttnSource *s, int l, int h, const int *rows, int n_rows, float *buf,
                      float *out)
{
    assert(buf != out);
    memset(out, 0, (size_t)s->n_k * sizeof(float));
    for (int k = 0; k < n_rows; k++) {
        assert(rows[k] >= 0 && rows[k] < s->n_q);
        const float *r = combine_row(s, l, h, rows[k], buf);
        for (int j = 0; j < s->n_k; j++)
            out[j] += r[j];
    }
}

/* Row i of A_hat_l into out (n): 0.5 mean_h(A_l) + 0.5 I, divided by its sum.
 * The sum is at least 0.5 for non-negative weights, so never 0 there. */
static void rollout_hat_row(const AttnSource *s, int l, int i, float *buf, float *out)
{
    int n = s->n_k;
    combine_heads_row(s, l, COMBINE_MEAN, i, buf, out);
    double sum = 0;
    for (int j = 0; j < n; j++) {
        out[j] = 0.5f * out[j] + (j == i ? 0.5f : 0.0f);
        sum += out[j];
    }
    float inv = sum > 0 ? (float)(1.0 / sum) : 0.0f;
    for (int j = 0; j < n; j++)
        out[j] *= inv;
}

static int rollout_check(const AttnSource *s, int last)
{
    if (s->n_q != s->n_k)
        return AV_ERR_NPY_SHAPE;
    if (last < 0 || last >= s->L || s->n_q < 1 || s->H < 1)
        return AV_ERR_CONFIG;
    return AV_OK;
}

double combine_rollout_bytes(int n)
{
    return 2.0 * (double)n * (double)n * sizeof(float);
}

int combine_rollout_step(const AttnSource *s, int l, const float *prev, float *hat, float *out)
{
    int rc = rollout_check(s, l);
    if (rc != AV_OK)
        return rc;
    int n = s->n_q;
    float *buf = malloc((size_t)n * sizeof(float));
    if (!buf)
        return AV_ERR_NOMEM;
    float *dst = prev ? hat : out;
    for (int i = 0; i < n; i++)
        rollout_hat_row(s, l, i, buf, dst + (size_t)i * n);
    free(buf);
    if (s->release)
        s->release(s->ctx, l);
    if (prev) {
        /* out (n, n) = A_hat_l (n, n) @ prev (n, n) */
        mat_sgemm(false, false, n, n, n, 1.0f, hat, n, prev, n, 0.0f, out, n);
    }
    return AV_OK;
}

int combine_rollout(const AttnSource *s, int last, float *out)
{
    int rc = rollout_check(s, last);
    if (rc != AV_OK)
        return rc;
    size_t nn = (size_t)s->n_q * (size_t)s->n_q;
    float *hat = malloc(nn * sizeof(float));
    float *tmp = malloc(nn * sizeof(float));
    if (!hat || !tmp) {
        free(hat);
        free(tmp);
        return AV_ERR_NOMEM;
    }
    /* R_0 = A_hat_0; R_l = A_hat_l R_{l-1}, ping-ponging out and tmp so
     * that R_last lands in out */
    float *R = (last % 2 == 0) ? out : tmp, *T = (last % 2 == 0) ? tmp : out;
    for (int l = 0; l <= last && rc == AV_OK; l++) {
        rc = combine_rollout_step(s, l, l == 0 ? NULL : T, hat, R);
        float *swap = R;
        R = T;
        T = swap;
    }
    free(hat);
    free(tmp);
    return rc;
}

/* v (n) <- v A_hat_l, A_hat_l built ROLL_BLOCK rows at a time into blk. */
static void rollout_row_step(const AttnSource *s, int l, float *v, float *w, float *blk, float *buf)
{
    int n = s->n_k;
    memset(w, 0, (size_t)n * sizeof(float));
    for (int k0 = 0; k0 < n; k0 += ROLL_BLOCK) {
        int kb = n - k0 < ROLL_BLOCK ? n - k0 : ROLL_BLOCK;
        for (int k = 0; k < kb; k++)
            rollout_hat_row(s, l, k0 + k, buf, blk + (size_t)k * n);
        /* w (1, n) += v[k0 .. k0+kb) (1, kb) @ blk (kb, n) */
        mat_sgemm(false, false, 1, n, kb, 1.0f, v + k0, kb, blk, n, 1.0f, w, n);
    }
    memcpy(v, w, (size_t)n * sizeof(float));
}

int combine_rollout_row(const AttnSource *s, int last, int i, float *out)
{
    int rc = rollout_check(s, last);
    if (rc != AV_OK)
        return rc;
    if (i < 0 || i >= s->n_q)
        return AV_ERR_CONFIG;
    size_t n = (size_t)s->n_q;
    float *blk = malloc((size_t)ROLL_BLOCK * n * sizeof(float));
    float *w = malloc(n * sizeof(float));
    float *buf = malloc(n * sizeof(float));
    if (!blk || !w || !buf) {
        rc = AV_ERR_NOMEM;
        goto done;
    }
    /* e_i^T A_hat_last = row i of A_hat_last; then times each lower layer */
    rollout_hat_row(s, last, i, buf, out);
    for (int l = last - 1; l >= 0; l--) {
        rollout_row_step(s, l, out, w, blk, buf);
        if (s->release)
            s->release(s->ctx, l);
    }
done:
    free(blk);
    free(w);
    free(buf);
    return rc;
}

int combine_value_norms(int n_k, int d_model, int H, const float *V, const float *Wo, float *fnorm)
{
    if (n_k < 1 || d_model < 1 || H < 1 || d_model % H != 0)
        return AV_ERR_CONFIG;
    int d_k = d_model / H;
    float *f = malloc((size_t)n_k * (size_t)d_model * sizeof(float));
    if (!f)
        return AV_ERR_NOMEM;
    for (int h = 0; h < H; h++) {
        /* f_h (n_k, d_model) = V[:, h*d_k : (h+1)*d_k] (n_k, d_k)
         *                      @ Wo[h*d_k : (h+1)*d_k, :] (d_k, d_model) */
        mat_sgemm(false, false, n_k, d_model, d_k, 1.0f, V + (size_t)h * d_k, d_model,
                  Wo + (size_t)h * d_k * d_model, d_model, 0.0f, f, d_model);
        for (int j = 0; j < n_k; j++) {
            const float *f_j = f + (size_t)j * d_model;
            double ss = 0;
            for (int c = 0; c < d_model; c++)
                ss += (double)f_j[c] * f_j[c];
            fnorm[(size_t)h * n_k + j] = (float)sqrt(ss);
        }
    }
    free(f);
    return AV_OK;
}

void combine_norms_row(int n_k, const float *alpha, const float *fnorm_h, float *out)
{
    for (int j = 0; j < n_k; j++)
        out[j] = alpha[j] * fnorm_h[j];
}

static const float *norms_row_cb(const void *ctx, int l, int h, int i, float *buf)
{
    const NormsSource *ns = ctx;
    const AttnSource *w = ns->weights;
    const float *a = combine_row(w, l, h, i, buf);
    combine_norms_row(w->n_k, a, ns->fnorm + ((size_t)l * w->H + h) * w->n_k, buf);
    return buf;
}

static void norms_release_cb(const void *ctx, int l)
{
    const NormsSource *ns = ctx;
    if (ns->weights->release)
        ns->weights->release(ns->weights->ctx, l);
}

void combine_norms_init(NormsSource *ns, const AttnSource *weights, const float *fnorm)
{
    ns->weights = weights;
    ns->fnorm = fnorm;
    ns->src = (AttnSource){weights->L,       weights->H, weights->n_q, weights->n_k, norms_row_cb,
                           norms_release_cb, ns};
}
