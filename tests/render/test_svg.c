/* test_svg.c - the SVG and HTML writers: XML escaping, the half floats and
 * base64 of the page's data, every cell's id, fill and hatching against the
 * weights, pooling of a long text, and the page's data bytes against the
 * weights quantised by hand. Chromium's view of them: tests/e2e/export_browser.sh.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/model.h"
#include "render/export.h"
#include "render/heatmap.h"
#include "render/html.h"
#include "render/svg.h"

/* What f wrote, as a NUL-terminated string (the caller frees). */
typedef struct {
    char *buf;
    size_t len;
    FILE *f;
} Mem;

static void mem_open(Mem *m)
{
    m->f = open_memstream(&m->buf, &m->len);
    assert_non_null(m->f);
}

static char *mem_close(Mem *m)
{
    assert_int_equal(fclose(m->f), 0);
    return m->buf;
}

static char *escaped(const char *s, int max_chars)
{
    Mem m;
    mem_open(&m);
    svg_escape(m.f, s, max_chars);
    return mem_close(&m);
}

static void test_escape(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
        int max;
    } cases[] = {
        {"a<b", "a&lt;b", 0},
        {"&amp;", "&amp;amp;", 0},
        {"\"q\" it's >", "&quot;q&quot; it&#39;s &gt;", 0},
        {"x\001y\177", "x\xe2\x90\x81y\xe2\x90\xa1", 0}, /* control pictures U+2401, U+2421 */
        {"bad\xff", "bad\xef\xbf\xbd", 0},               /* not UTF-8: U+FFFD */
        {"caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80", 0},
        {"abcdefghijklmnop", "abcdefghijkl\xe2\x80\xa6", 12},
        {"abc", "abc", 3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *got = escaped(cases[k].in, cases[k].max);
        assert_string_equal(got, cases[k].out);
        free(got);
    }
}

/* An export names what it read by its last component, never the path. */
static void test_source_name(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"/home/ada/models/gpt2", "gpt2"},
        {"/home/ada/models/gpt2///", "gpt2"},
        {"gpt2", "gpt2"},
        {"openai-community/gpt2", "gpt2"},
        {"../runs/attn.npy", "attn.npy"},
        {"/root/.cache/huggingface/hub/models--openai-community--gpt2/snapshots/607a30d7/",
         "openai-community/gpt2"},
        {"/c/models--gpt2/snapshots/abc", "gpt2"},
        {"/c/not-a-cache/snapshots/abc", "abc"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char out[64];
        svg_source_name(cases[k][0], out, sizeof out);
        assert_string_equal(out, cases[k][1]);
    }
    char small[5];
    svg_source_name("/a/models--org--name/snapshots/h", small, sizeof small);
    assert_string_equal(small, "org/");
}

static void test_half(void **state)
{
    (void)state;
    assert_int_equal(html_half(0.0f), 0x0000);
    assert_int_equal(html_half(-0.0f), 0x8000);
    assert_int_equal(html_half(1.0f), 0x3c00);
    assert_int_equal(html_half(-2.0f), 0xc000);
    assert_int_equal(html_half(0.1f), 0x2e66);
    assert_int_equal(html_half(65504.0f), 0x7bff);
    assert_int_equal(html_half(1e6f), 0x7c00);
    assert_int_equal(html_half(-INFINITY), 0xfc00);
    assert_int_equal(html_half(NAN), 0x7e00);
    assert_int_equal(html_half(0x1p-24f), 0x0001);        /* the smallest subnormal */
    assert_int_equal(html_half(0x1p-14f), 0x0400);        /* the smallest normal */
    assert_int_equal(html_half(1.0f + 0x1p-11f), 0x3c00); /* a tie: to even */
    assert_int_equal(html_half(1.0f + 0x3p-11f), 0x3c02);
    assert_int_equal(html_half(2047.0f / 1024.0f + 0x1p-11f), 0x4000); /* rounds up a binade */
}

static char *b64(const char *s)
{
    Mem m;
    mem_open(&m);
    html_base64(m.f, (const unsigned char *)s, strlen(s));
    return mem_close(&m);
}

static void test_base64(void **state)
{
    (void)state;
    static const char *const cases[][2] = {{"", ""},
                                           {"f", "Zg=="},
                                           {"fo", "Zm8="},
                                           {"foo", "Zm9v"},
                                           {"foob", "Zm9vYg=="},
                                           {"foobar", "Zm9vYmFy"},
                                           {"\xff\xfe", "//4="}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *got = b64(cases[k][0]);
        assert_string_equal(got, cases[k][1]);
        free(got);
    }
}

