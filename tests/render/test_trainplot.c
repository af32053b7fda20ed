/* test_trainplot.c - the live training view's figures in a Grid: where steps
 * and values land in Braille dots, joined lines, merged cells, the threshold,
 * the marks and their steps on the axis, names at the lines' ends; the head
 * tiles' layout choice and their cells (full heatmaps and half blocks). */
#include "test_common.h"

#include <string.h>

#include "render/grid.h"
#include "render/heatmap.h"
#include "render/plot.h"
#include "render/trainplot.h"

static bool braille(const Cell *c)
{
    return c && c->cp >= 0x2800u && c->cp <= 0x28FFu;
}

/* Whether dot (dx, dy) of the plot area is set. */
static bool dot_set(Grid *g, const TrainPlotLayout *l, int dx, int dy)
{
    Cell *c = grid_at(g, l->dots_x + dx / 2, l->dots_y + dy / 4);
    return braille(c) && ((c->cp - 0x2800u) & plot_braille_bit(dx % 2, dy % 4));
}

static void row_text(Grid *g, int y, char *buf, size_t cap)
{
    size_t len = 0;
    for (int x = 0; x < g->w && len + 5 < cap; x++) {
        Cell *c = grid_at(g, x, y);
        if (c->cp == 0)
            continue;
        char tmp[8];
        unsigned cp = c->cp;
        int k = 0;
        if (cp < 0x80)
            tmp[k++] = (char)cp;
        else if (cp < 0x800)
            tmp[k++] = (char)(0xC0 | cp >> 6), tmp[k++] = (char)(0x80 | (cp & 0x3F));
        else
            tmp[k++] = (char)(0xE0 | cp >> 12), tmp[k++] = (char)(0x80 | ((cp >> 6) & 0x3F)),
            tmp[k++] = (char)(0x80 | (cp & 0x3F));
        memcpy(buf + len, tmp, (size_t)k);
        len += (size_t)k;
    }
    while (len > 0 && buf[len - 1] == ' ')
        len--;
    buf[len] = '\0';
}

static const long STEPS[5] = {0, 100, 200, 300, 400};

static void test_trainplot_dots_map_steps_and_values(void **state)
{
    (void)state;
    TrainPlotSpec sp = {.x = STEPS, .n = 5, .x_max = 400, .y_min = 0.0f, .y_max = 1.0f};
    TrainPlotLayout l = {10, 1, 40, 5};
    /* 80 dot columns, 20 dot rows */
    assert_int_equal(trainplot_dot_x(&sp, &l, 0), 0);
    assert_int_equal(trainplot_dot_x(&sp, &l, 400), 79);
    assert_int_equal(trainplot_dot_x(&sp, &l, 200), 40); /* 39.5 rounds away from zero */
    assert_int_equal(trainplot_dot_x(&sp, &l, 9999), 79);
    assert_int_equal(trainplot_dot_y(&sp, &l, 1.0f), 0);
    assert_int_equal(trainplot_dot_y(&sp, &l, 0.0f), 19);
    assert_int_equal(trainplot_dot_y(&sp, &l, 0.5f), 10);
    assert_int_equal(trainplot_dot_y(&sp, &l, -3.0f), 19);
    assert_int_equal(trainplot_dot_y(&sp, &l, NAN), 19);
}

