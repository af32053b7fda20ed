/* ui.c - the loop of the ncurses front end, on top of its other files.
 *
 * Holds the program's only mutable global, `static UiState ui`. The loop
 * reads keys and mouse events (input.c, mouse.c), hands each to app_input
 * (app/app.h: the lesson, the heads table, the session, editing, the
 * actions), does what its bits ask (export, the training view, quit), and
 * draws every frame in full from the state: erase, the views into a Grid,
 * paint (color.c), one refresh. The terminal's life cycle, signals and the fatal path are term.c.
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
#include "uistate.h"
#include "views/view_panel.h"
#include "views/view_predict.h"
#include "views/view_table.h"
#include "views/view_top.h"
#include "views/view_train.h"
#include "app/action.h"
#include "app/app.h"

static UiState ui;

/* The line of a step that takes seconds (app_work's), shown before it:
 * not a frozen screen. */
static unsigned ui_work(UiState *u)
{
    mvprintw(LINES - 1, 0, "%s", u->a.work_line);
    clrtoeol();
    /* curses believes the line blank (the frames are screen.c's): its
     * whole width written, or the status line's end stays after the text */
    wredrawln(stdscr, LINES - 1, 1);
    refresh();
    u->painted_ok = false; /* the line above is not the grid's: paint it all again */
    return app_work(&u->a);
}

/* Carry out what app_input, app_settle or app_poll returned; false to quit. */
static bool ui_do(UiState *u, unsigned bits)
{
    if (bits & APP_DO_WORK)
        bits |= ui_work(u);
    if (bits & APP_DO_NOMEM)
        term_die("out of memory");
    if (bits & APP_DO_FAIL)
        term_fail(u->a.fail_status, u->a.fail_msg);
    if (bits & APP_DO_QUIT)
        return false;
    if ((bits & APP_DO_TRAIN) && view_table_open(u, VIEW_ID_TRAIN))
        return false; /* quit from the live view */
    if (bits & APP_DO_EXPORT_SVG)
        save_svg(u);
    else if (bits & (APP_DO_EXPORT_HEAD | APP_DO_EXPORT_ALL))
        save_export(u, (bits & APP_DO_EXPORT_ALL) != 0);
    return true;
}

/* The frame composed at the terminal's size (frame.c), painted, shown. */
static void ui_frame(UiState *u)
{
    frame_draw(u, &u->grid, COLS, LINES);
    color_paint(u, &u->grid);
    refresh();
}

static void ui_loop(UiState *u)
{
    bool running = true, dirty = true;
    while (running && !term_signalled()) {
        if (dirty) {
            u->frame_t0 = term_now_ms(); /* the status line adds the drawing so far */
            ui_frame(u);
        }
        if (u->a.pred_due) /* a key waiting goes first, then the predictions */
            timeout(0);
        AppInput in;
        dirty = false;
        if (!input_read(u, &in)) { /* no key: what threads have done meanwhile */
            timeout(u->a.ses.computing ? 20 : 100);
            unsigned bits = app_poll(&u->a); /* the one poller */
            dirty = (bits & APP_DO_REDRAW) != 0;
            ui_do(u, bits);
            continue;
        }
        double t0 = term_now_ms();
        /* Take every key already waiting (a paste) before drawing again:
         * the burst's run is made once, at its end (app_settle). */
        timeout(0);
        do {
            dirty = true;
            /* too small to see: only quitting acts, other keys are refused */
            if (view_top_small_takes(COLS, LINES, &in))
                running = ui_do(u, app_input(&u->a, &in));
        } while (running && !term_signalled() && input_read(u, &in));
        if (running)
            ui_do(u, app_settle(&u->a));
        timeout(u->a.ses.computing ? 20 : 100);
        u->frame_ms = term_now_ms() - t0;
    }
}

int ui_run(const UiOptions *o)
{
    memset(&ui, 0, sizeof ui);
    app_open(&ui.a, o->weights, o->kind, o->cfg.weights_budget);
    if (o->kind && getenv("ATTNVIZ_BACKGROUND")) /* tests: a small model as a slow one */
        o->kind->background = true;
    if (o->kind) /* the lens on a thread: q and the keys are read meanwhile */
        o->kind->lens_background = true;
    if (app_init(&ui.a.app, &o->cfg, o->text, o->sentences, o->weights != NULL) != AV_OK) {
        fputs("attnviz: out of memory\n", stderr);
        return 1;
    }
    if (o->cross) {
        edit_set(&ui.a.app.cross, o->cross);
        ui.a.app.cross_on = true;
    }
    ui.a.app.max_layers = o->weights ? o->weights->L : AV_MAX_LAYERS;
    if (o->defaults && !o->weights && !o->kind)
        app_defaults(&ui.a, o->text != NULL);
    if (o->model_dir)
        lesson_state_use_model(&ui.a.lesson, o->model_dir, o->kind);
    if (o->lesson) /* the lesson's first page sets the screen up */
        lesson_state_start(&ui.a.lesson, o->lesson, &ui.a.app);
    term_signals();
    term_begin();
    color_init(&ui, ui_color_wanted(o->color, true));
    input_init(&ui);
    app_begin(&ui.a);
    mvprintw(0, 0, "attnviz: running the model on %zu bytes of text ...", ui.a.app.text.len);
    refresh(); /* a long text's first run takes seconds: say so, not a blank screen */
    ui_do(&ui, app_settle(&ui.a));
    if (!o->lesson || !ui.a.app.msg[0]) /* a lesson's first page may say what it cannot show */
        app_kind_line(&ui.a);
    if (o->weights) /* not a lesson page's model or weights: its page says them */
        snprintf(ui.a.app.msg, sizeof ui.a.app.msg,
                 "weights from --weights: d_model and seed are fixed");
    if (o->text && strlen(o->text) > EDIT_MAX_BYTES)
        snprintf(ui.a.app.msg, sizeof ui.a.app.msg, "the text was cut to its first %d MiB",
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
