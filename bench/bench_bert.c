/* bench_bert.c - `make bench`'s BERT figures (bench.c prints the machine and
 * the peak first): a whole forward (core/bert.h's bert_forward: a BERT has
 * no cache, so every typed key is one) of random weights in memory, of
 * bert-base's shape (12 layers, d_model 768, 12 heads, d_ff 3,072) and
 * all-MiniLM-L6-v2's (6, 384, 12, 1,536), vocabulary 30,522. Every line ends
 * with on="processor / kernel".
 *
 *   bench bert_bandwidth  the 2-thread read bandwidth of 256 MB (GB/s)
 *   bench bert_forward  n tokens (a sentence pair's types) on the threads
 *                       bert_forward takes by itself: median ms of 7 and
 *                       best_ms, cpu_ms (every thread's processor time: the
 *                       figure to read on a shared machine), GFLOP/s
 *                       (bert_flops) and peak_ratio; flop_ms (the operations
 *                       at the sgemm peak) and bw_ms (the layers' weights at
 *                       the bandwidth), roof_ms the larger, roof_ratio =
 *                       ms / roof_ms against target_ratio 1.5 (bert-base),
 *                       or ms against target_ms 20 (MiniLM-L6)
 */
#include "bench_bert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gpt2.h"
#include "bench_util.h"
#include "core/bert.h"
#include "core/rng.h"

enum { REPS = 7, N = 32 };

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Random weights of cfg's shape (no masked-LM head) carved from one arena,
 * LayerNorm gains near 1. Returns the arena (the caller frees it) or NULL. */
static float *make_weights(const BertConfig *c, BertWeights *w)
{
    const size_t D = (size_t)c->d_model, F = (size_t)c->d_ff;
    const size_t layer = 4 * (D * D + D) + 2 * D * F + F + D + 4 * D;
    const size_t total =
        ((size_t)c->n_vocab + c->n_pos + c->n_types) * D + 2 * D + (size_t)c->n_layer * layer;
    float *a = malloc(sizeof *a * total), *p = a;
    if (!a)
        return NULL;
    Rng r;
    rng_seed(&r, 11);
    for (size_t k = 0; k < total; k++)
        a[k] = rng_symmetric(&r, 0.05f);
    memset(w, 0, sizeof *w);
    w->cfg = *c;
#define TAKE(dst, count) (dst = p, p += (count))
    TAKE(w->word, c->n_vocab * D), TAKE(w->pos, c->n_pos * D), TAKE(w->type, c->n_types * D);
    TAKE(w->emb_ln_g, D), TAKE(w->emb_ln_b, D);
    for (int l = 0; l < c->n_layer; l++) {
        BertLayer *y = &w->layer[l];
        TAKE(y->q_w, D * D), TAKE(y->q_b, D), TAKE(y->k_w, D * D), TAKE(y->k_b, D);
        TAKE(y->v_w, D * D), TAKE(y->v_b, D), TAKE(y->o_w, D * D), TAKE(y->o_b, D);
        TAKE(y->ln1_g, D), TAKE(y->ln1_b, D), TAKE(y->fc_w, F * D), TAKE(y->fc_b, F);
        TAKE(y->out_w, D * F), TAKE(y->out_b, D), TAKE(y->ln2_g, D), TAKE(y->ln2_b, D);
    }
#undef TAKE
    return a;
}

static double least(const double *v, int n)
{
    double m = v[0];
    for (int k = 1; k < n; k++)
        m = v[k] < m ? v[k] : m;
    return m;
}

static void bench_shape(const char *name, const BertConfig *c, double peak, double gbs,
                        const char *on)
{
    BertWeights w;
    float *arena = make_weights(c, &w);
    BertState st = {0};
    int ids[N], types[N];
    for (int i = 0; i < N; i++)
        ids[i] = (i * 7919 + 101) % c->n_vocab, types[i] = i >= N / 2;
    double t[REPS], cp[REPS];
    int err = arena ? AV_OK : AV_ERR_NOMEM;
    for (int rep = 0; rep < REPS && !err; rep++) {
        st.n = 0;
        double t0 = now_ms(), c0 = cpu_ms();
        err = bert_forward(&w, ids, types, N, false, &st);
        t[rep] = now_ms() - t0, cp[rep] = cpu_ms() - c0;
    }
    if (err) {
        printf("bench bert_forward shape=%s skipped reason=%s\n", name, av_strerror(err));
    } else {
        const double D = c->d_model, F = c->d_ff;
        const double ms = median(t, REPS), flops = bert_flops(c, N), gf = flops / ms * 1e-6;
        const double flop_ms = peak > 0 ? flops / peak * 1e-6 : 0;
        const double bw_ms = gbs > 0 ? c->n_layer * (4 * D * D + 2 * D * F) * 4 / gbs * 1e-6 : 0;
        const double roof = flop_ms > bw_ms ? flop_ms : bw_ms;
        const bool base = strcmp(name, "bert-base") == 0;
        printf("bench bert_forward shape=%s L=%d D=%d H=%d F=%d n=%d ms=%.1f best_ms=%.1f "
               "cpu_ms=%.1f gflops=%.1f peak_ratio=%.2f flop_ms=%.1f bw_ms=%.1f roof_ms=%.1f "
               "roof_ratio=%.2f %s reps=%d on=\"%s\"\n",
               name, c->n_layer, c->d_model, c->n_head, c->d_ff, N, ms, least(t, REPS),
               median(cp, REPS), gf, peak > 0 ? gf / peak : 0, flop_ms, bw_ms, roof,
               roof > 0 ? ms / roof : 0, base ? "target_ratio=1.5" : "target_ms=20", REPS, on);
    }
    fflush(stdout);
    bert_state_free(&st);
    free(arena);
}

void bench_bert(double peak_gflops, const char *on)
{
    double gbs1, cpu_gbs, gbs;
    bandwidth_of_256mb(&gbs1, &cpu_gbs, &gbs);
    printf("bench bert_bandwidth read_gbs_2threads=%.1f mb=256 on=\"%s\"\n", gbs, on);
    const BertConfig base = {30522, 512, 2, 768, 12, 12, 3072, 1e-12f};
    const BertConfig minilm = {30522, 512, 2, 384, 12, 6, 1536, 1e-12f};
    bench_shape("bert-base", &base, peak_gflops, gbs, on);
    bench_shape("minilm-l6", &minilm, peak_gflops, gbs, on);
}
