/* attention.c - multi-head scaled dot-product attention on caller buffers,
 * fast: the numbers of the plain reference, src/core/attention_ref.c (read
 * that for the formula; tests/core/test_attention_ref.c holds this to it).
 *
 * Heads are column slices of Q, K and V addressed in place through leading
 * dimensions, and each head's output lands directly in its columns of the
 * concatenation, so concat W_o needs no reshuffle. On a processor with AVX2
 * and FMA the heads' products past mat_sgemm_small take mat_sgemm_packed:
 * every head's K_h^T and V_h are packed once (the projection items pack the
 * rows they made; this and a fallback copy per thread are the only
 * allocations) and every row block is multiplied against them, where
 * cblas_sgemm packed all of K_h or V_h again for every block; a block is
 * made in parts whose weights stay in L2 from the scores to P_h V_h.
 *
 * The heads run in blocks of query rows: a block's scores are still in cache
 * while they are masked, softmaxed and multiplied by V_h, and under the
 * causal mask a block [i0, i1) computes only keys [0, i1), so the masked
 * upper triangle costs no arithmetic beyond the diagonal blocks (the packed
 * kernel skips even the tiles past the diagonal inside them). Large
 * problems run on two threads, the caller's and one this module starts once
 * a forward: both take items of each pass in turn and meet between passes,
 * the projections in items of rows (attn_proj.c), the heads in whole blocks
 * (scores, mask, softmax, P_h V_h). Concurrent single-thread cblas_sgemm
 * calls run in parallel (only calls that use OpenBLAS's own threads wait for
 * each other), so both cores make products. Every block is computed the
 * same way by whichever thread, so the heads' numbers do not depend on the
 * threads.
 *
 * With a pool plan in the buffers (attention.h), each block's final weights
 * are also folded into the plan's screen grids while in cache (attn_pool.c).
 *
 * A sentence's heads (at most SOFTMAX_LANES keys) take short_group instead:
 * scores, mask, softmax and P_h V_h of 16 query rows at a time across the
 * vector lanes, with the general path's numbers bit for bit; a sentence's
 * whole forward (forward_short) calls its passes directly, Q, K and V in one
 * pass over X, with no job, thread or barrier.
 */
#include "core/attention.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attn_kernels.h"
#include "core/av.h"
#include "core/mat.h"

/* Problems above this many floating-point operations use several threads. */
#define ATTN_THREADS_MIN_FLOPS 2e8

/* Bytes of weights a part of a block takes at a time on the packed path. */
#define SUB_BYTES (256L << 10)

/* The work of the heads: item k is row block k % blocks of head h0 + k / blocks.
 * Each item is made whole (scores, mask, softmax, P_h V_h) by whichever
 * thread takes it; concurrent single-thread cblas_sgemm calls run in
 * parallel (OpenBLAS 0.3.21 serialises only calls that use its own threads),
 * so two threads make both the products and the softmax on both cores. */
typedef struct {
    const AttnShape *s;
    const float *Q, *K, *V;
    float *S, *P, *concat; /* S may be NULL; concat NULL: weights only */
    int h0, H;             /* heads h0 .. h0+H-1 */
    int rows, blocks;      /* rows per block, blocks per head */
    bool gemm_only;        /* the bench's baseline: the products alone */
    bool short_rows;       /* n_k <= SOFTMAX_LANES: items run short_group */
    bool packed;           /* products past mat_sgemm_small run mat_sgemm_packed */
    const float *Kall;     /* every head's K_h^T packed by the projections, or NULL */
    const float *Vall;     /* every head's V_h packed, or NULL */
    atomic_int next;       /* the next item a thread takes */
} HeadJob;

/* Floats of one head's packed K_h^T and V_h. */
static size_t k_pack_floats(const AttnShape *s)
{
    return mat_packed_floats(s->d_model / s->H, s->n_k);
}

static size_t v_pack_floats(const AttnShape *s)
{
    return mat_packed_floats(s->n_k, s->d_model / s->H);
}

