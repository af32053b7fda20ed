/* bert_forward.c - a BERT-family encoder's forward pass (core/bert.h): the
 * embeddings and their LayerNorm, the post-LayerNorm blocks, the masked-LM
 * head's logits and the heads' value norms. With AVX2 and FMA every linear
 * layer is turned over, y^T = W x^T (bert_kern.h: the weights, stored (out,
 * in), read in place as the left operand, the sentence's few rows packed),
 * elsewhere mat_sgemm with nn.Linear's W^T as a transposed operand. A large
 * forward runs on the caller's thread and one helper, which split every
 * step and meet at a barrier (duo.h; the plan above layer_share); the
 * heads are attention_heads_part's, the kernel attnviz's own attention
 * runs. src/core/bert/bert_ref.c is the plain oracle it is tested against.
 * No global state.
 */
#include "core/bert.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/attention.h"
#include "core/mat.h"
#include "bert_kern.h"
#include "duo.h"

/* Room for n positions of w's shape; the arrays are sized for cap = n and
 * regrown only when the text or the model is larger. */
static int state_reserve(const BertWeights *w, int n, BertState *st, size_t work)
{
    const BertConfig *c = &w->cfg;
    const int L = c->n_layer, D = c->d_model, H = c->n_head;
    bool fits = n <= st->cap && st->L == L && st->D == D && st->H == H;
    if (!fits) {
        int threads = st->threads; /* the caller's, kept */
        bert_state_free(st);
        st->threads = threads;
        size_t nd = (size_t)n * D;
        st->ids = malloc(sizeof *st->ids * n);
        st->types = malloc(sizeof *st->types * n);
        st->x = malloc(sizeof *st->x * (L + 1) * nd);
        st->q = malloc(sizeof *st->q * L * nd);
        st->k = malloc(sizeof *st->k * L * nd);
        st->v = malloc(sizeof *st->v * L * nd);
        st->P = malloc(sizeof *st->P * (size_t)L * H * n * n);
        st->concat = malloc(sizeof *st->concat * L * nd);
        st->attn = malloc(sizeof *st->attn * L * nd);
        if (!st->ids || !st->types || !st->x || !st->q || !st->k || !st->v || !st->P ||
            !st->concat || !st->attn) {
            bert_state_free(st);
            st->threads = threads;
            return AV_ERR_NOMEM;
        }
        st->cap = n, st->L = L, st->D = D, st->H = H;
    }
    if (work > st->work_cap) {
        free(st->work);
        st->work = malloc(sizeof *st->work * work);
        st->work_cap = st->work ? work : 0;
        if (!st->work)
            return AV_ERR_NOMEM;
    }
    return AV_OK;
}

/* Each row of x (n, D) normalised in place: (x - mean) / sqrt(var + eps) * g + b,
 * the mean and variance summed in double. */
static void layer_norm_rows(float *x, int n, int D, const float *g, const float *b, float eps)
{
    for (int i = 0; i < n; i++) {
        float *row = x + (size_t)i * D;
        double mean = 0, var = 0;
        for (int c = 0; c < D; c++)
            mean += row[c];
        mean /= D;
        for (int c = 0; c < D; c++)
            var += (row[c] - mean) * (row[c] - mean);
        float m = (float)mean, inv = (float)(1.0 / sqrt(var / D + eps));
        for (int c = 0; c < D; c++)
            row[c] = (row[c] - m) * inv * g[c] + b[c];
    }
}

/* Products past this many multiply-adds go to two threads when there are
 * two processors (a helper thread costs tens of microseconds). */
#define BERT_TWO_MACS 4e6

/* The products' sums: each element is summed BERT_KB terms at a time, each
 * block a chain of fused multiply-adds in float from zero, the blocks added
 * in double, the bias too, and rounded once. One float chain over d_in
 * terms (3,072 in bert-base's MLP) carried enough rounding to move
 * bert-base's attention weights by 1.2e-5 from a float64 forward; the
 * blocks bring the chain's error down by about the square root of their
 * count, for a few additions a block. A chunk of BERT_CHUNK_FLOATS / n rows
 * of W (a multiple of 12, the kernel's tile) is finished before the next,
 * its sums in L1. */
enum { BERT_KB = 128, BERT_CHUNK_FLOATS = 1536 };

static int chunk_rows(int n)
{
    const int ch = BERT_CHUNK_FLOATS / n / 12 * 12;
    return ch < 12 ? 12 : ch;
}

