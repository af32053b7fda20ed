/* gpt2_ref.h - GPT-2's forward as the formula reads, in plain C: the oracle
 * the fast forward (core/gpt2.h's gpt2_forward) is tested against, as
 * attention_ref is the fast attention's (gpt2_ref.c).
 */
#ifndef ATTNVIZ_GPT2_REF_H
#define ATTNVIZ_GPT2_REF_H

#include "core/gpt2.h"

/* Everything the forward makes, for ids[0..n): L = n_layer, H = n_head,
 * D = d_model, V = n_vocab. */
typedef struct {
    int n, L, H, D, V;
    float *x;      /* (L + 1, n, D): [l] layer l's residual input, [L] the last
                      layer's output before ln_f */
    float *qkv;    /* (L, n, 3D): Q | K | V with c_attn's bias */
    float *P;      /* (L, H, n, n): the attention weights, masked ones 0 */
    float *concat; /* (L, n, D): the heads' outputs P_h V_h side by side */
    float *logits; /* (n, V): LN_f(x_L[i]) @ lm_head^T at every position */
} Gpt2Ref;

/* The forward of ids[0..n) (each in [0, V), n <= n_ctx) into r (allocated
 * here; gpt2_ref_free releases it): LayerNorm, c_attn, attention through
 * attention_ref_heads (causal, scaled by 1/sqrt(d_k)), c_proj, the GELU MLP
 * (tanh form) and the logits, one plain loop after another, sums in double.
 * Returns AV_OK, AV_ERR_CONFIG (gpt2_check, an id or n out of range) or
 * AV_ERR_NOMEM (r then holds nothing). */
int gpt2_ref(const Gpt2Weights *w, const int *ids, int n, Gpt2Ref *r);

void gpt2_ref_free(Gpt2Ref *r);

#endif
