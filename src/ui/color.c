/* color.c - the semantic styles and colour levels of a Grid mapped to
 * terminal colours and attributes, and the Grid painted (screen.c writes it).
 *
 * Three depths: 256 colours (the perceptual ramps of grid.c as cell
 * backgrounds, numbers in a contrasting foreground), 8 colours (shade glyphs
 * tinted by a coarse ramp) and monochrome (shade glyphs, bold and reverse),
 * the last for --color never, NO_COLOR or a terminal without colour.
 */
#include "color.h"

#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui/screen.h"
#include "term.h"

#define MASKED_COLOR 236 /* a masked half block: STYLE_MASKED's background */

/* Foreground and background of each style at 256 and at 8 colours (-1 = default). */
static const short style256[STYLE_COUNT][2] = {
    [STYLE_TEXT] = {-1, -1},    [STYLE_DIM] = {245, -1},       [STYLE_TITLE] = {81, -1},
    [STYLE_LABEL] = {117, -1},  [STYLE_LABEL_SEL] = {16, 220}, [STYLE_MASKED] = {244, 236},
    [STYLE_ACCENT] = {214, -1}, [STYLE_STATUS] = {231, 24},
};
static const short style8[STYLE_COUNT][2] = {
    [STYLE_TEXT] = {-1, -1},
    [STYLE_DIM] = {-1, -1},
    [STYLE_TITLE] = {COLOR_CYAN, -1},
    [STYLE_LABEL] = {COLOR_CYAN, -1},
    [STYLE_LABEL_SEL] = {COLOR_BLACK, COLOR_YELLOW},
    [STYLE_MASKED] = {COLOR_RED, -1},
    [STYLE_ACCENT] = {COLOR_YELLOW, -1},
    [STYLE_STATUS] = {COLOR_WHITE, COLOR_BLUE},
};

/* A weight level on 8 colours: blue, cyan, green, yellow. */
static short coarse8(int level)
{
    static const short ramp[4] = {COLOR_BLUE, COLOR_CYAN, COLOR_GREEN, COLOR_YELLOW};
    return ramp[(level < 0 ? 0 : level > 15 ? 15 : level) / 4];
}

/* A signed level on 8 colours: background and foreground. */
static void diverge8(int level, short *fg, short *bg)
{
    static const short bgs[GRID_LEVELS] = {COLOR_BLUE,  COLOR_BLUE,   COLOR_BLUE,   COLOR_BLUE,
                                           COLOR_BLUE,  COLOR_CYAN,   COLOR_CYAN,   COLOR_WHITE,
                                           COLOR_WHITE, COLOR_YELLOW, COLOR_YELLOW, COLOR_RED,
                                           COLOR_RED,   COLOR_RED,    COLOR_RED,    COLOR_RED};
    *bg = bgs[level];
    *fg = *bg == COLOR_BLUE || *bg == COLOR_RED ? COLOR_WHITE : COLOR_BLACK;
}

void color_init(UiState *u, bool allowed)
{
    u->depth = DEPTH_MONO;
    if (allowed && has_colors()) {
        start_color();
        use_default_colors();
        if (COLORS >= 256)
            u->depth = DEPTH_256;
        else if (COLORS >= 8)
            u->depth = DEPTH_8;
    }
    u->hmode = u->depth == DEPTH_256 ? HEATMAP_COLOR : HEATMAP_GLYPH;
    const char *full = getenv("ATTNVIZ_FULL_REDRAW"); /* tests/e2e/tui_paint.sh */
    u->paint_full = full && *full && strcmp(full, "0") != 0;
    const char *frames = getenv("ATTNVIZ_FRAME_FILE"); /* tests/e2e/lib/tui.sh */
    u->frame_file = frames && *frames ? frames : NULL;
    u->screen = screen_new(u->depth == DEPTH_256 ? 256 : u->depth == DEPTH_8 ? 8 : 0);
}

static unsigned mono_attr(const Cell *c)
{
    switch (c->style) {
    case STYLE_DIM: return SCREEN_DIM;
    case STYLE_TITLE: return SCREEN_BOLD;
    case STYLE_LABEL_SEL: return SCREEN_REVERSE | SCREEN_BOLD;
    case STYLE_MASKED: return SCREEN_DIM;
    case STYLE_ACCENT: return SCREEN_BOLD;
    case STYLE_STATUS: return SCREEN_REVERSE;
    case STYLE_HEAT: return c->level >= GRID_LEVELS / 2 ? SCREEN_REVERSE : 0;
    case STYLE_DIVERGE: return c->level >= GRID_LEVELS / 2 ? SCREEN_REVERSE : 0;
    default: return 0;
    }
}

/* A two-level cell's colours: the upper row's as the glyph's, the lower's
 * behind it. */
static void half_colors(const UiState *u, const Cell *c, int *fg, int *bg)
{
    int up = grid_half_up(c->level), lo = grid_half_lo(c->level);
    if (u->depth == DEPTH_256) {
        *fg = c->flags & GRID_CELL_UP_MASKED ? MASKED_COLOR : grid_ramp_color(up);
        *bg = c->flags & GRID_CELL_LO_MASKED ? MASKED_COLOR : grid_ramp_color(lo);
    } else {
        *fg = c->flags & GRID_CELL_UP_MASKED ? COLOR_RED : coarse8(up);
        *bg = c->flags & GRID_CELL_LO_MASKED ? COLOR_RED : coarse8(lo);
    }
}