/* Floats of one thread's scratch for n rows: a chunk's block sums in float
 * and their totals in double. */
static size_t chunk_floats(int n)
{
    return (size_t)3 * chunk_rows(n) * n + 2; /* 2: room to align the doubles */
}

typedef struct {
    const float *x, *W, *b;
    float *y;
    int n, d_in, d_out, o0, o1; /* output columns [o0, o1) */
    const float *xp;            /* x^T packed (mat_pack), or NULL: mat_sgemm */
    float *scratch;             /* chunk_floats(n), this thread's */
} LinPart;

/* Columns [o0, o1) of y (n, d_out) = x (n, d_in) W^T + b, turned over:
 * y^T's rows are W's rows times x^T, so W, stored (out, in), is read in
 * place as the left operand (bert_kern.h), and only the sentence's few
 * rows of x are packed, once for every call (without the packed kernel,
 * mat_sgemm on x, block by block). Each element's sum is fixed by BERT_KB
 * and d_in alone, whichever thread, chunk or tile computes it. */
static void linear_part(const LinPart *p)
{
    const int n = p->n, K = p->d_in, ch = chunk_rows(n);
    float *t = p->scratch;
    const uintptr_t at = (uintptr_t)(p->scratch + (size_t)ch * n);
    double *acc = (double *)(at + (-at & (sizeof(double) - 1)));
    for (int i0 = p->o0; i0 < p->o1; i0 += ch) {
        const int m = p->o1 - i0 < ch ? p->o1 - i0 : ch;
        const float *W = p->W + (size_t)i0 * K;
        if (p->xp) {
            bertk_linear_blocks(m, n, K, BERT_KB, W, K, p->xp, K, acc, n, t);
        } else {
            for (int k0 = 0; k0 < K; k0 += BERT_KB) {
                const int kb = K - k0 < BERT_KB ? K - k0 : BERT_KB;
                /* t (m, n) = W[:, k0..] (m, kb) x[:, k0..]^T (kb, n) */
                mat_sgemm(false, true, m, n, kb, 1.0f, W + k0, K, p->x + k0, K, 0.0f, t, n);
                for (size_t e = 0; e < (size_t)m * n; e++)
                    acc[e] = k0 ? acc[e] + t[e] : t[e];
            }
        }
        for (int i = 0; i < n; i++) {
            float *y_i = p->y + (size_t)i * p->d_out + i0;
            for (int o = 0; o < m; o++)
                y_i[o] = (float)(acc[(size_t)o * n + i] + p->b[i0 + o]);
        }
    }
}

static void *linear_thread(void *arg)
{
    linear_part(arg);
    return NULL;
}

static int processors(void)
{
    static int n;
    if (!n) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c < 1 ? 1 : c > 2 ? 2 : (int)c;
    }
    return n;
}

/* Floats of work linear needs for n rows of at most K inputs: x^T packed
 * (where the packed kernel runs) and two threads' scratch. */
static size_t linear_work(int n, int K)
{
    const size_t pack = mat_packed_available() ? mat_packed_floats(K, n) : 0;
    return (pack + 1) / 2 * 2 + 2 * chunk_floats(n);
}

/* y (n, d_out) = x (n, d_in) W^T + b, W (d_out, d_in) as nn.Linear stores it;
 * threads 0: two when the product repays a helper and there are two
 * processors. work: linear_work(n, d_in) floats. */
static void linear(const float *x, int n, int d_in, const float *W, const float *b, int d_out,
                   float *y, int threads, float *work)
{
    const size_t pack = mat_packed_available() ? mat_packed_floats(d_in, n) : 0;
    LinPart whole = {x, W, b, y, n, d_in, d_out, 0, d_out, NULL, work + (pack + 1) / 2 * 2};
    if (pack) { /* x^T (d_in, n) packed: the right operand of y^T = W x^T */
        mat_pack(true, d_in, n, x, d_in, work);
        whole.xp = work;
    }
    double macs = (double)n * d_in * d_out;
    if (threads == 0)
        threads = macs >= BERT_TWO_MACS ? processors() : 1;
    int half = d_out / 2 / 16 * 16; /* whole panels of 16 columns */
    pthread_t tid;
    if (threads < 2 || half < 16) {
        linear_part(&whole);
        return;
    }
    LinPart a = whole, c = whole;
    a.o1 = half, c.o0 = half;
    c.scratch = whole.scratch + chunk_floats(n);
    if (pthread_create(&tid, NULL, linear_thread, &c) != 0) {
        linear_part(&whole);
        return;
    }
    linear_part(&a);
    pthread_join(tid, NULL);
}

