/* hfbert.c - a Hugging Face BERT-family folder into BertWeights (hfbert.h):
 * which folder holds the model (modules.json's, for sentence-transformers),
 * its config.json (hfbertconf.c), then the table of every tensor the forward
 * reads with BERT's or DistilBERT's names, handed to hfweights.c, which
 * finds, checks and reads them.
 */
#include "io/hfbert.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/hfmodel.h"

static int fail(char *why, size_t whylen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *why, size_t whylen, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return rc;
}

static int read_config(HfBert *m, char *why, size_t whylen)
{
    char *text;
    size_t len;
    struct stat st;
    if (stat(m->dir, &st) != 0) {
        int e = errno;
        fail(why, whylen, AV_ERR_IO, "%s: %s", m->dir, strerror(e));
        errno = e;
        return AV_ERR_IO;
    }
    if (!S_ISDIR(st.st_mode))
        return fail(why, whylen, AV_ERR_MODEL, "%s: not a folder", m->dir);
    int rc = file_read_in(m->dir, "config.json", HF_MAX_CONFIG_BYTES, &text, &len, why, whylen);
    if (rc == AV_ERR_IO && errno == ENOENT)
        return fail(why, whylen, AV_ERR_MODEL, "%s: no config.json", m->dir);
    if (rc == AV_ERR_TOO_LARGE)
        return AV_ERR_MODEL;
    if (rc != AV_OK)
        return rc;
    rc = hfbert_parse_config(text, len, "config.json", &m->w.cfg, &m->distil, &m->tie, why, whylen);
    free(text);
    return rc;
}

/* The prefix of the encoder's own names (those of the embeddings and the
 * layers; the heads above it never have one). */
static const char *prefix_of(const HfBert *m)
{
    return m->distil ? "distilbert." : "bert.";
}

/* Whether the encoder's tensors are named with the prefix (all or none),
 * and that no layer's number is beyond config.json's. */
static int check_names(HfBert *m, char *why, size_t whylen)
{
    const char *pre = prefix_of(m), *layers = m->distil ? "transformer.layer." : "encoder.layer.";
    size_t pre_len = strlen(pre), layers_len = strlen(layers);
    const StTensor *with = NULL, *without = NULL;
    for (int s = 0; s < m->files.n_shards; s++)
        for (int k = 0; k < m->files.shard[s].n; k++) {
            const StTensor *t = &m->files.shard[s].t[k];
            bool p = strncmp(t->name, pre, pre_len) == 0;
            const char *n = t->name + (p ? pre_len : 0);
            bool layer = strncmp(n, layers, layers_len) == 0;
            if (!layer && strncmp(n, "embeddings.", 11) != 0)
                continue;
            *(p ? &with : &without) = t;
            char *end;
            long l = layer ? strtol(n + layers_len, &end, 10) : 0;
            if (layer && (n[layers_len] < '0' || n[layers_len] > '9' || *end != '.' ||
                          l >= m->w.cfg.n_layer))
                return fail(why, whylen, AV_ERR_MODEL,
                            "%s: tensor \"%s\": not a layer of config.json's %d",
                            m->files.shard[s].name, st_printable((char[96]){0}, 96, t->name),
                            m->w.cfg.n_layer);
        }
    if (with && without)
        return fail(why, whylen, AV_ERR_MODEL,
                    "tensor names mix \"%s\" and \"%s\": all or none must begin with \"%s\"",
                    st_printable((char[96]){0}, 96, with->name),
                    st_printable((char[96]){0}, 96, without->name), pre);
    m->prefixed = with != NULL;
    return AV_OK;
}

typedef struct {
    HfWant *w;
    int n;
    const char *pre; /* the encoder's prefix, or "" */
} Plan;

/* One wanted tensor: pre + name (a LayerNorm's weight and bias also found
 * as gamma and beta). */
