/* action.c - what each Action does to the interface's state: the key
 * table's actions (selection, the head and layer shown, views, panels,
 * zoom, the editor's keys), dispatched by one table, whose rows for the
 * model's settings and the examples call setting.c. Each returns the APP_*
 * flags saying what the caller must redo (run the model, rebuild weights,
 * export, quit). Nothing here draws, prints or runs the model.
 */
#include "app/action.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/setting.h"

/* ---- actions --------------------------------------------------------- */

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Actions that only ask something of the caller: arg is the APP_* flags. */
static unsigned act_flags(AppState *s, int arg)
{
    (void)s;
    return (unsigned)arg;
}

static unsigned act_help(AppState *s, int arg)
{
    (void)arg;
    s->help = !s->help, s->help_refused = false;
    return 0;
}

/* arg: the field, 0 the sentence, 1 the second sentence (cross-attention). */
static unsigned act_edit(AppState *s, int arg)
{
    app_drop_msg(s); /* the editor's keys on the status line, not a line of before */
    if (arg == 1 && !s->cross_on) {
        s->cross_on = true;
        app_msg(s, "cross-attention on: keys and values from the second sentence");
    }
    s->mode = MODE_EDIT;
    s->field = arg == 1 ? 1 : 0;
    s->help = false;
    return arg == 1 ? APP_RUN : 0;
}

static unsigned act_edit_done(AppState *s, int arg)
{
    (void)arg;
    s->mode = MODE_BROWSE;
    return 0;
}

/* One level back, never out of the program: help, a panel, the editor,
 * side by side, the PE view, M's rows summed, cross-attention, in that
 * order. */
static unsigned act_escape(AppState *s, int arg)
{
    (void)arg;
    if (s->help) {
        s->help = false;
    } else if (s->panel != PANEL_NONE) { /* a panel, comparison or view left: its line too */
        s->panel = PANEL_NONE, app_drop_msg(s);
    } else if (s->mode == MODE_EDIT) {
        s->mode = MODE_BROWSE;
    } else if (s->compare != CMP_NONE) {
        s->compare = CMP_NONE, app_drop_msg(s);
    } else if (s->view != VIEW_ID_ATTN) {
        s->view = VIEW_ID_ATTN, app_drop_msg(s);
    } else if (s->n_multi > 0) { /* M's rows summed: back to the one selected row */
        s->n_multi = 0, app_drop_msg(s);
    } else if (s->cross_on) {
        s->cross_on = false, s->field = 0, s->sel_col = -1;
        app_msg_once(s, "self-attention: one sentence (C brings the second back)");
        return APP_RUN;
    } else {
        app_msg_once(s, "Esc backs out of views, panels and the editor; q, F10 or Ctrl-C quits");
    }
    return 0;
}

static unsigned act_pipeline(AppState *s, int arg)
{
    (void)arg;
    app_view_toggle(s, VIEW_ID_PIPELINE);
    s->pipe_page = 0;
    return 0;
}

static unsigned act_lessons(AppState *s, int arg)
{
    (void)s, (void)arg;
    return APP_LESSONS;
}

static unsigned act_lesson_text(AppState *s, int step)
{
    int top = s->lesson_scroll + step; /* the lesson panel clamps the end */
    s->lesson_scroll = top < 0 ? 0 : top;
    return 0;
}

static unsigned act_view(AppState *s, int arg)
{
    (void)arg; /* v / F2: attention <-> positional encodings (the pipeline has S) */
    s->view = s->view == VIEW_ID_ATTN ? VIEW_ID_PE : VIEW_ID_ATTN;
    return 0;
}

static unsigned act_head(AppState *s, int arg)
{
    s->head = ((arg % s->cfg.H) + s->cfg.H) % s->cfg.H;
    return 0;
}

