/* lensview.c - the logit lens view's state and decisions (lensview.h);
 * src/ui/views/lens.c draws it.
 */
#include "app/lensview.h"

#include <stdio.h>
#include <string.h>

#include "core/av.h"

/* The layers of the lens held, or (none computed yet) the model's. */
static int layers_of(const LensView *lv, const AppState *s)
{
    return lv->ls.rows > 0 ? lv->ls.rows - 1 : s->cfg.layers;
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void open_view(LensView *lv, AppState *s, const Kind *k)
{
    if (!kind_has_lens(k)) {
        const char *why = kind_refuses(k, KIND_ASK_LENS);
        snprintf(s->msg, sizeof s->msg, "no logit lens: %s",
                 why ? why : "this model predicts no tokens");
        return;
    }
    s->view = VIEW_ID_LENS, s->panel = PANEL_NONE, s->compare = CMP_NONE, s->help = false;
    if (lv->kind != k) /* the output layer first: the model's own prediction */
        lv->sel_l = 1 << 20, lv->kind = k, lv->gen = 0;
    if (s->n_q > 0) /* the text's last token: what the model says comes next */
        s->sel_row = s->n_q - 1, s->sel_col = -1;
    snprintf(s->msg, sizeof s->msg,
             "logit lens: each layer's likeliest next token; Up/Down layer, Left/Right "
             "position, Esc back");
}

/* A key of a view over the heatmaps: back to them first (and on to it). */
static bool over_heatmaps(Action a)
{
    return a == ACT_CMP_MASK || a == ACT_CMP_HEADS || a == ACT_TRACE || a == ACT_HEADS_HELP;
}

static void position_to(AppState *s, int i)
{
    if (s->n_q > 0)
        s->sel_row = clampi(i, 0, s->n_q - 1), s->sel_col = -1;
}

bool lensview_input(LensView *lv, AppState *s, const Kind *k, Action a, int arg, int col)
{
    if (a == ACT_LENS) {
        if (s->view == VIEW_ID_LENS) {
            s->view = VIEW_ID_ATTN;
            app_drop_msg(s); /* the lens's line goes with it */
        } else
            open_view(lv, s, k);
        return true;
    }
    if (s->view != VIEW_ID_LENS)
        return false;
    if (over_heatmaps(a)) {
        s->view = VIEW_ID_ATTN;
        return false;
    }
    if (s->mode != MODE_BROWSE || s->help)
        return false;
    int top = layers_of(lv, s), last = s->n_q - 1;
    lv->sel_l = clampi(lv->sel_l, 0, top);
    switch (a) {
    case ACT_ROW_PREV: lv->sel_l = clampi(lv->sel_l - 1, 0, top); return true;
    case ACT_ROW_NEXT: lv->sel_l = clampi(lv->sel_l + 1, 0, top); return true;
    case ACT_ROW_PGUP: lv->sel_l = 0; return true;
    case ACT_ROW_PGDN: lv->sel_l = top; return true;
    case ACT_COL_PREV: position_to(s, s->sel_row - 1); return true;
    case ACT_COL_NEXT: position_to(s, s->sel_row < 0 ? 0 : s->sel_row + 1); return true;
    case ACT_ROW_FIRST: position_to(s, 0); return true;
    case ACT_ROW_LAST: position_to(s, last); return true;
    case ACT_CELL_SET:
        lv->sel_l = clampi(arg, 0, top);
        position_to(s, col);
        return true;
    default: return false;
    }
}

bool lensview_fresh(const LensView *lv, const Kind *k, unsigned gen)
{
    return lv->kind == k && lv->gen == gen && lv->err != KIND_BUSY;
}

/* Why k has no lens, into lv->why: the page's model that is not running
 * (stand_in), or the kind's refusal of the lens key. */
static void why_no_lens(LensView *lv, const Kind *k, const char *stand_in)
{
    const char *why = kind_refuses(k, KIND_ASK_LENS);
    if (stand_in)
        snprintf(lv->why, sizeof lv->why,
                 "No logit lens: %.300s, and the toy weights that run meanwhile predict no "
                 "tokens.",
                 stand_in);
    else
        snprintf(lv->why, sizeof lv->why, "No logit lens: %.400s.",
                 why ? why : "this model predicts no tokens");
}

int lensview_update(LensView *lv, Kind *k, const AppState *s, unsigned gen, bool ok,
                    const char *stand_in)
{
    if (s->view != VIEW_ID_LENS || lensview_fresh(lv, k, gen))
        return 0;
    if (lv->kind != k) /* another model (a lesson's page): on its output layer */
        lens_free(&lv->ls), lv->kind = k, lv->sel_l = 1 << 20;
    if (!ok) { /* the run failed: its line is on screen, no lens to ask */
        lv->gen = gen, lv->err = AV_ERR_EMPTY, lv->ls.n = 0;
        return 1;
    }
    int err = kind_lens(k, s->text.s, s->text.len, &lv->ls);
    if (err == KIND_BUSY) {
        lv->err = KIND_BUSY;
        return 0;
    }
    lv->gen = gen, lv->err = err, lv->why[0] = '\0';
    if (err)
        lv->ls.n = 0;
    if (err == AV_ERR_NEEDS_MODEL)
        why_no_lens(lv, k, stand_in);
    lv->sel_l = clampi(lv->sel_l, 0, layers_of(lv, s));
    return err == AV_ERR_NOMEM ? AV_ERR_NOMEM : 1;
}

bool lensview_cell(const LensView *lv, const AppState *s, int *l, int *i)
{
    if (lv->ls.n < 1 || lv->ls.rows < 1)
        return false;
    *l = clampi(lv->sel_l, 0, lv->ls.rows - 1);
    *i = clampi(s->sel_row < 0 ? lv->ls.n - 1 : s->sel_row, 0, lv->ls.n - 1);
    return true;
}

void lensview_title(const LensView *lv, char *out, size_t cap)
{
    const char *what = "Logit lens: each layer's likeliest next token";
    const int rows = lv->ls.n > 0 ? lv->ls.rows : 0;
    if (rows > 1)
        snprintf(out, cap, "%s (layer 0: embeddings, %d: output)", what, rows - 1);
    else
        snprintf(out, cap, "%s", what);
}

bool lensview_next(const LensView *lv, int l, int i, int *id, int *rank, float *prob)
{
    const Lens *ls = &lv->ls;
    if (i < 0 || i >= ls->n || l < 0 || l >= ls->rows || !ls->next || ls->next[i] < 0)
        return false;
    *id = ls->next[i];
    *rank = ls->rank[(size_t)i * ls->rows + l];
    *prob = ls->nprob[(size_t)i * ls->rows + l];
    return *rank > 0;
}

void lensview_free(LensView *lv)
{
    lens_free(&lv->ls);
    memset(lv, 0, sizeof *lv);
}
