/* sample.h - the next token from logits (sample.c): one sampler for every
 * model that predicts tokens.
 */
#ifndef ATTNVIZ_SAMPLE_H
#define ATTNVIZ_SAMPLE_H

#include "core/rng.h"

/* The k most probable tokens of logits (V) under softmax(logits /
 * temperature) (temperature > 0; 1 is the model's own distribution): ids and
 * probabilities in decreasing order (ties: the smaller id first) into ids[k]
 * and probs[k], the softmax in double. Returns the count written, min(k, V). */
int sample_top_k(const float *logits, int V, float temperature, int k, int *ids, float *probs);

/* Where token id (0 .. V - 1) stands among logits (V) in sample_top_k's
 * order (the larger logit first, ties: the smaller id first): its rank,
 * 1-based, and its probability under softmax(logits) (temperature 1, in
 * double) into *prob. One pass over the logits, nothing allocated. */
int sample_rank(const float *logits, int V, int id, float *prob);

/* How the next token is chosen. */
typedef struct {
    float temperature; /* <= 0: greedy (the largest logit, the smaller id on a tie) */
    int top_k;         /* > 0: sample among the top_k most probable only */
} Sampling;

/* A token drawn from logits (V) as s says, with rng (core/rng.h: the same
 * seed gives the same token on every machine for the same logits): one
 * uniform number u, and the first token whose cumulative probability passes
 * u, counted most probable first among the top k, in id order among all. */
int sample_token(const float *logits, int V, const Sampling *s, Rng *rng);

#endif