/* A digit key or a click: that head, or a message when there is none. */
static unsigned act_head_set(AppState *s, int arg)
{
    if (arg < 0 || arg >= s->cfg.H) {
        /* the hint names only keys that then change the count */
        bool random = s->cfg.preset == PRESET_RANDOM && !s->fixed_weights;
        const char *hint = random ? " (h/H change the count)"
                           : s->cfg.preset == PRESET_DESIGNED && !s->fixed_weights
                               ? " designed heads (P: random heads, whose count h/H change)"
                               : "";
        snprintf(s->msg, sizeof s->msg, "no head %d: there %s %d%s", arg + 1,
                 s->cfg.H == 1 ? "is" : "are", s->cfg.H, hint);
        return 0;
    }
    return act_head(s, arg);
}

static unsigned act_row(AppState *s, int arg)
{
    if (s->n_q > 0)
        s->sel_row = clampi(arg, 0, s->n_q - 1);
    return 0;
}

static unsigned act_row_set(AppState *s, int arg)
{
    s->sel_col = -1;
    return act_row(s, arg);
}

unsigned action_select_cell(AppState *s, int row, int col)
{
    act_row(s, row);
    if (s->n_k > 0)
        s->sel_col = clampi(col, 0, s->n_k - 1);
    return 0;
}

static unsigned act_col(AppState *s, int dir)
{
    if (s->n_k <= 0)
        return 0;
    if (s->sel_row < 0)
        s->sel_row = 0;
    int step = dir * (s->col_step > 1 ? s->col_step : 1);
    s->sel_col = s->sel_col < 0 ? (step > 0 ? 0 : s->n_k - 1) : s->sel_col + step;
    s->sel_col = clampi(s->sel_col, 0, s->n_k - 1);
    return 0;
}

static unsigned act_layer(AppState *s, int dir)
{
    int L = s->cfg.layers;
    if (L <= 1) {
        app_msg(s, "one layer only (> adds encoder layers)");
        return 0;
    }
    s->layer = ((s->layer + dir) % L + L) % L;
    snprintf(s->msg, sizeof s->msg, "layer %d of %d%s", s->layer + 1, L,
             s->layer ? ": it attends over the previous layer's output" : "");
    return 0;
}

static unsigned act_panel(AppState *s, int which)
{
    s->panel = s->panel == (AppPanel)which ? PANEL_NONE : (AppPanel)which;
    s->panel_scroll = 0;
    s->help = false;
    return 0;
}

static unsigned act_cross(AppState *s, int arg)
{
    (void)arg;
    s->cross_on = !s->cross_on;
    s->field = 0;
    s->sel_col = -1;
    app_msg_once(s, s->cross_on
                        ? "cross-attention: queries from the sentence, keys and values from "
                          "the second (E edits it)"
                        : "self-attention: one sentence");
    return APP_RUN;
}

/* Editing: Tab goes to the other sentence when there are two. */
static unsigned act_field(AppState *s, int arg)
{
    (void)arg;
    if (!s->cross_on)
        return act_head(s, s->head + 1);
    s->field = !s->field;
    return 0;
}

static unsigned act_compare(AppState *s, int which)
{
    s->compare = s->compare == (AppCompare)which ? CMP_NONE : (AppCompare)which;
    if (s->compare == CMP_MASK)
        app_msg(s, "side by side: the focused head with the causal mask off and on");
    else if (s->compare == CMP_HEADS)
        app_msg(s, "side by side: the focused head and the next (Tab moves both)");
    return s->compare == CMP_MASK ? APP_RUN : 0;
}

static unsigned act_pool(AppState *s, int arg)
{
    (void)arg;
    s->pool_mean = !s->pool_mean;
    app_msg(s, s->pool_mean ? "mean pooling: a cell shows the average weight it covers"
                            : "max pooling: a cell shows the largest weight it covers");
    return APP_VIEW;
}

/* dir: +1 in, -1 out, 0 all. */
static unsigned act_zoom(AppState *s, int dir)
{
    int z = dir == 0 ? 0 : s->zoom + dir;
    z = clampi(z, 0, APP_ZOOM_MAX);
    if (z == s->zoom && dir != 0) {
        app_msg(s, dir > 0 ? "zoomed in as far as it goes" : "every token is shown");
        return 0;
    }
    s->zoom = z;
    s->recentre = true;
    if (s->sel_row < 0 && s->n_q > 0)
        s->sel_row = 0;
    return APP_VIEW;
}

