/* test_hfmodel.c - the Hugging Face GPT-2 folder reader on small folders
 * written here (2 layers, d_model 8, 2 heads, vocab 11, 6 positions): every
 * variant (prefix, F32/F16/BF16, misaligned, untied, sharded, data in another
 * order, buffers) read with exact values; config.json's keys and refusals;
 * and every refused folder, its message checked and nothing left allocated.
 */
#include "test_common.h"

#include "test_tmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/hfmodel.h"
#include "io/safetensors.h"

enum { L = 2, D = 8, H = 2, V = 11, T = 6, F = 4 * D, MAX_ENTRIES = 64 };

static const char *const layer_sfx[12] = {
    "ln_1.weight",        "ln_1.bias",        "attn.c_attn.weight", "attn.c_attn.bias",
    "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight",        "ln_2.bias",
    "mlp.c_fc.weight",    "mlp.c_fc.bias",    "mlp.c_proj.weight",  "mlp.c_proj.bias"};
static const int layer_rows[12] = {D, D, D, 3 * D, D, D, D, D, D, F, F, D};
static const int layer_cols[12] = {0, 0, 3 * D, 0, D, 0, 0, 0, F, 0, D, 0};

/* The k-th weight in reading order (wte, wpe, layers, ln_f, lm_head). */
typedef struct {
    char name[64];
    int rows, cols;
} Spec;

static int specs(Spec *s)
{
    int n = 0;
    s[n++] = (Spec){"wte.weight", V, D};
    s[n++] = (Spec){"wpe.weight", T, D};
    for (int l = 0; l < L; l++)
        for (int k = 0; k < 12; k++, n++) {
            snprintf(s[n].name, sizeof s[n].name, "h.%d.%s", l, layer_sfx[k]);
            s[n].rows = layer_rows[k];
            s[n].cols = layer_cols[k];
        }
    s[n++] = (Spec){"ln_f.weight", D, 0};
    s[n++] = (Spec){"ln_f.bias", D, 0};
    s[n++] = (Spec){"lm_head.weight", V, D};
    return n;
}

/* Element i of weight k: multiples of 1/16 in [-1/2, 1/2], exact in F16 and BF16. */
static float value(int k, size_t i)
{
    return (float)((int)((k * 7 + i * 3) % 17) - 8) / 16.0f;
}

static const float *field(const Gpt2Weights *w, int k)
{
    if (k == 0)
        return w->wte;
    if (k == 1)
        return w->wpe;
    if (k >= 2 + 12 * L)
        return k == 2 + 12 * L ? w->lnf_g : k == 3 + 12 * L ? w->lnf_b : w->lm_head;
    const Gpt2Layer *y = &w->layer[(k - 2) / 12];
    const float *p[12] = {y->ln1_g, y->ln1_b, y->attn_w, y->attn_b, y->proj_w,   y->proj_b,
                          y->ln2_g, y->ln2_b, y->fc_w,   y->fc_b,   y->fcproj_w, y->fcproj_b};
    return p[(k - 2) % 12];
}

typedef struct {
    bool prefix, misalign, untied, shuffle, mix, buffers;
    bool keep_head; /* lm_head.weight written, config.json tying it (or not saying) */
    int dtype;      /* ST_F32, ST_F16 or ST_BF16 */
    int shards;     /* 2: two shards and an index; else model.safetensors */
    const char *drop, *reshape, *nan, *inf, *extra, *i32;
    int nan_at;         /* the NaN's element (0: element 1) */
    const char *config; /* config.json's text; NULL: the small model's */
    const char *index;  /* the index's text; NULL: made from the shards */
} Variant;

typedef struct {
    char name[80];
    const char *dtype;
    int ndim;
    size_t shape[4];
    unsigned char *bytes;
    size_t nbytes;
} Entry;

static uint16_t f16_bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    uint16_t s = (uint16_t)(b >> 16 & 0x8000);
    if ((b & 0x7fffffff) == 0)
        return s;
    if (isnan(x))
        return 0x7e00;
    if (isinf(x))
        return s | 0x7c00;
    return (uint16_t)(s | ((((b >> 23) & 255) - 112) << 10) | ((b >> 13) & 0x3ff));
}

