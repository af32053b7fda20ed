/* net.h - a small causal transformer that can be trained: parameters,
 * gradients and AdamW moments in four arenas carved by one layout table
 * (io/modelfile.h), activations in a fifth arena sized once from (batch,
 * context, settings), and the forward and backward passes.
 *
 * The model is DESIGN.md's: x = embed[tok] + PE; per layer
 * x = x + MHA(LN1(x)) and, with an MLP, x = x + MLP(LN2(x)) (LN only with
 * "layernorm": "pre"); x = LN_f(x); logits = x @ unembed. Attention is
 * core/attention.h's attention_forward, per sequence, causal and scaled, so
 * the weights the views draw are the ones trained. Shapes: B sequences of n
 * tokens (n <= context), D = d_model, H heads, d_k = D / H, W MLP width,
 * V vocabulary. No globals, no printing; deterministic for a seed.
 */
#ifndef ATTNVIZ_NET_H
#define ATTNVIZ_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/av.h"
#include "io/modelfile.h"

/* Pointers to one layer's tensors in an arena (NULL when not used). */
typedef struct {
    float *ln1_g, *ln1_b, *Wq, *Wk, *Wv, *Wo, *ln2_g, *ln2_b, *W1, *b1, *W2, *b2;
} NetLayer;

/* Pointers to every tensor of an arena. */
typedef struct {
    float *embed, *pe, *lnf_g, *lnf_b, *unembed;
    NetLayer layer[AV_MAX_LAYERS];
} NetTensors;

/* One layer's activations for B sequences of n tokens (rows r = b * n + i). */
typedef struct {
    float *x;                         /* (B*n, D) residual stream entering the layer */
    float *a;                         /* (B*n, D) attention input: LN1(x), or x itself */
    float *ln1_mean, *ln1_rstd;       /* (B*n) */
    float *Q, *K, *V, *concat, *attn; /* (B*n, D); attn = concat Wo */
    float *P;                         /* (B, H, n, n) attention weights */
    float *mid;                       /* (B*n, D) x + attn */
    float *m;                         /* (B*n, D) MLP input: LN2(mid), or mid */
    float *ln2_mean, *ln2_rstd;       /* (B*n) */
    float *h, *g;                     /* (B*n, W) W1 product + b1, and its activation */
    float *t;                         /* (B*n, W) with GELU: the tanh inside it, for the backward */
} NetActs;

typedef struct NetWorker NetWorker; /* net.c's second thread */

typedef struct {
    ModelSpec spec; /* owned copy */
    ModelLayout layout;
    int batch;                     /* largest B the activations hold */
    float *params, *grads, *m, *v; /* layout.total floats each (grads, m, v may be NULL) */
    float *grads2; /* layout.total: the second part's weight gradients (with grads) */
    NetTensors p, g, g2;
    float *pe_fixed; /* (context, D) sinusoidal PE, or NULL */
    float *acts;     /* the activation arena */
    NetActs layer[AV_MAX_LAYERS];
    float *x_out, *xf, *lnf_mean, *lnf_rstd; /* (B*n, D), (B*n, D), (B*n), (B*n) */
    float *logits;                           /* (B*n, V); softmax probabilities after a loss */
    float *losses;                           /* (B*n) */
    float *dx, *dtmp, *dQ, *dK, *dV, *dcat, *dh, *scratch; /* backward work */
    float *work;      /* forward work: each part's packed heads (attention_heads) and
                       * packed weights (ops_linear_forward_packed) */
    size_t work_part; /* floats of work per part */
    int *tok, *tgt;   /* (B*n) copies of the last forward's inputs */
    int *best;        /* (B*n) after a forward with targets: each row's most likely
                       * token (the first of equal largest probabilities) */
    float *mask;      /* (B*n) */
    int B, n;         /* the last forward's sizes */
    bool has_loss;
    int threads;       /* 1 (the default) or 2: net_set_threads */
    NetWorker *worker; /* with 2: the second thread, started at the first pass */
} Net;

/* Set up net for spec and at most batch sequences (of at most spec->context
 * tokens). With trainable false, no gradient or moment arenas are made
 * (forward only). Parameters are zero; call net_init_weights or copy some in
 * (net->params, net->layout.total floats). Returns AV_OK, AV_ERR_MODEL (spec
 * fails modelfile_check, or batch < 1) or AV_ERR_NOMEM. */
int net_init(Net *net, const ModelSpec *spec, int batch, bool trainable);

/* Run the passes on threads (1, the default, or 2). The batch is always cut
 * the same way, in two parts of whole sequences when B >= 2, each part doing
 * the whole forward and backward pass on its own rows (part 1's weight
 * gradients in grads2, added to grads after); with 2 threads part 1 runs on
 * a second thread, started at the first pass and kept until net_free (a Net
 * is then used by one thread at a time, and not copied). The cut depends on B alone, so the
 * numbers are the same bits whatever the threads. */
void net_set_threads(Net *net, int threads);

/* Free everything; accepts a zeroed or half-made Net. */
void net_free(Net *net);

/* Random weights from seed: matrices uniform with standard deviation
 * 1/sqrt(fan_in) (1/sqrt(D) for embed and pe), LayerNorm gains 1, biases 0. */
void net_init_weights(Net *net, uint64_t seed);

/* Forward pass of B sequences of n tokens, tok (B, n) ids < V. With tgt
 * (B, n) and mask (B, n) not NULL, also the mean masked cross-entropy into
 * *loss (logits become probabilities). Returns AV_OK or AV_ERR_CONFIG
 * (B > batch, n > context, n < 1, a token out of range). */
int net_forward(Net *net, const int *tok, const int *tgt, const float *mask, int B, int n,
                double *loss);

/* Zero the gradient arena. */
void net_zero_grad(Net *net);

/* Backward pass of the last forward (which had targets): gradients are
 * ADDED to net->grads (B >= 2: each part's sum of its rows, part 0's first;
 * grads2 is overwritten). */
void net_backward(Net *net);

/* net_backward without its last pass (netopt.c's net_update does it): part
 * 0's weight gradients added to net->grads (which part 0 zeroes first when
 * zero), part 1's written into net->grads2 and not yet added (B >= 2). */
void net_parts_backward(Net *net, bool zero);

/* Global L2 norm of the gradients; when above max_norm (> 0), they are
 * scaled down to it. Returns the norm before clipping. */
double net_clip_grad(Net *net, double max_norm);

/* AdamW settings (PyTorch's defaults but lr). */
typedef struct {
    float lr, beta1, beta2, eps, weight_decay;
} NetAdam;

/* One AdamW update of every parameter, t = 1 for the first step. The decay
 * (p -= lr * wd * p) is applied to matrices only, not to LayerNorm gains or
 * biases. */
void net_adamw(Net *net, const NetAdam *opt, long t);

/* One training update from the last forward (which had targets): the same
 * bits as net_zero_grad, net_backward, net_clip_grad(net, max_norm) (whose
 * norm it returns) and net_adamw(net, opt, t), in three hand-offs to the
 * second thread instead of six and fewer passes over the arenas: part 0
 * zeroes net->grads itself, part 1's gradients are added as the squares are
 * summed, and the clipping's scale is applied by the AdamW pass. */
double net_update(Net *net, double max_norm, const NetAdam *opt, long t);

/* Head h's weights (n, n) of sequence b in layer l (0-based) of the last forward. */
const float *net_weights(const Net *net, int l, int b, int h);

#endif
