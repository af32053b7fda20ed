/* net.c - the trainable transformer: arenas, forward, backward, AdamW.
 *
 * After llm.c's train_gpt2.c: the layout table of io/modelfile.h carves the
 * parameter arena, and the same offsets carve the gradient and the two AdamW
 * moment arenas, so the optimiser is one loop over floats. Activations are
 * one more arena, sized once from (batch, context, settings) and kept whole
 * through the forward pass for the backward one. The attention of each
 * sequence is core/attention.h's attention_forward on buffers in that arena.
 */
#include "train/net.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attention.h"
#include "core/mat.h"
#include "core/posenc.h"
#include "core/rng.h"
#include "train/ops.h"

/* Point t's fields at the tensors of arena (which follows net->layout). */
static void point_tensors(const ModelLayout *lay, float *arena, NetTensors *t)
{
    static const char *const names[] = {"ln1_g", "ln1_b", "Wq", "Wk", "Wv", "Wo", "ln2_g",
                                        "ln2_b", "W1", "b1", "W2", "b2"};
    memset(t, 0, sizeof *t);
    for (int k = 0; arena && k < lay->n; k++) {
        const ModelTensor *m = &lay->t[k];
        float *p = arena + m->offset;
        int l;
        char field[MODEL_NAME_MAX];
        if (strcmp(m->name, "embed") == 0)
            t->embed = p;
        else if (strcmp(m->name, "pe") == 0)
            t->pe = p;
        else if (strcmp(m->name, "ln_f_g") == 0)
            t->lnf_g = p;
        else if (strcmp(m->name, "ln_f_b") == 0)
            t->lnf_b = p;
        else if (strcmp(m->name, "unembed") == 0)
            t->unembed = p;
        else if (sscanf(m->name, "layer%d/%23s", &l, field) == 2 && l >= 1 &&
                 l <= AV_MAX_LAYERS) {
            NetLayer *nl = &t->layer[l - 1];
            float **fields[12] = {&nl->ln1_g, &nl->ln1_b, &nl->Wq, &nl->Wk, &nl->Wv, &nl->Wo,
                                  &nl->ln2_g, &nl->ln2_b, &nl->W1, &nl->b1, &nl->W2, &nl->b2};
            for (int f = 0; f < 12; f++)
                if (strcmp(field, names[f]) == 0)
                    *fields[f] = p;
        }
    }
}

/* Carve the activation arena (or, with base NULL, count its floats). */
static size_t carve_acts(Net *net, float *base)
{
    const ModelSpec *s = &net->spec;
    const size_t N = (size_t)net->batch * s->context, D = s->d_model, W = s->mlp;
    const size_t T = s->context, H = s->heads, V = s->V;
    const bool ln = s->layernorm, train = net->grads != NULL;
    size_t off = 0;
#define TAKE(ptr, count) ((ptr) = base ? base + off : NULL, off += (count))
    for (int l = 0; l < s->layers; l++) {
        NetActs *a = &net->layer[l];
        TAKE(a->x, N * D);
        if (ln) {
            TAKE(a->a, N * D), TAKE(a->ln1_mean, N), TAKE(a->ln1_rstd, N);
        }
        TAKE(a->Q, N * D), TAKE(a->K, N * D), TAKE(a->V, N * D);
        TAKE(a->concat, N * D), TAKE(a->attn, N * D), TAKE(a->mid, N * D);
        TAKE(a->P, (size_t)net->batch * H * T * T);
        if (ln && W)
            TAKE(a->m, N * D), TAKE(a->ln2_mean, N), TAKE(a->ln2_rstd, N);
        if (W)
            TAKE(a->h, N * W), TAKE(a->g, N * W);
        if (!ln)
            a->a = a->x;
        if (!(ln && W))
            a->m = a->mid;
    }
    TAKE(net->x_out, N * D), TAKE(net->xf, N * D), TAKE(net->lnf_mean, N);
    TAKE(net->lnf_rstd, N), TAKE(net->logits, N * V), TAKE(net->losses, N);
    TAKE(net->mask, N);
    if (!ln)
        net->xf = net->x_out;
    if (train) {
        TAKE(net->dx, N * D), TAKE(net->dtmp, N * D), TAKE(net->dQ, N * D);
        TAKE(net->dK, N * D), TAKE(net->dV, N * D), TAKE(net->dcat, N * (D > V ? D : V));
        TAKE(net->dh, 2 * N * W), TAKE(net->scratch, 2 * 3 * T * T);
    }
#undef TAKE
    return off;
}