static void encode(Entry *e, int dtype, const float *x, size_t n)
{
    int sz = dtype == ST_F32 ? 4 : 2;
    e->dtype = st_dtype_name(dtype);
    e->nbytes = n * (size_t)sz;
    e->bytes = malloc(e->nbytes + 1);
    assert_non_null(e->bytes);
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &x[i], 4);
        if (dtype == ST_F16)
            b = f16_bits(x[i]);
        else if (dtype == ST_BF16)
            b >>= 16;
        for (int k = 0; k < sz; k++)
            e->bytes[i * (size_t)sz + (size_t)k] = (unsigned char)(b >> (8 * k));
    }
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* A safetensors file of e[0..n): data in order (reversed with shuffle),
 * header padded so the data begins at 0 (or, misaligned, 3) modulo 8. */
static void write_st(const char *path, const Entry *e, int n, bool misalign, bool shuffle)
{
    size_t cap = 256 * (size_t)n + 64, at = 1, off[MAX_ENTRIES], pos = 0, total = 0;
    char *h = malloc(cap);
    assert_non_null(h);
    for (int k = 0; k < n; k++) {
        int j = shuffle ? n - 1 - k : k;
        off[j] = pos;
        pos += e[j].nbytes;
    }
    total = pos;
    h[0] = '{';
    for (int k = 0; k < n; k++) {
        at += (size_t)snprintf(h + at, cap - at, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[",
                               k ? "," : "", e[k].name, e[k].dtype);
        for (int d = 0; d < e[k].ndim; d++)
            at += (size_t)snprintf(h + at, cap - at, "%s%zu", d ? "," : "", e[k].shape[d]);
        at += (size_t)snprintf(h + at, cap - at, "],\"data_offsets\":[%zu,%zu]}", off[k],
                               off[k] + e[k].nbytes);
    }
    h[at++] = '}';
    while ((8 + at) % 8 != (misalign ? 3u : 0u))
        h[at++] = ' ';
    unsigned char *img = malloc(8 + at + total + 1);
    assert_non_null(img);
    for (int k = 0; k < 8; k++)
        img[k] = (unsigned char)((uint64_t)at >> (8 * k));
    memcpy(img + 8, h, at);
    for (int k = 0; k < n; k++)
        memcpy(img + 8 + at + off[k], e[k].bytes, e[k].nbytes);
    write_bytes(path, img, 8 + at + total);
    free(img);
    free(h);
}

static const char *small_config =
    "{\"activation_function\": \"gelu_new\", \"model_type\": \"gpt2\", \"n_ctx\": 6, "
    "\"n_embd\": 8, \"n_head\": 2, \"n_inner\": null, \"n_layer\": 2, \"n_positions\": 6, "
    "\"layer_norm_epsilon\": 1e-05, \"task_specific_params\": {\"a\": [1, {\"b\": null}]}, "
    "\"vocab_size\": 11}";

/* The same with the unembedding untied, as --untied and `attnviz train` write. */
static const char *untied_config =
    "{\"activation_function\": \"gelu_new\", \"model_type\": \"gpt2\", \"n_ctx\": 6, "
    "\"n_embd\": 8, \"n_head\": 2, \"n_inner\": null, \"n_layer\": 2, \"n_positions\": 6, "
    "\"layer_norm_epsilon\": 1e-05, \"tie_word_embeddings\": false, \"vocab_size\": 11}";

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_bytes(path, text, strlen(text));
}

/* One weight's entry, with the variant's damage. */
static void make_entry(Entry *e, const Variant *v, const Spec *s, int k)
{
    bool pre = v->prefix && k < 4 + 12 * L;
    if (v->mix && strcmp(s->name, "ln_f.bias") == 0)
        pre = !pre;
    snprintf(e->name, sizeof e->name, "%s%.60s", pre ? "transformer." : "", s->name);
    int rows = s->rows, cols = s->cols;
    if (v->reshape && strcmp(v->reshape, s->name) == 0)
        *(cols ? &cols : &rows) -= 1;
    e->ndim = cols ? 2 : 1;
    e->shape[0] = (size_t)rows;
    e->shape[1] = (size_t)cols;
    size_t n = (size_t)rows * (size_t)(cols ? cols : 1);
    float *x = malloc(n * sizeof(float));
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = value(k, i);
    if (v->nan && strcmp(v->nan, s->name) == 0)
        x[v->nan_at ? v->nan_at : 1] = NAN;
    if (v->inf && strcmp(v->inf, s->name) == 0)
        x[2] = INFINITY;
    bool i32 = v->i32 && strcmp(v->i32, s->name) == 0;
    encode(e, i32 || !v->dtype ? ST_F32 : v->dtype, x, n); /* dtype 0: F32 */
    if (i32)
        e->dtype = "I32";
    free(x);
}

