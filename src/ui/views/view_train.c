/* view_train.c - the live training view: a small transformer trains while
 * the class watches its heads form.
 *
 * The view has its own loop, so training never waits for a key and a key
 * never waits for training: between frames trainview_run makes at most the
 * speed's steps, stopping after SLICE_MS; a key that arrives meanwhile is read
 * as soon as the slice ends and answered by the next frame, before any more
 * training. On screen: a header with the step, loss and speed; every layer x
 * head as a heatmap of the probe sequence (left); the head scores against
 * the step, one strip a score kind, with each head's first pass of 0.5
 * marked, and the loss below them with those moments on its axis (right);
 * the last event; the keys. The keys come through the interface's key table
 * (input.c, its training rows, listed in the help) as Actions; the run's are
 * trainview_apply's. Opened from the interface, Esc or a key of the
 * interface's goes back (the key then acts there); a key nobody uses says so
 * and the run goes on.
 */
#include "view_train.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../color.h"
#include "../input.h"
#include "app/action.h"
#include "app/trainkeys.h"
#include "render/trainplot.h"
#include "../term.h"
#include "view_help.h"
#include "view_top.h"

#define SLICE_MS 15.0 /* training a frame, at most (plus one step) */
#define FRAME_MS 40.0 /* a frame every 40 ms while training: 25 a second */
#define PLOT_MIN_W 32 /* the plots keep at least these columns */
#define STRIP_MIN_H 4 /* a score strip: title and three rows of dots */
#define STRIP_MAX_H 8
#define MAX_LINES 16 /* heads drawn in one strip and tiled, at most */

/* Each head's colour in the strips: the same head the same colour. */
static const struct {
    int style, level;
} HEAD_STYLE[] = {
    {STYLE_TITLE, 0}, {STYLE_BAR, 14}, {STYLE_LABEL, 0}, {STYLE_BAR, 9}, {STYLE_TEXT, 0},
};
#define N_HEAD_STYLES ((int)(sizeof HEAD_STYLE / sizeof HEAD_STYLE[0]))

/* The score strips, most telling first. */
static const ScoreKind STRIP_ORDER[SCORE_KINDS] = {SCORE_INDUCTION, SCORE_PREV, SCORE_ANTECEDENT,
                                                   SCORE_FIRST, SCORE_SELF};

typedef struct {
    double rate; /* steps a second, measured */
    double rate_t0;
    long rate_step0;
} TrainLoop;

static long axis_end(const TrainView *tv)
{
    long xm = tv->conf.steps > tv->tr.step ? tv->conf.steps : tv->tr.step;
    return xm < 1 ? 1 : xm;
}

static void draw_header(const TrainView *tv, const TrainLoop *lp, Grid *g)
{
    const TrainViewConfig *c = &tv->conf;
    bool wide = g->w >= 100;
    /* the longest form that fits, never cut: the settings go before the seed and the task */
    char t[5][160];
    unsigned long long seed = (unsigned long long)c->cfg.seed;
    snprintf(t[0], sizeof t[0],
             "Training %s: %d layers x %d heads, d_model %d, context %d, seed %llu", c->task,
             c->layers, c->heads, c->d_model, c->context, seed);
    snprintf(t[1], sizeof t[1], "Training %s: %d layers x %d heads, d_model %d, seed %llu", c->task,
             c->layers, c->heads, c->d_model, seed);
    snprintf(t[2], sizeof t[2], "Training %s: %d layers x %d heads, seed %llu", c->task, c->layers,
             c->heads, seed);
    snprintf(t[3], sizeof t[3], "Training %s, seed %llu", c->task, seed);
    snprintf(t[4], sizeof t[4], "Training %s", c->task);
    const char *const forms[] = {t[0], t[1], t[2], t[3], t[4]};
    int k = grid_first_fit(forms, 5, g->w);
    grid_puts(g, 0, 0, forms[k < 0 ? 4 : k], g->w, STYLE_TITLE);
    int x = grid_printf(g, 0, 1, g->w, STYLE_TEXT, "step %ld", tv->tr.step);
    if (c->steps > 0 && tv->tr.step <= c->steps)
        x += grid_printf(g, x, 1, g->w - x, STYLE_DIM, wide ? " of %ld" : "/%ld", c->steps);
    x += grid_printf(g, x, 1, g->w - x, STYLE_TEXT,
                     wide ? "   loss %.3f   accuracy %.0f%%   " : "  loss %.3f  acc. %.0f%%  ",
                     tv->n ? (double)tv->hist_loss[tv->n - 1] : 0.0, 100.0 * tv->tr.accuracy);
    if (tv->paused)
        grid_puts(g, x, 1, "paused", g->w - x, STYLE_ACCENT);
    else
        grid_printf(g, x, 1, g->w - x, STYLE_LABEL,
                    wide ? "training, %d steps a frame (%.0f steps/s)" : "%d steps/frame, %.0f/s",
                    trainview_steps_per_frame(tv), lp->rate);
}

