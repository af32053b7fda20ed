/* attention.h - projections, scaled dot-product attention, causal mask,
 * softmax and the multi-head split, on caller-owned buffers.
 *
 * Layout (DESIGN.md): row vectors, Q = Xq W_q, K = Xkv W_k, V = Xkv W_v, every W
 * is (d_model, d_model). Head h uses columns h*d_k .. h*d_k+d_k-1 of Q, K and V,
 * like NumPy's reshape(n, H, d_k); its output is written into the same columns
 * of the concatenation, and out = concat W_o. Self-attention passes Xkv == Xq.
 * A masked score is -INFINITY and its weight exactly 0. The shapes and the
 * formula's pieces (the mask rule, the scale, the checks) are the
 * reference's (attention_ref.h); this is the fast path held to it.
 */
#ifndef ATTNVIZ_ATTENTION_H
#define ATTNVIZ_ATTENTION_H

#include <stdbool.h>
#include <stddef.h>

#include "core/attention_ref.h"

/* Grids of whole heads the forward pools while each block of weights is
 * still in cache (attn_pool.c), instead of reading the (H, n_q, n_k) weights
 * back from memory afterwards: grid k is head h's rows [0, n_q) and keys
 * [0, n_k) in gh x gw cells, each cell the largest visible weight of its
 * rows and keys, POOL_MASKED (-1) when it has none: pool_head's POOL_MAX
 * cells, bit for bit (a maximum is the same in any order). The caller owns
 * the plan and the outputs; attention_forward sets done (and n_q, n_k,
 * causal: the shape the cells are of) when it made every grid, and clears
 * it first, so done never describes an earlier run; a grid with gh > n_q or
 * gw > n_k, or a forward that does not pool (a sentence's, pool_forward),
 * leaves done false. */
enum { ATTN_POOL_GRIDS = 16 };
typedef struct {
    int h, gh, gw;
    float *out; /* (gh, gw), the caller's */
} AttnPoolGrid;
typedef struct AttnPoolPlan {
    int count; /* grids wanted, <= ATTN_POOL_GRIDS */
    AttnPoolGrid grid[ATTN_POOL_GRIDS];
    bool done;
    int n_q, n_k;
    bool causal;
    unsigned stamp; /* the caller's own: the forward never reads or writes it */
    /* stats_budget > 0: also every head's rows 0, s, 2s, .. (s = stats_sample_stride
     * (n_q, n_k, stats_budget), core/stats.h) as stats_head reads them: row k of
     * head h's entropy and largest weight into row_entropy and row_top[h * rows + k]
     * (rows = ceil(n_q / s); the caller's room, stats_cap of each); stats_stride = s
     * when made (done), 0 when there was not room */
    long stats_budget;
    double *row_entropy;
    float *row_top;
    size_t stats_cap;
    int stats_stride;
} AttnPoolPlan;

/* The whole forward pass into b. Xq is (n_q, d_model), Xkv (n_k, d_model).
 * With b->concat NULL it stops at the weights: Q, K, V, S and P as a whole
 * pass makes them (the same bits), no P_h V_h and no out (b->out unread);
 * with b->V NULL too, no V (b->V NULL with b->concat: AV_ERR_CONFIG).
 * Returns AV_OK, AV_ERR_EMPTY (no query or key token) or AV_ERR_CONFIG
 * (attention_check's other faults). Where the heads' products run the packed
 * kernel (mat_sgemm_packed: AVX2 and FMA, products past mat_sgemm_small) it
 * allocates every head's K_h and V_h packed (2 n_k d_model floats, rounded
 * up to whole panels; without that room, one head's copies per thread) and
 * frees them before returning; without any room it takes mat_sgemm instead.
 * For large problems (attention_threads > 1) it starts one helper thread,
 * which takes items of the projections and heads beside the calling thread,
 * and joins it before returning (when the thread cannot be started, the
 * calling thread does all the work). Reentrant: no global state. */
int attention_forward(const AttnShape *s, const float *Xq, const float *Xkv, const AttnWeights *w,
                      AttnBuffers *b);

/* The same sgemm calls as attention_forward, at the same shapes and on the
 * same threads, with no mask and no softmax: the baseline `make bench` holds
 * the forward pass to. b->P and b->concat receive meaningless numbers. */
int attention_forward_gemm_only(const AttnShape *s, const float *Xq, const float *Xkv,
                                const AttnWeights *w, AttnBuffers *b);

/* Floats of work attention_heads takes for s: every head's K_h^T and V_h
 * packed (0 where the heads' products do not run the packed kernel). */
size_t attention_heads_work(const AttnShape *s);

/* The heads alone, on Q (n_q, d_model), K and V (n_k, d_model) the caller
 * already projected (for instance many sequences' rows in one product each):
 * P (H, n_q, n_k) and concat (n_q, d_model) exactly as attention_forward
 * makes them from the same Q, K and V (the same bits); out = concat W_o is
 * the caller's. work holds attention_heads_work(s) floats (NULL when that
 * is 0), the caller's; on one thread, allocating nothing. Returns AV_OK or
 * attention_check's error. */
int attention_heads(const AttnShape *s, const float *Q, const float *K, const float *V, float *P,
                    float *concat, float *work);

/* attention_heads for heads [h0, h1) only: P (H, n_q, n_k) the whole
 * array, of which the heads' blocks are written, and their columns of
 * concat; work as attention_heads' (the heads' own parts of it are used),
 * so two threads may run two parts over the same arrays. The same bits as
 * attention_heads. */
int attention_heads_part(const AttnShape *s, int h0, int h1, const float *Q, const float *K,
                         const float *V, float *P, float *concat, float *work);

/* Threads attention_forward uses for s: 1 for small problems (no start-up
 * cost while typing), 2 for large ones on a machine of 2 or more CPUs. The
 * heads' weights computed from given Q and K do not depend on it; the
 * projections do, in their last bits (one cblas_sgemm call on one thread,
 * row items of single-thread calls on two: OpenBLAS's sums depend on the
 * rows a call is given). */
int attention_threads(const AttnShape *s);

/* Query rows per block of the head kernel for s: a block's scores stay in
 * cache while they are masked, softmaxed and multiplied by V_h. */
int attention_block_rows(const AttnShape *s);

/* Scores, mask and softmax of one head from Q and K already computed:
 * P_h (n_q, n_k) and, when S_h is not NULL, the scores kept in S_h. */
void attention_head_weights(const AttnShape *s, int h, const float *Q, const float *K, float *S_h,
                            float *P_h);

/* Softmax of one row in place: subtract the maximum, exp, normalise. Entries
 * equal to -INFINITY become exactly 0. len >= 1 and at least one finite.
 * e^x is a vectorised polynomial within about 1.5 ulp of expf; where e^x is
 * below FLT_MIN (x - max < about -87) the weight is exactly 0. The same
 * input gives the same bits on every x86-64 (and any IEEE) machine. */
void attention_softmax_row(float *row, int len);

#endif