/* The extra entries: HF's attention buffers and a tensor of the variant's. */
static int extra_entries(Entry *e, const Variant *v)
{
    int n = 0;
    float zero = 0.0f;
    for (int l = 0; v->buffers && l < L; l++) {
        e[n] = (Entry){.dtype = "BOOL", .ndim = 4, .shape = {1, 1, T, T}, .nbytes = T * T};
        snprintf(e[n].name, sizeof e[n].name, "transformer.h.%d.attn.bias", l);
        e[n].bytes = calloc(T * T, 1);
        n++;
        encode(&e[n], ST_F32, &zero, 1);
        e[n].ndim = 0;
        snprintf(e[n].name, sizeof e[n].name, "transformer.h.%d.attn.masked_bias", l);
        n++;
    }
    if (v->extra) {
        float x[D] = {0};
        encode(&e[n], ST_F32, x, D);
        e[n].ndim = 1;
        e[n].shape[0] = D;
        snprintf(e[n].name, sizeof e[n].name, "%s", v->extra);
        n++;
    }
    return n;
}

static void write_index(const char *dir, const Entry *e, int n, int half)
{
    size_t cap = 128 * (size_t)n + 64, at = 0;
    char *x = malloc(cap);
    assert_non_null(x);
    at += (size_t)snprintf(x, cap, "{\"metadata\": {\"total_size\": 1}, \"weight_map\": {");
    for (int k = 0; k < n; k++)
        at += (size_t)snprintf(x + at, cap - at, "%s\"%s\": \"model-0000%d-of-00002.safetensors\"",
                               k ? ", " : "", e[k].name, k < half ? 1 : 2);
    snprintf(x + at, cap - at, "}}");
    write_text(dir, "model.safetensors.index.json", x);
    free(x);
}

/* The folder of variant v in dir. */
static void write_model(const char *dir, const Variant *v)
{
    Spec s[MAX_ENTRIES];
    Entry e[MAX_ENTRIES];
    int ns = specs(s), n = 0;
    memset(e, 0, sizeof e);
    write_text(dir, "config.json",
               v->config                    ? v->config
               : v->untied && !v->keep_head ? untied_config
                                            : small_config);
    for (int k = 0; k < ns; k++) {
        if ((k == ns - 1 && !v->untied && !v->keep_head) ||
            (v->drop && strcmp(v->drop, s[k].name) == 0))
            continue;
        make_entry(&e[n++], v, &s[k], k);
    }
    n += extra_entries(e + n, v);
    char path[256];
    if (v->shards == 2) {
        int half = n / 2;
        for (int p = 0; p < 2; p++) {
            snprintf(path, sizeof path, "%s/model-0000%d-of-00002.safetensors", dir, p + 1);
            write_st(path, p ? e + half : e, p ? n - half : half, v->misalign, v->shuffle);
        }
        if (v->index)
            write_text(dir, "model.safetensors.index.json", v->index);
        else
            write_index(dir, e, n, half);
    } else {
        snprintf(path, sizeof path, "%s/model.safetensors", dir);
        write_st(path, e, n, v->misalign, v->shuffle);
    }
    for (int k = 0; k < n; k++)
        free(e[k].bytes);
}

static bool is_zeroed(const HfModel *m)
{
    static const HfModel zero;
    return memcmp(m, &zero, sizeof zero) == 0;
}

/* Every weight equals what was written, exactly. */
static void check_values(const HfModel *m, bool untied)
{
    Spec s[MAX_ENTRIES];
    int ns = specs(s);
    for (int k = 0; k < ns; k++) {
        const float *x = field(&m->w, k);
        int kk = k == ns - 1 && !untied ? 0 : k; /* tied: lm_head is wte */
        size_t n = (size_t)s[k].rows * (size_t)(s[k].cols ? s[k].cols : 1);
        assert_non_null(x);
        /* attn_w, fc_w and fcproj_w lie in panels (core/gpt2.h) */
        const bool panels = k >= 2 && k < 2 + 12 * L &&
                            ((k - 2) % 12 == 2 || (k - 2) % 12 == 8 || (k - 2) % 12 == 10);
        assert_true(m->w.panels);
        for (size_t i = 0; i < n; i++) {
            const int cols = s[k].cols ? s[k].cols : 1;
            const size_t at =
                gpt2_weight_index(panels, s[k].rows, cols, (int)(i / cols), (int)(i % cols));
            if (x[at] != value(kk, i)) {
                print_error("%s[%zu] = %g, written %g\n", s[k].name, i, (double)x[at],
                            (double)value(kk, i));
                fail();
            }
        }
    }
}

