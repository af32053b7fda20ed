/* test_pipeline.c - one head's stages against NumPy (tests/data/pipeline/,
 * made by make_pipeline_ref.py), and the drawing: every stage titled, the
 * selected row marked, values written, pages when the rectangle is small,
 * seed 001's numbers in the text.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/model.h"
#include "io/npy.h"
#include "io/weights.h"
#include "render/pipeline.h"
#include "render/trace.h"

#define DIR TEST_DATA_DIR "/pipeline"

typedef struct {
    ModelConfig c;
    ModelWeights w;
    ModelResult r;
} Fixture;

/* d_model 8, 2 heads, no PE, causal, temperature 2, on "a b c d e". */
static void run_reference(Fixture *f)
{
    const char *which;
    memset(f, 0, sizeof *f);
    model_config_default(&f->c);
    f->c.d_model = 8, f->c.H = 2, f->c.pe = false, f->c.causal = true;
    f->c.temperature = 2.0f, f->c.preset = PRESET_LOADED;
    assert_int_equal(weights_load(&f->c, DIR, &f->w, &which), AV_OK);
    assert_int_equal(model_run(&f->c, &f->w, "a b c d e", 9, NULL, 0, &f->r), AV_OK);
}

static void fixture_free(Fixture *f)
{
    model_result_free(&f->r);
    model_weights_free(&f->w);
}

static void check_npy(const char *name, const float *got, size_t n, double tol)
{
    char path[256];
    NpyArray a = {0};
    snprintf(path, sizeof path, DIR "/%s.npy", name);
    assert_int_equal(npy_read(path, &a), AV_OK);
    assert_int_equal(a.count, n);
    assert_floats_near(got, a.data, n, tol);
    npy_free(&a);
}

/* Every stage of head 2 equals NumPy's to 1e-5. */
static void test_pipeline_matches_numpy(void **state)
{
    (void)state;
    Fixture f;
    run_reference(&f);
    PipelineData d;
    assert_int_equal(pipeline_compute(&f.r, 0, 1, &d), AV_OK);
    assert_int_equal(d.n_q, 5);
    assert_int_equal(d.d_k, 4);
    check_npy("Q", d.Q, 20, 1e-5);
    check_npy("K", d.K, 20, 1e-5);
    check_npy("V", d.V, 20, 1e-5);
    check_npy("raw", d.raw, 25, 1e-5);
    check_npy("scaled", d.scaled_s, 25, 1e-5);
    check_npy("weights", d.P, 25, 1e-5);
    check_npy("output", d.O, 20, 1e-5);
    assert_float_equal(d.factor, 0.25f, 1e-7); /* 1 / sqrt(4) / 2 */
    /* masked: the scaled score where j <= i, exactly -inf above */
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            float m = d.masked[i * 5 + j], s = d.scaled_s[i * 5 + j];
            if (j <= i)
                assert_true(m == s);
            else
                assert_true(isinf(m) && m < 0);
        }
    pipeline_free(&d);
    /* out of range */
    assert_int_equal(pipeline_compute(&f.r, 0, 2, &d), AV_ERR_CONFIG);
    assert_int_equal(pipeline_compute(&f.r, 1, 0, &d), AV_ERR_CONFIG);
    fixture_free(&f);
}

/* Whether any row of g holds s. */
static bool grid_has(const Grid *g, const char *s)
{
    char line[1024];
    for (int y = 0; y < g->h; y++) {
        int n = 0;
        for (int x = 0; x < g->w && n < 1000; x++) {
            uint32_t cp = g->cells[y * g->w + x].cp;
            if (cp && cp < 128)
                line[n++] = (char)cp;
            else if (cp)
                line[n++] = '?';
        }
        line[n] = '\0';
        if (strstr(line, s))
            return true;
    }
    return false;
}

/* The drawing: every title on one big page, the selected row marked and
 * flagged; a small rectangle needs more pages, and each page draws. */