/* "L2H1 induction 0.62" when it fits, else "L2H1 ind 0.62" or "L2H1 ind
 * .62"; "L1H2 mixed (prev 0.31)" or "L1H2 mixed" for a head no score names. */
static void head_title(const TrainView *tv, int i, int width, char *buf, size_t cap)
{
    const HeadScore *hs = &tv->scores[i];
    float v;
    ScoreKind k = scores_best(hs, &v);
    char t[3][48], name[16];
    snprintf(name, sizeof name, "L%dH%d", i / tv->H + 1, i % tv->H + 1);
    int n = 2;
    if (v > TV_THRESHOLD) {
        int cents = (int)(v * 100.0f + 0.5f);
        snprintf(t[0], sizeof t[0], "%s %s %.2f", name, scores_name(k), (double)v);
        snprintf(t[1], sizeof t[1], "%s %s %.2f", name, scores_short_name(k), (double)v);
        snprintf(t[2], sizeof t[2], "%s %s .%02d", name, scores_short_name(k),
                 cents > 99 ? 99 : cents);
        n = 3;
    } else {
        snprintf(t[0], sizeof t[0], "%s mixed (%s %.2f)", name, scores_short_name(k), (double)v);
        snprintf(t[1], sizeof t[1], "%s mixed", name);
    }
    const char *const forms[] = {t[0], t[1], t[2]};
    int f = grid_first_fit(forms, n, width);
    snprintf(buf, cap, "%s", forms[f < 0 ? n - 1 : f]);
}

/* Every head on the probe, at the left of r; returns the columns used. */
static int draw_heads(const UiState *u, const TrainView *tv, Grid *g, Rect r)
{
    const int LH = tv->L * tv->H;
    const char *labels[TV_PROBE_MAX];
    char titles[MAX_LINES][40];
    const char *tp[MAX_LINES];
    bool hot[MAX_LINES];
    float ind[MAX_LINES];
    bool stripe = tv->has_kind[SCORE_INDUCTION];
    for (int i = 0; i < tv->probe_n; i++)
        labels[i] = tv->probe_label[i];
    TrainHeadsSpec sp = {.P = tv->probe_P,
                         .L = tv->L,
                         .H = tv->H,
                         .n = tv->probe_n,
                         .labels = labels,
                         .titles = tp,
                         .hot = hot,
                         .mode = u->hmode,
                         .half_ok = u->depth == DEPTH_256,
                         .guide = stripe ? tv->probe_ind : NULL,
                         .score = stripe ? ind : NULL};
    int max_w = r.w - PLOT_MIN_W - 2;
    max_w = max_w < r.w * 3 / 5 ? max_w : r.w * 3 / 5; /* the plots keep 2/5 at least */
    TrainHeadsLayout lay;
    if (LH > MAX_LINES || !trainplot_heads_fit(max_w, r.h - 1, &sp, &lay)) {
        grid_puts(g, r.x, r.y, "(a larger terminal shows the heads)", max_w, STYLE_DIM);
        return max_w > 0 ? max_w : 0;
    }
    for (int i = 0; i < LH; i++) {
        float v;
        scores_best(&tv->scores[i], &v);
        hot[i] = v > TV_THRESHOLD;
        ind[i] = tv->scores[i].s[SCORE_INDUCTION];
        head_title(tv, i, lay.tile_w - 1, titles[i], sizeof titles[i]);
        tp[i] = titles[i];
    }
    static const char *const caption[2][4] = {
        {"Each head on a probe sequence (rows: queries, columns: keys)",
         "Each head on a probe sequence", "Heads on a probe", "Heads"},
        {"Each head on a probe; \xe2\x95\xb2 induction stripe, under it: its weights, score",
         "Heads on a probe; \xe2\x95\xb2 induction stripe, its weights, score",
         "Heads; \xe2\x95\xb2 induction stripe, score", "Heads"}};
    int k = 0;
    while (k < 3 && grid_text_width(caption[stripe][k]) > lay.w)
        k++;
    grid_puts(g, r.x, r.y, caption[stripe][k], lay.w, STYLE_DIM);
    trainplot_heads(g, r.x, r.y + 1, &sp, &lay);
    return lay.w;
}

