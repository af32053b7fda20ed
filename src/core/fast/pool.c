/* pool.c - attention weights in row blocks, pooled for the screen, and a
 * forward pass whose memory does not grow with n^2.
 *
 * Pooling reads every weight of the cells, except in pool_head_sampled,
 * which bounds the weights read by taking, in a cell that covers more query
 * rows than its share of the budget, that many rows spread evenly over the
 * cell (all of their columns): what the interface draws of a large imported
 * array, where a layer of every weight is 200 MB.
 *
 * Kept weights of a large head are pooled on two threads, the caller's and
 * one started for the call, which take whole cell rows in turn: each cell
 * row is made the same way by either, so the cells do not depend on the
 * threads. Rows computed on demand or read from a source stay on one.
 */
#include "core/pool.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "attn_kernels.h"
#include "core/av.h"
#include "core/mat.h"

/* Kept weights pooled at once from which two threads pay: a 2,048-token
 * head (4 M weights) takes far longer on one core than a thread takes to
 * start (README "Performance"). */
#define POOL_THREADS_MIN (1L << 18)

void pool_rows(const AttnShape *s, int h, const float *Q, const float *K, int i0, int i1,
               float *out)
{
    const int d = s->d_model, d_k = d / s->H, n_k = s->n_k, rows = i1 - i0;
    assert(i0 >= 0 && i1 <= s->n_q && rows >= 0);
    /* out (rows, n_k) = scale * Q_h[i0..i1) (rows, d_k) K_h^T (d_k, n_k) */
    mat_sgemm(false, true, rows, n_k, d_k, attention_scale(s), Q + (size_t)i0 * d + h * d_k, d,
              K + h * d_k, d, 0.0f, out, n_k);
    for (int r = 0; r < rows; r++) {
        int vis = attention_visible_keys(s, i0 + r);
        float *row = out + (size_t)r * n_k;
        attention_softmax_row(row, vis);
        for (int j = vis; j < n_k; j++)
            row[j] = 0.0f;
    }
}

/* Four floats at a time, the vectors of any x86-64 (wider ones went through
 * the stack in the default build); gcc -O2 vectorises only loops without a
 * remainder, so the chunks are explicit. */
typedef float Pool4 __attribute__((vector_size(4 * sizeof(float))));
typedef int32_t PoolI4 __attribute__((vector_size(4 * sizeof(int32_t))));

static inline Pool4 fold4(Pool4 a, Pool4 b, PoolMode mode)
{
    if (mode != POOL_MAX)
        return a + b;
    PoolI4 m = b > a; /* lanes where b > a take b: a select by bits */
    return (Pool4)(((PoolI4)b & m) | ((PoolI4)a & ~m));
}

/* col[j] += r[j] (POOL_MEAN) or col[j] = max(col[j], r[j]) for j < len. */
static void col_fold4(float *restrict col, const float *restrict r, int len, PoolMode mode)
{
    int j = 0;
    for (; j + 8 <= len; j += 8) {
        Pool4 a0, a1, b0, b1;
        memcpy(&a0, col + j, sizeof a0);
        memcpy(&a1, col + j + 4, sizeof a1);
        memcpy(&b0, r + j, sizeof b0);
        memcpy(&b1, r + j + 4, sizeof b1);
        a0 = fold4(a0, b0, mode), a1 = fold4(a1, b1, mode);
        memcpy(col + j, &a0, sizeof a0);
        memcpy(col + j + 4, &a1, sizeof a1);
    }
    for (; j < len; j++)
        col[j] = mode == POOL_MAX ? (r[j] > col[j] ? r[j] : col[j]) : col[j] + r[j];
}

#if defined(__x86_64__) && defined(__GNUC__)
/* col_fold in AVX2, 32 floats a step: vmaxps(r, col) is r > col ? r : col,
 * fold4's select, and the sums are the same additions; the tail as before. */
__attribute__((target("avx2"))) static void col_fold8(float *restrict col, const float *restrict r,
                                                      int len, PoolMode mode)
{
    int j = 0;
    for (; j + 32 <= len; j += 32)
        for (int q = 0; q < 32; q += 8) {
            __m256 a = _mm256_loadu_ps(col + j + q), b = _mm256_loadu_ps(r + j + q);
            a = mode == POOL_MAX ? _mm256_max_ps(b, a) : _mm256_add_ps(a, b);
            _mm256_storeu_ps(col + j + q, a);
        }
    col_fold4(col + j, r + j, len - j, mode);
}

