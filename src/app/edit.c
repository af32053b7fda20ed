/* edit.c - the sentence editor: a growing UTF-8 buffer with a cursor on a
 * code point boundary, word jumps, and display columns for mouse clicks.
 * Nothing here draws; the interface calls it through app/action.c and
 * app/state.c (app_type).
 */
#include "app/edit.h"

#include <stdlib.h>
#include <string.h>

#include "render/grid.h"
#include "core/utf8.h"

int edit_init(EditBuf *e, const char *text)
{
    memset(e, 0, sizeof *e);
    size_t want = text ? strlen(text) + 1 : 64;
    want = want < 64 ? 64 : want > EDIT_MAX_BYTES + 1 ? EDIT_MAX_BYTES + 1 : want;
    e->s = malloc(want);
    if (!e->s)
        return AV_ERR_NOMEM;
    e->cap = want;
    edit_set(e, text);
    return AV_OK;
}

void edit_free(EditBuf *e)
{
    free(e->s);
    memset(e, 0, sizeof *e);
}

void edit_set(EditBuf *e, const char *text)
{
    e->len = e->cur = 0;
    e->s[0] = '\0';
    e->full = false;
    if (text)
        edit_insert(e, text, strlen(text));
    e->cur = e->len;
}

/* Room for need bytes (with the NUL), doubling; false when memory runs out. */
static bool edit_reserve(EditBuf *e, size_t need)
{
    if (need <= e->cap)
        return true;
    size_t cap = e->cap * 2 > need ? e->cap * 2 : need;
    cap = cap > EDIT_MAX_BYTES + 1 ? EDIT_MAX_BYTES + 1 : cap;
    char *p = realloc(e->s, cap);
    if (!p)
        return false;
    e->s = p, e->cap = cap;
    return true;
}

size_t edit_insert(EditBuf *e, const char *bytes, size_t n)
{
    size_t ok = utf8_valid_prefix(bytes, n), room = EDIT_MAX_BYTES - e->len, take = 0;
    unsigned cp;
    /* Whole code points that fit; a tab or a newline is kept as it is, as
     * the exports and --dump read it (the editor draws it as a mark). */
    while (take < ok) {
        int src = utf8_decode(bytes + take, ok - take, &cp);
        if (src <= 0 || take + (size_t)src > room)
            break;
        take += (size_t)src;
    }
    e->full = take < ok;
    if (take == 0)
        return 0;
    if (!edit_reserve(e, e->len + take + 1)) {
        e->full = true;
        return 0;
    }
    memmove(e->s + e->cur + take, e->s + e->cur, e->len - e->cur + 1);
    memcpy(e->s + e->cur, bytes, take);
    e->len += take, e->cur += take;
    return take;
}

unsigned edit_glyph(unsigned cp)
{
    if (cp == '\t')
        return 0x21E5; /* ⇥ */
    if (cp == '\n')
        return 0x21B5; /* ↵ */
    if (cp < 0x20)
        return 0x2400 + cp; /* ␍, ␛ ...: the control pictures */
    if (cp == 0x7F)
        return 0x2421; /* ␡ */
    if (cp >= 0x80 && cp < 0xA0)
        return 0xFFFD; /* a C1 control: no picture of its own */
    return cp;
}

/* Byte offset of the code point before off. */
static size_t prev_cp(const EditBuf *e, size_t off)
{
    if (off == 0)
        return 0;
    off--;
    while (off > 0 && ((unsigned char)e->s[off] & 0xC0) == 0x80)
        off--;
    return off;
}

/* Byte offset of the code point after off. */
static size_t next_cp(const EditBuf *e, size_t off)
{
    unsigned cp;
    if (off >= e->len)
        return e->len;
    int k = utf8_decode(e->s + off, e->len - off, &cp);
    return off + (size_t)(k > 0 ? k : 1);
}