/* The heads that became kind k, as far as they fit a title: "L2H1 at step
 * 221, L2H2 at step 259", with at_step "at step " or "at ". Returns the
 * events listed; *more gets those left out. */
static int events_text(const TrainView *tv, ScoreKind k, const char *at_step, char *buf, size_t cap,
                       int *more)
{
    int len = 0, listed = 0;
    *more = 0;
    buf[0] = '\0';
    for (int e = 0; e < tv->n_events; e++) {
        const TrainEvent *ev = &tv->events[e];
        if (ev->kind != k)
            continue;
        char one[48];
        int n = snprintf(one, sizeof one, "%sL%dH%d %s%ld", listed ? ", " : "", ev->layer + 1,
                         ev->head + 1, at_step, ev->step);
        if (len + n >= (int)cap) {
            (*more)++;
            continue;
        }
        memcpy(buf + len, one, (size_t)n + 1);
        len += n, listed++;
    }
    return listed;
}

/* A strip's title in at most width columns, the longest form that fits:
 * "induction score  ◆ L2H1 at step 221, L2H2 at step 259", then "at 221",
 * without "score", then the first head and how many more ("+1 more"), then
 * the kind alone. */
static void strip_title(const TrainView *tv, ScoreKind k, int width, char *buf, size_t cap)
{
    char t[5][160], ev_long[120], ev_short[120];
    int more_l, more_s;
    int n = events_text(tv, k, "at step ", ev_long, sizeof ev_long, &more_l);
    events_text(tv, k, "at ", ev_short, sizeof ev_short, &more_s);
    const char *kind = scores_name(k), *dia = "  \xe2\x97\x86 ";
    snprintf(t[4], sizeof t[4], "%s score", kind);
    if (n == 0) {
        snprintf(buf, cap, "%s", t[4]);
        return;
    }
    char ml[24] = "", ms[24] = "";
    if (more_l)
        snprintf(ml, sizeof ml, " +%d more", more_l);
    if (more_s)
        snprintf(ms, sizeof ms, " +%d more", more_s);
    snprintf(t[0], sizeof t[0], "%s score%s%s%s", kind, dia, ev_long, ml);
    snprintf(t[1], sizeof t[1], "%s score%s%s%s", kind, dia, ev_short, ms);
    snprintf(t[2], sizeof t[2], "%s%s%s%s", kind, dia, ev_short, ms);
    const TrainEvent *first = NULL;
    for (int e = 0; e < tv->n_events && !first; e++)
        if (tv->events[e].kind == k)
            first = &tv->events[e];
    if (n + more_s > 1)
        snprintf(t[3], sizeof t[3], "%s%sL%dH%d at %ld +%d more", kind, dia, first->layer + 1,
                 first->head + 1, first->step, n + more_s - 1);
    else
        snprintf(t[3], sizeof t[3], "%s", t[4]);
    const char *const forms[] = {t[0], t[1], t[2], t[3], t[4]};
    int f = grid_first_fit(forms, 5, width);
    snprintf(buf, cap, "%s", forms[f < 0 ? 4 : f]);
}

