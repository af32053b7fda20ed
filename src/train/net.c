/* net.c - the trainable transformer: arenas, forward, backward, AdamW.
 *
 * After llm.c's train_gpt2.c: the layout table of io/modelfile.h carves the
 * parameter arena, and the same offsets carve the gradient and the two AdamW
 * moment arenas, so the optimiser is one loop over floats. Activations are
 * one more arena, sized once from (batch, context, settings) and kept whole
 * through the forward pass for the backward one. The attention's Q, K, V
 * and output products take all of a part's rows at once; each sequence's
 * heads are core/attention.h's attention_heads (attention_forward's numbers
 * from those Q, K, V), on buffers in that arena.
 */
#include "train/net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attention.h"
#include "core/mat.h"
#include "core/posenc.h"
#include "core/rng.h"
#include "train/ops.h"
#include "netpair.h"

/* Point t's fields at the tensors of arena (which follows net->layout). */
static void point_tensors(const ModelLayout *lay, float *arena, NetTensors *t)
{
    static const char *const names[] = {"ln1_g", "ln1_b", "Wq", "Wk", "Wv", "Wo",
                                        "ln2_g", "ln2_b", "W1", "b1", "W2", "b2"};
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
        else if (sscanf(m->name, "layer%d/%23s", &l, field) == 2 && l >= 1 && l <= AV_MAX_LAYERS) {
            NetLayer *nl = &t->layer[l - 1];
            float **fields[12] = {&nl->ln1_g, &nl->ln1_b, &nl->Wq, &nl->Wk, &nl->Wv, &nl->Wo,
                                  &nl->ln2_g, &nl->ln2_b, &nl->W1, &nl->b1, &nl->W2, &nl->b2};
            for (int f = 0; f < 12; f++)
                if (strcmp(field, names[f]) == 0)
                    *fields[f] = p;
        }
    }
}

static AttnShape seq_shape_n(const ModelSpec *s, int n);

/* Floats of one part's forward work: the packed heads of a sequence of the
 * whole context, and the largest packed weight matrix (64-float aligned). */
static size_t part_work_floats(const ModelSpec *s)
{
    const AttnShape sh = seq_shape_n(s, s->context);
    const int D = s->d_model, W = s->mlp, V = s->V;
    size_t w = mat_packed_floats(D, D), heads = attention_heads_work(&sh);
    size_t cand[4] = {W ? mat_packed_floats(D, W) : 0, W ? mat_packed_floats(W, D) : 0,
                      mat_packed_floats(D, V), mat_packed_floats(V, D)}; /* w, w^T */
    for (int k = 0; k < 4; k++)
        w = cand[k] > w ? cand[k] : w;
    return (heads + 15) / 16 * 16 + (w + 15) / 16 * 16;
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
        if (W && s->activation == MODEL_ACT_GELU)
            TAKE(a->t, N * W);
        if (!ln)
            a->a = a->x;
        if (!(ln && W))
            a->m = a->mid;
    }
    TAKE(net->x_out, N * D), TAKE(net->xf, N * D), TAKE(net->lnf_mean, N);
    TAKE(net->lnf_rstd, N), TAKE(net->logits, N * V), TAKE(net->losses, N);
    TAKE(net->mask, N);
    TAKE(net->work, 2 * net->work_part);
    if (!ln)
        net->xf = net->x_out;
    if (train) {
        TAKE(net->dx, N * D), TAKE(net->dtmp, N * D), TAKE(net->dQ, N * D);
        TAKE(net->dK, N * D), TAKE(net->dV, N * D), TAKE(net->dcat, N * (D > V ? D : V));
        TAKE(net->dh, 2 * N * W), TAKE(net->scratch, 2 * ops_attention_backward_scratch(T, D, H));
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
        net->grads2 = calloc(P, sizeof(float));
        net->m = calloc(P, sizeof(float));
        net->v = calloc(P, sizeof(float));
    }
    if (spec->pe == MODEL_PE_SINUSOIDAL)
        net->pe_fixed = malloc((size_t)spec->context * spec->d_model * sizeof(float));
    net->tok = malloc(N * sizeof(int));
    net->tgt = malloc(N * sizeof(int));
    net->best = malloc(N * sizeof(int));
    net->work_part = part_work_floats(spec);
    size_t count = carve_acts(net, NULL);
    net->acts = calloc(count, sizeof(float));
    if (!net->params || (trainable && (!net->grads || !net->grads2 || !net->m || !net->v)) ||
        !net->tok || !net->tgt || !net->best || !net->acts ||
        (spec->pe == MODEL_PE_SINUSOIDAL && !net->pe_fixed)) {
        net_free(net);
        return AV_ERR_NOMEM;
    }
    carve_acts(net, net->acts);
    point_tensors(&net->layout, net->params, &net->p);
    point_tensors(&net->layout, net->grads, &net->g);
    point_tensors(&net->layout, net->grads2, &net->g2);
    if (net->pe_fixed)
        posenc_fill(0, spec->context, spec->d_model, net->pe_fixed);
    return AV_OK;
}

