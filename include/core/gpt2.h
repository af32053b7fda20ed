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
 */
#ifndef ATTNVIZ_GPT2_H
#define ATTNVIZ_GPT2_H

#include "core/av.h"

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
} Gpt2Weights;

#endif
