/* test_heatmap.c - the grid and the heatmap renderer: golden grids. */
#include "test_common.h"

#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/fileio.h"
#include "render/grid.h"
#include "render/heatmap.h"

/* Seed 001's "Cat eats fish" row, plus two rows of our own. */
static const float P3[9] = {0.38f, 0.30f, 0.32f, 0.02f, 0.90f, 0.08f, 0.10f, 0.20f, 0.70f};
static const char *const labels3[3] = {"Cat", "eats", "fish"};

static char *grid_text(const Grid *g, bool color)
{
    MemFile m;
    assert_int_equal(memfile_open(&m), AV_OK);
    assert_int_equal(grid_write(g, m.f, color), 0);
    assert_int_equal(memfile_close(&m), AV_OK);
    return m.buf; /* the caller frees it */
}

static void test_heatmap_levels_and_glyphs(void **state)
{
    (void)state;
    /* Glyph edges at 5, 15, 35 and 65%; levels grow with sqrt(w). */
    assert_int_equal(heatmap_glyph_index(0.0f), 0);
    assert_int_equal(heatmap_glyph_index(0.0499f), 0);
    assert_int_equal(heatmap_glyph_index(0.05f), 1);
    assert_int_equal(heatmap_glyph_index(0.35f), 3);
    assert_int_equal(heatmap_glyph_index(0.85f), 4);
    assert_int_equal(heatmap_level(0.0f), 0);
    assert_int_equal(heatmap_level(0.25f), 8);
    assert_int_equal(heatmap_level(1.0f), GRID_LEVELS - 1);
}

static void test_heatmap_level_out_of_range(void **state)
{
    (void)state;
    /* Weights past 1 (rounding, a bad file) and +Inf take the top level;
     * NaN, -Inf and negatives the lowest; none may reach a float-to-int cast
     * out of range (UBSan's float-cast-overflow). */
    assert_int_equal(heatmap_level(1.0000001f), GRID_LEVELS - 1);
    assert_int_equal(heatmap_level(3.5f), GRID_LEVELS - 1);
    assert_int_equal(heatmap_level(3e38f), GRID_LEVELS - 1);
    assert_int_equal(heatmap_level(INFINITY), GRID_LEVELS - 1);
    assert_int_equal(heatmap_level(NAN), 0);
    assert_int_equal(heatmap_level(-NAN), 0);
    assert_int_equal(heatmap_level(-INFINITY), 0);
    assert_int_equal(heatmap_level(-0.5f), 0);
    assert_int_equal(heatmap_level(-0.0f), 0);
    /* just under 1 is still the top level; the smallest weights the lowest */
    assert_int_equal(heatmap_level(0.9999999f), GRID_LEVELS - 1);
    assert_int_equal(heatmap_level(1e-30f), 0);
    assert_int_equal(heatmap_level(0x1p-149f), 0);
}

/* heatmap_levels of w[0..n) checked against heatmap_level one by one. */
static void check_levels(const float *w, int n)
{
    uint8_t level[80];
    assert_true(n <= 80);
    memset(level, 0xee, sizeof level);
    heatmap_levels(w, n, level);
    for (int k = 0; k < n; k++)
        if (level[k] != heatmap_level(w[k]))
            fail_msg("w[%d] = %a: level %d, heatmap_level %d", k, (double)w[k], level[k],
                     heatmap_level(w[k]));
    if (n < 80)
        assert_int_equal(level[n], 0xee); /* nothing written past n */
}

