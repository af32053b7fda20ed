/* bert_forward.c - a BERT-family encoder's forward pass (core/bert.h): the
 * embeddings and their LayerNorm, the post-LayerNorm blocks, the masked-LM
 * head's logits and the heads' value norms. With AVX2 and FMA every linear
 * layer is turned over, y^T = W x^T, on attnviz's packed kernel (the
 * weights, stored (out, in), read in place as its left operand, the
 * sentence's few rows packed), elsewhere mat_sgemm with nn.Linear's W^T as
 * a transposed operand; a large one split by output columns over two
 * threads (each column the same sums whichever thread computes it); the
 * heads are attention_heads', the
 * kernel attnviz's own attention runs. src/core/bert/bert_ref.c is the plain
 * oracle it is tested against. No global state.
 */
#include "core/bert.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/attention.h"
#include "core/mat.h"
#include "bert_kern.h"

/* Room for n positions of w's shape; the arrays are sized for cap = n and
 * regrown only when the text or the model is larger. */
static int state_reserve(const BertWeights *w, int n, BertState *st, size_t work)
{
    const BertConfig *c = &w->cfg;
    const int L = c->n_layer, D = c->d_model, H = c->n_head;
    bool fits = n <= st->cap && st->L == L && st->D == D && st->H == H;
    if (!fits) {
        int threads = st->threads; /* the caller's, kept */
        bert_state_free(st);
        st->threads = threads;
        size_t nd = (size_t)n * D;
        st->ids = malloc(sizeof *st->ids * n);
        st->types = malloc(sizeof *st->types * n);
        st->x = malloc(sizeof *st->x * (L + 1) * nd);
        st->q = malloc(sizeof *st->q * L * nd);
        st->k = malloc(sizeof *st->k * L * nd);
        st->v = malloc(sizeof *st->v * L * nd);
        st->P = malloc(sizeof *st->P * (size_t)L * H * n * n);
        st->concat = malloc(sizeof *st->concat * L * nd);
        st->attn = malloc(sizeof *st->attn * L * nd);
        if (!st->ids || !st->types || !st->x || !st->q || !st->k || !st->v || !st->P ||
            !st->concat || !st->attn) {
            bert_state_free(st);
            st->threads = threads;
            return AV_ERR_NOMEM;
        }
        st->cap = n, st->L = L, st->D = D, st->H = H;
    }
    if (work > st->work_cap) {
        free(st->work);
        st->work = malloc(sizeof *st->work * work);
        st->work_cap = st->work ? work : 0;
        if (!st->work)
            return AV_ERR_NOMEM;
    }
    return AV_OK;
}

/* Each row of x (n, D) normalised in place: (x - mean) / sqrt(var + eps) * g + b,
 * the mean and variance summed in double. */
static void layer_norm_rows(float *x, int n, int D, const float *g, const float *b, float eps)
{
    for (int i = 0; i < n; i++) {
        float *row = x + (size_t)i * D;
        double mean = 0, var = 0;
        for (int c = 0; c < D; c++)
            mean += row[c];
        mean /= D;
        for (int c = 0; c < D; c++)
            var += (row[c] - mean) * (row[c] - mean);
        float m = (float)mean, inv = (float)(1.0 / sqrt(var / D + eps));
        for (int c = 0; c < D; c++)
            row[c] = (row[c] - m) * inv * g[c] + b[c];
    }
}

/* Products past this many multiply-adds go to two threads when there are
 * two processors (a helper thread costs tens of microseconds). */
#define BERT_TWO_MACS 4e6

typedef struct {
    const float *x, *W, *b;
    float *y;
    int n, d_in, d_out, o0, o1; /* output columns [o0, o1) */
    const float *xp; /* x^T packed (mat_pack), or NULL: mat_sgemm */
    float *yt;       /* (d_out, n): y^T, the packed product's rows */
} LinPart;

/* Columns [o0, o1) of y (n, d_out) = x (n, d_in) W^T + b. With x^T packed,
 * the product is turned over: y^T's rows [o0, o1) (w, n) = W's rows (w,
 * d_in) x^T (d_in, n), the weights read once in place as the left operand
 * (one row of W is one row of y^T: nothing of W is packed) and the few
 * rows of x packed once for every call; each element a chain of fused
 * multiply-adds over d_in in order, whichever thread or block computes it.
 * Then y^T goes back to y with the bias. */
