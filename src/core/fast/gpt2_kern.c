/* gpt2_kern.c - GPT-2's linear layers and one head's causal attention over
 * new rows, with each row's sums in an order that does not depend on the
 * rows beside it (gpt2_kern.h).
 *
 * With AVX2 and FMA (mat_packed_available) the products are mat.h's packed
 * kernel: every element a chain of fused multiply-adds over k in order from
 * zero. A weight matrix is packed a chunk of columns at a time into work and
 * every block of rows is multiplied against the chunk while it is in cache;
 * a few rows (a typed key, a short text) skip the packing, which would cost
 * as much as the product, and run linear_rows_direct: the same chain, read
 * straight from W. A typed key's heads read the state's blocks of cached
 * keys (gpt2k_head_blocks), again the packed kernel's chains. Without AVX2
 * and FMA the plain loops below keep the same property with
 * multiply-then-add chains.
 */
#include "gpt2_kern.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/attention.h"
#include "core/gpt2.h"
#include "core/mat.h"
#include "attn_kernels.h"

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
    KERN_DOTS_ROWS = 6,           /* rows of X gpt2k_dots_rows takes a pass over A for */
};

#if defined(__x86_64__) && defined(__GNUC__)
#define KERN_X86 1
#include <immintrin.h>

#include "exp_x86.h"
#define KERN_TARGET __attribute__((target("avx2,fma")))
#if defined(__clang__)
#define KERN_NO_MEMCPY
#else
#define KERN_NO_MEMCPY __attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
#else
#define KERN_X86 0
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

size_t gpt2k_head_work(int m, int n, int d_k)
{
    (void)m;
    return mat_packed_available() ? mat_packed_floats(d_k, n) + mat_packed_floats(n, d_k) : 0;
}

/* Row r (position i = p + r) of P: scores of keys j <= i, softmax, zeros past i. */
static void head_softmax(int p, int m, int n, float *P)
{
    for (int r = 0; r < m; r++) {
        float *row = P + (size_t)r * n;
        const int vis = p + r + 1;
        attention_softmax_row(row, vis);
        memset(row + vis, 0, (size_t)(n - vis) * sizeof *row);
    }
}

/* The plain loops: scores, softmax, and O = P V, each sum over keys or
 * features in order. */
static void head_plain(int p, int n, int d_k, float scale, const float *Q_h, int ldq,
                       const float *K_h, const float *V_h, int ldkv, float *P, float *O, int ldo)
{
    const int m = n - p;
    for (int r = 0; r < m; r++) {
        const float *q = Q_h + (size_t)r * ldq;
        float *row = P + (size_t)r * n;
        for (int j = 0; j <= p + r; j++) {
            const float *k = K_h + (size_t)j * ldkv;
            float s = 0.0f;
            for (int c = 0; c < d_k; c++)
                s += q[c] * k[c];
            row[j] = s * scale;
        }
    }
    head_softmax(p, m, n, P);
    for (int r = 0; r < m; r++) {
        const float *row = P + (size_t)r * n;
        float *o = O + (size_t)r * ldo;
        memset(o, 0, (size_t)d_k * sizeof *o);
        for (int j = 0; j <= p + r; j++) {
            const float *v = V_h + (size_t)j * ldkv;
            for (int c = 0; c < d_k; c++)
                o[c] += row[j] * v[c];
        }
    }
}

#if KERN_X86
/* The scores of a block's first `keys` keys (all GPT2_KV_BLOCK computed:
 * the block's unused keys are zeros) from its tile of K transposed, Kt (d_k,
 * GPT2_KV_BLOCK): eight keys a lane-wise chain over the features in order
 * from zero, then the scale, as mat_sgemm_packed's. Meanwhile the tile at
 * next (the head's next block, or NULL) is asked for: a head's blocks lie
 * L H tiles apart, a jump the processor's own prefetcher does not foresee;
 * and the block's tile of V at vt (as many floats) into L2, for
 * block_values after the softmax. */
KERN_TARGET static void block_scores(int keys, int d_k, float scale, const float *q,
                                     const float *Kt, const float *next, const float *vt, float *P)
{
    __m256 a[GPT2_KV_BLOCK / 8];
    float out[GPT2_KV_BLOCK];
#pragma GCC unroll 8
    for (int g = 0; g < GPT2_KV_BLOCK / 8; g++)
        a[g] = _mm256_setzero_ps();
    for (int c = 0; c < d_k; c++) {
        const __m256 qc = _mm256_broadcast_ss(q + c);
        const float *k = Kt + (size_t)c * GPT2_KV_BLOCK;
        if (next)
            for (int l = 0; l < GPT2_KV_BLOCK; l += 16)
                _mm_prefetch((const char *)(next + (size_t)c * GPT2_KV_BLOCK + l), _MM_HINT_T0);
        for (int l = 0; l < GPT2_KV_BLOCK; l += 16)
            _mm_prefetch((const char *)(vt + (size_t)c * GPT2_KV_BLOCK + l), _MM_HINT_T1);
#pragma GCC unroll 8
        for (int g = 0; g < GPT2_KV_BLOCK / 8; g++)
            a[g] = _mm256_fmadd_ps(qc, _mm256_loadu_ps(k + 8 * g), a[g]);
    }
#pragma GCC unroll 8
    for (int g = 0; g < GPT2_KV_BLOCK / 8; g++)
        _mm256_storeu_ps(out + 8 * g, _mm256_mul_ps(a[g], _mm256_set1_ps(scale)));
    memcpy(P, out, (size_t)keys * sizeof *P);
}