typedef struct {
    ModelConfig c;
    ModelWeights w;
    ModelResult r;
} Fixture;

static void fixture_run(Fixture *f, const char *text, bool causal)
{
    memset(f, 0, sizeof *f);
    model_config_default(&f->c);
    f->c.causal = causal, f->c.keep_scores = true;
    assert_int_equal(model_weights_toy(&f->c, &f->w), AV_OK);
    assert_int_equal(model_run(&f->c, &f->w, text, strlen(text), NULL, 0, &f->r), AV_OK);
}

static void fixture_free(Fixture *f)
{
    model_result_free(&f->r);
    model_weights_free(&f->w);
}

/* The fill of cell p<k>-<i>-<j>, or "" when there is none. */
static const char *cell_fill(const char *doc, int k, int i, int j, char *buf, size_t size)
{
    char id[48];
    snprintf(id, sizeof id, "id=\"p%d-%d-%d\"", k, i, j);
    const char *at = strstr(doc, id), *fill = at ? strstr(at, "fill=\"") : NULL;
    buf[0] = 0;
    if (fill) {
        const char *end = strchr(fill + 6, '"');
        snprintf(buf, size, "%.*s", (int)(end - fill - 6), fill + 6);
    }
    return buf;
}

static int count(const char *doc, const char *s)
{
    int n = 0;
    for (const char *p = strstr(doc, s); p; p = strstr(p + 1, s))
        n++;
    return n;
}