static void test_pipeline_draw_pages(void **state)
{
    (void)state;
    Fixture f;
    run_reference(&f);
    PipelineData d;
    assert_int_equal(pipeline_compute(&f.r, 0, 1, &d), AV_OK);
    const char *labels[5] = {"a", "b", "c", "d", "e"};
    PipelineSpec sp = {
        .d = &d, .row_labels = labels, .col_labels = labels, .sel_row = 2, .sel_col = -1};
    Grid g;
    assert_int_equal(grid_init(&g, 120, 200), AV_OK);
    int page = -1;
    assert_int_equal(pipeline_draw(&g, 0, 0, 120, 200, &sp, &page), 1);
    assert_int_equal(page, 0);
    const char *titles[] = {"1 Q_h", "2 K_h",         "3 V_h",     "4 Q_h K_h^T",
                            "5 ",    "6 causal mask", "7 softmax", "8 output"};
    for (int k = 0; k < 8; k++)
        assert_true(grid_has(&g, titles[k]));
    assert_true(grid_has(&g, "-inf"));
    assert_true(grid_has(&g, ">c"));
    /* the selected row's cells are flagged */
    int flagged = 0;
    for (int k = 0; k < g.w * g.h; k++)
        flagged += (g.cells[k].flags & CELL_SELECTED) != 0;
    assert_true(flagged >= 6 * 4);
    /* 80 x 20 cannot hold eight stages of five rows: pages, each drawing */
    int pages = pipeline_draw(&g, 0, 0, 80, 20, &sp, NULL);
    assert_true(pages >= 2);
    bool seen[8] = {0};
    for (int p = 0; p < pages; p++) {
        grid_clear(&g);
        sp.page = p;
        assert_int_equal(pipeline_draw(&g, 0, 0, 80, 20, &sp, &page), pages);
        assert_int_equal(page, p);
        for (int k = 0; k < 8; k++)
            seen[k] |= grid_has(&g, titles[k]);
        for (int y = 20; y < g.h; y++) /* nothing drawn below the rectangle */
            for (int x = 0; x < g.w; x++)
                assert_int_equal(g.cells[y * g.w + x].cp, ' ');
    }
    for (int k = 0; k < 8; k++)
        assert_true(seen[k]);
    /* the page a stage is on: drawing that page shows its title */
    for (int k = 0; k < 8; k++) {
        sp.page = pipeline_page_of(&sp, 80, 20, (PipelineStage)k);
        grid_clear(&g);
        pipeline_draw(&g, 0, 0, 80, 20, &sp, NULL);
        assert_true(grid_has(&g, titles[k]));
    }
    assert_int_equal(pipeline_page_of(&sp, 80, 20, PIPE_Q), 0);
    assert_int_equal(pipeline_page_of(&sp, 80, 20, PIPE_OUT), pages - 1);
    grid_free(&g);
    pipeline_free(&d);
    fixture_free(&f);
}

/* The largest distance from zero's level among the STYLE_DIVERGE cells of
 * rows y0 .. y1 - 1. */
static int spread(const Grid *g, int y0, int y1)
{
    int most = 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < g->w; x++) {
            const Cell *c = &g->cells[y * g->w + x];
            int dist = abs((int)c->level - GRID_LEVELS / 2);
            if (c->style == STYLE_DIVERGE && dist > most)
                most = dist;
        }
    return most;
}

/* A lesson's stage opens its page (the raw and scaled scores side by side,
 * as its text says); the raw and scaled scores share one colour scale, so
 * the scaled ones (x 1/sqrt(4)/2 here) are paler. */
static void test_pipeline_lead_and_one_scale(void **state)
{
    (void)state;
    Fixture f;
    run_reference(&f);
    PipelineData d;
    assert_int_equal(pipeline_compute(&f.r, 0, 1, &d), AV_OK);
    const char *labels[5] = {"a", "b", "c", "d", "e"};
    PipelineSpec sp = {.d = &d,
                       .row_labels = labels,
                       .col_labels = labels,
                       .sel_row = -1,
                       .sel_col = -1,
                       .lead = 1 + PIPE_RAW,
                       .cell_w = 6};
    int page = pipeline_page_of(&sp, 40, 8, PIPE_RAW);
    assert_true(page > 0);
    assert_int_equal(pipeline_page_of(&sp, 40, 8, PIPE_V), page - 1);
    Grid g;
    assert_int_equal(grid_init(&g, 40, 16), AV_OK);
    sp.page = page;
    pipeline_draw(&g, 0, 0, 40, 8, &sp, NULL);
    assert_int_equal(g.cells[0].cp, '4'); /* "4 Q_h K_h^T" opens the page */
    /* one stage a page at 40 x 8: the raw scores, then the scaled ones */
    int raw = spread(&g, 2, 8);
    grid_clear(&g);
    sp.page = pipeline_page_of(&sp, 40, 8, PIPE_SCALED);
    pipeline_draw(&g, 0, 0, 40, 8, &sp, NULL);
    assert_int_equal(g.cells[0].cp, '5');
    int scaled = spread(&g, 2, 8);
    assert_int_equal(raw, GRID_LEVELS / 2 - (GRID_LEVELS % 2 == 0));
    assert_true(scaled < raw);
    grid_free(&g);
    pipeline_free(&d);
    fixture_free(&f);
}

