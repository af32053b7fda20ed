/* test_kind_gpt2.c - the GPT-2 kind (app/kind_gpt2.c) and session_predict on
 * a tiny GPT-2 folder written here: 2 layers, d_model 8, 2 heads, 16
 * positions, random weights from core/rng.h, and the 388-token subset of
 * GPT-2's real vocabulary in tests/data/bpe. Checked: the logits of every
 * position after a cached run are the bits of a whole forward of that
 * prefix (core/gpt2.h, on its own copy of the weights); the session's top
 * 10 are the double-precision softmax of them, in order, with display
 * texts that mark a leading space and never show GPT-2's "Ġ"; the cost of a
 * typed token is gpt2_flops of the one row computed; the status line's
 * sizes and what-if; what the kind refuses and allows; a session running
 * the GPT-2 builds no toy weights of its shape; the pipeline's Q, K and V
 * labelled and computed with c_attn's bias.
 */
#include "test_common.h"

#include "test_tmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "app/kind.h"
#include "app/lesson.h"
#include "app/session.h"
#include "core/av.h"
#include "core/bpe.h"
#include "core/gpt2.h"
#include "core/rng.h"
#include "io/fileio.h"
#include "io/hfmodel.h"
#include "io/hfvocab.h"
#include "render/export.h"
#include "render/pipeline.h"

enum { L = 2, D = 8, H = 2, F = 4 * D, V = 388, T = 16, MAX_T = 64 };

static const char *const layer_sfx[12] = {
    "ln_1.weight",        "ln_1.bias",        "attn.c_attn.weight", "attn.c_attn.bias",
    "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight",        "ln_2.bias",
    "mlp.c_fc.weight",    "mlp.c_fc.bias",    "mlp.c_proj.weight",  "mlp.c_proj.bias"};
static const int layer_rows[12] = {D, D, D, 3 * D, D, D, D, D, D, F, F, D};
static const int layer_cols[12] = {0, 0, 3 * D, 0, D, 0, 0, 0, F, 0, D, 0};

typedef struct {
    char name[48];
    int rows, cols; /* cols 0: a vector */
} Tensor;

static int tensors(Tensor *t)
{
    int n = 0;
    t[n++] = (Tensor){"wte.weight", V, D};
    t[n++] = (Tensor){"wpe.weight", T, D};
    for (int l = 0; l < L; l++)
        for (int k = 0; k < 12; k++, n++) {
            snprintf(t[n].name, sizeof t[n].name, "h.%d.%s", l, layer_sfx[k]);
            t[n].rows = layer_rows[k], t[n].cols = layer_cols[k];
        }
    t[n++] = (Tensor){"ln_f.weight", D, 0};
    t[n++] = (Tensor){"ln_f.bias", D, 0};
    return n;
}

static void copy_file(const char *from, const char *dir, const char *name)
{
    char *data, path[160];
    size_t len;
    assert_int_equal(file_read_all(from, 1 << 20, &data, &len), AV_OK);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(file_write_atomic(path, data, len, false), AV_OK);
    free(data);
}

/* model.safetensors of random float32 weights (LayerNorm gains near 1),
 * the data 8-byte aligned, and config.json; the vocabulary copied. */
static void write_folder(const char *dir)
{
    Tensor t[MAX_T];
    int n = tensors(t);
    size_t cap = 8192, at = 1, total = 0;
    char *h = malloc(cap);
    assert_non_null(h);
    h[0] = '{';
    for (int k = 0; k < n; k++) {
        size_t bytes = 4 * (size_t)t[k].rows * (size_t)(t[k].cols ? t[k].cols : 1);
        at += (size_t)snprintf(h + at, cap - at, "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%d",
                               k ? "," : "", t[k].name, t[k].rows);
        if (t[k].cols)
            at += (size_t)snprintf(h + at, cap - at, ",%d", t[k].cols);
        at += (size_t)snprintf(h + at, cap - at, "],\"data_offsets\":[%zu,%zu]}", total,
                               total + bytes);
        total += bytes;
    }
    h[at++] = '}';
    while (at % 8)
        h[at++] = ' ';
    unsigned char *img = malloc(8 + at + total);
    assert_non_null(img);
    for (int k = 0; k < 8; k++)
        img[k] = (unsigned char)((uint64_t)at >> (8 * k));
    memcpy(img + 8, h, at);
    float *x = (float *)(img + 8 + at);
    Rng r;
    rng_seed(&r, 11);
    for (int k = 0; k < n; k++) {
        size_t count = (size_t)t[k].rows * (size_t)(t[k].cols ? t[k].cols : 1);
        bool gain = strstr(t[k].name, "ln_") && strstr(t[k].name, ".weight");
        for (size_t i = 0; i < count; i++)
            *x++ = gain ? 1.0f + rng_symmetric(&r, 0.1f) : rng_symmetric(&r, 0.5f);
    }
    char path[160];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    assert_int_equal(file_write_atomic(path, img, 8 + at + total, false), AV_OK);
    free(img), free(h);
    char config[512];
    int len = snprintf(config, sizeof config,
                       "{\"model_type\": \"gpt2\", \"activation_function\": \"gelu_new\", "
                       "\"n_embd\": %d, \"n_head\": %d, \"n_layer\": %d, \"n_positions\": %d, "
                       "\"n_ctx\": %d, \"n_inner\": null, \"layer_norm_epsilon\": 1e-05, "
                       "\"vocab_size\": %d}",
                       D, H, L, T, T, V);
    snprintf(path, sizeof path, "%s/config.json", dir);
    assert_int_equal(file_write_atomic(path, config, (size_t)len, false), AV_OK);
    copy_file(TEST_DATA_DIR "/bpe/vocab.json", dir, "vocab.json");
    copy_file(TEST_DATA_DIR "/bpe/merges.txt", dir, "merges.txt");
}

