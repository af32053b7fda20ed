/* hfmodel.c - a Hugging Face GPT-2 folder into Gpt2Weights (hfmodel.h): which
 * files hold the weights (one model.safetensors, or the shards an index
 * lists), then every tensor the forward reads, found, checked and pointed to.
 * config.json's parser is hfconfig.c; the safetensors format is
 * safetensors.c. Work happens in three passes over a table of wanted
 * tensors: find each (and check its dtype and shape), size the arena for
 * those that must be copied, then read each one (in place or converted) and
 * check its values.
 */
#include "io/hfmodel.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "io/fileio.h"
#include "hfindex.h"

#define PREFIX "transformer."
#define PREFIX_LEN 12
#define HF_CHUNK ((size_t)1 << 20) /* elements copied between drops of the map's pages */

/* One weight the forward reads: its name without the prefix, its shape in
 * config.json's sizes, the pointer it fills, and where it was found. */
typedef struct {
    char name[48];
    int rows, cols; /* cols 0: a vector of rows */
    const float **dst;
    const StFile *f;
    const StTensor *t;
    bool optional; /* lm_head.weight */
} Want;

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

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int read_config(const char *dir, Gpt2Config *cfg, char *why, size_t whylen)
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
    rc = hfmodel_parse_config(text, len, "config.json", cfg, why, whylen);
    free(text);
    return rc;
}

/* The weights' files: model.safetensors, or the index's shards. */
static int open_weights(const char *dir, HfModel *m, char *why, size_t whylen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (exists(path)) {
        m->shard = calloc(1, sizeof(*m->shard));
        if (!m->shard)
            return fail(why, whylen, AV_ERR_NOMEM, "%s", av_strerror(AV_ERR_NOMEM));
        int rc = st_open(path, &m->shard[0], why, whylen);
        m->n_shards = rc == AV_OK;
        return rc;
    }
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    if (exists(path))
        return hfindex_open(dir, &m->shard, &m->n_shards, why, whylen);
    snprintf(path, sizeof path, "%s/pytorch_model.bin", dir);
    if (exists(path))
        return fail(why, whylen, AV_ERR_MODEL,
                    "%s: only pytorch_model.bin, which attnviz does "
                    "not read: convert it to model.safetensors (Python: safetensors.torch."
                    "save_file)",
                    dir);
    return fail(why, whylen, AV_ERR_MODEL,
                "%s: no model.safetensors (nor "
                "model.safetensors.index.json)",
                dir);
}

/* Whether GPT-2's own tensors are named with "transformer." (all or none),
 * and that no layer's number is beyond config.json's n_layer. */
