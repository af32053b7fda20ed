/* stats.h - a head's entropy and largest weights: how focused it is.
 * Pure functions of their arguments.
 */
#ifndef ATTNVIZ_STATS_H
#define ATTNVIZ_STATS_H

#include <stdbool.h>

#include "core/attention.h"
#include "core/combine.h"

/* The entropy in bits of one row of weights: -sum p log2 p over p > 0 (a
 * masked weight is exactly 0 and takes no part). 0 for a one-hot row,
 * log2(len) for a uniform one. A row that does not sum to 1 (within 1e-3:
 * heads summed, or their maximum) is measured normalised, p / sum, so the
 * entropy is never above log2(len). */
double stats_row_entropy(const float *row, int len);

typedef struct {
    double entropy; /* mean over the rows folded in of their entropy, in bits */
    double top;     /* mean over the rows of their largest weight */
    float max;      /* the largest weight of all */
    int rows;       /* rows folded in */
    bool sampled;   /* only some rows were (a long text) */
    /* a row folded in by stats_add did not sum to 1 (heads combined by max
     * or sum): its entropy is of the row normalised */
    bool normalised;
} HeadStats;

/* The largest of row[0 .. len) and 0, as stats_add takes it. */
float stats_row_top(const float *row, int len);

/* *st from rows already measured: entropy[k] and top[k] (stats_row_entropy
 * and stats_row_top of the k-th row read, every stride-th), folded in order
 * as stats_head folds them: the same bits. */
void stats_from_rows(const double *entropy, const float *top, int rows, int stride, HeadStats *st);

/* Fold one row of len weights into st (zeroed first); stats_finish
 * turns the sums into means. */
void stats_add(HeadStats *st, const float *row, int len);
void stats_finish(HeadStats *st);

/* The stride of the query rows to fold in so that at most budget weights
 * (rows x n_k) are read: 1 when all fit. */
int stats_sample_stride(int n_q, int n_k, long budget);

/* The statistics of head h into *st: its weights from P_h (n_q, n_k) when
 * not NULL, else computed a row at a time from Q and K (pool.h); every
 * stats_sample_stride-th query row, so that at most budget weights are read
 * (st->sampled says whether rows were skipped). Masked keys take no part.
 * Returns AV_OK or AV_ERR_NOMEM. */
int stats_head(const AttnShape *s, int h, const float *Q, const float *K, const float *P_h,
               long budget, HeadStats *st);

/* stats_head with head h of layer l's rows read from src (attention computed
 * elsewhere, combine.h); s gives n_q, n_k and the mask. Returns AV_OK or
 * AV_ERR_NOMEM. */
int stats_head_source(const AttnShape *s, const AttnSource *src, int l, int h, long budget,
                      HeadStats *st);

#endif
