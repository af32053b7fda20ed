/* data.c - the numbers the views draw, asked of core and kept between
 * frames: a head's row (model_head_row: the kept weights, or computed on
 * demand for a long text), a head pooled to the screen (pool_head), each
 * head's entropy and largest weights (stats_head). No maths of its own: the
 * caches are keyed by the result's generation, so moving the selection
 * recomputes nothing and a new run or another view only what is drawn.
 * A typed key's whole heads come from the forward itself: data_plan_arm
 * asks the next run of res to pool the grids the last frame drew while its
 * weights are in cache (attention.h's AttnPoolPlan), and data_pooled copies
 * them instead of reading the weights back.
 */
#include "data.h"

#include <stdlib.h>
#include <string.h>

#include "core/pool.h"
#include "core/stats.h"
#include "term.h"

#define DATA_POOL_BUDGET (1L << 17)  /* weights read to pool an imported head */
#define DATA_STATS_BUDGET (1L << 15) /* and for its entropy (16 rows of 2,048) */

unsigned data_gen(const UiState *u, const ModelResult *r)
{
    return r == &u->a.ses.res2 ? u->a.ses.gen2 : u->a.ses.gen;
}

const float *data_row(UiState *u, const ModelResult *r, int layer, int h, int i)
{
    int n_k = r->shape.n_k;
    if (!model_head_P(r, layer, h) && n_k > u->row_cap)
        u->row = term_xrealloc(u->row, sizeof *u->row * (size_t)n_k), u->row_cap = n_k;
    return model_head_row(r, layer, h, i, u->row);
}

static bool slot_matches(const PoolSlot *p, const ModelResult *r, unsigned gen, int layer, int h,
                         const int key[6], bool mean)
{
    return p->buf && p->res == r && p->gen == gen && p->layer == layer && p->h == h &&
           p->r0 == key[0] && p->r1 == key[1] && p->c0 == key[2] && p->c1 == key[3] &&
           p->gh == key[4] && p->gw == key[5] && p->mean == mean;
}

/* r's plan when it was made by the one run since it was armed, else NULL. */
static const AttnPoolPlan *plan_made(const UiState *u, const ModelResult *r, int layer)
{
    const AttnPoolPlan *plan = r == &u->a.ses.res && !r->src ? r->layer[layer].ab.pool : NULL;
    /* made by the one run since the plan was armed (gen_clock counts runs) */
    if (!plan || !plan->done || plan->stamp + 1 != u->a.ses.gen)
        return NULL;
    if (plan->n_q != r->shape.n_q || plan->n_k != r->shape.n_k || plan->causal != r->shape.causal)
        return NULL;
    return plan;
}

/* A whole head of u->a.ses.res pooled by its last forward (data_plan_arm's plan),
 * for these cells: copied into out, true; else false. The forward clears
 * done before it runs, so done describes the run that made r's weights. */
static bool plan_take(const UiState *u, const ModelResult *r, int layer, int h, const int key[6],
                      bool mean, float *out)
{
    const AttnPoolPlan *plan = plan_made(u, r, layer);
    if (!plan || mean)
        return false;
    if (key[0] != 0 || key[1] != plan->n_q || key[2] != 0 || key[3] != plan->n_k)
        return false;
    for (int k = 0; k < plan->count; k++) {
        const AttnPoolGrid *g = &plan->grid[k];
        if (g->h == h && g->gh == key[4] && g->gw == key[5]) {
            memcpy(out, g->out, sizeof *out * (size_t)g->gh * g->gw);
            return true;
        }
    }
    return false;
}

/* The slot used longest ago. */
static PoolSlot *slot_oldest(UiState *u)
{
    PoolSlot *old = &u->pool[0];
    for (int k = 1; k < UI_POOL_SLOTS; k++)
        if (u->pool[k].stamp < old->stamp)
            old = &u->pool[k];
    return old;
}

bool data_pool_sampled(const ModelResult *r, const ViewAxis *ar, const ViewAxis *ac)
{
    return r->src && ar->cells > 0 &&
           pool_sample_rows(ar->span, ac->span, ar->cells, DATA_POOL_BUDGET) <
               (ar->span + ar->cells - 1) / ar->cells;
}

const float *data_pooled(UiState *u, const ModelResult *r, int layer, int h, const ViewAxis *ar,
                         const ViewAxis *ac)
{
    const int key[6] = {ar->first, ar->first + ar->span, ac->first, ac->first + ac->span, ar->cells,
                        ac->cells};
    unsigned gen = data_gen(u, r);
    bool mean = u->a.app.pool_mean;
    for (int k = 0; k < UI_POOL_SLOTS; k++)
        if (slot_matches(&u->pool[k], r, gen, layer, h, key, mean)) {
            u->pool[k].stamp = ++u->pool_clock;
            return u->pool[k].buf;
        }
    PoolSlot *p = slot_oldest(u);
    size_t need = (size_t)key[4] * key[5];
    if (need > p->cap)
        p->buf = term_xrealloc(p->buf, need * sizeof *p->buf), p->cap = need;
    /* imported attention (a 2.4 GB file: 200 MB a layer) reads a sample of
     * rows, from its source (rows read, not faulted in from the map) */
    int err = plan_take(u, r, layer, h, key, mean, p->buf) ? AV_OK
              : r->src
                  ? pool_head_sampled(&r->shape, NULL, r->src, layer, h, key[0], key[1], key[2],
                                      key[3], key[4], key[5], mean ? POOL_MEAN : POOL_MAX,
                                      DATA_POOL_BUDGET, p->buf, NULL)
                  : model_pool_head(r, layer, h, key[0], key[1], key[2], key[3], key[4], key[5],
                                    mean ? POOL_MEAN : POOL_MAX, p->buf);
    if (err != AV_OK)
        term_die("out of memory");
    *p = (PoolSlot){r,      gen,    layer,  h,    key[0],          key[1], key[2],
                    key[3], key[4], key[5], mean, ++u->pool_clock, p->buf, p->cap};
    return p->buf;
}

