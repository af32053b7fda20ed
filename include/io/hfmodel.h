/* hfmodel.h - a Hugging Face GPT-2 folder's config.json and weights, read into
 * core/gpt2.h's Gpt2Weights (hfmodel.c, hfconfig.c).
 *
 * DESIGN.md "A Hugging Face GPT-2 folder" is the contract: config.json with
 * "model_type": "gpt2"; model.safetensors, or the shards that
 * model.safetensors.index.json lists; tensor names with or without a leading
 * "transformer." (not a mix); lm_head.weight when config.json says
 * "tie_word_embeddings": false and the file has it, else tied to wte (as
 * transformers: with tying on, a stored lm_head.weight is not used);
 * h.N.attn.bias and h.N.attn.masked_bias ignored. F32 data is used in place
 * when it is 4-byte aligned, copied when not; F16 and BF16 are converted to
 * float32 on load; either way the map's pages are dropped from resident
 * memory behind the copy, so resident memory stays near the float32 weights.
 * Every tensor's dtype, shape (against config.json) and values (NaN and Inf
 * refused) are checked before the model is handed out. The vocabulary files
 * are not read here. Nothing prints: a failure is an AV_ERR_* code and one
 * line in why naming the file and the tensor or key.
 */
#ifndef ATTNVIZ_HFMODEL_H
#define ATTNVIZ_HFMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/gpt2.h"
#include "io/hfweights.h"

/* Caps of config.json's sizes (not av.h's: gpt2-xl's n_embd of 1600 and 25
 * heads are beyond the toy models' AV_MAX_D_MODEL). */
#define HF_MAX_VOCAB (1 << 20)
#define HF_MAX_CTX 65536
#define HF_MAX_D_MODEL 16384
#define HF_MAX_D_FF 65536
#define HF_MAX_CONFIG_BYTES (1 << 20)

/* What `attnviz train --format hf` wrote under config.json's "attnviz" key
 * (hfwrite.c): the task the model was trained on, "" for any other GPT-2
 * (or a value that is not a short string), and the seed of its batches;
 * and whether config.json ties the unembedding to wte. */
typedef struct {
    char task[32];
    unsigned long long seed; /* 1 when not given, as `attnviz train` */
    bool tie;                /* "tie_word_embeddings" (true when absent, as transformers) */
} HfOrigin;

typedef struct {
    Gpt2Weights w;       /* the pointers point into maps or arena */
    HfOrigin origin;     /* config.json's "attnviz" */
    bool tied;           /* tied or no lm_head.weight: w.lm_head == w.wte */
    bool prefixed;       /* names began with "transformer." */
    int dtype;           /* ST_F32, ST_F16 or ST_BF16 (that of wte) */
    size_t n_params;     /* floats in the weights (lm_head counted once when tied) */
    size_t copied_bytes; /* bytes of arena: weights copied or converted */
    HfWeights files;     /* private: the maps and the arena */
} HfModel;

/* Parse config.json's text[0..len) into *cfg. Keys read: model_type (must
 * be "gpt2"), vocab_size (or n_vocab), n_positions (or n_ctx), n_embd,
 * n_head, n_layer, n_inner (null: 4 n_embd), layer_norm_epsilon,
 * activation_function (gelu_new or gelu_pytorch_tanh), tie_word_embeddings,
 * scale_attn_by_inverse_layer_idx and add_cross_attention (refused when
 * true); a missing key takes Hugging Face's default (gpt2's sizes); other
 * keys are skipped. Sizes are checked against the HF_MAX_* caps and
 * AV_MAX_LAYERS, n_embd against n_head. name names the file in why. When
 * origin is not NULL it receives the "attnviz" object's "task" and "seed"
 * (a value of another type is passed over, never refused). Returns AV_OK,
 * AV_ERR_MODEL or AV_ERR_NOMEM. */
int hfmodel_parse_config(const char *text, size_t len, const char *name, Gpt2Config *cfg,
                         HfOrigin *origin, char *why, size_t whylen);

/* Open the folder dir: config.json, then the weights, checked whole.
 * progress (may be NULL) is called with ctx first as (0, "config.json"),
 * then after each tensor read with the bytes done so far and the tensor's
 * name, ending at 1. Returns AV_OK; AV_ERR_IO (dir, or a file that exists,
 * cannot be read or mapped: errno set; exit status 1); AV_ERR_MODEL (dir is
 * not a folder or has no config.json, a config or file that is refused, only
 * a pytorch_model.bin, a missing tensor, a wrong shape or dtype, NaN or Inf;
 * exit status 2); or AV_ERR_NOMEM. why receives one line without a
 * trailing newline or "attnviz: ". On error *m is zeroed with nothing left
 * mapped or allocated. The weights stay valid until hfmodel_close. */
int hfmodel_open(const char *dir, HfModel *m, HfProgress progress, void *ctx, char *why,
                 size_t whylen);

/* Unmap and free; accepts a zeroed or closed HfModel, and leaves it zeroed. */
void hfmodel_close(HfModel *m);

#endif
