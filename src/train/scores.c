/* scores.c - head scores on probe sequences and the labels they give.
 *
 * Two probes: the task's own batch at a fixed step (-1, never trained on)
 * for the previous-token, self, first-token and antecedent scores, and the
 * two-copy sequences of DESIGN.md for the induction score. Both are pure
 * functions of the seed, so a model's scores can be measured again.
 */
#include "train/scores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "io/fileio.h"

#define PROBE_BATCH 8

static const char *const NAMES[SCORE_KINDS] = {"previous-token", "induction", "self", "first-token",
                                               "antecedent"};
static const char *const SHORT[SCORE_KINDS] = {"prev", "ind", "self", "first", "ante"};

const char *scores_name(ScoreKind k)
{
    return k < SCORE_KINDS ? NAMES[k] : "?";
}

const char *scores_short_name(ScoreKind k)
{
    return k < SCORE_KINDS ? SHORT[k] : "?";
}

void scores_repeat_probe(int *tok, int B, int P, int V, uint64_t seed)
{
    Rng r;
    rng_seed(&r, rng_mix(seed ^ 0x1d4c7ull));
    int *pool = malloc((size_t)V * sizeof *pool);
    for (int b = 0; b < B; b++) {
        int *s = tok + (long)b * 2 * P;
        for (int k = 0; pool && k < V; k++)
            pool[k] = k;
        for (int k = 0; k < P; k++) {
            if (pool && V >= P) { /* partial Fisher-Yates: distinct tokens */
                int j = k + (int)(rng_next(&r) % (uint64_t)(V - k)), t = pool[k];
                pool[k] = pool[j], pool[j] = t;
                s[k] = pool[k];
            } else {
                s[k] = (int)(rng_next(&r) % (uint64_t)V);
            }
            s[P + k] = s[k];
        }
    }
    free(pool);
}

/* Previous, self, first and antecedent scores from the last forward. */
static void own_scores(const Net *net, const Batch *bt, HeadScore *out)
{
    const int L = net->spec.layers, H = net->spec.heads, n = bt->n;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            double sum[SCORE_KINDS] = {0}, cnt = 0, ante = 0;
            for (int b = 0; b < bt->B; b++) {
                const float *w = net_weights(net, l, b, h);
                for (int i = 1; i < n; i++) {
                    sum[SCORE_PREV] += w[(long)i * n + i - 1];
                    sum[SCORE_SELF] += w[(long)i * n + i];
                    sum[SCORE_FIRST] += w[(long)i * n];
                    cnt++;
                }
                const int *pr = bt->pairs ? bt->pairs + 2L * b * n : NULL;
                for (int k = 0; pr && k < n && pr[2 * k] >= 0; k++, ante++)
                    sum[SCORE_ANTECEDENT] += w[(long)pr[2 * k] * n + pr[2 * k + 1]];
            }
            HeadScore *hs = &out[l * H + h];
            hs->s[SCORE_PREV] = (float)(sum[SCORE_PREV] / cnt);
            hs->s[SCORE_SELF] = (float)(sum[SCORE_SELF] / cnt);
            hs->s[SCORE_FIRST] = (float)(sum[SCORE_FIRST] / cnt);
            hs->has[SCORE_PREV] = hs->has[SCORE_SELF] = hs->has[SCORE_FIRST] = true;
            hs->has[SCORE_ANTECEDENT] = ante > 0;
            hs->s[SCORE_ANTECEDENT] = ante > 0 ? (float)(sum[SCORE_ANTECEDENT] / ante) : 0.0f;
        }
}

static void induction_scores(const Net *net, int B, int P, HeadScore *out)
{
    const int L = net->spec.layers, H = net->spec.heads, n = 2 * P;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            double sum = 0;
            for (int b = 0; b < B; b++) {
                const float *w = net_weights(net, l, b, h);
                for (int t = P; t < n; t++)
                    sum += w[(long)t * n + t - P + 1];
            }
            out[l * H + h].s[SCORE_INDUCTION] = (float)(sum / ((double)B * P));
            out[l * H + h].has[SCORE_INDUCTION] = true;
        }
}

int scores_measure(Net *net, const Task *task, uint64_t seed, HeadScore *out)
{
    const int B = net->batch < PROBE_BATCH ? net->batch : PROBE_BATCH;
    const int n = net->spec.context, P = n / 2;
    Batch bt;
    memset(out, 0, (size_t)net->spec.layers * net->spec.heads * sizeof *out);
    if (n < 2)
        return AV_OK;
    int err = task_batch_init(&bt, task, B, n);
    if (err)
        return err;
    task_batch(task, seed, -1, &bt);
    err = net_forward(net, bt.tok, NULL, NULL, B, n, NULL);
    if (!err)
        own_scores(net, &bt, out);
    if (!err && P >= 1) {
        scores_repeat_probe(bt.tok, B, P, net->spec.V, seed);
        err = net_forward(net, bt.tok, NULL, NULL, B, 2 * P, NULL);
        if (!err)
            induction_scores(net, B, P, out);
    }
    task_batch_free(&bt);
    return err;
}

int scores_probe_weights(Net *net, const Task *task, uint64_t seed, int *tok)
{
    Batch bt;
    const int n = net->spec.context;
    int err = task_batch_init(&bt, task, 1, n);
    if (err)
        return err;
    task_batch(task, seed, -1, &bt);
    memcpy(tok, bt.tok, (size_t)n * sizeof *tok);
    err = net_forward(net, tok, NULL, NULL, 1, n, NULL);
    task_batch_free(&bt);
    return err;
}

ScoreKind scores_best(const HeadScore *hs, float *value)
{
    ScoreKind best = SCORE_PREV;
    float v = -1.0f;
    for (int k = 0; k < SCORE_KINDS; k++)
        if (hs->has[k] && hs->s[k] > v)
            v = hs->s[k], best = (ScoreKind)k;
    if (value)
        *value = v;
    return best;
}

void scores_label(const HeadScore *hs, char *buf, size_t cap)
{
    float v;
    ScoreKind k = scores_best(hs, &v);
    if (v > 0.5f)
        snprintf(buf, cap, "%s %.2f", NAMES[k], (double)v);
    else
        snprintf(buf, cap, "mixed");
}

char *scores_heads_txt(const HeadScore *scores, int layers, int heads)
{
    MemFile m;
    if (memfile_open(&m))
        return NULL;
    for (int l = 0; l < layers; l++)
        for (int h = 0; h < heads; h++) {
            const HeadScore *hs = &scores[l * heads + h];
            char label[64];
            scores_label(hs, label, sizeof label);
            fprintf(m.f, "layer %d head %d: %s  (", l + 1, h + 1, label);
            for (int k = 0, first = 1; k < SCORE_KINDS; k++)
                if (hs->has[k]) {
                    fprintf(m.f, "%s%s %.3f", first ? "" : ", ", NAMES[k], (double)hs->s[k]);
                    first = 0;
                }
            fputs(")\n", m.f);
        }
    if (memfile_close(&m)) {
        memfile_free(&m);
        return NULL;
    }
    return m.buf;
}