/* O (d_k) += the block's first `keys` weights p times its rows of V (keys,
 * d_k): each feature's chain over the keys goes on in order from zero, as
 * mat_sgemm_packed's (which adds only exact zeros past the row's last key);
 * the tile at next asked for meanwhile, as block_scores does. */
KERN_TARGET static void block_values(int keys, int d_k, const float *p, const float *V,
                                     const float *next, float *O)
{
    int c0 = 0;
    for (; c0 + 64 <= d_k; c0 += 64) { /* eight chains: two FMAs a cycle */
        __m256 o[8];
#pragma GCC unroll 8
        for (int g = 0; g < 8; g++)
            o[g] = _mm256_loadu_ps(O + c0 + 8 * g);
        for (int i = 0; i < keys; i++) {
            if (next && c0 == 0)
                for (int l = 0; l < d_k; l += 16)
                    _mm_prefetch((const char *)(next + (size_t)i * d_k + l), _MM_HINT_T0);
            const __m256 w = _mm256_broadcast_ss(p + i);
            const float *v = V + (size_t)i * d_k + c0;
#pragma GCC unroll 8
            for (int g = 0; g < 8; g++)
                o[g] = _mm256_fmadd_ps(w, _mm256_loadu_ps(v + 8 * g), o[g]);
        }
#pragma GCC unroll 8
        for (int g = 0; g < 8; g++)
            _mm256_storeu_ps(O + c0 + 8 * g, o[g]);
    }
    for (; c0 + 8 <= d_k; c0 += 8) {
        __m256 o = _mm256_loadu_ps(O + c0);
        for (int i = 0; i < keys; i++)
            o = _mm256_fmadd_ps(_mm256_broadcast_ss(p + i),
                                _mm256_loadu_ps(V + (size_t)i * d_k + c0), o);
        _mm256_storeu_ps(O + c0, o);
    }
    for (; c0 < d_k; c0++) {
        float o = O[c0];
        for (int i = 0; i < keys; i++)
            o = fmaf(p[i], V[(size_t)i * d_k + c0], o);
        O[c0] = o;
    }
}
#endif

bool gpt2k_head_blocks(int n, int d_k, float scale, const float *q, const float *Kt, const float *V,
                       size_t block, float *P, float *O)
{
#if KERN_X86
    if (mat_packed_available()) {
        const int B = GPT2_KV_BLOCK;
        for (int j = 0; j < n; j += B) {
            const float *t = Kt + (size_t)(j / B) * block;
            block_scores(n - j < B ? n - j : B, d_k, scale, q, t, j + B < n ? t + block : NULL,
                         V + (size_t)(j / B) * block, P + j);
        }
        head_softmax(n - 1, 1, n, P);
        memset(O, 0, (size_t)d_k * sizeof *O);
        for (int j = 0; j < n; j += B) {
            const float *t = V + (size_t)(j / B) * block;
            block_values(n - j < B ? n - j : B, d_k, P + j, t, j + B < n ? t + block : NULL, O);
        }
        return true;
    }
#endif
    (void)n, (void)d_k, (void)scale, (void)q, (void)Kt, (void)V, (void)block, (void)P, (void)O;
    return false;
}

void gpt2k_head(int p, int n, int d_k, float scale, const float *Q_h, int ldq, const float *K_h,
                const float *V_h, int ldkv, float *P, float *O, int ldo, float *work)
{
    assert(p >= 0 && p < n && d_k > 0 && ldq >= d_k && ldkv >= d_k && ldo >= d_k);
    const int m = n - p;
    if (!mat_packed_available()) {
        head_plain(p, n, d_k, scale, Q_h, ldq, K_h, V_h, ldkv, P, O, ldo);
        return;
    }
    float *Kp = work, *Vp = work + mat_packed_floats(d_k, n);
    mat_pack(true, d_k, n, K_h, ldkv, Kp);
    /* P (m, n) = scale Q_h (m, d_k) K_h^T (d_k, n), row r wanting keys below p + r + 1 */
    mat_sgemm_packed_tri(m, n, d_k, scale, Q_h, ldq, Kp, d_k, P, n, p + 1, 0);
    head_softmax(p, m, n, P);
    mat_pack(false, n, d_k, V_h, ldkv, Vp);
    /* O (m, d_k) = P (m, n) V_h (n, d_k), row r's terms past key p + r skipped */
    mat_sgemm_packed_tri(m, d_k, n, 1.0f, P, n, Vp, n, O, ldo, 0, p + 1);
}

