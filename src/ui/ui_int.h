/* ui_int.h - what the files of the ncurses front end share: the UiState
 * (one instance, `static UiState ui` in ui.c, handed to the views by
 * pointer), the frame layout kept for mouse hits, and the functions of each
 * file. Private to src/ui/.
 */
#ifndef ATTNVIZ_UI_INT_H
#define ATTNVIZ_UI_INT_H

#include <curses.h>
#include <stdbool.h>

#include "grid.h"
#include "heatmap.h"
#include "model.h"
#include "plot.h"
#include "ui.h"
#include "uistate.h"

#define UI_MIN_W 60 /* below this size the "too small" notice is shown */
#define UI_MIN_H 18
#define UI_MAX_TILES AV_MAX_HEADS
#define UI_PE_POSITIONS 64 /* positions plotted in the PE view (more for long sentences) */

/* Extra key codes above ncurses' own, for keys it reports in other ways. */
enum { UIKEY_CTRL_LEFT = KEY_MAX + 1, UIKEY_CTRL_RIGHT, UIKEY_ALT_B, UIKEY_ALT_F };

typedef enum { DEPTH_MONO, DEPTH_8, DEPTH_256 } ColorDepth;

typedef struct {
    int x, y, w, h;
} Rect;

/* Where things were drawn in the last frame, for mapping clicks. */
typedef struct {
    Rect editor;            /* the sentence line */
    int editor_scroll;      /* display column shown first */
    int n_chips;
    Rect *chips;            /* one per query token (w = 0 when not shown) */
    int n_tiles;
    int tile_head[UI_MAX_TILES];
    HeatmapLayout tile[UI_MAX_TILES];
    Rect tile_rect[UI_MAX_TILES];
    bool have_focus;
    HeatmapLayout focus;
    PlotLayout pe, sim;
    bool have_pe, have_sim;
} UiLayout;

typedef struct {
    AppState app;
    UiOptions opt;
    bool begun;
    ColorDepth depth;
    HeatmapMode hmode;
    ModelWeights toy;          /* owned toy weights (when no --weights) */
    const ModelWeights *w;     /* the weights in use */
    ModelResult res;
    int run_err;               /* AV_OK or the last model_run error */
    Grid grid;
    /* Labels of the last run, sized once per token count. */
    const char **labels_q, **labels_k;
    char (*initials_q)[8], (*initials_k)[8]; /* first code point of each token */
    const char **ini_q, **ini_k;              /* pointers to them */
    int labels_cap;
    Rect *chips;
    float *PE, *sim;           /* (n_pos, d_model) and (n, n) for the PE view */
    size_t pe_cap, sim_cap;
    int first_row, first_col;  /* scroll of the focused heatmap */
    int pe_first;              /* scroll of the PE matrix */
    UiLayout lay;
    int key_ctrl_left, key_ctrl_right; /* ncurses codes of kLFT5 / kRIT5, or 0 */
    double frame_ms;           /* time of the last update + redraw */
} UiState;

/* ui.c */
void ui_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *ui_xrealloc(void *p, size_t size);
void ui_rerun(UiState *u, unsigned flags);

/* color.c */
void ui_color_init(UiState *u);
void ui_paint(const UiState *u, const Grid *g);

/* input.c */
typedef struct {
    Action action;
    int arg;
    char text[8];  /* typed UTF-8 when action == ACT_NONE, "" otherwise */
} UiInput;
/* Read one key (waiting at most the current timeout); false when none. */
bool ui_read_key(UiState *u, UiInput *in);
/* Draw the help overlay from the key table. */
void ui_help_draw(const UiState *u, Grid *g);
void ui_input_init(UiState *u);

/* mouse.c */
bool ui_mouse(UiState *u, UiInput *in);

/* view_top.c: title, sentence editor, chips, message and status lines. */
int ui_top_draw(UiState *u, Grid *g);          /* returns the rows used at the top */
void ui_bottom_draw(UiState *u, Grid *g);      /* the last two rows */
void ui_too_small_draw(Grid *g);

/* view_attn.c / view_pe.c: the middle of the screen. */
void ui_attn_draw(UiState *u, Grid *g, Rect r);
void ui_pe_draw(UiState *u, Grid *g, Rect r);

/* save.c */
void ui_export(UiState *u, bool all_heads);

#endif