static void test_heatmap_levels_match_level(void **state)
{
    /* expect: the four-at-a-time levels equal heatmap_level's exactly: next to
     * every level's edge (k^2/256, where sqrtf's rounding decides), on a
     * sweep of bit patterns through (0, 2), at the special values, and for
     * every count 0..80 (the tail after the blocks of four) */
    (void)state;
    float w[80];
    int n = 0;
    for (int k = 1; k <= GRID_LEVELS; k++) {
        float edge = (float)(k * k) / (GRID_LEVELS * GRID_LEVELS);
        float v = edge;
        for (int s = 0; s < 4; s++)
            v = nextafterf(v, 0.0f);
        for (int s = 0; s < 9; s++, v = nextafterf(v, 2.0f)) {
            w[n++] = v;
            if (n == 80)
                check_levels(w, n), n = 0;
        }
    }
    check_levels(w, n);
    for (uint32_t bits = 1; bits < 0x40000000u; bits += 0x10003u) {
        for (int k = 0; k < 80; k++) {
            uint32_t b = bits + (uint32_t)k * 0x31u;
            memcpy(&w[k], &b, sizeof b);
        }
        check_levels(w, 80);
    }
    const float special[] = {0.0f, -0.0f, -1e-30f,   1.0f,        1.5f,  INFINITY, -INFINITY,
                             NAN,  -NAN,  0x1p-149f, 0.99999994f, 3e38f, 0.25f,    0.0039f};
    for (int n0 = 0; n0 <= 80; n0++) {
        for (int k = 0; k < n0; k++)
            w[k] = special[(k * 5 + n0) % (sizeof special / sizeof *special)];
        check_levels(w, n0);
    }
}

/* grid_first_fit: the first form, longest first, that fits, counted in
 * columns (÷ and … are one each), or -1. */
static void test_grid_first_fit(void **state)
{
    (void)state;
    const char *const forms[] = {"rows 9-22 of 22", "rows 9-22", "9÷22…"};
    assert_int_equal(grid_first_fit(forms, 3, 15), 0);
    assert_int_equal(grid_first_fit(forms, 3, 14), 1);
    assert_int_equal(grid_first_fit(forms, 3, 8), 2);
    assert_int_equal(grid_first_fit(forms, 3, 5), 2);
    assert_int_equal(grid_first_fit(forms, 3, 4), -1);
    assert_int_equal(grid_first_fit(forms, 0, 80), -1);
}

static void test_grid_flag_rect_clipped(void **state)
{
    (void)state;
    /* Rectangles past any edge flag only the cells inside the grid; empty
     * or wholly outside ones flag nothing. */
    Grid g;
    assert_int_equal(grid_init(&g, 5, 3), AV_OK);
    grid_flag_rect(&g, -2, -1, 4, 3, CELL_SELECTED); /* x 0-1, y 0-1 */
    grid_flag_rect(&g, 3, 2, 10, 10, CELL_CURSOR);   /* x 3-4, y 2 */
    grid_flag_rect(&g, 1, 1, 0, 5, CELL_CURSOR);
    grid_flag_rect(&g, 1, 1, -3, 2, CELL_CURSOR);
    grid_flag_rect(&g, 5, 0, 2, 3, CELL_CURSOR);
    grid_flag_rect(&g, 0, -4, 5, 4, CELL_CURSOR);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) {
            unsigned want =
                (x < 2 && y < 2 ? CELL_SELECTED : 0) | (x >= 3 && y == 2 ? CELL_CURSOR : 0);
            assert_int_equal(grid_at(&g, x, y)->flags, want);
        }
    grid_free(&g);
}

static void test_grid_flag_rect_keeps_cells(void **state)
{
    /* expect: flags are ORed into the rectangle's cells (four at a time and
     * the rest one by one) and nothing else of any cell changes */
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 13, 3), AV_OK);
    for (int w = 0; w <= 13; w++) {
        for (int k = 0; k < 13 * 3; k++)
            grid_fill_cells(&g.cells[k], 1, 0x2500u + (uint32_t)k, k % STYLE_COUNT, k % 16);
        for (int k = 0; k < 13 * 3; k += 5)
            g.cells[k].flags = CELL_CURSOR;
        Cell before[13 * 3];
        memcpy(before, g.cells, sizeof before);
        grid_flag_rect(&g, 13 - w, 1, w, 1, CELL_SELECTED);
        for (int k = 0; k < 13 * 3; k++) {
            Cell want = before[k];
            if (k / 13 == 1 && k % 13 >= 13 - w)
                want.flags |= CELL_SELECTED;
            assert_memory_equal(&g.cells[k], &want, sizeof want);
        }
    }
    grid_free(&g);
}