static HfWant *want(Plan *p, const char *pre, const char *name, int rows, int cols,
                    const float **dst)
{
    HfWant *w = &p->w[p->n++];
    *w = (HfWant){.rows = rows, .cols = cols, .dst = dst};
    snprintf(w->name, sizeof w->name, "%s%s", pre, name);
    size_t n = strlen(w->name);
    const char *ln = strstr(w->name, "LayerNorm.");
    if (ln && n > 7 && strcmp(w->name + n - 7, ".weight") == 0)
        snprintf(w->alt, sizeof w->alt, "%.*s.gamma", (int)(n - 7), w->name);
    else if (ln && n > 5 && strcmp(w->name + n - 5, ".bias") == 0)
        snprintf(w->alt, sizeof w->alt, "%.*s.beta", (int)(n - 5), w->name);
    return w;
}

/* Names of a layer's sixteen tensors, BERT's then DistilBERT's, in the
 * order of BertLayer's fields. */
static const char *const bert_layer[16] = {"attention.self.query.weight",
                                           "attention.self.query.bias",
                                           "attention.self.key.weight",
                                           "attention.self.key.bias",
                                           "attention.self.value.weight",
                                           "attention.self.value.bias",
                                           "attention.output.dense.weight",
                                           "attention.output.dense.bias",
                                           "attention.output.LayerNorm.weight",
                                           "attention.output.LayerNorm.bias",
                                           "intermediate.dense.weight",
                                           "intermediate.dense.bias",
                                           "output.dense.weight",
                                           "output.dense.bias",
                                           "output.LayerNorm.weight",
                                           "output.LayerNorm.bias"};
static const char *const distil_layer[16] = {
    "attention.q_lin.weight",   "attention.q_lin.bias",   "attention.k_lin.weight",
    "attention.k_lin.bias",     "attention.v_lin.weight", "attention.v_lin.bias",
    "attention.out_lin.weight", "attention.out_lin.bias", "sa_layer_norm.weight",
    "sa_layer_norm.bias",       "ffn.lin1.weight",        "ffn.lin1.bias",
    "ffn.lin2.weight",          "ffn.lin2.bias",          "output_layer_norm.weight",
    "output_layer_norm.bias"};

static void plan_layers(HfBert *m, Plan *p)
{
    const BertConfig *c = &m->w.cfg;
    const int D = c->d_model, F = c->d_ff;
    const int rows[16] = {D, D, D, D, D, D, D, D, D, D, F, F, D, D, D, D};
    const int cols[16] = {D, 0, D, 0, D, 0, D, 0, 0, 0, D, 0, F, 0, 0, 0};
    for (int l = 0; l < c->n_layer; l++) {
        BertLayer *y = &m->w.layer[l];
        const float **dst[16] = {&y->q_w,   &y->q_b,   &y->k_w,   &y->k_b,   &y->v_w,  &y->v_b,
                                 &y->o_w,   &y->o_b,   &y->ln1_g, &y->ln1_b, &y->fc_w, &y->fc_b,
                                 &y->out_w, &y->out_b, &y->ln2_g, &y->ln2_b};
        for (int k = 0; k < 16; k++) {
            char name[96];
            snprintf(name, sizeof name, "%s%d.%s",
                     m->distil ? "transformer.layer." : "encoder.layer.", l,
                     m->distil ? distil_layer[k] : bert_layer[k]);
            want(p, p->pre, name, rows[k], cols[k], dst[k]);
        }
    }
}

/* The masked-LM head when the file has its transform (*head set): its
 * names, the decoder's only when config.json unties it (then it must be
 * there: transformers would start it at random); tied, a decoder in the
 * file is not read, as transformers ties it after loading. */
