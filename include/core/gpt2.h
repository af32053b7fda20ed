/* gpt2.h - a GPT-2 model's sizes and weights, as the maths reads them.
 *
 * The reader (io/hfmodel.h) fills these from a Hugging Face folder; the
 * forward (core/gpt2.c) reads them. Every pointer is float32 in C order, in
 * GPT-2's own row-vector convention: Conv1D weights are (in, out) and
 * y = x @ W + b. Pointers may point into a read-only memory map: nothing here
 * is ever written through.
 *
 *   wte (V, D)  wpe (T, D)
 *   per layer: ln_1 g, b (D); c_attn W (D, 3D), b (3D): columns [0, D) are Q,
 *              [D, 2D) K, [2D, 3D) V, head h the columns h*d_k ... of each;
 *              c_proj W (D, D), b (D); ln_2 g, b (D);
 *              c_fc W (D, F), b (F); mlp c_proj W (F, D), b (D)
 *   ln_f g, b (D); lm_head (V, D): logits = x @ lm_headᵀ (wte when tied)
 *
 * With `panels` set (the reader sets it), c_attn W, c_fc W and mlp c_proj W
 * lie as two panels of columns instead: (K, s) then (K, N - s), s =
 * gpt2_panel_split(N), each row after row; gpt2_weight_index finds an
 * element either way. Each of the forward's two threads computes one
 * panel's columns, and reads its weights in one run rather than half of
 * every row. c_proj W always lies row after row.
 */
#ifndef ATTNVIZ_GPT2_H
#define ATTNVIZ_GPT2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/av.h"
#include "core/model.h"
#include "core/rng.h"
#include "core/sample.h"
#include "core/tokenize.h"

typedef struct {
    int n_vocab;  /* V */
    int n_ctx;    /* T: positions wpe has */
    int d_model;  /* D */
    int n_head;   /* H, divides D */
    int n_layer;  /* L, at most AV_MAX_LAYERS */
    int d_ff;     /* F: c_fc's width (n_inner, 4 D when config.json says null) */
    float ln_eps; /* layer_norm_epsilon */
} Gpt2Config;

typedef struct {
    const float *ln1_g, *ln1_b;
    const float *attn_w, *attn_b;
    const float *proj_w, *proj_b;
    const float *ln2_g, *ln2_b;
    const float *fc_w, *fc_b;
    const float *fcproj_w, *fcproj_b;
} Gpt2Layer;

typedef struct {
    Gpt2Config cfg;
    const float *wte, *wpe;
    Gpt2Layer layer[AV_MAX_LAYERS];
    const float *lnf_g, *lnf_b;
    const float *lm_head; /* == wte when the checkpoint ties them */
    bool panels;          /* attn_w, fc_w and fcproj_w lie in two panels (above) */
} Gpt2Weights;

/* Columns of a (K, N) weight's first panel: about half, at a multiple of
 * 16 (the forward's tile), so 0 (one panel) below 16 columns. */
static inline int gpt2_panel_split(int N)
{
    return (N / 2 + 8) / 16 * 16;
}

/* Where element (k, j) of a (K, N) weight lies: row after row, or in
 * panels (attn_w, fc_w and fcproj_w of a Gpt2Weights with panels). */
static inline size_t gpt2_weight_index(bool panels, int K, int N, int k, int j)
{
    const int s = panels ? gpt2_panel_split(N) : 0;
    if (j < s)
        return (size_t)k * s + j;
    return (size_t)K * s + (size_t)k * (N - s) + (j - s);
}

/* ------------------------------------------------------------------ forward
 *
 * gpt2_forward over ids[0..n) (core/gpt2.c), with D = d_model, H = n_head,
 * d_k = D / H, F = d_ff, L = n_layer:
 *
 *   x_0 = wte[ids] + wpe[0..n)                                    (n, D)
 *   per layer l:  a = LN1(x_l)                                    (n, D)
 *                 Q | K | V = a @ attn_w + attn_b                 (n, 3D)
 *                 P_h = softmax(causal(Q_h K_h^T / sqrt(d_k)))    (n, n) per head
 *                 concat[:, h d_k ..] = P_h V_h                   (n, D)
 *                 attn = concat @ proj_w + proj_b                 (n, D)
 *                 x' = x_l + attn
 *                 x_{l+1} = x' + gelu_tanh(LN2(x') @ fc_w + fc_b) @ fcproj_w + fcproj_b
 *   logits_i = LN_f(x_L[i]) @ lm_head^T                           (V) on demand
 *
 * Every product runs through core/mat.h. Each row's numbers are summed in
 * the same order whatever rows or threads compute it (mat_sgemm_packed's
 * kernel where the processor has AVX2 and FMA, gpt2_kern.c's plain loops
 * elsewhere), so a run that reuses the cache gives the bits of a whole one.
 */

