/* bert_ref.h - a BERT-family encoder's forward as the formula reads, in
 * plain C: the oracle the fast forward (core/bert.h's bert_forward) is tested
 * against, as gpt2_ref is GPT-2's (src/core/bert/bert_ref.c).
 */
#ifndef ATTNVIZ_BERT_REF_H
#define ATTNVIZ_BERT_REF_H

#include <stdbool.h>

#include "core/bert.h"

/* Everything the forward makes for ids[0..n): L = n_layer, H = n_head,
 * D = d_model, V = n_vocab. */
typedef struct {
    int n, L, H, D, V;
    float *x;      /* (L + 1, n, D): [l] layer l's input, [L] the last layer's output */
    float *qkv;    /* (L, 3, n, D): Q, K, V with their biases */
    float *P;      /* (L, H, n, n): the attention weights */
    float *concat; /* (L, n, D): the heads' outputs side by side */
    float *mlm;    /* (n, V): the masked-LM logits, NULL without the head */
} BertRef;

/* The forward of ids[0..n) with types[0..n) (NULL: all 0) into r (allocated
 * here; bert_ref_free releases it): the embeddings and their LayerNorm, the
 * projections, attention through attention_ref_heads (no mask unless
 * causal; scaled by 1/sqrt(d_k)), the post-LayerNorm blocks with GELU's erf
 * form, and the masked-LM head when there is one; one plain loop after
 * another, sums in double. Returns AV_OK, AV_ERR_CONFIG (bert_check, an id,
 * a type or n out of range) or AV_ERR_NOMEM (r then holds nothing). */
int bert_ref(const BertWeights *w, const int *ids, const int *types, int n, bool causal,
             BertRef *r);

void bert_ref_free(BertRef *r);

#endif
