/* pool.h - attention for long texts: weights computed in row blocks on
 * demand, pooled down to screen cells, and a forward pass that never holds
 * the whole (H, n, n) weights.
 *
 * At 16,384 tokens the weights of 4 heads take 4 GiB; these functions need
 * only Q, K, V and a block of POOL_BLOCK rows at a time.
 */
#ifndef ATTNVIZ_POOL_H
#define ATTNVIZ_POOL_H

#include "core/attention.h"
#include "core/combine.h"

#define POOL_BLOCK 64     /* query rows computed at once */
#define POOL_MASKED -1.0f /* a pooled cell whose every weight is masked */

typedef enum { POOL_MAX, POOL_MEAN } PoolMode;

/* Rows [i0, i1) of head h's weights into out (i1 - i0, n_k), from Q and K. */
void pool_rows(const AttnShape *s, int h, const float *Q, const float *K, int i0, int i1,
               float *out);

/* Pool head h's weights over rows [r0, r1) and columns [c0, c1) into out
 * (gh, gw): cell (y, x) covers rows r0 + y*R/gh .. r0 + (y+1)*R/gh - 1 (R =
 * r1 - r0), and likewise columns; gh <= R and gw <= C. The weights come from
 * P_h (n_q, n_k) when it is not NULL, else they are computed block by block
 * from Q and K. Masked weights take no part; a cell with nothing but masked
 * weights is POOL_MASKED. Returns AV_OK or AV_ERR_NOMEM. */
int pool_head(const AttnShape *s, int h, const float *Q, const float *K, const float *P_h, int r0,
              int r1, int c0, int c1, int gh, int gw, PoolMode mode, float *out);

/* pool_head on kept weights P_h (not NULL) with `threads` threads (1 or 2:
 * pool_head takes two for kept weights of at least 2^18 in the cells, on a
 * machine of two processors or more). The cells are the same bits whatever
 * the threads. Returns AV_OK or AV_ERR_NOMEM. */
int pool_head_threads(const AttnShape *s, int h, const float *P_h, int r0, int r1, int c0, int c1,
                      int gh, int gw, PoolMode mode, float *out, int threads);

/* pool_head with head h of layer l's rows read from src (attention computed
 * elsewhere, combine.h) instead; s gives n_q, n_k and the mask. Returns AV_OK
 * or AV_ERR_NOMEM. */
int pool_head_source(const AttnShape *s, const AttnSource *src, int l, int h, int r0, int r1,
                     int c0, int c1, int gh, int gw, PoolMode mode, float *out);

/* How many query rows of a cell pool_head_sampled reads when R rows and C
 * columns go into gh cell rows with budget weights to read: budget / (gh *
 * C), at least 1, at most the rows of the tallest cell (ceil(R / gh): then
 * every weight is read and the pool is exact). */
int pool_sample_rows(int R, int C, int gh, long budget);

/* pool_head_source (or pool_head on kept weights P_h, when P_h is not NULL;
 * else src, layer l) reading at most about budget weights: in a cell of more
 * query rows than pool_sample_rows gives (k), only k of them are read, the
 * middles of k equal parts of the cell's rows, with every column of the
 * cell. The cell then shows the max (or mean) over those rows' weights in its
 * columns, not over all of its rows; where a cell covers at most k rows (one
 * token a cell row: zoomed in) it is exactly pool_head's. *sampled (may be
 * NULL) says whether any row was left out. Returns AV_OK or AV_ERR_NOMEM. */
int pool_head_sampled(const AttnShape *s, const float *P_h, const AttnSource *src, int l, int h,
                      int r0, int r1, int c0, int c1, int gh, int gw, PoolMode mode, long budget,
                      float *out, bool *sampled);

/* The forward pass of attention_forward with b->P and b->S NULL: each head's
 * weights exist one block of rows at a time. With b->concat NULL only Q, K
 * and (unless b->V is NULL) V are made: the weights are computed from them
 * on demand. Returns AV_OK, AV_ERR_EMPTY or AV_ERR_CONFIG (attention_check's)
 * or AV_ERR_NOMEM. */
int pool_forward(const AttnShape *s, const float *Xq, const float *Xkv, const AttnWeights *w,
                 AttnBuffers *b);

#endif