static bool col_fold_wide(void)
{
    return softmax_x86_available(); /* AVX2 */
}
#else
static void col_fold8(float *restrict col, const float *restrict r, int len, PoolMode mode)
{
    col_fold4(col, r, len, mode);
}

static bool col_fold_wide(void)
{
    return false;
}
#endif

/* col[j] += r[j] (POOL_MEAN) or col[j] = max(col[j], r[j]) for j < len, in
 * AVX2 where the processor has it (wide). */
static void col_fold(float *restrict col, const float *restrict r, int len, PoolMode mode,
                     bool wide)
{
    if (wide)
        col_fold8(col, r, len, mode);
    else
        col_fold4(col, r, len, mode);
}

/* Fold one weight row into the cell row's column accumulator col (the
 * columns [c0, c1), only the keys row i sees) and count its visible keys per
 * cell: *whole counts the rows that see every column, count[x] the keys the
 * others see of cell x (columns [edge[x], edge[x + 1]) from c0). Each
 * column's sum or maximum over the rows is an elementwise loop in vectors;
 * a sum along the row into each cell (as before) is a chain of dependent
 * additions the compiler may not reorder. */
static void pool_row(const AttnShape *s, int i, const float *row, int c0, int c1, int gw,
                     const int *edge, PoolMode mode, float *restrict col, int *count, int *whole,
                     bool wide)
{
    const int vis = attention_visible_keys(s, i) - c0, end = vis < c1 - c0 ? vis : c1 - c0;
    if (end <= 0)
        return;
    col_fold(col, row + c0, end, mode, wide);
    if (end == c1 - c0) {
        ++*whole;
        return;
    }
    for (int x = 0; x < gw && edge[x] < end; x++)
        count[x] += (edge[x + 1] < end ? edge[x + 1] : end) - edge[x];
}

/* The cells of a cell row from its column accumulator: each cell's columns
 * summed (or their maximum) in order, then the mean. */
static void pool_finish(int gw, const int *edge, PoolMode mode, const float *col, float *acc,
                        const int *count, int whole)
{
    for (int x = 0; x < gw; x++) {
        float a = 0.0f;
        for (int j = edge[x]; j < edge[x + 1]; j++)
            a = mode == POOL_MAX ? (col[j] > a ? col[j] : a) : a + col[j];
        int n = count[x] + whole * (edge[x + 1] - edge[x]);
        acc[x] = n == 0 ? POOL_MASKED : mode == POOL_MEAN ? a / n : a;
    }
}

/* Where pool_grid's rows come from: kept weights, Q and K, or an AttnSource;
 * per_cell > 0: at most that many rows of a cell are read (P_h or src only). */
typedef struct {
    const float *Q, *K, *P_h;
    const AttnSource *src;
    int l;
    int per_cell;
    bool wide; /* col_fold in AVX2 (pool_grid sets it) */
} PoolRows;

/* The k-th of the `take` rows read of a cell of rows [i0, i1): the middles of
 * `take` equal parts. */
static int sample_row(int i0, int i1, int k, int take)
{
    return i0 + (int)(((2L * k + 1) * (i1 - i0)) / (2L * take));
}

/* One cell row of a sampled pool: `take` rows of [i0, i1) folded into col. */
static void pool_sampled_rows(const AttnShape *s, int h, const PoolRows *pr, int i0, int i1, int c0,
                              int c1, int gw, const int *edge, PoolMode mode, float *col,
                              int *count, int *whole, float *buf)
{
    int take = i1 - i0 < pr->per_cell ? i1 - i0 : pr->per_cell;
    for (int k = 0; k < take; k++) {
        int i = take == i1 - i0 ? i0 + k : sample_row(i0, i1, k, take);
        const float *row =
            pr->P_h ? pr->P_h + (size_t)i * s->n_k : combine_row(pr->src, pr->l, h, i, buf);
        pool_row(s, i, row, c0, c1, gw, edge, mode, col, count, whole, pr->wide);
    }
}

/* A pool_grid call shared by its threads: each takes whole cell rows (its
 * own scratch: column accumulator, counts, a block of computed rows) until
 * none is left, so a cell row's numbers do not depend on the thread. */
typedef struct {
    const AttnShape *s;
    const PoolRows *pr;
    int h, r0, r1, c0, c1, gh, gw;
    PoolMode mode;
    const int *edge; /* cell x: columns [edge[x], edge[x + 1]) from c0 */
    float *out;
    atomic_int next; /* the next cell row a thread takes */
    atomic_int err;  /* AV_ERR_NOMEM when a thread found no scratch */
} PoolJob;