/* Colours of a cell at 256 or 8 colours; returns its attributes. */
static unsigned color_look(const UiState *u, const Cell *c, int *fg, int *bg)
{
    bool deep = u->depth == DEPTH_256;
    int k = c->level < GRID_LEVELS ? c->level : GRID_LEVELS - 1;
    if (c->flags & GRID_CELL_HALF) {
        half_colors(u, c, fg, bg);
        return 0;
    }
    switch (c->style) {
    case STYLE_HEAT:
        *fg = deep ? grid_ramp_text_color(k) : coarse8(k);
        *bg = deep ? grid_ramp_color(k) : -1;
        break;
    case STYLE_DIVERGE: {
        short f, b;
        if (deep)
            f = (short)grid_diverge_text_color(k), b = (short)grid_diverge_color(k);
        else
            diverge8(k, &f, &b);
        *fg = f, *bg = b;
        break;
    }
    case STYLE_BAR:
        *fg = deep ? grid_ramp_color(k < 5 ? 5 : k) : coarse8(k);
        *bg = -1;
        break;
    default: {
        const short *p = deep ? style256[c->style % STYLE_COUNT] : style8[c->style % STYLE_COUNT];
        *fg = p[0], *bg = p[1];
    }
    }
    unsigned a = 0;
    if (c->style == STYLE_TITLE || c->style == STYLE_LABEL_SEL || c->style == STYLE_ACCENT)
        a |= SCREEN_BOLD;
    if (!deep && (c->style == STYLE_DIM || c->style == STYLE_MASKED))
        a |= SCREEN_DIM;
    if (!deep && c->style == STYLE_HEAT && c->level >= 12)
        a |= SCREEN_BOLD;
    if ((c->flags & CELL_SELECTED) && c->style == STYLE_HEAT)
        a |= SCREEN_UNDERLINE;
    return a;
}

/* What a cell shows, as one number (screen.h); SCREEN_BLANK for a plain
 * space, what a cleared screen holds. */
static uint64_t paint_key(const UiState *u, const Cell *c)
{
    if (c->cp == ' ' && c->style == STYLE_TEXT && !c->flags)
        return SCREEN_BLANK;
    int fg = -1, bg = -1;
    unsigned a = u->depth == DEPTH_MONO ? mono_attr(c) : color_look(u, c, &fg, &bg);
    if (c->flags & CELL_SELECTED)
        a |= SCREEN_BOLD;
    if (c->flags & CELL_CURSOR)
        a ^= SCREEN_REVERSE;
    return screen_key(c->cp, fg, bg, a);
}

/* Each cell's key into u->paint_next. */
static void paint_keys(UiState *u, const Grid *g, int w, int h)
{
    size_t n = (size_t)w * (size_t)h;
    if (n > u->paint_cap) {
        u->painted = term_xrealloc(u->painted, n * sizeof *u->painted);
        u->paint_next = term_xrealloc(u->paint_next, n * sizeof *u->paint_next);
        u->paint_cap = n;
        u->painted_ok = false;
    }
    for (int y = 0; y < h; y++) {
        const Cell *c = &g->cells[(long)y * g->w];
        uint64_t *k = u->paint_next + (long)y * w;
        for (int x = 0; x < w; x++)
            k[x] = paint_key(u, &c[x]);
    }
}

/* ATTNVIZ_FRAME_FILE=PATH: after each frame PATH holds "N idle" or "N busy"
 * (N frames written so far; busy: app_busy, another frame follows with no
 * key), so that a test waits for the frame a key made instead of polling
 * the screen until it stops changing.
 * Written beside PATH and renamed: a reader never sees half of it. The
 * terminal's title is set to "attnviz frame N" after the frame's bytes: a
 * terminal that shows that title has drawn the whole frame. */
static void frame_report(UiState *u)
{
    if (!u->frame_file)
        return;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.new", u->frame_file) >= (int)sizeof tmp)
        return;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    bool busy = app_busy(&u->a);
    fprintf(f, "%lu %s\n", ++u->frames, busy ? "busy" : "idle");
    if (fclose(f) == 0)
        rename(tmp, u->frame_file);
    char osc[64];
    int n = snprintf(osc, sizeof osc, "\033]2;attnviz frame %lu\033\\", u->frames);
    if (write(STDOUT_FILENO, osc, (size_t)n) < 0)
        return; /* a test's aid: the test sees no title and waits longer */
}

static void paint(UiState *u, const Grid *g)
{
    /* What curses means to write itself (after a resize, Ctrl-L, the first
     * notice, or still in its buffer before a first frame) goes out first,
     * and this frame whole over it. */
    if (!u->painted_ok || is_wintouched(stdscr) || is_cleared(curscr) || is_cleared(stdscr)) {
        erase();
        refresh();
        u->painted_ok = false;
    }
    int h = g->h < LINES ? g->h : LINES, w = g->w < COLS ? g->w : COLS;
    if (w <= 0 || h <= 0) {
        screen_frame(u->screen, NULL, NULL, 0, 0);
        u->painted_ok = false;
        return;
    }
    paint_keys(u, g, w, h);
    bool diff = !u->paint_full && u->painted_ok && u->painted_w == w && u->painted_h == h;
    bool whole = screen_frame(u->screen, u->paint_next, diff ? u->painted : NULL, w, h);
    uint64_t *t = u->painted;
    u->painted = u->paint_next, u->paint_next = t;
    u->painted_w = w, u->painted_h = h;
    u->painted_ok = whole;
}

void color_paint(UiState *u, const Grid *g)
{
    paint(u, g);
    frame_report(u);
}

void color_free(UiState *u)
{
    free(u->painted), free(u->paint_next);
    u->painted = u->paint_next = NULL;
    u->paint_cap = 0;
    u->painted_ok = false;
    screen_free(u->screen);
    u->screen = NULL;
}
