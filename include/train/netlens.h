/* netlens.h - the logit lens (core/lens.h) of attnviz's own trained model:
 * each layer's residual stream through the final LayerNorm (with
 * "layernorm": "pre"; without it, none) and the unembedding.
 */
#ifndef ATTNVIZ_NETLENS_H
#define ATTNVIZ_NETLENS_H

#include "core/lens.h"
#include "train/net.h"

/* The lens of the Net's last forward on one sequence (infer_run) into ls:
 * layers + 1 rows of net->n positions. Row l < L is LN_f(layer[l].x) @
 * unembed (layer 0's x the embeddings plus PE), row L the forward's own
 * logits (net->logits), so it is the model's next-token distribution. The
 * Net computes every position at every run: so does this. Returns AV_OK,
 * AV_ERR_CONFIG (no forward of one sequence, or one with targets, whose
 * logits became probabilities) or AV_ERR_NOMEM (ls->n is then 0). */
int netlens_run(const Net *net, Lens *ls);

#endif
