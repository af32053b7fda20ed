/* hfmodel.c - a Hugging Face GPT-2 folder into Gpt2Weights (hfmodel.h): the
 * table of every tensor the forward reads, with GPT-2's names, handed to
 * hfweights.c, which finds, checks and reads them from the folder's
 * safetensors. config.json's parser is hfconfig.c.
 */
#include "io/hfmodel.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/av.h"
#include "io/fileio.h"

#define PREFIX "transformer."
#define PREFIX_LEN 12

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

static int read_config(const char *dir, Gpt2Config *cfg, HfOrigin *origin, char *why, size_t whylen)
{
    char path[4096], *text;
    size_t len;
    struct stat st;
    if (stat(dir, &st) != 0) {
        int e = errno;
        fail(why, whylen, AV_ERR_IO, "%s: %s", dir, strerror(e));
        errno = e;
        return AV_ERR_IO;
    }
    if (!S_ISDIR(st.st_mode))
        return fail(why, whylen, AV_ERR_MODEL, "%s: not a folder", dir);
    snprintf(path, sizeof path, "%s/config.json", dir);
    int rc = file_read_regular(path, HF_MAX_CONFIG_BYTES, &text, &len);
    if (rc == AV_ERR_IO && errno == ENOENT)
        return fail(why, whylen, AV_ERR_MODEL, "%s: no config.json", dir);
    if (rc == AV_ERR_MODEL)
        return fail(why, whylen, rc, "%s: not a regular file", path);
    if (rc == AV_ERR_TOO_LARGE)
        return fail(why, whylen, AV_ERR_MODEL, "%s: larger than %d bytes", path,
                    HF_MAX_CONFIG_BYTES);
    if (rc != AV_OK)
        return fail(why, whylen, rc, "%s: %s", path,
                    rc == AV_ERR_IO ? strerror(errno) : av_strerror(rc));
    rc = hfmodel_parse_config(text, len, "config.json", cfg, origin, why, whylen);
    free(text);
    return rc;
}

/* Whether GPT-2's own tensors are named with "transformer." (all or none),
 * and that no layer's number is beyond config.json's n_layer. */
static int check_names(HfModel *m, char *why, size_t whylen)
{
    const StTensor *with = NULL, *without = NULL;
    for (int s = 0; s < m->files.n_shards; s++) {
        for (int k = 0; k < m->files.shard[s].n; k++) {
            const StTensor *t = &m->files.shard[s].t[k];
            bool pre = strncmp(t->name, PREFIX, PREFIX_LEN) == 0;
            const char *n = t->name + (pre ? PREFIX_LEN : 0);
            if (strncmp(n, "wte.", 4) && strncmp(n, "wpe.", 4) && strncmp(n, "h.", 2) &&
                strncmp(n, "ln_f.", 5))
                continue;
            *(pre ? &with : &without) = t;
            char *end;
            long l = n[0] == 'h' ? strtol(n + 2, &end, 10) : 0;
            if (n[0] == 'h' && (n[2] < '0' || n[2] > '9' || *end != '.' || l >= m->w.cfg.n_layer))
                return fail(why, whylen, AV_ERR_MODEL,
                            "%s: tensor \"%s\": not a layer of "
                            "config.json's n_layer %d",
                            m->files.shard[s].name, st_printable((char[96]){0}, 96, t->name),
                            m->w.cfg.n_layer);
        }
    }
    if (with && without)
        return fail(why, whylen, AV_ERR_MODEL,
                    "tensor names mix \"%s\" and \"%s\": all "
                    "or none must begin with \"" PREFIX "\"",
                    st_printable((char[96]){0}, 96, with->name),
                    st_printable((char[96]){0}, 96, without->name));
    m->prefixed = with != NULL;
    return AV_OK;
}

/* The table of wanted tensors, in file order of a Hugging Face save, their
 * names with the prefix the file uses (lm_head.weight never has it). */
