/* test_plot.c - the positional-encoding figures: diverging levels and glyphs,
 * Braille dots, the PE similarity matrix, and golden cells of the matrix and
 * line plots. */
#include "test_common.h"

#include <locale.h>
#include <string.h>

#include "core/av.h"
#include "render/plot.h"
#include "core/posenc.h"

static void test_plot_diverge_level_ends_and_zero(void **state)
{
    (void)state;
    assert_int_equal(plot_diverge_level(-1.0f, 1.0f), 0);
    assert_int_equal(plot_diverge_level(1.0f, 1.0f), GRID_LEVELS - 1);
    assert_int_equal(plot_diverge_level(0.0f, 1.0f), GRID_LEVELS / 2);
    assert_int_equal(plot_diverge_level(-5.0f, 1.0f), 0); /* clamped */
    assert_int_equal(plot_diverge_level(0.5f, 0.0f), GRID_LEVELS / 2);
}

static void test_plot_diverge_glyphs(void **state)
{
    (void)state;
    assert_int_equal(plot_diverge_glyph(-0.8f, 1.0f), '=');
    assert_int_equal(plot_diverge_glyph(-0.3f, 1.0f), '-');
    assert_int_equal(plot_diverge_glyph(0.0f, 1.0f), 0x00B7);
    assert_int_equal(plot_diverge_glyph(0.3f, 1.0f), '+');
    assert_int_equal(plot_diverge_glyph(0.9f, 1.0f), '#');
    assert_int_equal(plot_diverge_glyph(1.8f, 2.0f), '#'); /* relative to the range */
}

static void test_plot_braille_bits(void **state)
{
    (void)state;
    assert_int_equal(plot_braille(0), 0x2800);
    assert_int_equal(plot_braille(0xFF), 0x28FF);
    assert_int_equal(plot_braille_bit(0, 0), 0x01); /* dot 1 */
    assert_int_equal(plot_braille_bit(0, 3), 0x40); /* dot 7 */
    assert_int_equal(plot_braille_bit(1, 0), 0x08); /* dot 4 */
    assert_int_equal(plot_braille_bit(1, 3), 0x80); /* dot 8 */
    assert_int_equal(plot_braille_bit(2, 0), 0);
}

/* cos similarity of PE rows depends only on the distance: PE(i).PE(j) =
 * sum_k cos(w_k (i - j)) and |PE(i)|^2 = d_model / 2. */
static void test_plot_pe_similarity_translation(void **state)
{
    (void)state;
    enum { N = 12, D = 16 };
    float PE[N * D], S[N * N];
    posenc_fill(0, N, D, PE);
    posenc_similarity(PE, N, D, S);
    for (int i = 0; i < N; i++) {
        assert_float_equal(S[i * N + i], 1.0f, 1e-6);
        for (int j = 0; j < N; j++) {
            assert_float_equal(S[i * N + j], S[j * N + i], 1e-6);
            int dist = i > j ? i - j : j - i;
            assert_float_equal(S[i * N + j], S[dist], 1e-5);
        }
    }
    double expect = 0;
    for (int k = 0; k < D / 2; k++)
        expect += cos(pow(10000.0, -2.0 * k / D));
    assert_float_equal(S[1], (float)(expect / (D / 2)), 1e-5);
}

