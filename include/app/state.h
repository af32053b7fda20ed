/* state.h - the interface's state and its sentence editor, without curses.
 *
 * The ncurses front end (src/ui/) turns keys and clicks into Actions and
 * hands them to action_apply, which changes the state and says what must be
 * recomputed; it never runs the model and never touches the terminal, so it
 * is unit-tested (tests/app/test_state.c). The editor keeps the sentence as
 * valid UTF-8 with a cursor on a code point boundary.
 */
#ifndef ATTNVIZ_STATE_H
#define ATTNVIZ_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "app/edit.h"
#include "core/model.h"
#include "io/sentences.h"
#include "io/views.h"

#define APP_CROSS_DEFAULT "Le chat est assis sur le tapis" /* the second sentence */
#define APP_ZOOM_MAX 14  /* 16384 tokens halved 14 times is one token */
#define APP_MAX_MULTI 64 /* query rows summed together (M) */

typedef enum { MODE_BROWSE, MODE_EDIT } AppMode;
typedef enum { PANEL_NONE, PANEL_TRACE, PANEL_HEADS } AppPanel; /* text over the view */
typedef enum { CMP_NONE, CMP_MASK, CMP_HEADS } AppCompare;      /* side by side */

typedef enum {
    ACT_NONE,
    ACT_QUIT,
    ACT_HELP,      /* toggle the help overlay */
    ACT_EDIT,      /* start editing the sentence */
    ACT_EDIT_DONE, /* leave the editor (browse mode) */
    ACT_ESCAPE,    /* leave help, else leave the editor, else quit */
    ACT_HEAD_NEXT,
    ACT_HEAD_PREV,
    ACT_HEAD_SET, /* arg: 0-based head */
    ACT_ROW_NEXT, /* query token down */
    ACT_ROW_PREV,
    ACT_ROW_PGDN,
    ACT_ROW_PGUP,
    ACT_ROW_FIRST,
    ACT_ROW_LAST,
    ACT_ROW_SET,  /* arg: 0-based query token; clears the key selection */
    ACT_CELL_SET, /* a cell: action_select_cell (row and column), not action_apply */
    ACT_COL_NEXT, /* key token right */
    ACT_COL_PREV,
    ACT_MASK,
    ACT_PE,
    ACT_SCALE,
    ACT_HEADS_DEC,
    ACT_HEADS_INC,
    ACT_DMODEL_DEC,
    ACT_DMODEL_INC,
    ACT_SEED_DEC,
    ACT_SEED_INC,
    ACT_LAYER_NEXT,
    ACT_SENT_NEXT,
    ACT_SENT_PREV,
    ACT_EXPORT_HEAD,
    ACT_EXPORT_ALL,
    ACT_DIMS_NEXT, /* positional encodings: next pair of plotted dimensions */
    ACT_DIMS_PREV,
    ACT_PRESET,     /* designed heads <-> random toy weights */
    ACT_HEADS_HELP, /* how each head was built (a panel) */
    ACT_TEMP_DOWN,  /* temperature x0.5 */
    ACT_TEMP_UP,    /* temperature x2 */
    ACT_LAYER_PREV,
    ACT_LAYERS_DEC, /* fewer / more encoder layers */
    ACT_LAYERS_INC,
    ACT_CROSS,      /* cross-attention on/off: keys and values from a second sentence */
    ACT_EDIT_CROSS, /* edit the second sentence */
    ACT_FIELD_NEXT, /* editing: the other sentence (cross-attention), else next head */
    ACT_POOL,       /* max <-> mean pooling of long texts */
    ACT_ZOOM_IN,    /* long texts: half as many tokens, around the selection */
    ACT_ZOOM_OUT,
    ACT_ZOOM_ALL,
    ACT_CUR_LEFT,
    ACT_CUR_RIGHT,
    ACT_CUR_HOME,
    ACT_CUR_END,
    ACT_WORD_LEFT,
    ACT_WORD_RIGHT,
    ACT_BACKSPACE,
    ACT_DELETE,
    ACT_DEL_WORD,
    ACT_CLEAR,
    ACT_GENERATE,         /* a trained model (--model): the next token (src/ui/trained.c) */
    ACT_COMBINE_HEADS,    /* heads combined: mean, max, sum, off (app/combine/combsrc.c) */
    ACT_ROLLOUT,          /* attention rollout across layers on/off */
    ACT_NORMS,            /* value-weighted norms beside the weights on/off (own models) */
    ACT_MULTI_ROW,        /* the selected query token in/out of the rows summed together */
    ACT_LESSONS,          /* open the list of lessons (APP_LESSONS) */
    ACT_EXPORT_SVG,       /* the view as SVG to a new file (APP_EXPORT_SVG) */
    ACT_LESSON_TEXT_UP,   /* a lesson page's narration: scroll back / on (when it */
    ACT_LESSON_TEXT_DOWN, /* does not fit its panel; the panel clamps the scroll) */
    ACT_TRAIN_PAUSE,      /* the live training view's keys (trainview_apply): pause / go on */
    ACT_TRAIN_STEP,       /* one step, then paused */
    ACT_TRAIN_FASTER,     /* more / fewer steps a frame */
    ACT_TRAIN_SLOWER,
    ACT_TRAIN_RESET, /* start again from step 0 with the next seed */
    ACT_TRAIN_SAVE,  /* the model to a new folder (the front end names it) */
    ACT_SINK,        /* what-if: each row without the first token's weight, on / off */
/* each view's key (io/views.def: ACTION(NAME) is ACT_NAME): ACT_PIPELINE,
 * ACT_TRACE, ACT_VIEW (attention <-> the PE view), ACT_CMP_MASK,
 * ACT_CMP_HEADS, ACT_LENS, ACT_HEAD_TABLE, ACT_MODEL_VIEW, ACT_TRAIN */
#define VIEW_ROW(id, name, what, needs, home, state, act, ...) act
#define ACTION(a) ACT_##a,
#define NO_ACTION
#include "io/views.def"
    ACT_COUNT
} Action;

