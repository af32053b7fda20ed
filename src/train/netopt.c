/* netopt.c - the optimiser's side of net.h: the global gradient norm and
 * its clipping, and AdamW. Each loop runs over the arenas in two fixed
 * halves (netpair.h), beside each other on two threads, so the numbers are
 * the same whatever the threads.
 */
#include "train/net.h"

#include <math.h>
#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ADAM_X86 1
#endif

#include "netpair.h"

/* fn over the two halves of net's arenas (netpair.h). */
static void halves(Net *net, NetRange fn, void *arg0, void *arg1)
{
    net_pair_halves(&net->worker, net->threads, net->layout.total, fn, net, arg0, arg1);
}

/* *(double *)arg = the sum of the squared gradients [i0, i1), in order. */
static void sum_squares(void *ctx, size_t i0, size_t i1, void *arg)
{
    Net *net = ctx;
    double sum = 0.0;
    for (size_t i = i0; i < i1; i++)
        sum += (double)net->grads[i] * net->grads[i];
    *(double *)arg = sum;
}

/* The gradients [i0, i1) times *(float *)arg. */
static void scale(void *ctx, size_t i0, size_t i1, void *arg)
{
    Net *net = ctx;
    const float f = *(float *)arg;
    for (size_t i = i0; i < i1; i++)
        net->grads[i] *= f;
}

double net_clip_grad(Net *net, double max_norm)
{
    double sum[2] = {0.0, 0.0};
    halves(net, sum_squares, &sum[0], &sum[1]);
    double norm = sqrt(sum[0] + sum[1]);
    if (max_norm > 0.0 && norm > max_norm) {
        float f = (float)(max_norm / norm);
        halves(net, scale, &f, &f);
    }
    return norm;
}

/* *(double *)arg = the sum of the squared gradients [i0, i1), in order,
 * part 1's gradients (grads2) first added to them: add_parts (net.c) and
 * sum_squares in one pass, the same numbers. */
static void add_sum_squares(void *ctx, size_t i0, size_t i1, void *arg)
{
    Net *net = ctx;
    float *restrict g = net->grads;
    const float *restrict g2 = net->grads2;
    double sum = 0.0;
    for (size_t i = i0; i < i1; i++) {
        g[i] += g2[i];
        sum += (double)g[i] * g[i];
    }
    *(double *)arg = sum;
}

typedef struct {
    const NetAdam *o;
    float c1, c2; /* the bias corrections 1 - beta^t */
    bool scaled;  /* the gradients times f first (net_update's clipping) */
    float f;
} AdamStep;

/* The AdamW step of p, g, m, v [0, n): the same IEEE operations, in the
 * same order, for every element (no contraction under -std=c11), so any
 * vector width gives the same bits. */
static void adamw_scalar(float *restrict p, float *restrict g, float *restrict m, float *restrict v,
                         size_t n, const NetAdam *o, const AdamStep *st, float decay)
{
    if (st->scaled)
        for (size_t i = 0; i < n; i++)
            g[i] *= st->f;
    for (size_t i = 0; i < n; i++) {
        m[i] = o->beta1 * m[i] + (1.0f - o->beta1) * g[i];
        v[i] = o->beta2 * v[i] + (1.0f - o->beta2) * g[i] * g[i];
        float mhat = m[i] / st->c1, vhat = v[i] / st->c2;
        p[i] = p[i] * decay - o->lr * mhat / (sqrtf(vhat) + o->eps);
    }
}

#ifdef ADAM_X86
/* adamw_scalar eight floats at a time (its tail scalar): divisions and the
 * square root are correctly rounded in both, so the bits are the same; the
 * scalar loop ran at one element per division (gcc -O2 does not vectorise
 * sqrtf, which may set errno). */