static int open_variant(const char *dir, const Variant *v, HfModel *m, char *why, size_t len)
{
    write_model(dir, v);
    return hfmodel_open(dir, m, NULL, NULL, why, len);
}

/* Prefix or not, F32/F16/BF16, aligned or not: the same values; aligned F32
 * in place in the map except the matrices laid in panels (attn_w and fc_w
 * here: fcproj_w's 8 columns make no panels), everything else copied once. */
static void test_hfmodel_reads_every_variant(void **state)
{
    Tmp *t = *state;
    const int dtypes[3] = {ST_F32, ST_F16, ST_BF16};
    for (int c = 0; c < 12; c++) {
        Variant v = {.prefix = c & 1, .misalign = (c >> 1) & 1, .dtype = dtypes[c >> 2]};
        HfModel m;
        char why[512] = "";
        int rc = open_variant(t->dir, &v, &m, why, sizeof why);
        if (rc != AV_OK)
            print_error("variant %d: %s\n", c, why);
        assert_int_equal(rc, AV_OK);
        assert_int_equal(m.w.cfg.n_layer, L);
        assert_int_equal(m.w.cfg.d_model, D);
        assert_int_equal(m.w.cfg.n_head, H);
        assert_int_equal(m.w.cfg.n_vocab, V);
        assert_int_equal(m.w.cfg.n_ctx, T);
        assert_int_equal(m.w.cfg.d_ff, F);
        assert_float_equal(m.w.cfg.ln_eps, 1e-5f, 0);
        assert_true(m.tied);
        assert_ptr_equal(m.w.lm_head, m.w.wte);
        assert_int_equal(m.prefixed, v.prefix);
        assert_int_equal(m.dtype, v.dtype);
        check_values(&m, false);
        size_t params =
            (size_t)(V + T) * D + (size_t)L * (4 * D * D + 2 * D * F + 9 * D + F) + 2 * D;
        assert_int_equal(m.n_params, params);
        bool in_place = v.dtype == ST_F32 && !v.misalign;
        const size_t panelled = (size_t)L * (D * 3 * D + D * F) * sizeof(float);
        assert_int_equal(gpt2_panel_split(D), 0);
        assert_int_equal(m.copied_bytes, in_place ? panelled : params * sizeof(float));
        const StFile *f = &m.files.shard[0];
        const unsigned char *p = (const unsigned char *)m.w.layer[1].proj_w,
                            *q = (const unsigned char *)m.w.layer[1].fc_w;
        assert_int_equal(p >= f->base && p < f->base + f->len, in_place);
        assert_false(q >= f->base && q < f->base + f->len);
        hfmodel_close(&m);
        assert_true(is_zeroed(&m));
    }
}

/* lm_head.weight present is used (not wte); buffers are ignored; data in
 * another order than the header's reads the same. */
static void test_hfmodel_untied_buffers_shuffled(void **state)
{
    Tmp *t = *state;
    Variant v = {
        .prefix = true, .untied = true, .buffers = true, .shuffle = true, .dtype = ST_BF16};
    HfModel m;
    char why[512];
    assert_int_equal(open_variant(t->dir, &v, &m, why, sizeof why), AV_OK);
    assert_false(m.tied);
    assert_true(m.w.lm_head != m.w.wte);
    check_values(&m, true);
    hfmodel_close(&m);
}

/* config.json tying the unembedding (saying so, or not saying: transformers'
 * default) while the file holds an lm_head.weight of other values: wte is the
 * unembedding, as transformers' tie_weights makes it, and the stored one is
 * neither read nor counted. */
