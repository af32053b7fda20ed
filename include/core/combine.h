/* combine.h - views that combine attention weights: heads combined (mean,
 * max, sum), several query rows summed, attention rollout across layers
 * (Abnar and Zuidema 2020) and value-weighted norms (Kobayashi et al. 2020).
 *
 * Every function reads weights through an AttnSource, a row callback over an
 * (L, H, n_q, n_k) array, so the same code serves a memory-mapped imported
 * array (io/attnfile.h) and attnviz's own ModelResult (model_head_row).
 * Derived views (heads combined, norms) are AttnSources themselves, so they
 * compose: rows of combined heads can be summed, norms can be combined.
 * Pure: caller-owned outputs, no globals, nothing printed. Products of whole
 * matrices go through mat_sgemm.
 */
#ifndef ATTNVIZ_COMBINE_H
#define ATTNVIZ_COMBINE_H

#include <stddef.h>

/* Row i (0..n_q-1) of head h (0..H-1) of layer l (0..L-1): n_k weights,
 * either a pointer to storage that stays valid while the source lives (a
 * memory map, kept weights) or the row written into buf (n_k floats, the
 * caller's) and buf returned. Never NULL. */
typedef const float *(*AttnRowFn)(const void *ctx, int l, int h, int i, float *buf);

/* The caller has finished with layer l for now (a memory map may drop its
 * pages from resident memory). May be NULL. */
typedef void (*AttnReleaseFn)(const void *ctx, int l);

typedef struct {
    int L, H, n_q, n_k;
    AttnRowFn row;
    AttnReleaseFn release; /* optional */
    const void *ctx;
} AttnSource;

static inline const float *combine_row(const AttnSource *s, int l, int h, int i, float *buf)
{
    return s->row(s->ctx, l, h, i, buf);
}

/* Rows [i0, i1) of head h of layer l into out (i1 - i0, n_k), row-major. */
void combine_rows(const AttnSource *s, int l, int h, int i0, int i1, float *out);

typedef enum { COMBINE_MEAN, COMBINE_MAX, COMBINE_SUM } CombineMode;

/* "mean", "max" or "sum". */
const char *combine_mode_name(CombineMode m);

/* Row i of layer l with its H heads combined elementwise: the mean (sum in
 * head order, then divided by H), the maximum, or the sum. out and buf are
 * n_k floats each, distinct; buf is scratch. */
void combine_heads_row(const AttnSource *s, int l, CombineMode m, int i, float *buf, float *out);

/* A source of shape (L, 1, n_q, n_k) whose only head is the heads of `in`
 * combined by `mode`. It keeps pointers to `in` and to its own scratch row
 * (n_k floats, allocated here); it is not safe to read from two threads. */
typedef struct {
    AttnSource src; /* read this */
    const AttnSource *in;
    CombineMode mode;
    float *scratch;
} CombinedHeads;

/* Set up c over in. Returns AV_OK or AV_ERR_NOMEM. */
int combine_heads_init(CombinedHeads *c, const AttnSource *in, CombineMode mode);

/* Free the scratch row; accepts a zeroed struct. */
void combine_heads_free(CombinedHeads *c);

/* Several query tokens selected together: out[j] = sum over k < n_rows of
 * row rows[k] of head h of layer l (summed in the order given; a repeated
 * index counts twice). Each rows[k] in 0..n_q-1. out and buf are n_k floats
 * each, distinct. n_rows == 0 gives zeros. Divide by n_rows for the mean. */
void combine_rows_sum(const AttnSource *s, int l, int h, const int *rows, int n_rows, float *buf,
                      float *out);

/* Attention rollout after layers 0..last (DESIGN.md "Imported attention"):
 * A_hat_l = 0.5 * mean_h(A_l) + 0.5 * I with each row divided by its sum,
 * rollout = A_hat_last ... A_hat_1 A_hat_0, into out (n, n). Needs
 * n_q == n_k == n. Allocates two (n, n) work matrices (see
 * combine_rollout_bytes) and frees them. Returns AV_OK, AV_ERR_NPY_SHAPE
 * (n_q != n_k), AV_ERR_CONFIG (last out of 0..L-1) or AV_ERR_NOMEM. Rows of
 * out sum to 1 (to rounding) when the weights are non-negative. */
int combine_rollout(const AttnSource *s, int last, float *out);

/* One layer of the rollout, for a rollout built a layer at a time (each
 * R_l kept, the next from it): out (n, n) = A_hat_l @ prev, or A_hat_l when
 * prev is NULL (l = 0). hat (n, n) is scratch (unused when prev is NULL);
 * out, prev and hat distinct. Reads layer l once and then releases it. Gives
 * the numbers combine_rollout gives (it is made of these steps). Returns
 * AV_OK, AV_ERR_NPY_SHAPE, AV_ERR_CONFIG (l out of range) or AV_ERR_NOMEM. */
int combine_rollout_step(const AttnSource *s, int l, const float *prev, float *hat, float *out);

/* Bytes combine_rollout allocates for n tokens (two n x n float matrices). */
double combine_rollout_bytes(int n);

/* Row i of the rollout after layers 0..last, without any (n, n) matrix:
 * e_i^T A_hat_last ... A_hat_0, built in blocks of rows of each A_hat. For
 * long texts and a selected token. out is n floats. Allocates O(64 n).
 * Returns as combine_rollout. Equal to row i of combine_rollout to float
 * rounding (the products are summed in another order). */
int combine_rollout_row(const AttnSource *s, int last, int i, float *out);

/* Value-weighted norms (Kobayashi et al. 2020, "Attention is not only a
 * weight"): f_h(j) = V_j,h W_O,h, where V_j,h is row j of V's head-h columns
 * h*d_k .. (h+1)*d_k - 1 and W_O,h the rows h*d_k .. (h+1)*d_k - 1 of W_O.
 * fnorm (H, n_k): fnorm[h * n_k + j] = ||f_h(j)||_2. V is (n_k, d_model),
 * Wo (d_model, d_model), row-major; H divides d_model. Each f_h is one
 * (n_k, d_model) product through mat_sgemm into a scratch matrix allocated
 * here. Returns AV_OK, AV_ERR_CONFIG (bad sizes) or AV_ERR_NOMEM. */
int combine_value_norms(int n_k, int d_model, int H, const float *V, const float *Wo, float *fnorm);

/* One row of norms: out[j] = alpha[j] * fnorm_h[j], which is
 * ||alpha_j f_h(j)|| for alpha_j >= 0. out may equal alpha. */
void combine_norms_row(int n_k, const float *alpha, const float *fnorm_h, float *out);

/* A source of the same shape as `weights` whose rows are value-weighted norms:
 * row i of head h of layer l is combine_norms_row of the weights' row with
 * fnorm + (l * H + h) * n_k; fnorm is (L, H, n_k), each layer's from
 * combine_value_norms. Keeps the pointers; allocates nothing. */
typedef struct {
    AttnSource src; /* read this */
    const AttnSource *weights;
    const float *fnorm;
} NormsSource;

void combine_norms_init(NormsSource *ns, const AttnSource *weights, const float *fnorm);

#endif
