/* data.h - the numbers the views draw, asked of core and cached in the
 * UiState between frames (data.c). Every pointer returned stays valid until
 * the next call of the same function or the next model run.
 */
#ifndef ATTNVIZ_DATA_H
#define ATTNVIZ_DATA_H

#include "uistate.h"

/* The generation of a result (res or res2): bumped by each of its runs. */
unsigned data_gen(const UiState *u, const ModelResult *r);

/* Row i of head h of layer `layer` (n_k weights, masked keys 0): into the
 * kept weights, or computed on demand into u's row buffer (a lazy result). */
const float *data_row(UiState *u, const ModelResult *r, int layer, int h, int i);

/* Whether data_pooled reads only a sample of each cell's rows for these
 * axes: an imported source (or a combining view) whose cells cover more rows
 * than its budget allows (pool_sample_rows). */
bool data_pool_sampled(const ModelResult *r, const ViewAxis *ar, const ViewAxis *ac);

/* Head h pooled over the two axes (ar->cells x ac->cells, row-major; max or
 * mean as u->a.app.pool_mean says; masked cells negative), cached. */
const float *data_pooled(UiState *u, const ModelResult *r, int layer, int h, const ViewAxis *ar,
                         const ViewAxis *ac);

/* The statistics of head h of res (which 0) or res2 (which 1) at the shown
 * layer, or NULL when there is no such head or no token. */
const HeadStats *data_stats(UiState *u, int which, int h);

/* After a frame is drawn: ask the next forward of u->a.ses.res to pool, from each
 * block of weights while in cache, the whole heads (POOL_MAX) the frame drew
 * of it at its shown layer, into plan (the caller's, zeroed at first, kept
 * between frames: its grids' room is reused), and the rows every head's
 * statistics read; data_pooled and data_stats then take them when the run's
 * cells and statistics are asked for, bit for bit pool_head's and
 * stats_head's. Points
 * u->a.ses.res's AttnBuffers of that layer at plan (the others at none). */
void data_plan_arm(UiState *u, AttnPoolPlan *plan);

/* Free what data_plan_arm allocated in plan and unhook it from u->a.ses.res. */
void data_plan_free(UiState *u, AttnPoolPlan *plan);

/* Free the caches (the UiState itself is the caller's). */
void data_free(UiState *u);

#endif
