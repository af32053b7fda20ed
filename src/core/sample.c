/* sample.c - the next token from a model's logits: the most probable ones
 * with their probabilities, and a token drawn at a temperature, among the
 * top k or all (core/sample.h). Every model that predicts tokens chooses
 * here: GPT-2's generation, attnviz's own trained models', the views' lists.
 */
#include "core/sample.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

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

int sample_top_k(const float *logits, int V, float temperature, int k, int *ids, float *probs)
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

int sample_rank(const float *logits, int V, int id, float *prob)
{
    int rank = 1;
    float max = logits[id];
    for (int v = 0; v < V; v++) {
        rank += ranks_before(logits, v, id);
        max = logits[v] > max ? logits[v] : max;
    }
    *prob = (float)(exp((double)logits[id] - max) / partition(logits, V, 1.0f, max));
    return rank;
}

int sample_token(const float *logits, int V, const Sampling *s, Rng *rng)
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