static void test_hfmodel_tie_overrides_stored_head(void **state)
{
    Tmp *t = *state;
    const char *said =
        "{\"model_type\": \"gpt2\", \"n_ctx\": 6, \"n_embd\": 8, \"n_head\": 2, "
        "\"n_layer\": 2, \"n_positions\": 6, \"tie_word_embeddings\": true, \"vocab_size\": 11}";
    for (int c = 0; c < 2; c++) {
        Variant v = {.keep_head = true, .prefix = true, .config = c ? said : NULL};
        HfModel m;
        char why[512] = "";
        int rc = open_variant(t->dir, &v, &m, why, sizeof why);
        if (rc)
            print_error("%s\n", why);
        assert_int_equal(rc, AV_OK);
        assert_true(m.tied);
        assert_ptr_equal(m.w.lm_head, m.w.wte);
        check_values(&m, false);
        assert_int_equal(m.n_params, (size_t)(V + T) * D +
                                         (size_t)L * (4 * D * D + 2 * D * F + 9 * D + F) + 2 * D);
        hfmodel_close(&m);
    }
}

/* Two shards and an index: every tensor found in its shard, F16, misaligned. */
static void test_hfmodel_reads_shards(void **state)
{
    Tmp *t = *state;
    Variant v = {.shards = 2, .dtype = ST_F16, .misalign = true, .untied = true, .prefix = true};
    HfModel m;
    char why[512] = "";
    int rc = open_variant(t->dir, &v, &m, why, sizeof why);
    if (rc)
        print_error("%s\n", why);
    assert_int_equal(rc, AV_OK);
    assert_int_equal(m.files.n_shards, 2);
    check_values(&m, true);
    hfmodel_close(&m);
}

typedef struct {
    int calls, backwards;
    double last;
    char first[32], final[64];
} Seen;

static void on_progress(void *ctx, double f, const char *what)
{
    Seen *s = ctx;
    if (s->calls++ == 0)
        snprintf(s->first, sizeof s->first, "%s", what);
    s->backwards += f < s->last;
    s->last = f;
    snprintf(s->final, sizeof s->final, "%s", what);
}

/* Progress: config.json first, then one call a tensor, never going back,
 * ending at 1 on the last tensor read. */
static void test_hfmodel_progress(void **state)
{
    Tmp *t = *state;
    Variant v = {.dtype = ST_F32};
    write_model(t->dir, &v);
    HfModel m;
    Seen s = {0};
    char why[512];
    assert_int_equal(hfmodel_open(t->dir, &m, on_progress, &s, why, sizeof why), AV_OK);
    assert_int_equal(s.calls, 1 + 4 + 12 * L);
    assert_string_equal(s.first, "config.json");
    assert_string_equal(s.final, "ln_f.bias");
    assert_int_equal(s.backwards, 0);
    assert_true(s.last == 1.0);
    hfmodel_close(&m);
}

static void config_ok(const char *text, Gpt2Config *c)
{
    char why[512] = "";
    int rc = hfmodel_parse_config(text, strlen(text), "config.json", c, NULL, why, sizeof why);
    if (rc != AV_OK)
        print_error("%s: %s\n", text, why);
    assert_int_equal(rc, AV_OK);
}

static void config_refused(const char *text, const char *want)
{
    char why[512] = "";
    Gpt2Config c;
    int rc = hfmodel_parse_config(text, strlen(text), "config.json", &c, NULL, why, sizeof why);
    if (rc != AV_ERR_MODEL || !strstr(why, want) || strncmp(why, "config.json: ", 13) != 0) {
        print_error("%s\n  rc %d, why \"%s\"; wanted \"%s\"\n", text, rc, why, want);
        fail();
    }
}

/* Missing keys take GPT2Config's defaults; the aliases; gpt2-xl's sizes. */
static void test_hfmodel_config_keys(void **state)
{
    (void)state;
    Gpt2Config c;
    config_ok("{\"model_type\": \"gpt2\"}", &c);
    assert_int_equal(c.n_vocab, 50257);
    assert_int_equal(c.n_ctx, 1024);
    assert_int_equal(c.d_model, 768);
    assert_int_equal(c.n_head, 12);
    assert_int_equal(c.n_layer, 12);
    assert_int_equal(c.d_ff, 3072);
    assert_float_equal(c.ln_eps, 1e-5f, 0);
    config_ok("{\"model_type\":\"gpt2\",\"n_embd\":1600,\"n_head\":25,\"n_layer\":48,"
              "\"n_inner\":null,\"activation_function\":\"gelu_pytorch_tanh\","
              "\"scale_attn_by_inverse_layer_idx\":false,\"add_cross_attention\":false,"
              "\"scale_attn_weights\":true}",
              &c);
    assert_int_equal(c.d_model, 1600);
    assert_int_equal(c.n_head, 25);
    assert_int_equal(c.n_layer, 48);
    assert_int_equal(c.d_ff, 6400);
    config_ok("{\"model_type\":\"gpt2\",\"n_vocab\":7,\"n_ctx\":9,\"n_inner\":100,"
              "\"layer_norm_epsilon\":1e-6}",
              &c);
    assert_int_equal(c.n_vocab, 7);
    assert_int_equal(c.n_ctx, 9);
    assert_int_equal(c.d_ff, 100);
    assert_float_equal(c.ln_eps, 1e-6f, 0);
}

