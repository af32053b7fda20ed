/* grid.c - a character grid that knows nothing of the terminal.
 *
 * Renderers write code points with a semantic style and a colour level; the
 * UI paints the grid with ncurses and the text export prints it with
 * grid_write, optionally with ANSI colour. Widths come from wcwidth(3).
 */
/* wcwidth(3) is an X/Open function; this file is never built with ncurses flags. */
#define _XOPEN_SOURCE 700
#include "render/grid.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/av.h"
#include "core/utf8.h"

/* Dark blue -> teal -> green -> yellow, rising in lightness (xterm-256 cube). */
static const unsigned char ramp256[GRID_LEVELS] = {
    17, 18, 19, 25, 31, 37, 36, 35, 71, 107, 143, 179, 178, 214, 220, 226,
};
/* Blue (negative) -> near white (zero) -> red (positive). */
static const unsigned char diverge256[GRID_LEVELS] = {
    19, 20, 26, 32, 68, 110, 153, 189, 224, 217, 210, 203, 196, 160, 124, 88,
};

int grid_ramp_text_color(int level)
{
    return level >= 11 ? 16 : 231;
}

int grid_diverge_text_color(int level)
{
    return level <= 3 || level >= GRID_LEVELS - 4 ? 231 : 16;
}

int grid_ramp_color(int level)
{
    return ramp256[level < 0 ? 0 : level >= GRID_LEVELS ? GRID_LEVELS - 1 : level];
}

int grid_diverge_color(int level)
{
    return diverge256[level < 0 ? 0 : level >= GRID_LEVELS ? GRID_LEVELS - 1 : level];
}

int grid_init(Grid *g, int w, int h)
{
    g->w = g->h = 0;
    g->cells = NULL;
    return grid_resize(g, w, h);
}

int grid_resize(Grid *g, int w, int h)
{
    w = w < 1 ? 1 : w, h = h < 1 ? 1 : h;
    Cell *c = realloc(g->cells, (size_t)w * h * sizeof *c);
    if (!c)
        return AV_ERR_NOMEM;
    g->cells = c, g->w = w, g->h = h;
    grid_clear(g);
    return AV_OK;
}

void grid_free(Grid *g)
{
    free(g->cells);
    memset(g, 0, sizeof *g);
}

/* Four blank cells in one vector, stored straight (a memcpy of doubling
 * blocks was 18,000 instructions for 120x40, the fill alone 1,500): an AVX2
 * clone stores 32 bytes at a time where the processor has it. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void grid_clear(Grid *g)
{
    typedef uint64_t Four __attribute__((vector_size(4 * sizeof(uint64_t))));
    const long cells = (long)g->w * g->h;
    Cell blank[4];
    grid_fill_cells(blank, 4, ' ', STYLE_TEXT, 0);
    Four v;
    memcpy(&v, blank, sizeof v);
    Cell *c = g->cells; /* not reloaded after each store, as g->cells was */
    long k = 0;
    /* 64 cells a turn, then 16: the loop's counting a fifth of the stores */
    for (; k + 64 <= cells; k += 64)
#pragma GCC unroll 16
        for (int q = 0; q < 64; q += 4)
            memcpy(c + k + q, &v, sizeof v);
    for (; k + 16 <= cells; k += 16) {
        memcpy(c + k, &v, sizeof v), memcpy(c + k + 4, &v, sizeof v);
        memcpy(c + k + 8, &v, sizeof v), memcpy(c + k + 12, &v, sizeof v);
    }
    grid_fill_cells(c + k, (int)(cells - k), ' ', STYLE_TEXT, 0);
}

Cell *grid_at(Grid *g, int x, int y)
{
    if (x < 0 || y < 0 || x >= g->w || y >= g->h)
        return NULL;
    return &g->cells[(long)y * g->w + x];
}

static int cp_width(uint32_t cp)
{
    /* Fast paths for what heatmaps are made of: ASCII, Latin letters before
     * the combining marks, box drawing, blocks, shades and Braille. */
    if ((cp >= 0x20 && cp < 0x7f) || (cp >= 0xa0 && cp < 0x300) || (cp >= 0x2500 && cp < 0x25a0) ||
        (cp >= 0x2800 && cp < 0x2900))
        return 1;
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : w;
}

