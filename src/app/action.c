/* action.c - what each Action does to the interface's state: the key
 * table's actions (selection, heads, settings, views, examples, zoom) and the
 * editor's, dispatched by one table. Each returns the APP_* flags saying what
 * the caller must redo (run the model, rebuild weights, export, quit).
 * Nothing here draws, prints or runs the model.
 */
#include "app/action.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/ladder.h"
#include "core/av.h"

static void app_msg(AppState *s, const char *m)
{
    snprintf(s->msg, sizeof s->msg, "%s", m);
}

/* A line that answers this key only: the next key takes it away. */
static void app_msg_once(AppState *s, const char *m)
{
    app_msg(s, m);
    s->msg_once = m; /* a literal: it outlives the key */
}

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

/* The switches: 0 causal mask, 1 positional encoding, 2 scaling. */
static unsigned act_toggle(AppState *s, int which)
{
    static const char *const msgs[3][2] = {
        {"causal mask off: every token sees every token",
         "causal mask on: token i sees tokens 1..i only"},
        {"positional encoding off", "positional encoding on"},
        {"scores not scaled", "scores divided by sqrt(d_k)"},
    };
    bool *flag = which == 0 ? &s->cfg.causal : which == 1 ? &s->cfg.pe : &s->cfg.scale;
    *flag = !*flag;
    app_msg(s, msgs[which][*flag]);
    return APP_RUN;
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

/* The designed preset fixes d_model and H: a message says so. */
static bool preset_fixed(AppState *s)
{
    if (s->cfg.preset != PRESET_DESIGNED)
        return false;
    app_msg(s, "the designed heads fix d_model 192 and 6 heads (P: random weights)");
    return true;
}

static unsigned act_preset(AppState *s, int arg)
{
    (void)arg;
    if (s->fixed_weights) {
        app_msg(s, "the weights come from --weights");
        return 0;
    }
    if (s->cfg.preset == PRESET_DESIGNED) {
        ModelConfig d;
        model_config_default(&d);
        s->cfg.preset = PRESET_RANDOM, s->cfg.d_model = d.d_model, s->cfg.H = d.H;
        app_msg(s, "random heads: untrained toy weights from the seed, their patterns mean "
                   "nothing yet (P: the designed heads)");
    } else {
        model_config_designed(&s->cfg);
        app_msg(s, "designed heads: previous token, self, first token, same word, "
                   "pronoun -> noun, verb -> subject");
    }
    s->head = s->head < s->cfg.H ? s->head : 0;
    s->pe_dim = s->pe_dim < s->cfg.d_model ? s->pe_dim : 0;
    return APP_RUN | APP_WEIGHTS;
}

static unsigned act_heads(AppState *s, int dir)
{
    if (preset_fixed(s))
        return 0;
    int H = ladder_heads_step(s->cfg.d_model, s->cfg.H, dir);
    if (H == s->cfg.H) {
        app_msg(s, dir > 0 ? "no more heads: H must divide d_model" : "at least one head");
        return 0;
    }
    s->cfg.H = H;
    s->head = s->head < H ? s->head : H - 1;
    s->msg[0] = '\0';
    return APP_RUN;
}

static unsigned act_dmodel(AppState *s, int dir)
{
    if (s->fixed_weights) {
        app_msg(s, "d_model is fixed by --weights");
        return 0;
    }
    if (preset_fixed(s))
        return 0;
    int d = ladder_dmodel_step(s->cfg.d_model, dir);
    if (d == s->cfg.d_model) {
        app_msg(s, dir > 0 ? "d_model is at its largest" : "d_model is at its smallest");
        return 0;
    }
    s->cfg.d_model = d;
    s->cfg.H = ladder_heads_fit(d, s->cfg.H);
    s->head = s->head < s->cfg.H ? s->head : s->cfg.H - 1;
    s->pe_dim = s->pe_dim < d ? s->pe_dim : 0;
    s->msg[0] = '\0';
    return APP_RUN | APP_WEIGHTS;
}

static unsigned act_seed(AppState *s, int dir)
{
    if (s->fixed_weights) {
        app_msg(s, "the seed is fixed by --weights");
        return 0;
    }
    s->cfg.seed += dir > 0 ? 1u : (uint64_t)-1;
    s->msg[0] = '\0';
    return APP_RUN | APP_WEIGHTS;
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

static unsigned act_layers(AppState *s, int dir)
{
    int L = s->cfg.layers + dir, most = s->max_layers > 0 ? s->max_layers : AV_MAX_LAYERS;
    if (L < 1 || L > most) {
        snprintf(s->msg, sizeof s->msg, L < 1 ? "at least one layer" : "at most %d layers%s", most,
                 s->fixed_weights ? " with these --weights" : "");
        return 0;
    }
    s->cfg.layers = L;
    s->layer = dir > 0 ? L - 1 : (s->layer < L ? s->layer : L - 1);
    if (L == 1)
        app_msg(s, "one layer: plain multi-head attention (> adds encoder layers)");
    else
        snprintf(s->msg, sizeof s->msg,
                 "%d encoder layers (attention, residual, LayerNorm, "
                 "FFN); showing layer %d",
                 L, s->layer + 1);
    return APP_RUN | (s->fixed_weights ? 0 : APP_WEIGHTS);
}

/* dir < 0: x0.5 (sharper), dir > 0: x2 (flatter). */
static unsigned act_temp(AppState *s, int dir)
{
    float t = ladder_temp_step(s->cfg.temperature, dir > 0 ? 2.0f : 0.5f);
    if (t == s->cfg.temperature) {
        snprintf(s->msg, sizeof s->msg, "the temperature stays within %g .. %g",
                 (double)LADDER_TEMP_MIN, (double)LADDER_TEMP_MAX);
        return 0;
    }
    s->cfg.temperature = t;
    snprintf(s->msg, sizeof s->msg, "temperature %g: scores divided by %g, softmax %s", (double)t,
             (double)t,
             t < 1.0f   ? "sharper (towards one winner)"
             : t > 1.0f ? "flatter (towards uniform)"
                        : "as trained");
    return APP_RUN;
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

/* An example's own weights (weights=): the configuration before them is
 * kept, and comes back when an example without them is loaded. */
static unsigned example_weights(AppState *s, const SentenceSetting *st)
{
    if (s->example_weights[0] && strcmp(s->example_weights, st->weights) != 0) {
        s->cfg = s->cfg_before, s->example_weights[0] = '\0';
        return APP_WEIGHTS;
    }
    if (!st->weights[0] || s->example_weights[0])
        return 0;
    if (s->fixed_weights) {
        app_msg(s, "this example brings its own weights: not with --weights");
        return 0;
    }
    s->cfg_before = s->cfg;
    snprintf(s->example_weights, sizeof s->example_weights, "%s", st->weights);
    s->cfg.preset = PRESET_LOADED, s->cfg.d_model = st->d_model, s->cfg.H = st->heads;
    s->cfg.layers = 1;
    return APP_WEIGHTS;
}

unsigned action_example_setting(AppState *s, const SentenceSetting *st)
{
    unsigned flags = APP_RUN | example_weights(s, st);
    bool own = s->example_weights[0] != '\0';
    /* preset=random, d_model= or heads=: the random heads at that size,
     * the default where not given (sentences.c checked that they fit) */
    bool random = st->preset == PRESET_RANDOM || st->d_model || st->heads;
    if (!own && !s->fixed_weights && (st->preset == PRESET_DESIGNED || random) &&
        (st->preset == PRESET_DESIGNED) != (s->cfg.preset == PRESET_DESIGNED))
        flags |= act_preset(s, 0);
    if (!own && !s->fixed_weights && random && s->cfg.preset != PRESET_DESIGNED) {
        ModelConfig d;
        model_config_default(&d);
        s->cfg.d_model = st->d_model ? st->d_model : d.d_model;
        s->cfg.H = st->heads ? st->heads : d.H;
        s->pe_dim = s->pe_dim < s->cfg.d_model ? s->pe_dim : 0;
        flags |= APP_WEIGHTS;
    }
    if (st->pe >= 0)
        s->cfg.pe = st->pe;
    if (st->causal >= 0)
        s->cfg.causal = st->causal;
    s->head = st->head > 0 && st->head <= s->cfg.H ? st->head - 1
              : s->head < s->cfg.H                 ? s->head
                                                   : 0;
    snprintf(s->want_token, sizeof s->want_token, "%s", st->token);
    return flags;
}

static unsigned act_sentence(AppState *s, int step)
{
    if (!s->sentences || s->sentences->n <= 0)
        return 0;
    /* after an edit, from the example the sentence was edited from */
    int n = s->sentences->n, from = s->sentence >= 0 ? s->sentence : s->example_at, k;
    k = from < 0 || from >= n ? (step > 0 ? 0 : n - 1) : ((from + step) % n + n) % n;
    s->sentence = s->example_at = k;
    edit_set(&s->text, s->sentences->items[k]);
    s->sel_row = s->sel_col = -1;
    s->panel = PANEL_NONE, s->compare = CMP_NONE;
    unsigned flags = APP_RUN;
    if (s->lesson_kept) { /* a left lesson's weights and settings go with its sentence */
        s->cfg = s->cfg_home, s->fixed_weights = s->cli_fixed;
        s->max_layers = s->max_layers_home, s->cross_on = false, s->lesson_kept = false;
        flags |= APP_WEIGHTS;
    }
    if (s->sentences->settings)
        flags |= action_example_setting(s, &s->sentences->settings[k]);
    const char *note = s->sentences->notes ? s->sentences->notes[k] : NULL;
    s->note_shown = note != NULL;
    if (note)
        snprintf(s->msg, sizeof s->msg, "%d/%d: %s", k + 1, n, note);
    else if (!(flags & APP_WEIGHTS) || !s->msg[0])
        snprintf(s->msg, sizeof s->msg, "example %d of %d", k + 1, n);
    return flags;
}

void action_take_tokens(AppState *s, const TokenList *t)
{
    if (!s->want_token[0])
        return;
    for (int i = 0; t && i < t->n && i < s->n_q; i++)
        if (strcmp(t->tok[i].str, s->want_token) == 0) {
            s->sel_row = i, s->sel_col = -1;
            break;
        }
    s->want_token[0] = '\0';
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
    [ACT_MASK] = {act_toggle, 0},
    [ACT_PE] = {act_toggle, 1},
    [ACT_SCALE] = {act_toggle, 2},
    [ACT_HEADS_DEC] = {act_heads, -1},
    [ACT_HEADS_INC] = {act_heads, 1},
    [ACT_DMODEL_DEC] = {act_dmodel, -1},
    [ACT_DMODEL_INC] = {act_dmodel, 1},
    [ACT_SEED_DEC] = {act_seed, -1},
    [ACT_SEED_INC] = {act_seed, 1},
    [ACT_LAYER_NEXT] = {act_layer, 1},
    [ACT_SENT_NEXT] = {act_sentence, 1},
    [ACT_SENT_PREV] = {act_sentence, -1},
    [ACT_EXPORT_HEAD] = {act_flags, APP_EXPORT_HEAD},
    [ACT_EXPORT_ALL] = {act_flags, APP_EXPORT_ALL},
    [ACT_EXPORT_SVG] = {act_flags, APP_EXPORT_SVG},
    [ACT_TRAIN] = {act_flags, APP_TRAIN},
    [ACT_DIMS_NEXT] = {act_dims, 2},
    [ACT_DIMS_PREV] = {act_dims, -2},
    [ACT_PRESET] = {act_preset, 0},
    [ACT_TRACE] = {act_panel, PANEL_TRACE},
    [ACT_HEADS_HELP] = {act_panel, PANEL_HEADS},
    [ACT_TEMP_DOWN] = {act_temp, -1},
    [ACT_TEMP_UP] = {act_temp, 1},
    [ACT_LAYER_PREV] = {act_layer, -1},
    [ACT_LAYERS_DEC] = {act_layers, -1},
    [ACT_LAYERS_INC] = {act_layers, 1},
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