/* One score kind's strip: a line per head (the first MAX_LINES), the 0.5 line,
 * each head's first pass marked. */
static void draw_strip(const TrainView *tv, Grid *g, Rect r, ScoreKind k)
{
    TrainSeries s[MAX_LINES];
    TrainMark m[MAX_LINES];
    char names[MAX_LINES][24], title[160];
    const int LH = tv->L * tv->H, per = LH * SCORE_KINDS;
    int ns = 0, nm = 0;
    for (int i = 0; i < LH && ns < MAX_LINES; i++, ns++) {
        snprintf(names[ns], sizeof names[ns], "L%dH%d", i / tv->H + 1, i % tv->H + 1);
        s[ns] = (TrainSeries){.y = tv->hist_score + (long)i * SCORE_KINDS + k,
                              .stride = per,
                              .style = HEAD_STYLE[i % N_HEAD_STYLES].style,
                              .level = HEAD_STYLE[i % N_HEAD_STYLES].level,
                              .name = names[ns]};
    }
    for (int e = 0; e < tv->n_events && nm < MAX_LINES; e++) {
        const TrainEvent *ev = &tv->events[e];
        if (ev->kind == k)
            m[nm++] = (TrainMark){ev->step, ev->value};
    }
    strip_title(tv, k, r.w, title, sizeof title);
    TrainPlotSpec sp = {.title = title,
                        .x = tv->hist_step,
                        .n = tv->n,
                        .x_max = axis_end(tv),
                        .y_min = 0,
                        .y_max = 1,
                        .threshold_on = true,
                        .threshold = TV_THRESHOLD,
                        .series = s,
                        .n_series = ns,
                        .marks = m,
                        .n_marks = nm};
    trainplot_lines(g, r.x, r.y, r.w, r.h, &sp, NULL);
}

/* The loss, with every event's step marked on the line and on the axis. */
static void draw_loss(const TrainView *tv, Grid *g, Rect r)
{
    TrainSeries s = {.y = tv->hist_loss, .stride = 1, .style = STYLE_TEXT};
    TrainMark m[MAX_LINES];
    int nm = 0;
    for (int e = 0; e < tv->n_events && nm < MAX_LINES; e++) {
        long st = tv->events[e].step;
        int k = 0;
        while (k + 1 < tv->n && tv->hist_step[k] < st)
            k++;
        if (nm == 0 || m[nm - 1].step != st)
            m[nm++] = (TrainMark){st, tv->hist_loss[k]};
    }
    char t[5][96];
    double last = tv->n ? (double)tv->hist_loss[tv->n - 1] : 0.0;
    const char *mark = nm ? "   \xe2\x96\xb2 a head passed 0.5" : "";
    snprintf(t[0], sizeof t[0], "loss (cross-entropy) %.3f%s", last, mark);
    snprintf(t[1], sizeof t[1], "loss (cross-entropy) %.3f%s", last,
             nm ? "   \xe2\x96\xb2 passed 0.5" : "");
    snprintf(t[2], sizeof t[2], "loss %.3f%s", last, mark);
    snprintf(t[3], sizeof t[3], "loss (cross-entropy) %.3f", last);
    snprintf(t[4], sizeof t[4], "loss %.3f", last);
    const char *const forms[] = {t[0], t[1], t[2], t[3], t[4]};
    int f = grid_first_fit(forms, 5, r.w);
    const char *title = forms[f < 0 ? 4 : f];
    float top = tv->loss_max > 0 ? tv->loss_max : 1.0f;
    TrainPlotSpec sp = {.title = title,
                        .x = tv->hist_step,
                        .n = tv->n,
                        .x_max = axis_end(tv),
                        .y_min = 0,
                        .y_max = (float)(int)(top + 0.999f),
                        .series = &s,
                        .n_series = 1,
                        .marks = m,
                        .n_marks = nm,
                        .x_axis = true};
    trainplot_lines(g, r.x, r.y, r.w, r.h, &sp, NULL);
}