/* Cell row y of the job into out, with scratch col (c1 - c0), count (gw) and
 * block (POOL_BLOCK rows of n_k, or one for a source; NULL for kept weights). */
static void pool_cell_row(const PoolJob *jb, int y, float *col, int *count, float *block)
{
    const AttnShape *s = jb->s;
    const PoolRows *pr = jb->pr;
    const int R = jb->r1 - jb->r0, n_k = s->n_k, gw = jb->gw, c0 = jb->c0, c1 = jb->c1;
    const float *P_h = pr->P_h;
    int i0 = jb->r0 + (int)((long)y * R / jb->gh), i1 = jb->r0 + (int)((long)(y + 1) * R / jb->gh);
    int whole = 0;
    for (int x = 0; x < gw; x++)
        count[x] = 0;
    for (int j = 0; j < c1 - c0; j++)
        col[j] = 0.0f;
    if (pr->per_cell > 0)
        pool_sampled_rows(s, jb->h, pr, i0, i1, c0, c1, gw, jb->edge, jb->mode, col, count, &whole,
                          block);
    for (int b0 = i0; b0 < i1 && pr->per_cell <= 0; b0 += POOL_BLOCK) {
        int b1 = b0 + POOL_BLOCK < i1 ? b0 + POOL_BLOCK : i1;
        if (!P_h && !pr->src)
            pool_rows(s, jb->h, pr->Q, pr->K, b0, b1, block);
        for (int i = b0; i < b1; i++) {
            const float *row = P_h       ? P_h + (size_t)i * n_k
                               : pr->src ? combine_row(pr->src, pr->l, jb->h, i, block)
                                         : block + (size_t)(i - b0) * n_k;
            pool_row(s, i, row, c0, c1, gw, jb->edge, jb->mode, col, count, &whole, pr->wide);
        }
    }
    pool_finish(gw, jb->edge, jb->mode, col, jb->out + (size_t)y * gw, count, whole);
}

/* Take cell rows until none is left; under the mask the last (widest) first,
 * so that two threads finish together. */
static void *pool_worker(void *arg)
{
    PoolJob *jb = arg;
    const int n_k = jb->s->n_k;
    size_t block_rows = jb->pr->src ? 1 : POOL_BLOCK;
    float *block = jb->pr->P_h ? NULL : malloc(sizeof *block * block_rows * (size_t)n_k);
    int *count = malloc(sizeof *count * (size_t)jb->gw);
    float *col = malloc(sizeof *col * (size_t)(jb->c1 - jb->c0));
    if ((!jb->pr->P_h && !block) || !count || !col) {
        atomic_store(&jb->err, AV_ERR_NOMEM);
    } else {
        for (int k; (k = atomic_fetch_add(&jb->next, 1)) < jb->gh;)
            pool_cell_row(jb, jb->s->causal ? jb->gh - 1 - k : k, col, count, block);
    }
    free(block), free(count), free(col);
    return NULL;
}

/* Threads for pooling R x C weights: two for kept weights of at least
 * POOL_THREADS_MIN (reading them is most of a keystroke at 2,048 tokens),
 * else one (rows computed from Q and K, or read from a source, stay on the
 * calling thread). */
static int pool_threads(const PoolRows *pr, long weights)
{
    if (!pr->P_h || weights < POOL_THREADS_MIN)
        return 1;
    return sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 1 : 2;
}

static int pool_grid(const AttnShape *s, int h, const PoolRows *pr, int r0, int r1, int c0, int c1,
                     int gh, int gw, PoolMode mode, float *out, int threads)
{
    assert(gh >= 1 && gw >= 1 && gh <= r1 - r0 && gw <= c1 - c0);
    int *edge = malloc(sizeof *edge * (size_t)(gw + 1));
    if (!edge)
        return AV_ERR_NOMEM;
    for (int x = 0; x <= gw; x++)
        edge[x] = (int)((long)x * (c1 - c0) / gw);
    PoolRows rows = *pr;
    rows.wide = col_fold_wide();
    PoolJob jb = {.s = s,
                  .pr = &rows,
                  .h = h,
                  .r0 = r0,
                  .r1 = r1,
                  .c0 = c0,
                  .c1 = c1,
                  .gh = gh,
                  .gw = gw,
                  .mode = mode,
                  .edge = edge,
                  .out = out};
    atomic_init(&jb.next, 0);
    atomic_init(&jb.err, AV_OK);
    pthread_t tid;
    bool two = threads > 1 && gh > 1 && pthread_create(&tid, NULL, pool_worker, &jb) == 0;
    pool_worker(&jb);
    if (two)
        pthread_join(tid, NULL);
    free(edge);
    return atomic_load(&jb.err);
}