static void test_trainplot_constant_line_is_one_unbroken_row(void **state)
{
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 50, 8), 0);
    const float y[5] = {0.25f, 0.25f, 0.25f, 0.25f, 0.25f};
    TrainSeries s = {.y = y, .stride = 1, .style = STYLE_BAR, .level = 9};
    TrainPlotSpec sp = {.title = "loss",
                        .x = STEPS,
                        .n = 5,
                        .x_max = 400,
                        .y_min = 0,
                        .y_max = 1,
                        .series = &s,
                        .n_series = 1};
    TrainPlotLayout l;
    assert_int_equal(trainplot_lines(&g, 0, 0, 50, 8, &sp, &l), 8);
    assert_int_equal(l.dots_x, TRAINPLOT_AXIS_W);
    assert_int_equal(l.dots_y, 1);
    assert_int_equal(l.rows, 7);
    int want = trainplot_dot_y(&sp, &l, 0.25f);
    for (int dx = 0; dx < 2 * l.cols; dx++)
        for (int dy = 0; dy < 4 * l.rows; dy++)
            assert_int_equal(dot_set(&g, &l, dx, dy), dy == want);
    Cell *c = grid_at(&g, l.dots_x, l.dots_y + want / 4);
    assert_int_equal(c->style, STYLE_BAR);
    assert_int_equal(c->level, 9);
    /* the title and the value labels: 1 at the top, 0 at the bottom */
    char buf[256];
    row_text(&g, 0, buf, sizeof buf);
    assert_string_equal(buf, "loss");
    row_text(&g, 1, buf, sizeof buf);
    assert_int_equal(strncmp(buf, " 1.0", 4), 0);
    row_text(&g, 7, buf, sizeof buf);
    assert_int_equal(strncmp(buf, "   0", 4), 0);
    grid_free(&g);
}

static void test_trainplot_steep_fall_stays_joined(void **state)
{
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 30, 6), 0);
    const long x[2] = {0, 10};
    const float y[2] = {1.0f, 0.0f};
    TrainSeries s = {.y = y, .stride = 1, .style = STYLE_TEXT};
    TrainPlotSpec sp = {
        .x = x, .n = 2, .x_max = 400, .y_min = 0, .y_max = 1, .series = &s, .n_series = 1};
    TrainPlotLayout l;
    trainplot_lines(&g, 0, 0, 30, 6, &sp, &l);
    /* 24 dot rows crossed within the first dot columns: every row has a dot */
    for (int dy = 0; dy < 4 * l.rows; dy++) {
        bool any = false;
        for (int dx = 0; dx < 2 * l.cols; dx++)
            any = any || dot_set(&g, &l, dx, dy);
        assert_true(any);
    }
    /* and nothing past the last sample's column */
    int last = trainplot_dot_x(&sp, &l, 10);
    for (int dx = last + 1; dx < 2 * l.cols; dx++)
        for (int dy = 0; dy < 4 * l.rows; dy++)
            assert_false(dot_set(&g, &l, dx, dy));
    grid_free(&g);
}

static void test_trainplot_lines_in_one_cell_merge(void **state)
{
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 30, 4), 0);
    const float a[5] = {0, 0, 0, 0, 0}, b[5] = {1, 1, 1, 1, 1};
    TrainSeries s[2] = {{.y = a, .stride = 1, .style = STYLE_DIM},
                        {.y = b, .stride = 1, .style = STYLE_ACCENT}};
    /* one cell row: value 0 is dot row 3, value 1 dot row 0, in the same cells */
    TrainPlotSpec sp = {
        .x = STEPS, .n = 5, .x_max = 400, .y_min = 0, .y_max = 1, .series = s, .n_series = 2};
    TrainPlotLayout l;
    trainplot_lines(&g, 0, 0, 30, 1, &sp, &l);
    assert_int_equal(l.rows, 1);
    for (int dx = 0; dx < 2 * l.cols; dx++) {
        assert_true(dot_set(&g, &l, dx, 0));
        assert_true(dot_set(&g, &l, dx, 3));
        assert_false(dot_set(&g, &l, dx, 1));
    }
    /* the line drawn last gives the style */
    assert_int_equal(grid_at(&g, l.dots_x, 0)->style, STYLE_ACCENT);
    grid_free(&g);
}