void net_free(Net *net)
{
    net_pair_stop(net->worker);
    modelfile_spec_free(&net->spec);
    free(net->params);
    free(net->grads);
    free(net->grads2);
    free(net->m);
    free(net->v);
    free(net->pe_fixed);
    free(net->acts);
    free(net->tok);
    free(net->tgt);
    free(net->best);
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
        size_t fan_in =
            strcmp(leaf, "embed") == 0 || strcmp(leaf, "pe") == 0 ? t->shape[1] : t->shape[0];
        float std = 1.0f / sqrtf((float)fan_in);
        for (size_t i = 0; i < t->count; i++)
            p[i] = t->ndim == 2 ? rng_symmetric(&r, std) : gain ? 1.0f : 0.0f;
    }
}

/* The batch is cut into parts of whole sequences, two when B >= 2 (sequences
 * [0, B/2) and [B/2, B)), one otherwise. Each part runs the whole forward and
 * backward pass on its own rows of the arenas, with no lock: only the weight
 * gradients are shared, so part 0 adds its own to net->grads and part 1
 * writes its own into net->grads2, added after in that order. The cut
 * depends on B alone, never on the threads, so one thread or two give the
 * same bits. */
enum { NET_PARTS = 2 };

typedef struct {
    Net *net;
    int b0, B, N;             /* sequences [b0, b0 + B), N = B * n rows */
    NetActs L[AV_MAX_LAYERS]; /* each layer's activations at the part's rows */
    float *x_out, *xf, *lnf_mean, *lnf_rstd, *logits, *losses, *mask;
    int *tok, *tgt, *best;
    float *hwork, *wpack; /* its packed heads and packed weights (net->work) */
    float *dx, *dtmp, *dQ, *dK, *dV, *dcat, *dh, *scratch;
    const NetTensors *g; /* where its weight gradients go */
    float *garena;       /* that arena when it must be zeroed first (part 1; part 0
                          * for net_parts_backward(.., true)) */
    double count;        /* the whole batch's mask sum, for the backward pass */
    bool backward;
    int err;
} Part;

#define AT(p, k) ((p) ? (p) + (k) : NULL)

/* Layer activations a at the rows from r0 (sequence b0) into v. */
static void acts_at(const NetActs *a, NetActs *v, long r0, long b0, long D, long W, long HNN)
{
    *v = (NetActs){.x = AT(a->x, r0 * D),
                   .a = AT(a->a, r0 * D),
                   .ln1_mean = AT(a->ln1_mean, r0),
                   .ln1_rstd = AT(a->ln1_rstd, r0),
                   .Q = AT(a->Q, r0 * D),
                   .K = AT(a->K, r0 * D),
                   .V = AT(a->V, r0 * D),
                   .concat = AT(a->concat, r0 * D),
                   .attn = AT(a->attn, r0 * D),
                   .P = AT(a->P, b0 * HNN),
                   .mid = AT(a->mid, r0 * D),
                   .m = AT(a->m, r0 * D),
                   .ln2_mean = AT(a->ln2_mean, r0),
                   .ln2_rstd = AT(a->ln2_rstd, r0),
                   .h = AT(a->h, r0 * W),
                   .g = AT(a->g, r0 * W),
                   .t = AT(a->t, r0 * W)};
}