/* The folder opened as a kind, and again as plain weights and vocabulary. */
typedef struct {
    Tmp *tmp;
    Kind k;
    HfModel hf;
    Bpe bpe;
    ModelConfig c;
} Fixture;

static int setup(void **state)
{
    if (tmp_setup(state))
        return -1;
    Fixture *f = calloc(1, sizeof *f);
    f->tmp = *state;
    write_folder(f->tmp->dir);
    char why[256] = "";
    if (kind_gpt2_load(&f->k, f->tmp->dir, NULL, NULL, why, sizeof why) != AV_OK ||
        hfmodel_open(f->tmp->dir, &f->hf, NULL, NULL, why, sizeof why) != AV_OK ||
        hfvocab_read_dir(f->tmp->dir, &f->bpe, why, sizeof why) != AV_OK) {
        fprintf(stderr, "setup: %s\n", why);
        return -1;
    }
    model_config_default(&f->c);
    kind_config(&f->k, &f->c);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    kind_close(&f->k);
    hfmodel_close(&f->hf);
    bpe_free(&f->bpe);
    *state = f->tmp;
    free(f);
    return tmp_teardown(state);
}

/* text's ids into ids (at most cap); returns their count. */
static int encode(const Fixture *f, const char *text, int *ids, int cap)
{
    BpeEncoding e = {0};
    assert_int_equal(bpe_encode(&f->bpe, text, strlen(text), cap, &e), AV_OK);
    for (int i = 0; i < e.n; i++)
        ids[i] = e.piece[i].id;
    int n = e.n;
    bpe_encoding_free(&e);
    return n;
}

static const char *const TEXT = "The cat sat on the mat";

/* After a cached run, the logits at every position are those of a whole
 * forward of the tokens up to it; pos -1 is the last; past it refused. */
static void test_kind_gpt2_logits_every_position(void **state)
{
    Fixture *f = *state;
    ModelResult r = {0};
    assert_int_equal(kind_run(&f->k, &f->c, "The cat", 7, NULL, 0, &r), AV_OK);
    assert_int_equal(kind_run(&f->k, &f->c, TEXT, strlen(TEXT), NULL, 0, &r), AV_OK);
    int ids[T], n = encode(f, TEXT, ids, T);
    assert_int_equal(n, 6);
    assert_int_equal(r.shape.n_q, n);
    float got[V], want[V];
    for (int pos = 0; pos < n; pos++) {
        Gpt2State st;
        gpt2_state_init(&st);
        assert_int_equal(gpt2_forward(&f->hf.w, ids, pos + 1, &st), AV_OK);
        assert_int_equal(gpt2_logits(&f->hf.w, &st, pos, want), AV_OK);
        gpt2_state_free(&st);
        int nv = 0;
        assert_int_equal(kind_logits(&f->k, TEXT, strlen(TEXT), pos, got, V, &nv), AV_OK);
        assert_int_equal(nv, V);
        assert_memory_equal(got, want, sizeof want);
    }
    int nv = 0;
    assert_int_equal(kind_logits(&f->k, TEXT, strlen(TEXT), -1, got, V, &nv), AV_OK);
    assert_memory_equal(got, want, sizeof want); /* the last position's */
    assert_int_equal(kind_logits(&f->k, TEXT, strlen(TEXT), n, got, V, &nv), AV_ERR_CONFIG);
    assert_int_equal(kind_logits(&f->k, TEXT, strlen(TEXT), 2, got, 10, &nv), AV_OK);
    assert_int_equal(nv, 10); /* at most the room given */
    model_result_free(&r);
}

