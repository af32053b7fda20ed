/* model.h - the configuration and the whole pipeline: text in, result out.
 *
 * text -> tokens -> X (toy embeddings or X.npy) -> + PE -> L attention layers.
 * With one layer (the default) the output is plain multi-head attention,
 * out = concat(heads) W_o, exactly the articles' MultiHeadAttention. With L > 1
 * each layer is the articles' encoder layer: x = LN(x + MHA(x)),
 * x = LN(x + FFN(x)), and layer l+1 attends over layer l's output.
 * Deterministic: a function of its arguments only.
 */
#ifndef ATTNVIZ_MODEL_H
#define ATTNVIZ_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/attention.h"
#include "core/av.h"
#include "core/combine.h"
#include "core/embed.h"
#include "core/pool.h"
#include "core/stats.h"
#include "core/tokenize.h"

typedef enum {
    PRESET_RANDOM,   /* toy weights and embeddings from the seed */
    PRESET_DESIGNED, /* hand-built heads of known behaviour (designed.h) */
    PRESET_LOADED,   /* layer 1's weights read from --weights */
    PRESET_IMPORTED, /* attention computed elsewhere (--attention): weights only */
    PRESET_TRAINED,  /* a saved trained model (--model DIR): the result is filled
                        outside the core (model_result_prepare); model_run refuses it */
} ModelPreset;

typedef struct {
    int H; /* heads, divides d_model */
    int d_model;
    int layers; /* 1 .. AV_MAX_LAYERS */
    uint64_t seed;
    bool causal;
    bool pe;    /* add sinusoidal positional encoding */
    bool scale; /* divide scores by sqrt(d_k) */
    float temperature;
    int max_tokens;
    bool keep_scores;               /* keep S (H, n, n) per layer, for --dump and the trace */
    ModelPreset preset;             /* PRESET_DESIGNED needs d_model 192 and 6 heads */
    double weights_budget;          /* bytes the (L, H, n, n) weights may take before they
                                       are computed on demand instead (0: MODEL_BUDGET) */
    const char *const *head_labels; /* layers * H labels, row-major (layer, head), of a
                                       trained model; NULL: the preset's labels */
    const char *about;  /* what the model is, for the exports' titles in place of seed and
                           PE ("GPT-2, 12 layers x 12 heads, learned PE": a kind's
                           config sets it); NULL: attnviz's own seed and PE are said */
    bool weights_only;  /* stop the last layer at its weights: its V, concat, out
                           and x_out (and r->out) are NULL, not computed (a view of
                           weights alone: P_h V_h is a third of a long text's run) */
    int heads_combined; /* > 0: the one head of the result stands for this many of
                           the model's heads combined (the interface's combining
                           views): exports title it by its label, not "Head 1 of
                           1", and give d_k of one of those heads; 0: plain heads */
} ModelConfig;

#define MODEL_BUDGET (1024.0 * 1024 * 1024) /* 1 GiB */

/* The encoder layer's feed-forward width is MODEL_FFN_MULT d_model (the
 * articles' d_ff = 4 d_model). */
#define MODEL_FFN_MULT 4

typedef struct {
    float *Wq, *Wk, *Wv, *Wo; /* (d_model, d_model) */
    float *W1, *b1;           /* (d_model, d_ff), (d_ff): feed-forward, L > 1 only */
    float *W2, *b2;           /* (d_ff, d_model), (d_model) */
    float max_abs[4];         /* the largest |w| of Wq, Wk, Wv, Wo (model_weights_measure) */
} LayerWeights;

typedef struct {
    int d_model, d_ff, L;
    LayerWeights layer[AV_MAX_LAYERS];
    float *X; /* (n_x, d_model) embeddings from X.npy replacing the toy ones, or NULL */
    int n_x;
    float *arena;  /* every matrix above lives here */
    bool measured; /* max_abs holds the matrices as they are (model_weights_measure) */
} ModelWeights;

typedef struct {
    AttnBuffers ab; /* Q K V S P concat out of this layer */
    float *x_out;   /* (n, d_model) the layer's output (= ab.out when L == 1) */
} LayerResult;