/* Part k of parts of the last forward's batch into *pt. */
static void part_make(Net *net, int k, int parts, Part *pt)
{
    const ModelSpec *s = &net->spec;
    const long n = net->n, D = s->d_model, W = s->mlp, V = s->V, DV = D > V ? D : V;
    memset(pt, 0, sizeof *pt);
    pt->net = net;
    pt->b0 = k == 0 ? 0 : net->B / 2;
    pt->B = parts == 1 ? net->B : k == 0 ? net->B / 2 : net->B - net->B / 2;
    pt->N = pt->B * net->n;
    const long r0 = pt->b0 * n;
    for (int l = 0; l < s->layers; l++)
        acts_at(&net->layer[l], &pt->L[l], r0, pt->b0, D, W, s->heads * n * n);
    pt->x_out = net->x_out + r0 * D, pt->xf = net->xf + r0 * D;
    pt->lnf_mean = net->lnf_mean + r0, pt->lnf_rstd = net->lnf_rstd + r0;
    pt->logits = net->logits + r0 * V, pt->losses = net->losses + r0, pt->mask = net->mask + r0;
    pt->tok = net->tok + r0, pt->tgt = net->tgt + r0, pt->best = net->best + r0;
    const AttnShape sh = seq_shape_n(s, s->context);
    pt->hwork = net->work + k * net->work_part;
    pt->wpack = pt->hwork + (attention_heads_work(&sh) + 15) / 16 * 16;
    if (!net->grads)
        return;
    pt->dx = net->dx + r0 * D, pt->dtmp = net->dtmp + r0 * D, pt->dQ = net->dQ + r0 * D;
    pt->dK = net->dK + r0 * D, pt->dV = net->dV + r0 * D, pt->dcat = net->dcat + r0 * DV;
    pt->dh = AT(net->dh, 2 * r0 * W);
    pt->scratch = net->scratch + k * ops_attention_backward_scratch(s->context, D, s->heads);
    pt->g = k == 0 ? &net->g : &net->g2;
    pt->garena = k == 0 ? NULL : net->grads2;
}

/* The shape of the attention of one sequence of n tokens. */
static AttnShape seq_shape_n(const ModelSpec *s, int n)
{
    return (AttnShape){.n_q = n,
                       .n_k = n,
                       .d_model = s->d_model,
                       .H = s->heads,
                       .causal = true,
                       .scale = true,
                       .temperature = 1.0f};
}

/* The shape of one sequence's attention in the last forward. */
static AttnShape seq_shape(const Net *net)
{
    return seq_shape_n(&net->spec, net->n);
}