static unsigned cp_at(const EditBuf *e, size_t off)
{
    unsigned cp = 0;
    if (off < e->len && utf8_decode(e->s + off, e->len - off, &cp) == 0)
        cp = 0;
    return cp;
}

/* Letters and digits as the tokeniser sees them, roughly: ASCII alphanumerics
 * and code points from U+0080 up, less the common spaces and punctuation. */
static bool is_word_cp(unsigned cp)
{
    if (cp < 0x80)
        return (cp >= '0' && cp <= '9') || ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z');
    if (cp < 0xC0 || cp == 0xD7 || cp == 0xF7)
        return false;
    return !(cp >= 0x2000 && cp <= 0x206F) && !(cp >= 0x3000 && cp <= 0x303F) &&
           !(cp >= 0xFF00 && cp <= 0xFF0F);
}

static void cut(EditBuf *e, size_t from, size_t to)
{
    memmove(e->s + from, e->s + to, e->len - to + 1);
    e->len -= to - from;
    e->cur = from;
}

bool edit_backspace(EditBuf *e)
{
    if (e->cur == 0)
        return false;
    cut(e, prev_cp(e, e->cur), e->cur);
    return true;
}

bool edit_delete(EditBuf *e)
{
    if (e->cur >= e->len)
        return false;
    cut(e, e->cur, next_cp(e, e->cur));
    return true;
}

bool edit_delete_word(EditBuf *e)
{
    size_t end = e->cur;
    if (!edit_word_left(e))
        return false;
    cut(e, e->cur, end);
    return true;
}

bool edit_clear(EditBuf *e)
{
    if (e->len == 0)
        return false;
    e->len = e->cur = 0;
    e->s[0] = '\0';
    return true;
}

bool edit_left(EditBuf *e)
{
    size_t old = e->cur;
    e->cur = prev_cp(e, e->cur);
    return e->cur != old;
}

bool edit_right(EditBuf *e)
{
    size_t old = e->cur;
    e->cur = next_cp(e, e->cur);
    return e->cur != old;
}

bool edit_home(EditBuf *e)
{
    size_t old = e->cur;
    e->cur = 0;
    return old != 0;
}

bool edit_end(EditBuf *e)
{
    size_t old = e->cur;
    e->cur = e->len;
    return old != e->len;
}

bool edit_word_left(EditBuf *e)
{
    size_t old = e->cur, p = e->cur;
    while (p > 0 && !is_word_cp(cp_at(e, prev_cp(e, p))))
        p = prev_cp(e, p);
    while (p > 0 && is_word_cp(cp_at(e, prev_cp(e, p))))
        p = prev_cp(e, p);
    e->cur = p;
    return p != old;
}

bool edit_word_right(EditBuf *e)
{
    size_t old = e->cur, p = e->cur;
    while (p < e->len && !is_word_cp(cp_at(e, p)))
        p = next_cp(e, p);
    while (p < e->len && is_word_cp(cp_at(e, p)))
        p = next_cp(e, p);
    e->cur = p;
    return p != old;
}

static int cp_cols(unsigned cp)
{
    char buf[5];
    buf[utf8_encode(edit_glyph(cp), buf)] = '\0';
    return grid_text_width(buf);
}

int edit_width(const EditBuf *e, size_t off)
{
    int w = 0;
    for (size_t p = 0; p < off && p < e->len; p = next_cp(e, p))
        w += cp_cols(cp_at(e, p));
    return w;
}

size_t edit_offset_at(const EditBuf *e, int col)
{
    int w = 0;
    size_t p = 0;
    while (p < e->len) {
        int cw = cp_cols(cp_at(e, p));
        if (w + cw > col)
            break;
        w += cw;
        p = next_cp(e, p);
    }
    return p;
}

int edit_token_at(const TokenList *t, size_t off)
{
    int found = -1;
    for (int k = 0; k < t->n && t->tok[k].start <= off; k++)
        found = k;
    return found;
}
