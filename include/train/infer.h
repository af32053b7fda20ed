/* infer.h - a saved model run forward on a token sequence, and generation:
 * what the views need to draw a trained model (--model DIR, --generate N).
 *
 * A model is loaded into a forward-only Net (net.h, trainable false, batch 1).
 * After infer_run (or each infer_next) the Net holds, for layer l (0-based):
 * net->layer[l].x (n, D) the residual stream entering it, .a the attention's
 * input (LN1(x) or x), .Q .K .V (n, D), .P (H, n, n) the weights (net_weights),
 * .concat and .attn (n, D); the input rows are the last n tokens given.
 */
#ifndef ATTNVIZ_INFER_H
#define ATTNVIZ_INFER_H

#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"
#include "train/net.h"

/* Load the model folder dir into *net (forward only). Returns AV_OK,
 * AV_ERR_NOMEM or AV_ERR_MODEL with one line in why naming the file. */
int infer_load(Net *net, const char *dir, char *why, size_t whylen);

/* Text to token ids with the model's tokenizer: "chars" takes each code
 * point, "words" splits at whitespace. Writes at most max ids to ids and the
 * count to *n (more than max: AV_ERR_TOO_MANY). A piece outside the vocabulary
 * is AV_ERR_VOCAB with the piece copied to bad[0..badlen); invalid UTF-8 is
 * AV_ERR_UTF8; no token at all is AV_ERR_EMPTY. */
int infer_encode(const ModelSpec *s, const char *text, size_t len, int *ids, int max, int *n,
                 char *bad, size_t badlen);

/* ids back to text into buf (NUL-terminated, cut to cap): chars joined as
 * they are, words with one space between. Returns the length it needed. */
size_t infer_decode(const ModelSpec *s, const int *ids, int n, char *buf, size_t cap);

/* Forward pass on ids[0..n): the last min(n, context) of them. AV_OK or
 * AV_ERR_CONFIG (a token out of range, n < 1). */
int infer_run(Net *net, const int *ids, int n);

/* Sample the token after ids[0..n) (the causal model on its last context
 * tokens) with temperature (> 0; 0 = the most likely token) and top_k (0 =
 * all) from r; the Net then holds that step's attention: the last row of
 * each head's weights is the query (token ids[n-1]) whose output predicted
 * *next, over the keys and values of the n (or context) tokens so far. Returns AV_OK or what
 * infer_run returns; *next gets the id. */
int infer_next(Net *net, const int *ids, int n, float temperature, int top_k, Rng *r, int *next);

/* Continue ids[0..n0) by count tokens into ids[n0..n0+count) (the caller
 * makes room), with a stream seeded by seed. Returns AV_OK or what
 * infer_next returns. */
int infer_generate(Net *net, int *ids, int n0, int count, float temperature, int top_k,
                   uint64_t seed);

#endif