static void test_heatmap_golden_glyph_grid(void **state)
{
    (void)state;
    /* The 3 x 3 example drawn with 4-column cells: labels across the top,
     * numbered rows, one glyph per weight band. */
    Grid g;
    HeatmapLayout lay;
    assert_int_equal(grid_init(&g, 40, 6), AV_OK);
    HeatmapSpec sp = {P3, 3, 3, labels3, labels3, false, HEATMAP_GLYPH, -1,
                      -1, 5, 0, 0,       0,       true,  false,         1.0f};
    assert_int_equal(heatmap_draw(&g, 0, 0, 40, 6, &sp, &lay), 4);
    char *text = grid_text(&g, false);
    const char *want = "       Cat  eats fish\n"
                       "1 Cat  ▓▓▓▓ ▒▒▒▒ ▒▒▒▒\n"
                       "2 eats ···· ████ ░░░░\n"
                       "3 fish ░░░░ ▒▒▒▒ ████\n";
    assert_string_equal(text, want);
    free(text);
    grid_free(&g);
}

static void test_heatmap_causal_cells_marked(void **state)
{
    (void)state;
    /* Masked cells show the mask glyph, never a weight glyph. */
    Grid g;
    HeatmapLayout lay;
    grid_init(&g, 30, 5);
    const float P[9] = {1.0f, 0, 0, 0.5f, 0.5f, 0, 0.2f, 0.3f, 0.5f};
    HeatmapSpec sp = {P,  3, 3, labels3, labels3, true,  HEATMAP_GLYPH, -1,
                      -1, 5, 0, 0,       0,       false, false,         1.0f};
    heatmap_draw(&g, 0, 0, 30, 5, &sp, &lay);
    char *text = grid_text(&g, false);
    assert_non_null(strstr(text, "Cat  ████  ╳    ╳\n"));
    assert_non_null(strstr(text, "eats ▓▓▓▓ ▓▓▓▓  ╳\n"));
    free(text);
    grid_free(&g);
}

static void test_heatmap_masked_clear_of_100(void **state)
{
    /* expect: in 3-column cells the mask's mark stands in the middle of its
     * cell, so "100" (the first token sees itself only) never runs into it */
    (void)state;
    const float P[2 * 3] = {1.0f, 0, 0, 0.26f, 0.74f, 0};
    const char *const lab[3] = {"a", "b", "c"};
    Grid g;
    HeatmapLayout lay;
    grid_init(&g, 30, 6);
    HeatmapSpec sp = {P, 2, 3, lab, lab, true, HEATMAP_COLOR, -1, -1, 3, 0, 0, 0, false, false, 0};
    heatmap_draw(&g, 0, 0, 30, 6, &sp, &lay);
    char *text = grid_text(&g, false);
    assert_non_null(strstr(text, "a 100 \u2573  \u2573\n"));
    assert_non_null(strstr(text, "b 26 74  \u2573\n"));
    assert_null(strstr(text, "100\u2573"));
    free(text);
    grid_free(&g);
}

static void test_heatmap_color_numbers_and_hit(void **state)
{
    (void)state;
    /* Colour mode writes the percentages; a click maps back to (row, col). */
    Grid g;
    HeatmapLayout lay;
    grid_init(&g, 40, 6);
    HeatmapSpec sp = {P3, 3, 3, labels3, labels3, false, HEATMAP_COLOR, 1,
                      2,  4, 0, 0,       0,       false, false,         1.0f};
    heatmap_draw(&g, 2, 1, 38, 5, &sp, &lay);
    char *text = grid_text(&g, false);
    assert_non_null(strstr(text, "Cat ea… fi…\n"));
    assert_non_null(strstr(text, "eats   2  90   8\n"));
    int row, col;
    assert_true(heatmap_hit(&lay, lay.cells_x + 2 * 4 + 1, lay.cells_y + 1, &row, &col));
    assert_int_equal(row, 1);
    assert_int_equal(col, 2);
    assert_false(heatmap_hit(&lay, 0, 0, &row, &col));
    assert_true(grid_at(&g, lay.cells_x + 8, lay.cells_y + 1)->flags & CELL_CURSOR);
    free(text);
    char *ansi = grid_text(&g, true);
    assert_non_null(strstr(ansi, "\33[0;38;5;16;48;5;")); /* 90% cell: dark text on light */
    free(ansi);
    grid_free(&g);
}