static void test_trainplot_threshold_marks_axis_and_names(void **state)
{
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 60, 10), 0);
    const float y[5] = {0.1f, 0.2f, 0.3f, 0.6f, 0.8f};
    TrainSeries s = {.y = y, .stride = 1, .style = STYLE_BAR, .level = 12, .name = "L2H1"};
    TrainMark m = {.step = 300, .y = 0.6f};
    TrainPlotSpec sp = {.title = "induction",
                        .x = STEPS,
                        .n = 5,
                        .x_max = 400,
                        .y_min = 0,
                        .y_max = 1,
                        .threshold_on = true,
                        .threshold = 0.5f,
                        .series = &s,
                        .n_series = 1,
                        .marks = &m,
                        .n_marks = 1,
                        .x_axis = true};
    TrainPlotLayout l;
    assert_int_equal(trainplot_lines(&g, 0, 0, 60, 10, &sp, &l), 10);
    assert_int_equal(l.rows, 8);
    /* the mark: ◆ in the cell of (300, 0.6) */
    int cx = trainplot_dot_x(&sp, &l, 300) / 2, cy = trainplot_dot_y(&sp, &l, 0.6f) / 4;
    Cell *c = grid_at(&g, l.dots_x + cx, l.dots_y + cy);
    assert_int_equal(c->cp, TRAINPLOT_MARK);
    assert_int_equal(c->style, STYLE_ACCENT);
    /* the axis: 0, ▲300 under the mark, 400 at the right end */
    int ay = l.dots_y + l.rows;
    assert_int_equal(grid_at(&g, l.dots_x, ay)->cp, '0');
    assert_int_equal(grid_at(&g, l.dots_x + cx, ay)->cp, TRAINPLOT_TICK);
    assert_int_equal(grid_at(&g, l.dots_x + cx + 1, ay)->cp, '3');
    char buf[256];
    row_text(&g, ay, buf, sizeof buf);
    assert_non_null(strstr(buf, "\xe2\x96\xb2"
                                "300"));
    assert_non_null(strstr(buf, "400"));
    /* the threshold: dashed dim dots on its dot row, "0.5" beside it */
    int ty = trainplot_dot_y(&sp, &l, 0.5f);
    assert_true(dot_set(&g, &l, 0, ty));
    assert_false(dot_set(&g, &l, 1, ty));
    assert_true(dot_set(&g, &l, 3, ty));
    row_text(&g, l.dots_y + ty / 4, buf, sizeof buf);
    assert_int_equal(strncmp(buf, " 0.5", 4), 0);
    /* the name at the right, on the last value's row, in the line's colour */
    int ny = l.dots_y + trainplot_dot_y(&sp, &l, 0.8f) / 4;
    row_text(&g, ny, buf, sizeof buf);
    assert_non_null(strstr(buf, "L2H1"));
    Cell *n0 = grid_at(&g, l.dots_x + l.cols + 1, ny);
    assert_int_equal(n0->cp, 'L');
    assert_int_equal(n0->level, 12);
    grid_free(&g);
}

/* Whether word (one run of the axis row's non-blanks) is a label of sp's
 * axis: "0", x_max, or a mark's ▲ with or without its step. */
static bool axis_word(const char *word, const TrainPlotSpec *sp)
{
    char want[32];
    if (!strcmp(word, "0") || !strcmp(word, "\xe2\x96\xb2"))
        return true;
    snprintf(want, sizeof want, "%ld", sp->x_max);
    if (!strcmp(word, want))
        return true;
    for (int k = 0; k < sp->n_marks; k++) {
        snprintf(want, sizeof want, "\xe2\x96\xb2%ld", sp->marks[k].step);
        if (!strcmp(word, want))
            return true;
    }
    return false;
}

/* The step axis of a run trained on past its 400 steps (the live view's
 * loss, heads passing 0.5 at steps 221, 259 and 1128), at every width of
 * the loss plot from 20 to 90 columns: the labels are words apart, none
 * runs into a ▲ or another label ("0▲1128", "▲4510" were seen), and the
 * first mark's ▲ is always there. */