/* The score strips that fit above the loss, most telling first; the loss
 * as tall as a strip at least, with the step axis under it. */
static void draw_plots(const TrainView *tv, Grid *g, Rect r)
{
    ScoreKind kinds[SCORE_KINDS];
    int nk = 0;
    for (int k = 0; k < SCORE_KINDS; k++)
        if (tv->has_kind[STRIP_ORDER[k]])
            kinds[nk++] = STRIP_ORDER[k];
    while (nk > 0 && (r.h - 1) / (nk + 1) < STRIP_MIN_H)
        nk--;
    int strip_h = (r.h - 1) / (nk + 1);
    strip_h = strip_h > STRIP_MAX_H ? STRIP_MAX_H : strip_h;
    for (int k = 0; k < nk; k++)
        draw_strip(tv, g, (Rect){r.x, r.y + k * strip_h, r.w, strip_h}, kinds[k]);
    draw_loss(tv, g, (Rect){r.x, r.y + nk * strip_h, r.w, r.h - nk * strip_h});
}

static void draw_bottom(const TrainView *tv, Grid *g, bool top)
{
    int y = g->h - 2;
    if (tv->msg[0])
        grid_puts(g, 0, y, tv->msg, g->w, STYLE_ACCENT);
    else
        grid_puts(g, 0, y, "Every head starts as noise: watch for one that passes 0.5.", g->w,
                  STYLE_DIM);
    Cell *row = grid_at(g, 0, g->h - 1);
    grid_fill_cells(row, g->w, ' ', STYLE_STATUS, 0);
    grid_puts(g, 1, g->h - 1,
              top ? "space pause/go  . one step  + - speed  r new seed  s save  ? keys  q quit"
                  : "space pause/go  . one step  + - speed  r new seed  s save  ? keys  Esc back  "
                    "q quit",
              g->w - 2, STYLE_STATUS);
}

static void frame(UiState *u, const TrainView *tv, const TrainLoop *lp, bool top)
{
    Grid *g = &u->grid;
    if ((g->w != COLS || g->h != LINES) && grid_resize(g, COLS, LINES) != AV_OK)
        term_die("out of memory");
    grid_clear(g);
    if (view_top_is_small(COLS, LINES)) {
        view_top_too_small(g);
    } else {
        draw_header(tv, lp, g);
        Rect body = {0, 3, g->w, g->h - 3 - 2};
        int used = draw_heads(u, tv, g, body);
        draw_plots(tv, g, (Rect){used + 2, body.y, g->w - used - 2, body.h});
        draw_bottom(tv, g, top);
        if (u->a.app.help)
            view_help_draw(u, g);
    }
    color_paint(u, g);
    refresh();
}

/* A key the training view does not use. Opened from the interface, a key of
 * the interface's goes back and does there what it does (F9 toggles the
 * mask, Down moves the row ...): -1; a key nothing uses leaves the run going
 * and says so: 0. */
static int other_key(AppState *s, TrainView *tv, int key, bool top)
{
    if (!top && key > 0 && input_bound(key)) {
        ungetch(key);
        s->help = false;
        return -1;
    }
    if (key > 0) {
        const char *name = keyname(key);
        snprintf(tv->msg, sizeof tv->msg, "%s does nothing here: ? lists the keys, %s",
                 name ? name : "that key", top ? "q quits" : "Esc goes back");
    }
    return 0;
}

/* Apply one input of the view (input_read_train: the key table's training
 * rows; key is its code); returns 1 to quit, -1 to back out, 0 to go on. */