/* One layer forward on pt's rows: a->x in, out (N, D) out. */
static int layer_forward(Part *pt, int l, float *out)
{
    const Net *net = pt->net;
    const ModelSpec *s = &net->spec;
    const int N = pt->N, n = net->n, D = s->d_model, W = s->mlp, H = s->heads;
    NetActs *a = &pt->L[l];
    const NetLayer *w = &net->p.layer[l];
    if (s->layernorm)
        ops_layernorm_forward(a->a, a->ln1_mean, a->ln1_rstd, a->x, w->ln1_g, w->ln1_b, N, D);
    /* Q, K, V of all the part's rows in one product each, then each
     * sequence's heads (attention_heads: attention_forward's numbers from
     * them), then attn = concat Wo in one product */
    const AttnShape sh = seq_shape(net);
    float *hw = attention_heads_work(&sh) ? pt->hwork : NULL;
    ops_linear_forward_packed(a->Q, a->a, w->Wq, NULL, N, D, D, pt->wpack);
    ops_linear_forward_packed(a->K, a->a, w->Wk, NULL, N, D, D, pt->wpack);
    ops_linear_forward_packed(a->V, a->a, w->Wv, NULL, N, D, D, pt->wpack);
    /* a diverged training (too high a --lr), or a model folder of huge
     * weights: scores that are not floats, which the softmax cannot take */
    const size_t nd = (size_t)N * D;
    if (!attention_scores_bounded(&sh, attention_max_abs(a->Q, nd), attention_max_abs(a->K, nd)) ||
        !isfinite(attention_max_abs(a->V, nd)))
        return AV_ERR_OVERFLOW;
    for (int b = 0; b < pt->B; b++) {
        const long o = (long)b * n * D;
        int err = attention_heads(&sh, a->Q + o, a->K + o, a->V + o, a->P + (long)b * H * n * n,
                                  a->concat + o, hw);
        if (err)
            return err;
    }
    ops_linear_forward_packed(a->attn, a->concat, w->Wo, NULL, N, D, D, pt->wpack);
    ops_add(a->mid, a->x, a->attn, (long)N * D);
    if (!W) {
        memcpy(out, a->mid, (size_t)N * D * sizeof *out);
        return AV_OK;
    }
    if (s->layernorm)
        ops_layernorm_forward(a->m, a->ln2_mean, a->ln2_rstd, a->mid, w->ln2_g, w->ln2_b, N, D);
    if (a->t) { /* GELU: the bias added in the same pass, the tanh kept */
        ops_linear_forward_packed(a->h, a->m, w->W1, NULL, N, D, W, pt->wpack);
        ops_bias_gelu_forward(a->g, a->t, a->h, w->b1, N, W);
    } else {
        ops_linear_forward_packed(a->h, a->m, w->W1, w->b1, N, D, W, pt->wpack);
        ops_act_forward(a->g, a->h, (long)N * W, s->activation == MODEL_ACT_RELU);
    }
    ops_linear_forward_packed(out, a->g, w->W2, w->b2, N, W, D, pt->wpack);
    ops_add_to(out, a->mid, (long)N * D);
    return AV_OK;
}

/* The forward pass of pt's rows, from its tokens to its logits (and, with
 * targets, probabilities and per-row losses). */
static void part_forward(Part *pt)
{
    const Net *net = pt->net;
    const ModelSpec *s = &net->spec;
    const int N = pt->N, D = s->d_model;
    const float *pe = s->pe == MODEL_PE_LEARNED ? net->p.pe : net->pe_fixed;
    ops_embed_forward(pt->L[0].x, pt->tok, net->p.embed, pe, N, net->n, D);
    for (int l = 0; l < s->layers; l++) {
        float *out = l + 1 < s->layers ? pt->L[l + 1].x : pt->x_out;
        if ((pt->err = layer_forward(pt, l, out)))
            return;
    }
    if (s->layernorm)
        ops_layernorm_forward(pt->xf, pt->lnf_mean, pt->lnf_rstd, pt->x_out, net->p.lnf_g,
                              net->p.lnf_b, N, D);
    ops_linear_forward_packed(pt->logits, pt->xf, net->p.unembed, NULL, N, D, s->V, pt->wpack);
    if (!net->has_loss)
        return;
    ops_crossentropy_forward(pt->logits, pt->logits, pt->tgt, pt->mask, pt->losses, N, s->V);
    for (int r = 0; r < N; r++) { /* for the accuracy: off the serial path */
        const float *p = pt->logits + (long)r * s->V;
        int best = 0;
        float top = p[0];
        for (int v = 1; v < s->V; v++)
            if (p[v] > top)
                top = p[v], best = v;
        pt->best[r] = best;
    }
}

static void part_backward(Part *pt);

static void part_run(void *arg)
{
    Part *pt = arg;
    if (pt->backward)
        part_backward(pt);
    else
        part_forward(pt);
}

/* The last forward's batch (forward or backward) in its parts, part 1 on the
 * second thread when net->threads > 1 and the attention keeps to one thread
 * (attention_threads: only wide models do not, whose OpenBLAS calls must not
 * run beside others). Backward with zero: part 0 zeroes net->grads first,
 * as part 1 does net->grads2 (net_update's pass instead of net_zero_grad). */