static void test_trainplot_axis_labels_apart(void **state)
{
    (void)state;
    static const long ends[] = {400, 686, 1117, 2104, 2288, 3132, 4510, 45108, 433042};
    const long x[2] = {0, 400};
    const float y[2] = {4.0f, 0.1f};
    TrainSeries s = {.y = y, .stride = 1, .style = STYLE_TEXT};
    TrainMark m[3] = {{221, 1.0f}, {259, 0.8f}, {1128, 0.1f}};
    for (int w = 20; w <= 90; w++)
        for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++) {
            Grid g;
            assert_int_equal(grid_init(&g, w, 6), 0);
            TrainPlotSpec sp = {.x = x,
                                .n = 2,
                                .x_max = ends[e],
                                .y_min = 0,
                                .y_max = 4,
                                .series = &s,
                                .n_series = 1,
                                .marks = m,
                                .n_marks = ends[e] >= 1128 ? 3 : 2,
                                .x_axis = true};
            TrainPlotLayout l;
            assert_int_equal(trainplot_lines(&g, 0, 0, w, 6, &sp, &l), 6);
            char buf[512];
            row_text(&g, l.dots_y + l.rows, buf, sizeof buf);
            for (char *save = NULL, *word = strtok_r(buf, " ", &save); word;
                 word = strtok_r(NULL, " ", &save))
                if (!axis_word(word, &sp))
                    fail_msg("width %d, x_max %ld: \"%s\" on the axis", w, ends[e], word);
            int cx = l.dots_x + trainplot_dot_x(&sp, &l, m[0].step) / 2;
            assert_int_equal(grid_at(&g, cx, l.dots_y + l.rows)->cp, TRAINPLOT_TICK);
            grid_free(&g);
        }
}

/* The text of row y of g from column x on (ASCII; '?' for other code
 * points), trailing spaces dropped. */
static void text_from(Grid *g, int x, int y, char *buf, size_t cap)
{
    size_t len = 0;
    for (; x < g->w && len + 1 < cap; x++) {
        unsigned cp = grid_at(g, x, y)->cp;
        buf[len++] = cp && cp < 0x80 ? (char)cp : '?';
    }
    while (len > 0 && buf[len - 1] == ' ')
        len--;
    buf[len] = '\0';
}

static void test_trainplot_names_highest_first(void **state)
{
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 40, 2), 0);
    /* three lines ending on the same row of a 2-row plot: the highest
     * keeps the row, the next moves to the other, the last shares the row
     * nearest its line (names in series order): every line is named */
    const float a[1] = {0.1f}, b[1] = {0.3f}, c[1] = {0.2f};
    const long x[1] = {0};
    TrainSeries s[3] = {{.y = a, .stride = 1, .name = "A"},
                        {.y = b, .stride = 1, .name = "B"},
                        {.y = c, .stride = 1, .name = "C"}};
    TrainPlotSpec sp = {
        .x = x, .n = 1, .x_max = 10, .y_min = 0, .y_max = 1, .series = s, .n_series = 3};
    TrainPlotLayout l;
    char buf[256];
    trainplot_lines(&g, 0, 0, 40, 2, &sp, &l);
    int nx = l.dots_x + l.cols + 1;
    assert_int_equal(trainplot_dot_y(&sp, &l, 0.3f) / 4, 1);
    text_from(&g, nx, 1, buf, sizeof buf);
    assert_string_equal(buf, "A B");
    text_from(&g, nx, 0, buf, sizeof buf);
    assert_string_equal(buf, "C");
    grid_free(&g);
}

/* Eight heads on a 3-row strip (the copy task at 80x24): every head named,
 * three a row at most, heads of one layer merged where the row's names do
 * not fit whole ("L1H1,2 L2H1"), each piece in its head's colour. */