__attribute__((target("avx2"))) static void adamw_avx2(float *p, float *g, float *m, float *v,
                                                       size_t n, const NetAdam *o,
                                                       const AdamStep *st, float decay)
{
    const __m256 b1 = _mm256_set1_ps(o->beta1), a1 = _mm256_set1_ps(1.0f - o->beta1);
    const __m256 b2 = _mm256_set1_ps(o->beta2), a2 = _mm256_set1_ps(1.0f - o->beta2);
    const __m256 c1 = _mm256_set1_ps(st->c1), c2 = _mm256_set1_ps(st->c2);
    const __m256 lr = _mm256_set1_ps(o->lr), eps = _mm256_set1_ps(o->eps);
    const __m256 dec = _mm256_set1_ps(decay), f = _mm256_set1_ps(st->f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 gi = _mm256_loadu_ps(g + i);
        if (st->scaled) { /* the clipping, as scale() would */
            gi = _mm256_mul_ps(gi, f);
            _mm256_storeu_ps(g + i, gi);
        }
        __m256 mi = _mm256_add_ps(_mm256_mul_ps(b1, _mm256_loadu_ps(m + i)), _mm256_mul_ps(a1, gi));
        __m256 vi = _mm256_add_ps(_mm256_mul_ps(b2, _mm256_loadu_ps(v + i)),
                                  _mm256_mul_ps(_mm256_mul_ps(a2, gi), gi));
        _mm256_storeu_ps(m + i, mi);
        _mm256_storeu_ps(v + i, vi);
        __m256 mhat = _mm256_div_ps(mi, c1), vhat = _mm256_div_ps(vi, c2);
        __m256 step =
            _mm256_div_ps(_mm256_mul_ps(lr, mhat), _mm256_add_ps(_mm256_sqrt_ps(vhat), eps));
        _mm256_storeu_ps(p + i, _mm256_sub_ps(_mm256_mul_ps(_mm256_loadu_ps(p + i), dec), step));
    }
    adamw_scalar(p + i, g + i, m + i, v + i, n - i, o, st, decay);
}
#endif

/* One AdamW update of the parameters [i0, i1): of every tensor, the part
 * inside the range. */
static void adamw_range(void *ctx, size_t i0, size_t i1, void *arg)
{
    Net *net = ctx;
    const AdamStep *st = arg;
    const NetAdam *o = st->o;
#ifdef ADAM_X86
    const bool avx2 = __builtin_cpu_supports("avx2");
#endif
    for (int k = 0; k < net->layout.n; k++) {
        const ModelTensor *mt = &net->layout.t[k];
        size_t a = mt->offset > i0 ? mt->offset : i0;
        size_t b = mt->offset + mt->count < i1 ? mt->offset + mt->count : i1;
        const float decay = mt->ndim == 2 ? 1.0f - o->lr * o->weight_decay : 1.0f;
        if (b <= a)
            continue;
#ifdef ADAM_X86
        if (avx2) {
            adamw_avx2(net->params + a, net->grads + a, net->m + a, net->v + a, b - a, o, st,
                       decay);
            continue;
        }
#endif
        adamw_scalar(net->params + a, net->grads + a, net->m + a, net->v + a, b - a, o, st, decay);
    }
}

void net_adamw(Net *net, const NetAdam *o, long t)
{
    AdamStep st = {o, 1.0f - powf(o->beta1, (float)t), 1.0f - powf(o->beta2, (float)t), false,
                   1.0f};
    halves(net, adamw_range, &st, &st);
}

double net_update(Net *net, double max_norm, const NetAdam *o, long t)
{
    double sum[2] = {0.0, 0.0};
    net_parts_backward(net, true);
    halves(net, net->B >= 2 ? add_sum_squares : sum_squares, &sum[0], &sum[1]);
    const double norm = sqrt(sum[0] + sum[1]);
    AdamStep st = {o, 1.0f - powf(o->beta1, (float)t), 1.0f - powf(o->beta2, (float)t), false,
                   1.0f};
    if (max_norm > 0.0 && norm > max_norm)
        st.scaled = true, st.f = (float)(max_norm / norm);
    halves(net, adamw_range, &st, &st);
    return norm;
}