int grid_put(Grid *g, int x, int y, uint32_t cp, int style, int level)
{
    int w = cp_width(cp);
    if (w == 0 || x < 0 || y < 0 || y >= g->h || x + w > g->w)
        return 0;
    Cell *c = grid_at(g, x, y);
    *c = (Cell){cp, (uint8_t)style, (uint8_t)level, 0};
    if (w == 2)
        c[1] = (Cell){0, (uint8_t)style, (uint8_t)level, 0};
    return w;
}

/* Next code point of s, or U+FFFD for a bad byte; advances *s. */
static uint32_t next_cp(const char **s)
{
    unsigned cp;
    if ((unsigned char)**s < 0x80)
        return (unsigned char)*(*s)++;
    size_t avail = strnlen(*s, 4);
    int k = utf8_decode(*s, avail, &cp);
    if (k == 0) {
        (*s)++;
        return 0xFFFD;
    }
    *s += k;
    return cp;
}

/* Bytes of the printable ASCII run s starts with: one column each. */
static size_t ascii_run(const char *s)
{
    size_t n = 0;
    while ((unsigned char)s[n] >= 0x20 && (unsigned char)s[n] < 0x7f)
        n++;
    return n;
}

/* The width of s past its printable ASCII run (grid_text_width's loop, out
 * of its common case as puts_general is). */
static __attribute__((noinline)) int width_general(const char *s)
{
    int w = 0;
    while (*s)
        w += cp_width(next_cp(&s));
    return w;
}

int grid_text_width(const char *s)
{
    size_t run = ascii_run(s);
    return s[run] ? (int)run + width_general(s + run) : (int)run;
}

int grid_first_fit(const char *const *forms, int n, int width)
{
    for (int k = 0; k < n; k++)
        if (forms[k] && grid_text_width(forms[k]) <= width)
            return k;
    return -1;
}

/* grid_puts for any text: code point by code point, clipped, with the
 * ellipsis. Kept out of grid_puts, whose common case then saves and
 * restores none of the registers this loop needs. */
static __attribute__((noinline)) int puts_general(Grid *g, int x, int y, const char *s, int max_w,
                                                  int style)
{
    int used = 0;
    bool fits = grid_text_width(s) <= max_w;
    while (*s) {
        uint32_t cp = next_cp(&s);
        int w = cp_width(cp);
        /* Keep one column for the ellipsis when the rest will not fit. */
        if (used + w > max_w - (fits ? 0 : 1))
            break;
        used += grid_put(g, x + used, y, cp, style, 0) ? w : 0;
    }
    if (!fits && max_w > 0)
        used += grid_put(g, x + used, y, 0x2026, style, 0);
    return used;
}

int grid_puts(Grid *g, int x, int y, const char *s, int max_w, int style)
{
    size_t run = ascii_run(s);
    /* Labels and numbers: printable ASCII that fits, written directly. */
    if (!s[run] && (long)run <= max_w && x >= 0 && y >= 0 && y < g->h && x + (long)run <= g->w) {
        Cell *c = &g->cells[(long)y * g->w + x];
        for (size_t k = 0; k < run; k++)
            grid_fill_cells(c + k, 1, (unsigned char)s[k], style, 0);
        return (int)run;
    }
    return puts_general(g, x, y, s, max_w, style);
}

int grid_printf(Grid *g, int x, int y, int max_w, int style, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return grid_puts(g, x, y, buf, max_w, style);
}

int grid_wrap(Grid *g, int x, int y, int max_w, int indent, const char *const *pieces, int n,
              int style)
{
    indent = indent > max_w - 2 ? (max_w > 2 ? max_w - 2 : 0) : indent;
    int row = 0, col = 0; /* col: from x */
    for (int k = 0; k < n; k++) {
        int w = grid_text_width(pieces[k]), start = row ? indent : 0;
        if (col > start && col + 1 + w > max_w) /* to the next line, whole */
            row++, col = indent;
        else if (col > start && g) /* the space between, in the pieces' style */
            col += grid_put(g, x + col, y + row, ' ', style, 0);
        else if (col > start)
            col++;
        for (const char *s = pieces[k]; *s;) {
            uint32_t cp = next_cp(&s);
            int cw = cp_width(cp);
            if (col + cw > max_w && col > (row ? indent : 0)) /* wider than a line */
                row++, col = indent;
            if (g)
                grid_put(g, x + col, y + row, cp, style, 0);
            col += cw;
        }
    }
    return row + 1;
}

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void grid_flag_rect(Grid *g, int x, int y, int w, int h, unsigned flags)
{
    /* clipped once, not cell by cell */
    int x0 = x > 0 ? x : 0, y0 = y > 0 ? y : 0;
    long x1 = (long)x + w < g->w ? (long)x + w : g->w, y1 = (long)y + h < g->h ? (long)y + h : g->h;
    for (long r = y0; r < y1; r++) {
        Cell *row = g->cells + r * g->w;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* each cell one 8-byte word, flags its byte 6 (grid_fill_cells):
         * four cells an OR (a byte at a time, a row was 240 instructions) */
        typedef uint64_t Four __attribute__((vector_size(4 * sizeof(uint64_t))));
        const uint64_t bits = (uint64_t)(uint8_t)flags << 48;
        const Four bits4 = (Four){0} + bits;
        long c = x0;
        for (; c + 4 <= x1; c += 4) {
            Four v;
            memcpy(&v, row + c, sizeof v);
            v |= bits4;
            memcpy(row + c, &v, sizeof v);
        }
        for (; c < x1; c++) {
            uint64_t v;
            memcpy(&v, row + c, sizeof v);
            v |= bits;
            memcpy(row + c, &v, sizeof v);
        }
#else
        for (long c = x0; c < x1; c++)
            row[c].flags |= (uint8_t)flags;
#endif
    }
}