static void test_trainplot_names_shared_rows(void **state)
{
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 34, 3), 0);
    float y[8];
    TrainSeries s[8];
    char names[8][16]; /* room for any two ints, as -O1 cannot tell k < 8 */
    const long x[1] = {0};
    for (int k = 0; k < 8; k++) {
        y[k] = 0.01f * (float)k; /* all near 0: every line ends on the bottom row */
        snprintf(names[k], sizeof names[k], "L%dH%d", k / 4 + 1, k % 4 + 1);
        s[k] = (TrainSeries){
            .y = &y[k], .stride = 1, .style = STYLE_BAR, .level = k + 1, .name = names[k]};
    }
    TrainPlotSpec sp = {
        .x = x, .n = 1, .x_max = 10, .y_min = 0, .y_max = 1, .series = s, .n_series = 8};
    TrainPlotLayout l;
    trainplot_lines(&g, 0, 0, 34, 3, &sp, &l);
    int nx = l.dots_x + l.cols + 1, heads[8] = {0};
    char buf[256];
    for (int r = 0; r < 3; r++) {
        text_from(&g, nx, r, buf, sizeof buf);
        assert_true(buf[0] == 'L');
        assert_null(strchr(buf, '?')); /* never cut: no ellipsis */
        const char *t = buf;
        int layer = 0;
        for (; *t; t++) { /* "L1H1,2 L2H1": each digit after H or ',' a head of its layer */
            if (*t == 'L')
                layer = t[1] - '0';
            if ((*t == 'H' || *t == ',') && t[1] >= '1' && t[1] <= '4')
                heads[(layer - 1) * 4 + t[1] - '1']++;
        }
    }
    for (int k = 0; k < 8; k++)
        assert_int_equal(heads[k], 1);
    text_from(&g, nx, 2, buf, sizeof buf);
    assert_non_null(strchr(buf, ',')); /* the bottom row merged */
    /* the digit of a merged head in that head's colour */
    for (int xx = nx; xx < g.w; xx++) {
        Cell *c = grid_at(&g, xx, 2);
        if (c->cp == ',') { /* ",2": not the colour of the head before it */
            assert_int_equal(grid_at(&g, xx + 1, 2)->level, c->level);
            assert_int_not_equal(grid_at(&g, xx - 1, 2)->level, c->level);
        }
    }
    grid_free(&g);
}

static void test_trainplot_too_small_draws_nothing(void **state)
{
    (void)state;
    Grid g;
    assert_int_equal(grid_init(&g, 8, 3), 0);
    const float y[5] = {0};
    TrainSeries s = {.y = y, .stride = 1};
    TrainPlotSpec sp = {.title = "t",
                        .x = STEPS,
                        .n = 5,
                        .x_max = 400,
                        .y_max = 1,
                        .series = &s,
                        .n_series = 1,
                        .x_axis = true};
    assert_int_equal(trainplot_lines(&g, 0, 0, 8, 2, &sp, NULL), 0);
    for (int k = 0; k < 8 * 3; k++)
        assert_int_equal(g.cells[k].cp, ' ');
    grid_free(&g);
}

static const char *const LABELS[24] = {"a", "b", "c", "d", "e", "f", "a", "b", "c", "d", "e", "f",
                                       "a", "b", "c", "d", "e", "f", "a", "b", "c", "d", "e", "f"};
static const char *const TITLES[4] = {"L1H1 prev 0.91", "L1H2 mixed", "L2H1 induction 0.62",
                                      "L2H2 mixed"};

static void test_trainplot_heads_layout_choice(void **state)
{
    (void)state;
    TrainHeadsSpec sp = {.L = 2,
                         .H = 2,
                         .n = 24,
                         .labels = LABELS,
                         .titles = TITLES,
                         .mode = HEATMAP_COLOR,
                         .half_ok = true};
    TrainHeadsLayout l;
    /* 36 x 21: half blocks show 16 tokens (full tiles: 8) */
    assert_true(trainplot_heads_fit(36, 21, &sp, &l));
    assert_true(l.half);
    assert_int_equal(l.tokens, 16);
    assert_true(l.w <= 36 && l.h <= 21);
    /* monochrome: full tiles of 1 column, 8 tokens */
    sp.mode = HEATMAP_GLYPH;
    assert_true(trainplot_heads_fit(36, 21, &sp, &l));
    assert_false(l.half);
    assert_int_equal(l.tokens, 8);
    assert_int_equal(l.cell_w, 1);
    /* room for everything: full tiles of 2 columns, all 24 tokens */
    assert_true(trainplot_heads_fit(120, 60, &sp, &l));
    assert_int_equal(l.tokens, 24);
    assert_int_equal(l.cell_w, 2);
    assert_int_equal(l.w, 2 * (2 + 48 + 1) - 1);
    assert_int_equal(l.h, 2 * (24 + 3) - 1);
    /* not even 4 tokens: no layout */
    assert_false(trainplot_heads_fit(12, 8, &sp, &l));
}

/* Weights of a previous-token head: row i on key i-1 (row 0 on itself). */
static void prev_token_P(float *P, int n)
{
    memset(P, 0, (size_t)n * n * sizeof *P);
    for (int i = 0; i < n; i++)
        P[i * n + (i ? i - 1 : 0)] = 1.0f;
}