/* What action_apply asks of the caller. */
#define APP_RUN 1u     /* re-run the model (text or settings changed) */
#define APP_WEIGHTS 2u /* rebuild the toy weights first (seed or d_model changed) */
#define APP_QUIT 4u
#define APP_EXPORT_HEAD 8u
#define APP_EXPORT_ALL 16u
#define APP_CURSOR 32u      /* the editor's cursor moved: the selection may follow it */
#define APP_LESSONS 256u    /* open the list of lessons (the interface holds them) */
#define APP_VIEW 64u        /* the pooled view changed (zoom, pooling): redraw the cells */
#define APP_TRAIN 128u      /* open the live training view */
#define APP_EXPORT_SVG 512u /* write the view as SVG */

typedef struct {
    ModelConfig cfg;
    EditBuf text;
    EditBuf cross; /* the second sentence: keys and values when cross_on */
    bool cross_on;
    int field; /* the sentence typing goes to: 0 text, 1 cross */
    AppMode mode;
    ViewId view; /* the base view: its own (pipeline, PE, lens) or VIEW_ID_ATTN */
    bool help;
    int help_scroll;    /* first line of each help column asked for (a short screen); kept
                           through a resize, the frame shows at most help_most */
    int help_most;      /* the last first line the help's frame can show, -1 before one */
    bool help_refused;  /* a key the help does not take was pressed while it was shown */
    bool fixed_weights; /* --weights: d_model and seed cannot change */
    int head;           /* focused head, 0-based */
    int layer;          /* shown layer, 0-based */
    int sel_row;        /* selected query token, or -1 */
    int sel_col;        /* selected key token (the inspected cell), or -1 */
    int n_q, n_k;       /* tokens of the last model run (0 after an error) */
    int page;           /* rows of a page for PgUp/PgDn */
    int pipe_page;      /* the page of the pipeline view shown (clamped when drawn) */
    int pe_dim;         /* first plotted dimension of the PE view (even) */
    AppPanel panel;     /* a text panel over the view, or PANEL_NONE */
    int panel_scroll;   /* first line of the panel shown */
    int lesson_scroll;  /* first line of a lesson page's narration shown */
    bool note_shown;    /* msg holds the shown example's note: it goes with the example */
    AppCompare compare;
    int multi[APP_MAX_MULTI]; /* query rows summed together (M), 0-based */
    int n_multi;
    int zoom;               /* long texts: 0 shows every token; each level halves them */
    bool recentre;          /* the next frame centres the pooled view on the selection */
    bool pool_mean;         /* mean pooling, else max */
    int row_step, col_step; /* tokens one key moves the selection (a screen row's worth) */
    int max_layers;         /* the most layers the weights have (--weights), else AV_MAX_LAYERS */
    const SentenceList *sentences;
    int sentence;                             /* index of the example shown, or -1 after editing */
    int example_at;                           /* the example last shown, kept through editing (n and
                                                 p go on from it), or -1 before any */
    char example_weights[SENTENCES_NAME_MAX]; /* the shown example's own weights
                                                 (assets/NAME), "" when none */
    ModelConfig cfg_before;                   /* the configuration before those weights came */
    bool cli_fixed;       /* fixed_weights as the command line set it (--weights) */
    bool lesson_kept;     /* a lesson was left (Esc): its page's weights, settings and
                             sentence stay on screen until an example (n, p) replaces
                             them all together */
    ModelConfig cfg_home; /* the configuration before the lesson began */
    int max_layers_home;  /* max_layers before the lesson began */
    char want_token[SENTENCES_NAME_MAX]; /* select this token after the next run */
    char msg[320];                       /* a message for the status line(s), "" when none */
    const char *msg_once;                /* a line answering the last key only: while msg is still
                                            it, the next key (app_input) clears it; NULL none */
} AppState;

