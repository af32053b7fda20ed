/* bench.c - `make bench`: the speed and memory figures of issue 5, one line each.
 *
 *   bench machine    the processor (/proc/cpuinfo's model name, cpuid's family and
 *                    model), the BLAS library, its kernel and who chose it
 *                    (cli/blaskern.h: this program re-executes itself, as attnviz
 *                    does, when OpenBLAS fell back to an older kernel)
 *   bench peak       the machine's limit: the best 2-thread cblas_sgemm GFLOP/s
 *                    over large square products (2048 .. 4096), measured before
 *                    and after the forward passes; peak_used is the better one
 *   bench forward    attention_forward (d_model 512, 8 heads, weights kept) beside
 *                    its own matrix products alone (attention_forward_gemm_only):
 *                    the projections are single-thread cblas_sgemm calls on the
 *                    forward's two threads, the heads' products from n = 256 on
 *                    mat_sgemm_packed (thin.c's AVX2+FMA kernel; cblas_sgemm on
 *                    a processor without it); at n = 64 the head products are
 *                    small enough for mat.c's small kernel. roof_ms is
 *                    its floating-point operations at the peak's speed (under the
 *                    mask only the visible triangle's scores and weighted sums
 *                    count) and roof_ratio = ms / roof_ms; from n = 1,024 on
 *                    (peak=paired) one 2-thread 2048 product is timed between
 *                    repetitions and roof_ratio is the median of each
 *                    forward's ratio to the better sample beside it (the
 *                    machine's speed drifts from minute to minute here);
 *                    roof_ratio_best is the fastest forward against the best
 *                    sample, roof_ratio_run the median against the run's peak
 *   bench sgemm      the same products as one unblocked call each on OpenBLAS's
 *                    threads, as NumPy would make them: context, GFLOP/s
 *   bench pipeline   text -> model_run -> heatmap_draw into a Grid (d_model 32, 4 heads),
 *                    the model run up to the weights as a keystroke on the heatmaps
 *                    runs it: us the median of 9 batches of 2,000, best_us the fastest
 *   bench pipeline_whole  the same with the heads' outputs and W_o (batches in turn)
 *   bench rss        peak resident memory of a child doing one forward at n = 4096
 *   bench keystroke  ./attnviz on a pseudo-terminal (bench_tty.c): key written -> screen complete,
 *                    for selection moves and (keystroke_typing) for typed characters,
 *                    each of which re-tokenises, runs the model and redraws
 *   bench tty_bytes  bytes written for one selection move and one mask toggle
 *
 *   bench gpt2_*     a full-size gpt2-shaped checkpoint of random weights on disk
 *                    (made when missing): its load, resident memory, whole forward
 *                    passes and typed keys through the KV cache (bench_gpt2.c)
 *   bench bert_*     a BERT's whole forward at 32 tokens, bert-base's and
 *                    MiniLM-L6's shapes, against the peak (bench_bert.c)
 *
 * Usage: bench [--model | --interface | --gpt2 | --bert] [PATH_TO_ATTNVIZ]. Without a path, the
 * interface figures are skipped; --model gives only the machine, the peak, the pipeline
 * and the forward passes (what bench/reference.py puts beside NumPy and PyTorch),
 * --interface only the machine and the interface figures, --gpt2 only the machine, the
 * peak and GPT-2's figures (what bench/gpt2_reference.py puts beside PyTorch), --bert
 * only the machine, the peak and BERT's figures. GPT-2's
 * checkpoint is $ATTNVIZ_BENCH_GPT2, else $TMPDIR/attnviz-bench-gpt2 (or /tmp's);
 * run from the repository root (scripts/bench-gpt2-checkpoint.sh makes it).
 * Timings are medians; the whole run takes about two minutes on two cores.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_bert.h"
#include "bench_gpt2.h"
#include "bench_util.h"
#include "bench_tty.h"
#include "cli/blaskern.h"
#include "core/attention.h"
#include "core/cpu.h"
#include "render/grid.h"
#include "render/heatmap.h"
#include "core/mat.h"
#include "core/model.h"
#include "core/rng.h"

enum { D_MODEL = 512, HEADS = 8, MAX_REPS = 64 };

/* ------------------------------------------------------------------ forward */

typedef struct {
    int n;
    float *X, *W[4];
    AttnBuffers b;
} Problem;

