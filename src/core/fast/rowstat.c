/* rowstat.c - one row of weights measured: its entropy and its largest
 * weight, and the stride of rows that keeps a head's reading to a budget;
 * below stats.c (whose public functions these are) so that the forward's
 * pooling (attn_pool.c) measures rows while they are in cache without
 * depending on the statistics module. The entropy's log2 is its own
 * polynomial, vectorised: libm's log2 of every weight was a fifth of a
 * keystroke's work at 2,048 tokens.
 */
#include "rowstat.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "attn_kernels.h"

/* Entropy works on ENT_LANES weights at a time with fixed-size inner loops,
 * which gcc -O2 vectorises, and keeps ENT_LANES partial sums added in a fixed
 * order, as the softmax does (attn_kernels.h): the same bits whatever vector
 * width the clone has. */
enum { ENT_LANES = 16 };

/* The bits of sqrt(1/2): x's bits minus these split x into 2^e m with m in
 * [sqrt(1/2), sqrt(2)), so that |(m - 1) / (m + 1)| <= 0.1716. */
#define ENT_SQRT_HALF_BITS 0x3f3504f3u

/* acc[c] -= p[c] log2 p[c] for weights p[c] in [0, 1]. log2 m = 2 atanh(t) / ln 2
 * with t = (m - 1) / (m + 1), by the odd series to t^9 (its remainder is under
 * 1e-9): about 2 ulp of float in all. A zero weight gives log2 about -127
 * times 0: exactly 0, with no branch, so the loop vectorises. (gcc shifts a
 * negative int arithmetically, which C leaves to the compiler.) */
static inline void entropy_chunk(const float *restrict p, float *restrict acc, float *restrict sum)
{
    int32_t e[ENT_LANES];
    float m[ENT_LANES];
    for (int c = 0; c < ENT_LANES; c++) {
        uint32_t bits;
        memcpy(&bits, p + c, sizeof bits);
        int32_t d = (int32_t)(bits - ENT_SQRT_HALF_BITS);
        uint32_t mb = ((uint32_t)d & 0x7fffffu) + ENT_SQRT_HALF_BITS;
        e[c] = d >> 23;
        memcpy(m + c, &mb, sizeof mb);
    }
    for (int c = 0; c < ENT_LANES; c++) {
        float t = (m[c] - 1.0f) / (m[c] + 1.0f), t2 = t * t;
        float s = 1.0f / 9.0f;
        s = s * t2 + 1.0f / 7.0f;
        s = s * t2 + 1.0f / 5.0f;
        s = s * t2 + 1.0f / 3.0f;
        s = s * t2 + 1.0f;
        float lg = (float)e[c] + t * s * 2.88539008f; /* 2 / ln 2 */
        acc[c] -= p[c] * lg;
        sum[c] += p[c];
    }
}

SOFTMAX_CLONES
double rowstat_entropy_norm(const float *row, int len, bool *normalised)
{
    const int full = len - len % ENT_LANES;
    float acc[ENT_LANES] = {0}, tail[ENT_LANES] = {0}, sum[ENT_LANES] = {0};
    for (int j = 0; j < full; j += ENT_LANES)
        entropy_chunk(row + j, acc, sum);
    memcpy(tail, row + full, (size_t)(len - full) * sizeof *row); /* zeros weigh 0 */
    entropy_chunk(tail, acc, sum);
    double e = 0, total = 0;
    for (int c = 0; c < ENT_LANES; c++)
        e += acc[c], total += sum[c];
    /* weights that are not a distribution (heads summed, or their maximum):
     * the entropy of the row normalised, so never above log2(len):
     * H(p / s) = H(p) / s + log2 s */
    bool norm = total > 1.001 || (total > 0 && total < 0.999);
    if (norm)
        e = e / total + log2(total);
    if (normalised)
        *normalised = norm;
    return e > 0 ? e : 0; /* a one-hot row rounds to -0 */
}

double rowstat_entropy(const float *row, int len)
{
    return rowstat_entropy_norm(row, len, NULL);
}

/* Four floats at a time (the vectors of any x86-64), as pool.c folds. */
typedef float Stat4 __attribute__((vector_size(4 * sizeof(float))));
typedef int32_t StatI4 __attribute__((vector_size(4 * sizeof(int32_t))));

/* Lanes of b above a's take b (a select by bits): a > b ? a : b lane by lane. */
static inline Stat4 above4(Stat4 a, Stat4 b)
{
    StatI4 m = b > a;
    return (Stat4)(((StatI4)b & m) | ((StatI4)a & ~m));
}

/* The largest of row[0 .. len) and 0: 16 running maxima (four vectors), then
 * those in order and the tail. Only a value strictly above another is taken,
 * so every value taken is positive or the first 0 (+0), and the largest value
 * is the same bits in any order (a NaN is never taken): the sequential
 * scan's result, without its chain of dependent comparisons. */
float rowstat_top(const float *row, int len)
{
    Stat4 t0 = {0}, t1 = t0, t2 = t0, t3 = t0, r0, r1, r2, r3; /* named: not on the stack */
    float lane[16], top = 0.0f;
    int j = 0;
    for (; j + 16 <= len; j += 16) {
        memcpy(&r0, row + j, sizeof r0);
        memcpy(&r1, row + j + 4, sizeof r1);
        memcpy(&r2, row + j + 8, sizeof r2);
        memcpy(&r3, row + j + 12, sizeof r3);
        t0 = above4(t0, r0), t1 = above4(t1, r1), t2 = above4(t2, r2), t3 = above4(t3, r3);
    }
    memcpy(lane, &t0, sizeof t0);
    memcpy(lane + 4, &t1, sizeof t1);
    memcpy(lane + 8, &t2, sizeof t2);
    memcpy(lane + 12, &t3, sizeof t3);
    for (int c = 0; c < 16; c++)
        top = lane[c] > top ? lane[c] : top;
    for (; j < len; j++)
        top = row[j] > top ? row[j] : top;
    return top;
}

int rowstat_stride(int n_q, int n_k, long budget)
{
    long all = (long)n_q * n_k;
    if (all <= budget || n_k <= 0)
        return 1;
    long rows = budget / n_k > 0 ? budget / n_k : 1;
    return (int)((n_q + rows - 1) / rows);
}