/* The SGR parameters of a cell, into buf. */
static void cell_sgr(const Cell *c, char *buf, size_t size)
{
    int n = snprintf(buf, size, "0");
    switch (c->style) {
    case STYLE_DIM: n += snprintf(buf + n, size - n, ";2"); break;
    case STYLE_TITLE: n += snprintf(buf + n, size - n, ";1"); break;
    case STYLE_LABEL: n += snprintf(buf + n, size - n, ";36"); break;
    case STYLE_LABEL_SEL: n += snprintf(buf + n, size - n, ";1;7"); break;
    case STYLE_HEAT:
        n += snprintf(buf + n, size - n, ";38;5;%d;48;5;%d", grid_ramp_text_color(c->level),
                      grid_ramp_color(c->level));
        break;
    case STYLE_DIVERGE:
        n += snprintf(buf + n, size - n, ";38;5;%d;48;5;%d", grid_diverge_text_color(c->level),
                      grid_diverge_color(c->level));
        break;
    case STYLE_BAR: n += snprintf(buf + n, size - n, ";38;5;%d", grid_ramp_color(c->level)); break;
    case STYLE_MASKED: n += snprintf(buf + n, size - n, ";38;5;240"); break;
    case STYLE_ACCENT: n += snprintf(buf + n, size - n, ";1;33"); break;
    case STYLE_STATUS: n += snprintf(buf + n, size - n, ";7"); break;
    default: break;
    }
    if (c->flags & CELL_SELECTED)
        n += snprintf(buf + n, size - n, ";1");
    if (c->flags & CELL_CURSOR)
        snprintf(buf + n, size - n, ";7");
}

/* Columns of row y up to its last non-blank cell: a space is blank unless
 * colour shows it (a heat cell's background, a selection). */
static int row_len(const Grid *g, int y, bool color)
{
    int len = g->w;
    const Cell *row = g->cells + (long)y * g->w;
    while (len > 0 && row[len - 1].cp == ' ' &&
           (!color || (row[len - 1].style == STYLE_TEXT && !row[len - 1].flags)))
        len--;
    return len;
}

static int write_row(const Grid *g, int y, int len, FILE *f, bool color)
{
    char prev[64] = "0", sgr[64], utf[4];
    const Cell *row = g->cells + (long)y * g->w;
    for (int x = 0; x < len; x++) {
        if (row[x].cp == 0)
            continue;
        if (color) {
            cell_sgr(&row[x], sgr, sizeof sgr);
            if (strcmp(sgr, prev) != 0 && fprintf(f, "\33[%sm", sgr) < 0)
                return -1;
            memcpy(prev, sgr, sizeof prev);
        }
        int k = utf8_encode(row[x].cp, utf);
        if (fwrite(utf, 1, (size_t)k, f) != (size_t)k)
            return -1;
    }
    if (color && strcmp(prev, "0") != 0 && fputs("\33[0m", f) < 0)
        return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

int grid_write(const Grid *g, FILE *f, bool color)
{
    int last = g->h;
    while (last > 0 && row_len(g, last - 1, color) == 0)
        last--;
    for (int y = 0; y < last; y++)
        if (write_row(g, y, row_len(g, y, color), f, color) != 0)
            return -1;
    return 0;
}
