/* app.c - the one entry (app.h): each input routed, in this order, to the
 * lesson (its page or its list), the head scores table and the model view,
 * the logit lens view (its layer and position), the session (what the kind refuses, g, M, the
 * combining views' A, O, V), then typing or the action table; what they ask of the interface comes
 * back as APP_DO_* bits, the runs they ask for wait in a->pending for the
 * burst's end (app_settle).
 */
#include "app/app.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/action.h"
#include "app/setting.h"

void app_open(App *a, const ModelWeights *fixed, Kind *kind, double budget)
{
    memset(a, 0, sizeof *a);
    session_init(&a->ses, fixed, kind, budget);
}

/* The training run dropped; none is fine. */
static void train_close(App *a)
{
    if (a->train)
        trainview_free(a->train);
    free(a->train);
    a->train = NULL;
}

void app_close(App *a)
{
    train_close(a);
    headtable_free(&a->heads);
    lensview_free(&a->lens);
    app_free(&a->app);
    lesson_state_free(&a->lesson);
    session_free(&a->ses);
    memset(a, 0, sizeof *a);
}

int app_train_open(App *a, const char *task)
{
    TrainViewConfig c;
    char why[160];
    trainview_config(task, &c);
    c.cfg.seed = a->app.cfg.seed; /* the interface's seed, as --train takes --seed */
    /* another task, or another seed set in the interface: a run of its own
     * (r in the view moves the run's seed on; W again resumes that run) */
    if (a->train && (strcmp(a->train->conf.task, c.task) != 0 || a->train->seed0 != c.cfg.seed))
        train_close(a);
    if (a->train)
        return AV_OK;
    TrainView *tv = calloc(1, sizeof *tv);
    if (!tv)
        return AV_ERR_NOMEM;
    int err = trainview_init(tv, &c, NULL, 0, why, sizeof why);
    if (err) {
        free(tv);
        if (err != AV_ERR_NOMEM)
            snprintf(a->app.msg, sizeof a->app.msg, "%s", why);
        return err;
    }
    a->train = tv;
    return AV_OK;
}

/* An example's sentence (not the user's text) longer than the model's
 * context (a small GPT-2's n_ctx): its last words go until it runs, and
 * the status line says so, rather than a screen of "more tokens". */
static int fit_example(App *a, unsigned flags)
{
    AppState *s = &a->app;
    int V = 0, n_ctx = 0, dropped = 0, err = AV_OK;
    if (s->sentence < 0 || a->ses.computing || a->ses.run_err != AV_ERR_TOO_MANY ||
        s->cfg.preset != PRESET_TRAINED || !kind_vocab(a->ses.kind, &s->cfg, &V, &n_ctx) ||
        n_ctx <= 0)
        return AV_OK;
    char *cut = strdup(s->text.s), *end;
    if (!cut)
        return AV_ERR_NOMEM;
    while (!err && a->ses.run_err == AV_ERR_TOO_MANY && (end = strrchr(cut, ' ')) != NULL) {
        while (end > cut && end[-1] == ' ')
            end--;
        *end = '\0', dropped++;
        edit_set(&s->text, cut);
        err = session_update(&a->ses, s, &a->lesson, flags | APP_RUN);
    }
    free(cut);
    a->example_cut = !err && !a->ses.run_err && dropped;
    if (a->example_cut)
        snprintf(s->msg, sizeof s->msg,
                 "the example cut to %d tokens for this model's context of %d (%d word%s dropped)",
                 a->ses.res.shape.n_q, n_ctx, dropped, dropped == 1 ? "" : "s");
    return err;
}

/* Carry out the runs flags ask for now. */
static unsigned run_now(App *a, unsigned flags)
{
    a->pending = 0;
    int err = session_update(&a->ses, &a->app, &a->lesson, flags);
    if (!err)
        err = fit_example(a, flags);
    return err != AV_OK ? APP_DO_NOMEM : 0;
}

/* The lens of the text's newest result, when the lens view shows it and
 * the kind does not compute it meanwhile: APP_DO_REDRAW when it changed. */
static unsigned lens(App *a)
{
    const Session *ss = &a->ses;
    if (ss->computing)
        return 0;
    int got = lensview_update(&a->lens, ss->kind, &a->app, ss->gen, !ss->run_err && a->app.n_q > 0,
                              lesson_state_stand_in(&a->lesson));
    if (got > 0 && a->lens.ls.n > 0 && lensview_fresh(&a->lens, ss->kind, ss->gen))
        lesson_state_notes_update(&a->lesson, &a->app, &ss->res, &a->lens.ls);
    return got < 0 ? APP_DO_NOMEM : got ? APP_DO_REDRAW : 0;
}