/* Head h's statistics from the rows its last forward measured (the plan's),
 * stats_head's bits: true, else false. */
static bool plan_stats(const UiState *u, const ModelResult *r, int layer, int h, HeadStats *st)
{
    const AttnPoolPlan *plan = plan_made(u, r, layer);
    if (!plan || plan->stats_stride <= 0 || plan->stats_budget != UI_STATS_BUDGET)
        return false;
    int stride = plan->stats_stride, rows = (plan->n_q + stride - 1) / stride;
    stats_from_rows(plan->row_entropy + (size_t)h * rows, plan->row_top + (size_t)h * rows, rows,
                    stride, st);
    return true;
}

const HeadStats *data_stats(UiState *u, int which, int h)
{
    StatsCache *c = &u->stats[which ? 1 : 0];
    const ModelResult *r = which ? &u->a.ses.res2 : &u->a.ses.res;
    int layer = u->a.app.layer, H = r->shape.H;
    if (h < 0 || h >= H || r->shape.n_q <= 0)
        return NULL;
    if (c->res != r || c->gen != data_gen(u, r) || c->layer != layer || c->H != H) {
        if (H > c->cap)
            c->st = term_xrealloc(c->st, sizeof *c->st * (size_t)H), c->cap = H;
        for (int k = 0; k < H; k++)
            c->st[k].rows = -1; /* computed when first asked for */
        c->res = r, c->gen = data_gen(u, r), c->layer = layer, c->H = H;
    }
    if (c->st[h].rows < 0 && !plan_stats(u, r, layer, h, &c->st[h]) &&
        (r->src ? stats_head_source(&r->shape, r->src, layer, h, DATA_STATS_BUDGET, &c->st[h])
                : model_stats_head(r, layer, h, UI_STATS_BUDGET, &c->st[h])) != AV_OK)
        term_die("out of memory");
    return &c->st[h];
}

void data_plan_arm(UiState *u, AttnPoolPlan *plan)
{
    const ModelResult *r = &u->a.ses.res;
    const unsigned gen = data_gen(u, r);
    int layer = -1, count = 0;
    for (int k = 0; k < UI_POOL_SLOTS && count < ATTN_POOL_GRIDS; k++) {
        const PoolSlot *p = &u->pool[k];
        if (!p->buf || p->res != r || p->gen != gen || p->mean || r->src || p->r0 != 0 ||
            p->r1 != r->shape.n_q || p->c0 != 0 || p->c1 != r->shape.n_k ||
            (layer >= 0 && p->layer != layer))
            continue; /* only the shown layer's whole heads, as drawn last */
        layer = p->layer;
        AttnPoolGrid *g = &plan->grid[count];
        size_t need = (size_t)p->gh * p->gw, have = g->out ? (size_t)g->gh * g->gw : 0;
        if (need > have || !g->out)
            g->out = term_xrealloc(g->out, need * sizeof *g->out);
        g->h = p->h, g->gh = p->gh, g->gw = p->gw;
        count++;
    }
    size_t rows = (size_t)r->shape.H * (size_t)(r->shape.n_q + 64); /* stride 1, typing on */
    if (count > 0 && rows > plan->stats_cap) {
        plan->row_entropy = term_xrealloc(plan->row_entropy, rows * sizeof *plan->row_entropy);
        plan->row_top = term_xrealloc(plan->row_top, rows * sizeof *plan->row_top);
        plan->stats_cap = rows;
    }
    plan->stats_budget = UI_STATS_BUDGET; /* every head's entropy, as data_stats asks */
    plan->count = count;                  /* grids past count keep their room for later */
    plan->done = false;
    plan->stamp = u->a.ses.gen_clock; /* the next run of res is gen stamp + 1 */
    for (int l = 0; l < AV_MAX_LAYERS; l++)
        u->a.ses.res.layer[l].ab.pool = NULL;
    if (count > 0)
        u->a.ses.res.layer[layer].ab.pool = plan;
}

void data_plan_free(UiState *u, AttnPoolPlan *plan)
{
    for (int l = 0; l < AV_MAX_LAYERS; l++)
        if (u->a.ses.res.layer[l].ab.pool == plan)
            u->a.ses.res.layer[l].ab.pool = NULL;
    for (int k = 0; k < ATTN_POOL_GRIDS; k++)
        free(plan->grid[k].out);
    free(plan->row_entropy), free(plan->row_top);
    memset(plan, 0, sizeof *plan);
}

void data_free(UiState *u)
{
    for (int k = 0; k < UI_POOL_SLOTS; k++)
        free(u->pool[k].buf);
    free(u->stats[0].st), free(u->stats[1].st);
    free(u->row);
}
