/* grid.h - a character grid that knows nothing of the terminal (tmux grid.c).
 *
 * Renderers draw into a Grid: one Cell per terminal column, each a code point,
 * a semantic style and a colour level. The ncurses front end paints a Grid and
 * the text export prints the same Grid, so what is exported is what is seen.
 * Display widths come from wcwidth(3), so the caller sets a UTF-8 locale.
 */
#ifndef ATTNVIZ_GRID_H
#define ATTNVIZ_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Semantic styles; the UI's colour table and the ANSI export map them. */
typedef enum {
    STYLE_TEXT = 0,  /* ordinary text */
    STYLE_DIM,       /* secondary text: axes, ticks, hints */
    STYLE_TITLE,     /* view and head titles */
    STYLE_LABEL,     /* token labels */
    STYLE_LABEL_SEL, /* the selected token's label */
    STYLE_HEAT,      /* a weight cell: level 0..GRID_LEVELS-1 on the sequential ramp */
    STYLE_MASKED,    /* a cell the causal mask hides */
    STYLE_DIVERGE,   /* a signed value: level 0..GRID_LEVELS-1, GRID_LEVELS/2 = zero */
    STYLE_BAR,       /* a bar of the bar chart; level as STYLE_HEAT */
    STYLE_ACCENT,    /* focus marks, the cursor, warnings */
    STYLE_STATUS,    /* the status line */
    STYLE_COUNT
} CellStyle;

#define GRID_LEVELS 16

/* Cell flags */
#define CELL_SELECTED 1u /* part of the selected row or column: drawn emphasised */
#define CELL_CURSOR 2u   /* the selected cell itself */

/* A two-level cell: one terminal cell showing two rows of a pooled heatmap as
 * an upper half block, GRID_CELL_HALF set. Its level holds both levels, the
 * upper row's in bits 0-3 (the glyph's foreground) and the lower row's in bits
 * 4-7 (the background); a half the mask hides has its own flag. Flag bits
 * 5-7 are reserved for this and no other use. */
#define GRID_CELL_HALF 0x80u
#define GRID_CELL_UP_MASKED 0x40u
#define GRID_CELL_LO_MASKED 0x20u

/* The level of a two-level cell with upper level up and lower level lo
 * (each 0 .. GRID_LEVELS-1), and the two levels back. */
static inline uint8_t grid_half_level(int up, int lo)
{
    return (uint8_t)((up & 0x0f) | (lo & 0x0f) << 4);
}
static inline int grid_half_up(uint8_t level)
{
    return level & 0x0f;
}
static inline int grid_half_lo(uint8_t level)
{
    return level >> 4;
}

typedef struct {
    uint32_t cp;   /* code point; 0 = the right half of a wide character */
    uint8_t style; /* CellStyle */
    uint8_t level; /* 0 .. GRID_LEVELS-1, for STYLE_HEAT, STYLE_DIVERGE, STYLE_BAR;
                      two levels when flags has GRID_CELL_HALF */
    uint8_t flags; /* CELL_* and GRID_CELL_* */
} Cell;

typedef struct {
    int w, h;
    Cell *cells; /* h rows of w cells */
} Grid;

/* Set n cells from c on to (cp, style, level), flags 0; every cp one column
 * wide. For renderers' hottest loops: on little-endian machines each cell is
 * one 8-byte store of a value made in a register (field by field, or through
 * a Cell in memory read back whole, a store-forwarding stall, they were most
 * of a heatmap redraw's time). The padding byte is 0: cells compare bytewise. */
static inline void grid_fill_cells(Cell *c, int n, uint32_t cp, int style, int level)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    _Static_assert(sizeof(Cell) == 8 && offsetof(Cell, style) == 4 && offsetof(Cell, level) == 5 &&
                       offsetof(Cell, flags) == 6,
                   "Cell is cp, style, level, flags and one byte of padding");
    uint64_t bits = cp | (uint64_t)(uint8_t)style << 32 | (uint64_t)(uint8_t)level << 40;
    for (int k = 0; k < n; k++)
        memcpy(c + k, &bits, sizeof bits);
#else
    for (int k = 0; k < n; k++)
        c[k] = (Cell){cp, (uint8_t)style, (uint8_t)level, 0};
#endif
}

/* The decimal digits of v >= 0: the width of a token index as a label. */
static inline int grid_digits(int v)
{
    int d = 1;
    while (v >= 10)
        v /= 10, d++;
    return d;
}

/* Allocate a w x h grid of spaces. Returns AV_OK or AV_ERR_NOMEM. */
int grid_init(Grid *g, int w, int h);

/* Resize (contents lost, all spaces). Returns AV_OK or AV_ERR_NOMEM. */
int grid_resize(Grid *g, int w, int h);

void grid_free(Grid *g);

/* Fill with spaces in STYLE_TEXT. */
void grid_clear(Grid *g);

/* The cell at (x, y), or NULL outside the grid. */
Cell *grid_at(Grid *g, int x, int y);

/* Put one code point at (x, y); a wide one takes two cells. Clipped at the
 * grid's edges. Returns the columns used (0 when clipped or zero-width). */
int grid_put(Grid *g, int x, int y, uint32_t cp, int style, int level);

/* Put UTF-8 text from (x, y), at most max_w columns; when it does not fit the
 * last column shows an ellipsis. Returns the columns used. Invalid bytes are
 * drawn as U+FFFD. */
int grid_puts(Grid *g, int x, int y, const char *s, int max_w, int style);

/* printf into the grid, as grid_puts. */
int grid_printf(Grid *g, int x, int y, int max_w, int style, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Lay the n pieces out from (x, y) in lines of at most max_w columns, a
 * space between two pieces of a line, the lines after the first starting
 * indent columns further in; a piece wider than a line is broken between
 * code points. With g NULL nothing is drawn: the rows are counted. Returns
 * the rows used (1 for no piece). */
int grid_wrap(Grid *g, int x, int y, int max_w, int indent, const char *const *pieces, int n,
              int style);

/* Set flags on a rectangle of cells (clipped). */
void grid_flag_rect(Grid *g, int x, int y, int w, int h, unsigned flags);

/* Display width in columns of UTF-8 s (wcwidth; a bad byte counts 1). */
int grid_text_width(const char *s);

/* The index of the first of the n forms of a text, given longest first, that
 * fits in width columns, or -1 when none does: a title or label takes the
 * longest form that fits rather than being cut mid-word. */
int grid_first_fit(const char *const *forms, int n, int width);

/* Write the grid as UTF-8 lines, trailing spaces trimmed and trailing blank
 * lines dropped. With color, ANSI SGR escapes (256 colours) render the styles
 * and levels. Returns 0 or -1 on a write error. */
int grid_write(const Grid *g, FILE *f, bool color);

/* The 256-colour palette index of a level on the sequential ramp (a
 * perceptual dark-blue -> green -> yellow ramp) and on the diverging ramp
 * (blue -> grey -> red). Shared by the UI and the ANSI export. */
int grid_ramp_color(int level);
int grid_diverge_color(int level);

/* The 256-colour index of text written on a cell of that level: white on the
 * dark end of the ramp, black on the light part; for the diverging ramp white
 * on both dark ends (strong negatives and positives), black near zero. */
int grid_ramp_text_color(int level);
int grid_diverge_text_color(int level);

#endif