static void gelu_erf_rows(float *x, size_t count)
{
    for (size_t c = 0; c < count; c++)
        x[c] = 0.5f * x[c] * (1.0f + erff(x[c] * 0.70710678118654752f));
}

/* ------------------------------------------------ the layers on two threads
 *
 * The calling thread and one helper (started per forward) each take a share
 * of every step and meet at a barrier before the next step reads what the
 * other wrote; one thread runs the same steps alone. A layer, for thread t:
 *
 *   1. its output columns of Q, K and V (x^T packed in xp[0])
 *   2. its heads: P_h and concat's columns, packed into xp[1]
 *   3. its columns of attn = concat o_w^T + o_b, and of a = x + attn
 *   4. LN1 of its rows of a, packed into xp[0]
 *   5. its columns of hid = gelu(a fc_w^T + fc_b), packed into xp[1]
 *   6. its columns of x' = a + hid out_w^T + out_b
 *   7. LN2 of its rows of x', packed into xp[0] for the next layer
 *
 * Rows are split at a multiple of 16 (a packed panel's columns) and output
 * columns too; every element's sum is the same chain whichever thread makes
 * it, so the bits do not depend on the threads. Without the packed kernel
 * (no AVX2 and FMA) nothing is packed and the products are mat_sgemm's. */

typedef struct {
    const BertWeights *w;
    BertState *st;
    const AttnShape *s;
    int threads;
    DuoBarrier bar;
    float *a, *hid;    /* (n, D), (n, F) */
    float *xp[2];      /* x^T packed, two in turn: one read while the next is written */
    float *scratch[2]; /* each thread's chunk_floats(n) */
    float *pack;       /* the heads' work, or NULL */
    atomic_int err;
} BertRun;

/* Thread t's share [*i0, *i1) of N: the split at a multiple of 16. */
static void share16(int N, int t, int T, int *i0, int *i1)
{
    int half = T > 1 ? (N / 2 + 8) / 16 * 16 : N;
    half = half > N ? N : half;
    *i0 = t == 0 ? 0 : half;
    *i1 = t == 0 ? half : N;
}

/* y[:, o0..o1) = x (n, K) W[o0..o1)^T + b for thread t's columns, from
 * xp = x^T packed (or x itself through mat_sgemm). */
static void lin_share(const BertRun *run, int t, const float *x, const float *xp, int K,
                      const float *W, const float *b, int N, float *y)
{
    const int n = run->st->n;
    int o0, o1;
    share16(N, t, run->threads, &o0, &o1);
    LinPart p = {x, W, b, y, n, K, N, o0, o1, xp, run->scratch[t]};
    linear_part(&p);
}

/* LN of thread t's rows of x (n, D) in place, then their columns of x^T
 * packed into xp (when packing). */
static void norm_share(const BertRun *run, int t, float *x, const float *g, const float *b,
                       float *xp)
{
    const int n = run->st->n, D = run->st->D;
    int i0, i1;
    share16(n, t, run->threads, &i0, &i1);
    if (i1 <= i0)
        return;
    layer_norm_rows(x + (size_t)i0 * D, i1 - i0, D, g, b, run->w->cfg.ln_eps);
    if (xp)
        mat_pack_part(true, D, i1 - i0, x + (size_t)i0 * D, D, xp, D, 0, i0);
}

/* Rows [k0, k1) of x^T (columns k0.. of x, n rows ld apart) into xp of kp rows. */
static void pack_cols(const float *x, int ld, int k0, int k1, int n, float *xp, int kp)
{
    if (xp && k1 > k0)
        mat_pack_part(true, k1 - k0, n, x + k0, ld, xp, kp, k0, 0);
}

