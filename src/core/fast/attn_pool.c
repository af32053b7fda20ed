/* attn_pool.c - whole heads pooled to screen grids inside the forward.
 *
 * Reading a 2,048-token text's six heads back from memory to pool them for
 * the screen (pool_head: 96 MiB at the memory's own speed) cost a typed key
 * more than the softmax (README "Performance"). Here each row block of weights is folded into the
 * grids of its head right after its softmax, while it is still in L2: the
 * rows of a cell row into a column buffer (one vector maximum per 8
 * weights), then the columns into the cells; each thread keeps its own
 * running maximum and "seen" flag per cell, and the two threads' grids are
 * merged at the end. Only the maximum is pooled this
 * way: every value taken is strictly above the one it replaces, starting
 * from +0, and the weights are never negative, so the largest value is the
 * same bits in any order, by any thread, which makes the cells pool_head's
 * POOL_MAX cells exactly. (A mean's sum depends on its order: it stays with
 * pool_head.) The plan may also ask for the rows stats_head reads of every
 * head: each one's entropy and largest weight go to a slot of their own, so
 * that stats_from_rows folds them afterwards in stats_head's order.
 */
#include "core/attention.h"

#include <stdlib.h>
#include <string.h>

#include "attn_kernels.h"
#include "core/av.h"
#include "rowstat.h"

_Static_assert((int)ATTN_POOL_MOST == (int)ATTN_POOL_GRIDS, "attn_kernels.h's copy of the limit");

/* A cell no visible weight fell in: pool.h's POOL_MASKED. */
#define ATTN_POOL_MASKED -1.0f

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The largest of m and p[0 .. len) taken strictly (vmaxps(p, v) is
 * p > v ? p : v), in eight lanes, then the lanes and the tail in order. */
__attribute__((target("avx2"))) static float seg_max8(const float *p, int len, float m)
{
    int j = 0;
    if (len >= 8) {
        __m256 v = _mm256_set1_ps(m);
        for (; j + 8 <= len; j += 8)
            v = _mm256_max_ps(_mm256_loadu_ps(p + j), v);
        float lane[8];
        _mm256_storeu_ps(lane, v);
        for (int c = 0; c < 8; c++)
            m = lane[c] > m ? lane[c] : m;
    }
    for (; j < len; j++)
        m = p[j] > m ? p[j] : m;
    return m;
}
/* col[j] = r[j] > col[j] ? r[j] : col[j] for j < len (vmaxps(r, col)). */
__attribute__((target("avx2"))) static void col_max8(float *col, const float *r, int len)
{
    int j = 0;
    for (; j + 32 <= len; j += 32)
        for (int q = 0; q < 32; q += 8)
            _mm256_storeu_ps(col + j + q, _mm256_max_ps(_mm256_loadu_ps(r + j + q),
                                                        _mm256_loadu_ps(col + j + q)));
    for (; j < len; j++)
        col[j] = r[j] > col[j] ? r[j] : col[j];
}
#define SEG_WIDE softmax_x86_available()
#else
static void col_max8(float *col, const float *r, int len)
{
    for (int j = 0; j < len; j++)
        col[j] = r[j] > col[j] ? r[j] : col[j];
}
static float seg_max8(const float *p, int len, float m)
{
    for (int j = 0; j < len; j++)
        m = p[j] > m ? p[j] : m;
    return m;
}
#define SEG_WIDE false
#endif

static void col_max(float *col, const float *r, int len, bool wide)
{
    if (wide) {
        col_max8(col, r, len);
        return;
    }
    for (int j = 0; j < len; j++)
        col[j] = r[j] > col[j] ? r[j] : col[j];
}

static float seg_max(const float *p, int len, float m, bool wide)
{
    if (wide)
        return seg_max8(p, len, m);
    for (int j = 0; j < len; j++)
        m = p[j] > m ? p[j] : m;
    return m;
}

/* Floats (and flags) of every grid of the plan, and where grid k's start. */
static size_t plan_cells(const AttnPoolPlan *plan, size_t *at)
{
    size_t cells = 0;
    for (int k = 0; k < plan->count; k++) {
        at[k] = cells;
        cells += (size_t)plan->grid[k].gh * plan->grid[k].gw;
    }
    return cells;
}

/* The statistics' stride and rows a head for s, or 0 and 0 (none wanted, or
 * no room for them). */
static int stats_rows(int n_q, int n_k, int H, const AttnPoolPlan *plan, int *rows)
{
    *rows = 0;
    if (plan->stats_budget <= 0 || !plan->row_entropy || !plan->row_top)
        return 0;
    int stride = rowstat_stride(n_q, n_k, plan->stats_budget);
    int per = (n_q + stride - 1) / stride;
    if ((size_t)per * H > plan->stats_cap)
        return 0;
    *rows = per;
    return stride;
}

