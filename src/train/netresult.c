/* netresult.c - a trained model's forward pass copied into a ModelResult
 * (the arena model_result_prepare lays out), its heads' labels, and
 * generation by re-running the causal model on the growing sequence.
 */
#include "train/netresult.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/attention.h"
#include "core/av.h"
#include "io/fileio.h"
#include "train/infer.h"
#include "train/scores.h"
#include "train/task.h"

/* The label of every head from heads.txt's lines "layer L head H: LABEL  (...)". */
static int labels_parse(NetModel *m, const char *text, const char *path, char *why, size_t whylen)
{
    int L = m->net.spec.layers, H = m->net.spec.heads, seen = 0;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        int l, h, at = 0;
        if (n && sscanf(p, "layer %d head %d: %n", &l, &h, &at) == 2 && at > 0 && l >= 1 &&
            l <= L && h >= 1 && h <= H) {
            const char *lab = p + at, *end = p + n;
            for (const char *q = lab; q + 1 < end; q++)
                if (q[0] == ' ' && q[1] == ' ') {
                    end = q;
                    break;
                }
            snprintf(m->label[(l - 1) * H + h - 1], NETRESULT_LABEL_MAX, "%.*s", (int)(end - lab),
                     lab);
        } else if (n) {
            snprintf(why, whylen, "%s: not a line 'layer L head H: LABEL': %.40s", path, p);
            return AV_ERR_MODEL;
        }
        p += n + (eol != NULL);
    }
    for (int k = 0; k < L * H; k++)
        seen += m->label[k][0] != 0;
    if (seen < L * H) {
        snprintf(why, whylen, "%s: lists %d of the model's %d heads", path, seen, L * H);
        return AV_ERR_MODEL;
    }
    return AV_OK;
}

/* No heads.txt: measure the heads on the task's own probes when the task can
 * be made without data and has the model's vocabulary, else "trained". */
static int labels_measure(NetModel *m)
{
    int L = m->net.spec.layers, H = m->net.spec.heads, err = AV_OK;
    char why[160];
    Task t = {0};
    for (int k = 0; k < L * H; k++)
        snprintf(m->label[k], NETRESULT_LABEL_MAX, "trained");
    if (task_init(&t, m->net.spec.task, NULL, 0, why, sizeof why) != AV_OK)
        return AV_OK;
    if (t.V == m->net.spec.V) {
        HeadScore *hs = calloc((size_t)L * H, sizeof *hs);
        err = hs ? scores_measure(&m->net, &t, m->net.spec.seed, hs) : AV_ERR_NOMEM;
        for (int k = 0; k < L * H && !err; k++)
            scores_label(&hs[k], m->label[k], NETRESULT_LABEL_MAX);
        free(hs);
    }
    task_free(&t);
    return err;
}

static int labels_load(NetModel *m, const char *dir, char *why, size_t whylen)
{
    char path[4096], *text = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/heads.txt", dir);
    if (access(path, R_OK) != 0)
        return labels_measure(m);
    int err = file_read_all(path, 1 << 20, &text, &len);
    if (err == AV_ERR_NOMEM)
        return err;
    if (err || memchr(text, 0, len)) {
        snprintf(why, whylen, "%s: cannot be read as text", path);
        free(text);
        return AV_ERR_MODEL;
    }
    err = labels_parse(m, text, path, why, whylen);
    free(text);
    return err;
}

int netresult_open(NetModel *m, const char *dir, char *why, size_t whylen)
{
    memset(m, 0, sizeof *m);
    m->sample_temperature = 1.0f;
    int err = infer_load(&m->net, dir, why, whylen);
    if (!err)
        err = labels_load(m, dir, why, whylen);
    if (err) {
        netresult_close(m);
        return err;
    }
    const ModelSpec *s = &m->net.spec;
    for (int k = 0; k < s->layers * s->heads; k++)
        m->label_ptr[k] = m->label[k];
    model_config_default(&m->cfg);
    m->cfg.H = s->heads, m->cfg.d_model = s->d_model, m->cfg.layers = s->layers;
    m->cfg.seed = s->seed, m->cfg.causal = true, m->cfg.pe = s->pe != MODEL_PE_NONE;
    m->cfg.scale = true, m->cfg.temperature = 1.0f, m->cfg.max_tokens = s->context;
    m->cfg.preset = PRESET_TRAINED, m->cfg.head_labels = m->label_ptr;
    return AV_OK;
}

