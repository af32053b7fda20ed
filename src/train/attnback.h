/* attnback.h - the attention backward pass's fast path and its softmax
 * backward (private to src/train: ops.c's ops_attention_backward calls them).
 */
#ifndef ATTNVIZ_ATTNBACK_H
#define ATTNVIZ_ATTNBACK_H

#include <stddef.h>

/* Softmax backward of rows [i0, i1) of a causal head (T, T), the scale
 * folded in: dS = scale * P (dP - sum_j P dP), in place over dP; masked keys
 * have P exactly 0, so their dS is 0 too, and each row beyond i is zeroed. */
void attnback_softmax_rows(float *dP, const float *P_h, int T, int i0, int i1, float scale);

/* Floats of scratch ops_attention_backward needs (either path). */
size_t attnback_scratch(int T, int D, int H);

/* ops_attention_backward (train/ops.h) on mat_sgemm_packed; needs
 * mat_packed_available() and attnback_scratch(T, D, H) floats of scratch. */
void attnback_packed(float *dQ, float *dK, float *dV, const float *dconcat, const float *Q,
                     const float *K, const float *V, const float *P, int T, int D, int H,
                     float *scratch);

#endif