/* One thread's view of the job: its own copies of the current head's K_h^T
 * and V_h in mat_pack's panels (NULL: not packed), made when the thread first
 * takes an item of that head and used by all its items of the head. */
typedef struct {
    HeadJob *jb;
    float *Kp, *Vp;
    int k_head, v_head; /* the heads Kp and Vp hold, -1: none yet */
    AttnPoolAcc *pool;  /* this thread's grids of the forward's pool plan, or NULL */
} HeadWorker;

int attention_block_rows(const AttnShape *s)
{
    /* 128 rows: thin products lose their speed in OpenBLAS, which packs all
     * of K_h and V_h again for every call (blocks of 32 rows ran at half the
     * speed of 128: README "Performance"); past 2,048 keys 256, whose 4 MiB
     * of scores a thread still finds in L3 for the softmax and P_h V_h. */
    int rows = s->n_k > 2048 ? 256 : 128;
    return rows < s->n_q ? rows : s->n_q;
}

/* Mask and softmax rows [i0, i1) of head h, whose scaled scores are in P_h
 * (or S_h, when kept). P_h rows end up with exactly 0 on masked keys; S_h
 * rows keep -inf there. */
static void block_softmax(const AttnShape *s, float *S_h, float *P_h, int i0, int i1)
{
    const int n_k = s->n_k;
    for (int i = i0; i < i1; i++) {
        int vis = attention_visible_keys(s, i);
        float *row_i = P_h + (long)i * n_k;
        if (S_h) {
            float *s_i = S_h + (long)i * n_k;
            for (int j = vis; j < n_k; j++)
                s_i[j] = -INFINITY;
            memcpy(row_i, s_i, (size_t)vis * sizeof *row_i);
        }
        /* Masked keys take no part in the softmax: their weight is exactly 0. */
        attention_softmax_row(row_i, vis);
        memset(row_i + vis, 0, (size_t)(n_k - vis) * sizeof *row_i);
    }
}

/* Where item k lives: head h, rows [i0, i1), and its P_h and S_h. */
typedef struct {
    int h, i0, i1;
    float *P_h, *S_h;
} Item;

static Item item_at(const HeadJob *jb, int k)
{
    const long nn = (long)jb->s->n_q * jb->s->n_k;
    /* under the mask the last blocks see the most keys: they go first, so
     * that the threads finish together */
    int b = jb->s->causal ? jb->blocks - 1 - k % jb->blocks : k % jb->blocks;
    Item it = {.h = jb->h0 + k / jb->blocks, .i0 = b * jb->rows};
    it.i1 = it.i0 + jb->rows < jb->s->n_q ? it.i0 + jb->rows : jb->s->n_q;
    it.P_h = jb->P + (it.h - jb->h0) * nn;
    it.S_h = jb->S && !jb->gemm_only ? jb->S + (it.h - jb->h0) * nn : NULL;
    return it;
}

/* Rows [i0, i1) of head h of a sentence (n_k <= SOFTMAX_LANES): scores,
 * mask, softmax and, with concat, P_h V_h, SOFTMAX_LANES rows at a time. */
static void short_head(const AttnShape *s, int h, const float *Q, const float *K, const float *V,
                       float *S_h, float *P_h, float *concat, int i0, int i1)
{
    const int d = s->d_model, d_k = d / s->H;
    AttnShortHead sh = {
        .n_k = s->n_k,
        .d_model = d,
        .d_k = d_k,
        .scale = attention_scale(s),
        .Q_h = Q + h * d_k,
        .K_h = K + h * d_k,
        .V_h = concat ? V + h * d_k : NULL,
        .S_h = S_h,
        .P_h = P_h,
        .out = concat ? concat + h * d_k : NULL,
    };
    for (int g0 = i0; g0 < i1; g0 += SOFTMAX_LANES) {
        int m = i1 - g0 < SOFTMAX_LANES ? i1 - g0 : SOFTMAX_LANES, vis[SOFTMAX_LANES];
        for (int r = 0; r < m; r++)
            vis[r] = attention_visible_keys(s, g0 + r);
        attn_short_group(&sh, g0, m, vis);
    }
}