/* Whether in reads the result while it is handled, not only when the next
 * frame draws it: a lesson's answer (Enter) or a token picked (arrows), the
 * rows summed (M), a generated token (the rows before it). Such an input
 * after keys of the same burst that asked for a run must see that run's
 * result: the layer, head and rows it holds belong to it. Other keys wait
 * for the burst's one run (a pasted page stays one run). */
static bool reads_result(const App *a, const AppInput *in)
{
    int li = in->lesson_in - 1;
    bool answer = li == LESSON_IN_ENTER || li == LESSON_IN_LEFT || li == LESSON_IN_RIGHT ||
                  li == LESSON_IN_UP || li == LESSON_IN_DOWN;
    return (in->lesson_in && answer && a->lesson.active && !a->lesson.list) ||
           in->action == ACT_MULTI_ROW || in->action == ACT_GENERATE;
}

/* Enter revealing a page's answer while a combining view is shown: the
 * answer reads each head's own weights, which the shown result does not
 * hold (one head, or norms). Refused with a line; true when refused. */
static bool reveal_refused(App *a, const AppInput *in)
{
    const LessonState *ls = &a->lesson;
    const LessonPage *p = ls->active && !ls->list ? lesson_state_page(ls) : NULL;
    if (!p || p->q.kind == LESSON_ASK_NONE || ls->revealed ||
        in->lesson_in - 1 != LESSON_IN_ENTER || a->ses.comb.mode == COMB_WEIGHTS)
        return false;
    snprintf(a->app.msg, sizeof a->app.msg,
             "the question needs each head's own weights, not %s: back to them first",
             comb_name(a->ses.comb.mode));
    return true;
}

/* While the help is shown it takes its own keys: the arrows, PgUp/PgDn,
 * Home and End scroll it, ? and Esc close it, q quits; any other key is
 * refused with a line rather than carried out unseen behind it (a file
 * written, the mask flipped, the editor opened). True when taken. */
static bool help_input(App *a, const AppInput *in)
{
    AppState *s = &a->app;
    if (!s->help || (in->action == ACT_NONE && !in->text[0] && !in->lesson_in))
        return false; /* no key (a resize): nothing to refuse */
    s->help_refused = false;
    switch (in->action) {
    case ACT_QUIT: return false;
    case ACT_HELP:
    case ACT_ESCAPE: s->help = false; return true;
    case ACT_ROW_NEXT:
    case ACT_ROW_PREV:
    case ACT_ROW_PGDN:
    case ACT_ROW_PGUP: /* from the line shown, not one a larger screen had no room to show */
        if (s->help_most >= 0 && s->help_scroll > s->help_most)
            s->help_scroll = s->help_most;
        action_apply(s, in->action, 0);
        return true;
    case ACT_ROW_FIRST: s->help_scroll = 0; return true;
    case ACT_ROW_LAST: s->help_scroll = INT_MAX / 2; return true; /* app_layout clamps it */
    default: s->help_refused = true; return true;                 /* the help's border says so */
    }
}

/* A lesson's key (its page, its list): true when the lesson took it. */
static bool lesson_input(App *a, const AppInput *in)
{
    unsigned flags;
    if (reveal_refused(a, in))
        return true;
    if (!lesson_state_input(&a->lesson, &a->app, &a->ses.res, (LessonInput)(in->lesson_in - 1),
                            in->lesson_arg, &flags))
        return false;
    session_pick_kind(&a->ses, &a->app, &a->lesson); /* the page may have closed its model */
    /* a page's settings are the model's own: a combining view shown
     * gives way to the weights, the page's heads and head kept */
    if ((flags & APP_WEIGHTS) && a->ses.comb.mode != COMB_WEIGHTS) {
        int H = a->app.cfg.H, head = a->app.head;
        comb_set(&a->ses.comb, &a->app, COMB_WEIGHTS);
        a->app.cfg.H = H, a->app.head = head;
    }
    /* a page's settings, and those a lesson left behind, never override
     * what the kind fixes (imported attention's layers, heads and mask) */
    if ((flags & APP_WEIGHTS) || !a->lesson.active)
        kind_config(a->ses.kind, &a->app.cfg);
    a->pending |= flags & (APP_RUN | APP_WEIGHTS);
    return true;
}