static bool listed(const SessionPredict *p, int id)
{
    for (int t = 0; t < p->n; t++)
        if (p->id[t] == id)
            return true;
    return false;
}

/* The session's top 10 at a position: the softmax of that position's
 * logits in double, in decreasing order, each token's display text. */
static void test_session_predict_gpt2(void **state)
{
    Fixture *f = *state;
    AppState s;
    assert_int_equal(app_init(&s, &f->c, TEXT, NULL, false), AV_OK);
    Session ss;
    session_init(&ss, NULL, &f->k, 0);
    int ids[T], n = encode(f, TEXT, ids, T);
    for (int pos = 0; pos < n; pos++) {
        SessionPredict p;
        assert_int_equal(session_predict(&ss, &s, pos, SESSION_PREDICT_MAX, &p), AV_OK);
        assert_int_equal(p.n, 10);
        assert_int_equal(p.V, V);
        float lg[V];
        int nv;
        assert_int_equal(kind_logits(&f->k, TEXT, strlen(TEXT), pos, lg, V, &nv), AV_OK);
        double max = lg[0], z = 0;
        for (int v = 1; v < V; v++)
            max = lg[v] > max ? lg[v] : max;
        for (int v = 0; v < V; v++)
            z += exp(lg[v] - max);
        for (int v = 0; v < V; v++) /* nothing left out is more probable */
            assert_true(listed(&p, v) || lg[v] <= lg[p.id[p.n - 1]]);
        for (int t = 0; t < p.n; t++) {
            double want = exp(lg[p.id[t]] - max) / z;
            assert_float_equal(p.prob[t], (float)want, 1e-6);
            if (t > 0) /* decreasing, ties the smaller id first */
                assert_true(p.prob[t] < p.prob[t - 1] ||
                            (p.prob[t] == p.prob[t - 1] && p.id[t] > p.id[t - 1]));
            size_t len;
            const char *raw = bpe_token(&f->bpe, p.id[t], &len);
            assert_null(strstr(p.text[t], "\u0120")); /* never GPT-2's Ġ */
            if (raw[0] == ' ')
                assert_memory_equal(p.text[t], "\u2423", 3);
        }
    }
    SessionPredict p;
    assert_int_equal(session_predict(&ss, &s, n, 10, &p), AV_ERR_CONFIG);
    assert_int_equal(p.n, 0);
    /* the vocabulary's display: " cat" with its mark, "<|endoftext|>" as it is */
    char text[SESSION_TOKEN_TEXT];
    kind_token_text(&f->k, ids[1], text, sizeof text);
    assert_string_equal(text, "\u2423cat");
    kind_token_text(&f->k, f->bpe.eot, text, sizeof text);
    assert_string_equal(text, "<|endoftext|>");
    session_free(&ss);
    /* attnviz's pipeline predicts nothing: no list, no error */
    session_init(&ss, NULL, NULL, 0);
    assert_int_equal(session_predict(&ss, &s, 0, 10, &p), AV_OK);
    assert_int_equal(p.n, 0);
    session_free(&ss);
    app_free(&s);
}

/* A session that runs the GPT-2 builds no toy weights of its shape (they
 * were 12 d_model^2 floats a layer, as large as a GPT-2's layers, never
 * read); the pipeline's session still builds its own. */
static void test_session_gpt2_no_toy_weights(void **state)
{
    Fixture *f = *state;
    AppState s;
    assert_int_equal(app_init(&s, &f->c, TEXT, NULL, false), AV_OK);
    assert_int_equal(s.cfg.layers, L);
    assert_int_equal(s.cfg.d_model, D);
    LessonState ls;
    lesson_state_init(&ls);
    Session ss;
    session_init(&ss, NULL, &f->k, 0);
    assert_int_equal(session_update(&ss, &s, &ls, APP_RUN | APP_WEIGHTS), AV_OK);
    assert_int_equal(ss.run_err, AV_OK);
    assert_int_equal(ss.res.shape.n_q, 6);
    assert_ptr_equal(ss.kind, &f->k);
    assert_null(ss.toy.arena);
    session_free(&ss);
    session_init(&ss, NULL, NULL, 0);
    assert_int_equal(session_update(&ss, &s, &ls, APP_RUN | APP_WEIGHTS), AV_OK);
    assert_non_null(ss.toy.arena);
    assert_int_equal(ss.toy.L, L);
    session_free(&ss);
    lesson_state_free(&ls);
    app_free(&s);
}