int net_init(Net *net, const ModelSpec *spec, int batch, bool trainable)
{
    memset(net, 0, sizeof *net);
    int err = modelfile_check(spec);
    if (err)
        return err;
    if (batch < 1)
        return AV_ERR_MODEL;
    if ((err = modelfile_spec_copy(&net->spec, spec)))
        return err;
    modelfile_layout(spec, &net->layout);
    net->batch = batch;
    net->threads = 1;
    const size_t P = net->layout.total, N = (size_t)batch * spec->context;
    net->params = calloc(P, sizeof(float));
    if (trainable) {
        net->grads = calloc(P, sizeof(float));
        net->m = calloc(P, sizeof(float));
        net->v = calloc(P, sizeof(float));
    }
    if (spec->pe == MODEL_PE_SINUSOIDAL)
        net->pe_fixed = malloc((size_t)spec->context * spec->d_model * sizeof(float));
    net->tok = malloc(N * sizeof(int));
    net->tgt = malloc(N * sizeof(int));
    size_t count = carve_acts(net, NULL);
    net->acts = calloc(count, sizeof(float));
    if (!net->params || (trainable && (!net->grads || !net->m || !net->v)) || !net->tok ||
        !net->tgt || !net->acts || (spec->pe == MODEL_PE_SINUSOIDAL && !net->pe_fixed)) {
        net_free(net);
        return AV_ERR_NOMEM;
    }
    carve_acts(net, net->acts);
    point_tensors(&net->layout, net->params, &net->p);
    point_tensors(&net->layout, net->grads, &net->g);
    if (net->pe_fixed)
        posenc_fill(0, spec->context, spec->d_model, net->pe_fixed);
    return AV_OK;
}

void net_free(Net *net)
{
    modelfile_spec_free(&net->spec);
    free(net->params);
    free(net->grads);
    free(net->m);
    free(net->v);
    free(net->pe_fixed);
    free(net->acts);
    free(net->tok);
    free(net->tgt);
    memset(net, 0, sizeof *net);
}

void net_init_weights(Net *net, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    for (int k = 0; k < net->layout.n; k++) {
        const ModelTensor *t = &net->layout.t[k];
        float *p = net->params + t->offset;
        const char *leaf = strrchr(t->name, '/') ? strrchr(t->name, '/') + 1 : t->name;
        bool gain = leaf[0] == 'l' && leaf[strlen(leaf) - 1] == 'g';
        size_t fan_in = strcmp(leaf, "embed") == 0 || strcmp(leaf, "pe") == 0 ? t->shape[1]
                                                                              : t->shape[0];
        float std = 1.0f / sqrtf((float)fan_in);
        for (size_t i = 0; i < t->count; i++)
            p[i] = t->ndim == 2 ? rng_symmetric(&r, std) : gain ? 1.0f : 0.0f;
    }
}

/* Sequences [b0, b1) of layer l: attention_forward (backward false) on
 * buffers of the arena, or the attention backward pass with scratch. */
typedef struct {
    Net *net;
    int l, b0, b1;
    bool backward;
    float *scratch;
    int err;
} NetPart;

