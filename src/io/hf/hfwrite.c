/* hfwrite.c - a trained model folder's tensors written as a Hugging Face
 * GPT-2 folder (hfwrite.h): the mapping from attnviz's layout to GPT-2's
 * tensors, the safetensors file, config.json, and the whole folder swapped
 * in at once. hfwvocab.c writes the vocabulary. Nothing is printed.
 */
#include "io/hfwrite.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/av.h"
#include "core/posenc.h"
#include "io/dirswap.h"
#include "io/fileio.h"

#define HFW_PREFIX "transformer."

static const char *const FILES[4] = {"config.json", "model.safetensors", "vocab.json",
                                     "merges.txt"};

/* One tensor of the safetensors file, its floats owned. */
typedef struct {
    char name[64];
    int ndim;
    size_t shape[2];
    float *data;
} HfwTensor;

typedef struct {
    HfwTensor *t;
    int n;
    const ModelSpec *s;
    ModelLayout lay;
    const float *params;
} HfwPlan;

int hfwrite_check(const ModelSpec *s, char *why, size_t whylen)
{
    if (modelfile_check(s)) {
        snprintf(why, whylen, "the model's settings are not valid");
        return AV_ERR_MODEL;
    }
    if (!s->layernorm) {
        snprintf(why, whylen,
                 "GPT-2 has a LayerNorm before each attention, each MLP and the "
                 "unembedding, and this model has none (train with --layernorm)");
        return AV_ERR_MODEL;
    }
    if (s->mlp && s->activation != MODEL_ACT_GELU) {
        snprintf(why, whylen,
                 "GPT-2's MLP is GELU (tanh form), and this model's is ReLU "
                 "(train with --activation gelu)");
        return AV_ERR_MODEL;
    }
    return hfwrite_vocab_check(s, why, whylen);
}

/* The width of GPT-2's MLP: the model's, or 4 D of zeros when it has none. */
static int mlp_width(const ModelSpec *s)
{
    return s->mlp ? s->mlp : 4 * s->d_model;
}

/* The arena's tensor called name (it is in the layout). */
static const float *arena(const HfwPlan *p, const char *name)
{
    const ModelTensor *t = modelfile_find(&p->lay, name);
    return t ? p->params + t->offset : NULL;
}

/* A new tensor of zeros (rows, cols; cols 0 for a vector), or NULL. */
static float *add(HfwPlan *p, const char *name, size_t rows, size_t cols)
{
    HfwTensor *t = &p->t[p->n];
    size_t count = rows * (cols ? cols : 1);
    if (!(t->data = calloc(count, sizeof *t->data)))
        return NULL;
    p->n++;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ndim = cols ? 2 : 1, t->shape[0] = rows, t->shape[1] = cols;
    return t->data;
}

/* A tensor copied from the arena's tensor src. */
static int add_copy(HfwPlan *p, const char *name, const char *src, size_t rows, size_t cols)
{
    float *d = add(p, name, rows, cols);
    if (!d)
        return AV_ERR_NOMEM;
    memcpy(d, arena(p, src), sizeof *d * rows * (cols ? cols : 1));
    return AV_OK;
}

/* A vector of ones (LayerNorm's gain where the model has none). */
static int add_ones(HfwPlan *p, const char *name, size_t n)
{
    float *d = add(p, name, n, 0);
    if (!d)
        return AV_ERR_NOMEM;
    for (size_t k = 0; k < n; k++)
        d[k] = 1.0f;
    return AV_OK;
}

/* wpe (T, D): the learned table, the sinusoid the model adds, or zeros. */
static int add_positions(HfwPlan *p)
{
    const ModelSpec *s = p->s;
    const size_t T = s->context, D = s->d_model;
    if (s->pe == MODEL_PE_LEARNED)
        return add_copy(p, HFW_PREFIX "wpe.weight", "pe", T, D);
    float *d = add(p, HFW_PREFIX "wpe.weight", T, D);
    if (!d)
        return AV_ERR_NOMEM;
    if (s->pe == MODEL_PE_SINUSOIDAL)
        posenc_fill(0, s->context, s->d_model, d);
    return AV_OK;
}