/* Scores of item k into S_h (when kept) or P_h. Under the mask, rows < i1
 * see keys < i1 only: the keys beyond are never multiplied. */
static void item_scores(HeadWorker *wk, Item it)
{
    const HeadJob *jb = wk->jb;
    const AttnShape *s = jb->s;
    const int d = s->d_model, d_k = d / s->H, n_k = s->n_k;
    if (jb->short_rows) { /* the whole item, softmax and values too */
        short_head(s, it.h, jb->Q, jb->K, jb->concat ? jb->V : NULL, it.S_h, it.P_h, jb->concat,
                   it.i0, it.i1);
        return;
    }
    const int kend = attention_visible_keys(s, it.i1 - 1), m = it.i1 - it.i0;
    float *T = (it.S_h ? it.S_h : it.P_h) + (long)it.i0 * n_k;
    assert(it.h < s->H && 0 <= it.i0 && it.i0 < it.i1 && it.i1 <= s->n_q);
    assert(kend >= 1 && kend <= n_k);
    const float *Q_i = jb->Q + (long)it.i0 * d + it.h * d_k, *Kp = NULL;
    if (jb->packed) {
        if (jb->Kall) {
            Kp = jb->Kall + it.h * k_pack_floats(s);
        } else if (wk->Kp) {
            if (wk->k_head != it.h) /* K_h^T (d_k, n_k), once per head and thread */
                mat_pack(true, d_k, n_k, jb->K + it.h * d_k, d, wk->Kp), wk->k_head = it.h;
            Kp = wk->Kp;
        }
    }
    if (Kp) {
        /* T (m, kend) = scale * Q_h[i0..i1) (m, d_k) K_h[0..kend)^T (d_k, kend) */
        /* under the mask row i0 + r wants keys below i0 + r + 1 only */
        mat_sgemm_packed_tri(m, kend, d_k, attention_scale(s), Q_i, d, Kp, d_k, T, n_k,
                             s->causal ? it.i0 + 1 : 0, 0);
        return;
    }
    /* T (m, kend) = scale * Q_h[i0..i1) (m, d_k) K_h[0..kend)^T (d_k, kend) */
    mat_sgemm(false, true, m, kend, d_k, attention_scale(s), Q_i, d, jb->K + it.h * d_k, d, 0.0f, T,
              n_k);
}

static void item_softmax(const HeadJob *jb, Item it)
{
    if (!jb->gemm_only && !jb->short_rows)
        block_softmax(jb->s, it.S_h, it.P_h, it.i0, it.i1);
}

/* concat rows of item k from its final weights, when concat is wanted. */
static void item_values(HeadWorker *wk, Item it)
{
    const HeadJob *jb = wk->jb;
    const AttnShape *s = jb->s;
    const int d = s->d_model, d_k = d / s->H, n_k = s->n_k;
    const int kend = attention_visible_keys(s, it.i1 - 1), m = it.i1 - it.i0;
    if (!jb->concat || jb->short_rows)
        return;
    const float *P_i = it.P_h + (long)it.i0 * n_k;
    float *out = jb->concat + (long)it.i0 * d + it.h * d_k;
    const float *Vp = NULL;
    if (jb->packed) {
        if (jb->Vall) {
            Vp = jb->Vall + it.h * v_pack_floats(s);
        } else if (wk->Vp) {
            if (wk->v_head != it.h) /* V_h (n_k, d_k), once per head and thread */
                mat_pack(false, n_k, d_k, jb->V + it.h * d_k, d, wk->Vp), wk->v_head = it.h;
            Vp = wk->Vp;
        }
    }
    if (Vp) {
        /* concat[i0..i1, h*d_k..] (m, d_k) = P_h[i0..i1) (m, kend) V_h[0..kend) (kend, d_k) */
        /* under the mask row i0 + r of P_h is zero from key i0 + r + 1 on */
        mat_sgemm_packed_tri(m, d_k, kend, 1.0f, P_i, n_k, Vp, n_k, out, d, 0,
                             s->causal ? it.i0 + 1 : 0);
        return;
    }
    /* concat[i0..i1, h*d_k..] (m, d_k) = P_h[i0..i1) (m, kend) V_h[0..kend) (kend, d_k) */
    mat_sgemm(false, false, m, d_k, kend, 1.0f, P_i, n_k, jb->V + it.h * d_k, d, 0.0f, out, d);
}

