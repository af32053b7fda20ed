/* gpt2_layers.h - GPT-2's layers over new positions and the logits of one,
 * on one thread or two (core/gpt2.c calls them; private to core).
 *
 * With two threads, the calling one and a helper started for the call (and
 * joined before it returns) take half of every linear layer's output
 * columns, half of the heads and half of the vocabulary, waiting for each
 * other between the steps that read the other's numbers. Every number is
 * computed by the same operations in the same order whichever thread takes
 * it, so the bits do not depend on the threads.
 */
#ifndef ATTNVIZ_GPT2_LAYERS_H
#define ATTNVIZ_GPT2_LAYERS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/gpt2.h"

/* Threads a run of m new positions takes: st_threads when it is 1 or 2
 * (the state's setting), else 2 when the processor has two cores or more
 * and the work is large enough to repay the helper's start, else 1. */
int gpt2l_threads(const Gpt2Config *c, int m, int st_threads);

/* Floats of work gpt2l_layers needs for m new rows over n positions. */
size_t gpt2l_work(const Gpt2Config *c, int m, int n, int threads);

/* Every layer over rows [p, n) of st (whose x[.][0] rows hold the
 * embeddings): qkv, concat, attn, x and, when keep, st->P's rows of the new
 * positions. st->work holds gpt2l_work(c, n - p, n, threads) floats. */
void gpt2l_layers(const Gpt2Weights *w, int p, int n, bool keep, Gpt2State *st, int threads);

/* y (m, D) = LN(x) g + b per row, rows of x ldx apart; the statistics in double. */
void gpt2l_layer_norm(int m, int D, const float *x, int ldx, const float *g, const float *b,
                      float eps, float *y);

/* logits (V) = xf (D) lm_head^T on `threads` threads. */
void gpt2l_logits(const Gpt2Weights *w, const float *xf, float *logits, int threads);

#endif