/* Layer l's (1-based) attention: c_attn (D, 3D) = [Wq | Wk | Wv] by
 * columns, c_proj (D, D) = Wo, biases zero. */
static int add_attention(HfwPlan *p, int l)
{
    const size_t D = p->s->d_model;
    char name[64], src[MODEL_NAME_MAX];
    snprintf(name, sizeof name, HFW_PREFIX "h.%d.attn.c_attn.weight", l - 1);
    float *w = add(p, name, D, 3 * D);
    if (!w)
        return AV_ERR_NOMEM;
    static const char *const qkv[3] = {"Wq", "Wk", "Wv"};
    for (int c = 0; c < 3; c++) {
        snprintf(src, sizeof src, "layer%d/%s", l, qkv[c]);
        const float *m = arena(p, src);
        for (size_t r = 0; r < D; r++)
            memcpy(w + r * 3 * D + c * D, m + r * D, sizeof *w * D);
    }
    snprintf(name, sizeof name, HFW_PREFIX "h.%d.attn.c_attn.bias", l - 1);
    if (!add(p, name, 3 * D, 0))
        return AV_ERR_NOMEM;
    snprintf(name, sizeof name, HFW_PREFIX "h.%d.attn.c_proj.weight", l - 1);
    snprintf(src, sizeof src, "layer%d/Wo", l);
    if (add_copy(p, name, src, D, D))
        return AV_ERR_NOMEM;
    snprintf(name, sizeof name, HFW_PREFIX "h.%d.attn.c_proj.bias", l - 1);
    return add(p, name, D, 0) ? AV_OK : AV_ERR_NOMEM;
}

/* Layer l's LayerNorm k (1 or 2): the model's, or gain 1 and bias 0 for
 * LN2 of a model without an MLP (its output then meets zeros only). */
static int add_ln(HfwPlan *p, int l, int k)
{
    const size_t D = p->s->d_model;
    char name[64], src[MODEL_NAME_MAX];
    bool own = k == 1 || p->s->mlp;
    snprintf(name, sizeof name, HFW_PREFIX "h.%d.ln_%d.weight", l - 1, k);
    snprintf(src, sizeof src, "layer%d/ln%d_g", l, k);
    int err = own ? add_copy(p, name, src, D, 0) : add_ones(p, name, D);
    snprintf(name, sizeof name, HFW_PREFIX "h.%d.ln_%d.bias", l - 1, k);
    snprintf(src, sizeof src, "layer%d/ln%d_b", l, k);
    if (!err)
        err = own ? add_copy(p, name, src, D, 0) : (add(p, name, D, 0) ? 0 : AV_ERR_NOMEM);
    return err;
}

/* Layer l's MLP: c_fc (D, F) = W1, b1; c_proj (F, D) = W2, b2; all zeros
 * when the model has no MLP. */
static int add_mlp(HfwPlan *p, int l)
{
    const size_t D = p->s->d_model, F = (size_t)mlp_width(p->s);
    static const char *const dst[4] = {"c_fc.weight", "c_fc.bias", "c_proj.weight", "c_proj.bias"};
    static const char *const own[4] = {"W1", "b1", "W2", "b2"};
    const size_t rows[4] = {D, F, F, D}, cols[4] = {F, 0, D, 0};
    char name[64], src[MODEL_NAME_MAX];
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, HFW_PREFIX "h.%d.mlp.%s", l - 1, dst[k]);
        snprintf(src, sizeof src, "layer%d/%s", l, own[k]);
        int err = p->s->mlp ? add_copy(p, name, src, rows[k], cols[k])
                            : (add(p, name, rows[k], cols[k]) ? 0 : AV_ERR_NOMEM);
        if (err)
            return err;
    }
    return AV_OK;
}

/* lm_head (V, D): the unembedding (D, V) transposed. */
static int add_lm_head(HfwPlan *p)
{
    const size_t V = p->s->V, D = p->s->d_model;
    float *d = add(p, "lm_head.weight", V, D);
    if (!d)
        return AV_ERR_NOMEM;
    const float *u = arena(p, "unembed");
    for (size_t v = 0; v < V; v++)
        for (size_t c = 0; c < D; c++)
            d[v * D + c] = u[c * V + v];
    return AV_OK;
}

