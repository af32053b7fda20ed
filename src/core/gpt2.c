/* gpt2.c - GPT-2's state, the check of its sizes, and the choice of the
 * next token from the logits (core/gpt2.h has the maths; the forward pass
 * and the logits are gpt2_forward.c's). No global state.
 */
#include "core/gpt2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
