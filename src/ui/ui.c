/* ui.c - the loop of the ncurses front end, on top of its other files.
 *
 * Holds the program's only mutable global, `static UiState ui`. The loop
 * reads keys and mouse events (input.c, mouse.c), offers each to the session
 * (session_input: what the model kind refuses, g, M, the combining views'
 * A, O and V), hands the rest to action_apply (app/action.c) and
 * app_type (app/state.c), has the session run what they asked (app/session.h:
 * the weights, the results, the decision to run), and draws
 * every frame in full from the state: erase, the views into a Grid, paint
 * (color.c), one refresh. The terminal's life cycle, signals and the fatal path are term.c.
 */
#include "ui/ui.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"
#include "data.h"
#include "frame.h"
#include "input.h"
#include "save.h"
#include "term.h"
#include "imported.h"
#include "kindkeys.h"
#include "uistate.h"
#include "view_panel.h"
#include "view_heads.h"
#include "view_predict.h"
#include "view_table.h"
#include "view_train.h"
#include "app/action.h"
#include "app/session.h"

static UiState ui;

/* Carry out flags (action_apply's) through the session and size the labels
 * for the result (frame_update). */
static void ui_rerun(UiState *u, unsigned flags)
{
    const Kind *k = u->ses.kind;
    if ((flags & (APP_RUN | APP_WEIGHTS)) && k->cls->slow && !k->background) {
        /* seconds: say so, not a frozen screen */
        mvprintw(LINES - 1, 0, "running the %s model ...", k->cls->name);
        clrtoeol();
        refresh();
    }
    if (frame_update(u, flags) != AV_OK)
        term_die("out of memory");
}

/* The frame composed at the terminal's size (frame.c), painted, shown. */
static void ui_frame(UiState *u)
{
    frame_draw(u, &u->grid, COLS, LINES);
    color_paint(u, &u->grid);
    refresh();
}

/* Whether in reads the result while it is handled, not only when the next
 * frame draws it: a lesson's answer (Enter) or a token picked (arrows), the
 * rows summed (M), a generated token (the rows before it). Such an input
 * after keys of the same burst that asked for a run must see that run's
 * result: the layer, head and rows it holds belong to it. Other keys wait
 * for the burst's one run (a pasted page stays one run). */
static bool ui_reads_result(const UiState *u, const UiInput *in)
{
    int li = in->lesson_in - 1;
    bool answer = li == LESSON_IN_ENTER || li == LESSON_IN_LEFT || li == LESSON_IN_RIGHT ||
                  li == LESSON_IN_UP || li == LESSON_IN_DOWN;
    return (in->lesson_in && answer && u->lesson.active && !u->lesson.list) ||
           in->action == ACT_MULTI_ROW || in->action == ACT_GENERATE;
}

/* Apply one input; returns false to quit. The model run it needs is added
 * to *pending and made once for a whole burst of input (a paste, typed in
 * the editor or, as commands, while browsing), so a burst costs one run, not
 * one a byte; an export first brings the result up to date. */
static bool ui_handle(UiState *u, const UiInput *in, unsigned *pending)
{
    unsigned flags;
    if ((*pending & (APP_RUN | APP_WEIGHTS)) && ui_reads_result(u, in)) {
        ui_rerun(u, *pending); /* the keys before it in the burst changed the result */
        *pending = 0;
    }
    if (in->lesson_in && frame_lesson_input(u, in->lesson_in - 1, in->lesson_arg, pending))
        return true;
    if (view_heads_handle(u, in, pending)) /* before the session: Enter focuses a head there */
        return true;
    bool typed = in->action == ACT_NONE && in->text[0];
    int taken = session_input(&u->ses, &u->app, in->action, typed, pending);
    if (taken < 0) /* the session's: what the kind refuses, g, M, A/O/V */
        term_die("out of memory");
    if (taken)
        return true;
    if (typed)
        flags = app_type(&u->app, in->text, strlen(in->text));
    else if (in->action == ACT_CELL_SET)
        flags = action_select_cell(&u->app, in->arg, in->col);
    else
        flags = action_apply(&u->app, in->action, in->arg);
    if (flags & APP_QUIT)
        return false;
    if ((flags & APP_LESSONS) && lesson_state_list_open(&u->lesson, &u->app) != AV_OK)
        term_die("out of memory");
    if ((flags & APP_TRAIN) && view_table_open(u, VIEW_ID_TRAIN))
        return false; /* quit from the live view */
    *pending |= flags & (APP_RUN | APP_CURSOR | APP_WEIGHTS);
    if (flags & (APP_EXPORT_HEAD | APP_EXPORT_ALL | APP_EXPORT_SVG)) {
        if (*pending)
            ui_rerun(u, *pending);
        *pending = 0;
        if (flags & APP_EXPORT_SVG)
            save_svg(u);
        else
            save_export(u, (flags & APP_EXPORT_ALL) != 0);
    }
    return true;
}

