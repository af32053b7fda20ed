/* bench_gpt2.c - `make bench`'s GPT-2 figures (bench.c prints the machine and
 * the peak first), on a full-size random gpt2-shaped checkpoint on disk
 * (scripts/bench-gpt2-checkpoint.sh makes it when missing: 124M parameters,
 * float32, never in the repository). Every line ends with on="processor /
 * kernel": the machine the figure came from.
 *
 *   bench gpt2_checkpoint  the folder, and whether it was made in this run
 *   bench gpt2_load     io/hfmodel.h opening the folder in a child process from
 *                       a warm page cache: median ms of 5 (cpu_ms: user +
 *                       system), target 2,000 ms; resident memory after the
 *                       open (rss_mib) and at its peak over the float32 weights
 *                       (rss_ratio, peak_ratio, target 1.25)
 *   bench gpt2_bandwidth  the best of 3 passes reading 256 MB (and of 3 more
 *                       with AVX2's loads, where the processor has them): GB/s on one
 *                       thread (read_gbs; cpu_gbs by its processor time) and
 *                       on two, each reading half (read_gbs_2threads): the
 *                       limit of a forward that streams the weights on two
 *                       cores
 *   bench gpt2_forward  a whole forward of n tokens (no cache: every position,
 *                       every layer; no logits) on `threads` threads (what
 *                       gpt2_forward takes by itself): median ms and best_ms
 *                       (the run least disturbed by other programs), cpu_ms
 *                       (the process's processor time, every thread's: the
 *                       figure to read when other programs share the cores),
 *                       GFLOP/s (the causal triangle's operations, gpt2_flops)
 *                       and peak_ratio, its speed over the 2-thread sgemm
 *                       peak; flop_ms (the operations at the peak) and bw_ms
 *                       (the layers' weights at the 2-thread bandwidth),
 *                       roof_ms the larger and roof_ratio = ms / roof_ms
 *                       (target 1.5 up to 32 tokens); kernel= the forward's
 *                       kernels (core/gpt2.h gpt2_kernel)
 *   bench gpt2_key      a typed key at the end of n tokens (8, 32, 128, 512),
 *                       the core alone, on one thread and on two: the last
 *                       token changed, gpt2_forward through the KV cache (one
 *                       position computed) and gpt2_logits of it, 9 keys,
 *                       each after read_ms: a plain sum over the very
 *                       matrices a key streams (the layers' and lm_head, as
 *                       the model holds them) on as many threads; read_ratio
 *                       = the keys' median over the reads' median (target
 *                       1.25; met= says), best_read_ratio the best over the
 *                       best. The floor is measured beside each key because
 *                       a virtual machine's bandwidth drifts by a fifth
 *                       within a run. floor_ms and ratio: the same bytes at
 *                       the 256 MB bandwidth measured at the start;
 *                       cpu_ratio = cpu_ms over the processor time one
 *                       thread takes to read them
 *   bench gpt2_key_kind the same key as the interface makes it: kind_run on a
 *                       text of n tokens and one word more (tokenised, the
 *                       cache reused, the views' result filled: every layer's
 *                       Q, K, V and weights) then kind_logits (the
 *                       predictions); ms of both, cpu_ms the process's time
 */
#include "bench_gpt2.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "app/kind.h"
#include "bench_util.h"
#include "core/gpt2.h"
#include "core/model.h"
#include "core/rng.h"
#include "io/hfmodel.h"

enum { KEY_REPS = 9, LOADS = 5 };

static double clock_ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* The process's processor time in ms: every thread's (the forward's helper
 * thread's too). */
static double cpu_ms(void)
{
    return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

void bench_gpt2_dir(char *out, unsigned cap)
{
    const char *env = getenv("ATTNVIZ_BENCH_GPT2"), *tmp = getenv("TMPDIR");
    if (env && *env)
        snprintf(out, cap, "%s", env);
    else
        snprintf(out, cap, "%s/attnviz-bench-gpt2", tmp && *tmp ? tmp : "/tmp");
}

int bench_gpt2_checkpoint(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "./scripts/bench-gpt2-checkpoint.sh '%s'", dir);
    fflush(stdout);
    int st = system(cmd);
    fflush(stdout);
    if (st == 0)
        return 0;
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 3)) /* 3: the script said skipped */
        printf("bench gpt2 skipped reason=checkpoint_failed dir=%s\n", dir);
    else
        printf("bench gpt2 skipped reason=no_numpy\n");
    fflush(stdout);
    return -1;
}