/* A typed token: the forward computes its row alone, the others cached. */
static void test_kind_gpt2_cost_of_a_key(void **state)
{
    Fixture *f = *state;
    const Gpt2Config *cfg = kind_gpt2_config(&f->k);
    assert_non_null(cfg);
    ModelResult r = {0};
    KindCost kc;
    assert_int_equal(kind_run(&f->k, &f->c, "The cat sat", 11, NULL, 0, &r), AV_OK);
    assert_true(kind_cost(&f->k, &kc));
    assert_int_equal(kc.computed, 3);
    assert_int_equal(kc.cached, 0);
    assert_true(kc.flops == gpt2_flops(cfg, 0, 3));
    assert_int_equal(kind_run(&f->k, &f->c, "The cat sat on", 14, NULL, 0, &r), AV_OK);
    assert_true(kind_cost(&f->k, &kc));
    assert_int_equal(kc.computed, 1);
    assert_int_equal(kc.cached, 3);
    assert_true(kc.flops == gpt2_flops(cfg, 3, 4));
    assert_true(kc.whole == gpt2_flops(cfg, 0, 4));
    assert_true(kc.flops > 0 && kc.flops < kc.whole / 2);
    /* the KV cache: a key and a value of d_model floats a layer per token */
    const double per = 2.0 * cfg->n_layer * cfg->d_model * 4;
    assert_float_equal(kc.kv_token, per, 0);
    assert_float_equal(kc.kv_now, 4 * per, 0);
    assert_float_equal(kc.kv_context, cfg->n_ctx * per, 0);
    /* an edit in the middle recomputes from the first changed token */
    assert_int_equal(kind_run(&f->k, &f->c, "The mat sat on", 14, NULL, 0, &r), AV_OK);
    assert_true(kind_cost(&f->k, &kc));
    assert_int_equal(kc.computed, 3);
    assert_int_equal(kc.cached, 1);
    model_result_free(&r);
}

/* The head scores' probes run on a state of their own: the text's KV cache
 * survives them, and a token typed after them computes its row alone. */
static void test_kind_gpt2_probe_keeps_the_cache(void **state)
{
    Fixture *f = *state;
    ModelResult r = {0}, probe = {0};
    KindCost kc;
    assert_int_equal(kind_run(&f->k, &f->c, "The cat sat", 11, NULL, 0, &r), AV_OK);
    const int ids[] = {40, 41, 42, 43, 40, 41, 42, 43};
    assert_int_equal(kind_run_ids(&f->k, &f->c, ids, 8, &probe), AV_OK);
    assert_int_equal(probe.shape.n_q, 8);
    assert_int_equal(kind_run(&f->k, &f->c, "The cat sat on", 14, NULL, 0, &r), AV_OK);
    assert_true(kind_cost(&f->k, &kc));
    assert_int_equal(kc.computed, 1);
    assert_int_equal(kc.cached, 3);
    /* and the text's result is the text's, not the probe's */
    assert_int_equal(r.shape.n_q, 4);
    model_result_free(&probe);
    model_result_free(&r);
}

/* The status line's part: sizes and learned positions, then the what-if of
 * s and t, which the kind runs (attention recomputed) and labels. */
