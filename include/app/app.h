/* app.h - the one entry of the interface into the program's state: every
 * key and click, as an AppInput, goes to app_input, which routes it (a
 * lesson's page or list, the head scores table and the model view, the
 * session: what the kind refuses, g, M and the combining views; editing;
 * the action table), runs what it asks when its answer reads the result,
 * and returns what the interface must do, as APP_DO_* bits (in the manner
 * of htop's Htop_Reaction). The interface reads input, calls app_input,
 * draws; between bursts of input app_settle runs what the burst asked for,
 * app_poll (the one poller) takes what threads did meanwhile, and after
 * each frame app_layout takes what the frame found. No curses: the tests
 * in tests/app/ drive it with key sequences.
 */
#ifndef ATTNVIZ_APP_H
#define ATTNVIZ_APP_H

#include <stdbool.h>

#include "app/headtable.h"
#include "app/lensview.h"
#include "app/lesson.h"
#include "app/session.h"
#include "app/state.h"
#include "app/trainview.h"

/* One input: an Action with its arguments, or typed text. */
typedef struct {
    Action action;
    int arg;        /* ACT_HEAD_SET: the head; ACT_ROW_SET, ACT_CELL_SET: the row */
    int col;        /* ACT_CELL_SET: the column */
    char text[8];   /* typed UTF-8 when action == ACT_NONE, "" otherwise */
    int lesson_in;  /* with a lesson shown: LessonInput + 1 for the key, else 0 */
    int lesson_arg; /* its character, for LESSON_IN_CHAR */
    char key[16];   /* a key bound to nothing (action ACT_NONE, no text): its name ("*"),
                     * for a view to say it does nothing there; "" otherwise */
} AppInput;

/* What the interface must do (app_input's, app_settle's, app_work's,
 * app_poll's bits). */
#define APP_DO_REDRAW 1u      /* the state changed: draw again */
#define APP_DO_QUIT 2u        /* end the program */
#define APP_DO_EXPORT_HEAD 4u /* write the focused head (the result is up to date) */
#define APP_DO_EXPORT_ALL 8u  /* write every head */
#define APP_DO_EXPORT_SVG 16u /* write the view as SVG */
#define APP_DO_TRAIN 32u      /* open the live training view */
#define APP_DO_WORK 64u       /* a step of seconds waits: show work_line, then app_work */
#define APP_DO_NOMEM 128u     /* out of memory: the program cannot go on */
#define APP_DO_FAIL 256u      /* a bad file found late: fail_msg, exit status fail_status */

/* What a frame found while it drew, for the state to follow (app_layout):
 * views draw from the state they are given and write none of it. -1 (or
 * false): that view was not drawn. */
typedef struct {
    int page;     /* rows PgUp/PgDn move (the view's rows shown) */
    int row_step; /* tokens an arrow moves (a pooled screen row's worth) */
    int col_step;
    int zoom_max;     /* the pooled view's deepest zoom (one token a cell) */
    bool recentred;   /* the pooled view centred itself on the selection */
    int pipe_page;    /* the pipeline page drawn */
    bool stage_shown; /* ... the one the lesson asked for (want_stage) */
    bool no_trace;    /* the trace panel had no token to trace */
    bool note_gone;   /* the status line held an example's note, its sentence gone */
    bool pred_wanted; /* the predictions drawn are not the selected row's of this run */
    int panel_most;   /* the panel's last first line */
    int help_most;    /* the help's */
    int lesson_most;  /* the lesson narration's */
    int table_pages;  /* the pages of scores the head scores table has (Tab turns them) */
} AppLayout;

/* An AppLayout of nothing drawn. */
void app_layout_clear(AppLayout *l);

typedef enum { APP_WORK_NONE, APP_WORK_SCORES, APP_WORK_RUN, APP_WORK_LENS } AppWork;

