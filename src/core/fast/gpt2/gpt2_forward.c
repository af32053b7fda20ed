/* gpt2_forward.c - GPT-2's forward pass with a KV cache (core/gpt2.h has
 * the maths), on one thread or two.
 *
 * The state holds every position's numbers of every layer, so a call whose
 * ids share a prefix with the last call's computes only the positions after
 * it: a new position's Q, K and V come from its own row, and its attention
 * reads the cached K and V of the earlier ones. gpt2_kern.c makes each row's
 * sums independent of the rows computed with it, so the cache changes no
 * bit.
 *
 * A layer is five steps; with two threads, the calling one and the state's
 * helper (duo.h: kept between calls, as starting a thread costs more than
 * a step) each do half of every step, and both wait at a barrier (duo.h:
 * it spins a few microseconds before it sleeps) before the next step reads
 * what the other wrote. The first to arrive asks the caches for the start
 * of its next weights while it waits (duo_wait_ahead):
 *
 *   1. a = LN1(x_l) (every row, by each thread into its own buffer: cheaper
 *      than a barrier for the few rows of a typed key), then its columns of
 *      Q | K | V = a attn_w + attn_b
 *   2. its heads: P_h and concat's columns of head h
 *   3. its columns of attn = concat proj_w + proj_b and of x' = x_l + attn
 *   4. a = LN2(x'), its columns of hidden = gelu(a fc_w + fc_b)
 *   5. its columns of hidden fcproj_w + fcproj_b, added to x'
 *
 * The columns are split where the weights' panels split them
 * (gpt2_panel_split, a multiple of 16, the direct kernel's tile), so each
 * thread reads its weights in one run where the reader laid them in panels
 * and runs the kernel it would run alone, and every element's sum is the
 * same chain (gpt2_kern.h) whichever thread computes it: the bits depend
 * neither on the threads nor on the layout. The logits, the logit lens and
 * the next token are read from the state by gpt2_logits.c.
 * No global state; allocates only when the state grows.
 */
#include "core/gpt2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hugemem.h"
#include "../duo.h"
#include "gpt2_fwd.h"
#include "gpt2_kern.h"

/* New rows up to which the heads read the blocks of cached keys a row at
 * a time rather than packing K and V. */
#define HEAD_ROWS_ONE 16

/* Bytes of its next weights a thread that waits at a barrier asks the
 * caches for: well within a core's L2 beside what the step keeps there. */
#define AHEAD_BYTES ((size_t)512 << 10)

/* Multiply-adds of the layers below which a run stays on one thread. */
#define LAYERS_THREADS_MIN_MACS 4e6

/* Threads a run of m new positions takes: st_threads when it is 1 or 2
 * (the state's setting), else 2 when the processor has two cores or more
 * and the work is large enough to repay the helper's start, else 1. */