void netresult_close(NetModel *m)
{
    net_free(&m->net);
    memset(m, 0, sizeof *m);
}

bool netresult_generates(const NetModel *m)
{
    return !strcmp(m->net.spec.task, "text") || !strcmp(m->net.spec.task, "grammar");
}

/* The next piece of text at *at with the model's tokenizer (infer_encode's
 * rule): its start and length; false at the end. */
static bool next_piece(ModelTok tok, const char *text, size_t len, size_t *at, size_t *start,
                       size_t *plen)
{
    size_t p = *at;
    if (tok == MODEL_TOK_WORDS) {
        while (p < len && strchr(" \t\r\n", text[p]))
            p++;
        if (p == len)
            return false;
        size_t k = 0;
        while (p + k < len && !strchr(" \t\r\n", text[p + k]))
            k++;
        *start = p, *plen = k, *at = p + k;
        return true;
    }
    if (p >= len)
        return false;
    unsigned char c = (unsigned char)text[p];
    size_t k = c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    k = p + k > len ? len - p : k;
    *start = p, *plen = k, *at = p + k;
    return true;
}

/* A visible copy of a piece into out (at most 8 bytes + NUL for a control
 * character, else the piece): returns its length. */
static size_t visible(const char *s, size_t n, char *out)
{
    if (n == 1 && ((unsigned char)s[0] < 0x20 || s[0] == ' ' || s[0] == 0x7f)) {
        const char *v = s[0] == ' '    ? "\xe2\x90\xa3"
                        : s[0] == '\n' ? "\xe2\x86\xb5"
                        : s[0] == '\t' ? "\xe2\x87\xa5"
                                       : NULL;
        if (v)
            return (size_t)sprintf(out, "%s", v);
        return (size_t)sprintf(out, "^%c", s[0] == 0x7f ? '?' : s[0] + '@');
    }
    memcpy(out, s, n);
    out[n] = 0;
    return n;
}

/* r->tokens: the pieces first.. of text (count of them). */
static int build_tokens(ModelTok tok, const char *text, size_t len, int first, int count,
                        TokenList *tl)
{
    tokenize_free(tl);
    tl->tok = malloc((size_t)count * sizeof *tl->tok);
    tl->pool = malloc(len + (size_t)count * 9 + 1);
    if (!tl->tok || !tl->pool) {
        tokenize_free(tl);
        return AV_ERR_NOMEM;
    }
    size_t at = 0, start, plen, used = 0;
    for (int k = 0; next_piece(tok, text, len, &at, &start, &plen) && tl->n < count; k++) {
        if (k < first)
            continue;
        char *dst = tl->pool + used;
        used += visible(text + start, plen, dst) + 1;
        tl->tok[tl->n++] = (Token){.start = start, .len = plen, .str = dst};
    }
    return tl->n == count ? AV_OK : AV_ERR_CONFIG;
}

/* Layer l's tensors from the Net (one sequence of n tokens) into r. */
static int copy_layer(const Net *net, int l, ModelResult *r, float *P_tmp)
{
    const NetActs *a = &net->layer[l];
    AttnBuffers *b = &r->layer[l].ab;
    int n = net->n, H = net->spec.heads;
    size_t nd = (size_t)n * net->spec.d_model, nn = (size_t)n * n;
    memcpy(b->Q, a->Q, nd * sizeof(float));
    memcpy(b->K, a->K, nd * sizeof(float));
    memcpy(b->V, a->V, nd * sizeof(float));
    memcpy(b->concat, a->concat, nd * sizeof(float));
    memcpy(b->out, a->attn, nd * sizeof(float));
    const float *x_next = l + 1 < net->spec.layers ? net->layer[l + 1].x : net->x_out;
    memcpy(r->layer[l].x_out, x_next, nd * sizeof(float));
    for (int h = 0; h < H; h++) {
        if (b->P)
            memcpy(b->P + h * nn, net_weights(net, l, 0, h), nn * sizeof(float));
        if (b->S) /* the scores the weights came from: the same function, the same bits */
            attention_head_weights(&r->shape, h, b->Q, b->K, b->S + h * nn, P_tmp);
    }
    return AV_OK;
}