/* f, F and the keys of the two views of every head: true when taken. */
static bool heads_input(App *a, const AppInput *in, unsigned *out)
{
    const ModelResult *r = &a->ses.res;
    if (a->heads.mode == HT_MODEL && !a->ses.run_err && r->shape.n_q > 0)
        headtable_fit(&a->heads, r->L, r->shape.H); /* the heads the model view drew */
    bool score;
    if (!headtable_input(&a->heads, &a->app, a->ses.kind, a->ses.budget, in->action, in->arg,
                         in->col, in->key, &score))
        return false;
    if (score) {
        a->work = APP_WORK_SCORES;
        snprintf(a->work_line, sizeof a->work_line,
                 "scoring every head on %d random repeated sequences ...", HEADSCAN_SEQS);
        *out |= APP_DO_WORK;
    }
    return true;
}

/* Typing, a click on a cell, or the action table; the lesson list opened
 * and the training view asked for. */
static unsigned apply(App *a, const AppInput *in, bool typed)
{
    unsigned flags, out = 0;
    if (typed)
        flags = app_type(&a->app, in->text, strlen(in->text));
    else if (in->action == ACT_CELL_SET)
        flags = action_select_cell(&a->app, in->arg, in->col);
    else if ((in->action == ACT_LESSON_TEXT_UP || in->action == ACT_LESSON_TEXT_DOWN) &&
             !a->lesson.active) {
        snprintf(a->app.msg, sizeof a->app.msg, "{ and }: scroll a lesson's page (o: the lessons)");
        flags = 0;
    } else
        flags = action_apply(&a->app, in->action, in->arg);
    if (flags & APP_QUIT)
        return APP_DO_QUIT;
    if ((flags & APP_LESSONS) && lesson_state_list_open(&a->lesson, &a->app) != AV_OK)
        return APP_DO_NOMEM;
    if (flags & APP_TRAIN)
        out |= APP_DO_TRAIN;
    a->pending |= flags & (APP_RUN | APP_CURSOR | APP_WEIGHTS);
    if (flags & (APP_EXPORT_HEAD | APP_EXPORT_ALL | APP_EXPORT_SVG)) {
        if (a->pending) /* an export writes the result as it is now */
            out |= run_now(a, a->pending);
        out |= flags & APP_EXPORT_SVG   ? APP_DO_EXPORT_SVG
               : flags & APP_EXPORT_ALL ? APP_DO_EXPORT_ALL
                                        : APP_DO_EXPORT_HEAD;
    }
    return out;
}

/* Whether the head scores or the model view, shown over a lesson's page,
 * take the key before the page does: the keys it acts on (Esc closes it,
 * the arrows and Tab move its selection, Enter focuses the head), as the
 * one in front; the page keeps the rest (n, p, its letters). */
static bool table_in_front(const App *a, Action act)
{
    if (a->heads.mode == HT_OFF)
        return false;
    switch (act) {
    case ACT_ESCAPE:
    case ACT_ROW_PREV:
    case ACT_ROW_NEXT:
    case ACT_COL_PREV:
    case ACT_COL_NEXT:
    case ACT_HEAD_NEXT:
    case ACT_HEAD_PREV:
    case ACT_EDIT:
    case ACT_CELL_SET: return true;
    default: return false;
    }
}

unsigned app_input(App *a, const AppInput *in)
{
    unsigned out = APP_DO_REDRAW;
    AppState *s = &a->app;
    if (s->msg_once && (in->action != ACT_NONE || in->text[0] || in->lesson_in)) {
        if (!strcmp(s->msg, s->msg_once)) /* a key's answer, gone with the next key */
            s->msg[0] = '\0', s->note_shown = false;
        s->msg_once = NULL;
    }
    if ((a->pending & (APP_RUN | APP_WEIGHTS)) && reads_result(a, in))
        out |= run_now(a, a->pending); /* the keys before it in the burst changed the result */
    if (help_input(a, in))
        return out;
    if (in->lesson_in && !table_in_front(a, in->action) && lesson_input(a, in))
        return out;
    if (heads_input(a, in, &out)) /* before the session: Enter focuses a head there */
        return out;
    if (lensview_input(&a->lens, &a->app, a->ses.kind, in->action, in->arg, in->col)) {
        if (in->action == ACT_LENS && a->app.view == VIEW_ID_LENS && !a->ses.computing &&
            !lensview_fresh(&a->lens, a->ses.kind, a->ses.gen)) {
            a->work = APP_WORK_LENS; /* every position's rows: say so, not a frozen screen */
            snprintf(a->work_line, sizeof a->work_line,
                     "computing the logit lens of %d positions, %d read-outs each ...", a->app.n_q,
                     a->app.cfg.layers + 1);
            out |= APP_DO_WORK;
        }
        return out;
    }
    bool typed = in->action == ACT_NONE && in->text[0];
    int taken = session_input(&a->ses, &a->app, in->action, typed, &a->pending);
    if (taken < 0)
        return out | APP_DO_NOMEM;
    if (taken)
        return out;
    return out | apply(a, in, typed);
}