static void test_kind_gpt2_status_and_whatif(void **state)
{
    Fixture *f = *state;
    char line[160];
    assert_true(kind_status(&f->k, &f->c, true, false, line, sizeof line));
    assert_string_equal(line, "GPT-2 | 2 layers x 2 heads | d_model 8 | d_k 4 | learned "
                              "positions | causal");
    assert_true(kind_status(&f->k, &f->c, false, false, line, sizeof line));
    assert_string_equal(line, "GPT-2  2 layers x 2 heads  d_model 8  d_k 4  causal");
    /* a lesson asking for d_k: its figure hidden until the reveal, as
     * attnviz's own status line hides it */
    assert_true(kind_status(&f->k, &f->c, false, true, line, sizeof line));
    assert_string_equal(line, "GPT-2  2 layers x 2 heads  d_model 8  d_k ?  causal");
    assert_true(kind_status(&f->k, &f->c, true, true, line, sizeof line));
    assert_string_equal(line, "GPT-2 | 2 layers x 2 heads | d_model 8 | d_k ? | learned "
                              "positions | causal");
    assert_null(kind_refuses(&f->k, KIND_ASK_WHATIF));
    assert_string_equal(kind_refuses(&f->k, KIND_ASK_MASK),
                        "GPT-2 was trained causal: the mask stays on");
    assert_non_null(kind_refuses(&f->k, KIND_ASK_SETTINGS));
    /* the norms view multiplies V by each layer's own c_proj weight */
    assert_null(kind_refuses(&f->k, KIND_ASK_NORMS));
    assert_non_null(kind_out_proj(&f->k, 0));
    assert_non_null(kind_out_proj(&f->k, 1));
    assert_ptr_not_equal(kind_out_proj(&f->k, 0), kind_out_proj(&f->k, 1));
    ModelConfig c = f->c;
    c.scale = false, c.temperature = 0.5f;
    assert_true(kind_status(&f->k, &c, true, false, line, sizeof line));
    assert_string_equal(line, "GPT-2 what-if: scaling off, temp 0.5 | 2 layers x 2 heads | "
                              "d_model 8 | d_k 4 | learned positions | causal");
    /* narrow: d_k and the mask stay, "learned positions" goes; the
     * temperature is named only where it differs */
    c.temperature = 1.0f;
    assert_true(kind_status(&f->k, &c, false, false, line, sizeof line));
    assert_string_equal(line,
                        "GPT-2 what-if: scaling off  2 layers x 2 heads  d_model 8  d_k 4  causal");
    c.scale = true, c.temperature = 2.0f;
    assert_true(kind_status(&f->k, &c, false, false, line, sizeof line));
    assert_string_equal(line,
                        "GPT-2 what-if: temp 2  2 layers x 2 heads  d_model 8  d_k 4  causal");
    c.scale = false, c.temperature = 0.5f;
    ModelResult a = {0}, b = {0};
    assert_int_equal(kind_run(&f->k, &f->c, TEXT, strlen(TEXT), NULL, 0, &a), AV_OK);
    assert_int_equal(kind_run(&f->k, &c, TEXT, strlen(TEXT), NULL, 0, &b), AV_OK);
    assert_int_equal(b.shape.n_q, 6);
    assert_memory_not_equal(model_head_P(&a, 1, 0), model_head_P(&b, 1, 0), 6 * 6 * 4);
    model_result_free(&a), model_result_free(&b);
    /* the pipeline has no status of its own, no cost, no logits */
    ModelWeights w = {0};
    Kind pk;
    kind_pipeline_open(&pk, &w);
    assert_false(kind_status(&pk, &f->c, true, false, line, sizeof line));
    assert_string_equal(line, "");
    assert_false(kind_cost(&pk, &(KindCost){0}));
    assert_false(kind_has_logits(&pk));
    kind_token_text(&pk, 7, line, sizeof line);
    assert_string_equal(line, "#7");
    kind_close(&pk);
}

/* The pipeline of a GPT-2 head says Q, K and V have c_attn's bias, as the
 * numbers do: Q_h is LN_1(x) W_q + b_q, not without b_q. */
static void test_kind_gpt2_pipeline_biases(void **state)
{
    Fixture *f = *state;
    ModelResult r = {0};
    assert_int_equal(kind_run(&f->k, &f->c, TEXT, strlen(TEXT), NULL, 0, &r), AV_OK);
    assert_true(r.qkv_bias);
    PipelineData d;
    assert_int_equal(pipeline_compute(&r, 1, 1, &d), AV_OK);
    assert_true(d.bias);
    char title[96];
    pipeline_stage_title(&d, PIPE_Q, title, sizeof title);
    assert_string_equal(title, "1 Q_h = X W_q + b_q: queries");
    pipeline_stage_title(&d, PIPE_K, title, sizeof title);
    assert_string_equal(title, "2 K_h = X W_k + b_k: keys");
    pipeline_stage_title(&d, PIPE_V, title, sizeof title);
    assert_string_equal(title, "3 V_h = X W_v + b_v: values");
    pipeline_free(&d);
    /* the numbers hold the bias: Q_h = LN_1(x) W_q + b_q of layer 1, head 2 */
    const Gpt2Layer *ly = &f->hf.w.layer[1];
    const int d_k = D / H;
    for (int i = 0; i < r.shape.n_q; i++) {
        float a[D];
        double mean = 0, var = 0;
        const float *x = r.layer[0].x_out + (size_t)i * D;
        for (int c = 0; c < D; c++)
            mean += x[c] / D;
        for (int c = 0; c < D; c++)
            var += (x[c] - mean) * (x[c] - mean) / D;
        for (int c = 0; c < D; c++)
            a[c] = (float)((x[c] - mean) / sqrt(var + 1e-5) * ly->ln1_g[c] + ly->ln1_b[c]);
        for (int e = 0; e < d_k; e++) {
            int col = d_k + e; /* head 2's first column of Q */
            double q = ly->attn_b[col];
            for (int c = 0; c < D; c++)
                q += (double)a[c] * ly->attn_w[gpt2_weight_index(f->hf.w.panels, D, 3 * D, c, col)];
            assert_float_equal(r.layer[1].ab.Q[(size_t)i * D + col], q, 1e-4);
        }
    }
    model_result_free(&r);
}