static void *part_run(void *arg)
{
    NetPart *pt = arg;
    Net *net = pt->net;
    const int D = net->spec.d_model, H = net->spec.heads, n = net->n;
    NetActs *a = &net->layer[pt->l];
    const NetLayer *w = &net->p.layer[pt->l];
    AttnShape sh = {.n_q = n, .n_k = n, .d_model = D, .H = H, .causal = true, .scale = true,
                    .temperature = 1.0f};
    AttnWeights aw = {.Wq = w->Wq, .Wk = w->Wk, .Wv = w->Wv, .Wo = w->Wo};
    for (int b = pt->b0; b < pt->b1 && !pt->err; b++) {
        const long o = (long)b * n * D;
        float *P = a->P + (long)b * H * n * n;
        if (pt->backward) {
            ops_attention_backward(net->dQ + o, net->dK + o, net->dV + o, net->dcat + o,
                                   a->Q + o, a->K + o, a->V + o, P, n, D, H, pt->scratch);
            continue;
        }
        AttnBuffers buf = {.Q = a->Q + o, .K = a->K + o, .V = a->V + o, .S = NULL, .P = P,
                           .concat = a->concat + o, .out = a->attn + o};
        pt->err = attention_forward(&sh, a->a + o, a->a + o, &aw, &buf);
    }
    return NULL;
}

/* Every sequence of layer l (forward or backward), split over net->threads:
 * each sequence is computed the same way by either thread into its own rows,
 * so the numbers do not depend on the threads. */
static int parts_run(Net *net, int l, bool backward)
{
    const size_t tt = 3 * (size_t)net->spec.context * net->spec.context;
    NetPart pt[2] = {{net, l, 0, net->B, backward, net->scratch, AV_OK},
                     {net, l, net->B, net->B, backward, net->scratch + tt, AV_OK}};
    pthread_t tid;
    bool helper = false;
    if (net->threads > 1 && net->B > 1) {
        pt[0].b1 = pt[1].b0 = net->B / 2;
        helper = pthread_create(&tid, NULL, part_run, &pt[1]) == 0;
    }
    part_run(&pt[0]);
    if (helper)
        pthread_join(tid, NULL);
    else
        part_run(&pt[1]);
    return pt[0].err ? pt[0].err : pt[1].err;
}

/* One layer forward: a->x in, out (B*n, D) out. */
static int layer_forward(Net *net, int l, int B, int n, float *out)
{
    const ModelSpec *s = &net->spec;
    const int N = B * n, D = s->d_model, W = s->mlp;
    NetActs *a = &net->layer[l];
    const NetLayer *w = &net->p.layer[l];
    if (s->layernorm)
        ops_layernorm_forward(a->a, a->ln1_mean, a->ln1_rstd, a->x, w->ln1_g, w->ln1_b, N, D);
    int err = parts_run(net, l, false);
    if (err)
        return err;
    for (long i = 0; i < (long)N * D; i++)
        a->mid[i] = a->x[i] + a->attn[i];
    if (!W) {
        memcpy(out, a->mid, (size_t)N * D * sizeof *out);
        return AV_OK;
    }
    if (s->layernorm)
        ops_layernorm_forward(a->m, a->ln2_mean, a->ln2_rstd, a->mid, w->ln2_g, w->ln2_b, N, D);
    ops_linear_forward(a->h, a->m, w->W1, w->b1, N, D, W);
    ops_act_forward(a->g, a->h, (long)N * W, s->activation == MODEL_ACT_RELU);
    ops_linear_forward(out, a->g, w->W2, w->b2, N, W, D);
    for (long i = 0; i < (long)N * D; i++)
        out[i] += a->mid[i];
    return AV_OK;
}

static int forward_layers(Net *net, const int *tok, const int *tgt, const float *mask,
                          double *loss);

int net_forward(Net *net, const int *tok, const int *tgt, const float *mask, int B, int n,
                double *loss)
{
    const ModelSpec *s = &net->spec;
    const int N = B * n;
    if (B < 1 || B > net->batch || n < 1 || n > s->context)
        return AV_ERR_CONFIG;
    for (int r = 0; r < N; r++)
        if (tok[r] < 0 || tok[r] >= s->V || (tgt && (tgt[r] < 0 || tgt[r] >= s->V)))
            return AV_ERR_CONFIG;
    net->B = B, net->n = n, net->has_loss = tgt && mask;
    return forward_layers(net, tok, tgt, mask, loss);
}