static int handle(UiState *u, TrainView *tv, const AppInput *in, int key, bool top)
{
    char path[512];
    AppState *s = &u->a.app;
    switch (in->action) {
    case ACT_TRAIN_PAUSE:
    case ACT_TRAIN_STEP:
    case ACT_TRAIN_FASTER:
    case ACT_TRAIN_SLOWER:
    case ACT_TRAIN_RESET: {
        /* a failed reset has freed the run: nothing is left to draw */
        int err = trainview_apply(tv, in->action);
        if (err != AV_OK)
            term_die("%s", av_strerror(err));
        break;
    }
    case ACT_TRAIN_SAVE: trainview_save(tv, ".", time(NULL), path, sizeof path); break;
    case ACT_ROW_PREV: /* these scroll the help; without it, as any other key */
    case ACT_ROW_NEXT:
    case ACT_ROW_PGUP:
    case ACT_ROW_PGDN:
        if (!s->help)
            return other_key(s, tv, key, top);
        action_apply(s, in->action, 0);
        break;
    case ACT_HELP:
        action_apply(s, in->action, 0);
        if (s->help) /* opened at this view's keys */
            view_help_at(u, COLS, LINES, ACT_TRAIN);
        break;
    case ACT_ESCAPE:
        if (s->help)
            s->help = false;
        else if (!top)
            return -1;
        else
            snprintf(tv->msg, sizeof tv->msg,
                     "q quits (Esc backs out of a view; this is the first)");
        break;
    case ACT_QUIT: return 1;
    default: return other_key(s, tv, key, top);
    }
    return 0;
}

/* The measured rate, over half a second at least. */
static void rate_update(TrainLoop *lp, const TrainView *tv)
{
    double now = term_now_ms();
    if (tv->paused || tv->tr.step < lp->rate_step0) {
        lp->rate_t0 = now, lp->rate_step0 = tv->tr.step;
        return;
    }
    if (now - lp->rate_t0 >= 500.0) {
        lp->rate = (double)(tv->tr.step - lp->rate_step0) * 1000.0 / (now - lp->rate_t0);
        lp->rate_t0 = now, lp->rate_step0 = tv->tr.step;
    }
}

bool view_train_run(UiState *u, TrainView *tv, bool top)
{
    TrainLoop lp = {.rate_t0 = term_now_ms(), .rate_step0 = tv->tr.step};
    double next = term_now_ms();
    bool dirty = true;
    int outcome = 0;
    while (outcome == 0 && !term_signalled()) {
        if (dirty)
            frame(u, tv, &lp, top);
        dirty = false;
        double wait = tv->paused ? 100.0 : next - term_now_ms();
        timeout(wait > 0 ? (int)wait : 0);
        AppInput in;
        int key;
        if (input_read_train(&in, &key)) {
            /* Every key already waiting, then a frame before any training. */
            timeout(0);
            /* too small to see: only quitting acts, other keys are refused */
            while ((outcome = view_top_small_takes(COLS, LINES, &in) ? handle(u, tv, &in, key, top)
                                                                     : 0) == 0 &&
                   input_read_train(&in, &key))
                continue; /* never read past a key pushed back for the caller */
            dirty = true;
            continue;
        }
        if (!tv->paused && term_now_ms() >= next) {
            double t0 = term_now_ms();
            int want = trainview_steps_per_frame(tv);
            int done = trainview_run(tv, want, SLICE_MS);
            /* Cut short by the time box: the speed asks for more than a
             * frame holds, so train on right after this frame. */
            next = done >= 0 && done < want && !tv->paused ? t0 : t0 + FRAME_MS;
            if (done < 0) {
                tv->paused = true;
                snprintf(tv->msg, sizeof tv->msg, "training stopped: %s", av_strerror(done));
            }
            dirty = true;
        }
        rate_update(&lp, tv);
    }
    timeout(100);
    return outcome > 0 || term_signalled();
}

bool view_train_open(UiState *u, const char *task)
{
    int err = app_train_open(&u->a, task);
    if (err == AV_ERR_NOMEM)
        term_die("out of memory");
    if (err)
        return false;                            /* the reason is on the status line */
    return view_train_run(u, u->a.train, false); /* W again resumes where Esc left it */
}

bool view_train_loop(UiState *u)
{
    return view_train_open(u, "induction");
}
