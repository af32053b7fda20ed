/* gelu.h - the MLP's bias and GELU forward pass in AVX2 intrinsics (private
 * to src/train: ops.c calls it; gelu.c says why it exists).
 */
#ifndef ATTNVIZ_GELU_H
#define ATTNVIZ_GELU_H

/* ops_bias_gelu_forward (train/ops.h) on the columns [0, c) of every row,
 * c = W rounded down to a multiple of 8, with the same bits; returns c, or 0
 * (nothing done) when bias is NULL or the processor lacks AVX2. The caller
 * does the columns from c on. */
int gelu_rows_avx2(float *g, float *t, float *h, const float *bias, int N, int W);

#endif