/* origin_of TEXT: the "attnviz" object's task and seed, the config accepted. */
static HfOrigin origin_of(const char *text)
{
    char why[512] = "";
    Gpt2Config c;
    HfOrigin o;
    memset(&o, 0xA5, sizeof o);
    int rc = hfmodel_parse_config(text, strlen(text), "config.json", &c, &o, why, sizeof why);
    if (rc != AV_OK)
        print_error("%s: %s\n", text, why);
    assert_int_equal(rc, AV_OK);
    return o;
}

/* expect: what `attnviz train --format hf` writes under "attnviz" gives the
   task and the seed; a config without it, or with values of other types
   there, is read as before with no task and seed 1 */
static void test_hfmodel_config_origin(void **state)
{
    (void)state;
    HfOrigin o = origin_of("{\"model_type\": \"gpt2\", \"attnviz\": {\"task\": \"induction\", "
                           "\"tokenizer\": \"chars\", \"pe\": \"learned\", \"mlp\": 0, "
                           "\"steps\": 800, \"seed\": 7, \"tokenizer_tokens\": 257}}");
    assert_string_equal(o.task, "induction");
    assert_true(o.seed == 7);
    o = origin_of("{\"model_type\": \"gpt2\"}");
    assert_string_equal(o.task, "");
    assert_true(o.seed == 1);
    o = origin_of("{\"attnviz\": \"a string\", \"model_type\": \"gpt2\"}");
    assert_string_equal(o.task, "");
    o = origin_of("{\"model_type\": \"gpt2\", \"attnviz\": {\"task\": [\"copy\"], "
                  "\"seed\": \"3\", \"x\": {\"task\": \"sort\"}}}");
    assert_string_equal(o.task, "");
    assert_true(o.seed == 1);
    o = origin_of("{\"model_type\": \"gpt2\", \"attnviz\": {\"seed\": 18446744073709551615, "
                  "\"task\": \"copy\"}, \"n_layer\": 2}");
    assert_string_equal(o.task, "copy");
}

/* Everything config.json may say that attnviz refuses, each in one line. */
static void test_hfmodel_config_refusals(void **state)
{
    (void)state;
    config_refused("{}", "no \"model_type\"");
    config_refused("{\"model_type\":\"bert\"}", "\"model_type\" is \"bert\"");
    config_refused("{\"model_type\":\"gpt2\",\"scale_attn_by_inverse_layer_idx\":true}",
                   "\"scale_attn_by_inverse_layer_idx\" is true");
    config_refused("{\"model_type\":\"gpt2\",\"add_cross_attention\":true}",
                   "\"add_cross_attention\" is true");
    config_refused("{\"model_type\":\"gpt2\",\"scale_attn_weights\":false}",
                   "\"scale_attn_weights\" is false, which changes the maths");
    config_refused("{\"model_type\":\"gpt2\",\"scale_attn_weights\":0}", "not true or false");
    config_refused("{\"model_type\":\"gpt2\",\"activation_function\":\"relu\"}",
                   "\"activation_function\" is \"relu\"");
    config_refused("{\"model_type\":\"gpt2\",\"n_embd\":50,\"n_head\":4}",
                   "\"n_embd\" 50 is not divisible by \"n_head\" 4");
    config_refused("{\"model_type\":\"gpt2\",\"n_layer\":49}", "\"n_layer\" is 49");
    config_refused("{\"model_type\":\"gpt2\",\"n_head\":0}", "\"n_head\" is 0");
    config_refused("{\"model_type\":\"gpt2\",\"n_embd\":16385}", "\"n_embd\" is 16385");
    config_refused("{\"model_type\":\"gpt2\",\"vocab_size\":1048577}", "\"vocab_size\" is");
    config_refused("{\"model_type\":\"gpt2\",\"layer_norm_epsilon\":0}",
                   "\"layer_norm_epsilon\" is 0");
    config_refused("{\"model_type\":\"gpt2\",\"layer_norm_epsilon\":1e-50}",
                   "\"layer_norm_epsilon\" is 1e-50");
    config_refused("{\"model_type\":\"gpt2\",\"vocab_size\":5,\"n_vocab\":6}", "differ");
    config_refused("{\"model_type\":\"gpt2\",\"n_layer\":2,\"n_layer\":3}",
                   "\"n_layer\" appears twice");
    config_refused("{\"model_type\":\"gpt2\",\"n_layer\":2.5}", "not a whole number");
    config_refused("{\"model_type\":\"gpt2\",\"add_cross_attention\":1}", "not true or false");
    config_refused("{\"model_type\":\"gpt2\"", "the object is not closed");
    config_refused("{\"model_type\":\"gpt\xc3\"}", "not valid UTF-8");
    config_refused("{\"model_type\":\"gpt2\"} x", "bytes follow");
}

