/* headscore.c - previous-token, induction, duplicate-token and first-token
 * scores of every head, as sums over sequences (headscore.h). */
#include "core/headscore.h"

static const char *const NAMES[HEADSCORE_KINDS] = {"previous-token", "induction", "duplicate-token",
                                                   "first-token"};
static const char *const SHORT[HEADSCORE_KINDS] = {"prev", "ind", "dup", "first"};

const char *headscore_name(HeadScoreKind k)
{
    return k < HEADSCORE_KINDS ? NAMES[k] : "?";
}

const char *headscore_short(HeadScoreKind k)
{
    return k < HEADSCORE_KINDS ? SHORT[k] : "?";
}

/* One query row w of query i into t. */
static void add_row(const float *w, const int *ids, int i, int n, int P, HeadTally *t)
{
    if (i >= 1) {
        t->sum[HEADSCORE_PREV] += w[i - 1];
        t->sum[HEADSCORE_FIRST] += w[0];
        t->count[HEADSCORE_PREV]++;
        t->count[HEADSCORE_FIRST]++;
    }
    if (P > 0 && i >= P && i < n) {
        t->sum[HEADSCORE_INDUCTION] += w[i - P + 1];
        t->count[HEADSCORE_INDUCTION]++;
    }
    double dup = 0;
    bool seen = false;
    for (int j = 0; j < i; j++)
        if (ids[j] == ids[i])
            dup += w[j], seen = true;
    if (seen) {
        t->sum[HEADSCORE_DUP] += dup;
        t->count[HEADSCORE_DUP]++;
    }
}

bool headscore_add(const AttnSource *src, const int *ids, int P, float *buf, HeadTally *t)
{
    const int n = src->n_q;
    if (src->n_k != n || n < 1 || P < 0 || (P > 0 && n != 2 * P))
        return false;
    for (int l = 0; l < src->L; l++) {
        for (int h = 0; h < src->H; h++)
            for (int i = 0; i < n; i++)
                add_row(combine_row(src, l, h, i, buf), ids, i, n, P, &t[l * src->H + h]);
        if (src->release)
            src->release(src->ctx, l);
    }
    return true;
}

float headscore_value(const HeadTally *t, HeadScoreKind k)
{
    return t->count[k] > 0 ? (float)(t->sum[k] / t->count[k]) : -1.0f;
}

int headscore_best(const HeadTally *t, int count, HeadScoreKind k)
{
    int best = -1;
    float v = -1.0f;
    for (int i = 0; i < count; i++) {
        float s = headscore_value(&t[i], k);
        if (s > v)
            v = s, best = i;
    }
    return v >= 0 ? best : -1;
}

float headscore_threshold(HeadScoreKind k)
{
    (void)k; /* one line for every kind: headscore.h says why */
    return 0.5f;
}

int headscore_named(const HeadTally *t, int count, HeadScoreKind k)
{
    int b = headscore_best(t, count, k);
    return b >= 0 && headscore_value(&t[b], k) >= headscore_threshold(k) ? b : -1;
}
