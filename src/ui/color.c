/* color.c - the semantic styles and colour levels of a Grid mapped to curses
 * colour pairs and attributes, and the Grid painted onto stdscr.
 *
 * Three depths: 256 colours (the perceptual ramps of grid.c as cell
 * backgrounds, numbers in a contrasting foreground), 8 colours (shade glyphs
 * tinted by a coarse ramp) and monochrome (shade glyphs, bold and reverse),
 * the last for --color never, NO_COLOR or a terminal without colour.
 */
#include "color.h"

#include <curses.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "term.h"

enum {
    PAIR_STYLE = 1,  /* + CellStyle */
    PAIR_HEAT = 16,  /* + level */
    PAIR_DIV = 32,   /* + level */
    PAIR_BAR = 48,   /* + level */
    PAIR_END = 64,
    PAIR_HALF = 64,  /* + upper * HALF_N + lower: the half blocks of a long text */
    HALF_N = GRID_LEVELS + 1, /* the levels and masked */
    PAIR_HALF_END = PAIR_HALF + HALF_N * HALF_N
};

#define MASKED_COLOR 236 /* a masked half block: STYLE_MASKED's background */

/* Foreground and background of each style at 256 and at 8 colours (-1 = default). */
static const short style256[STYLE_COUNT][2] = {
    [STYLE_TEXT] = {-1, -1},   [STYLE_DIM] = {245, -1},        [STYLE_TITLE] = {81, -1},
    [STYLE_LABEL] = {117, -1}, [STYLE_LABEL_SEL] = {16, 220},  [STYLE_MASKED] = {244, 236},
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
    static const short bgs[GRID_LEVELS] = {
        COLOR_BLUE, COLOR_BLUE, COLOR_BLUE, COLOR_BLUE, COLOR_BLUE, COLOR_CYAN, COLOR_CYAN,
        COLOR_WHITE, COLOR_WHITE, COLOR_YELLOW, COLOR_YELLOW, COLOR_RED, COLOR_RED,
        COLOR_RED, COLOR_RED, COLOR_RED};
    *bg = bgs[level];
    *fg = *bg == COLOR_BLUE || *bg == COLOR_RED ? COLOR_WHITE : COLOR_BLACK;
}

static void init_pairs256(void)
{
    /* The last pair first: ncurses 6.4 grows its pair table as pairs are
     * made, and a growth while its search tree points into the old table is
     * a read of freed memory (valgrind); at full size from the start, none. */
    init_pair((short)(PAIR_HALF_END - 1), MASKED_COLOR, MASKED_COLOR);
    for (int s = 0; s < STYLE_COUNT; s++)
        init_pair((short)(PAIR_STYLE + s), style256[s][0], style256[s][1]);
    for (int k = 0; k < GRID_LEVELS; k++) {
        init_pair((short)(PAIR_HEAT + k), (short)grid_ramp_text_color(k),
                  (short)grid_ramp_color(k));
        init_pair((short)(PAIR_DIV + k), (short)grid_diverge_text_color(k),
                  (short)grid_diverge_color(k));
        init_pair((short)(PAIR_BAR + k), (short)grid_ramp_color(k < 5 ? 5 : k), -1);
    }
    for (int up = 0; up < HALF_N; up++)
        for (int lo = 0; lo < HALF_N; lo++)
            init_pair((short)(PAIR_HALF + up * HALF_N + lo),
                      (short)(up == GRID_LEVELS ? MASKED_COLOR : grid_ramp_color(up)),
                      (short)(lo == GRID_LEVELS ? MASKED_COLOR : grid_ramp_color(lo)));
}

static void init_pairs8(void)
{
    for (int s = 0; s < STYLE_COUNT; s++)
        init_pair((short)(PAIR_STYLE + s), style8[s][0], style8[s][1]);
    for (int k = 0; k < GRID_LEVELS; k++) {
        short fg, bg;
        diverge8(k, &fg, &bg);
        init_pair((short)(PAIR_HEAT + k), coarse8(k), -1);
        init_pair((short)(PAIR_DIV + k), fg, bg);
        init_pair((short)(PAIR_BAR + k), coarse8(k), -1);
    }
}