/* Positions a block of Gpt2State's kc and vc holds. */
#define GPT2_KV_BLOCK 64

/* Where the tile of position i's block for layer l, head h begins in kc
 * or vc. */
static inline size_t gpt2_kv_offset(int L, int H, int d_k, int i, int l, int h)
{
    return (((size_t)(i / GPT2_KV_BLOCK) * L + l) * H + h) * d_k * GPT2_KV_BLOCK;
}

struct DuoHelper; /* core's own */

/* A caller-owned forward state, reused between calls: the cache of every
 * layer's K and V and everything the views read, and the helper thread of
 * a run on two threads. Zero it (or gpt2_state_init) before the first
 * call; gpt2_state_free releases it. Calls on one state (gpt2_logits and
 * gpt2_lens included) must not run at the same time. A state belongs to
 * one model: when the weights change (another checkpoint
 * of the same shape), set n to 0 so that nothing cached is reused.
 * Positions are rows: row i of a (cap, L, w) array holds every layer's w
 * numbers of position i, so the arrays grow with n without moving a row. */
typedef struct {
    int n;                 /* positions computed: ids[0..n) */
    int from;              /* the first position the last gpt2_forward computed (0: all) */
    int cap;               /* positions every array below has room for */
    int L, D;              /* the shape the arrays were made for (a new model resets them) */
    int *ids;              /* (cap) */
    float *x;              /* (cap, L + 1, D): [i][l] layer l's residual input at position i;
                              [i][L] the last layer's output, before ln_f */
    float *qkv;            /* (cap, L, 3D): Q | K | V of position i, with their biases */
    float *concat;         /* (cap, L, D): the heads' outputs P_h V_h side by side */
    float *attn;           /* (cap, L, D): concat @ proj_w + proj_b, the attention's share of x */
    float *kc, *vc;        /* every head's K and V again, for a typed key's heads to read in
                              one run: blocks of GPT2_KV_BLOCK positions, block b holding
                              for each layer l and head h the (d_k, GPT2_KV_BLOCK) tile of
                              K transposed (kc) and the (GPT2_KV_BLOCK, d_k) tile of V (vc),
                              gpt2_kv_offset(L, H, d_k, i, l, h) floats in */
    float *P;              /* attention weights: position i's rows of every layer and head,
                              (L, H, i + 1) floats from gpt2_P_offset(i): key j <= i */
    int p_rows;            /* positions whose rows of P are kept (a prefix) */
    size_t p_cap;          /* floats P has room for */
    double weights_budget; /* the caller's: P is kept while L H n n floats fit it
                              (0: MODEL_BUDGET), as model_result_prepare decides */
    int threads;           /* the caller's: 1 or 2 threads for the forward and the logits,
                              0 (the default): 2 when the processor has two cores and
                              the work repays the helper thread */
    float *work;           /* scratch of the forward */
    size_t work_cap;
    struct DuoHelper *helper; /* the second thread of the forward and the logits,
                                 kept between calls once started */
} Gpt2State;

/* Floats before position i's rows in Gpt2State.P, for L layers of H heads:
 * L H i (i + 1) / 2. Row j of head h of layer l starts at
 * gpt2_P_offset(L, H, j) + ((size_t)l * H + h) * (j + 1). */
static inline size_t gpt2_P_offset(int L, int H, int i)
{
    return (size_t)L * H * ((size_t)i * (i + 1) / 2);
}

/* A zeroed state. */
void gpt2_state_init(Gpt2State *st);

/* Release a state's arrays and end its helper thread; accepts a zeroed
 * one. Leaves it zeroed. */
void gpt2_state_free(Gpt2State *st);

/* AV_OK when the sizes are ones the forward takes: every size positive, H
 * divides D, D <= AV_MAX_D_MODEL, H <= AV_MAX_HEADS, L <= AV_MAX_LAYERS,
 * n_ctx <= AV_MAX_TOKENS, ln_eps > 0, and no weight pointer NULL; else
 * AV_ERR_CONFIG. */
int gpt2_check(const Gpt2Weights *w);