/* A folder refused with rc, why holding want, and nothing left allocated. */
static void folder_refused(const char *dir, int want_rc, const char *want)
{
    HfModel m;
    char why[512] = "";
    int rc = hfmodel_open(dir, &m, NULL, NULL, why, sizeof why);
    if (rc != want_rc || !strstr(why, want)) {
        print_error("rc %d, why \"%s\"; wanted %d, \"%s\"\n", rc, why, want_rc, want);
        fail();
    }
    assert_true(is_zeroed(&m));
}

static void variant_refused(const char *dir, const Variant *v, const char *want)
{
    write_model(dir, v);
    folder_refused(dir, AV_ERR_MODEL, want);
}

static void remove_file(const char *dir, const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    unlink(p);
}

/* Folders without the files: nothing, a config alone, pytorch_model.bin. */
static void test_hfmodel_refuses_missing_files(void **state)
{
    Tmp *t = *state;
    char path[256];
    snprintf(path, sizeof path, "%s/none", t->dir);
    folder_refused(path, AV_ERR_IO, "none: No such file or directory");
    folder_refused(t->dir, AV_ERR_MODEL, ": no config.json");
    write_text(t->dir, "config.json", small_config);
    folder_refused(t->dir, AV_ERR_MODEL, ": no model.safetensors");
    write_text(t->dir, "pytorch_model.bin", "PK");
    folder_refused(t->dir, AV_ERR_MODEL,
                   "only pytorch_model.bin, which attnviz does not read: "
                   "convert it to model.safetensors");
    snprintf(path, sizeof path, "%s/config.json", t->dir);
    folder_refused(path, AV_ERR_MODEL, "config.json: not a folder");
}

/* Each damaged checkpoint is refused naming the tensor. */
static void test_hfmodel_refuses_bad_tensors(void **state)
{
    Tmp *t = *state;
    variant_refused(t->dir, &(Variant){.prefix = true, .drop = "h.1.ln_2.bias"},
                    "model.safetensors: no tensor \"transformer.h.1.ln_2.bias\"");
    variant_refused(t->dir, &(Variant){.reshape = "h.0.attn.c_attn.weight"},
                    "tensor \"h.0.attn.c_attn.weight\" has shape (8, 23); config.json says "
                    "(8, 24)");
    variant_refused(t->dir, &(Variant){.reshape = "ln_f.bias", .dtype = ST_F16},
                    "tensor \"ln_f.bias\" has shape (7,); config.json says (8,)");
    variant_refused(t->dir, &(Variant){.untied = true, .reshape = "lm_head.weight"},
                    "tensor \"lm_head.weight\" has shape (11, 7)");
    variant_refused(t->dir, &(Variant){.dtype = ST_F16, .nan = "h.1.mlp.c_fc.weight"},
                    "tensor \"h.1.mlp.c_fc.weight\": NaN at element 1");
    /* in the second panel of a matrix laid in panels: still the file's element */
    variant_refused(t->dir, &(Variant){.nan = "h.1.mlp.c_fc.weight", .nan_at = 3 * F + 20},
                    "tensor \"h.1.mlp.c_fc.weight\": NaN at element 116");
    variant_refused(t->dir,
                    &(Variant){.dtype = ST_BF16, .nan = "h.0.attn.c_attn.weight", .nan_at = 137},
                    "tensor \"h.0.attn.c_attn.weight\": NaN at element 137");
    variant_refused(t->dir, &(Variant){.dtype = ST_BF16, .inf = "wpe.weight"},
                    "tensor \"wpe.weight\": Inf at element 2");
    variant_refused(t->dir, &(Variant){.nan = "ln_f.weight", .misalign = true},
                    "tensor \"ln_f.weight\": NaN at element 1");
    variant_refused(t->dir, &(Variant){.inf = "wte.weight"},
                    "tensor \"wte.weight\": Inf at element 2");
    variant_refused(t->dir, &(Variant){.i32 = "h.0.ln_1.bias"},
                    "tensor \"h.0.ln_1.bias\" is I32; attnviz reads F32, F16 and BF16");
    variant_refused(t->dir, &(Variant){.prefix = true, .mix = true}, "tensor names mix");
    variant_refused(t->dir, &(Variant){.extra = "h.2.ln_1.weight"},
                    "tensor \"h.2.ln_1.weight\": not a layer of config.json's n_layer 2");
    variant_refused(t->dir,
                    &(Variant){.config = "{\"model_type\":\"gpt2\",\"n_embd\":16,\"n_head\":2,"
                                         "\"n_layer\":2,\"vocab_size\":11,\"n_positions\":6}"},
                    "tensor \"wte.weight\" has shape (11, 8); config.json says (11, 16)");
    variant_refused(t->dir,
                    &(Variant){.config = "{\"model_type\":\"gpt2\",\"n_layer\":2,"
                                         "\"vocab_size\":12,\"n_embd\":8,\"n_head\":2,"
                                         "\"n_positions\":6}"},
                    "tensor \"wte.weight\" has shape (11, 8); config.json says (12, 8)");
}