typedef struct {
    TokenList tokens;       /* the query sentence */
    TokenList cross_tokens; /* keys/values for cross-attention; n = 0 for self */
    char *text;             /* the text run, as typed (model_result_set_text), or NULL:
                               the tokens are all there is (imported attention, ids) */
    char *cross_text;       /* the keys' text under cross-attention, or NULL */
    AttnShape shape;        /* of every layer: n_q, n_k, d_model, H, mask ... */
    int L;
    float *X;  /* (n_q, d_model) embeddings + PE: layer 0's input */
    float *Xk; /* (n_k, d_model) cross sentence's embeddings + PE, or NULL */
    LayerResult layer[AV_MAX_LAYERS];
    float *out;            /* (n_q, d_model) the last layer's output; NULL after a
                              weights_only run */
    bool lazy;             /* weights too big to keep: ab.P and ab.S are NULL, and
                              pool.h computes rows and screen cells on demand */
    bool qkv_bias;         /* Q, K and V include a bias (X W_q + b_q: GPT-2's c_attn);
                              false after model_run and model_result_prepare */
    const AttnSource *src; /* imported attention (model_result_import): every weight
                              comes from here, and Q, K, V, X and out are NULL */
    float *arena;
    size_t arena_cap; /* floats; reused by the next model_run when big enough */
    float *pe;        /* (pe_n, pe_d) positional encodings kept between runs */
    int pe_n, pe_d;
    EmbedCache emb; /* toy embedding rows kept between runs */
} ModelResult;

/* DESIGN.md defaults: 4 heads, d_model 32, seed 42, one layer, PE and scaling on. */
void model_config_default(ModelConfig *c);

/* AV_OK, or AV_ERR_CONFIG when a field is out of range (av.h limits). */
int model_config_check(const ModelConfig *c);

/* Switch c to the designed preset: its d_model and heads. */
void model_config_designed(ModelConfig *c);

/* What head h of layer l does: c->head_labels[l * H + h] when set, else
 * "random", "from --weights", or the designed head's label. */
const char *model_head_label(const ModelConfig *c, int layer, int h);

/* Toy weights for c->d_model, c->layers from c->seed: W_q, W_k, W_v, W_o with
 * standard deviation sqrt(2/d_model) as the articles' MultiHeadAttention, and
 * for L > 1 an FFN of width 4 d_model. With the designed preset layer 0 holds
 * the designed heads instead. Returns AV_OK or AV_ERR_NOMEM. */
int model_weights_toy(const ModelConfig *c, ModelWeights *w);

/* Each layer's max_abs from its matrices as they are now, and measured set:
 * every forward bounds its scores with them (attention_check_range) instead
 * of reading the four matrices again. model_weights_toy measures; whoever
 * changes a matrix afterwards (weights_load) measures again. Unmeasured
 * weights are read at every forward. */
void model_weights_measure(ModelWeights *w);

void model_weights_free(ModelWeights *w);

/* Run the pipeline on text[0..len) (and cross[0..cross_len) when cross is not
 * NULL) into r, reusing r's buffers. r must be zeroed before the first call.
 * Returns AV_OK, AV_ERR_EMPTY, AV_ERR_UTF8, AV_ERR_TOO_MANY, AV_ERR_CONFIG,
 * AV_ERR_NPY_SHAPE (X.npy rows != tokens), AV_ERR_TOO_LARGE (scores asked to
 * be kept for a text whose weights exceed the budget) or AV_ERR_NOMEM. On error r keeps
 * no half-computed numbers: r->shape.n_q is 0. */
int model_run(const ModelConfig *c, const ModelWeights *w, const char *text, size_t len,
              const char *cross, size_t cross_len, ModelResult *r);

/* Lay r's arena out for a self-attention result of n_q queries over n_k keys
 * of c (every layer's Q K V S P concat out, X, and x_out) as model_run does,
 * for a pipeline outside the core that fills the numbers itself; sets r->L,
 * r->shape from c (causal, scale, temperature) and r->out to the last layer's
 * x_out. With c->preset PRESET_TRAINED, x_out is its own matrix even for one
 * layer (a residual stream, not the attention's out). Tokens are left to the
 * caller. r must be zeroed before the first call; its buffers are reused.
 * Returns AV_OK, AV_ERR_CONFIG, AV_ERR_TOO_LARGE (scores to keep past the
 * budget) or AV_ERR_NOMEM; on error r->shape.n_q is 0. */
int model_result_prepare(const ModelConfig *c, int n_q, int n_k, ModelResult *r);

void model_result_free(ModelResult *r);

/* Keep a copy of the text r was run on, and of the keys' text under
 * cross-attention (NULL or empty: none), for the exports' titles; the
 * copies it kept before are freed. Returns AV_OK or AV_ERR_NOMEM (then both
 * are NULL). */
int model_result_set_text(ModelResult *r, const char *text, size_t len, const char *cross,
                          size_t cross_len);

/* The one way into a result's numbers: export, trace, dump and the interface
 * all read tokens, weights and rows through these three. */

/* The key (column) tokens: the second sentence's under cross-attention, else
 * the query sentence's. */
const TokenList *model_key_tokens(const ModelResult *r);

