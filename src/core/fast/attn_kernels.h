/* attn_kernels.h - what attention.c shares with the files below it
 * (attn_short.c, attn_proj.c, softmax.c, softmax_x86.c): the softmax's lane width, its
 * e^x, the clones, the short-head pass, the projection items and the AVX2
 * softmax. Private to src/core/, not part of the core's interface
 * (include/core/).
 *
 * The short-head pass sits below attention.c: it is handed its numbers (the
 * scale, the sizes, each row's visible keys) and asks attention.c nothing,
 * so the two do not include each other.
 */
#ifndef ATTNVIZ_ATTN_KERNELS_H
#define ATTNVIZ_ATTN_KERNELS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Softmax works on SOFTMAX_LANES floats at a time with fixed-size inner loops,
 * which gcc -O2 (its "very cheap" vectoriser) and clang vectorise. The row sum
 * is kept in SOFTMAX_LANES partial sums added in a fixed order, so the result
 * does not depend on the vector width the compiler picked. */
enum { SOFTMAX_LANES = 16 };

/* Below EXP_CLAMP, e^x is under FLT_MIN and the weight is flushed to exactly 0. */
#define EXP_CLAMP (-88.0f)
#define EXP_KMIN (-125.5f)

/* x86-64 builds get AVX2 and AVX-512 clones of the softmax chosen at load time.
 * -std=c11 means -ffp-contract=off, so no clone fuses a multiply-add: each
 * lane does the same IEEE operations and every clone gives the same bits. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define SOFTMAX_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SOFTMAX_CLONES
#endif

/* e^x for x in [EXP_CLAMP, 0] (Cephes expf, about 1.5 ulp): x = k ln2 + r with
 * |r| <= ln2/2, e^r by a degree-6 polynomial, 2^k put into the exponent bits.
 * Where k < EXP_KMIN the result is exactly 0. No branch, so it vectorises. */
static inline float exp_nonpositive(float x)
{
    /* round(x log2 e) to nearest by the 1.5 * 2^23 trick (no SSE4.1 needed) */
    float kf = (x * 1.44269504f + 0x1.8p23f) - 0x1.8p23f;
    /* ln 2 in two parts, so r = x - k ln2 is nearly exact (Cody-Waite) */
    float r = x - kf * 0.693359375f;
    r = r - kf * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t bits = ((int32_t)kf + 127) * (1 << 23);
    /* an integer select: a float one here is turned into branches by gcc */
    bits = kf > EXP_KMIN ? bits : 0;
    float two_k;
    memcpy(&two_k, &bits, sizeof two_k);
    return p * two_k;
}

/* attention_softmax_row in AVX2 intrinsics (softmax_x86.c): the same
 * operations in the same order, so the same bits, for the processors where
 * softmax_x86_available says yes; it is never called elsewhere. */
bool softmax_x86_available(void);
void softmax_x86_row(float *row, int len);

/* The projections of one pass of the forward (attn_proj.c): C_p (n_p, d) =
 * X_p (n_p, d) W_p (d, d) for p < count, in items of rows taken in turn by
 * the threads that call attn_proj_work. With Kall (Vall), C[1] (C[2]) is K
 * (V) of H heads, and each item packs its rows into head h's K_h^T at Kall +
 * h * k_head floats (V_h at Vall + h * v_head), mat_pack's panels of all
 * n[1] (n[2]) keys. A row of C is the same bits in any item. */
typedef struct {
    int count, d, H, rows; /* rows per item: attn_proj_setup */
    int n[3];
    const float *X[3], *W[3];
    float *C[3];
    float *Kall, *Vall; /* NULL: no packing */
    size_t k_head, v_head;
    atomic_int next;
} AttnProjJob;

/* Rows per item for a forward on `threads` threads (a multiple of 16), and
 * the first item; before any attn_proj_work. */
void attn_proj_setup(AttnProjJob *pj, int threads);

/* Take items of pj until none is left (from any number of threads). */
void attn_proj_work(AttnProjJob *pj);

/* One head of a sentence (n_k <= SOFTMAX_LANES keys). Pointers are the head's
 * own: Q_h, K_h, V_h and out are its columns of Q, K, V and the concatenation
 * (leading dimension d_model), S_h and P_h its (n_q, n_k) matrices from row 0.
 * S_h NULL: scores not kept; out NULL: weights only (V_h unused). */
typedef struct {
    int n_k, d_model, d_k;
    float scale; /* attention_scale: 1/sqrt(d_k) (when scaling) / temperature */
    const float *Q_h, *K_h, *V_h;
    float *S_h, *P_h, *out;
} AttnShortHead;

/* Query rows [g0, g0 + m), 1 <= m <= SOFTMAX_LANES, of one short head:
 * scores (kept in S_h with -inf where masked), weights in P_h (exactly 0
 * where masked), and P_h V_h into out. vis[r] is the number of keys row
 * g0 + r sees (attention_visible_keys), non-decreasing in r. */
void attn_short_group(const AttnShortHead *sh, int g0, int m, const int *vis);

/* The forward's pooling of whole heads (attn_pool.c): one thread's running
 * cells of every grid of a plan (core/attention.h's AttnPoolPlan, which
 * attention.c folds each row block into right after its softmax). */
struct AttnPoolPlan;
enum { ATTN_POOL_MOST = 16 }; /* ATTN_POOL_GRIDS */
typedef struct {
    struct AttnPoolPlan *plan;
    int n_q, n_k, H;
    bool causal, wide;   /* wide: AVX2 maxima */
    float *cell;         /* every grid's cells, grid k from at[k]; +0 at first */
    unsigned char *seen; /* 1: a visible weight fell in the cell */
    float *col;          /* n_k: a cell row's column maxima over some rows */
    size_t at[ATTN_POOL_MOST];
    int stride, rows; /* the statistics' rows 0, stride, ..: rows a head; 0: none */
} AttnPoolAcc;

/* Clear plan->done and set up acc[0 .. threads) for an (n_q, n_k) forward of
 * H heads. Returns AV_OK, or AV_ERR_CONFIG (a grid that does not fit, or
 * nothing asked) or AV_ERR_NOMEM, after which acc holds nothing and the plan
 * stays not done. */
int attn_pool_begin(int n_q, int n_k, int H, bool causal, struct AttnPoolPlan *plan,
                    AttnPoolAcc *acc, int threads);

/* Fold rows [i0, i1) of head h's final weights P_h (n_q, n_k) into acc:
 * vis[r] the keys row i0 + r sees (attention_visible_keys), non-decreasing. */
void attn_pool_rows(AttnPoolAcc *acc, int h, int i0, int i1, const int *vis, const float *P_h);

/* Merge the threads' cells into the plan's outputs, set done and the shape,
 * and free acc. Call only once every row of every head was folded. */
void attn_pool_end(AttnPoolAcc *acc, int threads);

/* Free acc without making the grids (the plan stays not done). */
void attn_pool_free(AttnPoolAcc *acc, int threads);

#endif