static int check_names(HfModel *m, char *why, size_t whylen)
{
    const StTensor *with = NULL, *without = NULL;
    for (int s = 0; s < m->n_shards; s++) {
        for (int k = 0; k < m->shard[s].n; k++) {
            const StTensor *t = &m->shard[s].t[k];
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
                            m->shard[s].name, st_printable((char[96]){0}, 96, t->name),
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

/* The table of wanted tensors, in file order of a Hugging Face save. */
static int plan(HfModel *m, Want *w)
{
    const Gpt2Config *c = &m->w.cfg;
    int D = c->d_model, F = c->d_ff, n = 0;
    Gpt2Weights *g = &m->w;
#define WANT(nm, r, cl, d)                                                                         \
    w[n] = (Want){.rows = (r), .cols = (cl), .dst = (d)};                                          \
    snprintf(w[n].name, sizeof w[n].name, "%s", nm);                                               \
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
            w[n] = (Want){.rows = rows[k], .cols = cols[k], .dst = dst[k]};
            snprintf(w[n].name, sizeof w[n].name, "h.%d.%s", l, sfx[k]);
            n++;
        }
    }
    WANT("ln_f.weight", D, 0, &g->lnf_g);
    WANT("ln_f.bias", D, 0, &g->lnf_b);
    WANT("lm_head.weight", c->n_vocab, D, &g->lm_head);
#undef WANT
    w[n - 1].optional = true;
    return n;
}

static void shape_text(char *buf, size_t size, const StTensor *t)
{
    size_t at = (size_t)snprintf(buf, size, "(");
    for (int k = 0; k < t->ndim && at < size; k++)
        at += (size_t)snprintf(buf + at, size - at, "%s%llu", k ? ", " : "",
                               (unsigned long long)t->shape[k]);
    if (at < size)
        snprintf(buf + at, size - at, t->ndim == 1 ? ",)" : ")");
}

/* Find w in the shards (in one only) and check its dtype and shape. */
static int find(HfModel *m, Want *w, char *why, size_t whylen)
{
    char full[64];
    bool pre = m->prefixed && strcmp(w->name, "lm_head.weight") != 0;
    snprintf(full, sizeof full, "%s%s", pre ? PREFIX : "", w->name);
    for (int s = 0; s < m->n_shards; s++) {
        const StTensor *t = st_find(&m->shard[s], full);
        if (t && w->t)
            return fail(why, whylen, AV_ERR_MODEL, "tensor \"%s\" is in both %s and %s", full,
                        w->f->name, m->shard[s].name);
        if (t)
            w->t = t, w->f = &m->shard[s];
    }
    if (!w->t)
        return w->optional
                   ? AV_OK
                   : fail(why, whylen, AV_ERR_MODEL, "%s: no tensor \"%s\"",
                          m->n_shards == 1 ? m->shard[0].name : "model.safetensors.index.json",
                          full);
    const StTensor *t = w->t;
    if (t->dtype != ST_F32 && t->dtype != ST_F16 && t->dtype != ST_BF16)
        return fail(why, whylen, AV_ERR_MODEL,
                    "%s: tensor \"%s\" is %s; attnviz reads F32, "
                    "F16 and BF16",
                    w->f->name, full, st_dtype_name(t->dtype));
    int ndim = w->cols ? 2 : 1;
    if (t->ndim != ndim || t->shape[0] != (uint64_t)w->rows ||
        (ndim == 2 && t->shape[1] != (uint64_t)w->cols)) {
        char got[160];
        shape_text(got, sizeof got, t);
        if (ndim == 2)
            return fail(why, whylen, AV_ERR_MODEL,
                        "%s: tensor \"%s\" has shape %s; config.json"
                        " says (%d, %d)",
                        w->f->name, full, got, w->rows, w->cols);
        return fail(why, whylen, AV_ERR_MODEL,
                    "%s: tensor \"%s\" has shape %s; config.json "
                    "says (%d,)",
                    w->f->name, full, got, w->rows);
    }
    return AV_OK;
}

/* Index of the first NaN or Inf of x[0..n), or n. */
static size_t first_nonfinite(const float *x, size_t n)
{
    uint32_t any = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t b;
        memcpy(&b, &x[k], 4);
        any |= (b & 0x7f800000u) == 0x7f800000u;
    }
    if (!any)
        return n;
    size_t k = 0;
    while (k < n && isfinite(x[k]))
        k++;
    return k;
}

/* Drop the map's pages holding bytes [lo, hi) of t's data from resident
 * memory: the map is never written, so they come back from the page cache
 * if touched again. */
static void drop_pages(const StFile *f, const StTensor *t, size_t lo, size_t hi)
{
    static long page;
    if (!f->mapped || hi == lo)
        return;
    if (!page)
        page = sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)st_data(f, t) + lo, b = (uintptr_t)st_data(f, t) + hi;
    a -= (a - (uintptr_t)f->base) % (uintptr_t)page;
    madvise((void *)a, b - a, MADV_DONTNEED);
}

/* t converted into out, HF_CHUNK elements at a time, each chunk's source
 * pages dropped behind it: resident memory never holds more than a chunk
 * of a tensor twice. */