static float *fill_new(Rng *r, size_t count, float std)
{
    float *x = malloc(count * sizeof *x);
    for (size_t k = 0; x && k < count; k++)
        x[k] = rng_symmetric(r, std);
    return x;
}

/* X (n, d) ~ U(-1, 1), W (d, d) of std sqrt(2/d) as the articles; S not kept. */
static int problem_init(Problem *p, int n)
{
    Rng r;
    size_t nd = (size_t)n * D_MODEL, dd = (size_t)D_MODEL * D_MODEL;
    rng_seed(&r, 42);
    memset(p, 0, sizeof *p);
    p->n = n;
    p->X = fill_new(&r, nd, 1.0f);
    for (int k = 0; k < 4; k++)
        p->W[k] = fill_new(&r, dd, sqrtf(2.0f / D_MODEL) * sqrtf(3.0f));
    float **bufs[] = {&p->b.Q, &p->b.K, &p->b.V, &p->b.concat, &p->b.out};
    for (int k = 0; k < 5; k++)
        *bufs[k] = malloc(nd * sizeof(float));
    p->b.P = malloc((size_t)HEADS * n * n * sizeof(float));
    bool ok = p->X && p->b.Q && p->b.K && p->b.V && p->b.concat && p->b.out && p->b.P;
    for (int k = 0; k < 4; k++)
        ok = ok && p->W[k];
    return ok ? 0 : -1;
}

static void problem_free(Problem *p)
{
    void *all[] = {p->X,   p->W[0], p->W[1],     p->W[2],  p->W[3], p->b.Q,
                   p->b.K, p->b.V,  p->b.concat, p->b.out, p->b.P};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        free(all[k]);
}

/* ------------------------------------------------------------ machine, peak */

/* /proc/cpuinfo's first "model name", or "unknown". */
static void cpu_model_name(char *out, size_t cap)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(out, cap, "unknown");
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        colon += strspn(colon + 1, " \t") + 1;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, cap, "%s", colon);
        break;
    }
    if (f)
        fclose(f);
}

/* "processor / kernel", for the lines that name the machine they came from. */
static char machine_on[160];

static void bench_machine(void)
{
    static const char *const levels[] = {"none", "sse3", "avx", "avx2", "avx512"};
    char name[256];
    CpuFeatures f;
    BlasKernInfo k;
    cpu_model_name(name, sizeof name);
    cpu_features_read(&f);
    blaskern_info(&k);
    printf("bench machine cpu=\"%s\" family=%d model=%d level=%s cpus=%ld blas=\"%s\" "
           "kernel=%s chosen_by=%s",
           name, f.family, f.model, levels[cpu_level(&f)], sysconf(_SC_NPROCESSORS_ONLN), k.library,
           k.kernel, k.chooser);
    snprintf(machine_on, sizeof machine_on, "%.100s / %s %s", name, k.library, k.kernel);
    if (k.fallback[0])
        printf(" openblas_chose=%s", k.fallback);
    if (k.could)
        printf(" processor_runs=%s", k.could);
    printf("\n");
    fflush(stdout);
}

/* Square operands for the peak's products. */
typedef struct {
    int n;
    float *A, *B, *C;
} PeakBufs;

static int peak_bufs_init(PeakBufs *pb, Rng *r, int n)
{
    pb->n = n;
    pb->A = fill_new(r, (size_t)n * n, 1.0f), pb->B = fill_new(r, (size_t)n * n, 1.0f);
    pb->C = malloc((size_t)n * n * sizeof *pb->C);
    return pb->A && pb->B && pb->C ? 0 : -1;
}

static void peak_bufs_free(PeakBufs *pb)
{
    free(pb->A), free(pb->B), free(pb->C);
}

/* The best GFLOP/s of reps 2-thread products C (n, n) = A (n, n) B (n, n).
 * OpenBLAS's threads spin a while after a call before they sleep: the pause
 * keeps them off the cores that what is measured next uses. */
static double peak_products(const PeakBufs *pb, int reps)
{
    const int threads = sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 1 : 2, n = pb->n;
    double best = 0;
    mat_set_threads(threads);
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now_ms();
        /* C (n, n) = A (n, n) B (n, n) */
        mat_sgemm(false, false, n, n, n, 1.0f, pb->A, n, pb->B, n, 0.0f, pb->C, n);
        double gflops = 2.0 * n * n * n / (now_ms() - t0) * 1e-6;
        best = gflops > best ? gflops : best;
    }
    mat_set_threads(1);
    usleep(200 * 1000);
    return best;
}

