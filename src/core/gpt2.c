/* gpt2.c - GPT-2's forward pass over Gpt2Weights with a KV cache, the
 * next-token logits and the choice of a token (core/gpt2.h has the maths).
 *
 * The state holds every position's numbers of every layer, so a call whose
 * ids share a prefix with the last call's computes only the positions after
 * it: a new position's Q, K and V come from its own row, and its attention
 * reads the cached K and V of the earlier ones. gpt2_kern.c makes each row's
 * sums independent of the rows computed with it, so the cache changes no
 * bit; gpt2_layers.c runs the layers on one thread or two. No global state;
 * allocates only when the state grows.
 */
#include "core/gpt2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpt2_layers.h"

void gpt2_state_init(Gpt2State *st)
{
    memset(st, 0, sizeof *st);
}

void gpt2_state_free(Gpt2State *st)
{
    free(st->ids), free(st->x), free(st->qkv), free(st->concat), free(st->attn);
    free(st->P), free(st->work);
    memset(st, 0, sizeof *st);
}

int gpt2_check(const Gpt2Weights *w)
{
    const Gpt2Config *c = &w->cfg;
    if (c->n_vocab < 1 || c->n_ctx < 1 || c->n_ctx > AV_MAX_TOKENS || c->d_model < 1 ||
        c->d_model > AV_MAX_D_MODEL || c->n_head < 1 || c->n_head > AV_MAX_HEADS ||
        c->d_model % c->n_head != 0 || c->n_layer < 1 || c->n_layer > AV_MAX_LAYERS ||
        c->d_ff < 1 || !(c->ln_eps > 0.0f) || !isfinite(c->ln_eps))
        return AV_ERR_CONFIG;
    if (!w->wte || !w->wpe || !w->lnf_g || !w->lnf_b || !w->lm_head)
        return AV_ERR_CONFIG;
    for (int l = 0; l < c->n_layer; l++) {
        const Gpt2Layer *y = &w->layer[l];
        const float *p[] = {y->ln1_g, y->ln1_b, y->attn_w, y->attn_b, y->proj_w,   y->proj_b,
                            y->ln2_g, y->ln2_b, y->fc_w,   y->fc_b,   y->fcproj_w, y->fcproj_b};
        for (size_t k = 0; k < sizeof p / sizeof *p; k++)
            if (!p[k])
                return AV_ERR_CONFIG;
    }
    return AV_OK;
}

/* ------------------------------------------------------------- the state */

static int grow(void **p, size_t count, size_t size)
{
    void *q = realloc(*p, count * size);
    if (!q)
        return AV_ERR_NOMEM;
    *p = q;
    return AV_OK;
}

/* Room for n positions (doubling, at most n_ctx) and for the forward's work
 * on m new rows with `threads` threads. */
static int state_reserve(const Gpt2Config *c, Gpt2State *st, int n, int m, int threads)
{
    const size_t L = (size_t)c->n_layer, D = (size_t)c->d_model;
    if (st->L != c->n_layer || st->D != c->d_model) {
        const double budget = st->weights_budget; /* the caller's settings stay */
        const int st_threads = st->threads;
        gpt2_state_free(st);
        st->L = c->n_layer, st->D = c->d_model, st->weights_budget = budget;
        st->threads = st_threads;
    }
    if (n > st->cap) {
        int cap = st->cap * 2 > n ? st->cap * 2 : n;
        cap = cap < 16 ? 16 : cap;
        cap = cap > c->n_ctx ? c->n_ctx : cap;
        int err = grow((void **)&st->ids, (size_t)cap, sizeof(int));
        if (!err)
            err = grow((void **)&st->x, (size_t)cap * (L + 1) * D, sizeof(float));
        if (!err)
            err = grow((void **)&st->qkv, (size_t)cap * L * 3 * D, sizeof(float));
        if (!err)
            err = grow((void **)&st->concat, (size_t)cap * L * D, sizeof(float));
        if (!err)
            err = grow((void **)&st->attn, (size_t)cap * L * D, sizeof(float));
        if (err)
            return err;
        st->cap = cap;
    }
    const size_t need = gpt2l_work(c, m, n, threads);
    if (need > st->work_cap) {
        free(st->work);
        st->work = malloc(need * sizeof *st->work);
        st->work_cap = st->work ? need : 0;
        if (!st->work)
            return AV_ERR_NOMEM;
    }
    return AV_OK;
}

/* Whether this run keeps P: its (L, H, n, n) weights within the budget. */
static bool keeps_P(const Gpt2Config *c, const Gpt2State *st, int n)
{
    double budget = st->weights_budget > 0 ? st->weights_budget : MODEL_BUDGET;
    return (double)c->n_layer * c->n_head * n * n * sizeof(float) <= budget;
}

static int reserve_P(const Gpt2Config *c, Gpt2State *st, int n)
{
    size_t need = gpt2_P_offset(c->n_layer, c->n_head, n);
    if (need <= st->p_cap)
        return AV_OK;
    size_t cap = st->p_cap * 2 > need ? st->p_cap * 2 : need;
    size_t most = gpt2_P_offset(c->n_layer, c->n_head, c->n_ctx);
    cap = cap > most ? most : cap;
    int err = grow((void **)&st->P, cap, sizeof(float));
    if (!err)
        st->p_cap = cap;
    return err;
}

/* ------------------------------------------------------------ the forward */

/* The first position to compute: where ids leave the cached ones. */
static int first_changed(const Gpt2State *st, const int *ids, int n, bool keep)
{
    int p = 0, most = st->n < n ? st->n : n;
    while (p < most && st->ids[p] == ids[p])
        p++;
    if (keep && st->p_rows < p) /* weights wanted that an earlier run did not keep */
        p = st->p_rows;
    return p;
}