/* net_forward's passes, its arguments checked. */
static int forward_layers(Net *net, const int *tok, const int *tgt, const float *mask,
                          double *loss)
{
    const ModelSpec *s = &net->spec;
    const int B = net->B, n = net->n, N = B * n, D = s->d_model;
    memcpy(net->tok, tok, (size_t)N * sizeof *tok);
    const float *pe = s->pe == MODEL_PE_LEARNED ? net->p.pe : net->pe_fixed;
    ops_embed_forward(net->layer[0].x, tok, net->p.embed, pe, N, n, D);
    for (int l = 0; l < s->layers; l++) {
        float *out = l + 1 < s->layers ? net->layer[l + 1].x : net->x_out;
        int err = layer_forward(net, l, B, n, out);
        if (err)
            return err;
    }
    if (s->layernorm)
        ops_layernorm_forward(net->xf, net->lnf_mean, net->lnf_rstd, net->x_out, net->p.lnf_g,
                              net->p.lnf_b, N, D);
    ops_linear_forward(net->logits, net->xf, net->p.unembed, NULL, N, D, s->V);
    if (net->has_loss) {
        memcpy(net->tgt, tgt, (size_t)N * sizeof *tgt);
        memcpy(net->mask, mask, (size_t)N * sizeof *mask);
        double l = ops_crossentropy_forward(net->logits, net->logits, tgt, mask, net->losses,
                                            N, s->V);
        if (loss)
            *loss = l;
    }
    return AV_OK;
}

void net_zero_grad(Net *net)
{
    memset(net->grads, 0, net->layout.total * sizeof *net->grads);
}

/* Backward of layer l's attention half: dx holds d(loss)/d(mid) and gets
 * d(loss)/d(x) added. */
static void attention_half_backward(Net *net, int l)
{
    const ModelSpec *s = &net->spec;
    const int N = net->B * net->n, D = s->d_model;
    NetActs *a = &net->layer[l];
    const NetLayer *w = &net->p.layer[l];
    NetLayer *gw = &net->g.layer[l];
    const size_t ND = (size_t)N * D * sizeof(float);
    memset(net->dcat, 0, ND);
    ops_linear_backward(net->dcat, gw->Wo, NULL, net->dx, a->concat, w->Wo, N, D, D);
    parts_run(net, l, true);
    float *da = s->layernorm ? net->dtmp : net->dx;
    if (s->layernorm)
        memset(da, 0, ND);
    ops_linear_backward(da, gw->Wq, NULL, net->dQ, a->a, w->Wq, N, D, D);
    ops_linear_backward(da, gw->Wk, NULL, net->dK, a->a, w->Wk, N, D, D);
    ops_linear_backward(da, gw->Wv, NULL, net->dV, a->a, w->Wv, N, D, D);
    if (s->layernorm)
        ops_layernorm_backward(net->dx, gw->ln1_g, gw->ln1_b, da, a->x, w->ln1_g, a->ln1_mean,
                               a->ln1_rstd, N, D);
}

/* Backward of layer l's MLP half: dx holds d(loss)/d(out) and gets
 * d(loss)/d(mid) added. */