unsigned app_settle(App *a)
{
    if (session_outputs_missing(&a->ses, &a->app, &a->lesson))
        a->pending |= APP_RUN;
    if (!a->pending)
        return 0;
    const Kind *k = a->ses.kind;
    if ((a->pending & (APP_RUN | APP_WEIGHTS)) && k->cls->slow && !k->background) {
        a->work = APP_WORK_RUN; /* seconds: say so, not a frozen screen */
        snprintf(a->work_line, sizeof a->work_line, "running the %s model ...", k->cls->name);
        return APP_DO_WORK;
    }
    return run_now(a, a->pending);
}

unsigned app_work(App *a)
{
    AppWork w = a->work;
    a->work = APP_WORK_NONE, a->work_line[0] = '\0';
    if (w == APP_WORK_RUN)
        return run_now(a, a->pending) | APP_DO_REDRAW;
    if (w == APP_WORK_LENS) {
        if (a->pending & (APP_RUN | APP_WEIGHTS)) /* the burst's text first */
            run_now(a, a->pending);
        return lens(a) | APP_DO_REDRAW;
    }
    if (w != APP_WORK_SCORES)
        return 0;
    ModelConfig c = headtable_config(&a->app, a->ses.budget);
    int err = headtable_score(&a->heads, a->ses.kind, &c, &a->app);
    a->pending |= APP_RUN; /* the kind ran other tokens: the text's result again */
    return APP_DO_REDRAW | (err == AV_ERR_NOMEM ? APP_DO_NOMEM : 0);
}

void app_defaults(App *a, bool text_given)
{
    AppState *s = &a->app;
    const SentenceList *l = s->sentences;
    /* -c and --no-pe, the command line's only ways off the defaults, stand */
    bool mask_given = s->cfg.causal, pe_given = !s->cfg.pe;
    if (s->cfg.preset != PRESET_DESIGNED)
        action_apply(s, ACT_PRESET, 0); /* the interface's own start */
    if (!text_given && l && l->settings && s->sentence == 0) {
        /* the first example as n and N load it, from the designed heads */
        SentenceSetting st = l->settings[0];
        st.causal = mask_given ? -1 : st.causal;
        st.pe = pe_given ? -1 : st.pe;
        setting_example(s, &st);
        if (l->notes && l->notes[0])
            snprintf(s->msg, sizeof s->msg, "1/%d: %s", l->n, l->notes[0]);
        s->note_shown = l->notes && l->notes[0];
    }
}

void app_begin(App *a)
{
    ModelConfig c = a->app.cfg;
    kind_config(a->ses.kind, &c);
    a->app.cfg.causal = c.causal; /* a large file's layer 0 until its check ends */
    a->pending = APP_RUN | APP_WEIGHTS;
}

void app_kind_line(App *a)
{
    char line[sizeof a->app.msg];
    kind_describe(a->ses.kind, 0, line, sizeof line);
    if (line[0] && !a->example_cut)
        memcpy(a->app.msg, line, sizeof line);
}

/* The end of the program on a failure found off the key path: its line
 * and exit status for the interface, the rollout's thread stopped. */
static unsigned fail(App *a, int status, const char *msg)
{
    combsrc_stop(&a->ses.src);
    a->fail_status = status;
    snprintf(a->fail_msg, sizeof a->fail_msg, "%s", msg);
    return APP_DO_FAIL;
}

/* The kind's news (kind_poll's changed): its check's end, the causal flag. */
static unsigned kind_news(App *a, bool changed)
{
    if (!changed)
        return 0;
    ModelConfig c = a->app.cfg;
    kind_config(a->ses.kind, &c);
    if (c.causal != a->app.cfg.causal) { /* every layer's, now */
        a->app.cfg.causal = c.causal;
        a->pending |= APP_RUN;
    }
    app_kind_line(a);
    return APP_DO_REDRAW;
}