/* /proc/self/status's field (VmRSS, VmHWM) in kB, or -1. */
static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t len = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, len) == 0 && line[len] == ':')
            kb = strtol(line + len + 1, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

static double process_cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
}

/* In the child: one open to warm the page cache, then LOADS timed, the
 * resident memory measured after the last (the peak reset before it). */
static void load_child(const char *dir, const char *on)
{
    HfModel m;
    char why[512];
    double t[LOADS], c[LOADS];
    if (hfmodel_open(dir, &m, NULL, NULL, why, sizeof why) != AV_OK) {
        printf("bench gpt2_load skipped reason=open_failed why=\"%s\"\n", why);
        return;
    }
    hfmodel_close(&m);
    long base = 0, rss = 0, peak = 0;
    double params = 0;
    for (int k = 0; k < LOADS; k++) {
        FILE *f = fopen("/proc/self/clear_refs", "w"); /* "5": reset the peak */
        if (f)
            fputs("5", f), fclose(f);
        base = status_kb("VmRSS");
        double t0 = now_ms(), c0 = process_cpu_ms();
        if (hfmodel_open(dir, &m, NULL, NULL, why, sizeof why) != AV_OK) {
            printf("bench gpt2_load skipped reason=open_failed why=\"%s\"\n", why);
            return;
        }
        t[k] = now_ms() - t0, c[k] = process_cpu_ms() - c0;
        rss = status_kb("VmRSS"), peak = status_kb("VmHWM");
        params = (double)m.n_params;
        hfmodel_close(&m);
    }
    double wkb = params * 4 / 1024;
    printf("bench gpt2_load ms=%.0f cpu_ms=%.0f target_ms=2000 params_m=%.1f weights_mib=%.0f "
           "base_mib=%.0f rss_mib=%.0f peak_mib=%.0f rss_ratio=%.3f peak_ratio=%.3f "
           "target_ratio=1.25 on=\"%s\"\n",
           median(t, LOADS), median(c, LOADS), params / 1e6, wkb / 1024, base / 1024.0,
           rss / 1024.0, peak / 1024.0, rss / wkb, peak / wkb, on);
}

void bench_gpt2_load(const char *dir, const char *on)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        load_child(dir, on);
        fflush(stdout);
        _exit(0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
    else
        printf("bench gpt2_load skipped reason=fork\n");
    fflush(stdout);
}

/* The sum of count floats of data, four lanes at a time (what a pass of
 * the bandwidth reads). */
static float sum_floats(const float *data, size_t count)
{
    typedef float Four __attribute__((vector_size(16)));
    Four s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, v;
    for (size_t k = 0; k + 16 <= count; k += 16) {
        memcpy(&v, data + k, sizeof v), s0 += v;
        memcpy(&v, data + k + 4, sizeof v), s1 += v;
        memcpy(&v, data + k + 8, sizeof v), s2 += v;
        memcpy(&v, data + k + 12, sizeof v), s3 += v;
    }
    Four s = s0 + s1 + s2 + s3;
    return s[0] + s[1] + s[2] + s[3];
}

#if defined(__x86_64__) && defined(__GNUC__)
/* sum_floats in AVX2, 32 floats a step in four registers: a read as fast as
 * the processor's widest loads of the GPT-2 kernels make it. */
__attribute__((target("avx2"))) static float sum_floats8(const float *data, size_t count)
{
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t k = 0; k + 32 <= count; k += 32) {
        s0 = _mm256_add_ps(s0, _mm256_loadu_ps(data + k));
        s1 = _mm256_add_ps(s1, _mm256_loadu_ps(data + k + 8));
        s2 = _mm256_add_ps(s2, _mm256_loadu_ps(data + k + 16));
        s3 = _mm256_add_ps(s3, _mm256_loadu_ps(data + k + 24));
    }
    float lanes[8], s = 0;
    _mm256_storeu_ps(lanes, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (int q = 0; q < 8; q++)
        s += lanes[q];
    return s;
}