static int plan_head(HfBert *m, Plan *p, bool *head, char *why, size_t whylen)
{
    const BertConfig *c = &m->w.cfg;
    const int D = c->d_model, V = c->n_vocab;
    BertWeights *w = &m->w;
    const char *dense =
        m->distil ? "vocab_transform.weight" : "cls.predictions.transform.dense.weight";
    const char *decoder = m->distil ? "vocab_projector.weight" : "cls.predictions.decoder.weight";
    *head = hfweights_lookup(&m->files, dense, NULL);
    if (!*head)
        return AV_OK;
    if (!m->tie && !hfweights_lookup(&m->files, decoder, NULL))
        return fail(why, whylen, AV_ERR_MODEL,
                    "config.json says \"tie_word_embeddings\": false, and there is no \"%s\" "
                    "(the masked-LM head's own decoder)",
                    decoder);
    if (m->distil) {
        want(p, "", "vocab_transform.weight", D, D, &w->mlm_w);
        want(p, "", "vocab_transform.bias", D, 0, &w->mlm_b);
        want(p, "", "vocab_layer_norm.weight", D, 0, &w->mlm_ln_g);
        want(p, "", "vocab_layer_norm.bias", D, 0, &w->mlm_ln_b);
        want(p, "", "vocab_projector.bias", V, 0, &w->mlm_bias);
    } else {
        want(p, "", "cls.predictions.transform.dense.weight", D, D, &w->mlm_w);
        want(p, "", "cls.predictions.transform.dense.bias", D, 0, &w->mlm_b);
        want(p, "", "cls.predictions.transform.LayerNorm.weight", D, 0, &w->mlm_ln_g);
        want(p, "", "cls.predictions.transform.LayerNorm.bias", D, 0, &w->mlm_ln_b);
        HfWant *bias = want(p, "", "cls.predictions.bias", V, 0, &w->mlm_bias);
        snprintf(bias->alt, sizeof bias->alt, "cls.predictions.decoder.bias");
    }
    if (!m->tie)
        want(p, "", decoder, V, D, &w->decoder);
    return AV_OK;
}

static int read_weights(HfBert *m, HfProgress progress, void *ctx, char *why, size_t whylen)
{
    const BertConfig *c = &m->w.cfg;
    BertWeights *w = &m->w;
    Plan p = {calloc((size_t)(11 + 16 * c->n_layer), sizeof(HfWant)), 0,
              m->prefixed ? prefix_of(m) : ""};
    if (!p.w)
        return fail(why, whylen, AV_ERR_NOMEM, "%s", av_strerror(AV_ERR_NOMEM));
    want(&p, p.pre, "embeddings.word_embeddings.weight", c->n_vocab, c->d_model, &w->word);
    want(&p, p.pre, "embeddings.position_embeddings.weight", c->n_pos, c->d_model, &w->pos);
    if (c->n_types)
        want(&p, p.pre, "embeddings.token_type_embeddings.weight", c->n_types, c->d_model,
             &w->type);
    want(&p, p.pre, "embeddings.LayerNorm.weight", c->d_model, 0, &w->emb_ln_g);
    want(&p, p.pre, "embeddings.LayerNorm.bias", c->d_model, 0, &w->emb_ln_b);
    plan_layers(m, &p);
    bool head;
    int rc = plan_head(m, &p, &head, why, whylen);
    m->files.limit = hfweights_limit(c->d_model, c->n_head);
    if (rc == AV_OK)
        rc = hfweights_load(&m->files, p.w, p.n, progress, ctx, why, whylen);
    if (rc == AV_OK) {
        m->tied = head && m->tie;
        if (m->tied)
            w->decoder = w->word;
        m->dtype = p.w[0].t->dtype;
        if (bert_check(w) != AV_OK)
            rc = fail(why, whylen, AV_ERR_MODEL, "config.json: sizes attnviz's BERT cannot run");
    }
    free(p.w);
    return rc;
}

int hfbert_open(const char *dir, HfBert *m, HfProgress progress, void *ctx, char *why,
                size_t whylen)
{
    memset(m, 0, sizeof *m);
    if (progress)
        progress(ctx, 0.0, "config.json");
    int rc = hfbert_model_dir(dir, m->dir, sizeof m->dir, why, whylen);
    if (rc == AV_OK)
        rc = read_config(m, why, whylen);
    if (rc == AV_OK)
        rc = hfweights_open(m->dir, &m->files, why, whylen);
    if (rc == AV_OK)
        rc = check_names(m, why, whylen);
    if (rc == AV_OK)
        rc = read_weights(m, progress, ctx, why, whylen);
    if (rc != AV_OK) {
        int e = errno;
        hfbert_close(m);
        errno = e;
    }
    return rc;
}

void hfbert_close(HfBert *m)
{
    hfweights_close(&m->files);
    memset(m, 0, sizeof *m);
}