static void linear_part(const LinPart *p)
{
    const int w = p->o1 - p->o0;
    if (w <= 0)
        return;
    if (p->xp) {
        float *yt = p->yt + (size_t)p->o0 * p->n;
        /* y^T[o0..o1) (w, n) = W[o0..o1) (w, d_in) x^T (d_in, n) */
        bertk_linear_t(w, p->n, p->d_in, p->W + (size_t)p->o0 * p->d_in, p->d_in, p->xp, yt,
                       p->n);
        for (int i = 0; i < p->n; i++) {
            float *y_i = p->y + (size_t)i * p->d_out;
            for (int o = 0; o < w; o++)
                y_i[p->o0 + o] = yt[(size_t)o * p->n + i] + p->b[p->o0 + o];
        }
        return;
    }
    /* y[:, o0..o1) (n, w) = x (n, d_in) W[o0..o1)^T (d_in, w) */
    mat_sgemm(false, true, p->n, w, p->d_in, 1.0f,
              p->x, p->d_in,
              p->W + (size_t)p->o0 * p->d_in, p->d_in,
              0.0f, p->y + p->o0, p->d_out);
    for (int i = 0; i < p->n; i++)
        for (int o = p->o0; o < p->o1; o++)
            p->y[(size_t)i * p->d_out + o] += p->b[o];
}

static void *linear_thread(void *arg)
{
    linear_part(arg);
    return NULL;
}

static int processors(void)
{
    static int n;
    if (!n) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c < 1 ? 1 : c > 2 ? 2 : (int)c;
    }
    return n;
}

/* Floats of work linear needs for n rows of at most K inputs and N outputs:
 * x^T packed and y^T (0 where the packed kernel does not run). */
static size_t linear_work(int n, int K, int N)
{
    return mat_packed_available() ? mat_packed_floats(K, n) + (size_t)n * N : 0;
}

/* y (n, d_out) = x (n, d_in) W^T + b, W (d_out, d_in) as nn.Linear stores it;
 * threads 0: two when the product repays a helper and there are two
 * processors. work: linear_work(n, d_in, d_out) floats. */
static void linear(const float *x, int n, int d_in, const float *W, const float *b, int d_out,
                   float *y, int threads, float *work)
{
    LinPart whole = {x, W, b, y, n, d_in, d_out, 0, d_out, NULL, NULL};
    if (mat_packed_available()) {
        /* x^T (d_in, n) packed: the right operand of y^T = W x^T */
        mat_pack(true, d_in, n, x, d_in, work);
        whole.xp = work, whole.yt = work + mat_packed_floats(d_in, n);
    }
    double macs = (double)n * d_in * d_out;
    if (threads == 0)
        threads = macs >= BERT_TWO_MACS ? processors() : 1;
    int half = d_out / 2 / 16 * 16; /* whole panels of 16 columns */
    pthread_t tid;
    if (threads < 2 || half < 16) {
        linear_part(&whole);
        return;
    }
    LinPart a = whole, c = whole;
    a.o1 = half, c.o0 = half;
    if (pthread_create(&tid, NULL, linear_thread, &c) != 0) {
        linear_part(&whole);
        return;
    }
    linear_part(&a);
    pthread_join(tid, NULL);
}

static void gelu_erf_rows(float *x, size_t count)
{
    for (size_t c = 0; c < count; c++)
        x[c] = 0.5f * x[c] * (1.0f + erff(x[c] * 0.70710678118654752f));
}

/* Layer l: st->x[l] -> st->x[l + 1]; work holds (n, D) + (n, F) floats and
 * then the heads' packing room. */
static int layer(const BertWeights *w, int l, const AttnShape *s, BertState *st)
{
    const BertLayer *y = &w->layer[l];
    const int n = st->n, D = st->D, F = w->cfg.d_ff;
    const float eps = w->cfg.ln_eps;
    const size_t nd = (size_t)n * D;
    const float *x = st->x + l * nd;
    float *q = st->q + l * nd, *k = st->k + l * nd, *v = st->v + l * nd;
    float *concat = st->concat + l * nd, *attn = st->attn + l * nd, *x_next = st->x + (l + 1) * nd;
    float *a = st->work, *hid = a + nd, *pack = hid + (size_t)n * F;
    float *lw = pack + attention_heads_work(s);
    const int th = st->threads;
    linear(x, n, D, y->q_w, y->q_b, D, q, th, lw);
    linear(x, n, D, y->k_w, y->k_b, D, k, th, lw);
    linear(x, n, D, y->v_w, y->v_b, D, v, th, lw);
    int err = attention_heads(s, q, k, v, st->P + (size_t)l * st->H * n * n, concat,
                              attention_heads_work(s) ? pack : NULL);
    if (err)
        return err;
    linear(concat, n, D, y->o_w, y->o_b, D, attn, th, lw);
    for (size_t c = 0; c < nd; c++)
        a[c] = x[c] + attn[c];
    layer_norm_rows(a, n, D, y->ln1_g, y->ln1_b, eps);
    linear(a, n, D, y->fc_w, y->fc_b, F, hid, th, lw);
    gelu_erf_rows(hid, (size_t)n * F);
    linear(hid, n, F, y->out_w, y->out_b, D, x_next, th, lw);
    for (size_t c = 0; c < nd; c++)
        x_next[c] += a[c];
    layer_norm_rows(x_next, n, D, y->ln2_g, y->ln2_b, eps);
    return AV_OK;
}

