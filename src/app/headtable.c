/* headtable.c - the head scores table's and the model view's state and
 * decisions (headtable.h); src/ui/views/view_heads.c draws them.
 */
#include "app/headtable.h"

#include <stdio.h>
#include <string.h>

ModelConfig headtable_config(const AppState *s, double budget)
{
    ModelConfig c = s->cfg;
    c.weights_budget = budget;
    c.weights_only = true, c.keep_scores = false;
    return c;
}

bool headtable_fresh(const HeadTable *ht, const Kind *k, const ModelConfig *c)
{
    const ModelConfig *o = &ht->scan_cfg;
    return ht->have && ht->scan_kind == k && o->H == c->H && o->layers == c->layers &&
           o->d_model == c->d_model && o->seed == c->seed && o->preset == c->preset &&
           o->causal == c->causal && o->pe == c->pe && o->scale == c->scale &&
           o->temperature == c->temperature && o->max_tokens == c->max_tokens;
}

static void open_on(HeadTable *ht, HtMode mode, const AppState *s)
{
    ht->mode = mode;
    ht->sel_l = s->layer, ht->sel_h = s->head;
}

/* The heads named of the kinds the induction line does not say (the no-op
 * heads first: BERT's most common), appended to msg as "; layer 1 head 2:
 * no-op on [SEP] (83%)", as many as fit. */
static void name_others(const HeadScan *sc, char *msg, size_t len)
{
    static const HeadScoreKind order[] = {
        HEADSCORE_SEP,  HEADSCORE_CLS,   HEADSCORE_NEXT,
        HEADSCORE_PREV, HEADSCORE_FIRST, HEADSCORE_DUP,
    };
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        int b = sc->named[order[k]];
        size_t at = strlen(msg);
        if (b < 0)
            continue;
        char one[96];
        int n = snprintf(one, sizeof one, "%slayer %d head %d: %s (%d%%)", at ? "; " : "",
                         b / sc->H + 1, b % sc->H + 1, headscore_name(order[k]),
                         headscore_percent(headscore_value(&sc->t[b], order[k])));
        if (n > 0 && at + (size_t)n < len)
            memcpy(msg + at, one, (size_t)n + 1);
    }
}

int headtable_score(HeadTable *ht, Kind *k, const ModelConfig *c, AppState *s)
{
    headscan_free(&ht->scan);
    ht->have = false;
    int err = headscan_run(k, c, HEADSCAN_SEED, &ht->scan);
    if (err == AV_ERR_NOMEM)
        return err;
    if (err) {
        snprintf(s->msg, sizeof s->msg, "the head scores failed: %s", av_strerror(err));
        return err;
    }
    ht->have = true, ht->scan_kind = k, ht->scan_cfg = *c;
    /* a head is named only from its kind's threshold (headscore.h) */
    int b = ht->scan.best[HEADSCORE_INDUCTION];
    if (b >= 0) { /* in percent, as the table beside it */
        const int v = headscore_percent(headscore_value(&ht->scan.t[b], HEADSCORE_INDUCTION));
        const int at = headscore_percent(headscore_threshold(HEADSCORE_INDUCTION));
        if (ht->scan.named[HEADSCORE_INDUCTION] == b)
            snprintf(s->msg, sizeof s->msg,
                     "induction head: layer %d head %d (%d%%; named from %d%%)", b / c->H + 1,
                     b % c->H + 1, v, at);
        else
            snprintf(s->msg, sizeof s->msg,
                     "no induction head: best %d%% (layer %d head %d; one is named from %d%%)", v,
                     b / c->H + 1, b % c->H + 1, at);
    }
    name_others(&ht->scan, s->msg, sizeof s->msg);
    open_on(ht, HT_TABLE, s);
    return AV_OK;
}

/* f or F: open (the table once its scores are fresh) or close. */
static void open_or_close(HeadTable *ht, AppState *s, const Kind *k, double budget, HtMode want,
                          bool *score)
{
    if (ht->mode == want) {
        ht->mode = HT_OFF;
        return;
    }
    if (want == HT_TABLE) {
        ModelConfig c = headtable_config(s, budget);
        if (!headtable_fresh(ht, k, &c)) {
            const char *why = headscan_refuses(k, &c);
            if (why)
                snprintf(s->msg, sizeof s->msg, "%s", why);
            else
                *score = true;
            return;
        }
    }
    open_on(ht, want, s);
}