static void test_plot_matrix_golden_glyphs(void **state)
{
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 20, 4), AV_OK);
    const float M[6] = {-1.0f, 0.0f, 1.0f, 0.5f, -0.5f, 0.1f};
    const char *labels[2] = {"a", "bb"};
    PlotMatrixSpec sp = {.M = M,
                         .n_rows = 2,
                         .n_cols = 3,
                         .range = 1.0f,
                         .row_labels = labels,
                         .n_labeled = 2,
                         .sel_row = 1,
                         .glyphs = true};
    PlotLayout l;
    assert_int_equal(plot_matrix(&g, 0, 0, 20, 4, &sp, &l), 3);
    /* label: mark, index, space, label (2 wide), gap */
    assert_int_equal(l.cells_x, 6);
    assert_int_equal(l.cells_y, 1);
    assert_int_equal(l.rows, 2);
    assert_int_equal(l.cols, 3);
    assert_int_equal(grid_at(&g, 6, 0)->cp, '0'); /* the dimension tick */
    assert_int_equal(grid_at(&g, 0, 1)->cp, 0x2022);
    assert_int_equal(grid_at(&g, 3, 1)->cp, 'a');
    const uint32_t row0[3] = {'=', 0x00B7, '#'}, row1[3] = {'+', '-', 0x00B7};
    for (int c = 0; c < 3; c++) {
        assert_int_equal(grid_at(&g, 6 + c, 1)->cp, row0[c]);
        assert_int_equal(grid_at(&g, 6 + c, 2)->cp, row1[c]);
    }
    assert_true(grid_at(&g, 7, 2)->flags & CELL_SELECTED);
    assert_false(grid_at(&g, 7, 1)->flags & CELL_SELECTED);
    assert_int_equal(grid_at(&g, 3, 2)->style, STYLE_LABEL_SEL);
    assert_int_equal(plot_hit_row(&l, 7, 2), 1);
    assert_int_equal(plot_hit_row(&l, 7, 0), -1);
    grid_free(&g);
}

static void test_plot_matrix_colour_levels_and_sampling(void **state)
{
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 12, 3), AV_OK);
    float M[20];
    for (int k = 0; k < 20; k++)
        M[k] = k < 10 ? -1.0f : 1.0f;
    PlotMatrixSpec sp = {.M = M, .n_rows = 1, .n_cols = 20, .range = 1.0f, .sel_row = -1};
    PlotLayout l;
    plot_matrix(&g, 0, 0, 12, 3, &sp, &l);
    /* 9 columns of room for 20: every 3rd dimension, 7 shown */
    assert_int_equal(l.col_step, 3);
    assert_int_equal(l.cols, 7);
    assert_int_equal(grid_at(&g, l.cells_x, 1)->style, STYLE_DIVERGE);
    assert_int_equal(grid_at(&g, l.cells_x, 1)->level, 0);
    assert_int_equal(grid_at(&g, l.cells_x + 4, 1)->level, GRID_LEVELS - 1); /* dim 12 */
    grid_free(&g);
}

static void test_plot_pe_lines_dots(void **state)
{
    (void)state;
    enum { P = 64, D = 8 };
    float PE[P * D];
    posenc_fill(0, P, D, PE);
    Grid g;
    assert_int_equal(grid_init(&g, 40, 12), AV_OK);
    int dims[2] = {0, 1};
    /* 2 dims in 10 rows: strips of 3 rows (12 dot rows) under a title */
    int used = plot_pe_lines(&g, 0, 0, 40, 10, PE, 16, D, dims, 2, 3, 1);
    assert_int_equal(used, 10);
    assert_int_equal(grid_at(&g, 0, 0)->cp, 'd');
    /* dim 0 = sin(0) = 0 at pos 0: dot row 6 of 12 = cell row 1, dot 3 */
    assert_true(grid_at(&g, 3, 2)->cp >= 0x2800 && grid_at(&g, 3, 2)->cp <= 0x28FF);
    assert_true((grid_at(&g, 3, 2)->cp - 0x2800) & plot_braille_bit(0, 2));
    /* dim 1 = cos(0) = 1 at pos 0: the top dot of its strip */
    assert_true((grid_at(&g, 3, 5)->cp - 0x2800) & plot_braille_bit(0, 0));
    /* the axis marks the sentence's 3 positions, the selected one with ▲ */
    int marks = 0, sel = 0;
    for (int x = 0; x < 40; x++) {
        marks += grid_at(&g, x, 8)->cp == 0x2022;
        sel += grid_at(&g, x, 8)->cp == 0x25B2;
    }
    assert_int_equal(marks, 2);
    assert_int_equal(sel, 1);
    grid_free(&g);
}

int main(void)
{
    test_utf8_locale();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plot_diverge_level_ends_and_zero),
        cmocka_unit_test(test_plot_diverge_glyphs),
        cmocka_unit_test(test_plot_braille_bits),
        cmocka_unit_test(test_plot_pe_similarity_translation),
        cmocka_unit_test(test_plot_matrix_golden_glyphs),
        cmocka_unit_test(test_plot_matrix_colour_levels_and_sampling),
        cmocka_unit_test(test_plot_pe_lines_dots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