/* r exported as format (head 1 of layer 2, 100 columns) into a string. */
static char *export_string(const ModelResult *r, const ModelConfig *c, ExportFormat format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    ExportOptions o = {.format = format, .head = 0, .layer = 1, .width = 100};
    assert_int_equal(export_write(f, r, c, &o), AV_OK);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* Every export's title says the model is a GPT-2 with learned positions, as
 * the status line does: never attnviz's seed and "PE off", nor a "trained
 * model" in the SVG; attnviz's own keep their seed and PE. */
static void test_kind_gpt2_exports_say_gpt2(void **state)
{
    Fixture *f = *state;
    ModelResult r = {0};
    assert_int_equal(kind_run(&f->k, &f->c, TEXT, strlen(TEXT), NULL, 0, &r), AV_OK);
    assert_string_equal(f->c.about, "GPT-2, 2 layers x 2 heads, learned PE");
    const char *settings = "(GPT-2, 2 layers x 2 heads, learned PE, d_model 8, d_k 4, mask "
                           "causal, scaled by 1/sqrt(d_k))";
    static const ExportFormat formats[] = {EXPORT_TEXT, EXPORT_MD,  EXPORT_PIPELINE,
                                           EXPORT_JSON, EXPORT_SVG, EXPORT_HTML};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        char *out = export_string(&r, &f->c, formats[i]);
        assert_non_null(strstr(out, "GPT-2, 2 layers x 2 heads, learned PE"));
        assert_null(strstr(out, "seed"));
        assert_null(strstr(out, "PE off"));
        assert_null(strstr(out, "trained model"));
        assert_null(strstr(out, "\"pe\""));
        if (formats[i] == EXPORT_TEXT) /* the whole line, not cut short */
            assert_non_null(strstr(out, "\n(GPT-2, 2 layers x 2 heads, learned PE, d_model 8, "
                                        "d_k 4, mask causal, scaled by 1/sqrt(d_k))\n"));
        if (formats[i] == EXPORT_MD)
            assert_non_null(strstr(out, settings));
        if (formats[i] == EXPORT_PIPELINE)
            assert_non_null(strstr(out, "\n(GPT-2, 2 layers x 2 heads, learned PE, d_model 8, "
                                        "d_k 4, mask causal, scaled, temperature 1)\n"));
        if (formats[i] == EXPORT_JSON)
            assert_non_null(strstr(out, "\"config\": {\"model\": \"GPT-2, 2 layers x 2 heads, "
                                        "learned PE\", \"heads\": 2, \"d_model\": 8, "
                                        "\"d_k\": 4, \"causal\": true, \"scale\": true, "
                                        "\"layers\": 2, \"layer\": 2}"));
        free(out);
    }
    /* attnviz's own model says its seed and PE */
    ModelConfig c;
    model_config_default(&c);
    assert_null(c.about);
    ModelWeights w = {0};
    ModelResult own = {0};
    assert_int_equal(model_weights_toy(&c, &w), AV_OK);
    assert_int_equal(model_run(&c, &w, "a b c", 5, NULL, 0, &own), AV_OK);
    ExportOptions o = {.format = EXPORT_MD, .head = 0};
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(export_write(fp, &own, &c, &o), AV_OK);
    fclose(fp);
    assert_non_null(strstr(buf, "(d_model 32, d_k 8, seed 42, mask off, PE on, scaled by "
                                "1/sqrt(d_k))"));
    free(buf);
    model_result_free(&own);
    model_weights_free(&w);
    model_result_free(&r);
}

/* Poll until the thread's forward is done; returns the polls that said
 * busy (bounded: the tiny model takes microseconds). */