/* Focus head (l, h) in the heatmap view and close. */
static void focus(HeadTable *ht, AppState *s, int l, int h)
{
    if (l >= 0 && l < s->cfg.layers && h >= 0 && h < s->cfg.H)
        s->layer = l, s->head = h;
    ht->mode = HT_OFF;
    snprintf(s->msg, sizeof s->msg, "layer %d head %d focused", s->layer + 1, s->head + 1);
}

static void select_step(HeadTable *ht, const AppState *s, int dl, int dh)
{
    int L = s->cfg.layers, H = s->cfg.H;
    ht->sel_l = ((ht->sel_l + dl) % L + L) % L;
    ht->sel_h = ((ht->sel_h + dh) % H + H) % H;
}

/* Tab or Shift-Tab (step 1, -1): in the table the next page of scores, or
 * why there is none; in the model view the next head, as Tab focuses the
 * next head in the heatmaps. */
static void tab(HeadTable *ht, AppState *s, int step)
{
    if (ht->mode == HT_MODEL) {
        select_step(ht, s, 0, step);
        return;
    }
    if (ht->pages == 1) {
        snprintf(s->msg, sizeof s->msg,
                 "Tab: every score is on this page (a narrower screen shows a page at a time)");
        return;
    }
    ht->kind = (ht->kind + step + HEADSCORE_KINDS) % HEADSCORE_KINDS;
}

/* A key bound to nothing, named key: what the view's keys are. */
static void say_unbound(const HeadTable *ht, AppState *s, const char *key)
{
    if (ht->mode == HT_TABLE && ht->pages > 1)
        snprintf(s->msg, sizeof s->msg,
                 "%s does nothing here: arrows pick a head, Enter focuses, Tab: more, Esc: back",
                 key);
    else
        snprintf(s->msg, sizeof s->msg,
                 "%s does nothing here: arrows pick a head, Enter focuses it, Esc goes back", key);
}

bool headtable_input(HeadTable *ht, AppState *s, const Kind *k, double budget, Action a, int arg,
                     int col, const char *key, bool *score)
{
    *score = false;
    if (a == ACT_HEAD_TABLE || a == ACT_MODEL_VIEW) {
        open_or_close(ht, s, k, budget, a == ACT_HEAD_TABLE ? HT_TABLE : HT_MODEL, score);
        return true;
    }
    if (ht->mode == HT_OFF)
        return false;
    switch (a) {
    case ACT_ESCAPE: ht->mode = HT_OFF; return true;
    case ACT_ROW_PREV: select_step(ht, s, -1, 0); return true;
    case ACT_ROW_NEXT: select_step(ht, s, 1, 0); return true;
    case ACT_COL_PREV: select_step(ht, s, 0, -1); return true;
    case ACT_COL_NEXT: select_step(ht, s, 0, 1); return true;
    case ACT_HEAD_NEXT: tab(ht, s, 1); return true;
    case ACT_HEAD_PREV: tab(ht, s, -1); return true;
    case ACT_EDIT: focus(ht, s, ht->sel_l, ht->sel_h); return true;
    case ACT_CELL_SET: focus(ht, s, arg, col); return true;
    case ACT_NONE:
        if (!key || !key[0])
            return false;
        say_unbound(ht, s, key);
        return true;
    default: break;
    }
    /* a key that changes the model or the view closes this one */
    if (a != ACT_NONE && a != ACT_HELP && a != ACT_QUIT)
        ht->mode = HT_OFF;
    return false;
}

ViewId headtable_shown(const HeadTable *ht)
{
    if (ht->mode == HT_TABLE && ht->have)
        return VIEW_ID_HEAD_SCORES;
    return ht->mode == HT_MODEL ? VIEW_ID_MODEL : VIEW_ID_COUNT;
}

void headtable_fit(HeadTable *ht, int L, int H)
{
    if (L > 0 && ht->sel_l >= L)
        ht->sel_l = L - 1;
    if (H > 0 && ht->sel_h >= H)
        ht->sel_h = H - 1;
}

void headtable_free(HeadTable *ht)
{
    headscan_free(&ht->scan);
    memset(ht, 0, sizeof *ht);
}