static void test_heatmap_full_weight_numbered_in_narrow_cells(void **state)
{
    /* expect: in 3-column cells a weight of exactly 100% shows "100" (it was
     * the one blank cell), 9% and 0% keep their gap column */
    (void)state;
    const float P[2 * 3] = {1.0f, 0.0f, 0.0f, 0.09f, 0.91f, 0.0f};
    const char *const lab[3] = {"a", "b", "c"};
    Grid g;
    HeatmapLayout lay;
    grid_init(&g, 30, 6);
    HeatmapSpec sp = {P,  2, 3, lab, lab, false, HEATMAP_COLOR, -1,
                      -1, 3, 0, 0,   0,   false, false,         1.0f};
    heatmap_draw(&g, 0, 0, 30, 6, &sp, &lay);
    char *text = grid_text(&g, false);
    assert_non_null(strstr(text, "a 100 0  0\n"));
    assert_non_null(strstr(text, "b  9 91  0\n"));
    free(text);
    grid_free(&g);
}

static void test_heatmap_bars_ranked(void **state)
{
    (void)state;
    /* Seed 001's table: "it" attends trophy 85%, suitcase 10%, fit 3%,
     * because 2%, drawn in that order with their percentages. */
    const char *const labels[4] = {"fit", "because", "trophy", "suitcase"};
    const float row[4] = {0.03f, 0.02f, 0.85f, 0.10f};
    Grid g;
    grid_init(&g, 60, 6);
    assert_int_equal(heatmap_bars(&g, 0, 0, 60, 6, row, 4, labels, 4), 4);
    char *text = grid_text(&g, false);
    const char *t = strstr(text, "trophy"), *s = strstr(text, "suitcase");
    const char *f = strstr(text, "fit"), *b = strstr(text, "because");
    assert_true(t && s && f && b && t < s && s < f && f < b);
    assert_non_null(strstr(text, " 85.0%"));
    assert_non_null(strstr(text, "  2.0%"));
    free(text);
    grid_free(&g);
}

/* Unranked (a lesson's bars before the reveal): the sentence's order. */
static void test_heatmap_bars_in_order(void **state)
{
    (void)state;
    const char *const labels[4] = {"fit", "because", "trophy", "suitcase"};
    const float row[4] = {0.03f, 0.02f, 0.85f, 0.10f};
    Grid g;
    grid_init(&g, 60, 6);
    assert_int_equal(heatmap_bars_of(&g, 0, 0, 60, 6, row, 4, labels, 4, 1.0f, false), 4);
    char *text = grid_text(&g, false);
    const char *t = strstr(text, "trophy"), *s = strstr(text, "suitcase");
    const char *f = strstr(text, "fit"), *b = strstr(text, "because");
    assert_true(t && s && f && b && f < b && b < t && t < s);
    assert_non_null(strstr(text, "trophy    85.0%"));
    free(text);
    grid_free(&g);
}

/* A repeated token ("dog" twice) is told apart by its number, every label
 * numbered so that they align. */
static void test_heatmap_bars_repeated_tokens(void **state)
{
    (void)state;
    const char *const labels[4] = {"dog", "saw", "a", "dog"};
    const float row[4] = {0.09f, 0.02f, 0.83f, 0.06f};
    Grid g;
    grid_init(&g, 60, 6);
    assert_int_equal(heatmap_bars(&g, 0, 0, 60, 6, row, 4, labels, 4), 4);
    char *text = grid_text(&g, false);
    assert_non_null(strstr(text, "3 a  "));
    assert_non_null(strstr(text, "1 dog   9.0%"));
    assert_non_null(strstr(text, "4 dog   6.0%"));
    free(text);
    grid_free(&g);
}

/* Issue 35: heads summed are sums, not percentages of a 100% scale. With
 * full = 4 (four heads) a cell writes its sum ("4.3", ".37", "0"), is
 * shaded by its share of 4, the legend's ticks run 0 to 4 under "sum:",
 * and a bar writes "1.62" and ends at 4, not at 1. */
