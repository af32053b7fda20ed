/* attn_pool.h - the forward's pooling of whole heads (attn_pool.c), private
 * to src/core/: attention.c folds each row block into a thread's grids right
 * after its softmax. The plan itself is public (core/attention.h).
 */
#ifndef ATTNVIZ_ATTN_POOL_H
#define ATTNVIZ_ATTN_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/attention.h"

/* A cell no visible weight fell in: pool.h's POOL_MASKED. */
#define ATTN_POOL_MASKED -1.0f

/* One thread's running cells of every grid of a plan. */
typedef struct {
    AttnPoolPlan *plan;
    const AttnShape *s;
    float *cell;             /* every grid's cells, grid k from at[k]; +0 at first */
    unsigned char *seen;     /* 1: a visible weight fell in the cell */
    float *col;              /* n_k: a cell row's column maxima over some rows */
    int stride, rows;        /* the statistics' rows 0, stride, ..: rows a head; 0: none */
    size_t at[ATTN_POOL_GRIDS];
    bool wide;               /* AVX2 maxima */
} AttnPoolAcc;

/* Clear plan->done and set up acc[0 .. threads) for s. Returns AV_OK, or
 * AV_ERR_CONFIG (a grid that does not fit s, or no grid) or AV_ERR_NOMEM,
 * after which acc holds nothing and the plan stays not done. */
int attn_pool_begin(const AttnShape *s, AttnPoolPlan *plan, AttnPoolAcc *acc, int threads);

/* Fold rows [i0, i1) of head h's final weights P_h (n_q, n_k) into acc's
 * grids of that head. */
void attn_pool_rows(AttnPoolAcc *acc, int h, int i0, int i1, const float *P_h);

/* Merge the threads' cells into the plan's outputs, set done and the shape,
 * and free acc. Call only once every row of every head was folded. */
void attn_pool_end(AttnPoolAcc *acc, int threads);

/* Free acc without making the grids (the plan stays not done). */
void attn_pool_free(AttnPoolAcc *acc, int threads);

#endif