static int check_input(const BertWeights *w, const int *ids, const int *types, int n)
{
    const BertConfig *c = &w->cfg;
    if (bert_check(w) != AV_OK)
        return AV_ERR_CONFIG;
    if (n < 1)
        return AV_ERR_EMPTY;
    if (n > c->n_pos)
        return AV_ERR_TOO_MANY;
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= c->n_vocab ||
            (types && types[i] != 0 && (types[i] < 0 || types[i] >= c->n_types)))
            return AV_ERR_CONFIG;
    return AV_OK;
}

int bert_forward(const BertWeights *w, const int *ids, const int *types, int n, bool causal,
                 BertState *st)
{
    st->n = 0;
    int err = check_input(w, ids, types, n);
    if (err)
        return err;
    const BertConfig *c = &w->cfg;
    const int D = c->d_model, L = c->n_layer;
    AttnShape s = {n, n, D, c->n_head, causal, true, 1.0f};
    const int wide = D > c->d_ff ? D : c->d_ff;
    size_t work = (size_t)n * D + (size_t)n * c->d_ff + attention_heads_work(&s) +
                  linear_work(n, wide, wide);
    if ((err = state_reserve(w, n, st, work)) != AV_OK)
        return err;
    st->n = n, st->causal = causal;
    for (int i = 0; i < n; i++) {
        int ty = types ? types[i] : 0;
        st->ids[i] = ids[i], st->types[i] = ty;
        float *row = st->x + (size_t)i * D;
        const float *we = w->word + (size_t)ids[i] * D, *pe = w->pos + (size_t)i * D;
        for (int col = 0; col < D; col++)
            row[col] = we[col] + (w->type ? w->type[(size_t)ty * D + col] : 0.0f) + pe[col];
    }
    layer_norm_rows(st->x, n, D, w->emb_ln_g, w->emb_ln_b, c->ln_eps);
    for (int l = 0; l < L && !err; l++)
        err = layer(w, l, &s, st);
    if (err)
        st->n = 0;
    return err;
}

int bert_mlm_logits(const BertWeights *w, const BertState *st, int i0, int count, float *out)
{
    const int D = w->cfg.d_model, V = w->cfg.n_vocab;
    if (!bert_has_mlm(w) || i0 < 0 || count < 1 || i0 + count > st->n || st->D != D ||
        st->L != w->cfg.n_layer)
        return AV_ERR_CONFIG;
    float *t = malloc(sizeof *t * ((size_t)count * D + linear_work(count, D, V)));
    if (!t)
        return AV_ERR_NOMEM;
    float *lw = t + (size_t)count * D;
    const float *x = st->x + ((size_t)st->L * st->n + i0) * D;
    linear(x, count, D, w->mlm_w, w->mlm_b, D, t, st->threads, lw);
    gelu_erf_rows(t, (size_t)count * D);
    layer_norm_rows(t, count, D, w->mlm_ln_g, w->mlm_ln_b, w->cfg.ln_eps);
    linear(t, count, D, w->decoder, w->mlm_bias, V, out, st->threads, lw);
    free(t);
    return AV_OK;
}

int bert_value_norms(const BertWeights *w, const BertState *st, int l, float *out)
{
    const BertConfig *c = &w->cfg;
    const int n = st->n, D = c->d_model, H = c->n_head, d_k = D / H;
    if (l < 0 || l >= c->n_layer || n < 1 || st->L != c->n_layer || st->D != D)
        return AV_ERR_CONFIG;
    float *u = malloc((size_t)n * D * sizeof *u);
    if (!u)
        return AV_ERR_NOMEM;
    const float *V = st->v + (size_t)l * n * D;
    for (int h = 0; h < H; h++) {
        /* u (n, D) = V_h (n, d_k) (o_w's columns h d_k ..)^T (d_k, D) */
        mat_sgemm(false, true, n, D, d_k, 1.0f,
                  V + h * d_k, D,
                  w->layer[l].o_w + h * d_k, D,
                  0.0f, u, D);
        for (int j = 0; j < n; j++) {
            double sq = 0;
            for (int k = 0; k < D; k++)
                sq += (double)u[(size_t)j * D + k] * u[(size_t)j * D + k];
            out[(size_t)h * n + j] = (float)sqrt(sq);
        }
    }
    free(u);
    return AV_OK;
}
