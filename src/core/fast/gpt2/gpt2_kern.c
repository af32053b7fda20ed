/* gpt2_kern.c - GPT-2's linear layers and its GELU, with each row's sums
 * in an order that does not depend on the rows beside it (gpt2_kern.h).
 *
 * With AVX2 and FMA (mat_packed_available) the products are mat.h's packed
 * kernel: every element a chain of fused multiply-adds over k in order from
 * zero. A weight matrix is packed a chunk of columns at a time into work and
 * every block of rows is multiplied against the chunk while it is in cache;
 * a few rows (a typed key, a short text) skip the packing, which would cost
 * as much as the product, and run linear_rows_direct: the same chain, read
 * straight from W. Without AVX2 and FMA the plain loops below keep the same
 * property with multiply-then-add chains. One head's attention is
 * gpt2_head.c's, the logits' dots gpt2_dots.c's.
 */
#include "gpt2_kern.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/mat.h"
#include "gpt2_x86.h"

/* The blocking: a block of X's rows stays in L2 beside the packed chunk of W
 * while each of its panels passes. */
enum {
    KERN_NC = 256,                /* columns of W packed at a time */
    KERN_KB = 16,                 /* rows of W packed per call */
    KERN_BLOCK_FLOATS = 49152,    /* floats of X a block of rows may take */
    KERN_DIRECT_ROWS = 128,       /* at most this many rows skip the packing */
    KERN_DIRECT_COLS = 96,        /* columns of W the direct kernel copies at a time */
    KERN_DIRECT_KB = 16,          /* rows of W a tile of up to 4 rows takes at a time */
    KERN_DIRECT_KB_MANY = 8,      /* and a tile of 5 to KERN_TILE_ROWS rows */
    KERN_COPY_KB = 64,            /* rows of W copied at a time for more tiles */
    KERN_DIRECT_Y_FLOATS = 32768, /* floats of Y a chunk of the direct kernel takes */
    KERN_Y_PAD = 16,              /* floats past a row of the chunk's copy of Y */
    KERN_TILE_ROWS = 12,          /* rows of a register tile of the direct kernel */
    KERN_PREFETCH_ROWS = 4,       /* from this many rows on, one tile asks for W's next rows */
};

#if KERN_X86
#include "../exp_x86.h"
#if defined(__clang__)
#define KERN_NO_MEMCPY
#else
#define KERN_NO_MEMCPY __attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
#endif

size_t gpt2k_linear_work(int K)
{
    const size_t packed = mat_packed_floats(K, KERN_NC);
    const size_t direct =
        (size_t)KERN_DIRECT_ROWS * K + KERN_DIRECT_Y_FLOATS + (size_t)KERN_DIRECT_ROWS * KERN_Y_PAD;
    return packed > direct ? packed : direct;
}

/* Y row (N) = x (K) W: the plain chain y_j = y_j + x_k w_kj from 0, k in order. */
static void linear_row_plain(int N, int K, const float *restrict x, const float *restrict W,
                             int ldw, float *restrict y)
{
    memset(y, 0, (size_t)N * sizeof *y);
    for (int k = 0; k < K; k++) {
        const float x_k = x[k], *restrict w_k = W + (size_t)k * ldw;
        for (int j = 0; j < N; j++)
            y[j] += x_k * w_k[j];
    }
}

#if KERN_X86
/* A register tile: rows [0, R) of Y, columns [0, 8 C), terms [k0, k1), W
 * pointing at row k0 (ldw apart), the tile's rows of X packed term by term
 * (Xp[k R + r] is X's (r, k)): each element's chain goes on from what Y
 * holds (zero when k0 is 0), one fused multiply-add per term in order, so
 * the chain is the same whatever tile, block or thread the element falls
 * in. R C chains are in flight: the processor needs about ten to keep its
 * multiply-add units busy, and R C + C + 1 registers must fit in 16. */