/* Rows the packed path takes at a time inside an item of m rows: scores,
 * softmax and P_h V_h of a part whose weights (SUB_BYTES of them) stay in
 * L2 between the three, a multiple of the kernel's 6-row tile. A row's
 * numbers are the same in any part (the packed kernel's sums do not depend
 * on the rows around them; past the diagonal it only adds exact zeros). */
static int sub_rows(const AttnShape *s, int m)
{
    long fit = SUB_BYTES / ((long)s->n_k * (long)sizeof(float)) / 6 * 6;
    return fit < 6 ? 6 : fit < m ? (int)fit : m;
}

/* Fold an item's final weights into this thread's pool grids. */
static void item_pool(AttnPoolAcc *acc, const AttnShape *s, Item it)
{
    int vis[256]; /* an item's rows: attention_block_rows gives at most 256 */
    assert(it.i1 - it.i0 <= 256);
    for (int i = it.i0; i < it.i1; i++)
        vis[i - it.i0] = attention_visible_keys(s, i);
    attn_pool_rows(acc, it.h, it.i0, it.i1, vis, it.P_h);
}

/* Take items until none is left, each one whole. */
static void *heads_worker(void *arg)
{
    HeadWorker *wk = arg;
    HeadJob *jb = wk->jb;
    const int items = jb->H * jb->blocks;
    for (int k; (k = atomic_fetch_add(&jb->next, 1)) < items;) {
        const Item it = item_at(jb, k);
        const int sub = jb->packed ? sub_rows(jb->s, it.i1 - it.i0) : it.i1 - it.i0;
        for (int a = it.i0; a < it.i1; a += sub) {
            Item part = it;
            part.i0 = a, part.i1 = it.i1 - a < sub ? it.i1 : a + sub;
            item_scores(wk, part);
            item_softmax(jb, part);
            if (wk->pool) /* the final weights, still in cache */
                item_pool(wk->pool, jb->s, part);
            item_values(wk, part);
        }
    }
    return NULL;
}

/* 64-byte aligned room for `floats` floats, or NULL. */
static float *panels_new(size_t floats)
{
    size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
    return aligned_alloc(64, bytes ? bytes : 64);
}

/* Room for the packed K_h^T and V_h of every worker, or none at all (then
 * every worker takes mat_sgemm): either way each item is computed the same
 * way by whichever thread takes it. */
static void workers_init(HeadWorker *wk, int threads, HeadJob *jb)
{
    bool ok = true;
    for (int t = 0; t < threads; t++) {
        wk[t] = (HeadWorker){.jb = jb, .k_head = -1, .v_head = -1};
        if (jb->packed && !jb->Kall) {
            wk[t].Kp = panels_new(k_pack_floats(jb->s));
            wk[t].Vp = jb->concat ? panels_new(v_pack_floats(jb->s)) : NULL;
            ok = ok && wk[t].Kp && (wk[t].Vp || !jb->concat);
        }
    }
    for (int t = 0; t < threads && !ok; t++) {
        free(wk[t].Kp), free(wk[t].Vp);
        wk[t].Kp = wk[t].Vp = NULL;
    }
}

/* fn(arg0) on this thread and, when two, fn(arg1) on one more, joined. */
static void run_pair(void *(*fn)(void *), void *arg0, void *arg1, bool two)
{
    pthread_t tid;
    bool second = two && pthread_create(&tid, NULL, fn, arg1) == 0;
    fn(arg0);
    if (second)
        pthread_join(tid, NULL);
}

/* Every item of jb, on this thread and (threads > 1) one more, which take
 * the items in turn. Each item is computed the same way by either thread,
 * so the numbers do not depend on the threads. */