static double peak_sample(Rng *r, int n, int reps)
{
    PeakBufs pb;
    double g = peak_bufs_init(&pb, r, n) == 0 ? peak_products(&pb, reps) : 0;
    peak_bufs_free(&pb);
    return g;
}

/* The machine's limit: the best GFLOP/s of large square products
 * C (n, n) = A (n, n) B (n, n) on the threads the forward uses for its
 * projections, over a few sizes and repetitions. */
static double bench_peak(void)
{
    static const int sizes[] = {2048, 3072, 4096}, reps[] = {4, 2, 2};
    const int threads = sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 1 : 2;
    double best = 0;
    int best_n = 0;
    Rng r;
    rng_seed(&r, 7);
    for (int k = 0; k < 3; k++) {
        double g = peak_sample(&r, sizes[k], reps[k]);
        if (g > best)
            best = g, best_n = sizes[k];
    }
    if (best > 0)
        printf("bench peak threads=%d n=%d gflops=%.1f\n", threads, best_n, best);
    else
        printf("bench peak skipped reason=out_of_memory\n");
    fflush(stdout);
    return best;
}

/* Floating-point operations of the forward as a roofline counts them: four
 * projections and, per head, the scores and weighted sums of the visible
 * (query, key) pairs only: n_q n_k without the mask, the triangle with it. */
static double forward_roof_flops(const AttnShape *s)
{
    double d = s->d_model, pairs = 0;
    for (int i = 0; i < s->n_q; i++)
        pairs += attention_visible_keys(s, i);
    return 2.0 * d * d * (2.0 * s->n_q + 2.0 * s->n_k) + 2.0 * 2 * pairs * d;
}

typedef int (*ForwardFn)(const AttnShape *, const float *, const float *, const AttnWeights *,
                         AttnBuffers *);

static double time_call(Problem *p, const AttnShape *s, ForwardFn fn)
{
    AttnWeights w = {p->W[0], p->W[1], p->W[2], p->W[3]};
    double t0 = now_ms();
    fn(s, p->X, p->X, &w, &p->b);
    return now_ms() - t0;
}

/* What one forward shape measured: medians of the forward (ms) and of its
 * products alone (gm), the median of the per-repetition ratios; with the
 * peak paired (pb given), the better peak sample beside each repetition. */
typedef struct {
    AttnShape s;
    double ms, gm, ratio;
    int reps;
    bool paired;
    double tf[MAX_REPS], peak[MAX_REPS]; /* per repetition, in order */
} ForwardFigure;

/* Repetitions of the forward and of its products alone, the two interleaved
 * so that a busy machine slows both alike; with pb, one 2-thread product of
 * the peak's is timed between repetitions, and each repetition keeps the
 * better of the two beside it (its GFLOP/s beside the forward's time), so
 * that a slow minute slows both sides of the roofline ratio alike. */
static void time_forward(Problem *p, ForwardFigure *f, const PeakBufs *pb)
{
    double tf[MAX_REPS], tg[MAX_REPS], r[MAX_REPS];
    const AttnShape *s = &f->s;
    time_call(p, s, attention_forward);
    time_call(p, s, attention_forward_gemm_only);
    f->paired = pb != NULL;
    double before = pb ? peak_products(pb, 1) : 0;
    for (int k = 0; k < f->reps; k++) {
        f->tf[k] = tf[k] = time_call(p, s, attention_forward);
        tg[k] = time_call(p, s, attention_forward_gemm_only);
        r[k] = tf[k] / tg[k];
        /* the better of the samples either side: a slow sample does not
         * flatter the forward beside it */
        double after = pb ? peak_products(pb, 1) : 0;
        f->peak[k] = after > before ? after : before;
        before = after;
    }
    f->ms = median(tf, f->reps), f->gm = median(tg, f->reps), f->ratio = median(r, f->reps);
}

/* Flops of the products the forward makes: under the mask a block of rows
 * [i0, i1) multiplies by keys [0, i1) only (an upper bound where the packed
 * kernel also skips the tiles past the diagonal inside the block). */
static double forward_gemm_flops(const AttnShape *s)
{
    double d = s->d_model, n = s->n_q, keys = 0;
    int rows = attention_block_rows(s);
    for (int i0 = 0; i0 < s->n_q; i0 += rows) {
        int i1 = i0 + rows < s->n_q ? i0 + rows : s->n_q;
        keys += (double)(i1 - i0) * (s->causal ? i1 : s->n_k);
    }
    return 8 * n * d * d + 4 * keys * d;
}