static void ui_loop(UiState *u)
{
    bool running = true, dirty = true;
    while (running && !term_signalled()) {
        if (dirty) {
            u->frame_t0 = term_now_ms(); /* the status line adds the drawing so far */
            ui_frame(u);
        }
        if (u->pred_due) /* a key waiting goes first, then the predictions */
            timeout(0);
        UiInput in;
        unsigned pending = 0;
        dirty = false;
        if (!input_read(u, &in)) { /* no key: what threads have done meanwhile */
            dirty = view_predict_update(u);
            timeout(u->ses.computing ? 20 : 100);
            if (imported_poll(u, &pending) && (dirty = true) && pending)
                ui_rerun(u, pending);
            int ran = session_resume(&u->ses, &u->app, &u->lesson);
            if (ran < 0)
                term_die("out of memory");
            if (ran) {
                dirty = true;
                frame_labels_fit(u);
            }
            continue;
        }
        double t0 = term_now_ms();
        /* Take every key already waiting (a paste) before drawing again. */
        timeout(0);
        do {
            dirty = true;
            running = ui_handle(u, &in, &pending);
        } while (running && !term_signalled() && input_read(u, &in));
        if (running && session_outputs_missing(&u->ses, &u->app, &u->lesson))
            pending |= APP_RUN;
        if (running && pending)
            ui_rerun(u, pending);
        timeout(u->ses.computing ? 20 : 100);
        u->frame_ms = term_now_ms() - t0;
    }
}

/* No --preset or sizes given: open on the designed heads (heads that mean
 * something), on the first example with its setting and note when no text
 * was given. */
static void start_defaults(UiState *u, const UiOptions *o)
{
    AppState *s = &u->app;
    const SentenceList *l = o->sentences;
    if (!o->text && l && l->settings && s->sentence == 0) {
        SentenceSetting st = l->settings[0];
        st.pe = st.causal = -1; /* -c and --no-pe on the command line stand */
        action_example_setting(s, &st);
        if (l->notes && l->notes[0])
            snprintf(s->msg, sizeof s->msg, "1/%d: %s", l->n, l->notes[0]);
        s->note_shown = l->notes && l->notes[0];
    }
    if (s->cfg.preset != PRESET_DESIGNED && !s->example_weights[0]) {
        char note[sizeof s->msg];
        memcpy(note, s->msg, sizeof note);
        action_apply(s, ACT_PRESET, 0);
        if (note[0])
            memcpy(s->msg, note, sizeof note);
    }
}

int ui_run(const UiOptions *o)
{
    memset(&ui, 0, sizeof ui);
    session_init(&ui.ses, o->weights, o->kind, o->cfg.weights_budget);
    if (o->kind && getenv("ATTNVIZ_BACKGROUND")) /* tests: a small model as a slow one */
        o->kind->background = true;
    if (app_init(&ui.app, &o->cfg, o->text, o->sentences, o->weights != NULL) != AV_OK) {
        fputs("attnviz: out of memory\n", stderr);
        return 1;
    }
    if (o->cross) {
        edit_set(&ui.app.cross, o->cross);
        ui.app.cross_on = true;
    }
    ui.app.max_layers = o->weights ? o->weights->L : AV_MAX_LAYERS;
    if (o->defaults && !o->weights && !o->kind)
        start_defaults(&ui, o);
    if (o->lesson) /* the lesson's first page sets the screen up */
        lesson_state_start(&ui.lesson, o->lesson, &ui.app);
    term_signals();
    term_begin();
    color_init(&ui, ui_color_wanted(o->color, true));
    input_init(&ui);
    imported_start(&ui);
    mvprintw(0, 0, "attnviz: running the model on %zu bytes of text ...", ui.app.text.len);
    refresh(); /* a long text's first run takes seconds: say so, not a blank screen */
    ui_rerun(&ui, APP_RUN | APP_WEIGHTS);
    kindkeys_start(&ui);
    if (ui.app.fixed_weights)
        snprintf(ui.app.msg, sizeof ui.app.msg,
                 "weights from --weights: d_model and seed are fixed");
    if (o->text && strlen(o->text) > EDIT_MAX_BYTES)
        snprintf(ui.app.msg, sizeof ui.app.msg, "the text was cut to its first %d MiB",
                 EDIT_MAX_BYTES >> 20);
    if (o->train)
        view_train_run(&ui, o->train, true); /* --train: the live view first */
    else
        ui_loop(&ui);
    term_end();
    frame_free(&ui);
    return 0;
}

bool ui_color_wanted(ColorMode mode, bool tty)
{
    const char *no_color = getenv("NO_COLOR");
    if (mode != COLOR_AUTO)
        return mode == COLOR_ALWAYS;
    return tty && !(no_color && *no_color);
}