void color_init(UiState *u, bool allowed)
{
    u->depth = DEPTH_MONO;
    if (allowed && has_colors()) {
        start_color();
        use_default_colors();
        if (COLORS >= 256 && COLOR_PAIRS >= PAIR_HALF_END)
            u->depth = DEPTH_256, init_pairs256();
        else if (COLORS >= 8 && COLOR_PAIRS >= PAIR_END)
            u->depth = DEPTH_8, init_pairs8();
    }
    u->hmode = u->depth == DEPTH_256 ? HEATMAP_COLOR : HEATMAP_GLYPH;
    const char *full = getenv("ATTNVIZ_FULL_REDRAW"); /* tests/e2e/tui_paint.sh */
    u->paint_full = full && *full && strcmp(full, "0") != 0;
}

static attr_t mono_attr(const Cell *c)
{
    switch (c->style) {
    case STYLE_DIM: return A_DIM;
    case STYLE_TITLE: return A_BOLD;
    case STYLE_LABEL_SEL: return A_REVERSE | A_BOLD;
    case STYLE_MASKED: return A_DIM;
    case STYLE_ACCENT: return A_BOLD;
    case STYLE_STATUS: return A_REVERSE;
    case STYLE_HEAT: return c->level >= GRID_LEVELS / 2 ? A_REVERSE : 0;
    case STYLE_DIVERGE: return c->level >= GRID_LEVELS / 2 ? A_REVERSE : 0;
    default: return 0;
    }
}

static attr_t color_attr(const UiState *u, const Cell *c, short *pair)
{
    attr_t a = 0;
    if (c->flags & GRID_CELL_HALF) {
        int up = c->flags & GRID_CELL_UP_MASKED ? GRID_LEVELS : grid_half_up(c->level);
        int lo = c->flags & GRID_CELL_LO_MASKED ? GRID_LEVELS : grid_half_lo(c->level);
        *pair = (short)(PAIR_HALF + up * HALF_N + lo);
        return 0;
    }
    switch (c->style) {
    case STYLE_HEAT: *pair = (short)(PAIR_HEAT + c->level); break;
    case STYLE_DIVERGE: *pair = (short)(PAIR_DIV + c->level); break;
    case STYLE_BAR: *pair = (short)(PAIR_BAR + c->level); break;
    default: *pair = (short)(PAIR_STYLE + c->style); break;
    }
    if (c->style == STYLE_TITLE || c->style == STYLE_LABEL_SEL || c->style == STYLE_ACCENT)
        a |= A_BOLD;
    if (u->depth == DEPTH_8 && (c->style == STYLE_DIM || c->style == STYLE_MASKED))
        a |= A_DIM;
    if (u->depth == DEPTH_8 && c->style == STYLE_HEAT && c->level >= 12)
        a |= A_BOLD;
    if ((c->flags & CELL_SELECTED) && c->style == STYLE_HEAT)
        a |= A_UNDERLINE;
    return a;
}

static attr_t cell_attr(const UiState *u, const Cell *c, short *pair)
{
    attr_t a;
    *pair = 0;
    a = u->depth == DEPTH_MONO ? mono_attr(c) : color_attr(u, c, pair);
    if (c->flags & CELL_SELECTED)
        a |= A_BOLD;
    if (c->flags & CELL_CURSOR)
        a ^= A_REVERSE;
    return a;
}

/* What a cell puts on stdscr, as one number: code point, pair and
 * attributes (cell_attr's bits 16..30), or PAINT_BLANK for what erase()
 * leaves (the cells painting skips). */
#define PAINT_BLANK ((uint64_t)' ')

static uint64_t paint_key(const UiState *u, const Cell *c)
{
    if (c->cp == 0 || (c->cp == ' ' && c->style == STYLE_TEXT && !c->flags))
        return PAINT_BLANK;
    short pair;
    attr_t a = cell_attr(u, c, &pair);
    return (uint64_t)c->cp | (uint64_t)(uint16_t)pair << 32 |
           (uint64_t)((a >> 16) & 0x7fff) << 48;
}

/* A cell whose glyph curses may not hold in one column of its own: the
 * half of a wide character, a wide, zero-width or control one. */
static bool paint_risky(uint32_t cp, uint32_t *last_ok)
{
    if (cp >= 0x20 && cp < 0x7f)
        return false;
    if (cp == *last_ok)
        return false;
    if (cp == 0 || wcwidth((wchar_t)cp) != 1)
        return true;
    *last_ok = cp;
    return false;
}

static void paint_cchar(cchar_t *cc, uint64_t key)
{
    wchar_t wc[2] = {(wchar_t)(key & 0xffffffffu), 0};
    setcchar(cc, wc, (attr_t)((key >> 48) & 0x7fff) << 16, (short)(key >> 32 & 0xffff), NULL);
}

