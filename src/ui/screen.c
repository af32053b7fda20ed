/* screen.c - a frame written to the terminal by attnviz itself.
 *
 * curses still reads the keys and the mouse, sets the terminal's modes and
 * restores them; the frames are written here. The reason is speed: curses
 * formats every colour change with tparm, foreground and background both,
 * and a typed key redraws hundreds of coloured cells, so formatting was half
 * of a key's time (perf: _nc_tiparm and printf's internals). Here every
 * string comes from the terminal's own terminfo entry, formatted once at
 * start (the 256 foregrounds and 256 backgrounds; the cursor moves too when
 * the entry's is the common "\E[%i%p1%d;%p2%dH"), and only what changed is
 * sent: a colour when it changes, an attribute when it is added, one
 * cursor move a run of changed cells, the whole frame in one write().
 *
 * The terminal's state is followed as the frame is written (colours,
 * attributes) and left plain at its end, with the cursor at the top left,
 * which is where curses believes it is: curses writes nothing itself while
 * nothing is drawn on stdscr (color.c makes sure), and when it must (a
 * resize, a cleared screen) the next frame is written whole after it.
 */
#include "ui/screen.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>

#include "core/utf8.h"
#include "term.h"

struct Screen {
    char *fg[256], *bg[256]; /* set a colour, or NULL: no such colour */
    char *plain;             /* all attributes and colours off (sgr0) */
    char *pair0;             /* default colours (op), or NULL */
    char *attr_on[4];        /* bold, dim, underline, reverse; NULL: none */
    char *clear;
    char *clear_eol;  /* clear to the end of the line, or NULL */
    const char *cup;  /* cursor_address, when not the common form */
    bool ansi_cup;    /* cup is "\E[row;colH", 1-based */
    bool keep_corner; /* the bottom-right cell would scroll (am, no xenl) */
    char *buf;
    size_t len, cap;
    int fg_now, bg_now; /* what the terminal is set to while writing */
    unsigned attr_now;
};

static const char *cap_or_null(const char *cap)
{
    return cap && cap != (const char *)-1 && *cap ? cap : NULL;
}

/* A copy of a terminfo string without its padding ("$<5>": delays that
 * tputs would make and no terminal emulator needs), or NULL for none. */
static char *own(const char *cap)
{
    if (!cap_or_null(cap))
        return NULL;
    char *copy = strdup(cap);
    if (!copy)
        term_die("out of memory");
    char *w = copy;
    for (const char *r = copy; *r;) {
        const char *end = r[0] == '$' && r[1] == '<' ? strchr(r, '>') : NULL;
        if (end)
            r = end + 1;
        else
            *w++ = *r++;
    }
    *w = 0;
    if (!*copy)
        free(copy), copy = NULL;
    return copy;
}

static char *format1(const char *cap, int n)
{
    return cap ? own(tiparm(cap, n)) : NULL;
}

