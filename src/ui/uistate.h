/* uistate.h - the types the files of the ncurses front end share: the
 * UiState (one instance, `static UiState ui` in ui.c, handed to every file
 * by pointer), the layout of the last frame kept for mouse hits, the caches
 * of data.c. Types only: no file's
 * functions are declared here, so every file may include it without a
 * circle. Private to src/ui/; no curses types.
 */
#ifndef ATTNVIZ_UISTATE_H
#define ATTNVIZ_UISTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "core/model.h"
#include "core/stats.h"
#include "render/axis.h"
#include "render/grid.h"
#include "render/heatmap.h"
#include "render/plot.h"

#define UI_MIN_W 60 /* below this size the "too small" notice is shown */
#define UI_MIN_H 18
#define UI_MAX_TILES AV_MAX_HEADS
#define UI_PE_POSITIONS 64         /* positions plotted in the PE view (more for long sentences) */
#define UI_POOL_SLOTS 24           /* pooled grids kept between frames */
#define UI_STATS_BUDGET (1L << 18) /* weights read per head for its entropy (then sampled) */

typedef enum { DEPTH_MONO, DEPTH_8, DEPTH_256 } ColorDepth;

typedef struct {
    int x, y, w, h;
} Rect;

/* Where the logit lens view drew its cells (views/lens.c), for clicks. */
typedef struct {
    bool have;
    int x0, y0;     /* the first cell */
    int cols, rows; /* positions and layers shown */
    int first_i, first_l;
} LensLayout;

/* Where things were drawn in the last frame, for mapping clicks. */
typedef struct {
    Rect editor;       /* the sentence line */
    int editor_scroll; /* display column shown first */
    int n_chips;
    Rect *chips; /* one per query token (w = 0 when not shown) */
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
    Rect cross_line; /* the second sentence, when shown */
    int cross_scroll;
    Rect view, page; /* the view shown and the lesson's page (w = 0: none) */
    LensLayout lens; /* the logit lens's cells, when it was drawn */
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
    App a; /* the program's state (app/app.h): what views draw */
    ColorDepth depth;
    HeatmapMode hmode;
    PoolSlot pool[UI_POOL_SLOTS];
    AttnPoolPlan plan; /* whole heads the next forward pools (data_plan_arm) */
    unsigned pool_clock;
    StatsCache stats[2]; /* of res and of res2 */
    float *row;          /* one row of weights computed on demand (lazy results) */
    int row_cap;
    char *panel; /* the text panel's text, lines split by '\n' */
    size_t panel_len;
    int *panel_lines; /* offsets of its lines */
    int panel_n, panel_cap;
    char panel_key[96];                 /* what it was made for */
    char label_text[80];                /* widget_head_label's */
    char hint_text[96];                 /* the status hint of a lesson page (view_top.c) */
    int long_first_row, long_first_col; /* scroll of the pooled view */
    Grid grid;
    /* color_paint's keys (screen.h) of the frame on the terminal and of the
     * next one, and what writes them. */
    struct Screen *screen;
    uint64_t *painted, *paint_next;
    size_t paint_cap;
    int painted_w, painted_h;
    bool painted_ok;
    bool paint_full;        /* ATTNVIZ_FULL_REDRAW: every frame cleared and drawn whole */
    const char *frame_file; /* ATTNVIZ_FRAME_FILE: frames counted there (color.c) */
    unsigned long frames;   /* frames written */
    /* Labels of the last run, sized once per token count. */
    const char **labels_q, **labels_k;
    char (*abbr_k)[24];  /* the focused head's key labels (view_attn.c) */
    const char **abbr_p; /* pointers to them */
    int labels_cap;
    Rect *chips;
    float *PE, *sim; /* (n_pos, d_model) and (n, n) for the PE view */
    size_t pe_cap, sim_cap;
    int first_row, first_col; /* scroll of the focused heatmap */
    int pe_first;             /* scroll of the PE matrix */
    UiLayout lay;
    AppLayout report;                  /* what this frame found, for app_layout (frame.c) */
    int key_ctrl_left, key_ctrl_right; /* ncurses codes of kLFT5 / kRIT5, or 0 */
    bool pasting;                      /* inside a bracketed paste: a tab or a line break is text */
    double frame_ms;                   /* time of the last update (model runs included) */
    double frame_t0;                   /* when the drawing of this frame began */
    struct HeadsView *hv; /* view_heads.c: where the two views of every head were drawn */
    bool no_clock;        /* frames drawn off-screen (the lesson checker): no times on
                             the status and cost lines, the same frame every run */
} UiState;

#endif