typedef struct App {
    AppState app;        /* the settings, the sentence, the selection, the view */
    Session ses;         /* the weights, the kind, the results and the runs */
    LessonState lesson;  /* the lesson shown, and the list of lessons */
    HeadTable heads;     /* the head scores table and the model view */
    LensView lens;       /* the logit lens view's layer and lens */
    unsigned pending;    /* APP_RUN | APP_WEIGHTS | APP_CURSOR a burst asked for */
    AppWork work;        /* the slow step app_work does next */
    char work_line[128]; /* its line, shown before it */
    TrainView *train;    /* the live training run W opened, kept for the next W */
    bool pred_due;       /* a frame wanted the predictions asked again (app_poll) */
    bool example_cut;    /* the example's sentence was cut to the model's context */
    int fail_status;     /* APP_DO_FAIL's */
    char fail_msg[512];
} App;

/* Zero a and start the session on fixed weights (or NULL) and the command
 * line's kind (or NULL), with budget as --budget gave it. app_init and the
 * rest of the set-up follow on a->app. */
void app_open(App *a, const ModelWeights *fixed, Kind *kind, double budget);

/* Free what a holds (the fixed weights and the kind stay the caller's). */
void app_close(App *a);

/* The live training run of task (W: "induction") with the interface's
 * seed, in a->train: the one kept when its task and seed are the same (W
 * again resumes where Esc left it), else a new one. Returns AV_OK,
 * AV_ERR_NOMEM, or another error with its reason in a->app.msg. */
int app_train_open(App *a, const char *task);

/* Take one input: APP_DO_* bits. The run it asks for is added to
 * a->pending and made once for a burst (app_settle), unless this input
 * reads the result (a lesson's answer, M, g) or exports it: then first. */
unsigned app_input(App *a, const AppInput *in);

/* No --preset or sizes given (nor weights, nor a kind): open on the designed
 * heads (heads that mean something) and, when no text was given
 * (text_given false), on the first example with its setting and note, as
 * n and N load it (the mask and PE of -c and --no-pe stand). */
void app_defaults(App *a, bool text_given);

/* After app_init and the command line's settings: the causal flag the
 * kind found (a large file's layer 0 until its check ends), the first run
 * asked for (app_settle makes it). */
void app_begin(App *a);

/* The kind's own line on the status line (a trained model's task and
 * context, an imported file's sizes), when it has one: after the first
 * run, and when the kind's check changes what it says; not over the line
 * saying the example was cut to the model's context. */
void app_kind_line(App *a);

/* What threads did meanwhile, polled once: the kind (a large file's check:
 * a bad value is APP_DO_FAIL, with fail_msg and fail_status, the rollout's
 * thread stopped; its end may change the causal flag: a run), the
 * rollout's layers (a run when more are done, a progress line), a run
 * the kind finished off the key path (the newest text's result); first,
 * the next-token predictions a frame wanted (pred_due: the unembedding of
 * a large vocabulary costs a real model tens of milliseconds, so they are
 * asked when no key waits, never while typing), and the logit lens of the
 * newest result while the lens view shows it (L + 1 unembeddings of each
 * position the kind's cache does not keep: the same reason). Call when no
 * key came for a while. APP_DO_REDRAW when the screen changed. */
unsigned app_poll(App *a);

/* Whether another frame is to come with no key: a model run or the
 * predictions on their way, a slow step (the head scores, a run, the lens)
 * announced and not yet made, the logit lens of the result shown still
 * computing. */
bool app_busy(const App *a);

/* After each frame: the state follows what the frame found (the page and
 * steps the arrows move, scrolls and pages clamped to what there is, the
 * zoom to its deepest, the trace closed when it has nothing). Returns true
 * when the frame must be drawn again (a status line or a panel changed). */
bool app_layout(App *a, const AppLayout *l);

/* After a burst of inputs: the outputs a view needs, then the burst's run.
 * APP_DO_WORK when the run takes seconds (the caller shows work_line, then
 * calls app_work); APP_DO_NOMEM; else 0. */
unsigned app_settle(App *a);

/* The slow step app_input or app_settle announced (APP_DO_WORK): the head
 * scores, the run, or the first lens of the text the lens view opened on
 * (L + 1 unembeddings of every position: seconds for a GPT-2). Returns APP_DO_* bits. */
unsigned app_work(App *a);

#endif