/* Fill r from the Net's last forward pass (infer_run on one sequence). */
static int fill(const NetModel *m, const ModelConfig *c, ModelResult *r)
{
    const Net *net = &m->net;
    int n = net->n;
    int err = model_result_prepare(c, n, n, r);
    if (err)
        return err;
    r->shape.temperature = 1.0f, r->shape.causal = true, r->shape.scale = true;
    float *P_tmp = c->keep_scores ? malloc((size_t)n * n * sizeof *P_tmp) : NULL;
    if (c->keep_scores && !P_tmp)
        return AV_ERR_NOMEM;
    memcpy(r->X, net->layer[0].x, (size_t)n * net->spec.d_model * sizeof(float));
    for (int l = 0; l < net->spec.layers; l++)
        copy_layer(net, l, r, P_tmp);
    free(P_tmp);
    return AV_OK;
}

/* The text as token ids: *ids malloc'd, *n of them. */
static int encode(const NetModel *m, const char *text, size_t len, int **ids, int *n, char *bad,
                  size_t badlen)
{
    *ids = malloc((len + 1) * sizeof **ids);
    if (!*ids)
        return AV_ERR_NOMEM;
    int err = infer_encode(&m->net.spec, text, len, *ids, (int)len + 1, n, bad, badlen);
    if (err) {
        free(*ids);
        *ids = NULL;
    }
    return err;
}

int netresult_run(NetModel *m, const ModelConfig *c, const char *text, size_t len, ModelResult *r,
                  char *bad, size_t badlen)
{
    int *ids, n;
    r->shape.n_q = 0;
    r->src = NULL; /* a combining view's source over an earlier run is not this run */
    if (c->H != m->cfg.H || c->d_model != m->cfg.d_model || c->layers != m->cfg.layers)
        return AV_ERR_CONFIG;
    int err = encode(m, text, len, &ids, &n, bad, badlen);
    if (err)
        return err;
    int T = m->net.spec.context, first = n > T ? n - T : 0;
    err = infer_run(&m->net, ids, n);
    free(ids);
    if (!err)
        err = build_tokens(m->net.spec.tokenizer, text, len, first, n - first, &r->tokens);
    if (!err)
        err = fill(m, c, r);
    if (err) {
        r->shape.n_q = 0;
        return err;
    }
    m->total = n, m->first = first;
    return AV_OK;
}

int netresult_run_ids(NetModel *m, const ModelConfig *c, const int *ids, int n, ModelResult *r)
{
    r->shape.n_q = 0;
    if (c->H != m->cfg.H || c->d_model != m->cfg.d_model || c->layers != m->cfg.layers || n < 1 ||
        n > m->net.spec.context)
        return AV_ERR_CONFIG;
    char probe[1];
    size_t need = infer_decode(&m->net.spec, ids, n, probe, sizeof probe);
    char *text = malloc(need + 1);
    if (!text)
        return AV_ERR_NOMEM;
    infer_decode(&m->net.spec, ids, n, text, need + 1);
    int err = infer_run(&m->net, ids, n);
    if (!err)
        err = build_tokens(m->net.spec.tokenizer, text, need, 0, n, &r->tokens);
    free(text);
    if (!err)
        err = fill(m, c, r);
    if (err) {
        r->shape.n_q = 0;
        return err;
    }
    m->total = n, m->first = 0;
    return AV_OK;
}

int netresult_generate(NetModel *m, const char *text, size_t len, int count, float temperature,
                       int top_k, uint64_t seed, char **out, size_t *cont, char *bad, size_t badlen)
{
    int *ids, n;
    *out = NULL;
    int err = encode(m, text, len, &ids, &n, bad, badlen);
    if (err)
        return err;
    int *all = realloc(ids, ((size_t)n + (size_t)(count > 0 ? count : 0)) * sizeof *all);
    if (!all) {
        free(ids);
        return AV_ERR_NOMEM;
    }
    err = infer_generate(&m->net, all, n, count, temperature, top_k, seed);
    const ModelSpec *s = &m->net.spec;
    char none[1];
    size_t need = err ? 0 : infer_decode(s, all, n + count, none, sizeof none);
    *out = err ? NULL : malloc(need + 1);
    if (!err && !*out)
        err = AV_ERR_NOMEM;
    if (!err) {
        infer_decode(s, all, n + count, *out, need + 1);
        *cont = infer_decode(s, all, n, none, sizeof none);
        if (s->tokenizer == MODEL_TOK_WORDS && count > 0)
            *cont += 1;
    }
    free(all);
    return err;
}