/* Run ids[0..n) (each id in [0, V)) through the model into st. Positions
 * before the first one where ids differs from st->ids[0..st->n) keep what the
 * earlier call computed (the KV cache); the rest is computed (st->from says
 * where that began). Runs on st->threads threads (the second one st's
 * helper, started by the first such call; the bits do not depend on the
 * threads), and
 * allocates only when st must grow.
 * Returns AV_OK, AV_ERR_EMPTY (n < 1), AV_ERR_TOO_MANY (n > n_ctx),
 * AV_ERR_CONFIG (gpt2_check, or an id out of range) or AV_ERR_NOMEM; on error
 * st->n is 0 (the next call recomputes everything). */
int gpt2_forward(const Gpt2Weights *w, const int *ids, int n, Gpt2State *st);

/* The next-token logits at position i < st->n: logits (V) =
 * LN_f(x_L[i]) @ lm_head^T, the caller's V floats; on st->threads threads
 * once st has its helper (a forward on two threads started it), else on
 * one. Returns AV_OK or AV_ERR_CONFIG (i out of range). */
int gpt2_logits(const Gpt2Weights *w, const Gpt2State *st, int i, float *logits);

/* The logit lens's logits (core/lens.h) of layer l's residual stream at
 * position i < st->n: logits (V) = LN_f(x_l[i]) @ lm_head^T, x_0 the
 * embeddings; l = L is gpt2_logits (the same computation, the same bits).
 * Returns AV_OK or AV_ERR_CONFIG (l or i out of range). */
int gpt2_lens_logits(const Gpt2Weights *w, const Gpt2State *st, int l, int i, float *logits);

/* One step of generation: gpt2_forward(ids[0..n)) (reusing st's cache),
 * the logits of position n - 1 into logits (V floats, the caller's) and the
 * token sample_token chooses into *next. Append *next to ids and call again for the one
 * after (only that position is computed). Returns gpt2_forward's codes. */
int gpt2_next(const Gpt2Weights *w, const int *ids, int n, const Sampling *s, Rng *rng,
              Gpt2State *st, float *logits, int *next);

/* ‖V_j,h W_O,h‖ for every key j < st->n and head h of layer l into out
 * (H, n): V_j,h is row j of V's head-h columns and W_O,h rows h d_k .. of
 * proj_w (no bias). The value-weighted norms of DESIGN.md are
 * P[l][h][i][j] * out[h][j]. Returns AV_OK, AV_ERR_CONFIG or AV_ERR_NOMEM. */
int gpt2_value_norms(const Gpt2Weights *w, const Gpt2State *st, int l, float *out);

/* ------------------------------------------------------- the views' result */

/* A ModelConfig describing the model for model_result_prepare and the views:
 * H, d_model, layers from cfg; causal, scaling, temperature 1, no toy PE;
 * max_tokens n_ctx; preset PRESET_TRAINED (a result filled outside
 * model_run, x_out a residual stream of its own); head_labels NULL. */
void gpt2_model_config(const Gpt2Config *cfg, ModelConfig *c);

/* Fill r (zeroed, or an earlier result to reuse) from st's last run, as
 * every view reads a result: r->X the embeddings + positions, per layer
 * ab.Q, ab.K, ab.V (with biases: r->qkv_bias true), ab.P (H, n, n) (NULL when r is lazy: past
 * c->weights_budget the rows are computed from Q and K on demand), ab.S when
 * c->keep_scores, ab.concat, ab.out = the attention's share of the residual
 * (concat @ proj_w + proj_b), x_out the residual stream after the layer
 * (r->out: the last layer's, before ln_f). tokens (st->n of them) are
 * copied. c from gpt2_model_config; its weights_budget and keep_scores may
 * be changed, and so may scale and temperature, as a what-if: the weights
 * are then those of the model's own Q and K under c's shape (recomputed
 * here), while the vectors, the residual stream and the logits stay the
 * model's. The causal mask cannot be turned off. Returns AV_OK,
 * AV_ERR_CONFIG (shapes or token count differ, c->causal false),
 * AV_ERR_TOO_LARGE or AV_ERR_NOMEM; on error r->shape.n_q is 0. */
int gpt2_result_fill(const Gpt2Weights *w, const Gpt2State *st, const ModelConfig *c,
                     const TokenList *tokens, ModelResult *r);

/* Parameters of the model (wte, wpe, the layers, ln_f; lm_head when it is
 * not wte). */
double gpt2_param_count(const Gpt2Weights *w);

/* Floating-point operations of a forward computing positions [from, n) (no
 * logits), the causal triangle's only. */
double gpt2_flops(const Gpt2Config *cfg, int from, int n);

/* The kernels gpt2_forward runs on this processor: "avx512+fma" (register
 * tiles of 16-float vectors for up to 12 rows), "avx2+fma" or "plain" (the
 * loops without them). */
const char *gpt2_kernel(void);

#endif