/* Layer l, thread t's share: st->x[l] (normed, packed in xp[0]) -> st->x[l + 1]. */
static void layer_share(BertRun *run, int t, int l)
{
    const BertLayer *y = &run->w->layer[l];
    BertState *st = run->st;
    const int n = st->n, D = st->D, F = run->w->cfg.d_ff, H = st->H, T = run->threads;
    const size_t nd = (size_t)n * D;
    float *x = st->x + l * nd, *x_next = st->x + (l + 1) * nd;
    float *q = st->q + l * nd, *k = st->k + l * nd, *v = st->v + l * nd;
    float *concat = st->concat + l * nd, *attn = st->attn + l * nd;
    float *xp0 = run->xp[0], *xp1 = run->xp[1];
    int c0, c1;
    lin_share(run, t, x, xp0, D, y->q_w, y->q_b, D, q);
    lin_share(run, t, x, xp0, D, y->k_w, y->k_b, D, k);
    lin_share(run, t, x, xp0, D, y->v_w, y->v_b, D, v);
    duo_wait(&run->bar);
    const int h0 = t * H / T, h1 = (t + 1) * H / T, d_k = D / H;
    int err = attention_heads_part(run->s, h0, h1, q, k, v, st->P + (size_t)l * H * n * n, concat,
                                   run->pack);
    if (err)
        atomic_store(&run->err, err);
    pack_cols(concat, D, h0 * d_k, h1 * d_k, n, xp1, D);
    duo_wait(&run->bar);
    lin_share(run, t, concat, xp1, D, y->o_w, y->o_b, D, attn);
    share16(D, t, T, &c0, &c1);
    for (int i = 0; i < n; i++)
        for (int c = c0; c < c1; c++)
            run->a[(size_t)i * D + c] = x[(size_t)i * D + c] + attn[(size_t)i * D + c];
    duo_wait(&run->bar);
    norm_share(run, t, run->a, y->ln1_g, y->ln1_b, xp0);
    duo_wait(&run->bar);
    lin_share(run, t, run->a, xp0, D, y->fc_w, y->fc_b, F, run->hid);
    share16(F, t, T, &c0, &c1);
    for (int i = 0; i < n; i++)
        gelu_erf_rows(run->hid + (size_t)i * F + c0, (size_t)(c1 - c0));
    pack_cols(run->hid, F, c0, c1, n, xp1, F);
    duo_wait(&run->bar);
    lin_share(run, t, run->hid, xp1, F, y->out_w, y->out_b, D, x_next);
    share16(D, t, T, &c0, &c1);
    for (int i = 0; i < n; i++)
        for (int c = c0; c < c1; c++)
            x_next[(size_t)i * D + c] += run->a[(size_t)i * D + c];
    duo_wait(&run->bar);
    norm_share(run, t, x_next, y->ln2_g, y->ln2_b, l + 1 < run->w->cfg.n_layer ? xp0 : NULL);
    duo_wait(&run->bar);
}

static void run_share(BertRun *run, int t)
{
    norm_share(run, t, run->st->x, run->w->emb_ln_g, run->w->emb_ln_b, run->xp[0]);
    duo_wait(&run->bar);
    for (int l = 0; l < run->w->cfg.n_layer; l++)
        layer_share(run, t, l);
}

static void *run_helper(void *arg)
{
    run_share(arg, 1);
    return NULL;
}

/* Threads a forward takes: the state's 1 or 2, else 2 on two processors
 * when the layers' products repay the helper. */
static int run_threads(const BertConfig *c, int n, int st_threads)
{
    if (st_threads == 1 || st_threads == 2)
        return st_threads;
    const double D = c->d_model, F = c->d_ff;
    const double macs = (double)n * c->n_layer * (4 * D * D + 2 * D * F);
    return macs >= BERT_TWO_MACS * c->n_layer ? processors() : 1;
}

/* Floats of work the layers take: a, hid, the two packs, y^T, the heads'. */
static size_t run_work(const BertConfig *c, int n, const AttnShape *s)
{
    const int D = c->d_model, F = c->d_ff, wide = D > F ? D : F;
    const size_t packs = mat_packed_available() ? 2 * mat_packed_floats(wide, n) : 0;
    return (size_t)n * D + (size_t)n * F + packs + linear_work(n, 0) + attention_heads_work(s);
}

/* Every layer over st (x[0] holding the embeddings before their LN). */
static int layers_run(const BertWeights *w, const AttnShape *s, BertState *st)
{
    const BertConfig *c = &w->cfg;
    const int n = st->n, D = c->d_model, F = c->d_ff, wide = D > F ? D : F;
    BertRun run = {.w = w, .st = st, .s = s, .a = st->work};
    run.hid = run.a + (size_t)n * D;
    float *p = run.hid + (size_t)n * F;
    if (mat_packed_available()) {
        run.xp[0] = p, run.xp[1] = p + mat_packed_floats(wide, n);
        p = run.xp[1] + mat_packed_floats(wide, n);
    }
    run.scratch[0] = p, run.scratch[1] = p + chunk_floats(n);
    p += 2 * chunk_floats(n);
    run.pack = attention_heads_work(s) ? p : NULL;
    atomic_init(&run.err, AV_OK);
    int threads = run_threads(c, n, st->threads);
    if (duo_init(&run.bar, threads) != 0) {
        if (duo_init(&run.bar, 1) != 0)
            return AV_ERR_NOMEM;
        threads = 1;
    }
    run.threads = threads;
    pthread_t tid;
    if (threads > 1 && pthread_create(&tid, NULL, run_helper, &run) != 0)
        run.threads = run.bar.threads = 1;
    run_share(&run, 0);
    if (run.threads > 1)
        pthread_join(tid, NULL);
    duo_destroy(&run.bar);
    return atomic_load(&run.err);
}

