/* bench_gpt2.c - `make bench`'s GPT-2 figures (bench.c prints the machine and
 * the peak first).
 *
 *   bench gpt2_model    the shape: gpt2's (V 50257, T 1024, D 768, H 12, L 12,
 *                       124M parameters, tied lm_head), random weights built in
 *                       memory (no file is read or written)
 *   bench gpt2_bandwidth  the best of 3 passes reading the weights' first 256 MB:
 *                       GB/s, the limit a typed key is held to
 *   bench gpt2_forward  a whole forward of n tokens (no cache: every position,
 *                       every layer; no logits): median ms, GFLOP/s (the causal
 *                       triangle's operations, gpt2_flops) and peak_ratio, its
 *                       speed over the 2-thread sgemm peak (the forward runs on
 *                       one thread: 0.5 would be one core's share)
 *                       cpu_ms is the thread's processor time (the figure to
 *                       read when other programs share the cores)
 *   bench gpt2_key      a typed key at the end of n tokens: the last token
 *                       changed, gpt2_forward through the KV cache (one position
 *                       computed) and gpt2_logits of it (the next-token
 *                       distribution the view shows); median ms of 9, and
 *                       bw_ratio = ms over the time to stream the layers' and
 *                       lm_head's bytes at the measured bandwidth (cpu_bw_ratio:
 *                       the same by processor time)
 */
#include "bench_gpt2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "core/gpt2.h"
#include "core/rng.h"

/* This thread's processor time in ms: beside the wall clock, what the run
 * costs when other programs share the cores (the forward is one thread). */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

enum { G_V = 50257, G_T = 1024, G_D = 768, G_H = 12, G_L = 12, G_F = 3072, KEY_REPS = 9 };

typedef struct {
    Gpt2Weights w;
    float *arena;
    size_t count;
} BenchModel;

static const float *take(Rng *r, float **at, size_t count, float offset, float std)
{
    float *p = *at;
    for (size_t k = 0; k < count; k++)
        p[k] = offset + rng_symmetric(r, std);
    *at += count;
    return p;
}

/* GPT-2's initialisation spread (0.02), gains around 1. */
static int model_make(BenchModel *m)
{
    const size_t D = G_D, F = G_F;
    const size_t layer = 4 * D + D * 3 * D + 3 * D + D * D + D + D * F + F + F * D + D;
    m->count = (size_t)G_V * D + (size_t)G_T * D + G_L * layer + 2 * D;
    m->arena = malloc(m->count * sizeof(float));
    if (!m->arena)
        return -1;
    float *at = m->arena;
    Rng r;
    rng_seed(&r, 124);
    Gpt2Weights *w = &m->w;
    memset(w, 0, sizeof *w);
    w->cfg = (Gpt2Config){G_V, G_T, G_D, G_H, G_L, G_F, 1e-5f};
    w->wte = take(&r, &at, (size_t)G_V * D, 0, 0.02f);
    w->wpe = take(&r, &at, (size_t)G_T * D, 0, 0.01f);
    for (int l = 0; l < G_L; l++) {
        Gpt2Layer *y = &w->layer[l];
        y->ln1_g = take(&r, &at, D, 1, 0.1f), y->ln1_b = take(&r, &at, D, 0, 0.02f);
        y->attn_w = take(&r, &at, D * 3 * D, 0, 0.02f), y->attn_b = take(&r, &at, 3 * D, 0, 0.02f);
        y->proj_w = take(&r, &at, D * D, 0, 0.02f), y->proj_b = take(&r, &at, D, 0, 0.02f);
        y->ln2_g = take(&r, &at, D, 1, 0.1f), y->ln2_b = take(&r, &at, D, 0, 0.02f);
        y->fc_w = take(&r, &at, D * F, 0, 0.02f), y->fc_b = take(&r, &at, F, 0, 0.02f);
        y->fcproj_w = take(&r, &at, F * D, 0, 0.02f), y->fcproj_b = take(&r, &at, D, 0, 0.02f);
    }
    w->lnf_g = take(&r, &at, D, 1, 0.1f), w->lnf_b = take(&r, &at, D, 0, 0.02f);
    w->lm_head = w->wte;
    return 0;
}

/* Read bandwidth in GB/s: the best of 3 passes summing count floats of
 * data, by the wall clock and (*cpu_gbs) by this thread's processor time. */
static double bandwidth(const float *data, size_t count, double *cpu_gbs)
{
    typedef float Four __attribute__((vector_size(16)));
    double best = 0;
    volatile float sink = 0;
    *cpu_gbs = 0;
    for (int rep = 0; rep < 3; rep++) {
        Four s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, v;
        double t0 = now_ms(), c0 = cpu_ms();
        for (size_t k = 0; k + 16 <= count; k += 16) {
            memcpy(&v, data + k, sizeof v), s0 += v;
            memcpy(&v, data + k + 4, sizeof v), s1 += v;
            memcpy(&v, data + k + 8, sizeof v), s2 += v;
            memcpy(&v, data + k + 12, sizeof v), s3 += v;
        }
        double ms = now_ms() - t0, gbs = count * sizeof(float) / ms * 1e-6;
        double cgbs = count * sizeof(float) / (cpu_ms() - c0) * 1e-6;
        *cpu_gbs = cgbs > *cpu_gbs ? cgbs : *cpu_gbs;
        Four s = s0 + s1 + s2 + s3;
        sink = sink + s[0] + s[1] + s[2] + s[3];
        best = gbs > best ? gbs : best;
    }
    (void)sink;
    return best;
}

