/* headscan.c - every head of a kind scored on random repeated sequences
 * (headscan.h): the probes from train/scores.h, the maths from
 * core/headscore.h, the runs through the kind's ids. */
#include "app/headscan.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "train/scores.h"

const char *headscan_refuses(const Kind *k, const ModelConfig *c)
{
    int V, n_max, cls, sep;
    if (!kind_vocab(k, c, &V, &n_max))
        return k->cls->run_ids
                   ? "head scores run random token sequences: X.npy embeds only the text's own "
                     "tokens"
                   : "head scores run token sequences: imported attention has only its own text";
    kind_wrap(k, &cls, &sep);
    if (n_max < 2 + (cls >= 0) + (sep >= 0))
        return "head scores need a context of 2 tokens or more (and [CLS], [SEP])";
    return NULL;
}

void headscan_free(HeadScan *s)
{
    free(s->ids);
    free(s->t);
    memset(s, 0, sizeof *s);
}

/* Each probe through the kind, its weights added to s->t. */
static int score_probes(Kind *k, const ModelConfig *c, HeadScan *s)
{
    ModelResult r = {0};
    float *buf = malloc(sizeof *buf * (size_t)s->n);
    int err = buf ? AV_OK : AV_ERR_NOMEM;
    for (int q = 0; !err && q < s->seqs; q++) {
        const int *ids = s->ids + (long)q * s->n;
        err = kind_run_ids(k, c, ids, s->n, &r);
        if (!err && (r.L != s->L || r.shape.H != s->H))
            err = AV_ERR_CONFIG;
        AttnSource src;
        if (!err)
            model_source(&r, &src);
        HeadProbe p = {.ids = ids, .P = s->P, .at = s->at, .cls = s->cls, .sep = s->sep};
        if (!err && !headscore_add(&src, &p, buf, s->t))
            err = AV_ERR_CONFIG;
    }
    free(buf);
    model_result_free(&r);
    return err;
}

/* The probes into s->ids: scores_repeat_probe's segments over the ids
 * other than the wrapping ones (each drawn id stepped past those at or
 * below it: distinct draws stay distinct), wrapped in [CLS] and [SEP]. */
static int make_probes(HeadScan *s)
{
    int skip[2] = {-1, -1}, ns = 0;
    for (int w = 0; w < 2; w++) {
        int id = w ? s->sep : s->cls;
        if (id >= 0 && id < s->V && (ns == 0 || skip[0] != id))
            skip[ns++] = id;
    }
    if (ns == 2 && skip[1] < skip[0])
        skip[0] ^= skip[1], skip[1] ^= skip[0], skip[0] ^= skip[1];
    int *seg = malloc(sizeof *seg * (size_t)s->seqs * 2 * (size_t)s->P);
    if (!seg)
        return AV_ERR_NOMEM;
    scores_repeat_probe(seg, s->seqs, s->P, s->V - ns, s->seed);
    for (int q = 0; q < s->seqs; q++) {
        int *row = s->ids + (long)q * s->n;
        if (s->cls >= 0)
            row[0] = s->cls;
        for (int i = 0; i < 2 * s->P; i++) {
            int id = seg[(long)q * 2 * s->P + i];
            for (int w = 0; w < ns; w++)
                id += id >= skip[w];
            row[s->at + i] = id;
        }
        if (s->sep >= 0)
            row[s->n - 1] = s->sep;
    }
    free(seg);
    return AV_OK;
}

int headscan_run(Kind *k, const ModelConfig *c, uint64_t seed, HeadScan *s)
{
    int V, n_max;
    memset(s, 0, sizeof *s);
    if (!kind_vocab(k, c, &V, &n_max))
        return AV_ERR_CONFIG;
    kind_wrap(k, &s->cls, &s->sep);
    s->at = s->cls >= 0;
    const int extra = s->at + (s->sep >= 0), room = (n_max - extra) / 2;
    if (room < 1 || V - extra < 1)
        return AV_ERR_CONFIG;
    s->L = c->layers, s->H = c->H, s->V = V, s->seed = seed, s->seqs = HEADSCAN_SEQS;
    s->P = room < HEADSCAN_MAX_P ? room : HEADSCAN_MAX_P;
    s->n = 2 * s->P + extra;
    s->ids = malloc(sizeof *s->ids * (size_t)s->seqs * (size_t)s->n);
    s->t = calloc((size_t)s->L * (size_t)s->H, sizeof *s->t);
    int err = s->ids && s->t ? AV_OK : AV_ERR_NOMEM;
    if (!err)
        err = make_probes(s);
    if (!err)
        err = score_probes(k, c, s);
    if (err) {
        headscan_free(s);
        return err;
    }
    for (int kind = 0; kind < HEADSCORE_KINDS; kind++) {
        s->best[kind] = headscore_best(s->t, s->L * s->H, (HeadScoreKind)kind);
        s->named[kind] = headscore_named(s->t, s->L * s->H, (HeadScoreKind)kind);
    }
    return AV_OK;
}

/* A score to 6 decimals, or nothing when the model cannot have it. */
static void put_score(FILE *f, float v)
{
    if (v >= 0)
        fprintf(f, ",%.6f", (double)v);
    else
        fputc(',', f);
}

int headscan_write_csv(const HeadScan *s, FILE *f)
{
    fprintf(f,
            "# attnviz head scores: %d sequences of a random segment of %d tokens and one "
            "repetition%s, ids 0..%d, seed %llu\n",
            s->seqs, s->P, s->cls >= 0 || s->sep >= 0 ? " between [CLS] and [SEP]" : "", s->V - 1,
            (unsigned long long)s->seed);
    for (int q = 0; q < s->seqs; q++) {
        fprintf(f, "# sequence %d:", q + 1);
        for (int i = 0; i < s->n; i++)
            fprintf(f, " %d", s->ids[(long)q * s->n + i]);
        fputc('\n', f);
    }
    for (int kind = 0; kind < HEADSCORE_KINDS; kind++) {
        int b = s->best[kind];
        float v = b >= 0 ? headscore_value(&s->t[b], (HeadScoreKind)kind) : 0.0f;
        if (v > 0) /* none when every head scores 0: next-token under the causal mask */
            fprintf(f, "# best %s: layer %d head %d (%.3f)\n", headscore_name((HeadScoreKind)kind),
                    b / s->H + 1, b % s->H + 1, (double)v);
    }
    if (s->cls < 0 && s->sep < 0)
        fputs("# noop_cls, noop_sep: empty, the model has no [CLS] or [SEP] token\n", f);
    else if (s->cls < 0 || s->sep < 0)
        fprintf(f, "# noop_%s: empty, the model has no %s token\n", s->cls < 0 ? "cls" : "sep",
                s->cls < 0 ? "[CLS]" : "[SEP]");
    fputs("layer,head", f);
    for (int kind = 0; kind < HEADSCORE_KINDS; kind++)
        fprintf(f, ",%s", headscore_column((HeadScoreKind)kind));
    fputc('\n', f);
    for (int i = 0; i < s->L * s->H; i++) {
        fprintf(f, "%d,%d", i / s->H + 1, i % s->H + 1);
        for (int kind = 0; kind < HEADSCORE_KINDS; kind++)
            put_score(f, headscore_value(&s->t[i], (HeadScoreKind)kind));
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}