/* The same products as NumPy makes them, one call each, OpenBLAS threads on. */
static void bench_full_sgemm(Problem *p, int threads, int reps)
{
    const int n = p->n, d = D_MODEL, d_k = D_MODEL / HEADS;
    double t[MAX_REPS];
    mat_set_threads(threads);
    for (int k = 0; k <= reps; k++) {
        double t0 = now_ms();
        for (int m = 0; m < 4; m++)
            /* Q (n, d) = X (n, d) W (d, d), and K, V, out alike */
            mat_sgemm(false, false, n, d, d, 1.0f, p->X, d, p->W[m], d, 0.0f, p->b.Q, d);
        for (int h = 0; h < HEADS; h++) {
            float *P_h = p->b.P + (size_t)h * n * n;
            /* P_h (n, n) = Q_h (n, d_k) K_h^T (d_k, n) */
            mat_sgemm(false, true, n, n, d_k, 0.125f, p->b.Q + h * d_k, d, p->b.K + h * d_k, d,
                      0.0f, P_h, n);
            /* concat_h (n, d_k) = P_h (n, n) V_h (n, d_k) */
            mat_sgemm(false, false, n, d_k, n, 1.0f / n, P_h, n, p->b.V + h * d_k, d, 0.0f,
                      p->b.concat + h * d_k, d);
        }
        if (k > 0)
            t[k - 1] = now_ms() - t0;
    }
    mat_set_threads(1);
    double ms = median(t, reps), flops = 8.0 * n * d * d + 4.0 * n * n * d;
    printf("bench sgemm n=%d shapes=unblocked threads=%d ms=%.2f gflops=%.1f\n", n, threads, ms,
           flops / ms * 1e-6);
    fflush(stdout);
    usleep(200 * 1000); /* OpenBLAS's threads spin a while before they sleep */
}

/* The forward lines, once the run's peak is known. roof_ms is the forward's
 * floating-point operations at the peak's speed and roof_ratio = ms /
 * roof_ms. peak=run: the run's peak (peak_used) against the median forward.
 * peak=paired: each repetition's forward time against the better peak
 * sample beside it, roof_ratio the median of those ratios, roof_ms at the median of
 * the samples; roof_ratio_best is the fastest forward against the best
 * sample (best of k on both sides), roof_ratio_run the median forward
 * against the run's peak. */
static void print_forward(const ForwardFigure *f, double peak_gflops)
{
    const double flops = forward_roof_flops(&f->s);
    double roof = peak_gflops > 0 ? flops / peak_gflops * 1e-6 : 0, ratio = 0, best = 0;
    if (f->paired) {
        double rr[MAX_REPS], pk[MAX_REPS], fast = f->tf[0], top = 0;
        int n = 0;
        for (int k = 0; k < f->reps; k++) {
            fast = f->tf[k] < fast ? f->tf[k] : fast;
            top = f->peak[k] > top ? f->peak[k] : top;
            if (f->peak[k] > 0)
                rr[n] = f->tf[k] / (flops / f->peak[k] * 1e-6), pk[n++] = f->peak[k];
        }
        roof = n ? flops / median(pk, n) * 1e-6 : 0, ratio = n ? median(rr, n) : 0;
        best = top > 0 ? fast / (flops / top * 1e-6) : 0;
    } else {
        ratio = roof > 0 ? f->ms / roof : 0;
    }
    printf("bench forward n=%d mask=%s threads=%d ms=%.3f sgemm_ms=%.3f ratio=%.3f "
           "sgemm_gflops=%.1f roof_ms=%.3f roof_ratio=%.3f gflops=%.1f peak=%s",
           f->s.n_q, f->s.causal ? "on" : "off", attention_threads(&f->s), f->ms, f->gm, f->ratio,
           forward_gemm_flops(&f->s) / f->gm * 1e-6, roof, ratio, flops / f->ms * 1e-6,
           f->paired ? "paired" : "run");
    if (f->paired) /* and against the run's peak, as the smaller sizes */
        printf(" peak_gflops=%.1f roof_ratio_best=%.3f roof_ratio_run=%.3f",
               roof > 0 ? flops / roof * 1e-6 : 0, best,
               peak_gflops > 0 ? f->ms / (flops / peak_gflops * 1e-6) : 0);
    printf("\n");
}