/* Head h of layer l: its weights (n_q, n_k), or NULL when the result is lazy
 * (a long text whose weights are computed on demand). */
const float *model_head_P(const ModelResult *r, int layer, int h);

/* What layer l of a result holds, as MODEL_HOLDS_ bits. Every reader of a
 * buffer beyond the weights asks first: imported attention and the
 * combining views' results hold weights alone (no Q, K, V), a lazy result
 * no kept weights, a weights_only run's last layer no V, concat or output,
 * and only keep_scores keeps S. */
enum {
    MODEL_HOLDS_WEIGHTS = 1u << 0, /* every head's weights kept: model_head_P */
    MODEL_HOLDS_QK = 1u << 1,      /* Q and K: raw scores, dot products */
    MODEL_HOLDS_SCORES = 1u << 2,  /* S, the scores before softmax */
    MODEL_HOLDS_VECTORS = 1u << 3, /* V and the heads' outputs (concat) */
    MODEL_HOLDS_OUTPUT = 1u << 4,  /* the layer's output (x_out) */
};
unsigned model_holds(const ModelResult *r, int layer);

/* Whether layer l of r has its vectors: Q, K, V and the heads' outputs
 * (model_holds' QK and VECTORS): the pipeline, the trace and the output
 * answers need them all. */
bool model_has_vectors(const ModelResult *r, int layer);

/* Row i of head h of layer l (n_k weights): a pointer into the kept weights,
 * or, for a lazy result, computed from Q and K (or read from an import's
 * AttnSource) into buf (n_k floats, the caller's) and buf returned. Masked keys are exactly 0. */
const float *model_head_row(const ModelResult *r, int layer, int h, int i, float *buf);

/* Head h of layer l pooled to (gh, gw) screen cells as pool_head does, its
 * weights from wherever the result keeps them: model_head_P, Q and K of a
 * lazy run, or the AttnSource of a lazy import. Returns AV_OK or AV_ERR_NOMEM. */
int model_pool_head(const ModelResult *r, int layer, int h, int r0, int r1, int c0, int c1, int gh,
                    int gw, PoolMode mode, float *out);

/* stats_head of head h of layer l, likewise from wherever the weights are.
 * Returns AV_OK or AV_ERR_NOMEM. */
int model_stats_head(const ModelResult *r, int layer, int h, long budget, HeadStats *st);

/* The result as an AttnSource (combine.h) of shape (L, H, n_q, n_k) whose rows
 * are model_head_row's; its release is model_release_layer. Valid while r
 * is unchanged. */
void model_source(const ModelResult *r, AttnSource *src);

/* The reader is done with layer l for now: an imported result lets the
 * memory map drop its pages (l < 0: every layer). Nothing for other results. */
void model_release_layer(const ModelResult *r, int l);

/* A configuration describing imported attention: L layers of H heads,
 * d_model = H (there are no vectors), no PE, no scaling, the causal flag of
 * the file, preset PRESET_IMPORTED. */
void model_config_import(ModelConfig *c, int L, int H, bool causal);

/* Make r (zeroed, or a result to replace) a result of attention computed
 * elsewhere, (L, H, n_q, n_k) from src with no vectors: X, Xk, out and each
 * layer's Q, K, V, S, concat are NULL. layer_P, when not NULL, gives layer
 * l's (H, n_q, n_k) float32 weights in place (e.g. a read-only memory map:
 * never written through), so model_head_P costs no copy; with layer_P NULL
 * the weights are copied into r's arena when they fit c->weights_budget
 * (0: MODEL_BUDGET), else r->lazy and rows are read from src on demand.
 * tokens (n_q) and key_tokens (n_k, or NULL for self-attention) are copied.
 * src must outlive r. c from model_config_import with src's L and H. Returns
 * AV_OK, AV_ERR_CONFIG (L, H or token counts not matching src, or beyond
 * av.h's limits) or AV_ERR_NOMEM; on error r->shape.n_q is 0. */
int model_result_import(ModelResult *r, const ModelConfig *c, const AttnSource *src,
                        const float *const *layer_P, const TokenList *tokens,
                        const TokenList *key_tokens);

/* Bytes of the (L, H, n_q, n_k) weights of a run. */
double model_weight_bytes(const ModelConfig *c, int n_q, int n_k);

/* Floating-point operations of one forward pass of shape s (the cost readout). */
double model_flops(const AttnShape *s);

/* Bytes of a KV cache of n positions (float32): every layer keeps a key and
 * a value of d_model numbers per position, 2 layers d_model 4 n. GPT-2
 * small: 72 KiB a token, 72 MiB at its context of 1,024. */
double model_kv_bytes(int layers, int d_model, int n);

#endif
