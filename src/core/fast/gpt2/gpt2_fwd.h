/* gpt2_fwd.h - what gpt2_forward.c shares with gpt2_logits.c, private to
 * src/core/fast/gpt2/.
 */
#ifndef ATTNVIZ_GPT2_FWD_H
#define ATTNVIZ_GPT2_FWD_H

#include "core/gpt2.h"

/* Threads a run of m new positions takes: st_threads when it is 1 or 2
 * (the state's setting), else 2 when the processor has two cores or more
 * and the work is large enough to repay the helper's start, else 1. */
int gpt2f_threads(const Gpt2Config *c, int m, int st_threads);

/* y (m, D) = LN(x) g + b per row, rows of x ldx apart; the statistics in
 * double. */
void gpt2f_layer_norm(int m, int D, const float *x, int ldx, const float *g, const float *b,
                      float eps, float *y);

#endif