/* The predictions a frame wanted, asked: APP_DO_REDRAW when they changed.
 * Those a kind computes on its thread (KIND_BUSY: a fill-in) are asked
 * again at each poll until they come, without a redraw meanwhile. */
static unsigned predict(App *a)
{
    bool waiting = a->ses.pred_err == KIND_BUSY && session_predict_fresh(&a->ses, &a->app);
    if (!a->pred_due && !waiting)
        return 0;
    a->pred_due = false;
    if (waiting)
        a->ses.pred_gen = 0; /* not fresh: asked again */
    int asked = session_predict_update(&a->ses, &a->app);
    if (asked < 0)
        return APP_DO_NOMEM;
    return asked && !(waiting && a->ses.pred_err == KIND_BUSY) ? APP_DO_REDRAW : 0;
}

unsigned app_poll(App *a)
{
    unsigned pred = predict(a) | lens(a);
    if (pred & APP_DO_NOMEM)
        return pred;
    char msg[512];
    bool changed;
    int err = kind_poll(a->ses.kind, &changed, msg, sizeof msg);
    if (err != KIND_BUSY && err != AV_OK)
        return fail(a, av_exit_status(err), msg);
    unsigned out = kind_news(a, changed);
    int ro = combsrc_poll(&a->ses.src, &a->app, &a->pending);
    if (ro == -ROLLOUT_NOTHREAD)
        return fail(a, 1, "cannot start a thread: out of resources");
    if (ro < 0)
        return APP_DO_NOMEM;
    if (ro > 0)
        out |= APP_DO_REDRAW;
    if (out && a->pending)
        out |= run_now(a, a->pending);
    if (err != KIND_BUSY) { /* a run the kind made on a thread: the newest text's */
        int ran = session_resume_done(&a->ses, &a->app, &a->lesson);
        if (ran < 0)
            return out | APP_DO_NOMEM;
        out |= ran ? APP_DO_REDRAW : 0;
    }
    return pred | out;
}

bool app_busy(const App *a)
{
    const Session *ss = &a->ses;
    return a->pred_due || ss->computing || a->work != APP_WORK_NONE ||
           (a->app.view == VIEW_ID_LENS && !lensview_fresh(&a->lens, ss->kind, ss->gen));
}

void app_layout_clear(AppLayout *l)
{
    *l = (AppLayout){.page = -1,
                     .row_step = -1,
                     .col_step = -1,
                     .zoom_max = -1,
                     .pipe_page = -1,
                     .panel_most = -1,
                     .help_most = -1,
                     .lesson_most = -1,
                     .table_pages = -1};
}

/* v clamped to 0 .. most (most -1: v as it is). */
static int clamp_to(int v, int most)
{
    return most >= 0 && v > most ? most : v;
}

bool app_layout(App *a, const AppLayout *l)
{
    AppState *s = &a->app;
    bool again = false;
    if (l->row_step >= 0)
        s->row_step = l->row_step, s->col_step = l->col_step;
    if (l->page >= 0)
        s->page = l->page;
    if (l->zoom_max >= 0 && s->zoom > l->zoom_max) {
        s->zoom = l->zoom_max;
        snprintf(s->msg, sizeof s->msg, "zoomed in as far as it goes: one token a cell");
        again = true;
    }
    if (l->recentred)
        s->recentre = false;
    if (l->pipe_page >= 0)
        s->pipe_page = l->pipe_page;
    if (l->stage_shown)
        a->lesson.want_stage = 0;
    if (l->no_trace) {
        const int err = a->ses.run_err;
        if (err && err != AV_ERR_EMPTY) /* over the kind's limit, say: the run's own line */
            snprintf(s->msg, sizeof s->msg, "no trace: %s",
                     session_error_line(&a->ses, &s->cfg, err));
        else
            snprintf(s->msg, sizeof s->msg, "no trace: the sentence has no tokens");
        s->panel = PANEL_NONE;
        again = true;
    }
    if (l->pred_wanted)
        a->pred_due = true;
    if (l->table_pages >= 0)
        a->heads.pages = l->table_pages;
    if (l->note_gone) /* after the trace's line, as the status line drew them */
        s->msg[0] = '\0', s->note_shown = false;
    s->panel_scroll = clamp_to(s->panel_scroll, l->panel_most);
    if (l->help_most >= 0) /* help_scroll kept: a resize back finds the help where it was */
        s->help_most = l->help_most;
    s->lesson_scroll = clamp_to(s->lesson_scroll, l->lesson_most);
    return again;
}