static int wait_done(Kind *k)
{
    bool changed = false;
    char msg[64];
    for (int polls = 0; polls < 100000; polls++) {
        int err = kind_poll(k, &changed, msg, sizeof msg);
        if (err != KIND_BUSY) {
            assert_int_equal(err, AV_OK);
            assert_true(changed);
            return polls;
        }
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    fail_msg("the forward never ended");
    return -1;
}

/* Off the key path: a run that is not cached starts a thread and leaves
 * the result as it was; a newer text replaces the waiting one; when poll
 * says so, the newest runs from the cache with the bits of a live run. */
static void test_kind_gpt2_background(void **state)
{
    Fixture *f = *state;
    ModelResult r = {0}, live = {0};
    const char *a = "The cat", *b = "The cat sat", *c = "The cat sat on the mat";
    assert_int_equal(kind_run(&f->k, &f->c, a, strlen(a), NULL, 0, &r), AV_OK);
    assert_int_equal(r.shape.n_q, 2);
    f->k.background = true;
    assert_int_equal(kind_run(&f->k, &f->c, b, strlen(b), NULL, 0, &r), KIND_BUSY);
    assert_int_equal(r.shape.n_q, 2); /* the last result stands */
    float lg[V];
    int nv;
    assert_int_equal(kind_logits(&f->k, b, strlen(b), -1, lg, V, &nv), KIND_BUSY);
    assert_non_null(kind_refuses(&f->k, KIND_ASK_GENERATE)); /* g waits */
    /* typed on while it runs: the newest waits, b's result is never filled */
    assert_int_equal(kind_run(&f->k, &f->c, "The cat sa", 10, NULL, 0, &r), KIND_BUSY);
    assert_int_equal(kind_run(&f->k, &f->c, c, strlen(c), NULL, 0, &r), KIND_BUSY);
    wait_done(&f->k);
    assert_null(kind_refuses(&f->k, KIND_ASK_GENERATE));
    assert_int_equal(kind_run(&f->k, &f->c, c, strlen(c), NULL, 0, &r), AV_OK);
    assert_int_equal(r.shape.n_q, 6);
    KindCost kc;
    assert_true(kind_cost(&f->k, &kc)); /* the thread's forward of c after b */
    assert_int_equal(kc.computed, 3);
    assert_int_equal(kc.cached, 3);
    assert_true(kc.ms > 0);
    /* the lens too is the thread's: busy first, then the copy of its lens */
    Lens ls, ls2;
    lens_init(&ls), lens_init(&ls2);
    assert_int_equal(kind_lens(&f->k, c, strlen(c), &ls), KIND_BUSY);
    assert_int_equal(kind_lens(&f->k, c, strlen(c), &ls), KIND_BUSY);
    wait_done(&f->k);
    assert_int_equal(kind_lens(&f->k, c, strlen(c), &ls), AV_OK);
    assert_int_equal(ls.n, 6);
    assert_true(kind_cost(&f->k, &kc)); /* a lens over a cached forward: the cost stands */
    assert_int_equal(kc.computed, 3);
    f->k.background = false;
    Kind k2;
    char why[256];
    /* the command line's way in: the table of folder kinds claims it as GPT-2 */
    assert_int_equal(kind_open_folder(&k2, f->tmp->dir, NULL, NULL, why, sizeof why), AV_OK);
    assert_string_equal(k2.cls->name, "gpt2");
    assert_true(k2.cls->temperature_samples);
    assert_null(kind_start_text(&k2)); /* it reads any text: the caller gives one */
    assert_int_equal(kind_run(&k2, &f->c, c, strlen(c), NULL, 0, &live), AV_OK);
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++)
            assert_memory_equal(model_head_P(&r, l, h), model_head_P(&live, l, h), 6 * 6 * 4);
    assert_memory_equal(r.out, live.out, 6 * D * sizeof(float));
    assert_int_equal(kind_lens(&k2, c, strlen(c), &ls2), AV_OK); /* live: the same lens */
    assert_int_equal(ls2.n, 6);
    assert_memory_equal(ls.ids, ls2.ids, sizeof *ls.ids * 6 * (L + 1) * LENS_K);
    assert_memory_equal(ls.probs, ls2.probs, sizeof *ls.probs * 6 * (L + 1) * LENS_K);
    assert_memory_equal(ls.rank, ls2.rank, sizeof *ls.rank * 6 * (L + 1));
    assert_memory_equal(ls.next, ls2.next, sizeof *ls.next * 6);
    lens_free(&ls), lens_free(&ls2);
    kind_close(&k2);
    /* a tiny model is live; closing while a thread runs waits for it */
    assert_false(f->k.cls->slow);
    f->k.background = true;
    assert_int_equal(kind_run(&f->k, &f->c, a, strlen(a), NULL, 0, &r), KIND_BUSY);
    model_result_free(&r), model_result_free(&live);
}

/* The interface's lens on a thread (lens_background) while the forward
 * stays on the key path: the predictions and g do not wait for it; they
 * stop it, and the lens asked again goes on to the bits of a live one. */