static void bench_whole(const BenchModel *m, const int *ids, double peak)
{
    static const int lengths[] = {8, 32, 128, 512, 1024}, reps[] = {5, 5, 3, 2, 1};
    Gpt2State st;
    gpt2_state_init(&st);
    for (int q = 0; q < 5; q++) {
        const int n = lengths[q];
        double t[5], c[5];
        for (int rep = 0; rep < reps[q]; rep++) {
            st.n = 0; /* no cache: every position computed */
            double t0 = now_ms(), c0 = cpu_ms();
            if (gpt2_forward(&m->w, ids, n, &st) != AV_OK) {
                printf("bench gpt2_forward n=%d skipped reason=out_of_memory\n", n);
                gpt2_state_free(&st);
                return;
            }
            t[rep] = now_ms() - t0, c[rep] = cpu_ms() - c0;
        }
        const double ms = median(t, reps[q]), gf = gpt2_flops(&m->w.cfg, 0, n) / ms * 1e-6;
        printf("bench gpt2_forward n=%d ms=%.1f cpu_ms=%.1f gflops=%.1f peak_ratio=%.2f "
               "reps=%d\n",
               n, ms, median(c, reps[q]), gf, peak > 0 ? gf / peak : 0, reps[q]);
        fflush(stdout);
    }
    gpt2_state_free(&st);
}

static void bench_keys(const BenchModel *m, int *ids, double gbs, double cpu_gbs)
{
    static const int lengths[] = {8, 32, 128};
    const double D = G_D, F = G_F;
    const double layer_bytes = G_L * (4 * D * D + 2 * D * F) * sizeof(float);
    const double head_bytes = (double)G_V * D * sizeof(float);
    float *logits = malloc(G_V * sizeof *logits);
    Gpt2State st;
    gpt2_state_init(&st);
    for (int q = 0; logits && q < 3; q++) {
        const int n = lengths[q];
        double t[KEY_REPS], tf[KEY_REPS], c[KEY_REPS];
        gpt2_forward(&m->w, ids, n, &st);
        for (int rep = 0; rep < KEY_REPS; rep++) {
            ids[n - 1] = (ids[n - 1] + 1) % G_V; /* the last token typed again */
            double t0 = now_ms(), c0 = cpu_ms();
            gpt2_forward(&m->w, ids, n, &st);
            double t1 = now_ms();
            gpt2_logits(&m->w, &st, n - 1, logits);
            t[rep] = now_ms() - t0, tf[rep] = t1 - t0, c[rep] = cpu_ms() - c0;
        }
        const double ms = median(t, KEY_REPS), fms = median(tf, KEY_REPS);
        const double cms = median(c, KEY_REPS), bytes = layer_bytes + head_bytes;
        const double roof = gbs > 0 ? bytes / gbs * 1e-6 : 0;
        const double croof = cpu_gbs > 0 ? bytes / cpu_gbs * 1e-6 : 0;
        printf("bench gpt2_key n=%d computed=%d ms=%.1f cpu_ms=%.1f forward_ms=%.1f "
               "logits_ms=%.1f weights_mb=%.0f bw_ms=%.1f bw_ratio=%.2f cpu_bw_ratio=%.2f\n",
               n, n - st.from, ms, cms, fms, ms - fms, bytes / 1e6, roof, roof > 0 ? ms / roof : 0,
               croof > 0 ? cms / croof : 0);
        fflush(stdout);
    }
    free(logits);
    gpt2_state_free(&st);
}

void bench_gpt2(double peak_gflops)
{
    BenchModel m;
    double t0 = now_ms();
    if (model_make(&m) != 0) {
        printf("bench gpt2_model skipped reason=out_of_memory\n");
        return;
    }
    printf("bench gpt2_model V=%d T=%d D=%d H=%d L=%d params_m=%.1f build_s=%.1f\n", G_V, G_T, G_D,
           G_H, G_L, gpt2_param_count(&m.w) / 1e6, (now_ms() - t0) / 1e3);
    double cpu_gbs;
    const double gbs = bandwidth(m.arena, (size_t)64 << 20, &cpu_gbs);
    printf("bench gpt2_bandwidth read_gbs=%.1f cpu_gbs=%.1f mb=256\n", gbs, cpu_gbs);
    fflush(stdout);
    int *ids = malloc(G_T * sizeof *ids);
    Rng r;
    rng_seed(&r, 5);
    for (int i = 0; ids && i < G_T; i++)
        ids[i] = (int)(rng_next(&r) % G_V);
    if (ids) {
        bench_whole(&m, ids, peak_gflops);
        bench_keys(&m, ids, gbs, cpu_gbs);
    }
    free(ids);
    free(m.arena);
}