static inline __attribute__((always_inline)) KERN_TARGET void direct_tile(int R, int C, int k0,
                                                                          int k1, const float *Xp,
                                                                          const float *W, int ldw,
                                                                          float *Y, int ldy)
{
    __m256 c[KERN_TILE_ROWS][3];
#pragma GCC unroll 12
    for (int r = 0; r < R; r++)
#pragma GCC unroll 3
        for (int q = 0; q < C; q++)
            c[r][q] = k0 ? _mm256_loadu_ps(Y + (size_t)r * ldy + 8 * q) : _mm256_setzero_ps();
    for (int k = k0; k < k1; k++) {
        __m256 w[3];
#pragma GCC unroll 3
        for (int q = 0; q < C; q++)
            w[q] = _mm256_loadu_ps(W + (size_t)(k - k0) * ldw + 8 * q);
#pragma GCC unroll 12
        for (int r = 0; r < R; r++) {
            const __m256 x = _mm256_broadcast_ss(Xp + (size_t)k * R + r);
#pragma GCC unroll 3
            for (int q = 0; q < C; q++)
                c[r][q] = _mm256_fmadd_ps(x, w[q], c[r][q]);
        }
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; r++)
#pragma GCC unroll 3
        for (int q = 0; q < C; q++)
            _mm256_storeu_ps(Y + (size_t)r * ldy + 8 * q, c[r][q]);
}

/* Rows [0, R) (R <= KERN_TILE_ROWS), columns [0, w) (w a multiple of 8),
 * terms [k0, k1) of Y, B holding W's rows k0 .. k1 - 1 (ldb apart), Xp the
 * rows' X packed: tiles of 24 columns up to 4 rows (12 chains at 4), of 16
 * at 5 and 6 rows, of 8 from 7 to 12, then what is left in 16 and 8. When
 * P is not NULL, each tile first asks the caches for the lines of its
 * columns in the np rows at P (ldb apart): the rows of W the next call
 * takes, which one tile reading W where it lies would otherwise wait for
 * line by line once its rows need more time than the processor's own
 * prefetcher allows for. */
KERN_TARGET static void direct_rows(int R, int w, int k0, int k1, const float *Xp, const float *B,
                                    int ldb, float *Y, int ldy, const float *P, int np)
{
    int j = 0;
#define KERN_RUN(r, cols)                                                                          \
    for (; j + 8 * (cols) <= w; j += 8 * (cols)) {                                                 \
        for (int q = 0; P && q < np; q++) {                                                        \
            _mm_prefetch((const char *)(P + (size_t)q * ldb + j), _MM_HINT_T0);                    \
            _mm_prefetch((const char *)(P + (size_t)q * ldb + j + 8 * (cols)-1), _MM_HINT_T0);     \
        }                                                                                          \
        direct_tile(r, cols, k0, k1, Xp, B + j, ldb, Y + j, ldy);                                  \
    }
#define KERN_CASE(r, wide)                                                                         \
    case r: KERN_RUN(r, wide) KERN_RUN(r, 2) KERN_RUN(r, 1) break;
    switch (R) {
        KERN_CASE(1, 3)
        KERN_CASE(2, 3)
        KERN_CASE(3, 3)
        KERN_CASE(4, 3)
        KERN_CASE(5, 2)
        KERN_CASE(6, 2)
        KERN_CASE(7, 1)
        KERN_CASE(8, 1)
        KERN_CASE(9, 1)
        KERN_CASE(10, 1)
        KERN_CASE(11, 1)
        KERN_CASE(12, 1)
    }
#undef KERN_CASE
#undef KERN_RUN
}

#define KERN_TARGET512 __attribute__((target("avx512f,avx2,fma")))

/* Whether the processor has AVX-512 (F): the one-tile kernel then takes
 * 16 columns a register and 32 registers, twice the sums in flight. */
static bool kern_avx512(void)
{
    static int has = -1;
    if (has < 0) {
        __builtin_cpu_init();
        has = __builtin_cpu_supports("avx512f") && mat_packed_available();
    }
    return has;
}

/* direct_tile with 16 columns a register: R C chains, R C + C + 1 of the
 * 32 registers; each element the same chain of fused multiply-adds. */