/* Cells are chosen wide enough to write their values where the scores then
 * fit across (a stage a page rather than colour alone), and the stages a
 * lesson's page names (lead .. lead_last) share a page, with values where a
 * narrower cell lets them. */
static void test_pipeline_values_and_span(void **state)
{
    (void)state;
    Fixture f;
    run_reference(&f);
    PipelineData d;
    assert_int_equal(pipeline_compute(&f.r, 0, 1, &d), AV_OK);
    const char *labels[5] = {"a", "b", "c", "d", "e"};
    PipelineSpec sp = {
        .d = &d, .row_labels = labels, .col_labels = labels, .sel_row = 4, .sel_col = -1};
    Grid g;
    assert_int_equal(grid_init(&g, 60, 8), AV_OK);
    /* 40 x 8: one stage a page; the weights' row of e written to 2 digits */
    sp.page = pipeline_page_of(&sp, 40, 8, PIPE_WEIGHTS);
    pipeline_draw(&g, 0, 0, 40, 8, &sp, NULL);
    char want[64];
    const float *P = d.P + 4 * 5;
    snprintf(want, sizeof want, ">e %5.2f %5.2f %5.2f %5.2f %5.2f", P[0], P[1], P[2], P[3], P[4]);
    assert_true(grid_has(&g, want));
    /* 60 x 8 with the raw and the scaled scores named: 6-column cells would
     * put them on two pages, 5-column cells hold both, with values */
    sp.lead = 1 + PIPE_RAW, sp.lead_last = 1 + PIPE_SCALED;
    int page = pipeline_page_of(&sp, 60, 8, PIPE_RAW);
    assert_int_equal(pipeline_page_of(&sp, 60, 8, PIPE_SCALED), page);
    sp.cell_w = 6; /* the check that 6 columns would not */
    assert_int_not_equal(pipeline_page_of(&sp, 60, 8, PIPE_SCALED),
                         pipeline_page_of(&sp, 60, 8, PIPE_RAW));
    sp.cell_w = 0, sp.page = page;
    grid_clear(&g);
    pipeline_draw(&g, 0, 0, 60, 8, &sp, NULL);
    assert_true(grid_has(&g, "4 Q_h K_h^T") && grid_has(&g, "5 "));
    int digits = 0; /* the row of e in both stages: ten values, each a digit or more */
    for (int y = 0; y < 8; y++)
        if (g.cells[y * g.w].cp == '>')
            for (int x = 0; x < g.w; x++)
                digits += g.cells[y * g.w + x].cp >= '0' && g.cells[y * g.w + x].cp <= '9';
    assert_true(digits >= 2 * 10);
    /* a page's last shelf does without its blank line: three stages of 7
     * lines stacked need 23 lines with both gaps, 22 with one */
    sp = (PipelineSpec){.d = &d,
                        .row_labels = labels,
                        .col_labels = labels,
                        .sel_row = -1,
                        .sel_col = -1,
                        .cell_w = 6};
    assert_int_equal(pipeline_page_of(&sp, 40, 22, PIPE_V), 0);
    assert_int_equal(pipeline_page_of(&sp, 40, 21, PIPE_V), 1);
    grid_free(&g);
    pipeline_free(&d);
    fixture_free(&f);
}

/* The labels of the rows Q_h (column 1) and K_h (the column after its
 * title's) show on lines 2 .. 4 of g: "cde" and "cde". */
static void shown_rows(const Grid *g, char q[4], char k[4])
{
    int kx = -1;
    for (int x = 0; x + 4 < g->w && kx < 0; x++)
        if (g->cells[x].cp == '2' && g->cells[x + 2].cp == 'K')
            kx = x;
    assert_true(kx > 0);
    for (int r = 0; r < 3; r++) {
        q[r] = (char)g->cells[(2 + r) * g->w + 1].cp;
        k[r] = (char)g->cells[(2 + r) * g->w + kx + 1].cp;
    }
    q[3] = k[3] = '\0';
}

/* Stages side by side whose rows are the same tokens (Q_h, K_h under
 * self-attention) show the same rows, following the selected query and
 * keeping the selected key in view where both fit, and each says which rows
 * it shows; the keys of another sentence follow the selected key. */