static void test_kind_gpt2_lens_background(void **state)
{
    Fixture *f = *state;
    const char *c = "The cat sat on the mat";
    ModelResult r = {0};
    assert_int_equal(kind_run(&f->k, &f->c, c, strlen(c), NULL, 0, &r), AV_OK);
    f->k.lens_background = true;
    Lens ls, live;
    lens_init(&ls), lens_init(&live);
    assert_int_equal(kind_lens(&f->k, c, strlen(c), &ls), KIND_BUSY); /* the thread's */
    assert_null(kind_refuses(&f->k, KIND_ASK_GENERATE));              /* g need not wait */
    float lg[V], want[V];
    int nv;
    assert_int_equal(kind_logits(&f->k, c, strlen(c), -1, lg, V, &nv), AV_OK); /* stops it */
    assert_int_equal(nv, V);
    /* asked again: it goes on from the positions it finished (or, where it
     * had finished before it was stopped, is the kind's copy at once) */
    if (kind_lens(&f->k, c, strlen(c), &ls) == KIND_BUSY) {
        wait_done(&f->k);
        assert_int_equal(kind_lens(&f->k, c, strlen(c), &ls), AV_OK);
    }
    f->k.lens_background = false;
    assert_int_equal(kind_lens(&f->k, c, strlen(c), &live), AV_OK);
    assert_int_equal(ls.n, 6);
    assert_memory_equal(ls.ids, live.ids, sizeof *ls.ids * 6 * (L + 1) * LENS_K);
    assert_memory_equal(ls.probs, live.probs, sizeof *ls.probs * 6 * (L + 1) * LENS_K);
    assert_int_equal(kind_logits(&f->k, c, strlen(c), -1, want, V, &nv), AV_OK);
    assert_memory_equal(lg, want, sizeof lg); /* the logits taken meanwhile were the text's */
    lens_free(&ls), lens_free(&live);
    model_result_free(&r);
}

/* g on a GPT-2 grows its KV cache by a row a token (2 x L x D x 4 bytes):
 * the status line (written once the run is made) says the rows and bytes
 * after the new row and a token's; the cost after the run has the text's
 * rows and the context's; the logit lens of the longer text has the new
 * token (u after g). */
static void test_generate_grows_the_kv_cache(void **state)
{
    Fixture *f = *state;
    App a;
    app_open(&a, NULL, &f->k, 0);
    assert_int_equal(app_init(&a.app, &f->c, TEXT, NULL, false), AV_OK);
    kind_config(&f->k, &a.app.cfg);
    app_begin(&a);
    assert_int_equal(app_settle(&a), 0);
    const int n = a.app.n_q, per = 2 * L * D * 4;
    assert_int_equal(n, 6);
    char want[128];
    for (int g = 1; g <= 2; g++) {
        AppInput in = {.action = ACT_GENERATE};
        assert_int_equal(app_input(&a, &in) & (APP_DO_NOMEM | APP_DO_FAIL), 0);
        const int total = (n + g) * per; /* 896 B, then 1.0 KiB */
        if (total < 1024)
            snprintf(want, sizeof want, "; KV cache %d rows, %d B (+%d B)", n + g, total, per);
        else
            snprintf(want, sizeof want, "; KV cache %d rows, %.1f KiB (+%d B)", n + g,
                     total / 1024.0, per);
        assert_int_equal(app_settle(&a), 0); /* the line is written after the run */
        if (!strstr(a.app.msg, want))
            fail_msg("status \"%s\", want \"%s\"", a.app.msg, want);
        assert_int_equal(a.app.n_q, n + g);
        KindCost kc;
        assert_true(kind_cost(&f->k, &kc));
        assert_float_equal(kc.kv_now, (n + g) * per, 0);
        assert_float_equal(kc.kv_context, T * per, 0);
        assert_int_equal(kc.computed, 1); /* the new row alone: the rest was cached */
    }
    AppInput u = {.action = ACT_LENS};
    app_input(&a, &u);
    assert_int_equal(a.app.view, VIEW_ID_LENS);
    app_poll(&a);
    assert_int_equal(a.lens.err, AV_OK);
    assert_int_equal(a.lens.ls.n, n + 2);
    assert_int_equal(a.lens.ls.rows, L + 1);
    app_close(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kind_gpt2_logits_every_position, setup, teardown),
        cmocka_unit_test_setup_teardown(test_session_predict_gpt2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_generate_grows_the_kv_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_session_gpt2_no_toy_weights, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kind_gpt2_cost_of_a_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kind_gpt2_probe_keeps_the_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kind_gpt2_status_and_whatif, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kind_gpt2_background, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kind_gpt2_lens_background, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kind_gpt2_pipeline_biases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kind_gpt2_exports_say_gpt2, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
