/* headscore.c - previous-token, induction, duplicate-token, first-token,
 * next-token and no-op scores of every head, as sums over sequences
 * (headscore.h). */
#include "core/headscore.h"

static const char *const NAMES[HEADSCORE_KINDS] = {
    "previous-token", "induction",      "duplicate-token", "first-token",
    "next-token",     "no-op on [CLS]", "no-op on [SEP]"};
static const char *const SHORT[HEADSCORE_KINDS] = {"prev", "ind", "dup", "first",
                                                   "next", "cls", "sep"};
static const char *const COLUMN[HEADSCORE_KINDS] = {
    "previous_token", "induction", "duplicate_token", "first_token",
    "next_token",     "noop_cls",  "noop_sep"};

const char *headscore_name(HeadScoreKind k)
{
    return k < HEADSCORE_KINDS ? NAMES[k] : "?";
}

const char *headscore_short(HeadScoreKind k)
{
    return k < HEADSCORE_KINDS ? SHORT[k] : "?";
}

const char *headscore_column(HeadScoreKind k)
{
    return k < HEADSCORE_KINDS ? COLUMN[k] : "?";
}

/* The weight of row w on the keys holding id (ids[0..n)) into t's kind k,
 * when the model has the token (id >= 0). */
static void add_noop(const float *w, const int *ids, int n, int id, HeadScoreKind k, HeadTally *t)
{
    if (id < 0)
        return;
    double on = 0;
    for (int j = 0; j < n; j++)
        if (ids[j] == id)
            on += w[j];
    t->sum[k] += on;
    t->count[k]++;
}

/* One query row w of query i into t. */
static void add_row(const float *w, const HeadProbe *p, int i, int n, HeadTally *t)
{
    const int *ids = p->ids;
    if (i >= 1) {
        t->sum[HEADSCORE_PREV] += w[i - 1];
        t->sum[HEADSCORE_FIRST] += w[0];
        t->count[HEADSCORE_PREV]++;
        t->count[HEADSCORE_FIRST]++;
    }
    if (i + 1 < n) {
        t->sum[HEADSCORE_NEXT] += w[i + 1];
        t->count[HEADSCORE_NEXT]++;
    }
    if (p->P > 0 && i >= p->at + p->P && i < p->at + 2 * p->P) {
        t->sum[HEADSCORE_INDUCTION] += w[i - p->P + 1];
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
    if (ids[i] != p->cls && ids[i] != p->sep) { /* a word's query, not a special's */
        add_noop(w, ids, n, p->cls, HEADSCORE_CLS, t);
        add_noop(w, ids, n, p->sep, HEADSCORE_SEP, t);
    }
}

bool headscore_add(const AttnSource *src, const HeadProbe *p, float *buf, HeadTally *t)
{
    const int n = src->n_q;
    if (src->n_k != n || n < 1 || p->P < 0 || p->at < 0 || (p->P > 0 && p->at + 2 * p->P > n))
        return false;
    for (int l = 0; l < src->L; l++) {
        for (int h = 0; h < src->H; h++)
            for (int i = 0; i < n; i++)
                add_row(combine_row(src, l, h, i, buf), p, i, n, &t[l * src->H + h]);
        if (src->release)
            src->release(src->ctx, l);
    }
    return true;
}

float headscore_value(const HeadTally *t, HeadScoreKind k)
{
    return t->count[k] > 0 ? (float)(t->sum[k] / t->count[k]) : -1.0f;
}

int headscore_percent(float v)
{
    return (int)(v * 100.0f + 0.5f);
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
