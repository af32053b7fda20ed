/* ops.h - the trainer's operations, each a forward and a backward pass side
 * by side (llm.c's train_gpt2.c), used by net.c and by the gradient tests.
 *
 * Shapes use N for rows (batch x tokens), D for d_model, W for the MLP width,
 * V for the vocabulary, T for tokens of one sequence, d_k = D / H. Every
 * backward ACCUMULATES (+=) into the gradients it is given, parameters and
 * inputs alike, so a tensor used twice (the residual stream) sums its
 * gradients; callers zero them once per step.
 */
#ifndef ATTNVIZ_TRAIN_OPS_H
#define ATTNVIZ_TRAIN_OPS_H

#include <stdbool.h>
#include <stddef.h>

/* out (N, D) = embed[tok[r]] + pe[r % T] (pe (T, D), may be NULL). */
void ops_embed_forward(float *out, const int *tok, const float *embed, const float *pe, int N,
                       int T, int D);
/* dembed[tok[r]] += dout[r]; dpe[r % T] += dout[r] when dpe is not NULL. */
void ops_embed_backward(float *dembed, float *dpe, const float *dout, const int *tok, int N, int T,
                        int D);

/* out (N, D) = (x - mean) * rstd * g + b per row, eps 1e-5; mean, rstd (N) kept. */
void ops_layernorm_forward(float *out, float *mean, float *rstd, const float *x, const float *g,
                           const float *b, int N, int D);
/* dx, dg, db += from dout (N, D). */
void ops_layernorm_backward(float *dx, float *dg, float *db, const float *dout, const float *x,
                            const float *g, const float *mean, const float *rstd, int N, int D);

/* out (n) = a + b; out overlaps neither. */
void ops_add(float *out, const float *a, const float *b, long n);
/* out (n) += a; they do not overlap. */
void ops_add_to(float *out, const float *a, long n);

/* out (N, C) = x (N, K) w (K, C) + bias (C, may be NULL). */
void ops_linear_forward(float *out, const float *x, const float *w, const float *bias, int N, int K,
                        int C);
/* The same with work, the caller's room for w packed (mat_packed_floats(K, C)
 * floats; NULL: ops_linear_forward, which allocates its own): the same bits. */
void ops_linear_forward_packed(float *out, const float *x, const float *w, const float *bias, int N,
                               int K, int C, float *work);
/* dx (N, K) += dout w^T (dx may be NULL); dw (K, C) += x^T dout;
 * dbias (C) += column sums of dout (dbias may be NULL). */
void ops_linear_backward(float *dx, float *dw, float *dbias, const float *dout, const float *x,
                         const float *w, int N, int K, int C);
/* The same with dx (not NULL) written, not added to: dx = dout w^T. */
void ops_linear_backward_set(float *dx, float *dw, float *dbias, const float *dout, const float *x,
                             const float *w, int N, int K, int C);
/* The same with work, the caller's room for w^T packed (mat_packed_floats(C,
 * K) floats; NULL: allocated a call): the same bits. */
void ops_linear_backward_set_packed(float *dx, float *dw, float *dbias, const float *dout,
                                    const float *x, const float *w, int N, int K, int C,
                                    float *work);

/* out (n) = act(x): GELU (tanh form) or ReLU. */
void ops_act_forward(float *out, const float *x, long n, bool relu);
/* dx += act'(x) * dout. */
void ops_act_backward(float *dx, const float *x, const float *dout, long n, bool relu);

/* The MLP's first activation in one pass over h (N, W), the product x W1:
 * h += bias (W, may be NULL), g = GELU(h) as ops_act_forward, and t (N, W)
 * the tanh inside it, kept for the backward pass. */
void ops_bias_gelu_forward(float *g, float *t, float *h, const float *bias, int N, int W);
/* dh (n) = GELU'(h) * dg, written (not added), from ops_bias_gelu_forward's
 * h and t: the same numbers as ops_act_backward into zeros, without the tanh. */
void ops_gelu_backward_saved(float *dh, const float *h, const float *t, const float *dg, long n);

/* The backward of one sequence's causal self-attention (after attention_forward
 * of core/attention.h, whose Q, K, V, P (H, T, T) and concat it reads), from
 * dconcat (T, D), the gradient of the heads' concatenation. Writes (=, not +=)
 * dQ, dK, dV (T, D). scratch holds ops_attention_backward_scratch(T, D, H)
 * floats. With mat_packed_available, the products run mat_sgemm_packed and
 * skip the causal zeros; else mat_sgemm on whole heads. */
void ops_attention_backward(float *dQ, float *dK, float *dV, const float *dconcat, const float *Q,
                            const float *K, const float *V, const float *P, int T, int D, int H,
                            float *scratch);
/* Floats of scratch ops_attention_backward needs for T tokens, D, H heads. */
size_t ops_attention_backward_scratch(int T, int D, int H);

/* Softmax cross-entropy: probs (N, V) = softmax(logits) (in place allowed);
 * returns sum_r mask[r] * -log probs[r, target[r]] / sum mask (0 when the mask
 * is all zero); losses (N) gets each row's loss (may be NULL). */
double ops_crossentropy_forward(float *probs, const float *logits, const int *target,
                                const float *mask, float *losses, int N, int V);
/* dlogits (N, V) += (probs - onehot(target)) * mask[r] / count, where count
 * is the sum of the mask over the whole batch the loss is the mean of (these
 * N rows may be a part of it); nothing when count <= 0. */
void ops_crossentropy_backward(float *dlogits, const float *probs, const int *target,
                               const float *mask, int N, int V, double count);

#endif
