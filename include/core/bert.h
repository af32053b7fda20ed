/* bert.h - a BERT-family encoder's sizes and weights, and its forward pass
 * (src/core/bert/, the forward's kernel src/core/fast/bert_forward.c).
 *
 * The reader (io/hfbert.h) fills these from a Hugging Face folder (BERT,
 * DistilBERT, MiniLM); the forward reads them. Weights are PyTorch nn.Linear
 * ones, stored (out, in): y = x @ W^T + b, unlike GPT-2's Conv1D. Pointers
 * may point into a read-only memory map: nothing here is written through.
 *
 *   word (V, D)  pos (T, D)  type (Y, D), NULL when Y = 0 (DistilBERT)
 *   emb_ln g, b (D)
 *   per layer: q, k, v W (D, D), b (D): head h the rows h*d_k .. of W, so
 *              the columns h*d_k .. of Q, K and V (reshape(n, H, d_k));
 *              o W (D, D), b (D); ln1 g, b (D) (attention.output.LayerNorm);
 *              fc W (F, D), b (F) (intermediate); out W (D, F), b (D);
 *              ln2 g, b (D) (output.LayerNorm)
 *   the masked-LM head, all NULL when the checkpoint has none:
 *              mlm W (D, D), b (D) (transform.dense); mlm_ln g, b (D);
 *              decoder (V, D) (word when tied); mlm_bias (V)
 */
#ifndef ATTNVIZ_BERT_H
#define ATTNVIZ_BERT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/av.h"
#include "core/model.h"
#include "core/tokenize.h"

typedef struct {
    int n_vocab;  /* V */
    int n_pos;    /* T: max_position_embeddings */
    int n_types;  /* Y: type_vocab_size, 0 for DistilBERT (no token types) */
    int d_model;  /* D: hidden_size (dim) */
    int n_head;   /* H, divides D */
    int n_layer;  /* L, at most AV_MAX_LAYERS */
    int d_ff;     /* F: intermediate_size (hidden_dim) */
    float ln_eps; /* layer_norm_eps (1e-12) */
} BertConfig;

typedef struct {
    const float *q_w, *q_b, *k_w, *k_b, *v_w, *v_b;
    const float *o_w, *o_b;
    const float *ln1_g, *ln1_b;
    const float *fc_w, *fc_b;
    const float *out_w, *out_b;
    const float *ln2_g, *ln2_b;
} BertLayer;

typedef struct {
    BertConfig cfg;
    const float *word, *pos, *type;
    const float *emb_ln_g, *emb_ln_b;
    BertLayer layer[AV_MAX_LAYERS];
    const float *mlm_w, *mlm_b, *mlm_ln_g, *mlm_ln_b;
    const float *decoder, *mlm_bias;
} BertWeights;

/* ------------------------------------------------------------------ forward
 *
 * bert_forward over ids[0..n) with token types types[0..n), D = d_model,
 * H = n_head, d_k = D / H, F = d_ff, L = n_layer:
 *
 *   x_0 = LN_emb(word[ids] + pos[0..n) + type[types])              (n, D)
 *   per layer l:  Q, K, V = x_l q_w^T + q_b, ...                   (n, D) each
 *                 P_h = softmax(Q_h K_h^T / sqrt(d_k))             (n, n) per head,
 *                       no mask (causal only as a what-if)
 *                 concat[:, h d_k ..] = P_h V_h                    (n, D)
 *                 attn = concat o_w^T + o_b                        (n, D)
 *                 a = LN1(x_l + attn)
 *                 x_{l+1} = LN2(a + gelu_erf(a fc_w^T + fc_b) out_w^T + out_b)
 *   mlm_i = LN_mlm(gelu_erf(x_L[i] mlm_w^T + mlm_b)) decoder^T + mlm_bias   (V)
 *
 * Every product runs through core/mat.h (cblas_sgemm; a large one on two
 * threads, src/core/fast/bert_forward.c), the heads through
 * core/attention.h's attention_heads. There is no cache: a new text is a
 * whole forward (attention looks both ways, so one new token changes every
 * position).
 */

/* A caller-owned forward state, reused between calls (zero it first;
 * bert_state_free releases it). Each array holds a layer's block after
 * another: [l] is (n, D) at l n D (P: (H, n, n) at l H n n). */