/* Set up from a configuration and a starting text (NULL: the first example).
 * Returns AV_OK or AV_ERR_NOMEM. */
int app_init(AppState *s, const ModelConfig *cfg, const char *text, const SentenceList *sentences,
             bool fixed_weights);
void app_free(AppState *s);

/* Insert typed or pasted text at the cursor (edit mode). Returns APP_RUN when
 * the text changed. */
unsigned app_type(AppState *s, const char *bytes, size_t n);

/* The counts of a result: every layer, head and row index the state holds
 * must be below them. */
typedef struct {
    int L, H;     /* layers and heads (of one layer) */
    int n_q, n_k; /* query and key tokens; 0, 0 when the run failed */
} AppFit;

/* Whenever the result the views read was replaced (a run after new settings,
 * an example, a model, a lesson page, keys taken in one burst): bring every
 * index the state holds within fit before anything reads it. The layer and
 * the head are clamped (and never negative), the selected row and key too
 * (-1 when there are no tokens), the rows summed together (M) that the result
 * no longer has are dropped, the pipeline's page is made non-negative (its
 * end is clamped when drawn). The configuration's layer and head counts,
 * which the views and the exports count by, become the result's (imported
 * attention and a trained model have their own; a lesson's page may have set
 * others). A failed run (n_q 0) leaves the configuration and keeps the layer
 * and head within L and H, which the caller gives from the configuration
 * then. */
void app_fit_result(AppState *s, const AppFit *fit);

/* The status line says m (until a later message replaces it). */
void app_msg(AppState *s, const char *m);
/* A line that answers this key only, m a literal: the next key takes it away. */
void app_msg_once(AppState *s, const char *m);

/* The status line's message gone with what it was about (a view left, the
 * editor opened); an example's note stays with its sentence. */
void app_drop_msg(AppState *s);

/* After a model run: the token counts (0, 0 after an error); app_fit_result
 * with the configuration's layers and heads. */
void app_set_tokens(AppState *s, int n_q, int n_k);

/* Views (io/views.h's table) on the state: a view is the base view (view),
 * a text panel over it (panel) and side by side (compare). Show view v:
 * those three set as v needs (the trace: its panel over the attention
 * view; heads: the attention view, whose small multiples show every head),
 * the panel's scroll back at its top; true. A view the state does not hold
 * (its home not VIEW_HOME_STATE: the interface keeps it) leaves s as it is:
 * false. An id out of range shows the attention view. */
bool app_view_show(AppState *s, ViewId v);

/* Back to view home (a lesson page's own) from what was opened over it: a
 * panel, a comparison, another view, M's rows summed; true when something
 * was closed, false when home is what shows (s as it is). A view of
 * another home stands for the attention view. */
bool app_view_back(AppState *s, ViewId home);

/* The view drawn under any text panel, with the precedence the interface
 * draws by: a base view of its own (the pipeline, the PE view, the lens),
 * else side by side, else the attention view. */
ViewId app_view_base(const AppState *s);

/* The view whose key is action a (views.def's ACTION), or VIEW_ID_COUNT. */
ViewId app_view_of_action(Action a);

/* A key of view v that is a base view of its own (the pipeline, the lens):
 * show it, or back to the attention view when it is shown; panels and side
 * by side stay as they are, under it. false (s as it is) for any other v. */
bool app_view_toggle(AppState *s, ViewId v);

/* What the state needs (VIEW_NEEDS_*): the base view's, the trace panel's
 * when it is open, and the flipped run while side by side with the mask
 * is kept under the pipeline or PE view (it comes back with Esc or S
 * without a run). */
unsigned app_view_needs(const AppState *s);

/* The buffer typing goes to: the second sentence when editing it. */
EditBuf *app_field(AppState *s);

#endif