static inline __attribute__((always_inline)) KERN_TARGET512 void
direct_tile512(int R, int C, int k0, int k1, const float *Xp, const float *W, int ldw, float *Y,
               int ldy)
{
    __m512 c[KERN_TILE_ROWS][4];
#pragma GCC unroll 12
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
        for (int q = 0; q < C; q++)
            c[r][q] = k0 ? _mm512_loadu_ps(Y + (size_t)r * ldy + 16 * q) : _mm512_setzero_ps();
    for (int k = k0; k < k1; k++) {
        __m512 w[4];
#pragma GCC unroll 4
        for (int q = 0; q < C; q++)
            w[q] = _mm512_loadu_ps(W + (size_t)(k - k0) * ldw + 16 * q);
#pragma GCC unroll 12
        for (int r = 0; r < R; r++) {
            const __m512 x = _mm512_set1_ps(Xp[(size_t)k * R + r]);
#pragma GCC unroll 4
            for (int q = 0; q < C; q++)
                c[r][q] = _mm512_fmadd_ps(x, w[q], c[r][q]);
        }
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
        for (int q = 0; q < C; q++)
            _mm512_storeu_ps(Y + (size_t)r * ldy + 16 * q, c[r][q]);
}

/* direct_rows in AVX-512: tiles of 64 columns up to 4 rows, 48 at 5 and 6,
 * 32 from 7 to 12, then 16; the last 8 columns (w an odd multiple of 8)
 * by direct_rows. */
KERN_TARGET512 static void direct_rows512(int R, int w, int k0, int k1, const float *Xp,
                                          const float *B, int ldb, float *Y, int ldy,
                                          const float *P, int np)
{
    int j = 0;
#define KERN_RUN(r, cols)                                                                          \
    for (; j + 16 * (cols) <= w; j += 16 * (cols)) {                                               \
        for (int q = 0; P && q < np; q++)                                                          \
            for (int l = 0; l < (cols); l++)                                                       \
                _mm_prefetch((const char *)(P + (size_t)q * ldb + j + 16 * l), _MM_HINT_T0);       \
        direct_tile512(r, cols, k0, k1, Xp, B + j, ldb, Y + j, ldy);                               \
    }
#define KERN_CASE(r, wide)                                                                         \
    case r: KERN_RUN(r, wide) KERN_RUN(r, 1) break;
    switch (R) {
        KERN_CASE(1, 4)
        KERN_CASE(2, 4)
        KERN_CASE(3, 4)
        KERN_CASE(4, 4)
        KERN_CASE(5, 3)
        KERN_CASE(6, 3)
        KERN_CASE(7, 2)
        KERN_CASE(8, 2)
        KERN_CASE(9, 2)
        KERN_CASE(10, 2)
        KERN_CASE(11, 2)
        KERN_CASE(12, 2)
    }
#undef KERN_CASE
#undef KERN_RUN
    if (j < w)
        direct_rows(R, w - j, k0, k1, Xp, B + j, ldb, Y + j, ldy, P ? P + j : NULL, np);
}

/* B (kb, w) = W's rows [0, kb), columns [0, w) (w a multiple of 8), rows w
 * apart, by 32-byte moves: gcc would make the loop a `rep movsq`, several
 * times slower for rows this short on some processors. */
KERN_NO_MEMCPY KERN_TARGET static void direct_copy(int kb, int w, const float *W, int ldw, float *B)
{
    for (int k = 0; k < kb; k++)
        for (int j = 0; j < w; j += 8)
            _mm256_storeu_ps(B + (size_t)k * w + j, _mm256_loadu_ps(W + (size_t)k * ldw + j));
}

/* Ask the caches for rows [k0, k1) of w columns at P (ldw apart). */
static void direct_prefetch(const float *P, int k0, int k1, int w, int ldw)
{
    for (int k = k0; k < k1; k++)
        for (int j = 0; j < w; j += 16)
            _mm_prefetch((const char *)(P + (size_t)k * ldw + j), _MM_HINT_T0);
}

/* Tiles of rows of M: one up to KERN_TILE_ROWS rows, else tiles of at most
 * 4 (24 columns, 12 chains each), as even as can be, since a tile of few
 * rows leaves the processor waiting on too few chains. */
static int direct_tiles(int M)
{
    return M <= KERN_TILE_ROWS ? 1 : (M + 3) / 4;
}

static int direct_tile_rows(int M, int tiles, int t)
{
    return M / tiles + (t < M % tiles);
}

/* Columns of Y a chunk of the direct kernel takes: its M rows stay in L2. */
static int direct_chunk(int M)
{
    const int cw = KERN_DIRECT_Y_FLOATS / M / KERN_DIRECT_COLS * KERN_DIRECT_COLS;
    return cw < KERN_DIRECT_COLS ? KERN_DIRECT_COLS : cw;
}

/* A chunk's rows [0, M) x [0, w) of Yc (ldc apart; Y itself when Yc is Y)
 * copied to Y. */
static void chunk_out(int M, int w, const float *Yc, int ldc, float *Y, int ldy)
{
    for (int r = 0; Yc != Y && r < M; r++)
        memcpy(Y + (size_t)r * ldy, Yc + (size_t)r * ldc, (size_t)w * sizeof *Y);
}

/* Y (M, n8) = X W, one tile of M <= KERN_TILE_ROWS rows reading W where it
 * lies, KERN_DIRECT_KB of W's rows at a time (KERN_DIRECT_KB_MANY for the
 * narrower tiles of more rows: measured so), asking for the next rows as it
 * goes from KERN_PREFETCH_ROWS rows on (fewer leave the processor's own
 * prefetcher time enough). Each chunk of columns is summed in Yb (rows its
 * width and KERN_Y_PAD apart), when given, then copied to Y. */
KERN_TARGET static void direct_one(int M, int n8, int K, const float *Xp, const float *W, int ldw,
                                   float *Y, int ldy, float *Yb)
{
    const int cw = direct_chunk(M), kb = M > 4 ? KERN_DIRECT_KB_MANY : KERN_DIRECT_KB;
    for (int j0 = 0; j0 < n8; j0 += cw) {
        const int w = n8 - j0 < cw ? n8 - j0 : cw, ldc = Yb ? w + KERN_Y_PAD : ldy;
        float *Yc = Yb ? Yb : Y + j0;
        for (int k0 = 0; k0 < K; k0 += kb) {
            const int k1 = K - k0 < kb ? K : k0 + kb;
            const bool ahead = k1 < K && M >= KERN_PREFETCH_ROWS;
            (kern_avx512() ? direct_rows512 : direct_rows)(
                M, w, k0, k1, Xp, W + (size_t)k0 * ldw + j0, ldw, Yc, ldc,
                ahead ? W + (size_t)k1 * ldw + j0 : NULL, K - k1 < kb ? K - k1 : kb);
        }
        chunk_out(M, w, Yc, ldc, Y + j0, ldy);
    }
}

/* Y (M, n8) = X W in tiles of rows over a copy of each piece of
 * KERN_COPY_KB x KERN_DIRECT_COLS of W (W's rows are often a multiple of
 * 4 KiB apart and would fight for the same L1 sets while the tiles reuse
 * them). Meanwhile the piece's columns in the next block of rows are asked
 * for, a chunk's width ahead, so they are in L2 when their turn comes. */
KERN_TARGET static void direct_pieces(int M, int n8, int K, const float *Xp, const float *W,
                                      int ldw, float *Y, int ldy, float *Yb)
{
    const int tiles = direct_tiles(M), cw = direct_chunk(M), kb = KERN_COPY_KB;
    float B[KERN_COPY_KB * KERN_DIRECT_COLS];
    for (int j0 = 0; j0 < n8; j0 += cw) {
        const int w = n8 - j0 < cw ? n8 - j0 : cw, ldc = Yb ? w + KERN_Y_PAD : ldy;
        float *Yc = Yb ? Yb : Y + j0;
        for (int k0 = 0; k0 < K; k0 += kb) {
            const int k1 = K - k0 < kb ? K : k0 + kb;
            for (int c0 = j0; c0 < j0 + w; c0 += KERN_DIRECT_COLS) {
                const int wc = j0 + w - c0 < KERN_DIRECT_COLS ? j0 + w - c0 : KERN_DIRECT_COLS;
                /* the next rows of these columns (after the last block, the
                 * next chunk's first rows) */
                int nk = k1, nc = c0, nend = j0 + w;
                if (nk >= K)
                    nk = 0, nc = c0 + w, nend = n8;
                const int nkb = K - nk < kb ? K - nk : kb;
                const int nw = nend - nc < KERN_DIRECT_COLS ? nend - nc : KERN_DIRECT_COLS;
                direct_copy(k1 - k0, wc, W + (size_t)k0 * ldw + c0, ldw, B);
                for (int t = 0, i0 = 0; t < tiles; i0 += direct_tile_rows(M, tiles, t++)) {
                    if (nc < n8)
                        direct_prefetch(W + (size_t)nk * ldw + nc, t * nkb / tiles,
                                        (t + 1) * nkb / tiles, nw, ldw);
                    (kern_avx512() ? direct_rows512 : direct_rows)(
                        direct_tile_rows(M, tiles, t), wc, k0, k1, Xp + (size_t)i0 * K, B, wc,
                        Yc + (size_t)i0 * ldc + (c0 - j0), ldc, NULL, 0);
                }
            }
        }
        chunk_out(M, w, Yc, ldc, Y + j0, ldy);
    }
}

/* Y (M, N) = X W for a few rows (a typed key, a short text), never packing
 * W (which would cost as much as the product): each tile's rows of X packed
 * term by term into Xp (M K floats), so that its broadcasts read fixed
 * offsets of one run, then direct_one or direct_pieces. Several rows are
 * summed in a copy of Y past Xp in the work, rows KERN_Y_PAD floats past
 * their width: Y's own rows are often a multiple of 4 KiB apart (the
 * state's rows of qkv and concat, the hidden layer's), and a tile's rows
 * of Y then fought for one set of L1 each time they were loaded and
 * stored. The columns past the last multiple of 8 take scalar fused
 * multiply-adds, the same operation. */
KERN_TARGET static void linear_rows_direct(int M, int N, int K, const float *X, int ldx,
                                           const float *W, int ldw, float *Y, int ldy, float *Xp)
{
    float *Yb = M > 1 ? Xp + (size_t)M * K : NULL;
    const int n8 = N - N % 8, tiles = direct_tiles(M);
    for (int t = 0, i0 = 0; t < tiles; i0 += direct_tile_rows(M, tiles, t++)) {
        const int R = direct_tile_rows(M, tiles, t);
        float *xp = Xp + (size_t)i0 * K;
        for (int r = 0; r < R; r++)
            for (int k = 0; k < K; k++)
                xp[(size_t)k * R + r] = X[(size_t)(i0 + r) * ldx + k];
    }
    if (tiles == 1)
        direct_one(M, n8, K, Xp, W, ldw, Y, ldy, Yb);
    else
        direct_pieces(M, n8, K, Xp, W, ldw, Y, ldy, Yb);
    for (int r = 0; r < M; r++)
        for (int j = n8; j < N; j++) {
            float c = 0.0f;
            for (int k = 0; k < K; k++)
                c = fmaf(X[(size_t)r * ldx + k], W[(size_t)k * ldw + j], c);
            Y[(size_t)r * ldy + j] = c;
        }
}
#endif

/* Y (M, N) = X W by the packed kernel: a chunk of W's columns packed, then
 * every block of rows against it. */
static void linear_packed(int M, int N, int K, const float *X, int ldx, const float *W, int ldw,
                          float *Y, int ldy, float *work)
{
    int mb = KERN_BLOCK_FLOATS / K / 6 * 6;
    mb = mb < 6 ? 6 : mb;
    for (int j0 = 0; j0 < N; j0 += KERN_NC) {
        const int nc = N - j0 < KERN_NC ? N - j0 : KERN_NC;
        /* KERN_KB rows at a time: each row's nc columns read in one run (a
         * panel at a time through all K rows would jump a row every 64 bytes) */
        for (int k0 = 0; k0 < K; k0 += KERN_KB)
            mat_pack_part(false, K - k0 < KERN_KB ? K - k0 : KERN_KB, nc, W + (size_t)k0 * ldw + j0,
                          ldw, work, K, k0, 0);
        for (int i0 = 0; i0 < M; i0 += mb) {
            const int m = M - i0 < mb ? M - i0 : mb;
            /* Y[i0.., j0..] (m, nc) = X[i0..] (m, K) W[:, j0..] (K, nc) */
            mat_sgemm_packed(m, nc, K, 1.0f, X + (size_t)i0 * ldx, ldx, work, K,
                             Y + (size_t)i0 * ldy + j0, ldy);
        }
    }
}

void gpt2k_linear(int M, int N, int K, const float *X, int ldx, const float *W, int ldw,
                  const float *b, float *Y, int ldy, float *work)
{
    assert(M >= 0 && N > 0 && K > 0 && ldx >= K && ldw >= N && ldy >= N);
    const bool fast = mat_packed_available();
    if (fast && M > KERN_DIRECT_ROWS) {
        linear_packed(M, N, K, X, ldx, W, ldw, Y, ldy, work);
    } else {
#if KERN_X86
        if (fast && M > 0)
            linear_rows_direct(M, N, K, X, ldx, W, ldw, Y, ldy, work);
#endif
        for (int i = 0; !fast && i < M; i++)
            linear_row_plain(N, K, X + (size_t)i * ldx, W, ldw, Y + (size_t)i * ldy);
    }
    for (int i = 0; b && i < M; i++) {
        float *y_i = Y + (size_t)i * ldy;
        for (int j = 0; j < N; j++)
            y_i[j] += b[j];
    }
}

/* GELU in its tanh form through the logistic function it equals,
 * 0.5 x (1 + tanh u) = x s(2u) with u = sqrt(2/pi) (x + 0.044715 x^3):
 * with e = e^(-2|u|), s(2u) is 1 / (1 + e) for u >= 0 and e / (1 + e)
 * below, which keeps its digits where tanh u nears -1. e^-2|u| is
 * exp_nonpositive, its argument clamped to the range it takes
 * ([EXP_CLAMP, 0]; e is exactly 0 from about -87 down either way), the
 * same operations on every lane and in the scalar tail, so the bits do not
 * depend on the column, the processor or libm. */
#define GELU_K 0.7978845608028654f /* sqrt(2 / pi) */
#define GELU_C 0.044715f

static float gelu1(float x)
{
    const float u = GELU_K * (x + GELU_C * x * x * x);
    float a = -2.0f * fabsf(u);
    a = a < EXP_CLAMP ? EXP_CLAMP : a;
    const float e = exp_nonpositive(a);
    return x * (u >= 0.0f ? 1.0f : e) / (1.0f + e);
}

#if KERN_X86
KERN_TARGET static void gelu_avx2(int w8, float *v)
{
    const __m256 k = _mm256_set1_ps(GELU_K), c = _mm256_set1_ps(GELU_C);
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    const __m256 sign = _mm256_set1_ps(-0.0f), lo = _mm256_set1_ps(EXP_CLAMP);
    for (int q = 0; q < w8; q += 8) {
        const __m256 x = _mm256_loadu_ps(v + q);
        const __m256 cube = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(c, x), x), x);
        const __m256 u = _mm256_mul_ps(k, _mm256_add_ps(x, cube));
        const __m256 a = _mm256_mul_ps(_mm256_set1_ps(-2.0f), _mm256_andnot_ps(sign, u));
        const __m256 e = exp8(_mm256_max_ps(a, lo));
        const __m256 num = _mm256_blendv_ps(e, one, _mm256_cmp_ps(u, zero, _CMP_GE_OQ));
        _mm256_storeu_ps(v + q, _mm256_div_ps(_mm256_mul_ps(x, num), _mm256_add_ps(one, e)));
    }
}
#endif

void gpt2k_gelu(int m, int w, float *v, int ld)
{
    int w8 = 0;
#if KERN_X86
    if (mat_packed_available())
        w8 = w - w % 8;
#endif
    for (int r = 0; r < m; r++) {
        float *row = v + (size_t)r * ld;
#if KERN_X86
        if (w8)
            gelu_avx2(w8, row);
#endif
        for (int q = w8; q < w; q++)
            row[q] = gelu1(row[q]);
    }
}

const char *gpt2k_kernel(void)
{
#if KERN_X86
    if (kern_avx512())
        return "avx512+fma";
#endif
    return mat_packed_available() ? "avx2+fma" : "plain";
}