static void copy_tensor(const StFile *f, const StTensor *t, float *out)
{
    size_t n = (size_t)t->count, size = (size_t)st_dtype_size(t->dtype);
    for (size_t at = 0; at < n; at += HF_CHUNK) {
        size_t k = n - at < HF_CHUNK ? n - at : HF_CHUNK;
        st_load_f32_part(f, t, at, k, out + at);
        drop_pages(f, t, at * size, (at + k) * size);
    }
}

/* Read every found tensor: in place, or into the arena; check its values. */
static int load(HfModel *m, Want *w, int n, HfProgress progress, void *ctx, char *why,
                size_t whylen)
{
    size_t total = 0, done = 0, at = 0;
    for (int k = 0; k < n; k++)
        total += w[k].t ? (size_t)(w[k].t->end - w[k].t->begin) : 0;
    for (int k = 0; k < n; k++) {
        const StTensor *t = w[k].t;
        if (!t)
            continue;
        const float *x = st_f32_in_place(w[k].f, t);
        if (!x) {
            float *out = m->arena + at;
            copy_tensor(w[k].f, t, out);
            at += (size_t)t->count;
            x = out;
        }
        size_t bad = first_nonfinite(x, (size_t)t->count);
        if (bad < t->count)
            return fail(why, whylen, AV_ERR_MODEL,
                        "%s: tensor \"%s\": %s at element %zu; "
                        "weights must be finite",
                        w[k].f->name, t->name, isnan(x[bad]) ? "NaN" : "Inf", bad);
        *w[k].dst = x;
        m->n_params += (size_t)t->count;
        done += (size_t)(t->end - t->begin);
        if (progress)
            progress(ctx, total ? (double)done / (double)total : 1.0, t->name);
    }
    return AV_OK;
}

/* The arena for bytes of copies: asked to be backed by huge pages where the
 * kernel does so on request, which spares a page fault every 4 KB while
 * hundreds of megabytes are filled (a third of the load time of an
 * unaligned gpt2). */
static float *arena_alloc(size_t bytes)
{
    float *a = malloc(bytes);
#ifdef MADV_HUGEPAGE
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)a + page - 1) / page * page,
              hi = ((uintptr_t)a + bytes) / page * page;
    if (a && hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
    return a;
}

/* Find every tensor, size and allocate the arena, then load. */
static int read_weights(HfModel *m, HfProgress progress, void *ctx, char *why, size_t whylen)
{
    int max = 5 + 12 * m->w.cfg.n_layer;
    Want *w = calloc((size_t)max, sizeof(*w));
    if (!w)
        return fail(why, whylen, AV_ERR_NOMEM, "%s", av_strerror(AV_ERR_NOMEM));
    int n = plan(m, w), rc = AV_OK;
    size_t copies = 0;
    for (int k = 0; k < n && rc == AV_OK; k++) {
        rc = find(m, &w[k], why, whylen);
        if (rc == AV_OK && w[k].t && !st_f32_in_place(w[k].f, w[k].t))
            copies += (size_t)w[k].t->count;
    }
    if (rc == AV_OK && copies) {
        m->arena = arena_alloc(copies * sizeof(float));
        if (!m->arena)
            rc = fail(why, whylen, AV_ERR_NOMEM, "%zu MB for the converted weights: %s",
                      copies * sizeof(float) >> 20, av_strerror(AV_ERR_NOMEM));
        m->copied_bytes = copies * sizeof(float);
    }
    if (rc == AV_OK)
        rc = load(m, w, n, progress, ctx, why, whylen);
    if (rc == AV_OK) {
        m->tied = w[n - 1].t == NULL;
        if (m->tied)
            m->w.lm_head = m->w.wte;
        m->dtype = w[0].t->dtype;
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
    int rc = read_config(dir, &m->w.cfg, why, whylen);
    if (rc == AV_OK)
        rc = open_weights(dir, m, why, whylen);
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
    for (int s = 0; s < m->n_shards; s++)
        st_close(&m->shard[s]);
    free(m->shard);
    free(m->arena);
    memset(m, 0, sizeof(*m));
}