int gpt2_forward(const Gpt2Weights *w, const int *ids, int n, Gpt2State *st)
{
    const Gpt2Config *c = &w->cfg;
    int err = gpt2_check(w);
    if (!err && n < 1)
        err = AV_ERR_EMPTY;
    if (!err && n > c->n_ctx)
        err = AV_ERR_TOO_MANY;
    for (int i = 0; !err && i < n; i++)
        if (ids[i] < 0 || ids[i] >= c->n_vocab)
            err = AV_ERR_CONFIG;
    if (err) {
        st->n = 0;
        return err;
    }
    const bool keep = keeps_P(c, st, n);
    const int p = st->L == c->n_layer && st->D == c->d_model ? first_changed(st, ids, n, keep) : 0;
    const int m = n - p > 0 ? n - p : 1, threads = gpt2l_threads(c, m, st->threads);
    err = state_reserve(c, st, n, m, threads);
    if (!err && keep)
        err = reserve_P(c, st, n);
    if (err) {
        st->n = 0;
        return err;
    }
    const int L = c->n_layer, D = c->d_model;
    for (int i = p; i < n; i++) {
        const float *e = w->wte + (size_t)ids[i] * D, *pos = w->wpe + (size_t)i * D;
        float *x_i = st->x + (size_t)i * (L + 1) * D;
        for (int k = 0; k < D; k++)
            x_i[k] = e[k] + pos[k];
        st->ids[i] = ids[i];
    }
    if (p < n)
        gpt2l_layers(w, p, n, keep, st, threads);
    st->n = n, st->from = p;
    st->p_rows = keep ? n : (st->p_rows < p ? st->p_rows : p);
    return AV_OK;
}

/* ------------------------------------------------------------- the output */

int gpt2_logits(const Gpt2Weights *w, const Gpt2State *st, int i, float *logits)
{
    const Gpt2Config *c = &w->cfg;
    if (i < 0 || i >= st->n || st->D != c->d_model || st->L != c->n_layer)
        return AV_ERR_CONFIG;
    float xf[AV_MAX_D_MODEL];
    const int D = c->d_model;
    gpt2l_layer_norm(1, D, st->x + ((size_t)i * (c->n_layer + 1) + c->n_layer) * D, D, w->lnf_g, w->lnf_b,
               c->ln_eps, xf);
    /* logits (V) = xf (D) lm_head^T (D, V): as many threads as a new position's layers */
    gpt2l_logits(w, xf, logits, gpt2l_threads(c, 1, st->threads));
    return AV_OK;
}

/* Whether token a ranks before token b: the larger logit, then the smaller id. */
static bool ranks_before(const float *logits, int a, int b)
{
    const float la = logits[a], lb = logits[b];
    return la > lb || (la == lb && a < b);
}

/* The k best ids of logits, best first (insertion into a short sorted list). */
static int best_ids(const float *logits, int V, int k, int *ids)
{
    int count = 0;
    k = k < V ? k : V;
    for (int v = 0; v < V; v++) {
        if (count == k && !ranks_before(logits, v, ids[k - 1]))
            continue;
        int at = count < k ? count++ : k - 1;
        while (at > 0 && ranks_before(logits, v, ids[at - 1])) {
            ids[at] = ids[at - 1];
            at--;
        }
        ids[at] = v;
    }
    return count;
}

/* The softmax's denominator at temperature t: sum of e^((l - max) / t), in double. */
static double partition(const float *logits, int V, float t, float max)
{
    double z = 0;
    for (int v = 0; v < V; v++)
        z += exp(((double)logits[v] - max) / t);
    return z;
}

int gpt2_top_k(const float *logits, int V, float temperature, int k, int *ids, float *probs)
{
    if (k < 1 || V < 1)
        return 0;
    const float t = temperature > 0 ? temperature : 1.0f;
    int count = best_ids(logits, V, k, ids);
    const float max = logits[ids[0]];
    const double z = partition(logits, V, t, max);
    for (int q = 0; q < count; q++)
        probs[q] = (float)(exp(((double)logits[ids[q]] - max) / t) / z);
    return count;
}

int gpt2_sample(const float *logits, int V, const Gpt2Sampling *s, Rng *rng)
{
    int best;
    best_ids(logits, V, 1, &best);
    if (!(s->temperature > 0))
        return best;
    const float t = s->temperature, max = logits[best];
    const double u = rng_uniform(rng);
    if (s->top_k > 0 && s->top_k < V) {
        int *ids = malloc((size_t)s->top_k * sizeof *ids);
        if (!ids) /* no room for the list: the most probable token */
            return best;
        int count = best_ids(logits, V, s->top_k, ids), pick = ids[count - 1];
        double z = 0, acc = 0;
        for (int q = 0; q < count; q++)
            z += exp(((double)logits[ids[q]] - max) / t);
        for (int q = 0; q < count; q++) {
            acc += exp(((double)logits[ids[q]] - max) / t) / z;
            if (u < acc) {
                pick = ids[q];
                break;
            }
        }
        free(ids);
        return pick;
    }
    const double z = partition(logits, V, t, max);
    double acc = 0;
    for (int v = 0; v < V; v++) {
        acc += exp(((double)logits[v] - max) / t) / z;
        if (u < acc)
            return v;
    }
    return best; /* u beyond the rounded sum: the last mass goes to the most probable */
}

int gpt2_next(const Gpt2Weights *w, const int *ids, int n, const Gpt2Sampling *s, Rng *rng,
              Gpt2State *st, float *logits, int *next)
{
    int err = gpt2_forward(w, ids, n, st);
    if (!err)
        err = gpt2_logits(w, st, n - 1, logits);
    if (!err)
        *next = gpt2_sample(logits, w->cfg.n_vocab, s, rng);
    return err;
}