static void mlp_half_backward(Net *net, int l)
{
    const ModelSpec *s = &net->spec;
    const int N = net->B * net->n, D = s->d_model, W = s->mlp;
    NetActs *a = &net->layer[l];
    const NetLayer *w = &net->p.layer[l];
    NetLayer *gw = &net->g.layer[l];
    float *dg = net->dh, *dh = net->dh + (size_t)N * W;
    memset(net->dh, 0, 2 * (size_t)N * W * sizeof(float));
    ops_linear_backward(dg, gw->W2, gw->b2, net->dx, a->g, w->W2, N, W, D);
    ops_act_backward(dh, a->h, dg, (long)N * W, s->activation == MODEL_ACT_RELU);
    float *dm = s->layernorm ? net->dtmp : net->dx;
    if (s->layernorm)
        memset(dm, 0, (size_t)N * D * sizeof(float));
    ops_linear_backward(dm, gw->W1, gw->b1, dh, a->m, w->W1, N, D, W);
    if (s->layernorm)
        ops_layernorm_backward(net->dx, gw->ln2_g, gw->ln2_b, dm, a->mid, w->ln2_g, a->ln2_mean,
                               a->ln2_rstd, N, D);
}

static void backward_layers(Net *net);

void net_backward(Net *net)
{
    backward_layers(net);
}

void net_set_threads(Net *net, int threads)
{
    net->threads = threads > 1 ? 2 : 1;
}

/* net_backward's passes. */
static void backward_layers(Net *net)
{
    const ModelSpec *s = &net->spec;
    const int N = net->B * net->n, D = s->d_model, V = s->V;
    const size_t ND = (size_t)N * D * sizeof(float);
    float *dlogits = net->dcat; /* free until the layers start */
    memset(dlogits, 0, (size_t)N * V * sizeof(float));
    ops_crossentropy_backward(dlogits, net->logits, net->tgt, net->mask, N, V);
    float *dxf = s->layernorm ? net->dtmp : net->dx;
    memset(dxf, 0, ND);
    ops_linear_backward(dxf, net->g.unembed, NULL, dlogits, net->xf, net->p.unembed, N, D, V);
    if (s->layernorm) {
        memset(net->dx, 0, ND);
        ops_layernorm_backward(net->dx, net->g.lnf_g, net->g.lnf_b, dxf, net->x_out,
                               net->p.lnf_g, net->lnf_mean, net->lnf_rstd, N, D);
    }
    for (int l = s->layers - 1; l >= 0; l--) {
        if (s->mlp)
            mlp_half_backward(net, l);
        attention_half_backward(net, l);
    }
    ops_embed_backward(net->g.embed, s->pe == MODEL_PE_LEARNED ? net->g.pe : NULL, net->dx,
                       net->tok, N, net->n, D);
}

double net_clip_grad(Net *net, double max_norm)
{
    double sum = 0.0;
    for (size_t i = 0; i < net->layout.total; i++)
        sum += (double)net->grads[i] * net->grads[i];
    double norm = sqrt(sum);
    if (max_norm > 0.0 && norm > max_norm) {
        float f = (float)(max_norm / norm);
        for (size_t i = 0; i < net->layout.total; i++)
            net->grads[i] *= f;
    }
    return norm;
}

void net_adamw(Net *net, const NetAdam *o, long t)
{
    const float c1 = 1.0f - powf(o->beta1, (float)t), c2 = 1.0f - powf(o->beta2, (float)t);
    for (int k = 0; k < net->layout.n; k++) {
        const ModelTensor *mt = &net->layout.t[k];
        const float decay = mt->ndim == 2 ? 1.0f - o->lr * o->weight_decay : 1.0f;
        float *p = net->params + mt->offset, *g = net->grads + mt->offset;
        float *m = net->m + mt->offset, *v = net->v + mt->offset;
        for (size_t i = 0; i < mt->count; i++) {
            m[i] = o->beta1 * m[i] + (1.0f - o->beta1) * g[i];
            v[i] = o->beta2 * v[i] + (1.0f - o->beta2) * g[i] * g[i];
            float mhat = m[i] / c1, vhat = v[i] / c2;
            p[i] = p[i] * decay - o->lr * mhat / (sqrtf(vhat) + o->eps);
        }
    }
}

const float *net_weights(const Net *net, int l, int b, int h)
{
    const int n = net->n, H = net->spec.heads;
    return net->layer[l].P + ((long)b * H + h) * n * n;
}