static int parts_run(Net *net, bool backward, bool zero)
{
    const int parts = net->B >= 2 ? NET_PARTS : 1;
    Part pt[NET_PARTS];
    double count = 0.0;
    for (int r = 0; backward && r < net->B * net->n; r++)
        count += net->mask[r];
    for (int k = 0; k < parts; k++) {
        part_make(net, k, parts, &pt[k]);
        pt[k].backward = backward, pt[k].count = count;
    }
    if (backward && zero)
        pt[0].garena = net->grads;
    const AttnShape sh = seq_shape(net);
    net_pair_run(&net->worker, net->threads, part_run, &pt[0], parts > 1 ? &pt[1] : NULL,
                 attention_threads(&sh) == 1);
    return pt[0].err ? pt[0].err : parts > 1 ? pt[1].err : AV_OK;
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
static int forward_layers(Net *net, const int *tok, const int *tgt, const float *mask, double *loss)
{
    const int N = net->B * net->n;
    memcpy(net->tok, tok, (size_t)N * sizeof *tok);
    if (net->has_loss) {
        memcpy(net->tgt, tgt, (size_t)N * sizeof *tgt);
        memcpy(net->mask, mask, (size_t)N * sizeof *mask);
    }
    int err = parts_run(net, false, false);
    if (err || !net->has_loss)
        return err;
    /* the masked mean of the rows' losses, summed in row order */
    double total = 0.0, count = 0.0;
    for (int r = 0; r < N; r++) {
        total += (double)net->mask[r] * net->losses[r];
        count += net->mask[r];
    }
    if (loss)
        *loss = count > 0.0 ? total / count : 0.0;
    return AV_OK;
}

/* grads [i0, i1) = 0. */
static void zero_range(void *ctx, size_t i0, size_t i1, void *unused)
{
    Net *net = ctx;
    (void)unused;
    memset(net->grads + i0, 0, (i1 - i0) * sizeof *net->grads);
}

void net_zero_grad(Net *net)
{
    net_pair_halves(&net->worker, net->threads, net->layout.total, zero_range, net, NULL, NULL);
}

/* Backward of layer l's attention half on pt's rows: dx holds
 * d(loss)/d(mid) and gets d(loss)/d(x) added. */
static void attention_half_backward(Part *pt, int l)
{
    const Net *net = pt->net;
    const ModelSpec *s = &net->spec;
    const int N = pt->N, n = net->n, D = s->d_model, H = s->heads;
    const NetActs *a = &pt->L[l];
    const NetLayer *w = &net->p.layer[l], *gw = &pt->g->layer[l];
    ops_linear_backward_set_packed(pt->dcat, gw->Wo, NULL, pt->dx, a->concat, w->Wo, N, D, D,
                                   pt->wpack);
    for (int b = 0; b < pt->B; b++) {
        const long o = (long)b * n * D;
        ops_attention_backward(pt->dQ + o, pt->dK + o, pt->dV + o, pt->dcat + o, a->Q + o, a->K + o,
                               a->V + o, a->P + (long)b * H * n * n, n, D, H, pt->scratch);
    }
    float *da = s->layernorm ? pt->dtmp : pt->dx;
    /* da (+)= dQ Wq^T + dK Wk^T + dV Wv^T: each product written into dcat
     * (free again) and added, the written products being the faster kind */
    const float *dY[3] = {pt->dQ, pt->dK, pt->dV};
    const float *Wt[3] = {w->Wq, w->Wk, w->Wv};
    float *gW[3] = {gw->Wq, gw->Wk, gw->Wv};
    for (int k = 0; k < 3; k++) {
        bool first = k == 0 && s->layernorm; /* da is dtmp: written, not added to */
        ops_linear_backward_set_packed(first ? da : pt->dcat, gW[k], NULL, dY[k], a->a, Wt[k], N, D,
                                       D, pt->wpack);
        if (!first)
            ops_add_to(da, pt->dcat, (long)N * D);
    }
    if (s->layernorm)
        ops_layernorm_backward(pt->dx, gw->ln1_g, gw->ln1_b, da, a->x, w->ln1_g, a->ln1_mean,
                               a->ln1_rstd, N, D);
}

/* Backward of layer l's MLP half on pt's rows: dx holds d(loss)/d(out) and
 * gets d(loss)/d(mid) added. */
static void mlp_half_backward(Part *pt, int l)
{
    const Net *net = pt->net;
    const ModelSpec *s = &net->spec;
    const int N = pt->N, D = s->d_model, W = s->mlp;
    const NetActs *a = &pt->L[l];
    const NetLayer *w = &net->p.layer[l], *gw = &pt->g->layer[l];
    float *dg = pt->dh, *dh = pt->dh + (size_t)N * W;
    ops_linear_backward_set_packed(dg, gw->W2, gw->b2, pt->dx, a->g, w->W2, N, W, D, pt->wpack);
    if (a->t) {
        ops_gelu_backward_saved(dh, a->h, a->t, dg, (long)N * W);
    } else {
        memset(dh, 0, (size_t)N * W * sizeof(float));
        ops_act_backward(dh, a->h, dg, (long)N * W, s->activation == MODEL_ACT_RELU);
    }
    float *dm = s->layernorm ? pt->dtmp : pt->dx;
    if (s->layernorm)
        ops_linear_backward_set_packed(dm, gw->W1, gw->b1, dh, a->m, w->W1, N, D, W, pt->wpack);
    else
        ops_linear_backward(dm, gw->W1, gw->b1, dh, a->m, w->W1, N, D, W);
    if (s->layernorm)
        ops_layernorm_backward(pt->dx, gw->ln2_g, gw->ln2_b, dm, a->mid, w->ln2_g, a->ln2_mean,
                               a->ln2_rstd, N, D);
}

/* grads += grads2 over [i0, i1). */
static void add_parts(void *ctx, size_t i0, size_t i1, void *unused)
{
    Net *net = ctx;
    (void)unused;
    ops_add_to(net->grads + i0, net->grads2 + i0, (long)(i1 - i0));
}

/* The backward pass of pt's rows, its weight gradients added to pt->g. */
static void part_backward(Part *pt)
{
    const Net *net = pt->net;
    const ModelSpec *s = &net->spec;
    const int N = pt->N, D = s->d_model, V = s->V;
    const size_t ND = (size_t)N * D * sizeof(float);
    if (pt->garena)
        memset(pt->garena, 0, net->layout.total * sizeof *pt->garena);
    float *dlogits = pt->dcat; /* free until the layers start */
    memset(dlogits, 0, (size_t)N * V * sizeof(float));
    ops_crossentropy_backward(dlogits, pt->logits, pt->tgt, pt->mask, N, V, pt->count);
    float *dxf = s->layernorm ? pt->dtmp : pt->dx;
    ops_linear_backward_set_packed(dxf, pt->g->unembed, NULL, dlogits, pt->xf, net->p.unembed, N, D,
                                   V, pt->wpack);
    if (s->layernorm) {
        memset(pt->dx, 0, ND);
        ops_layernorm_backward(pt->dx, pt->g->lnf_g, pt->g->lnf_b, dxf, pt->x_out, net->p.lnf_g,
                               pt->lnf_mean, pt->lnf_rstd, N, D);
    }
    for (int l = s->layers - 1; l >= 0; l--) {
        if (s->mlp)
            mlp_half_backward(pt, l);
        attention_half_backward(pt, l);
    }
    ops_embed_backward(pt->g->embed, s->pe == MODEL_PE_LEARNED ? pt->g->pe : NULL, pt->dx, pt->tok,
                       N, net->n, D);
}

void net_parts_backward(Net *net, bool zero)
{
    parts_run(net, true, zero);
}

void net_backward(Net *net)
{
    parts_run(net, true, false);
    if (net->B >= 2)
        net_pair_halves(&net->worker, net->threads, net->layout.total, add_parts, net, NULL, NULL);
}

void net_set_threads(Net *net, int threads)
{
    net->threads = threads > 1 ? 2 : 1;
}

const float *net_weights(const Net *net, int l, int b, int h)
{
    const int n = net->n, H = net->spec.heads;
    return net->layer[l].P + ((long)b * H + h) * n * n;
}