static void test_pipeline_rows_follow_query(void **state)
{
    (void)state;
    Fixture f;
    run_reference(&f);
    PipelineData d;
    assert_int_equal(pipeline_compute(&f.r, 0, 1, &d), AV_OK);
    const char *rows[5] = {"a", "b", "c", "d", "e"};
    const char *same[5] = {"a", "b", "c", "d", "e"}; /* other strings, the same tokens */
    PipelineSpec sp = {
        .d = &d, .row_labels = rows, .col_labels = same, .sel_row = 4, .sel_col = -1, .cell_w = 6};
    Grid g;
    char q[4], k[4];
    assert_int_equal(grid_init(&g, 100, 5), AV_OK);
    pipeline_draw(&g, 0, 0, 100, 5, &sp, NULL); /* 3 rows of 5 a stage */
    shown_rows(&g, q, k);
    assert_string_equal(q, "cde");
    assert_string_equal(k, "cde");
    assert_true(grid_has(&g, "1 Q_h = X W_q: queries  3-5"));
    assert_true(grid_has(&g, "2 K_h = X W_k: keys     3-5"));
    sp.sel_row = 3, sp.sel_col = 1; /* d and the key b fit in one window */
    grid_clear(&g);
    pipeline_draw(&g, 0, 0, 100, 5, &sp, NULL);
    shown_rows(&g, q, k);
    assert_string_equal(q, "bcd");
    assert_string_equal(k, "bcd");
    assert_true(grid_has(&g, "queries  2-4"));
    sp.sel_row = 4, sp.sel_col = 0; /* e and a do not: the query wins */
    grid_clear(&g);
    pipeline_draw(&g, 0, 0, 100, 5, &sp, NULL);
    shown_rows(&g, q, k);
    assert_string_equal(q, "cde");
    assert_string_equal(k, "cde");
    const char *other[5] = {"v", "w", "x", "y", "z"}; /* cross-attention */
    sp.col_labels = other, sp.sel_col = -1;
    grid_clear(&g);
    pipeline_draw(&g, 0, 0, 100, 5, &sp, NULL);
    shown_rows(&g, q, k);
    assert_string_equal(q, "cde");
    assert_string_equal(k, "vwx");
    assert_true(grid_has(&g, "keys     1-3"));
    grid_free(&g);
    pipeline_free(&d);
    fixture_free(&f);
}

/* --export pipeline of seed 001: the article's numbers. */
static void test_pipeline_write_seed001(void **state)
{
    (void)state;
    ModelConfig c;
    ModelWeights w = {0};
    ModelResult r = {0};
    const char *which;
    model_config_default(&c);
    c.d_model = 4, c.H = 2, c.pe = false, c.preset = PRESET_LOADED;
    assert_int_equal(weights_load(&c, "assets/seed001", &w, &which), AV_OK);
    assert_int_equal(model_run(&c, &w, "Cat eats fish", 13, NULL, 0, &r), AV_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(pipeline_write(f, &r, &c, 0, 0, 0, false, 100), AV_OK);
    fclose(f);
    assert_non_null(strstr(buf, "0.74  0.38  0.50")); /* step 2 */
    assert_non_null(strstr(buf, "0.52  0.27  0.35")); /* step 3 */
    assert_non_null(strstr(buf, "0.38  0.30  0.32")); /* step 4 */
    assert_non_null(strstr(buf, "0.54  0.46"));       /* step 5 */
    assert_non_null(strstr(buf, "sqrt(2) = 1.41"));
    /* attnviz's own Q, K and V have no bias, and say so */
    assert_false(r.qkv_bias);
    assert_non_null(strstr(buf, "1 Q_h = X W_q: queries"));
    assert_non_null(strstr(buf, "3 V_h = X W_v: values"));
    assert_null(strstr(buf, "b_q"));
    free(buf);
    /* a run of the weights alone has no outputs to draw: said, not read */
    c.weights_only = true;
    assert_int_equal(model_run(&c, &w, "Cat eats fish", 13, NULL, 0, &r), AV_OK);
    PipelineData d;
    assert_int_equal(pipeline_compute(&r, 0, 0, &d), AV_ERR_NEEDS_MODEL);
    f = open_memstream(&buf, &len);
    assert_int_equal(trace_write(f, &r, &c, 0, 0, 0), AV_ERR_NEEDS_MODEL);
    fclose(f);
    free(buf);
    model_result_free(&r);
    model_weights_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_matches_numpy),
        cmocka_unit_test(test_pipeline_draw_pages),
        cmocka_unit_test(test_pipeline_lead_and_one_scale),
        cmocka_unit_test(test_pipeline_values_and_span),
        cmocka_unit_test(test_pipeline_rows_follow_query),
        cmocka_unit_test(test_pipeline_write_seed001),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