/* The forward passes, then the peak measured again: a busy machine that
 * slowed the first measurement does not flatter the ratios. From n = 1,024
 * on (the sizes the roofline targets are for) the peak is also sampled
 * between repetitions (PAIR_N, one product) and each forward is held to the
 * better sample beside it (print_forward). */
static void bench_forward(double peak_gflops)
{
    enum { PAIR_N = 2048, PAIR_FROM = 1024 };
    static const int sizes[] = {64, 256, 1024, 4096};
    static const int reps[] = {41, 15, 9, 7};
    ForwardFigure fig[8];
    int figs = 0;
    PeakBufs pb;
    Rng r;
    rng_seed(&r, 11);
    bool paired = peak_bufs_init(&pb, &r, PAIR_N) == 0;
    for (int k = 0; k < 4; k++) {
        Problem p;
        if (problem_init(&p, sizes[k])) {
            printf("bench forward n=%d skipped reason=out_of_memory\n", sizes[k]);
            problem_free(&p);
            continue;
        }
        for (int causal = 0; causal < 2; causal++) {
            ForwardFigure *f = &fig[figs++];
            f->s = (AttnShape){p.n, p.n, D_MODEL, HEADS, causal, true, 1.0f};
            f->reps = reps[k];
            time_forward(&p, f, paired && p.n >= PAIR_FROM ? &pb : NULL);
        }
        if (p.n >= 1024)
            bench_full_sgemm(&p, 2, reps[k]);
        problem_free(&p);
    }
    peak_bufs_free(&pb);
    double again = bench_peak();
    peak_gflops = again > peak_gflops ? again : peak_gflops;
    printf("bench peak_used gflops=%.1f\n", peak_gflops);
    for (int k = 0; k < figs; k++)
        print_forward(&fig[k], peak_gflops);
    fflush(stdout);
}

/* ----------------------------------------------------------------- pipeline */

static const char SENTENCE10[] = "the cat sat on the mat because it was tired";

/* One keystroke's work without the terminal: the model, then head 1 drawn. */
static int pipeline_once(const ModelConfig *c, const ModelWeights *w, ModelResult *r, Grid *g,
                         const char **labels)
{
    int err = model_run(c, w, SENTENCE10, sizeof SENTENCE10 - 1, NULL, 0, r);
    if (err)
        return err;
    for (int i = 0; i < r->tokens.n && i < 64; i++)
        labels[i] = r->tokens.tok[i].str;
    HeatmapSpec sp = {
        .P = r->layer[0].ab.P,
        .n_q = r->shape.n_q,
        .n_k = r->shape.n_k,
        .row_labels = labels,
        .col_labels = labels,
        .causal = r->shape.causal,
        .mode = HEATMAP_COLOR,
        .sel_row = 0,
        .sel_col = -1,
        .label_w = 12,
    };
    HeatmapLayout lay;
    grid_clear(g);
    heatmap_draw(g, 0, 0, g->w, g->h, &sp, &lay);
    return AV_OK;
}

/* The sentence's keystroke as the interface runs it on the heatmaps (up to
 * the weights: ModelConfig.weights_only) and whole (the heads' outputs and
 * W_o too, as the pipeline view and the trace get it), batches of the two in
 * turn so that the machine's drift falls on both alike. */
static void bench_pipeline(void)
{
    ModelConfig c[2];
    ModelWeights w = {0};
    ModelResult r[2];
    Grid g = {0};
    const char *labels[64];
    memset(r, 0, sizeof r);
    model_config_default(&c[0]);
    c[0].weights_only = true;
    c[1] = c[0];
    c[1].weights_only = false;
    if (model_weights_toy(&c[0], &w) || grid_init(&g, 120, 40) ||
        pipeline_once(&c[0], &w, &r[0], &g, labels) ||
        pipeline_once(&c[1], &w, &r[1], &g, labels)) {
        printf("bench pipeline skipped reason=setup_failed\n");
        goto done;
    }
    enum { BATCHES = 9, CALLS = 2000 };
    double us[2][BATCHES];
    for (int b = 0; b < BATCHES; b++)
        for (int v = 0; v < 2; v++) {
            double t0 = now_ms();
            for (int k = 0; k < CALLS; k++)
                pipeline_once(&c[v], &w, &r[v], &g, labels);
            us[v][b] = (now_ms() - t0) * 1e3 / CALLS;
        }
    static const char *const name[2] = {"pipeline", "pipeline_whole"};
    for (int v = 0; v < 2; v++) {
        double med = median(us[v], BATCHES); /* sorts us[v] */
        printf("bench %s n=%d d_model=%d heads=%d outputs=%s us=%.2f best_us=%.2f\n", name[v],
               r[v].shape.n_q, c[v].d_model, c[v].H, v ? "yes" : "no", med, us[v][0]);
    }
done:
    fflush(stdout);
    for (int v = 0; v < 2; v++)
        model_result_free(&r[v]);
    model_weights_free(&w);
    grid_free(&g);
}