static void heads_run(HeadJob *jb, int threads)
{
    HeadWorker wk[2];
    threads = threads > 1 && jb->H * jb->blocks > 1 ? 2 : 1;
    workers_init(wk, threads, jb);
    atomic_init(&jb->next, 0);
    run_pair(heads_worker, &wk[0], &wk[1], threads > 1);
    for (int t = 0; t < threads; t++)
        free(wk[t].Kp), free(wk[t].Vp);
}

/* Whether the heads' products take mat_sgemm_packed: on a processor that
 * runs it, for blocks whose products are past mat_sgemm_small (which the
 * interface's short texts keep, with their bits, and allocating nothing). */
static bool packed_pays(const AttnShape *s, int rows)
{
    const int d_k = s->d_model / s->H, n_k = s->n_k;
    if (n_k <= SOFTMAX_LANES || !mat_packed_available())
        return false;
    return !mat_small_fits(false, rows, n_k, d_k) || !mat_small_fits(false, rows, d_k, n_k);
}

int attention_threads(const AttnShape *s)
{
    double n_q = s->n_q, n_k = s->n_k, d = s->d_model;
    double flops = 4 * n_q * d * d + 4 * n_k * d * d + 4 * n_q * n_k * d;
    if (flops < ATTN_THREADS_MIN_FLOPS)
        return 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 2 ? 1 : 2;
}

void attention_head_weights(const AttnShape *s, int h, const float *Q, const float *K, float *S_h,
                            float *P_h)
{
    /* Q_h is (n_q, d_k), K_h is (n_k, d_k): columns h*d_k .. h*d_k+d_k-1 of Q, K */
    HeadJob jb = {.s = s,
                  .Q = Q,
                  .K = K,
                  .S = S_h,
                  .P = P_h,
                  .h0 = h,
                  .H = 1,
                  .rows = attention_block_rows(s),
                  .short_rows = s->n_k <= SOFTMAX_LANES};
    jb.packed = packed_pays(s, jb.rows);
    assert(h >= 0 && h < s->H);
    jb.blocks = (s->n_q + jb.rows - 1) / jb.rows;
    heads_run(&jb, 1);
}

/* The three passes of a forward on this thread and, when two, one more
 * (started once: a thread started per pass cost its stack's pages each
 * time); both take the items of a pass in turn and wait for each other
 * before the next pass. */
typedef struct {
    AttnProjJob *pj, *po;
    HeadWorker *wk;
    bool two;
    pthread_barrier_t bar;
} ForwardRun;

typedef struct {
    ForwardRun *fr;
    int t; /* 0: the calling thread, 1: the helper */
} ForwardArg;

static void *forward_worker(void *arg)
{
    ForwardArg *a = arg;
    ForwardRun *fr = a->fr;
    attn_proj_work(fr->pj);
    if (fr->two)
        pthread_barrier_wait(&fr->bar);
    heads_worker(&fr->wk[a->t]);
    if (fr->two)
        pthread_barrier_wait(&fr->bar);
    attn_proj_work(fr->po);
    return NULL;
}

static void forward_run(ForwardRun *fr, int threads)
{
    pthread_t tid;
    ForwardArg a0 = {fr, 0}, a1 = {fr, 1};
    fr->two = threads > 1 && pthread_barrier_init(&fr->bar, NULL, 2) == 0;
    if (fr->two && pthread_create(&tid, NULL, forward_worker, &a1) != 0) {
        pthread_barrier_destroy(&fr->bar);
        fr->two = false;
    }
    forward_worker(&a0);
    if (fr->two) {
        pthread_join(tid, NULL);
        pthread_barrier_destroy(&fr->bar);
    }
}

/* C (n, d) = X (n, d) W (d, d), as one projection item on one thread makes it. */
static void project(int n, int d, const float *X, const float *W, float *C)
{
    /* C (n, d) = X (n, d) W (d, d) */
    mat_sgemm(false, false, n, d, d, 1.0f, X, d, W, d, 0.0f, C, d);
}