static unsigned act_dims(AppState *s, int step)
{
    if (s->view == VIEW_ID_PIPELINE) { /* [ and ] turn the pipeline's pages one by one */
        int page = s->pipe_page + (step > 0 ? 1 : -1);
        s->pipe_page = page < 0 ? 0 : page;
        return 0;
    }
    if (s->view != VIEW_ID_PE) { /* nothing on this screen shows them */
        app_msg(s, "[ and ]: the dimensions the PE view plots (v opens it)");
        return 0;
    }
    int d = s->cfg.d_model - s->cfg.d_model % 2;
    if (d >= 2)
        s->pe_dim = ((s->pe_dim + step) % d + d) % d;
    return 0;
}

/* ---- editing --------------------------------------------------------- */

typedef struct {
    bool (*fn)(EditBuf *);
    bool changes_text;
} EditOp;

static const EditOp edit_ops[ACT_COUNT] = {
    [ACT_CUR_LEFT] = {edit_left, false},       [ACT_CUR_RIGHT] = {edit_right, false},
    [ACT_CUR_HOME] = {edit_home, false},       [ACT_CUR_END] = {edit_end, false},
    [ACT_WORD_LEFT] = {edit_word_left, false}, [ACT_WORD_RIGHT] = {edit_word_right, false},
    [ACT_BACKSPACE] = {edit_backspace, true},  [ACT_DELETE] = {edit_delete, true},
    [ACT_DEL_WORD] = {edit_delete_word, true}, [ACT_CLEAR] = {edit_clear, true},
};

static unsigned act_edit_op(AppState *s, Action a)
{
    const EditOp *op = &edit_ops[a];
    EditBuf *e = app_field(s);
    if (!op->fn(e))
        return 0;
    if (!op->changes_text)
        return e == &s->text ? APP_CURSOR : 0;
    if (e == &s->text)
        s->sentence = -1;
    return APP_RUN | (e == &s->text ? APP_CURSOR : 0);
}

/* ---- dispatch -------------------------------------------------------- */

static unsigned act_head_step(AppState *s, int step)
{
    return act_head(s, s->head + step);
}

/* step: +-1 a screen row (row_step tokens), +-2 a page. */
static unsigned act_row_step(AppState *s, int step)
{
    int page = s->page > 1 ? s->page : 1, one = s->row_step > 1 ? s->row_step : 1;
    if (s->help) { /* Up/Down, PgUp/PgDn scroll the help on a short screen */
        s->help_scroll += step == 2 ? 10 : step == -2 ? -10 : step;
        s->help_scroll = s->help_scroll < 0 ? 0 : s->help_scroll;
        return 0;
    }
    if (s->panel != PANEL_NONE && (step == 2 || step == -2)) {
        s->panel_scroll += step * 10; /* PgUp/PgDn scroll the panel's text */
        s->panel_scroll = s->panel_scroll < 0 ? 0 : s->panel_scroll;
        return 0;
    }
    return act_row(s, s->sel_row + (step == 2 ? page : step == -2 ? -page : step * one));
}

#define ARG_CALLER (-1000000) /* pass action_apply's arg through */

typedef struct {
    unsigned (*fn)(AppState *, int);
    int arg;
} ActEntry;