#if KERN_X86
KERN_TARGET static void dots_avx2(int N, int K, const float *A, int lda, const float *x, float *out)
{
    for (int v = 0; v < N; v++) {
        const float *a = A + (size_t)v * lda;
        __m256 c0 = _mm256_setzero_ps(), c1 = c0;
        int k = 0;
        for (; k + 16 <= K; k += 16) {
            c0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(x + k), c0);
            c1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k + 8), _mm256_loadu_ps(x + k + 8), c1);
        }
        float lanes[8], s = 0.0f;
        _mm256_storeu_ps(lanes, _mm256_add_ps(c0, c1));
        for (int q = 0; q < 8; q++)
            s += lanes[q];
        for (; k < K; k++)
            s = fmaf(a[k], x[k], s);
        out[v] = s;
    }
}
#endif

void gpt2k_dots(int N, int K, const float *A, int lda, const float *x, float *out)
{
    assert(N >= 0 && K > 0 && lda >= K);
#if KERN_X86
    if (mat_packed_available()) {
        dots_avx2(N, K, A, lda, x, out);
        return;
    }
#endif
    for (int v = 0; v < N; v++) {
        const float *a = A + (size_t)v * lda;
        double s = 0.0;
        for (int k = 0; k < K; k++)
            s += (double)a[k] * x[k];
        out[v] = (float)s;
    }
}

#if KERN_X86
/* dots_avx2 for R rows of X at once: each row of A read once for all R,
 * each (row, v) summed in dots_avx2's order, so the bits are its. */
static inline __attribute__((always_inline)) KERN_TARGET void
dots_rows_tile(int R, int N, int K, const float *A, int lda, const float *X, int ldx, float *out,
               int ldo)
{
    for (int v = 0; v < N; v++) {
        const float *a = A + (size_t)v * lda;
        __m256 c0[KERN_DOTS_ROWS], c1[KERN_DOTS_ROWS];
#pragma GCC unroll 6
        for (int r = 0; r < R; r++)
            c0[r] = _mm256_setzero_ps(), c1[r] = c0[r];
        int k = 0;
        for (; k + 16 <= K; k += 16) {
            const __m256 a0 = _mm256_loadu_ps(a + k), a1 = _mm256_loadu_ps(a + k + 8);
#pragma GCC unroll 6
            for (int r = 0; r < R; r++) {
                const float *x = X + (size_t)r * ldx + k;
                c0[r] = _mm256_fmadd_ps(a0, _mm256_loadu_ps(x), c0[r]);
                c1[r] = _mm256_fmadd_ps(a1, _mm256_loadu_ps(x + 8), c1[r]);
            }
        }
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            const float *x = X + (size_t)r * ldx;
            float lanes[8], s = 0.0f;
            _mm256_storeu_ps(lanes, _mm256_add_ps(c0[r], c1[r]));
            for (int q = 0; q < 8; q++)
                s += lanes[q];
            for (int j = k; j < K; j++)
                s = fmaf(a[j], x[j], s);
            out[(size_t)r * ldo + v] = s;
        }
    }
}

KERN_TARGET static void dots_rows_avx2(int R, int N, int K, const float *A, int lda, const float *X,
                                       int ldx, float *out, int ldo)
{
    switch (R) {
    case 1: dots_rows_tile(1, N, K, A, lda, X, ldx, out, ldo); break;
    case 2: dots_rows_tile(2, N, K, A, lda, X, ldx, out, ldo); break;
    case 3: dots_rows_tile(3, N, K, A, lda, X, ldx, out, ldo); break;
    case 4: dots_rows_tile(4, N, K, A, lda, X, ldx, out, ldo); break;
    case 5: dots_rows_tile(5, N, K, A, lda, X, ldx, out, ldo); break;
    default: dots_rows_tile(6, N, K, A, lda, X, ldx, out, ldo); break;
    }
}
#endif

void gpt2k_dots_rows(int R, int N, int K, const float *A, int lda, const float *X, int ldx,
                     float *out, int ldo)
{
    assert(R >= 0 && N >= 0 && K > 0 && lda >= K && ldx >= K && ldo >= N);
    for (int r0 = 0; r0 < R; r0 += KERN_DOTS_ROWS) {
        const int r = R - r0 < KERN_DOTS_ROWS ? R - r0 : KERN_DOTS_ROWS;
#if KERN_X86
        if (mat_packed_available()) {
            dots_rows_avx2(r, N, K, A, lda, X + (size_t)r0 * ldx, ldx, out + (size_t)r0 * ldo, ldo);
            continue;
        }
#endif
        for (int q = 0; q < r; q++)
            gpt2k_dots(N, K, A, lda, X + (size_t)(r0 + q) * ldx, out + (size_t)(r0 + q) * ldo);
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