/* A sentence's forward (n_k <= SOFTMAX_LANES, one thread): the passes of
 * forward() called directly, with its numbers bit for bit (each product is
 * the one mat_sgemm call an item would make, each head short_head), and
 * self-attention's Q, K and V in one pass over X when the small kernel takes
 * them (mat_sgemm_small_multi: the same sums). */
static void forward_short(const AttnShape *s, const float *Xq, const float *Xkv,
                          const AttnWeights *w, AttnBuffers *b, bool gemm_only)
{
    const int d = s->d_model, n_q = s->n_q, n_k = s->n_k;
    const long nn = (long)n_q * n_k;
    if (Xq == Xkv && n_q == n_k && mat_small_multi_fits(n_q, d, d)) {
        const float *W3[3] = {w->Wq, w->Wk, w->Wv};
        float *C3[3] = {b->Q, b->K, b->V};
        mat_sgemm_small_multi(b->V ? 3 : 2, n_q, d, d, Xq, d, W3, d, C3, d);
    } else {
        project(n_q, d, Xq, w->Wq, b->Q);
        project(n_k, d, Xkv, w->Wk, b->K);
        if (b->V)
            project(n_k, d, Xkv, w->Wv, b->V);
    }
    for (int h = 0; h < s->H; h++)
        short_head(s, h, b->Q, b->K, b->V, b->S && !gemm_only ? b->S + h * nn : NULL, b->P + h * nn,
                   b->concat, 0, n_q);
    if (!b->concat) /* the weights only */
        return;
    if (mat_small_multi_fits(n_q, d, d))
        mat_sgemm_small_multi(1, n_q, d, d, b->concat, d, &w->Wo, d, &b->out, d);
    else
        project(n_q, d, b->concat, w->Wo, b->out);
}

static int forward(const AttnShape *s, const float *Xq, const float *Xkv, const AttnWeights *w,
                   AttnBuffers *b, bool gemm_only)
{
    int err = attention_check(s);
    if (b->pool)
        b->pool->done = false;
    if (!err && !b->V && b->concat) /* the heads' outputs need V */
        err = AV_ERR_CONFIG;
    if (err)
        return err;
    const int d = s->d_model, n_q = s->n_q, n_k = s->n_k, threads = attention_threads(s);
    if (n_k <= SOFTMAX_LANES && threads == 1) {
        forward_short(s, Xq, Xkv, w, b, gemm_only);
        return AV_OK;
    }
    HeadJob jb = {.s = s,
                  .Q = b->Q,
                  .K = b->K,
                  .V = b->V,
                  .S = b->S,
                  .P = b->P,
                  .concat = b->concat,
                  .h0 = 0,
                  .H = s->H,
                  .rows = attention_block_rows(s),
                  .gemm_only = gemm_only,
                  .short_rows = n_k <= SOFTMAX_LANES};
    jb.packed = packed_pays(s, jb.rows);
    jb.blocks = (n_q + jb.rows - 1) / jb.rows;
    /* Every head's K_h^T and V_h packed once, by the projections, in one
     * allocation (without the room, each head thread packs its own copies) */
    const size_t kf = s->H * k_pack_floats(s), vf = b->concat ? s->H * v_pack_floats(s) : 0;
    float *packs = jb.packed ? panels_new(kf + vf) : NULL;
    float *vpacks = packs && vf ? packs + kf : NULL;
    jb.Kall = packs, jb.Vall = vpacks;
    /* Pass 1: Q (n_q, d) = Xq W_q; K, V (n_k, d) = Xkv W_k, Xkv W_v (V when wanted) */
    AttnProjJob pj = {.count = b->V ? 3 : 2,
                      .d = d,
                      .H = s->H,
                      .n = {n_q, n_k, n_k},
                      .X = {Xq, Xkv, Xkv},
                      .W = {w->Wq, w->Wk, w->Wv},
                      .C = {b->Q, b->K, b->V},
                      .Kall = packs,
                      .Vall = vpacks,
                      .k_head = k_pack_floats(s),
                      .v_head = v_pack_floats(s)};
    attn_proj_setup(&pj, threads);
    /* Pass 2: per head and row block: scores, mask, softmax, P_h V_h into
     * concat, each thread making single-thread calls. */
    HeadWorker wk[2];
    AttnPoolAcc pacc[2];
    const int workers = threads > 1 ? 2 : 1;
    workers_init(wk, workers, &jb);
    const bool pooling =
        b->pool && !gemm_only && b->P &&
        attn_pool_begin(n_q, n_k, s->H, s->causal, b->pool, pacc, workers) == AV_OK;
    for (int t = 0; t < workers; t++)
        wk[t].pool = pooling ? &pacc[t] : NULL;
    atomic_init(&jb.next, 0);
    /* Pass 3: out (n_q, d) = concat (n_q, d) W_o (d, d); none for the weights alone */
    AttnProjJob po = {.count = b->concat ? 1 : 0,
                      .d = d,
                      .H = s->H,
                      .n = {n_q},
                      .X = {b->concat},
                      .W = {w->Wo},
                      .C = {b->out}};
    attn_proj_setup(&po, threads);
    ForwardRun fr = {.pj = &pj, .po = &po, .wk = wk};
    forward_run(&fr, threads);
    if (pooling)
        attn_pool_end(pacc, workers);
    for (int t = 0; t < workers; t++)
        free(wk[t].Kp), free(wk[t].Vp);
    free(packs);
    return AV_OK;
}