int gpt2f_threads(const Gpt2Config *c, int m, int st_threads)
{
    if (st_threads == 1 || st_threads == 2)
        return st_threads;
    const double D = c->d_model, F = c->d_ff;
    if ((double)m * c->n_layer * (4 * D * D + 2 * D * F) < LAYERS_THREADS_MIN_MACS)
        return 1;
    return sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

/* One thread's buffers: a (m, D), P (m, n), the heads' and the linear
 * kernel's work. */
static size_t thread_floats(const Gpt2Config *c, int m, int n)
{
    const int D = c->d_model, d_k = D / c->n_head, K = D > c->d_ff ? D : c->d_ff;
    return (size_t)m * D + (size_t)m * n + gpt2k_head_work(m, n, d_k) + gpt2k_linear_work(K);
}

/* Floats of work layers_run needs for m new rows over n positions. */
static size_t work_floats(const Gpt2Config *c, int m, int n, int threads)
{
    return (size_t)m * c->d_ff + (size_t)threads * thread_floats(c, m, n);
}

/* y (m, D) = LN(x) g + b per row, rows of x ldx apart; the statistics in double. */
void gpt2f_layer_norm(int m, int D, const float *x, int ldx, const float *g, const float *b,
                      float eps, float *y)
{
    for (int i = 0; i < m; i++) {
        const float *x_i = x + (size_t)i * ldx;
        float *y_i = y + (size_t)i * D;
        double mean = 0, var = 0;
        for (int c = 0; c < D; c++)
            mean += x_i[c];
        mean /= D;
        for (int c = 0; c < D; c++)
            var += (x_i[c] - mean) * (x_i[c] - mean);
        const double rstd = 1.0 / sqrt(var / D + eps);
        for (int c = 0; c < D; c++)
            y_i[c] = (float)((x_i[c] - mean) * rstd) * g[c] + b[c];
    }
}

/* ------------------------------------------------- a thread's share of a layer */

typedef struct {
    const Gpt2Weights *w;
    Gpt2State *st;
    int p, n, threads;
    bool keep;
    float *hidden; /* (m, F), shared */
    DuoBarrier bar;
} LayersRun;

typedef struct {
    LayersRun *run;
    int t;          /* 0: the calling thread, 1: the helper */
    float *a, *P;   /* (m, D) and (m, n), this thread's */
    float *hw, *lw; /* the heads' and the linear kernel's work */
} LayersPart;

/* Thread t's share [*j0, *j1) of N columns: with two threads, the columns
 * of panel t (core/gpt2.h), else all. */
static void share(int N, int t, int threads, int *j0, int *j1)
{
    const int s = threads > 1 ? gpt2_panel_split(N) : N;
    *j0 = t == 0 ? 0 : s;
    *j1 = t == 0 ? s : N;
}

/* duo_wait_ahead on run's barrier for thread t, asking for the start of
 * its panel of W (K, N) (core/gpt2.h), the weights it reads next in one
 * run; a plain wait where W is NULL or lies row after row. */
static void wait_ahead(LayersRun *run, int t, const float *W, int K, int N)
{
    const float *at = NULL;
    size_t bytes = 0;
    if (W && run->w->panels && run->threads > 1) {
        const int s = gpt2_panel_split(N);
        at = t == 0 ? W : W + (size_t)K * s;
        bytes = (size_t)K * (size_t)(t == 0 ? s : N - s) * sizeof *W;
        bytes = bytes < AHEAD_BYTES ? bytes : AHEAD_BYTES;
    }
    duo_wait_ahead(&run->bar, at, bytes);
}

/* Y[:, j0..j1) = X W[:, j0..j1) + b[j0..j1) for m rows, W (K, N) lying in
 * panels or row after row (core/gpt2.h); work: the kernel's. */
static void linear_share(int m, int j0, int j1, int K, int N, const float *X, int ldx,
                         const float *W, bool panels, const float *b, float *Y, int ldy,
                         float *work)
{
    /* the columns in panel 0, [j0, min(j1, s)), then in panel 1, [max(j0, s),
     * j1); row after row is panel 1 alone (s 0), as gpt2_weight_index reads it */
    const int s = panels ? gpt2_panel_split(N) : 0, e0 = j1 < s ? j1 : s, c1 = j0 > s ? j0 : s;
    if (e0 > j0)
        gpt2k_linear(m, e0 - j0, K, X, ldx, W + j0, s, b + j0, Y + j0, ldy, work);
    if (j1 > c1)
        gpt2k_linear(m, j1 - c1, K, X, ldx, W + (size_t)K * s + (c1 - s), N - s, b + c1, Y + c1,
                     ldy, work);
}

/* Rows [p, n) of layer l's K and V for the heads [h0, h1), copied from qkv
 * into the state's blocks (core/gpt2.h), where a typed key's heads read
 * each head's keys in one run. */
static void kv_store(Gpt2State *st, const Gpt2Config *c, int l, int h0, int h1, int p, int n)
{
    const int L = c->n_layer, H = c->n_head, D = c->d_model, d_k = D / H;
    for (int i = p; i < n; i++) {
        const float *row = st->qkv + ((size_t)i * L + l) * 3 * D;
        const int r = i % GPT2_KV_BLOCK;
        for (int h = h0; h < h1; h++) {
            const size_t at = gpt2_kv_offset(L, H, d_k, i, l, h);
            const float *k = row + D + h * d_k;
            for (int q = 0; q < d_k; q++)
                st->kc[at + (size_t)q * GPT2_KV_BLOCK + r] = k[q];
            memcpy(st->vc + at + (size_t)r * d_k, row + 2 * D + h * d_k,
                   (size_t)d_k * sizeof(float));
        }
    }
}

/* One head's rows [p, n) a row at a time from the blocks of cached keys,
 * each as a typed key at its position (gpt2k_head_blocks: the bits of
 * gpt2k_head's row), where there are at most HEAD_ROWS_ONE of them:
 * cheaper than packing K and V for so few rows. P's rows n apart, O's
 * ldo. Returns false, touching nothing, where that is not the way. */
static bool head_rows(int p, int n, int d_k, float scale, const float *Q_h, int ldq,
                      const float *Kt, const float *V, size_t block, float *P, float *O, int ldo)
{
    if (n - p > HEAD_ROWS_ONE || !gpt2k_head_blocks(p + 1, d_k, scale, Q_h, Kt, V, block, P, O))
        return false;
    for (int i = p + 1; i < n; i++)
        gpt2k_head_blocks(i + 1, d_k, scale, Q_h + (size_t)(i - p) * ldq, Kt, V, block,
                          P + (size_t)(i - p) * n, O + (size_t)(i - p) * ldo);
    return true;
}

/* Step 2: this thread's heads of layer l over rows [p, n). */
static void heads_share(const LayersPart *pt, int l)
{
    const LayersRun *run = pt->run;
    Gpt2State *st = run->st;
    const Gpt2Config *c = &run->w->cfg;
    const int L = c->n_layer, H = c->n_head, D = c->d_model, d_k = D / H;
    const int p = run->p, n = run->n, m = n - p, ldq = L * 3 * D;
    const float *qkv = st->qkv + (size_t)l * 3 * D;
    const float scale = 1.0f / sqrtf((float)d_k);
    const int h0 = pt->t * H / run->threads, h1 = (pt->t + 1) * H / run->threads;
    kv_store(st, c, l, h0, h1, p, n);
    for (int h = h0; h < h1; h++) {
        const float *Q_h = qkv + (size_t)p * ldq + h * d_k;
        const float *K_h = qkv + D + h * d_k, *V_h = qkv + 2 * D + h * d_k;
        float *O = st->concat + ((size_t)p * L + l) * D + h * d_k;
        const size_t at = gpt2_kv_offset(L, H, d_k, 0, l, h);
        if (!head_rows(p, n, d_k, scale, Q_h, ldq, st->kc + at, st->vc + at,
                       (size_t)L * D * GPT2_KV_BLOCK, pt->P, O, L * D))
            gpt2k_head(p, n, d_k, scale, Q_h, ldq, K_h, V_h, ldq, pt->P, O, L * D, pt->hw);
        for (int r = 0; run->keep && r < m; r++) {
            const int i = p + r;
            float *dst = st->P + gpt2_P_offset(L, H, i) + ((size_t)l * H + h) * (i + 1);
            memcpy(dst, pt->P + (size_t)r * n, (size_t)(i + 1) * sizeof *dst);
        }
    }
}

/* Layer l over rows [p, n), this thread's share: reads x[.][l], writes
 * qkv, concat, attn and x[.][l + 1]. */
static void layer_share(const LayersPart *pt, int l)
{
    LayersRun *run = pt->run;
    Gpt2State *st = run->st;
    const Gpt2Config *c = &run->w->cfg;
    const Gpt2Layer *y = &run->w->layer[l], *next = l + 1 < c->n_layer ? y + 1 : NULL;
    const int L = c->n_layer, D = c->d_model, F = c->d_ff, m = run->n - run->p;
    const int ldx = (L + 1) * D, t = pt->t, T = run->threads;
    const bool pn = run->w->panels;
    const float *x_in = st->x + ((size_t)run->p * (L + 1) + l) * D;
    float *x_out = st->x + ((size_t)run->p * (L + 1) + l + 1) * D;
    float *qkv = st->qkv + ((size_t)run->p * L + l) * 3 * D;
    float *concat = st->concat + ((size_t)run->p * L + l) * D;
    float *attn = st->attn + ((size_t)run->p * L + l) * D;
    int j0, j1;
    gpt2f_layer_norm(m, D, x_in, ldx, y->ln1_g, y->ln1_b, c->ln_eps, pt->a);
    /* Q | K | V (m, 3D) = a (m, D) attn_w (D, 3D) + attn_b */
    share(3 * D, t, T, &j0, &j1);
    linear_share(m, j0, j1, D, 3 * D, pt->a, D, y->attn_w, pn, y->attn_b, qkv, L * 3 * D, pt->lw);
    duo_wait(&run->bar);
    heads_share(pt, l);
    duo_wait(&run->bar);
    /* attn (m, D) = concat (m, D) proj_w (D, D) + proj_b; x' = x_l + attn */
    share(D, t, T, &j0, &j1);
    linear_share(m, j0, j1, D, D, concat, L * D, y->proj_w, false, y->proj_b, attn, L * D, pt->lw);
    for (int r = 0; r < m; r++)
        for (int k = j0; k < j1; k++)
            x_out[(size_t)r * ldx + k] = x_in[(size_t)r * ldx + k] + attn[(size_t)r * L * D + k];
    wait_ahead(run, t, y->fc_w, D, F);
    gpt2f_layer_norm(m, D, x_out, ldx, y->ln2_g, y->ln2_b, c->ln_eps, pt->a);
    /* hidden (m, F) = gelu(a (m, D) fc_w (D, F) + fc_b) */
    share(F, t, T, &j0, &j1);
    linear_share(m, j0, j1, D, F, pt->a, D, y->fc_w, pn, y->fc_b, run->hidden, F, pt->lw);
    gpt2k_gelu(m, j1 - j0, run->hidden + j0, F);
    wait_ahead(run, t, y->fcproj_w, F, D);
    /* a (m, D) = hidden (m, F) fcproj_w (F, D) + fcproj_b; x' += a */
    share(D, t, T, &j0, &j1);
    linear_share(m, j0, j1, F, D, run->hidden, F, y->fcproj_w, pn, y->fcproj_b, pt->a, D, pt->lw);
    for (int r = 0; r < m; r++)
        for (int k = j0; k < j1; k++)
            x_out[(size_t)r * ldx + k] += pt->a[(size_t)r * D + k];
    wait_ahead(run, t, next ? next->attn_w : NULL, D, 3 * D);
}

static void layers_job(void *arg)
{
    const LayersPart *pt = arg;
    for (int l = 0; l < pt->run->w->cfg.n_layer; l++)
        layer_share(pt, l);
}

/* Every layer over rows [p, n) of st (whose x[.][0] rows hold the
 * embeddings): qkv, concat, attn, x and, when keep, st->P's rows of the new
 * positions. st->work holds work_floats(c, n - p, n, threads) floats. */
static void layers_run(const Gpt2Weights *w, int p, int n, bool keep, Gpt2State *st, int threads)
{
    const Gpt2Config *c = &w->cfg;
    const int m = n - p;
    LayersRun run = {.w = w, .st = st, .p = p, .n = n, .keep = keep, .hidden = st->work};
    LayersPart part[2];
    float *at = st->work + (size_t)m * c->d_ff;
    for (int t = 0; t < 2; t++) {
        part[t] = (LayersPart){.run = &run, .t = t, .a = at, .P = at + (size_t)m * c->d_model};
        part[t].hw = part[t].P + (size_t)m * n;
        part[t].lw = part[t].hw + gpt2k_head_work(m, n, c->d_model / c->n_head);
        at += threads > 1 ? thread_floats(c, m, n) : 0;
    }
    run.threads = threads > 1 && duo_init(&run.bar, 2) == 0 ? 2 : 1;
    if (run.threads > 1 && duo_helper_post(&st->helper, layers_job, &part[1]) != 0) {
        duo_destroy(&run.bar);
        run.threads = 1;
    }
    layers_job(&part[0]);
    if (run.threads > 1) {
        duo_helper_wait(st->helper);
        duo_destroy(&run.bar);
    }
}

/* ------------------------------------------------------------- the state */

void gpt2_state_init(Gpt2State *st)
{
    memset(st, 0, sizeof *st);
}

void gpt2_state_free(Gpt2State *st)
{
    duo_helper_stop(st->helper);
    free(st->ids), free(st->x), free(st->qkv), free(st->concat), free(st->attn);
    free(st->kc), free(st->vc), free(st->P), free(st->work);
    memset(st, 0, sizeof *st);
}

static int grow(void **p, size_t count, size_t size)
{
    void *q = realloc(*p, count * size);
    if (!q)
        return AV_ERR_NOMEM;
    *p = q;
    return AV_OK;
}

/* *p's `had` floats moved into room for `need`, the rest zeros, in
 * memory backed by huge pages (core/hugemem.h): a typed key's heads jump
 * from block to block, and with 4 KB pages nearly every block was a walk
 * of the page tables. */
static int kv_move(float **p, size_t had, size_t need)
{
    float *q = huge_alloc(need * sizeof *q);
    if (!q)
        return AV_ERR_NOMEM;
    if (had)
        memcpy(q, *p, had * sizeof *q);
    memset(q + had, 0, (need - had) * sizeof *q);
    free(*p);
    *p = q;
    return AV_OK;
}

/* The K and V blocks grown from room for `from` positions to `to`, the new
 * blocks zeros (a typed key's scores read a whole block); LD = L D. */
static int kv_grow(Gpt2State *st, size_t LD, int from, int to)
{
    const size_t block = LD * GPT2_KV_BLOCK, B = GPT2_KV_BLOCK;
    const size_t had = (from + B - 1) / B, need = (to + B - 1) / B;
    if (need <= had)
        return AV_OK;
    int err = kv_move(&st->kc, had * block, need * block);
    return err ? err : kv_move(&st->vc, had * block, need * block);
}

/* Room for n positions (doubling, at most n_ctx) and for the forward's work
 * on m new rows with `threads` threads. */
static int state_reserve(const Gpt2Config *c, Gpt2State *st, int n, int m, int threads)
{
    const size_t L = (size_t)c->n_layer, D = (size_t)c->d_model;
    if (st->L != c->n_layer || st->D != c->d_model) {
        const double budget = st->weights_budget; /* the caller's settings stay */
        const int st_threads = st->threads;
        DuoHelper *helper = st->helper; /* and the helper thread */
        st->helper = NULL;
        gpt2_state_free(st);
        st->L = c->n_layer, st->D = c->d_model, st->weights_budget = budget;
        st->threads = st_threads, st->helper = helper;
    }
    if (n > st->cap) {
        int cap = st->cap * 2 > n ? st->cap * 2 : n;
        cap = cap < 16 ? 16 : cap;
        cap = cap > c->n_ctx ? c->n_ctx : cap;
        if (kv_grow(st, L * D, st->cap, cap) != AV_OK)
            return AV_ERR_NOMEM;
        int err = grow((void **)&st->ids, (size_t)cap, sizeof(int));
        if (!err)
            err = grow((void **)&st->x, (size_t)cap * (L + 1) * D, sizeof(float));
        if (!err)
            err = grow((void **)&st->qkv, (size_t)cap * L * 3 * D, sizeof(float));
        if (!err)
            err = grow((void **)&st->concat, (size_t)cap * L * D, sizeof(float));
        if (!err)
            err = grow((void **)&st->attn, (size_t)cap * L * D, sizeof(float));
        if (err)
            return err;
        st->cap = cap;
    }
    const size_t need = work_floats(c, m, n, threads);
    if (need > st->work_cap) {
        free(st->work);
        st->work = malloc(need * sizeof *st->work);
        st->work_cap = st->work ? need : 0;
        if (!st->work)
            return AV_ERR_NOMEM;
    }
    return AV_OK;
}

/* Whether this run keeps P: its (L, H, n, n) weights within the budget. */
static bool keeps_P(const Gpt2Config *c, const Gpt2State *st, int n)
{
    double budget = st->weights_budget > 0 ? st->weights_budget : MODEL_BUDGET;
    return (double)c->n_layer * c->n_head * n * n * sizeof(float) <= budget;
}

static int reserve_P(const Gpt2Config *c, Gpt2State *st, int n)
{
    size_t need = gpt2_P_offset(c->n_layer, c->n_head, n);
    if (need <= st->p_cap)
        return AV_OK;
    size_t cap = st->p_cap * 2 > need ? st->p_cap * 2 : need;
    size_t most = gpt2_P_offset(c->n_layer, c->n_head, c->n_ctx);
    cap = cap > most ? most : cap;
    int err = grow((void **)&st->P, cap, sizeof(float));
    if (!err)
        st->p_cap = cap;
    return err;
}

/* ------------------------------------------------------------ the forward */

/* The first position to compute: where ids leave the cached ones. */
static int first_changed(const Gpt2State *st, const int *ids, int n, bool keep)
{
    int p = 0, most = st->n < n ? st->n : n;
    while (p < most && st->ids[p] == ids[p])
        p++;
    if (keep && st->p_rows < p) /* weights wanted that an earlier run did not keep */
        p = st->p_rows;
    return p;
}

int gpt2_forward(const Gpt2Weights *w, const int *ids, int n, Gpt2State *st)
{
    const Gpt2Config *c = &w->cfg;
    int err = gpt2_check(w);
    if (!err && n < 1)
        err = AV_ERR_EMPTY;
    if (!err && n > c->n_ctx)
        err = AV_ERR_TOO_MANY;
    for (int i = 0; !err && i < n; i++)
        if (ids[i] < 0 || ids[i] >= c->n_vocab)
            err = AV_ERR_CONFIG;
    if (err) {
        st->n = 0;
        return err;
    }
    const bool keep = keeps_P(c, st, n);
    const int p = st->L == c->n_layer && st->D == c->d_model ? first_changed(st, ids, n, keep) : 0;
    const int m = n - p > 0 ? n - p : 1, threads = gpt2f_threads(c, m, st->threads);
    err = state_reserve(c, st, n, m, threads);
    if (!err && keep)
        err = reserve_P(c, st, n);
    if (err) {
        st->n = 0;
        return err;
    }
    const int L = c->n_layer, D = c->d_model;
    for (int i = p; i < n; i++) {
        const float *e = w->wte + (size_t)ids[i] * D, *pos = w->wpe + (size_t)i * D;
        float *x_i = st->x + (size_t)i * (L + 1) * D;
        for (int k = 0; k < D; k++)
            x_i[k] = e[k] + pos[k];
        st->ids[i] = ids[i];
    }
    if (p < n)
        layers_run(w, p, n, keep, st, threads);
    st->n = n, st->from = p;
    st->p_rows = keep ? n : (st->p_rows < p ? st->p_rows : p);
    return AV_OK;
}