typedef struct {
    int n;            /* positions of the last run */
    int L, D, H;      /* the shape of the last run */
    bool causal;      /* the last run was the causal what-if */
    int cap;          /* positions the arrays have room for */
    int *ids;         /* (cap) the last run's ids */
    int *types;       /* (cap) and token types */
    float *x;         /* (L + 1, n, D): [l] layer l's input, [L] the last layer's output */
    float *q, *k, *v; /* (L, n, D) each, with their biases */
    float *P;         /* (L, H, n, n) the attention weights */
    float *concat;    /* (L, n, D) the heads' outputs side by side */
    float *attn;      /* (L, n, D) concat o_w^T + o_b: the attention's share */
    float *work;      /* scratch */
    size_t work_cap;
    int threads; /* the caller's: 1 or 2 threads for the products, 0 (the default):
                    2 for a product that repays the helper, on two processors */
} BertState;

/* AV_OK when the sizes are ones the forward takes (every size positive, or
 * n_types 0 with type NULL; H divides D; D <= AV_MAX_D_MODEL, H <=
 * AV_MAX_HEADS, L <= AV_MAX_LAYERS, n_pos <= AV_MAX_TOKENS; ln_eps > 0) and
 * no weight the forward reads is NULL (the head's either all there or all
 * NULL); else AV_ERR_CONFIG. */
int bert_check(const BertWeights *w);

/* Whether the checkpoint has the masked-LM head. */
bool bert_has_mlm(const BertWeights *w);

/* Release a state's arrays; accepts a zeroed one. Leaves it zeroed. */
void bert_state_free(BertState *st);

/* Run ids[0..n) (each in [0, V)) with types[0..n) (each in [0, Y), or all
 * 0 when Y is 0; NULL: all 0) through the model into st, causal true for
 * the what-if of a mask BERT was trained without. Allocates only when st
 * must grow. Returns AV_OK, AV_ERR_EMPTY (n < 1), AV_ERR_TOO_MANY (n >
 * n_pos), AV_ERR_CONFIG (bert_check, an id or type out of range) or
 * AV_ERR_NOMEM; on error st->n is 0. */
int bert_forward(const BertWeights *w, const int *ids, const int *types, int n, bool causal,
                 BertState *st);

/* The masked-LM logits of positions [i0, i0 + count) of st's last run into
 * out (count, V), the caller's. Returns AV_OK, AV_ERR_CONFIG (no head, or
 * the rows out of range) or AV_ERR_NOMEM. */
int bert_mlm_logits(const BertWeights *w, const BertState *st, int i0, int count, float *out);

/* ‖V_j,h W_O,h‖ for every key j < st->n and head h of layer l into out
 * (H, n): V_j,h row j of V's head-h columns, W_O,h the columns h d_k .. of
 * o_w (the rows of o_w^T). Returns AV_OK, AV_ERR_CONFIG or AV_ERR_NOMEM. */
int bert_value_norms(const BertWeights *w, const BertState *st, int l, float *out);

/* ------------------------------------------------------- the views' result */

/* A ModelConfig for the views: H, d_model, layers from cfg; not causal,
 * scaling, temperature 1, no toy PE; max_tokens n_pos; PRESET_TRAINED. */
void bert_model_config(const BertConfig *cfg, ModelConfig *c);

/* Fill r (zeroed, or an earlier result to reuse) from st's last run as the
 * views read every model: r->X the embeddings after their LayerNorm, per
 * layer ab.Q, ab.K, ab.V (with biases: r->qkv_bias), ab.P (NULL when lazy),
 * ab.S when c->keep_scores, ab.concat, ab.out the attention's share, x_out
 * the layer's output. c from bert_model_config, its causal equal to
 * st->causal; scale and temperature may differ as a what-if (the weights
 * are then recomputed from the run's Q and K). tokens (st->n) are copied.
 * Returns AV_OK, AV_ERR_CONFIG, AV_ERR_TOO_LARGE or AV_ERR_NOMEM; on error
 * r->shape.n_q is 0. */
int bert_result_fill(const BertWeights *w, const BertState *st, const ModelConfig *c,
                     const TokenList *tokens, ModelResult *r);

/* Parameters the forward and the head read (the decoder counted once when
 * tied to word). */
double bert_param_count(const BertWeights *w);

/* Floating-point operations of a forward of n tokens (no MLM head). */
double bert_flops(const BertConfig *cfg, int n);

#endif
