/* netopt.c - the optimiser's side of net.h: the global gradient norm and
 * its clipping, and AdamW. Each loop runs over the arenas in two fixed
 * halves (netpair.h), beside each other on two threads, so the numbers are
 * the same whatever the threads.
 */
#include "train/net.h"

#include <math.h>

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

typedef struct {
    const NetAdam *o;
    float c1, c2; /* the bias corrections 1 - beta^t */
} AdamStep;

/* One AdamW update of the parameters [i0, i1): of every tensor, the part
 * inside the range. */
static void adamw_range(void *ctx, size_t i0, size_t i1, void *arg)
{
    Net *net = ctx;
    const AdamStep *st = arg;
    const NetAdam *o = st->o;
    for (int k = 0; k < net->layout.n; k++) {
        const ModelTensor *mt = &net->layout.t[k];
        size_t a = mt->offset > i0 ? mt->offset : i0;
        size_t b = mt->offset + mt->count < i1 ? mt->offset + mt->count : i1;
        const float decay = mt->ndim == 2 ? 1.0f - o->lr * o->weight_decay : 1.0f;
        float *p = net->params, *g = net->grads, *m = net->m, *v = net->v;
        for (size_t i = a; i < b; i++) {
            m[i] = o->beta1 * m[i] + (1.0f - o->beta1) * g[i];
            v[i] = o->beta2 * v[i] + (1.0f - o->beta2) * g[i] * g[i];
            float mhat = m[i] / st->c1, vhat = v[i] / st->c2;
            p[i] = p[i] * decay - o->lr * mhat / (sqrtf(vhat) + o->eps);
        }
    }
}

void net_adamw(Net *net, const NetAdam *o, long t)
{
    AdamStep st = {o, 1.0f - powf(o->beta1, (float)t), 1.0f - powf(o->beta2, (float)t)};
    halves(net, adamw_range, &st, &st);
}
