/* ui_int.h - what the files of the ncurses front end share: the UiState
 * (one instance, `static UiState ui` in ui.c, handed to the views by
 * pointer), the frame layout kept for mouse hits, and the functions of each
 * file. Private to src/ui/.
 */
#ifndef ATTNVIZ_UI_INT_H
#define ATTNVIZ_UI_INT_H

#include <curses.h>
#include <stdbool.h>

#include "render/grid.h"
#include "render/heatmap.h"
#include "core/model.h"
#include "render/plot.h"
#include "ui/ui.h"
#include "app/state.h"
#include "core/stats.h"
#include "render/axis.h"

#define UI_MIN_W 60 /* below this size the "too small" notice is shown */
#define UI_MIN_H 18
#define UI_MAX_TILES AV_MAX_HEADS
#define UI_PE_POSITIONS 64 /* positions plotted in the PE view (more for long sentences) */
#define UI_POOL_SLOTS 24   /* pooled grids kept between frames */
#define UI_STATS_BUDGET (1L << 18) /* weights read per head for its entropy (then sampled) */

/* Cell flags of the UI's own, beside grid.h's: a half-block cell whose level
 * holds two levels, the upper cell's in bits 0-3 (foreground of ▀) and the
 * lower cell's in bits 4-7 (background); a masked half has its own flag. */
#define UI_CELL_HALF 0x80u
#define UI_CELL_UP_MASKED 0x40u
#define UI_CELL_LO_MASKED 0x20u

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
    bool have_long;         /* the focused head was drawn pooled */
    int long_x, long_y;     /* its first cell */
    int long_rows, long_cw; /* screen rows and columns per cell */
    bool long_half;         /* two cells a screen row */
    ViewAxis long_r, long_c;
    Rect cross_line;        /* the second sentence, when shown */
    int cross_scroll;
} UiLayout;

/* A pooled grid kept for the next frames: recomputed only when the view or
 * the model changes. */
typedef struct {
    const ModelResult *res;
    unsigned gen;
    int layer, h, r0, r1, c0, c1, gh, gw;
    bool mean;
    unsigned stamp; /* last use */
    float *buf;
    size_t cap;
} PoolSlot;

/* The entropy and largest weights of every head of one result's layer. */
typedef struct {
    const ModelResult *res;
    unsigned gen;
    int layer, H;
    HeadStats *st;
    int cap;
} StatsCache;

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
    ModelResult res2;          /* side by side: the same with the mask flipped */
    int run_err2;
    unsigned gen, gen2;        /* bumped by every run of res / res2 (cache keys) */
    unsigned gen_clock;
    double run_ms;             /* time of the last model run */
    double budget;             /* weights_budget for the runs (--budget), 0 = default */
    PoolSlot pool[UI_POOL_SLOTS];
    unsigned pool_clock;
    StatsCache stats[2];       /* of res and of res2 */
    float *row;                /* one row of weights computed on demand (lazy results) */
    int row_cap;
    char *panel;               /* the text panel's text, lines split by '\n' */
    size_t panel_len;
    int *panel_lines;          /* offsets of its lines */
    int panel_n, panel_cap;
    char panel_key[96];        /* what it was made for */
    int long_first_row, long_first_col; /* scroll of the pooled view */
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
    double frame_ms;           /* time of the last update (model runs included) */
    double frame_t0;           /* when the drawing of this frame began */
} UiState;

/* ui.c */
void ui_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *ui_xrealloc(void *p, size_t size);
void ui_rerun(UiState *u, unsigned flags);
double ui_now_ms(void); /* CLOCK_MONOTONIC in milliseconds */

/* ui_data.c: the numbers the views draw, computed on demand and cached. */
/* Head h's weights (n_q, n_k) when kept, else NULL (a long text). */
const float *ui_head_P(const UiState *u, const ModelResult *r, int layer, int h);
/* Row i of head h's weights (n_k): from P, or computed into a buffer. */
const float *ui_row(UiState *u, const ModelResult *r, int layer, int h, int i);
/* Head h pooled over the two axes (ar.cells x ac.cells), cached. */
const float *ui_pooled(UiState *u, const ModelResult *r, int layer, int h, const ViewAxis *ar,
                       const ViewAxis *ac);
/* The statistics of head h of res (which 0) or res2 (1) at the shown layer. */
const HeadStats *ui_stats(UiState *u, int which, int h);
/* The generation of a result (res or res2). */
unsigned ui_gen(const UiState *u, const ModelResult *r);
void ui_data_free(UiState *u);

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
/* view_attn.c, shared with view_long.c and view_cmp.c */
void ui_rect_clear(Grid *g, Rect r);
int ui_stats_text(const HeadStats *st, bool wide, char *buf, size_t size);
void ui_info_draw(UiState *u, Grid *g, Rect r, const ModelResult *res, int h);
void ui_tint_cells(const UiState *u, Grid *g, const HeatmapSpec *sp, const HeatmapLayout *l);
/* view_long.c: a long text pooled to the screen. */
bool ui_long_wanted(const UiState *u, Rect r);
void ui_long_draw(UiState *u, Grid *g, Rect r);
/* Draw head h of res pooled into r (title, cells, labels, readout); keeps
 * the layout for clicks when main. */
void ui_long_head(UiState *u, Grid *g, Rect r, const ModelResult *res, int h, const char *title,
                  bool main);
/* view_cmp.c: two heatmaps side by side. */
void ui_cmp_draw(UiState *u, Grid *g, Rect r);
/* view_panel.c: the calculation trace and how the heads were built. */
void ui_panel_draw(UiState *u, Grid *g, Rect r);
void ui_pe_draw(UiState *u, Grid *g, Rect r);

/* save.c */
void ui_export(UiState *u, bool all_heads);

#endif