static void test_svg_cells(void **state)
{
    (void)state;
    Fixture f;
    fixture_run(&f, "the cat sat on the <mat> & ran", true);
    const int n = f.r.shape.n_q;
    SvgPanel p = {.r = &f.r, .layer = 0, .head = 1};
    SvgOptions o = {0};
    Mem m;
    mem_open(&m);
    assert_int_equal(svg_write(m.f, &f.c, &p, 1, &o), AV_OK);
    char *doc = mem_close(&m);
    assert_true(strncmp(doc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=", 50) == 0);
    assert_non_null(strstr(doc, "version=\"1.1\""));
    assert_non_null(strstr(doc, "viewBox=\"0 0 "));
    assert_null(strstr(doc, "href"));
    assert_non_null(strstr(doc, "Head 2 of 4: random, layer 1 of 1"));
    assert_non_null(strstr(doc, "mask causal"));
    assert_non_null(strstr(doc, "&lt;")); /* the tokens < and > escaped */
    assert_null(strstr(doc, "<mat>"));
    assert_int_equal(count(doc, "<rect id=\"p0-"), n * n);
    const float *P = model_head_P(&f.r, 0, 1);
    char buf[32], want[32];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            cell_fill(doc, 0, i, j, buf, sizeof buf);
            if (j > i) {
                assert_string_equal(buf, "url(#hatch)");
                continue;
            }
            snprintf(want, sizeof want, "#%06x",
                     (unsigned)svg_ramp_rgb(heatmap_level(P[i * n + j]), false));
            assert_string_equal(buf, want);
        }
    free(doc);
    fixture_free(&f);
}

/* Issue 35: an export of a combining view (the interface's A: one head
 * that stands for the model's 4) is titled by its label, never "Head 1 of
 * 1", and gives d_k of one of the 4 heads (32 / 4 = 8), not d_model. */
static void test_exports_of_heads_combined(void **state)
{
    (void)state;
    Fixture f;
    fixture_run(&f, "the cat sat on the mat", false);
    static const char *const label[4] = {"4 heads combined: sum"};
    ModelConfig c = f.c;
    c.H = 1, c.head_labels = label, c.heads_combined = 4;
    SvgPanel p = {.r = &f.r, .layer = 0, .head = 0};
    SvgOptions o = {0};
    Mem m;
    mem_open(&m);
    assert_int_equal(svg_write(m.f, &c, &p, 1, &o), AV_OK);
    char *doc = mem_close(&m);
    assert_non_null(strstr(doc, "font-weight=\"bold\">4 heads combined: sum, layer 1 of 1<"));
    assert_non_null(strstr(doc, "d_model 32, 4 heads combined, d_k 8;"));
    assert_null(strstr(doc, "Head 1 of 1"));
    assert_null(strstr(doc, "All 1 heads"));
    free(doc);
    ExportOptions eo = {.format = EXPORT_TEXT, .head = 0, .layer = 0, .width = 100};
    mem_open(&m);
    assert_int_equal(export_write(m.f, &f.r, &c, &eo), AV_OK);
    doc = mem_close(&m);
    assert_non_null(strstr(doc, "4 heads combined: sum  (d_model 32, d_k 8, seed 42"));
    assert_null(strstr(doc, "Head 1 of 1"));
    free(doc);
    c.heads_combined = 0; /* the plain heads: as before */
    mem_open(&m);
    assert_int_equal(export_write(m.f, &f.r, &c, &eo), AV_OK);
    doc = mem_close(&m);
    assert_non_null(strstr(doc, "Head 1 of 1: 4 heads combined: sum"));
    assert_non_null(strstr(doc, "(d_model 32, d_k 32,"));
    free(doc);
    fixture_free(&f);
}

/* A real model's settings are longer than a one-head picture's line (104
 * characters at 760 pixels): they break after a "; " onto a second line,
 * whole, and the panel moves down by that line. */
static void test_svg_settings_two_lines(void **state)
{
    (void)state;
    Fixture f;
    fixture_run(&f, "the cat sat on the mat", true);
    ModelConfig c = f.c;
    c.preset = PRESET_TRAINED, c.about = "GPT-2, 12 layers x 12 heads, learned PE";
    SvgPanel p = {.r = &f.r, .layer = 0, .head = 1};
    SvgOptions o = {.source = "/models/attnviz-bench-gpt2"};
    Mem m;
    mem_open(&m);
    assert_int_equal(svg_write(m.f, &c, &p, 1, &o), AV_OK);
    char *doc = mem_close(&m);
    assert_non_null(strstr(doc, "<text x=\"16\" y=\"66\" font-size=\"12\">GPT-2, 12 layers x 12 "
                                "heads, learned PE, from attnviz-bench-gpt2; d_model 32, 4 heads, "
                                "d_k 8;</text>\n"));
    assert_non_null(strstr(doc, "<text x=\"16\" y=\"82\" font-size=\"12\">mask causal; scaled by "
                                "1/\xe2\x88\x9a"
                                "d_k; temperature 1</text>\n"));
    assert_non_null(strstr(doc, "<text x=\"16\" y=\"108\" font-size=\"13\""));
    free(doc);
    c.about = "GPT-2"; /* short enough: one line, the panel where it was */
    mem_open(&m);
    assert_int_equal(svg_write(m.f, &c, &p, 1, &o), AV_OK);
    doc = mem_close(&m);
    assert_non_null(strstr(doc, "d_k 8; mask causal; scaled by 1/\xe2\x88\x9a"
                                "d_k; temperature 1</text>"));
    assert_null(strstr(doc, "y=\"82\" font-size=\"12\""));
    assert_non_null(strstr(doc, "<text x=\"16\" y=\"92\" font-size=\"13\""));
    free(doc);
    fixture_free(&f);
}

static void test_svg_multiples_mono(void **state)
{
    (void)state;
    Fixture f;
    fixture_run(&f, "one two three", false);
    SvgPanel p[4];
    for (int h = 0; h < 4; h++)
        p[h] = (SvgPanel){.r = &f.r, .layer = 0, .head = h};
    SvgOptions o = {.mono = true};
    Mem m;
    mem_open(&m);
    assert_int_equal(svg_write(m.f, &f.c, p, 4, &o), AV_OK);
    char *doc = mem_close(&m);
    assert_non_null(strstr(doc, "All 4 heads"));
    assert_non_null(strstr(doc, "mask off"));
    assert_int_equal(count(doc, "<g id=\"panel"), 4);
    assert_int_equal(count(doc, "url(#hatch)\"/>"), 0); /* no mask: no hatched cell */
    char buf[32], want[32];
    const float *P = model_head_P(&f.r, 0, 3);
    cell_fill(doc, 3, 2, 0, buf, sizeof buf);
    snprintf(want, sizeof want, "#%06x", (unsigned)svg_ramp_rgb(heatmap_level(P[6]), true));
    assert_string_equal(buf, want);
    /* grey: equal channels, white for level 0, darker at every level */
    for (int l = 0; l < 16; l++) {
        uint32_t g = svg_ramp_rgb(l, true);
        assert_int_equal(g >> 16, g & 255);
        assert_int_equal(g >> 8 & 255, g & 255);
        if (l)
            assert_true((g & 255) < (svg_ramp_rgb(l - 1, true) & 255));
    }
    assert_int_equal(svg_ramp_rgb(0, true), 0xffffff);
    free(doc);
    fixture_free(&f);
}

static void test_svg_pooled(void **state)
{
    (void)state;
    char text[1200] = "";
    for (int k = 0; k < 100; k++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "w%d ", k + 1);
    Fixture f;
    fixture_run(&f, text, true);
    SvgMatrix m;
    assert_int_equal(svg_matrix(&f.r, 0, 0, &m), AV_OK);
    assert_true(m.pooled);
    assert_int_equal(m.rows, SVG_POOL_CELLS);
    assert_int_equal(m.cols, SVG_POOL_CELLS);
    /* 100 tokens in 80 cells: cell c covers tokens floor(100c/80)+1 .. floor(100(c+1)/80) */
    assert_string_equal(m.row_labels[0], "1");
    assert_string_equal(m.row_labels[1], "2");
    assert_string_equal(m.row_labels[3], "4-5");
    assert_string_equal(m.col_labels[79], "99-100");
    /* cell (3, 3): rows 3-4 (0-based), keys 3-4; causal, so row 3 sees key 3 only */
    const float *P = model_head_P(&f.r, 0, 0);
    float want = P[3 * 100 + 3] > P[4 * 100 + 3] ? P[3 * 100 + 3] : P[4 * 100 + 3];
    want = P[4 * 100 + 4] > want ? P[4 * 100 + 4] : want;
    assert_float_equal(m.P[3 * 80 + 3], want, 0);
    assert_true(svg_matrix_masked(&m, 0, 1)); /* token 1 never sees token 2 */
    assert_false(svg_matrix_masked(&m, 3, 3));
    svg_matrix_free(&m);
    fixture_free(&f);
}

/* One head of f as an SVG document (the caller frees). */
static char *svg_of(Fixture *f, int head)
{
    SvgPanel p = {.r = &f->r, .layer = 0, .head = head};
    SvgOptions o = {0};
    Mem m;
    mem_open(&m);
    assert_int_equal(svg_write(m.f, &f->c, &p, 1, &o), AV_OK);
    return mem_close(&m);
}

/* The legend's hatched swatch says what is hatched: nothing with the mask
 * off, pooled or not (81 tokens used to show "masked (causal mask)" under a
 * "mask off" title); the causal mask's cells when it is on; for a pooled
 * picture, that a hatched cell covers masked pairs only. */
static void test_svg_legend_hatching(void **state)
{
    (void)state;
    char text[600] = "";
    for (int k = 0; k < 81; k++)
        strcat(text, "cat ");
    for (int causal = 0; causal < 2; causal++) {
        Fixture f;
        fixture_run(&f, text, causal);
        char *doc = svg_of(&f, 0);
        assert_non_null(strstr(doc, "81 tokens pooled"));
        assert_non_null(strstr(doc, causal ? "mask causal" : "mask off"));
        int cells = count(doc, "fill=\"url(#hatch)\""); /* hatched cells and the swatch */
        if (causal) {
            assert_true(cells > 80 * 79 / 2); /* the cells above the diagonal, and the swatch */
            assert_non_null(strstr(doc, ">masked (causal mask): every pair the cell covers<"));
        } else {
            assert_int_equal(cells, 0);
            assert_null(strstr(doc, "masked"));
        }
        free(doc);
        fixture_free(&f);
    }
    Fixture f;
    fixture_run(&f, "the cat sat", true);
    char *doc = svg_of(&f, 0);
    assert_non_null(strstr(doc, ">masked (causal mask)<"));
    assert_int_equal(count(doc, "fill=\"url(#hatch)\""), 3 + 1); /* 3 cells, the swatch */
    free(doc);
    fixture_free(&f);
    fixture_run(&f, "the cat sat", false);
    doc = svg_of(&f, 0);
    assert_null(strstr(doc, "masked"));
    free(doc);
    fixture_free(&f);
}

/* The interface's b: one head with the mask off beside it causal. The
 * title names the head (it said "Side by side"), the settings say which
 * panel has which mask (they said "mask off" over a causal panel), and
 * two different heads are still "Side by side". */
static void test_svg_mask_side_by_side(void **state)
{
    (void)state;
    Fixture off, on;
    fixture_run(&off, "the cat sat on the mat", false);
    fixture_run(&on, "the cat sat on the mat", true);
    SvgPanel p[2] = {{.r = &off.r, .layer = 0, .head = 2, .caption = "mask off"},
                     {.r = &on.r, .layer = 0, .head = 2, .caption = "mask causal"}};
    SvgOptions o = {0};
    Mem m;
    mem_open(&m);
    assert_int_equal(svg_write(m.f, &off.c, p, 2, &o), AV_OK);
    char *doc = mem_close(&m);
    assert_non_null(strstr(
        doc, "font-weight=\"bold\">Head 3 of 4: random, mask off and causal, layer 1 of 1<"));
    assert_non_null(strstr(doc, "d_k 8; mask off (left), causal (right);</text>"));
    assert_null(strstr(doc, "Side by side"));
    assert_null(strstr(doc, "; mask off;"));
    assert_non_null(strstr(doc, ">mask off</text>"));
    assert_non_null(strstr(doc, ">mask causal</text>"));
    free(doc);
    p[1] = (SvgPanel){.r = &off.r, .layer = 0, .head = 3}; /* the interface's B */
    p[0].caption = NULL;
    mem_open(&m);
    assert_int_equal(svg_write(m.f, &off.c, p, 2, &o), AV_OK);
    doc = mem_close(&m);
    assert_non_null(strstr(doc, "font-weight=\"bold\">Side by side, layer 1 of 1<"));
    assert_non_null(strstr(doc, "d_k 8; mask off; scaled"));
    assert_non_null(strstr(doc, ">Head 3: random</text>"));
    assert_non_null(strstr(doc, ">Head 4: random</text>"));
    free(doc);
    fixture_free(&off);
    fixture_free(&on);
}

/* The title's sentence is the text as typed, its white space one space
 * (a model's tokens joined read "t he \xe2\x90\xa3c at"); a long text is
 * cut after a word; a result with no text (imported attention) shows its
 * tokens; under cross-attention the keys' text follows. */
static void test_svg_sentence_as_typed(void **state)
{
    (void)state;
    Fixture f;
    fixture_run(&f, "it was tired .", false);
    char *doc = svg_of(&f, 0);
    assert_non_null(strstr(doc, ">Sentence: it was tired .</text>")); /* no text: the tokens */
    free(doc);
    const char typed[] = " it\twas  tired.\n";
    assert_int_equal(model_result_set_text(&f.r, typed, strlen(typed), NULL, 0), AV_OK);
    doc = svg_of(&f, 0);
    assert_non_null(strstr(doc, ">Sentence: it was tired.</text>"));
    free(doc);
    SvgOptions o = {0}; /* the page's title too */
    Mem m;
    mem_open(&m);
    assert_int_equal(html_write(m.f, &f.r, &f.c, 0, 0, &o), AV_OK);
    doc = mem_close(&m);
    assert_non_null(strstr(doc, "<title>attnviz: it was tired.</title>"));
    free(doc);
    char text[400] = "";
    for (int k = 0; k < 30; k++)
        strcat(text, "abcdefghi ");
    assert_int_equal(model_result_set_text(&f.r, text, strlen(text), "le chat", 7), AV_OK);
    f.r.cross_tokens = f.r.tokens; /* borrowed: only its n is asked */
    doc = svg_of(&f, 0);
    f.r.cross_tokens = (TokenList){0};
    /* 760 units hold 104 characters, less 12: 92 for "abcdefghi " x 30 and the
     * keys, 9 words of the first, none of the second */
    char want[200] = ">Sentence: ";
    for (int k = 0; k < 9; k++)
        strcat(want, k ? " abcdefghi" : "abcdefghi");
    strcat(want, " \xe2\x80\xa6  |  keys:  \xe2\x80\xa6</text>");
    assert_non_null(strstr(doc, want));
    free(doc);
    fixture_free(&f);
}

static void test_html_data(void **state)
{
    (void)state;
    Fixture f;
    fixture_run(&f, "a <b> c </script> d", true);
    const int n = f.r.shape.n_q, H = f.c.H;
    SvgOptions o = {0};
    Mem m;
    mem_open(&m);
    assert_int_equal(html_write(m.f, &f.r, &f.c, 0, 2, &o), AV_OK);
    char *doc = mem_close(&m);
    assert_true(strncmp(doc, "<!DOCTYPE html>", 15) == 0);
    /* the tokens < / script > cannot end the data early: < escaped in JSON */
    assert_int_equal(count(doc, "</script>"), 2);
    assert_non_null(strstr(doc, "\"\\u003c\",\"/\",\"script\",\"\\u003e\""));
    assert_null(strstr(doc, "src="));
    assert_null(strstr(doc, "href="));
    assert_non_null(strstr(doc, "\"focus\":{\"layer\":0,\"head\":2}"));
    assert_non_null(strstr(doc, "\"vis\":[1,2,3,4,5,6,7,8,9,10]"));
    /* the weights, visible cells only, as the page must hold them */
    size_t bytes = (size_t)H * n * (n + 1) / 2 * 2, o2 = 0;
    unsigned char *w = malloc(bytes), *s = malloc(bytes);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++, o2 += 2) {
                size_t at = ((size_t)h * n + i) * n + j;
                unsigned v = (unsigned)lrint((double)f.r.layer[0].ab.P[at] * 65534.0);
                uint16_t hv = html_half(f.r.layer[0].ab.S[at]);
                w[o2] = v & 255, w[o2 + 1] = (unsigned char)(v >> 8);
                s[o2] = hv & 255, s[o2 + 1] = (unsigned char)(hv >> 8);
            }
    Mem e;
    mem_open(&e);
    fputs("\"weights\":\"", e.f);
    html_base64(e.f, w, bytes);
    fputs("\",\n\"scores\":\"", e.f);
    html_base64(e.f, s, bytes);
    char *want = mem_close(&e);
    assert_non_null(strstr(doc, want));
    free(want), free(w), free(s), free(doc);
    fixture_free(&f);
}