static int check_input(const BertWeights *w, const int *ids, const int *types, int n)
{
    const BertConfig *c = &w->cfg;
    if (bert_check(w) != AV_OK)
        return AV_ERR_CONFIG;
    if (n < 1)
        return AV_ERR_EMPTY;
    if (n > c->n_pos)
        return AV_ERR_TOO_MANY;
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= c->n_vocab ||
            (types && types[i] != 0 && (types[i] < 0 || types[i] >= c->n_types)))
            return AV_ERR_CONFIG;
    return AV_OK;
}

int bert_forward(const BertWeights *w, const int *ids, const int *types, int n, bool causal,
                 BertState *st)
{
    st->n = 0;
    int err = check_input(w, ids, types, n);
    if (err)
        return err;
    const BertConfig *c = &w->cfg;
    const int D = c->d_model;
    AttnShape s = {n, n, D, c->n_head, causal, true, 1.0f};
    if ((err = state_reserve(w, n, st, run_work(c, n, &s))) != AV_OK)
        return err;
    st->n = n, st->causal = causal;
    for (int i = 0; i < n; i++) {
        int ty = types ? types[i] : 0;
        st->ids[i] = ids[i], st->types[i] = ty;
        float *row = st->x + (size_t)i * D;
        const float *we = w->word + (size_t)ids[i] * D, *pe = w->pos + (size_t)i * D;
        for (int col = 0; col < D; col++)
            row[col] = we[col] + (w->type ? w->type[(size_t)ty * D + col] : 0.0f) + pe[col];
    }
    err = layers_run(w, &s, st);
    if (err)
        st->n = 0;
    return err;
}

int bert_mlm_logits(const BertWeights *w, const BertState *st, int i0, int count, float *out)
{
    const int D = w->cfg.d_model, V = w->cfg.n_vocab;
    if (!bert_has_mlm(w) || i0 < 0 || count < 1 || i0 + count > st->n || st->D != D ||
        st->L != w->cfg.n_layer)
        return AV_ERR_CONFIG;
    float *t = malloc(sizeof *t * ((size_t)count * D + linear_work(count, D)));
    if (!t)
        return AV_ERR_NOMEM;
    float *lw = t + (size_t)count * D;
    const float *x = st->x + ((size_t)st->L * st->n + i0) * D;
    linear(x, count, D, w->mlm_w, w->mlm_b, D, t, st->threads, lw);
    gelu_erf_rows(t, (size_t)count * D);
    layer_norm_rows(t, count, D, w->mlm_ln_g, w->mlm_ln_b, w->cfg.ln_eps);
    linear(t, count, D, w->decoder, w->mlm_bias, V, out, st->threads, lw);
    free(t);
    return AV_OK;
}

int bert_value_norms(const BertWeights *w, const BertState *st, int l, float *out)
{
    const BertConfig *c = &w->cfg;
    const int n = st->n, D = c->d_model, H = c->n_head, d_k = D / H;
    if (l < 0 || l >= c->n_layer || n < 1 || st->L != c->n_layer || st->D != D)
        return AV_ERR_CONFIG;
    float *u = malloc((size_t)n * D * sizeof *u);
    if (!u)
        return AV_ERR_NOMEM;
    const float *V = st->v + (size_t)l * n * D;
    for (int h = 0; h < H; h++) {
        /* u (n, D) = V_h (n, d_k) (o_w's columns h d_k ..)^T (d_k, D) */
        mat_sgemm(false, true, n, D, d_k, 1.0f, V + h * d_k, D, w->layer[l].o_w + h * d_k, D, 0.0f,
                  u, D);
        for (int j = 0; j < n; j++) {
            double sq = 0;
            for (int k = 0; k < D; k++)
                sq += (double)u[(size_t)j * D + k] * u[(size_t)j * D + k];
            out[(size_t)h * n + j] = (float)sqrt(sq);
        }
    }
    free(u);
    return AV_OK;
}