static void paint_put(int y, int x, uint64_t key)
{
    cchar_t cc;
    paint_cchar(&cc, key);
    mvadd_wch(y, x, &cc);
}

/* The n cells of keys at row y from column x in one call: without wide or
 * control characters curses stores each as mvadd_wch would, without moving
 * the cursor or wrapping, a run at a time. */
static void paint_run(int y, int x, const uint64_t *keys, int n)
{
    cchar_t cc[128];
    while (n > 0) {
        int m = n < 128 ? n : 128;
        for (int k = 0; k < m; k++)
            paint_cchar(&cc[k], keys[k]);
        mvadd_wchnstr(y, x, cc, m);
        x += m, keys += m, n -= m;
    }
}

/* Cells of row y (keys, w of them) that differ from old (or, with old NULL,
 * that are not blank), written a run at a time. */
static void paint_row(int y, const uint64_t *keys, const uint64_t *old, int w)
{
    for (int x = 0; x < w;) {
        int x0 = x;
        while (x < w && (old ? keys[x] != old[x] : keys[x] != PAINT_BLANK))
            x++;
        if (x > x0)
            paint_run(y, x0, keys + x0, x - x0);
        while (x < w && (old ? keys[x] == old[x] : keys[x] == PAINT_BLANK))
            x++;
    }
}

/* The keys of the last frame still describe stdscr: same size, drawn
 * without wide characters, and nothing written on it since the refresh. */
static bool paint_keys_valid(const UiState *u, int w, int h)
{
    if (!u->painted_ok || u->painted_w != w || u->painted_h != h)
        return false;
    for (int y = 0; y < h; y++)
        if (is_linetouched(stdscr, y))
            return false;
    return true;
}

/* Each cell's key into u->paint_next; returns whether any is risky. */
static bool paint_keys(UiState *u, const Grid *g, int w, int h)
{
    size_t n = (size_t)w * (size_t)h;
    if (n > u->paint_cap) {
        u->painted = term_xrealloc(u->painted, n * sizeof *u->painted);
        u->paint_next = term_xrealloc(u->paint_next, n * sizeof *u->paint_next);
        u->paint_cap = n;
        u->painted_ok = false;
    }
    bool risky = false;
    uint32_t last_ok = 0x80;
    for (int y = 0; y < h; y++) {
        const Cell *c = &g->cells[(long)y * g->w];
        uint64_t *k = u->paint_next + (long)y * w;
        for (int x = 0; x < w; x++) {
            k[x] = paint_key(u, &c[x]);
            risky |= paint_risky(c[x].cp, &last_ok);
        }
    }
    return risky;
}

void color_paint(UiState *u, const Grid *g)
{
    int h = g->h < LINES ? g->h : LINES, w = g->w < COLS ? g->w : COLS;
    if (w <= 0 || h <= 0) {
        erase();
        u->painted_ok = false;
        return;
    }
    bool risky = paint_keys(u, g, w, h);
    const uint64_t *next = u->paint_next, *prev = u->painted;
    long n = (long)w * h;
    if (risky) { /* as it always was: erase, then a cell at a time */
        erase();
        for (long i = 0; i < n; i++)
            if (next[i] != PAINT_BLANK)
                paint_put((int)(i / w), (int)(i % w), next[i]);
    } else {
        /* Only what changed (the rest of stdscr is this frame's already),
         * or, without a frame to go on, erase and the cells not blank. */
        bool diff = !u->paint_full && paint_keys_valid(u, w, h);
        if (!diff)
            erase();
        for (int y = 0; y < h; y++) {
            long row = (long)y * w;
            paint_row(y, next + row, diff ? prev + row : NULL, w);
        }
        long last = n - 1;
        for (; last >= 0 && next[last] == PAINT_BLANK; last--)
            continue;
        /* The cursor where adding every cell would have left it (hidden, but
         * a terminal without civis shows it). */
        if (last >= 0)
            paint_put((int)(last / w), (int)(last % w), next[last]);
        else
            move(0, 0);
    }
    uint64_t *t = u->painted;
    u->painted = u->paint_next, u->paint_next = t;
    u->painted_w = w, u->painted_h = h;
    u->painted_ok = !risky;
}

void color_free(UiState *u)
{
    free(u->painted), free(u->paint_next);
    u->painted = u->paint_next = NULL;
    u->paint_cap = 0;
    u->painted_ok = false;
}