static const ActEntry act_table[ACT_COUNT] = {
    [ACT_QUIT] = {act_flags, APP_QUIT},
    [ACT_HELP] = {act_help, 0},
    [ACT_EDIT] = {act_edit, 0},
    [ACT_EDIT_DONE] = {act_edit_done, 0},
    [ACT_ESCAPE] = {act_escape, 0},
    [ACT_VIEW] = {act_view, 0},
    [ACT_PIPELINE] = {act_pipeline, 0},
    [ACT_LESSONS] = {act_lessons, 0},
    [ACT_LESSON_TEXT_UP] = {act_lesson_text, -3},
    [ACT_LESSON_TEXT_DOWN] = {act_lesson_text, 3},
    [ACT_HEAD_NEXT] = {act_head_step, 1},
    [ACT_HEAD_PREV] = {act_head_step, -1},
    [ACT_HEAD_SET] = {act_head_set, ARG_CALLER},
    [ACT_ROW_NEXT] = {act_row_step, 1},
    [ACT_ROW_PREV] = {act_row_step, -1},
    [ACT_ROW_PGDN] = {act_row_step, 2},
    [ACT_ROW_PGUP] = {act_row_step, -2},
    [ACT_ROW_FIRST] = {act_row, 0},
    [ACT_ROW_LAST] = {act_row, 1 << 30},
    [ACT_ROW_SET] = {act_row_set, ARG_CALLER},
    [ACT_COL_NEXT] = {act_col, 1},
    [ACT_COL_PREV] = {act_col, -1},
    [ACT_MASK] = {setting_toggle, 0},
    [ACT_PE] = {setting_toggle, 1},
    [ACT_SCALE] = {setting_toggle, 2},
    [ACT_HEADS_DEC] = {setting_heads, -1},
    [ACT_HEADS_INC] = {setting_heads, 1},
    [ACT_DMODEL_DEC] = {setting_dmodel, -1},
    [ACT_DMODEL_INC] = {setting_dmodel, 1},
    [ACT_SEED_DEC] = {setting_seed, -1},
    [ACT_SEED_INC] = {setting_seed, 1},
    [ACT_LAYER_NEXT] = {act_layer, 1},
    [ACT_SENT_NEXT] = {setting_sentence, 1},
    [ACT_SENT_PREV] = {setting_sentence, -1},
    [ACT_EXPORT_HEAD] = {act_flags, APP_EXPORT_HEAD},
    [ACT_EXPORT_ALL] = {act_flags, APP_EXPORT_ALL},
    [ACT_EXPORT_SVG] = {act_flags, APP_EXPORT_SVG},
    [ACT_TRAIN] = {act_flags, APP_TRAIN},
    [ACT_DIMS_NEXT] = {act_dims, 2},
    [ACT_DIMS_PREV] = {act_dims, -2},
    [ACT_PRESET] = {setting_preset, 0},
    [ACT_TRACE] = {act_panel, PANEL_TRACE},
    [ACT_HEADS_HELP] = {act_panel, PANEL_HEADS},
    [ACT_TEMP_DOWN] = {setting_temp, -1},
    [ACT_TEMP_UP] = {setting_temp, 1},
    [ACT_LAYER_PREV] = {act_layer, -1},
    [ACT_LAYERS_DEC] = {setting_layers, -1},
    [ACT_LAYERS_INC] = {setting_layers, 1},
    [ACT_CROSS] = {act_cross, 0},
    [ACT_EDIT_CROSS] = {act_edit, 1},
    [ACT_FIELD_NEXT] = {act_field, 0},
    [ACT_CMP_MASK] = {act_compare, CMP_MASK},
    [ACT_CMP_HEADS] = {act_compare, CMP_HEADS},
    [ACT_POOL] = {act_pool, 0},
    [ACT_ZOOM_IN] = {act_zoom, 1},
    [ACT_ZOOM_OUT] = {act_zoom, -1},
    [ACT_ZOOM_ALL] = {act_zoom, 0},
};

unsigned action_apply(AppState *s, Action a, int arg)
{
    if (a <= ACT_NONE || a >= ACT_COUNT)
        return 0;
    if (edit_ops[a].fn)
        return act_edit_op(s, a);
    const ActEntry *e = &act_table[a];
    if (!e->fn) /* a view's key (views.def) with no row here: it shows the view, or leaves it */
        return app_view_toggle(s, app_view_of_action(a)), 0;
    return e->fn(s, e->arg == ARG_CALLER ? arg : e->arg);
}
