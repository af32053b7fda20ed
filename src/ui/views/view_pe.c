/* view_pe.c - the positional-encoding view: the PE matrix (positions x
 * dimensions, the sentence's positions marked) on the left; on the right the
 * chosen dimensions plotted against position and the cosine similarity of
 * the sentence's positions. The drawing is plot.c's; this file lays it out.
 */
#include "view_pe.h"

#include <stdio.h>

#include "core/posenc.h"
#include "../term.h"
#include "../widgets.h"

/* Lines the line plots need to show two dimensions (a title and a row of
 * dots each) and the position axis. */
#define PE_LINES_MIN 6

static void diverge_legend(const UiState *u, Grid *g, int x, int y, int w)
{
    if (u->depth == DEPTH_MONO) {
        grid_puts(g, x, y, "= <-0.6  - <-0.2  \u00b7 near 0  + >0.2  # >0.6", w, STYLE_DIM);
        return;
    }
    int used = grid_puts(g, x, y, "-1 ", w, STYLE_DIM);
    for (int k = 0; k < GRID_LEVELS && used < w - 3; k++)
        used += grid_put(g, x + used, y, ' ', STYLE_DIVERGE, k);
    grid_puts(g, x + used, y, " +1", w - used, STYLE_DIM);
}

/* PE for max(n, UI_PE_POSITIONS) positions and the n x n similarity, in
 * buffers that grow only when needed. Returns the positions. */
static int pe_compute(UiState *u, int n, int d)
{
    int P = n > UI_PE_POSITIONS ? n : UI_PE_POSITIONS;
    size_t need = (size_t)P * d, need_sim = (size_t)n * n;
    if (need > u->pe_cap)
        u->PE = term_xrealloc(u->PE, need * sizeof *u->PE), u->pe_cap = need;
    if (need_sim > u->sim_cap)
        u->sim = term_xrealloc(u->sim, need_sim * sizeof *u->sim), u->sim_cap = need_sim;
    posenc_fill(0, P, d, u->PE);
    posenc_similarity(u->PE, n, d, u->sim);
    return P;
}

static void draw_matrix(UiState *u, Grid *g, Rect r, int P, int d)
{
    const AppState *s = &u->a.app;
    grid_puts(g, r.x, r.y, "PE matrix: row k = token k (pos k-1)", r.w, STYLE_TITLE);
    diverge_legend(u, g, r.x, r.y + 1, r.w);
    PlotMatrixSpec sp = {
        .M = u->PE,
        .n_rows = P,
        .n_cols = d,
        .range = 1.0f,
        .row_labels = u->labels_q,
        .n_labeled = s->n_q,
        .sel_row = s->sel_row,
        .glyphs = u->depth == DEPTH_MONO,
    };
    int rows = r.h - 3;
    if (s->sel_row >= 0 && s->sel_row < u->pe_first)
        u->pe_first = s->sel_row;
    if (s->sel_row >= u->pe_first + rows)
        u->pe_first = s->sel_row - rows + 1;
    u->pe_first = u->pe_first > P - rows ? P - rows : u->pe_first;
    u->pe_first = u->pe_first < 0 ? 0 : u->pe_first;
    sp.first_row = u->pe_first;
    plot_matrix(g, r.x, r.y + 2, r.w, rows + 1, &sp, &u->lay.pe);
    u->lay.have_pe = true;
}

static void draw_similarity(UiState *u, Grid *g, Rect r)
{
    const AppState *s = &u->a.app;
    int n = s->n_q;
    static const char *const title[] = {"Similarity of the tokens' positions: cos(PE(i), PE(j))",
                                        "Positions' similarity: cos(PE(i), PE(j))",
                                        "cos(PE(i), PE(j))"};
    grid_puts(g, r.x, r.y, title[widget_fit(title, 3, r.w)], r.w, STYLE_TITLE);
    int cw = (r.w - 16) / (n > 0 ? n : 1);
    cw = cw > 6 ? 6 : cw < 1 ? 1 : cw;
    PlotMatrixSpec sp = {
        .M = u->sim,
        .n_rows = n,
        .n_cols = n,
        .range = 1.0f,
        .row_labels = u->labels_q,
        .n_labeled = n,
        .col_labels = cw >= 3 ? u->labels_q : NULL,
        .sel_row = s->sel_row,
        .cell_w = cw,
        .glyphs = u->depth == DEPTH_MONO,
        .values = true,
    };
    int rows = r.h - 2; /* under the title and plot_matrix's row of column ticks */
    sp.first_row = s->sel_row >= rows ? s->sel_row - rows + 1 : 0;
    plot_matrix(g, r.x, r.y + 1, r.w, r.h - 1, &sp, &u->lay.sim);
    u->lay.have_sim = true;
}

void view_pe_draw(UiState *u, Grid *g, Rect r)
{
    const AppState *s = &u->a.app;
    int d = s->cfg.d_model, n = s->n_q;
    int P = pe_compute(u, n, d);
    int left_w = 1 + 3 + 11 + 1 + d + 2;
    left_w = left_w > r.w / 2 ? r.w / 2 : left_w;
    Rect left = {r.x, r.y, left_w - 1, r.h};
    Rect right = {r.x + left_w, r.y, r.w - left_w, r.h};
    draw_matrix(u, g, left, P, d);
    u->report.page = r.h > 8 ? r.h / 2 : 1;
    if (!s->cfg.pe)
        grid_puts(g, right.x, right.y, "PE is off (p): the model cannot tell word order", right.w,
                  STYLE_ACCENT);
    int a = s->pe_dim - s->pe_dim % 2, c = (a + d / 2) % d;
    c -= c % 2;
    int dims[4] = {a, a + 1, c, c + 1};
    int n_dims = d >= 4 && c != a ? 4 : 2;
    /* a lesson page that speaks of the similarity (plot: similarity) has it
     * whole where it fits, the line plots above it only with room for two
     * dimensions; otherwise the similarity is whole where the line plots
     * keep room for two dimensions, else takes half, and goes on a screen
     * too short for both (a lesson page below) */
    const LessonPage *lp = u->a.lesson.active ? lesson_state_page(&u->a.lesson) : NULL;
    bool want_sim = lp && lp->set.pe_similarity;
    bool whole = n + 2 < r.h / 2 || n + 2 <= r.h - 2 - PE_LINES_MIN || (want_sim && n + 2 < r.h);
    int sim_h = whole ? n + 2 : want_sim ? r.h : r.h / 2;
    int lines_h = r.h - 1 - sim_h - 1;
    if (n > 0 && lines_h < PE_LINES_MIN)
        lines_h = want_sim ? 0 : r.h - 2, sim_h = want_sim ? r.h : 0;
    if (lines_h > 0) {
        static const char *const title[] = {"PE(pos, dim) against position ([ ] other dims)",
                                            "PE(pos, dim) over position ([ ]: dims)",
                                            "PE(pos, dim) against position"};
        grid_puts(g, right.x, right.y + 1, title[widget_fit(title, 3, right.w)], right.w,
                  STYLE_TITLE);
        plot_pe_lines(g, right.x, right.y + 2, right.w, lines_h, u->PE, P, d, dims, n_dims, n,
                      s->sel_row);
    }
    if (n > 0 && sim_h > 0)
        draw_similarity(u, g, (Rect){right.x, r.y + r.h - sim_h, right.w, sim_h});
}