/* Under --cross the page's header names both sentences, the queries' (the
 * chips) and the keys' and values' (as typed), and says it is
 * cross-attention; without it, neither. */
static void test_html_cross_header(void **state)
{
    (void)state;
    Fixture f;
    memset(&f, 0, sizeof f);
    model_config_default(&f.c);
    assert_int_equal(model_weights_toy(&f.c, &f.w), AV_OK);
    const char q[] = "The cat sat on the mat", k[] = "Le chat  est assis";
    assert_int_equal(model_run(&f.c, &f.w, q, strlen(q), k, strlen(k), &f.r), AV_OK);
    assert_int_equal(model_result_set_text(&f.r, q, strlen(q), k, strlen(k)), AV_OK);
    SvgOptions o = {0};
    Mem m;
    mem_open(&m);
    assert_int_equal(html_write(m.f, &f.r, &f.c, 0, 0, &o), AV_OK);
    char *doc = mem_close(&m);
    const char *head = strstr(doc, "<header>"), *end = strstr(doc, "</header>");
    assert_true(head && end);
    char *h = strndup(head, (size_t)(end - head));
    assert_non_null(strstr(h, "<h1>attnviz: cross-attention of every layer and head</h1>"));
    assert_non_null(strstr(h, "<p id=\"sentence\"><span class=\"role\">Queries:</span> <span "
                              "class=\"tok\" data-token=\"1\">The</span>"));
    assert_non_null(strstr(h, "<p id=\"keys\"><span class=\"role\">Keys and values:</span> Le "
                              "chat  est assis</p>"));
    free(h), free(doc);
    model_result_set_text(&f.r, NULL, 0, NULL, 0); /* no text: the keys' tokens */
    mem_open(&m);
    assert_int_equal(html_write(m.f, &f.r, &f.c, 0, 0, &o), AV_OK);
    doc = mem_close(&m);
    assert_non_null(strstr(doc, "Keys and values:</span> Le chat est assis</p>"));
    free(doc);
    fixture_free(&f);
    fixture_run(&f, "the cat sat", false);
    mem_open(&m);
    assert_int_equal(html_write(m.f, &f.r, &f.c, 0, 0, &o), AV_OK);
    doc = mem_close(&m);
    assert_non_null(strstr(doc, "<h1>attnviz: attention of every layer and head</h1>"));
    assert_non_null(strstr(doc, "<p id=\"sentence\"><span class=\"tok\""));
    assert_null(strstr(doc, "id=\"keys\""));
    free(doc);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_source_name),
        cmocka_unit_test(test_half),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_svg_cells),
        cmocka_unit_test(test_exports_of_heads_combined),
        cmocka_unit_test(test_svg_settings_two_lines),
        cmocka_unit_test(test_svg_multiples_mono),
        cmocka_unit_test(test_svg_pooled),
        cmocka_unit_test(test_svg_legend_hatching),
        cmocka_unit_test(test_svg_mask_side_by_side),
        cmocka_unit_test(test_svg_sentence_as_typed),
        cmocka_unit_test(test_html_data),
        cmocka_unit_test(test_html_cross_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