static int plan(HfModel *m, HfWant *w)
{
    const Gpt2Config *c = &m->w.cfg;
    const char *pre = m->prefixed ? PREFIX : "";
    int D = c->d_model, F = c->d_ff, n = 0;
    Gpt2Weights *g = &m->w;
#define WANT(nm, r, cl, d)                                                                         \
    w[n] = (HfWant){.rows = (r), .cols = (cl), .dst = (d)};                                        \
    snprintf(w[n].name, sizeof w[n].name, "%s%s", pre, nm);                                        \
    n++
    WANT("wte.weight", c->n_vocab, D, &g->wte);
    WANT("wpe.weight", c->n_ctx, D, &g->wpe);
    for (int l = 0; l < c->n_layer; l++) {
        static const char *const sfx[12] = {
            "ln_1.weight",        "ln_1.bias",        "attn.c_attn.weight", "attn.c_attn.bias",
            "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight",        "ln_2.bias",
            "mlp.c_fc.weight",    "mlp.c_fc.bias",    "mlp.c_proj.weight",  "mlp.c_proj.bias"};
        const int rows[12] = {D, D, D, 3 * D, D, D, D, D, D, F, F, D};
        const int cols[12] = {0, 0, 3 * D, 0, D, 0, 0, 0, F, 0, D, 0};
        Gpt2Layer *ly = &g->layer[l];
        const float **dst[12] = {&ly->ln1_g,  &ly->ln1_b,  &ly->attn_w,   &ly->attn_b,
                                 &ly->proj_w, &ly->proj_b, &ly->ln2_g,    &ly->ln2_b,
                                 &ly->fc_w,   &ly->fc_b,   &ly->fcproj_w, &ly->fcproj_b};
        for (int k = 0; k < 12; k++) {
            /* the forward's threads each read a panel (core/gpt2.h) */
            const bool panel =
                dst[k] == &ly->attn_w || dst[k] == &ly->fc_w || dst[k] == &ly->fcproj_w;
            w[n] = (HfWant){.rows = rows[k],
                            .cols = cols[k],
                            .dst = dst[k],
                            .split = panel ? gpt2_panel_split(cols[k]) : 0};
            snprintf(w[n].name, sizeof w[n].name, "%sh.%d.%s", pre, l, sfx[k]);
            n++;
        }
    }
    g->panels = true;
    WANT("ln_f.weight", D, 0, &g->lnf_g);
    WANT("ln_f.bias", D, 0, &g->lnf_b);
#undef WANT
    w[n] = (HfWant){.rows = c->n_vocab, .cols = D, .dst = &g->lm_head, .optional = true};
    snprintf(w[n].name, sizeof w[n].name, "lm_head.weight");
    return n + 1;
}

/* Find every tensor, then load them (hfweights.c); lm_head tied when
 * config.json ties it (a stored one is then not read), and required when
 * config.json unties it. */
static int read_weights(HfModel *m, HfProgress progress, void *ctx, char *why, size_t whylen)
{
    int max = 5 + 12 * m->w.cfg.n_layer;
    HfWant *w = calloc((size_t)max, sizeof(*w));
    if (!w)
        return fail(why, whylen, AV_ERR_NOMEM, "%s", av_strerror(AV_ERR_NOMEM));
    int n = plan(m, w) - (m->origin.tie ? 1 : 0);
    m->files.limit = hfweights_limit(m->w.cfg.d_model, m->w.cfg.n_head);
    int rc = hfweights_load(&m->files, w, n, progress, ctx, why, whylen);
    if (rc == AV_OK && !m->origin.tie && w[n - 1].t == NULL) /* transformers: at random */
        rc = fail(why, whylen, AV_ERR_MODEL,
                  "config.json says \"tie_word_embeddings\": false, and there is no "
                  "\"lm_head.weight\" (the model's own unembedding)");
    if (rc == AV_OK) {
        m->tied = m->origin.tie;
        if (m->tied)
            m->w.lm_head = m->w.wte;
        m->dtype = w[0].t->dtype;
        m->n_params = m->files.n_params;
        m->copied_bytes = m->files.copied_bytes;
    }
    free(w);
    return rc;
}

int hfmodel_open(const char *dir, HfModel *m, HfProgress progress, void *ctx, char *why,
                 size_t whylen)
{
    memset(m, 0, sizeof(*m));
    if (progress)
        progress(ctx, 0.0, "config.json");
    int rc = read_config(dir, &m->w.cfg, &m->origin, why, whylen);
    if (rc == AV_OK)
        rc = hfweights_open(dir, &m->files, why, whylen);
    if (rc == AV_OK)
        rc = check_names(m, why, whylen);
    if (rc == AV_OK)
        rc = read_weights(m, progress, ctx, why, whylen);
    if (rc != AV_OK) {
        int e = errno;
        hfmodel_close(m);
        errno = e;
    }
    return rc;
}

void hfmodel_close(HfModel *m)
{
    hfweights_close(&m->files);
    memset(m, 0, sizeof(*m));
}