static void test_trainplot_heads_full_tiles(void **state)
{
    (void)state;
    enum { N = 6 };
    float P[2 * N * N];
    prev_token_P(P, N);
    prev_token_P(P + N * N, N);
    const bool hot[2] = {true, false};
    TrainHeadsSpec sp = {.P = P,
                         .L = 1,
                         .H = 2,
                         .n = N,
                         .labels = LABELS,
                         .titles = TITLES,
                         .hot = hot,
                         .mode = HEATMAP_GLYPH};
    TrainHeadsLayout l;
    Grid g;
    assert_int_equal(grid_init(&g, 40, 12), 0);
    assert_true(trainplot_heads_fit(40, 12, &sp, &l));
    assert_int_equal(l.tokens, 6);
    assert_int_equal(l.cell_w, 2);
    assert_int_equal(trainplot_heads(&g, 0, 0, &sp, &l), l.h);
    char buf[256];
    /* titles, the passed head's accented */
    row_text(&g, 0, buf, sizeof buf);
    assert_non_null(strstr(buf, "L1H1 prev 0.91"));
    assert_int_equal(grid_at(&g, 0, 0)->style, STYLE_ACCENT);
    assert_int_equal(grid_at(&g, l.tile_w, 0)->style, STYLE_TITLE);
    /* row 3 (token d) at y 5: label, then cells of 2 columns from x 2:
     * '·' on a, '█' on c (the previous token), '╳' after d */
    row_text(&g, 5, buf, sizeof buf);
    assert_int_equal(buf[0], 'd');
    assert_int_equal(grid_at(&g, 2, 5)->cp, 0x00B7u);
    assert_int_equal(grid_at(&g, 6, 5)->cp, 0x2588u);
    assert_int_equal(grid_at(&g, 7, 5)->cp, 0x2588u);
    assert_int_equal(grid_at(&g, 8, 5)->cp, 0x00B7u);
    bool masked = grid_at(&g, 10, 5)->cp == HEATMAP_MASKED_GLYPH ||
                  grid_at(&g, 11, 5)->cp == HEATMAP_MASKED_GLYPH;
    assert_true(masked);
    /* the second tile's row d is the same, one tile to the right */
    assert_int_equal(grid_at(&g, l.tile_w + 6, 5)->cp, 0x2588u);
    grid_free(&g);
}

static void test_trainplot_heads_half_blocks(void **state)
{
    (void)state;
    enum { N = 5 };
    float P[N * N];
    prev_token_P(P, N);
    TrainHeadsSpec sp = {.P = P,
                         .L = 1,
                         .H = 1,
                         .n = N,
                         .labels = LABELS,
                         .titles = TITLES,
                         .mode = HEATMAP_COLOR,
                         .half_ok = true};
    /* force the half blocks: tight height */
    TrainHeadsLayout l;
    Grid g;
    assert_int_equal(grid_init(&g, 12, 6), 0);
    assert_true(trainplot_heads_fit(12, 5, &sp, &l));
    assert_true(l.half);
    assert_int_equal(l.tokens, 5);
    trainplot_heads(&g, 0, 0, &sp, &l);
    assert_int_equal(grid_at(&g, 0, 1)->cp, 'a');
    /* line 0: rows 0 and 1; row 0 on key 0 (full), row 1 on key 0 (full) */
    Cell *c = grid_at(&g, 0, 2);
    assert_true(c->flags & GRID_CELL_HALF);
    assert_int_equal(grid_half_up(c->level), heatmap_level(1.0f));
    assert_int_equal(grid_half_lo(c->level), heatmap_level(1.0f));
    /* key 1: masked for row 0, weight 0 for row 1 */
    c = grid_at(&g, 1, 2);
    assert_true(c->flags & GRID_CELL_UP_MASKED);
    assert_false(c->flags & GRID_CELL_LO_MASKED);
    assert_int_equal(grid_half_lo(c->level), 0);
    /* line 2: row 4 above, nothing below (5 tokens) */
    c = grid_at(&g, 3, 4);
    assert_int_equal(grid_half_up(c->level), heatmap_level(1.0f));
    assert_true(c->flags & GRID_CELL_LO_MASKED);
    grid_free(&g);
}