/* Every tensor of GPT2LMHeadModel's save, in its order. */
static int plan_tensors(HfwPlan *p)
{
    const ModelSpec *s = p->s;
    const size_t D = s->d_model;
    int err = add_copy(p, HFW_PREFIX "wte.weight", "embed", (size_t)s->V, D);
    if (!err)
        err = add_positions(p);
    for (int l = 1; !err && l <= s->layers; l++) {
        err = add_ln(p, l, 1);
        if (!err)
            err = add_attention(p, l);
        if (!err)
            err = add_ln(p, l, 2);
        if (!err)
            err = add_mlp(p, l);
    }
    if (!err)
        err = add_copy(p, HFW_PREFIX "ln_f.weight", "ln_f_g", D, 0);
    if (!err)
        err = add_copy(p, HFW_PREFIX "ln_f.bias", "ln_f_b", D, 0);
    return err ? err : add_lm_head(p);
}

static void plan_free(HfwPlan *p)
{
    for (int k = 0; p->t && k < p->n; k++)
        free(p->t[k].data);
    free(p->t);
}

/* The safetensors file: the header's length (8 bytes, little-endian), the
 * JSON header padded with spaces so that the data starts at a multiple of 8
 * (floats aligned in a map), then each tensor's float32 little-endian. */
static int safetensors_bytes(const HfwPlan *p, char **out, size_t *out_len)
{
    MemFile h;
    if (memfile_open(&h))
        return AV_ERR_NOMEM;
    fputs("{\"__metadata__\":{\"format\":\"pt\"}", h.f);
    size_t at = 0;
    for (int k = 0; k < p->n; k++) {
        const HfwTensor *t = &p->t[k];
        size_t bytes = 4 * t->shape[0] * (t->ndim == 2 ? t->shape[1] : 1);
        fprintf(h.f, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[%zu", t->name, t->shape[0]);
        if (t->ndim == 2)
            fprintf(h.f, ",%zu", t->shape[1]);
        fprintf(h.f, "],\"data_offsets\":[%zu,%zu]}", at, at + bytes);
        at += bytes;
    }
    fputc('}', h.f);
    if (memfile_close(&h))
        return memfile_free(&h), AV_ERR_NOMEM;
    size_t n = h.len + (8 - h.len % 8) % 8, len = 8 + n + at;
    unsigned char *b = malloc(len);
    if (!b)
        return memfile_free(&h), AV_ERR_NOMEM;
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(b + 8, h.buf, h.len);
    memset(b + 8 + h.len, ' ', n - h.len);
    memfile_free(&h);
    unsigned char *d = b + 8 + n;
    for (int k = 0; k < p->n; k++) {
        const HfwTensor *t = &p->t[k];
        size_t count = t->shape[0] * (t->ndim == 2 ? t->shape[1] : 1);
        for (size_t i = 0; i < count; i++) {
            uint32_t u;
            memcpy(&u, &t->data[i], 4);
            for (int j = 0; j < 4; j++)
                *d++ = (unsigned char)(u >> (8 * j));
        }
    }
    *out = (char *)b, *out_len = len;
    return AV_OK;
}

static const char *pe_name(ModelPe pe)
{
    return pe == MODEL_PE_LEARNED ? "learned" : pe == MODEL_PE_NONE ? "none" : "sinusoidal";
}

/* config.json: GPT2Config's keys for the model's sizes, with dropout off,
 * the untied lm_head, and what attnviz knew of the model under "attnviz". */
static char *config_json(const ModelSpec *s, int n_tokens)
{
    MemFile m;
    if (memfile_open(&m))
        return NULL;
    fprintf(m.f,
            "{\n  \"architectures\": [\"GPT2LMHeadModel\"],\n  \"model_type\": \"gpt2\",\n"
            "  \"vocab_size\": %d,\n  \"n_positions\": %d,\n  \"n_ctx\": %d,\n"
            "  \"n_embd\": %d,\n  \"n_layer\": %d,\n  \"n_head\": %d,\n  \"n_inner\": %d,\n"
            "  \"activation_function\": \"gelu_new\",\n  \"layer_norm_epsilon\": 1e-05,\n"
            "  \"scale_attn_weights\": true,\n  \"tie_word_embeddings\": false,\n"
            "  \"attn_pdrop\": 0.0,\n  \"embd_pdrop\": 0.0,\n  \"resid_pdrop\": 0.0,\n",
            s->V, s->context, s->context, s->d_model, s->layers, s->heads, mlp_width(s));
    fprintf(m.f,
            "  \"attnviz\": {\"task\": \"%s\", \"tokenizer\": \"chars\", \"pe\": \"%s\", "
            "\"mlp\": %d, \"steps\": %ld, \"seed\": %llu, \"tokenizer_tokens\": %d}\n}\n",
            s->task, pe_name(s->pe), s->mlp, s->steps, (unsigned long long)s->seed, n_tokens);
    if (memfile_close(&m))
        return memfile_free(&m), NULL;
    return m.buf;
}

int hfwrite_save_check(const char *dir, char *which, size_t whichlen)
{
    snprintf(which, whichlen, "%s", "");
    struct stat st;
    if (stat(dir, &st) != 0)
        return errno == ENOENT ? AV_OK : AV_ERR_IO;
    if (!S_ISDIR(st.st_mode))
        return errno = ENOTDIR, AV_ERR_IO;
    DIR *d = opendir(dir);
    if (!d)
        return AV_ERR_IO;
    int err = AV_OK;
    for (struct dirent *e; !err && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int k = 0;
        while (k < 4 && strcmp(e->d_name, FILES[k]) != 0)
            k++;
        if (k == 4) {
            snprintf(which, whichlen, "%s", e->d_name);
            err = AV_ERR_IO;
        }
    }
    closedir(d);
    if (err)
        errno = ENOTEMPTY;
    return err;
}

/* One file of the folder being written. */
static int put_file(const char *dir, const char *name, const char *data, size_t len, char *which,
                    size_t whichlen)
{
    char path[4096];
    snprintf(which, whichlen, "%s", name);
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return errno = ENAMETOOLONG, AV_ERR_IO;
    return file_write_atomic(path, data, len, false);
}

/* The four files into dir (the swap's sibling). */
static int write_folder(const char *dir, const ModelSpec *s, const float *params, char *which,
                        size_t whichlen)
{
    HfwPlan p = {.s = s, .params = params};
    char *vocab = NULL, *merges = NULL, *config = NULL, *st = NULL;
    size_t st_len = 0;
    int n_tokens = 0;
    modelfile_layout(s, &p.lay);
    p.t = calloc((size_t)(5 + 12 * s->layers), sizeof *p.t);
    int err = p.t ? plan_tensors(&p) : AV_ERR_NOMEM;
    if (!err)
        err = safetensors_bytes(&p, &st, &st_len);
    plan_free(&p);
    if (!err)
        err = hfwrite_vocab(s, &vocab, &merges, &n_tokens);
    if (!err && !(config = config_json(s, n_tokens)))
        err = AV_ERR_NOMEM;
    if (!err)
        err = put_file(dir, FILES[0], config, strlen(config), which, whichlen);
    if (!err)
        err = put_file(dir, FILES[1], st, st_len, which, whichlen);
    if (!err)
        err = put_file(dir, FILES[2], vocab, strlen(vocab), which, whichlen);
    if (!err)
        err = put_file(dir, FILES[3], merges, strlen(merges), which, whichlen);
    free(st), free(vocab), free(merges), free(config);
    return err;
}

int hfwrite_save(const char *dir, const ModelSpec *s, const float *params, char *which,
                 size_t whichlen)
{
    char why[200];
    snprintf(which, whichlen, "%s", "");
    if (hfwrite_check(s, why, sizeof why))
        return AV_ERR_MODEL;
    int err = hfwrite_save_check(dir, which, whichlen);
    if (err)
        return err;
    DirSwap swap;
    if (dirswap_begin(&swap, dir))
        return AV_ERR_IO;
    err = write_folder(swap.tmp, s, params, which, whichlen);
    if (err) {
        dirswap_abort(&swap);
        return err;
    }
    snprintf(which, whichlen, "%s", "");
    return dirswap_commit(&swap);
}