static bool wide_sums(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#else
static float sum_floats8(const float *data, size_t count)
{
    return sum_floats(data, count);
}

static bool wide_sums(void)
{
    return false;
}
#endif

typedef struct {
    const float *data;
    size_t count;
    bool wide; /* sum_floats8 */
    float sum;
} SumJob;

static void *sum_thread(void *arg)
{
    SumJob *j = arg;
    j->sum = j->wide ? sum_floats8(j->data, j->count) : sum_floats(j->data, j->count);
    return NULL;
}

/* Read bandwidth in GB/s: the best of 3 passes summing count floats of
 * data (with 4-float vectors and, where the processor has AVX2, 8-float
 * ones: the faster read is the machine's limit), on one thread or (two) on
 * two, each summing half, by the wall clock and (*cpu_gbs) by the
 * process's processor time. */
static double bandwidth(const float *data, size_t count, bool two, double *cpu_gbs)
{
    double best = 0;
    volatile float sink = 0;
    *cpu_gbs = 0;
    for (int rep = 0; rep < (wide_sums() ? 6 : 3); rep++) {
        const size_t half = two ? count / 2 / 32 * 32 : count;
        const bool wide = rep % 2 == 1;
        SumJob j[2] = {{data, half, wide, 0}, {data + half, count - half, wide, 0}};
        pthread_t tid;
        double t0 = now_ms(), c0 = cpu_ms();
        const bool started = two && pthread_create(&tid, NULL, sum_thread, &j[1]) == 0;
        sum_thread(&j[0]);
        if (started)
            pthread_join(tid, NULL);
        else if (two)
            sum_thread(&j[1]);
        double ms = now_ms() - t0, gbs = count * sizeof(float) / ms * 1e-6;
        double cgbs = count * sizeof(float) / (cpu_ms() - c0) * 1e-6;
        *cpu_gbs = cgbs > *cpu_gbs ? cgbs : *cpu_gbs;
        sink = sink + j[0].sum + j[1].sum;
        best = gbs > best ? gbs : best;
    }
    (void)sink;
    return best;
}

void bandwidth_of_256mb(double *gbs1, double *cpu_gbs1, double *gbs2)
{
    const size_t count = (size_t)64 << 20;
    float *buf = malloc(count * sizeof *buf);
    double cpu2;
    *gbs1 = *cpu_gbs1 = *gbs2 = 0;
    if (!buf)
        return;
    for (size_t k = 0; k < count; k++)
        buf[k] = (float)(k & 1023) * 1e-3f;
    *gbs1 = bandwidth(buf, count, false, cpu_gbs1);
    *gbs2 = bandwidth(buf, count, true, &cpu2);
    free(buf);
}

/* The smallest of count figures: the run least disturbed by other programs. */
static double least(const double *v, int count)
{
    double m = v[0];
    for (int q = 1; q < count; q++)
        m = v[q] < m ? v[q] : m;
    return m;
}

/* The threads gpt2_forward takes by default for a gpt2-sized model. */
static int bench_threads(void)
{
    return sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

/* Bytes of the layers' matrices (what every forward streams). */
static double layer_bytes(const Gpt2Config *g)
{
    const double D = g->d_model, F = g->d_ff;
    return g->n_layer * (4 * D * D + 2 * D * F) * sizeof(float);
}

static void bench_whole(const Gpt2Weights *w, const int *ids, double peak, double gbs,
                        const char *on)
{
    static const int lengths[] = {8, 32, 128, 512, 1024}, reps[] = {5, 5, 3, 3, 3};
    /* ATTNVIZ_BENCH_GPT2_SHORT=1: the short texts only (8 and 32 tokens),
     * for comparing two builds in turn in a few seconds each */
    const int count = getenv("ATTNVIZ_BENCH_GPT2_SHORT") ? 2 : 5;
    Gpt2State st;
    gpt2_state_init(&st);
    for (int q = 0; q < count && lengths[q] <= w->cfg.n_ctx; q++) {
        const int n = lengths[q];
        double t[5], c[5];
        for (int rep = 0; rep < reps[q]; rep++) {
            st.n = 0; /* no cache: every position computed */
            double t0 = now_ms(), c0 = cpu_ms();
            if (gpt2_forward(w, ids, n, &st) != AV_OK) {
                printf("bench gpt2_forward n=%d skipped reason=out_of_memory\n", n);
                gpt2_state_free(&st);
                return;
            }
            t[rep] = now_ms() - t0, c[rep] = cpu_ms() - c0;
        }
        const double ms = median(t, reps[q]), flops = gpt2_flops(&w->cfg, 0, n);
        const double gf = flops / ms * 1e-6;
        const double flop_ms = peak > 0 ? flops / peak * 1e-6 : 0;
        const double bw_ms = gbs > 0 ? layer_bytes(&w->cfg) / gbs * 1e-6 : 0;
        const double roof = flop_ms > bw_ms ? flop_ms : bw_ms;
        const double ratio = roof > 0 ? ms / roof : 0;
        char target[48] = "target_ratio=none";
        if (n <= 32 && roof > 0)
            snprintf(target, sizeof target, "target_ratio=1.5 met=%s", ratio <= 1.5 ? "yes" : "no");
        printf("bench gpt2_forward n=%d ms=%.1f best_ms=%.1f cpu_ms=%.1f threads=%d gflops=%.1f "
               "peak_ratio=%.2f flop_ms=%.1f bw_ms=%.1f roof_ms=%.1f roof_ratio=%.2f %s reps=%d "
               "kernel=%s on=\"%s\"\n",
               n, ms, least(t, reps[q]), median(c, reps[q]), bench_threads(), gf,
               peak > 0 ? gf / peak : 0, flop_ms, bw_ms, roof, ratio, target, reps[q],
               gpt2_kernel(), on);
        fflush(stdout);
    }
    gpt2_state_free(&st);
}

/* One thread's half (t of threads) of a read of every matrix a typed key
 * streams: the layers' four and lm_head. The helper (t 1) sets go to 1
 * when it runs, then spins until the caller, its clock started, sets 2. */
typedef struct {
    const Gpt2Weights *w;
    int t, threads;
    float sum;
    atomic_int *go;
} ReadJob;

static void read_half(ReadJob *j, const float *data, size_t count)
{
    const size_t half = j->threads > 1 ? count / 2 / 32 * 32 : count;
    const float *from = j->t == 0 ? data : data + half;
    const size_t n = j->t == 0 ? half : count - half;
    j->sum += wide_sums() ? sum_floats8(from, n) : sum_floats(from, n);
}

static void *read_weights(void *arg)
{
    ReadJob *j = arg;
    const Gpt2Config *g = &j->w->cfg;
    const size_t D = (size_t)g->d_model, F = (size_t)g->d_ff;
    if (j->t == 1)
        for (atomic_store(j->go, 1); atomic_load(j->go) != 2;)
            ;
    for (int l = 0; l < g->n_layer; l++) {
        const Gpt2Layer *y = &j->w->layer[l];
        read_half(j, y->attn_w, 3 * D * D);
        read_half(j, y->proj_w, D * D);
        read_half(j, y->fc_w, D * F);
        read_half(j, y->fcproj_w, F * D);
    }
    read_half(j, j->w->lm_head, (size_t)g->n_vocab * D);
    return NULL;
}

/* Milliseconds to read the bytes a typed key streams, the model's own
 * weights where they lie, on `threads` threads, each summing half of
 * every matrix; the helper is started before the clock, as gpt2_forward's
 * is kept between keys. */
static double weights_read_ms(const Gpt2Weights *w, int threads)
{
    static volatile float sink;
    atomic_int go = 0;
    ReadJob j[2] = {{w, 0, threads, 0, &go}, {w, 1, threads, 0, &go}};
    pthread_t tid;
    const bool two = threads > 1 && pthread_create(&tid, NULL, read_weights, &j[1]) == 0;
    j[0].threads = two ? 2 : 1;
    while (two && atomic_load(&go) != 1)
        ;
    const double t0 = now_ms();
    atomic_store(&go, 2);
    read_weights(&j[0]);
    if (two)
        pthread_join(tid, NULL);
    const double ms = now_ms() - t0;
    sink = sink + j[0].sum + j[1].sum;
    return ms;
}

/* The keys of one length n on `threads` threads: KEY_REPS keys, each the
 * last token typed again (one position through the cache, then the
 * logits), against floor_ms, the layers' and lm_head's bytes read once at
 * the bandwidth of as many threads. */
static void key_line(const Gpt2Weights *w, int *ids, int n, int threads, double bytes,
                     double floor_ms, double cpu_floor_ms, Gpt2State *st, float *logits,
                     const char *on)
{
    double t[KEY_REPS], tf[KEY_REPS], c[KEY_REPS], rd[KEY_REPS];
    st->threads = threads;
    for (int rep = 0; rep < KEY_REPS; rep++) {
        rd[rep] = weights_read_ms(w, threads);
        ids[n - 1] = (ids[n - 1] + 1) % w->cfg.n_vocab; /* the last token typed again */
        double t0 = now_ms(), c0 = cpu_ms();
        gpt2_forward(w, ids, n, st);
        double t1 = now_ms();
        gpt2_logits(w, st, n - 1, logits);
        t[rep] = now_ms() - t0, tf[rep] = t1 - t0, c[rep] = cpu_ms() - c0;
    }
    const double ms = median(t, KEY_REPS), fms = median(tf, KEY_REPS);
    const double cms = median(c, KEY_REPS), ratio = floor_ms > 0 ? ms / floor_ms : 0;
    const double read = median(rd, KEY_REPS), read_ratio = ms / read;
    printf("bench gpt2_key n=%d threads=%d computed=%d ms=%.1f best_ms=%.1f cpu_ms=%.1f "
           "forward_ms=%.1f logits_ms=%.1f weights_mb=%.0f read_ms=%.1f read_ratio=%.2f "
           "best_read_ratio=%.2f target_ratio=1.25 met=%s floor_ms=%.1f ratio=%.2f "
           "cpu_ratio=%.2f kernel=%s on=\"%s\"\n",
           n, threads, n - st->from, ms, least(t, KEY_REPS), cms, fms, ms - fms, bytes / 1e6, read,
           read_ratio, least(t, KEY_REPS) / least(rd, KEY_REPS), read_ratio <= 1.25 ? "yes" : "no",
           floor_ms, ratio, cpu_floor_ms > 0 ? cms / cpu_floor_ms : 0, gpt2_kernel(), on);
    fflush(stdout);
}

/* A typed key at the end of 8, 32, 128 and 512 tokens, on one thread and on
 * two; gbs1 and gbs2 the read bandwidth of one and two threads, cpu_gbs1
 * one thread's by its processor time. */
static void bench_keys(const Gpt2Weights *w, int *ids, double gbs1, double gbs2, double cpu_gbs1,
                       const char *on)
{
    static const int lengths[] = {8, 32, 128, 512};
    const double bytes = layer_bytes(&w->cfg) + (double)w->cfg.n_vocab * w->cfg.d_model * 4;
    const double cpu_floor = cpu_gbs1 > 0 ? bytes / cpu_gbs1 * 1e-6 : 0;
    float *logits = malloc(sizeof *logits * (size_t)w->cfg.n_vocab);
    Gpt2State st;
    gpt2_state_init(&st);
    for (int q = 0; logits && q < 4 && lengths[q] <= w->cfg.n_ctx; q++) {
        gpt2_forward(w, ids, lengths[q], &st);
        for (int threads = 1; threads <= bench_threads(); threads++) {
            const double gbs = threads == 1 ? gbs1 : gbs2;
            key_line(w, ids, lengths[q], threads, bytes, gbs > 0 ? bytes / gbs * 1e-6 : 0,
                     cpu_floor, &st, logits, on);
        }
    }
    free(logits);
    gpt2_state_free(&st);
}

/* Words of one GPT-2 token each (with their leading space). */
static const char *const WORDS[] = {" the",   " cat",  " sat", " on",  " mat",  " and", " then",
                                    " it",    " was",  " a",   " dog", " that", " ran", " in",
                                    " house", " with", " big", " red", " door", " of"};
enum { N_WORDS = sizeof WORDS / sizeof *WORDS };

/* A text of at least n - 1 tokens (the key's word makes n) into buf. */
static int grow_text(Kind *k, const ModelConfig *c, ModelResult *r, int n, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "The");
    for (int i = 0; len + 16 < cap; i++) {
        if (kind_run(k, c, buf, len, NULL, 0, r) != AV_OK)
            return -1;
        if (r->shape.n_q >= n - 1)
            return (int)len;
        len += (size_t)snprintf(buf + len, cap - len, "%s", WORDS[(i * 7) % N_WORDS]);
    }
    return -1;
}

static void bench_kind_keys(const char *dir, const char *on)
{
    static const int lengths[] = {8, 32, 128};
    Kind k;
    char why[512], text[4096];
    if (kind_gpt2_load(&k, dir, NULL, NULL, why, sizeof why) != AV_OK) {
        printf("bench gpt2_key_kind skipped reason=open_failed why=\"%s\"\n", why);
        return;
    }
    ModelConfig c;
    ModelResult r;
    memset(&r, 0, sizeof r);
    model_config_default(&c);
    kind_config(&k, &c);
    const int V = kind_gpt2_config(&k)->n_vocab;
    float *logits = malloc(sizeof *logits * (size_t)V);
    for (int q = 0; logits && q < 3; q++) {
        int len = grow_text(&k, &c, &r, lengths[q], text, sizeof text - 16);
        if (len < 0) {
            printf("bench gpt2_key_kind n=%d skipped reason=run_failed\n", lengths[q]);
            break;
        }
        double t[KEY_REPS], tr[KEY_REPS], cp[KEY_REPS];
        int n = 0, got;
        for (int rep = 0; rep < KEY_REPS; rep++) {
            kind_run(&k, &c, text, (size_t)len, NULL, 0, &r); /* the text before the key */
            int more = snprintf(text + len, 16, "%s", WORDS[rep % N_WORDS]);
            double t0 = now_ms(), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
            int err = kind_run(&k, &c, text, (size_t)(len + more), NULL, 0, &r);
            double t1 = now_ms();
            if (!err)
                err = kind_logits(&k, text, (size_t)(len + more), -1, logits, V, &got);
            t[rep] = now_ms() - t0, tr[rep] = t1 - t0;
            cp[rep] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
            n = r.shape.n_q;
            text[len] = 0;
            if (err) {
                printf("bench gpt2_key_kind n=%d skipped reason=run_failed\n", lengths[q]);
                goto done;
            }
        }
        const double ms = median(t, KEY_REPS), rms = median(tr, KEY_REPS);
        printf("bench gpt2_key_kind n=%d ms=%.1f cpu_ms=%.1f run_ms=%.1f logits_ms=%.1f "
               "target_ms=%s on=\"%s\"\n",
               n, ms, median(cp, KEY_REPS), rms, ms - rms, n <= 33 ? "50" : "none", on);
        fflush(stdout);
    }
done:
    free(logits);
    model_result_free(&r);
    kind_close(&k);
}

void bench_gpt2(double peak_gflops, const char *dir, const char *on)
{
    HfModel m;
    char why[512];
    if (hfmodel_open(dir, &m, NULL, NULL, why, sizeof why) != AV_OK) {
        printf("bench gpt2 skipped reason=open_failed why=\"%s\"\n", why);
        return;
    }
    const Gpt2Config *g = &m.w.cfg;
    printf("bench gpt2_model V=%d T=%d D=%d H=%d L=%d params_m=%.1f dir=%s on=\"%s\"\n", g->n_vocab,
           g->n_ctx, g->d_model, g->n_head, g->n_layer, m.n_params / 1e6, dir, on);
    double gbs1, cpu_gbs, gbs;
    bandwidth_of_256mb(&gbs1, &cpu_gbs, &gbs);
    printf("bench gpt2_bandwidth read_gbs=%.1f cpu_gbs=%.1f read_gbs_2threads=%.1f mb=256 "
           "on=\"%s\"\n",
           gbs1, cpu_gbs, gbs, on);
    fflush(stdout);
    int *ids = malloc(sizeof *ids * (size_t)g->n_ctx);
    Rng r;
    rng_seed(&r, 5);
    for (int i = 0; ids && i < g->n_ctx; i++)
        ids[i] = (int)(rng_next(&r) % (uint64_t)g->n_vocab);
    if (ids) {
        bench_whole(&m.w, ids, peak_gflops, gbs, on);
        bench_keys(&m.w, ids, gbs1, gbs, cpu_gbs, on);
    }
    free(ids);
    hfmodel_close(&m);
    bench_kind_keys(dir, on);
}