size_t attention_heads_work(const AttnShape *s)
{
    if (attention_check(s) || !packed_pays(s, attention_block_rows(s)))
        return 0;
    return s->H * (k_pack_floats(s) + v_pack_floats(s));
}

int attention_heads_part(const AttnShape *s, int h0, int h1, const float *Q, const float *K,
                         const float *V, float *P, float *concat, float *work)
{
    int err = attention_check(s);
    if (err)
        return err;
    assert(0 <= h0 && h0 <= h1 && h1 <= s->H);
    if (h0 == h1)
        return AV_OK;
    const int d = s->d_model, d_k = d / s->H;
    HeadJob jb = {.s = s,
                  .Q = Q,
                  .K = K,
                  .V = V,
                  .P = P + (size_t)h0 * s->n_q * s->n_k,
                  .concat = concat,
                  .h0 = h0,
                  .H = h1 - h0,
                  .rows = attention_block_rows(s),
                  .short_rows = s->n_k <= SOFTMAX_LANES};
    jb.packed = work && packed_pays(s, jb.rows);
    jb.blocks = (s->n_q + jb.rows - 1) / jb.rows;
    if (jb.packed) { /* every head's K_h^T and V_h packed once, as the projections do */
        const size_t kf = k_pack_floats(s), vf = v_pack_floats(s);
        float *Vall = work + s->H * kf;
        for (int h = h0; h < h1; h++) {
            mat_pack(true, d_k, s->n_k, K + h * d_k, d, work + h * kf);
            mat_pack(false, s->n_k, d_k, V + h * d_k, d, Vall + h * vf);
        }
        jb.Kall = work, jb.Vall = Vall;
    }
    HeadWorker wk = {.jb = &jb, .k_head = -1, .v_head = -1};
    atomic_init(&jb.next, 0);
    heads_worker(&wk);
    return AV_OK;
}

int attention_heads(const AttnShape *s, const float *Q, const float *K, const float *V, float *P,
                    float *concat, float *work)
{
    return attention_heads_part(s, 0, s->H, Q, K, V, P, concat, work);
}

int attention_forward(const AttnShape *s, const float *Xq, const float *Xkv, const AttnWeights *w,
                      AttnBuffers *b)
{
    return forward(s, Xq, Xkv, w, b, false);
}

int attention_forward_gemm_only(const AttnShape *s, const float *Xq, const float *Xkv,
                                const AttnWeights *w, AttnBuffers *b)
{
    return forward(s, Xq, Xkv, w, b, true);
}