Screen *screen_new(int colors)
{
    Screen *s = calloc(1, sizeof *s);
    if (!s)
        term_die("out of memory");
    const char *setaf = cap_or_null(set_a_foreground), *setab = cap_or_null(set_a_background);
    /* setf/setb number colours blue-first: the ANSI order swaps red and blue */
    static const int swap8[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    const char *setf = cap_or_null(set_foreground), *setb = cap_or_null(set_background);
    for (int c = 0; c < colors && c < 256; c++) {
        s->fg[c] = setaf ? format1(setaf, c) : format1(setf, c < 8 ? swap8[c] : c);
        s->bg[c] = setab ? format1(setab, c) : format1(setb, c < 8 ? swap8[c] : c);
    }
    s->plain = own(exit_attribute_mode);
    if (!s->plain)
        s->plain = own("\033[m");
    s->pair0 = own(orig_pair);
    s->attr_on[0] = own(enter_bold_mode);
    s->attr_on[1] = own(enter_dim_mode);
    s->attr_on[2] = own(enter_underline_mode);
    s->attr_on[3] = own(enter_reverse_mode);
    s->clear = own(clear_screen);
    s->clear_eol = own(clr_eol);
    s->cup = cap_or_null(cursor_address);
    if (!s->cup) {
        const char *name = getenv("TERM");
        term_die("the terminal (TERM=%s) cannot move its cursor: set TERM to one that can, "
                 "or use --export",
                 name ? name : "");
    }
    s->ansi_cup = s->cup && strcmp(s->cup, "\033[%i%p1%d;%p2%dH") == 0;
    s->keep_corner = auto_right_margin && !eat_newline_glitch;
    return s;
}

void screen_free(Screen *s)
{
    if (!s)
        return;
    for (int c = 0; c < 256; c++)
        free(s->fg[c]), free(s->bg[c]);
    for (int b = 0; b < 4; b++)
        free(s->attr_on[b]);
    free(s->plain), free(s->pair0), free(s->clear), free(s->clear_eol);
    free(s->buf);
    free(s);
}

static void put(Screen *s, const char *p, size_t n)
{
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 16384;
        while (cap < s->len + n)
            cap *= 2;
        s->buf = term_xrealloc(s->buf, cap);
        s->cap = cap;
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
}

static void puts_cap(Screen *s, const char *cap)
{
    if (cap)
        put(s, cap, strlen(cap));
}

/* Decimal digits of v (0 .. 99999) at p; returns how many. */
static int digits(char *p, int v)
{
    char t[8];
    int n = 0;
    do
        t[n++] = (char)('0' + v % 10), v /= 10;
    while (v > 0 && n < 8);
    for (int k = 0; k < n; k++)
        p[k] = t[n - 1 - k];
    return n;
}

static void move_to(Screen *s, int y, int x)
{
    if (s->ansi_cup) {
        char b[24] = "\033[";
        int n = 2;
        n += digits(b + n, y + 1);
        b[n++] = ';';
        n += digits(b + n, x + 1);
        b[n++] = 'H';
        put(s, b, (size_t)n);
    } else if (s->cup) {
        char *m = own(tiparm(s->cup, y, x));
        puts_cap(s, m);
        free(m);
    }
}

/* Everything off: no attributes, default colours. */
static void go_plain(Screen *s)
{
    puts_cap(s, s->plain);
    s->attr_now = 0;
    s->fg_now = s->bg_now = -1;
}

/* The colours and attributes of key, sending only what differs. */
static void set_look(Screen *s, uint64_t key)
{
    unsigned attr = (unsigned)(key >> 39) & 15;
    int fg = (int)(key >> 21 & 511) - 1, bg = (int)(key >> 30 & 511) - 1;
    bool to_default = (fg < 0 && s->fg_now >= 0) || (bg < 0 && s->bg_now >= 0);
    if ((s->attr_now & ~attr) || (to_default && !s->pair0))
        go_plain(s);
    else if (to_default) {
        puts_cap(s, s->pair0);
        s->fg_now = s->bg_now = -1;
    }
    for (int b = 0; b < 4; b++)
        if ((attr & ~s->attr_now) & 1u << b)
            puts_cap(s, s->attr_on[b]);
    s->attr_now = attr;
    if (fg >= 0 && fg != s->fg_now && fg < 256 && s->fg[fg])
        puts_cap(s, s->fg[fg]), s->fg_now = fg;
    if (bg >= 0 && bg != s->bg_now && bg < 256 && s->bg[bg])
        puts_cap(s, s->bg[bg]), s->bg_now = bg;
}

static void put_utf8(Screen *s, uint32_t cp)
{
    char b[4];
    int n = utf8_encode(cp, b);
    put(s, b, (size_t)n);
}

static uint32_t key_cp(uint64_t key)
{
    return (uint32_t)(key & 0x1fffff);
}

static bool wide_at(const uint64_t *row, int x, int w)
{
    uint32_t cp = key_cp(row[x]);
    return cp >= 0x1100 && x + 1 < w && key_cp(row[x + 1]) == 0 && wcwidth((wchar_t)cp) == 2;
}

/* Cells x0 .. x1-1 of row y; returns the column after the last one written
 * (past x1 when a wide character ends there). */
static int put_run(Screen *s, const uint64_t *row, int y, int x0, int x1, int w, int skip_x)
{
    if (x0 > 0 && key_cp(row[x0]) == 0 && wide_at(row, x0 - 1, w))
        x0--; /* a wide character's right half: from its left */
    move_to(s, y, x0);
    int x = x0;
    while (x < x1) {
        if (x == skip_x)
            return x + 1; /* the last cell of the last row: nothing after it */
        uint64_t k = row[x];
        uint32_t cp = key_cp(k);
        set_look(s, k);
        if (wide_at(row, x, w) && x + 1 == skip_x) {
            put(s, "?", 1); /* its right half would be the cell left alone */
            return x + 2;
        }
        if (wide_at(row, x, w)) {
            put_utf8(s, cp);
            x += 2;
            continue;
        }
        if (cp == 0)
            cp = ' ';
        else if (cp >= 0x7f && (cp < 0xa0 || wcwidth((wchar_t)cp) != 1))
            cp = '?'; /* what would not take exactly this one column */
        else if (cp < 0x20)
            cp = '?';
        put_utf8(s, cp);
        x++;
    }
    return x;
}

/* Changed cells of row y (all cells not blank when prev is NULL) in runs;
 * gaps of up to 3 unchanged cells are written again, cheaper than a move,
 * and a row that ends blank where it changed is cleared to its end (as
 * curses did: a terminal keeps cleared cells apart from written spaces). */
static void put_row(Screen *s, const uint64_t *row, const uint64_t *old, int y, int w, int skip_x)
{
    int end = w; /* row[end ..] are all blank */
    while (end > 0 && row[end - 1] == SCREEN_BLANK)
        end--;
    if (!s->clear_eol || skip_x >= 0)
        end = w;
    int x = 0;
    while (x < end) {
        while (x < end && (old ? row[x] == old[x] : row[x] == SCREEN_BLANK))
            x++;
        if (x >= end)
            break;
        int x1 = x;
        for (;;) {
            while (x1 < end && (old ? row[x1] != old[x1] : row[x1] != SCREEN_BLANK))
                x1++;
            int gap = x1;
            while (gap < end && gap - x1 < 4 &&
                   (old ? row[gap] == old[gap] : row[gap] == SCREEN_BLANK))
                gap++;
            if (gap - x1 < 4 && gap < end && gap > x1)
                x1 = gap; /* a short gap, then more changes: one run */
            else
                break;
        }
        x = put_run(s, row, y, x, x1, w, skip_x);
    }
    if (end >= w || !old)
        return; /* a cleared screen is blank already */
    for (x = end; x < w && old[x] == SCREEN_BLANK; x++)
        continue;
    if (x < w) {
        move_to(s, y, end);
        go_plain(s);
        puts_cap(s, s->clear_eol);
    }
}

static bool flush_out(Screen *s)
{
    size_t off = 0;
    while (off < s->len) {
        ssize_t k = write(STDOUT_FILENO, s->buf + off, s->len - off);
        if (k > 0) {
            off += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
        if (k < 0 && errno == EAGAIN && poll(&p, 1, 1000) > 0)
            continue;
        break; /* gone or stuck: the rest of this frame is lost, not the program */
    }
    bool all = off == s->len;
    s->len = 0;
    return all;
}

bool screen_frame(Screen *s, const uint64_t *keys, const uint64_t *prev, int w, int h)
{
    s->len = 0;
    go_plain(s);
    if (!prev)
        puts_cap(s, s->clear);
    /* The bottom-right cell of a terminal that would scroll after it. */
    int corner = s->keep_corner && w == COLS && h == LINES ? w - 1 : -1;
    for (int y = 0; y < h; y++)
        put_row(s, keys + (long)y * w, prev ? prev + (long)y * w : NULL, y, w,
                y == h - 1 ? corner : -1);
    go_plain(s);
    move_to(s, 0, 0);
    return flush_out(s);
}