int attn_pool_begin(int n_q, int n_k, int H, bool causal, AttnPoolPlan *plan, AttnPoolAcc *acc,
                    int threads)
{
    plan->done = false;
    plan->stats_stride = 0;
    int rows, stride = stats_rows(n_q, n_k, H, plan, &rows);
    if (plan->count < (stride ? 0 : 1) || plan->count > ATTN_POOL_GRIDS)
        return AV_ERR_CONFIG;
    for (int k = 0; k < plan->count; k++) {
        const AttnPoolGrid *g = &plan->grid[k];
        if (g->h < 0 || g->h >= H || g->gh < 1 || g->gw < 1 || g->gh > n_q || g->gw > n_k ||
            !g->out)
            return AV_ERR_CONFIG;
    }
    bool ok = true;
    for (int t = 0; t < threads; t++) {
        acc[t] = (AttnPoolAcc){.plan = plan,
                               .n_q = n_q,
                               .n_k = n_k,
                               .H = H,
                               .causal = causal,
                               .wide = SEG_WIDE,
                               .stride = stride,
                               .rows = rows};
        size_t cells = plan_cells(plan, acc[t].at);
        cells = cells ? cells : 1;                        /* statistics alone */
        acc[t].cell = calloc(cells, sizeof *acc[t].cell); /* +0: the maxima's start */
        acc[t].seen = calloc(cells, 1);
        acc[t].col = malloc(sizeof *acc[t].col * (size_t)n_k);
        ok = ok && acc[t].cell && acc[t].seen && acc[t].col;
    }
    if (!ok) {
        attn_pool_free(acc, threads);
        return AV_ERR_NOMEM;
    }
    return AV_OK;
}

/* The cell row of grid g that query row i falls in: rows [y R / gh, (y+1) R / gh). */
static int cell_row(int i, int R, int gh)
{
    int y = (int)((long)i * gh / R);
    while (y + 1 < gh && (long)(y + 1) * R / gh <= i)
        y++;
    while (y > 0 && (long)y * R / gh > i)
        y--;
    return y;
}

/* Rows [i0, i1) of one cell row y of grid k: their columns' maxima in the
 * thread's column buffer (keys past a row's view are exact zeros there and
 * would change no maximum, but are left out), then each cell's columns into
 * its running maximum; a cell is seen when the widest row sees its first key. */
static void fold_cell_rows(AttnPoolAcc *acc, int k, int y, int i0, int i1, const int *vis,
                           const float *P_h)
{
    const AttnPoolGrid *g = &acc->plan->grid[k];
    const int n_k = acc->n_k, most = vis[i1 - 1 - i0];
    float *col = acc->col, *cell = acc->cell + acc->at[k] + (size_t)y * g->gw;
    unsigned char *seen = acc->seen + acc->at[k] + (size_t)y * g->gw;
    memset(col, 0, sizeof *col * (size_t)most); /* +0: the maxima's start */
    for (int i = i0; i < i1; i++)
        col_max(col, P_h + (size_t)i * n_k, vis[i - i0], acc->wide);
    for (int x = 0; x < g->gw; x++) {
        const int j0 = (int)((long)x * n_k / g->gw);
        int j1 = (int)((long)(x + 1) * n_k / g->gw);
        if (j0 >= most)
            break;
        j1 = j1 < most ? j1 : most;
        cell[x] = seg_max(col + j0, j1 - j0, cell[x], acc->wide);
        seen[x] = 1;
    }
}

/* The statistics' rows among [i0, i1) of head h, each into its own slot. */
static void stats_rows_fold(AttnPoolAcc *acc, int h, int i0, int i1, const int *vis,
                            const float *P_h)
{
    AttnPoolPlan *plan = acc->plan;
    for (int i = (i0 + acc->stride - 1) / acc->stride * acc->stride; i < i1; i += acc->stride) {
        const float *row = P_h + (size_t)i * acc->n_k;
        const int len = vis[i - i0];
        const size_t k = (size_t)h * acc->rows + (size_t)(i / acc->stride);
        plan->row_entropy[k] = rowstat_entropy(row, len);
        plan->row_top[k] = rowstat_top(row, len);
    }
}

void attn_pool_rows(AttnPoolAcc *acc, int h, int i0, int i1, const int *vis, const float *P_h)
{
    const int n_q = acc->n_q;
    if (acc->stride > 0)
        stats_rows_fold(acc, h, i0, i1, vis, P_h);
    for (int k = 0; k < acc->plan->count; k++) {
        const AttnPoolGrid *g = &acc->plan->grid[k];
        if (g->h != h)
            continue;
        for (int i = i0; i < i1;) { /* the rows of each cell row in turn */
            const int y = cell_row(i, n_q, g->gh);
            int end = (int)((long)(y + 1) * n_q / g->gh);
            end = end < i1 ? end : i1;
            fold_cell_rows(acc, k, y, i, end, vis + (i - i0), P_h);
            i = end;
        }
    }
}

void attn_pool_end(AttnPoolAcc *acc, int threads)
{
    AttnPoolPlan *plan = acc[0].plan;
    for (int k = 0; k < plan->count; k++) {
        const AttnPoolGrid *g = &plan->grid[k];
        for (size_t c = 0; c < (size_t)g->gh * g->gw; c++) {
            float m = 0.0f;
            bool seen = false;
            for (int t = 0; t < threads; t++) {
                const float v = acc[t].cell[acc[t].at[k] + c];
                m = v > m ? v : m;
                seen = seen || acc[t].seen[acc[t].at[k] + c];
            }
            g->out[c] = seen ? m : ATTN_POOL_MASKED;
        }
    }
    plan->n_q = acc[0].n_q, plan->n_k = acc[0].n_k, plan->causal = acc[0].causal;
    plan->stats_stride = acc[0].stride;
    plan->done = true;
    attn_pool_free(acc, threads);
}

void attn_pool_free(AttnPoolAcc *acc, int threads)
{
    for (int t = 0; t < threads; t++) {
        free(acc[t].cell), free(acc[t].seen), free(acc[t].col);
        acc[t].cell = NULL, acc[t].seen = NULL, acc[t].col = NULL;
    }
}