/* The induction stripe: with a guide (row i >= 3 on key i - 2, as on a probe
 * repeating 3 tokens), full tiles show every token, the guided cells carry
 * the guide glyph in their last column (glyphs: the first keeps the shade),
 * a row under the heatmap holds each row's weight on its guide key in that
 * key's column, and the head's score follows it as "╲.87". */
static void test_trainplot_heads_induction_stripe(void **state)
{
    (void)state;
    enum { N = 6 };
    float P[N * N] = {0};
    int guide[N];
    for (int i = 0; i < N; i++) {
        guide[i] = i >= 3 ? i - 2 : -1;
        P[i * N + (guide[i] >= 0 ? guide[i] : 0)] = 1.0f; /* an induction head */
    }
    const float score[1] = {0.874f};
    TrainHeadsSpec sp = {.P = P,
                         .L = 1,
                         .H = 1,
                         .n = N,
                         .labels = LABELS,
                         .titles = TITLES,
                         .mode = HEATMAP_GLYPH,
                         .guide = guide,
                         .score = score};
    TrainHeadsLayout l;
    Grid g;
    assert_int_equal(grid_init(&g, 40, 14), 0);
    assert_true(trainplot_heads_fit(40, 14, &sp, &l));
    assert_false(l.half);
    assert_int_equal(l.tokens, N);
    assert_int_equal(l.cell_w, 2);
    assert_int_equal(l.tile_h, 2 + N + 1 + 1); /* title, labels, rows, stripe, gap */
    trainplot_heads(&g, 0, 0, &sp, &l);
    /* rows at y 2 + i, cells of 2 columns from x 2 */
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++) {
            Cell *first = grid_at(&g, 2 + 2 * j, 2 + i), *last = grid_at(&g, 3 + 2 * j, 2 + i);
            bool guided = guide[i] == j;
            assert_int_equal(last->cp, guided ? TRAINPLOT_GUIDE : first->cp);
            assert_int_equal(first->cp, heatmap_glyph(heatmap_glyph_index(P[i * N + j])));
        }
    /* the stripe's row at y 2 + N: '╲', then full shades under keys 1..3 */
    int y = 2 + N;
    assert_int_equal(grid_at(&g, 0, y)->cp, TRAINPLOT_GUIDE);
    assert_int_equal(grid_at(&g, 2, y)->cp, ' '); /* key 0: no row's guide */
    for (int j = 1; j <= 3; j++)
        assert_int_equal(grid_at(&g, 2 + 2 * j, y)->cp, 0x2588u);
    assert_int_equal(grid_at(&g, 2 + 2 * 4, y)->cp, ' ');
    char buf[256];
    row_text(&g, y, buf, sizeof buf);
    assert_non_null(strstr(buf, " \xe2\x95\xb2.87"));
    /* without a guide the same tile has no stripe row */
    sp.guide = NULL;
    assert_true(trainplot_heads_fit(40, 14, &sp, &l));
    assert_int_equal(l.tile_h, 2 + N + 1);
    grid_free(&g);
}

int main(void)
{
    test_utf8_locale();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trainplot_dots_map_steps_and_values),
        cmocka_unit_test(test_trainplot_constant_line_is_one_unbroken_row),
        cmocka_unit_test(test_trainplot_steep_fall_stays_joined),
        cmocka_unit_test(test_trainplot_lines_in_one_cell_merge),
        cmocka_unit_test(test_trainplot_threshold_marks_axis_and_names),
        cmocka_unit_test(test_trainplot_axis_labels_apart),
        cmocka_unit_test(test_trainplot_names_highest_first),
        cmocka_unit_test(test_trainplot_names_shared_rows),
        cmocka_unit_test(test_trainplot_too_small_draws_nothing),
        cmocka_unit_test(test_trainplot_heads_layout_choice),
        cmocka_unit_test(test_trainplot_heads_full_tiles),
        cmocka_unit_test(test_trainplot_heads_half_blocks),
        cmocka_unit_test(test_trainplot_heads_induction_stripe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