int pool_head(const AttnShape *s, int h, const float *Q, const float *K, const float *P_h, int r0,
              int r1, int c0, int c1, int gh, int gw, PoolMode mode, float *out)
{
    PoolRows pr = {.Q = Q, .K = K, .P_h = P_h};
    return pool_grid(s, h, &pr, r0, r1, c0, c1, gh, gw, mode, out,
                     pool_threads(&pr, (long)(r1 - r0) * (c1 - c0)));
}

int pool_head_threads(const AttnShape *s, int h, const float *P_h, int r0, int r1, int c0, int c1,
                      int gh, int gw, PoolMode mode, float *out, int threads)
{
    PoolRows pr = {.P_h = P_h};
    assert(P_h);
    return pool_grid(s, h, &pr, r0, r1, c0, c1, gh, gw, mode, out, threads);
}

int pool_head_source(const AttnShape *s, const AttnSource *src, int l, int h, int r0, int r1,
                     int c0, int c1, int gh, int gw, PoolMode mode, float *out)
{
    PoolRows pr = {.src = src, .l = l};
    return pool_grid(s, h, &pr, r0, r1, c0, c1, gh, gw, mode, out, 1);
}

int pool_sample_rows(int R, int C, int gh, long budget)
{
    long per = budget / ((long)gh * (C > 0 ? C : 1));
    int most = (R + gh - 1) / gh; /* the rows of the tallest cell */
    return per >= most ? most : per < 1 ? 1 : (int)per;
}

int pool_head_sampled(const AttnShape *s, const float *P_h, const AttnSource *src, int l, int h,
                      int r0, int r1, int c0, int c1, int gh, int gw, PoolMode mode, long budget,
                      float *out, bool *sampled)
{
    int per = pool_sample_rows(r1 - r0, c1 - c0, gh, budget);
    PoolRows pr = {.P_h = P_h, .src = P_h ? NULL : src, .l = l, .per_cell = per};
    assert(P_h || src);
    if (sampled)
        *sampled = per < (r1 - r0 + gh - 1) / gh;
    return pool_grid(s, h, &pr, r0, r1, c0, c1, gh, gw, mode, out,
                     pool_threads(&pr, (long)(r1 - r0) * (c1 - c0)));
}

int pool_forward(const AttnShape *s, const float *Xq, const float *Xkv, const AttnWeights *w,
                 AttnBuffers *b)
{
    int err = attention_check(s);
    if (b->pool)
        b->pool->done = false; /* no grids pooled here */
    if (err)
        return err;
    const int d = s->d_model, d_k = d / s->H, n_q = s->n_q, n_k = s->n_k;
    /* Q (n_q, d) = Xq W_q; K, V (n_k, d) = Xkv W_k, Xkv W_v */
    mat_sgemm(false, false, n_q, d, d, 1.0f, Xq, d, w->Wq, d, 0.0f, b->Q, d);
    mat_sgemm(false, false, n_k, d, d, 1.0f, Xkv, d, w->Wk, d, 0.0f, b->K, d);
    if (b->V)
        mat_sgemm(false, false, n_k, d, d, 1.0f, Xkv, d, w->Wv, d, 0.0f, b->V, d);
    if (!b->concat) /* the weights only: computed from Q and K on demand */
        return AV_OK;
    if (!b->V)
        return AV_ERR_CONFIG;
    float *block = malloc(sizeof *block * POOL_BLOCK * (size_t)n_k);
    if (!block)
        return AV_ERR_NOMEM;
    for (int h = 0; h < s->H; h++)
        for (int i0 = 0; i0 < n_q; i0 += POOL_BLOCK) {
            int i1 = i0 + POOL_BLOCK < n_q ? i0 + POOL_BLOCK : n_q;
            pool_rows(s, h, b->Q, b->K, i0, i1, block);
            /* concat[i0..i1, h*d_k..] (rows, d_k) = block (rows, n_k) V_h (n_k, d_k) */
            mat_sgemm(false, false, i1 - i0, d_k, n_k, 1.0f, block, n_k, b->V + h * d_k, d, 0.0f,
                      b->concat + (size_t)i0 * d + h * d_k, d);
        }
    /* out (n_q, d) = concat W_o */
    mat_sgemm(false, false, n_q, d, d, 1.0f, b->concat, d, w->Wo, d, 0.0f, b->out, d);
    free(block);
    return AV_OK;
}
