/* attention_ref.h - multi-head attention as the formula reads, in plain C:
 * the reference the fast paths are tested against (attention_ref.c).
 */
#ifndef ATTNVIZ_ATTENTION_REF_H
#define ATTNVIZ_ATTENTION_REF_H

#include "core/attention.h"

/* The forward pass of s into b as attention_forward makes it (Q, K, V, S when
 * not NULL, P, concat and out; every buffer but S required), by the formula
 * alone: one plain loop after another, no BLAS, no blocking, no threads.
 * Numbers within float rounding of attention_forward's (not the same bits).
 * Returns AV_OK, AV_ERR_CONFIG or AV_ERR_EMPTY (attention_check's). */
int attention_ref(const AttnShape *s, const float *Xq, const float *Xkv, const AttnWeights *w,
                  AttnBuffers *b);

/* Steps 2 to 6 of attention_ref on Q (n_q, d_model), K and V (n_k, d_model)
 * given: S (H, n_q, n_k) when not NULL, P (H, n_q, n_k) and concat (n_q,
 * d_model). The reference for a model whose Q, K and V come another way
 * (GPT-2's with c_attn's bias). Returns attention_check's codes. */
int attention_ref_heads(const AttnShape *s, const float *Q, const float *K, const float *V,
                        float *S, float *P, float *concat);

#endif
