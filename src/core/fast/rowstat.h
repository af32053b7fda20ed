/* rowstat.h - one row of weights measured (rowstat.c), private to src/core/:
 * stats.c's public stats_row_entropy, stats_row_top and stats_sample_stride
 * are these, and the forward's pooling (attn_pool.c) measures rows with them.
 */
#ifndef ATTNVIZ_ROWSTAT_H
#define ATTNVIZ_ROWSTAT_H

#include <stdbool.h>

/* stats_row_entropy: -sum p log2 p over row[0 .. len), in bits; of the row
 * normalised when it does not sum to 1 (heads summed). */
double rowstat_entropy(const float *row, int len);
/* rowstat_entropy, and in *normalised (when not NULL) whether the row did
 * not sum to 1 and was measured normalised. */
double rowstat_entropy_norm(const float *row, int len, bool *normalised);

/* stats_row_top: the largest of row[0 .. len) and 0. */
float rowstat_top(const float *row, int len);

/* stats_sample_stride: the stride of query rows so that at most budget
 * weights (rows x n_k) are read, 1 when all fit. */
int rowstat_stride(int n_q, int n_k, long budget);

#endif
