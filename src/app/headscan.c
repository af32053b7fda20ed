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
    int V, n_max;
    if (!kind_vocab(k, c, &V, &n_max))
        return "head scores run token sequences: imported attention has only its own text";
    if (n_max < 2)
        return "head scores need a context of 2 tokens or more";
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
    const int n = 2 * s->P;
    ModelResult r = {0};
    float *buf = malloc(sizeof *buf * (size_t)n);
    int err = buf ? AV_OK : AV_ERR_NOMEM;
    for (int q = 0; !err && q < s->seqs; q++) {
        const int *ids = s->ids + (long)q * n;
        err = kind_run_ids(k, c, ids, n, &r);
        if (!err && (r.L != s->L || r.shape.H != s->H))
            err = AV_ERR_CONFIG;
        AttnSource src;
        if (!err)
            model_source(&r, &src);
        if (!err && !headscore_add(&src, ids, s->P, buf, s->t))
            err = AV_ERR_CONFIG;
    }
    free(buf);
    model_result_free(&r);
    return err;
}

int headscan_run(Kind *k, const ModelConfig *c, uint64_t seed, HeadScan *s)
{
    int V, n_max;
    memset(s, 0, sizeof *s);
    if (!kind_vocab(k, c, &V, &n_max) || n_max < 2)
        return AV_ERR_CONFIG;
    s->L = c->layers, s->H = c->H, s->V = V, s->seed = seed, s->seqs = HEADSCAN_SEQS;
    s->P = n_max / 2 < HEADSCAN_MAX_P ? n_max / 2 : HEADSCAN_MAX_P;
    s->ids = malloc(sizeof *s->ids * (size_t)s->seqs * 2 * (size_t)s->P);
    s->t = calloc((size_t)s->L * (size_t)s->H, sizeof *s->t);
    int err = s->ids && s->t ? AV_OK : AV_ERR_NOMEM;
    if (!err) {
        scores_repeat_probe(s->ids, s->seqs, s->P, V, seed);
        err = score_probes(k, c, s);
    }
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

int headscan_write_csv(const HeadScan *s, FILE *f)
{
    fprintf(f,
            "# attnviz head scores: %d sequences of a random segment of %d tokens and one "
            "repetition, ids 0..%d, seed %llu\n",
            s->seqs, s->P, s->V - 1, (unsigned long long)s->seed);
    for (int q = 0; q < s->seqs; q++) {
        fprintf(f, "# sequence %d:", q + 1);
        for (int i = 0; i < 2 * s->P; i++)
            fprintf(f, " %d", s->ids[(long)q * 2 * s->P + i]);
        fputc('\n', f);
    }
    for (int kind = 0; kind < HEADSCORE_KINDS; kind++) {
        int b = s->best[kind];
        if (b >= 0)
            fprintf(f, "# best %s: layer %d head %d (%.3f)\n", headscore_name((HeadScoreKind)kind),
                    b / s->H + 1, b % s->H + 1,
                    (double)headscore_value(&s->t[b], (HeadScoreKind)kind));
    }
    fputs("layer,head,previous_token,induction,duplicate_token,first_token\n", f);
    for (int i = 0; i < s->L * s->H; i++) {
        fprintf(f, "%d,%d", i / s->H + 1, i % s->H + 1);
        for (int kind = 0; kind < HEADSCORE_KINDS; kind++)
            fprintf(f, ",%.6f", (double)headscore_value(&s->t[i], (HeadScoreKind)kind));
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}