/* A sharded checkpoint whose index is wrong. */
static void test_hfmodel_refuses_bad_index(void **state)
{
    Tmp *t = *state;
    const char *s1 = "model-00001-of-00002.safetensors";
    char idx[512];
    Variant v = {.shards = 2, .index = idx};
    snprintf(idx, sizeof idx, "{\"weight_map\": {\"wte.weight\": \"../%s\"}}", s1);
    variant_refused(t->dir, &v,
                    "weight_map names \"../model-00001-of-00002.safetensors\", not "
                    "a file name in the folder");
    snprintf(idx, sizeof idx,
             "{\"weight_map\": {\"wte.weight\": \"model-00002-of-00002.safetensors\"}}");
    variant_refused(t->dir, &v,
                    "weight_map puts \"wte.weight\" in "
                    "model-00002-of-00002.safetensors, which does not hold it");
    snprintf(idx, sizeof idx, "{\"weight_map\": {}}");
    variant_refused(t->dir, &v, "no \"weight_map\", or an empty one");
    snprintf(idx, sizeof idx, "{\"weight_map\": {\"wte.weight\": \"gone.safetensors\"}}");
    write_model(t->dir, &v);
    folder_refused(t->dir, AV_ERR_IO, "gone.safetensors: No such file or directory");
    /* the same tensors in two shards (b.safetensors a link to the first) */
    snprintf(idx, sizeof idx,
             "{\"weight_map\": {\"wte.weight\": \"%s\", \"wpe.weight\": \"b.safetensors\"}}", s1);
    write_model(t->dir, &v);
    char src[256], dst[256];
    snprintf(src, sizeof src, "%s/%s", t->dir, s1);
    snprintf(dst, sizeof dst, "%s/b.safetensors", t->dir);
    assert_int_equal(link(src, dst), 0);
    folder_refused(t->dir, AV_ERR_MODEL,
                   "tensor \"wte.weight\" is in both "
                   "model-00001-of-00002.safetensors and b.safetensors");
    remove_file(t->dir, "b.safetensors");
}

int main(void)
{
#define TMP(f) cmocka_unit_test_setup_teardown(f, tmp_setup, tmp_teardown)
    const struct CMUnitTest tests[] = {
        TMP(test_hfmodel_reads_every_variant),
        TMP(test_hfmodel_untied_buffers_shuffled),
        TMP(test_hfmodel_tie_overrides_stored_head),
        TMP(test_hfmodel_reads_shards),
        TMP(test_hfmodel_progress),
        cmocka_unit_test(test_hfmodel_config_keys),
        cmocka_unit_test(test_hfmodel_config_origin),
        cmocka_unit_test(test_hfmodel_config_refusals),
        TMP(test_hfmodel_refuses_missing_files),
        TMP(test_hfmodel_refuses_bad_tensors),
        TMP(test_hfmodel_refuses_bad_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