/* ---------------------------------------------------------------------- rss */

/* In a child that does nothing else: one forward at n (weights kept, scores
 * not), then the peak RSS; its exit status carries nothing, a pipe the number. */
static void bench_rss(int n)
{
    int fd[2];
    if (pipe(fd)) {
        printf("bench rss skipped reason=pipe\n");
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        Problem p;
        long kib = -1;
        if (problem_init(&p, n) == 0) {
            AttnShape s = {n, n, D_MODEL, HEADS, false, true, 1.0f};
            AttnWeights w = {p.W[0], p.W[1], p.W[2], p.W[3]};
            struct rusage ru;
            if (attention_forward(&s, p.X, p.X, &w, &p.b) == AV_OK &&
                getrusage(RUSAGE_SELF, &ru) == 0)
                kib = ru.ru_maxrss;
        }
        ssize_t wr = write(fd[1], &kib, sizeof kib);
        _exit(wr == sizeof kib ? 0 : 1);
    }
    close(fd[1]);
    long kib = -1;
    if (pid < 0 || read(fd[0], &kib, sizeof kib) != sizeof kib)
        kib = -1;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    double weights = (double)HEADS * n * n * 4 / (1 << 20), peak = kib / 1024.0;
    if (kib < 0)
        printf("bench rss n=%d skipped reason=child_failed\n", n);
    else
        printf("bench rss n=%d heads=%d peak_mib=%.1f weights_mib=%.1f ratio=%.3f\n", n, HEADS,
               peak, weights, peak / weights);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    blaskern_ensure(argv); /* attnviz's kernel choice, for this program too */
    bool model_only = argc > 1 && strcmp(argv[1], "--model") == 0;
    bool ui_only = argc > 1 && strcmp(argv[1], "--interface") == 0;
    bool gpt2_only = argc > 1 && strcmp(argv[1], "--gpt2") == 0;
    bool bert_only = argc > 1 && strcmp(argv[1], "--bert") == 0;
    const int at = 1 + (model_only || ui_only || gpt2_only || bert_only); /* the program's path */
    const char *prog = argc > at ? argv[at] : NULL;
    double t0 = now_ms();
    signal(SIGPIPE, SIG_IGN);
    mat_set_threads(1);
    bench_machine();
    if (!model_only && !ui_only && !gpt2_only && !bert_only)
        bench_rss(4096); /* first, while this process is still small */
    if (bert_only) {
        bench_bert(bench_peak(), machine_on);
        printf("bench total_s=%.1f\n", (now_ms() - t0) / 1e3);
        return 0;
    }
    char gpt2_dir[1024];
    bench_gpt2_dir(gpt2_dir, sizeof gpt2_dir);
    bool gpt2 = !model_only && !ui_only && bench_gpt2_checkpoint(gpt2_dir) == 0;
    if (gpt2)
        bench_gpt2_load(gpt2_dir, machine_on); /* as small, in a child */
    if (gpt2_only) {
        if (gpt2)
            bench_gpt2(bench_peak(), gpt2_dir, machine_on);
        printf("bench total_s=%.1f\n", (now_ms() - t0) / 1e3);
        return 0;
    }
    if (!ui_only) {
        double peak = bench_peak();
        bench_pipeline();
        bench_forward(peak);
        if (gpt2)
            bench_gpt2(peak, gpt2_dir, machine_on);
        bench_bert(peak, machine_on);
    }
    if (prog && !model_only)
        bench_interface(prog);
    else if (!model_only)
        printf("bench keystroke skipped reason=no_program_given\n");
    printf("bench total_s=%.1f\n", (now_ms() - t0) / 1e3);
    return 0;
}