static void test_heatmap_sums_on_their_own_scale(void **state)
{
    (void)state;
    const float P[2 * 3] = {4.27f, 0.37f, 0.07f, 0.99f, 1.62f, 0.001f};
    const char *const lab[3] = {"a", "b", "c"};
    Grid g;
    HeatmapLayout lay;
    grid_init(&g, 40, 8);
    HeatmapSpec sp = {P,  2, 3, lab, lab, false, HEATMAP_COLOR, -1,
                      -1, 4, 0, 0,   0,   false, false,         4.0f};
    heatmap_draw(&g, 0, 0, 40, 3, &sp, &lay);
    assert_int_equal(heatmap_legend_of(&g, 0, 4, 40, HEATMAP_COLOR, false, 4.0f), 2);
    char *text = grid_text(&g, false);
    assert_non_null(strstr(text, "a 4.3 .37 .07\n"));
    assert_non_null(strstr(text, "b .99 1.6   0\n"));
    assert_non_null(strstr(text, "\nsum:"));
    assert_non_null(strstr(text, " .20 "));
    assert_non_null(strstr(text, " 4.0\n")); /* the ticks apart, the last whole */
    assert_null(strstr(text, "%"));
    for (int k = 0; k < 6; k++) { /* each cell's shade: its share of 4 */
        const Cell *c = grid_at(&g, lay.cells_x + (k % 3) * 4, lay.cells_y + k / 3);
        assert_int_equal(c->level, heatmap_level(P[k] / 4.0f));
    }
    free(text);
    grid_clear(&g);
    const float row[3] = {1.62f, 0.4f, 0.001f};
    assert_int_equal(heatmap_bars_of(&g, 0, 0, 40, 4, row, 3, lab, 3, 4.0f, true), 3);
    text = grid_text(&g, false);
    assert_non_null(strstr(text, "a  1.62 "));
    assert_non_null(strstr(text, "b  0.40 "));
    assert_null(strstr(text, "%"));
    free(text);
    /* the bar of 1.62 of 4 is 40% of the bar's width: 40 - 2 - 9 = 29
     * columns, so 11 full blocks and part of a 12th, not all 29 */
    int full_blocks = 0;
    for (int x = 0; x < 40; x++)
        full_blocks += grid_at(&g, x, 0)->cp == 0x2588;
    assert_int_equal(full_blocks, 11);
    grid_free(&g);
}

static void test_grid_wide_chars_and_ellipsis(void **state)
{
    (void)state;
    /* A CJK character takes two columns; a long text ends in an ellipsis. */
    Grid g;
    grid_init(&g, 10, 2);
    assert_int_equal(grid_puts(&g, 0, 0, "猫が", 10, STYLE_TEXT), 4);
    assert_int_equal(grid_at(&g, 1, 0)->cp, 0);
    assert_int_equal(grid_puts(&g, 0, 1, "because", 4, STYLE_TEXT), 4);
    char *text = grid_text(&g, false);
    assert_string_equal(text, "猫が\nbec…\n");
    free(text);
    grid_free(&g);
}

int main(void)
{
    test_utf8_locale();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heatmap_levels_and_glyphs),
        cmocka_unit_test(test_heatmap_level_out_of_range),
        cmocka_unit_test(test_heatmap_levels_match_level),
        cmocka_unit_test(test_grid_first_fit),
        cmocka_unit_test(test_grid_flag_rect_clipped),
        cmocka_unit_test(test_grid_flag_rect_keeps_cells),
        cmocka_unit_test(test_heatmap_golden_glyph_grid),
        cmocka_unit_test(test_heatmap_causal_cells_marked),
        cmocka_unit_test(test_heatmap_masked_clear_of_100),
        cmocka_unit_test(test_heatmap_color_numbers_and_hit),
        cmocka_unit_test(test_heatmap_full_weight_numbered_in_narrow_cells),
        cmocka_unit_test(test_heatmap_bars_ranked),
        cmocka_unit_test(test_heatmap_bars_in_order),
        cmocka_unit_test(test_heatmap_bars_repeated_tokens),
        cmocka_unit_test(test_heatmap_sums_on_their_own_scale),
        cmocka_unit_test(test_grid_wide_chars_and_ellipsis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
