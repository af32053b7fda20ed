/* edit.h - the sentence editor: a growing UTF-8 buffer with a cursor.
 *
 * The text stays valid UTF-8 and the cursor on a code point boundary; widths
 * are display columns (wcwidth), so a click maps to the right byte. No curses.
 */
#ifndef ATTNVIZ_EDIT_H
#define ATTNVIZ_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/av.h"
#include "core/tokenize.h"

#define EDIT_MAX_BYTES AV_MAX_TEXT_BYTES /* the editor holds a whole -f text (1 MiB) */

typedef struct {
    char *s; /* len bytes of valid UTF-8, NUL-terminated */
    size_t len;
    size_t cap; /* bytes allocated; grows on demand up to EDIT_MAX_BYTES + 1 */
    size_t cur; /* cursor: byte offset on a code point boundary, 0..len */
    bool full;  /* the last insert was cut at EDIT_MAX_BYTES (or memory ran out) */
} EditBuf;

/* Allocate the buffer and set it to text (cut at EDIT_MAX_BYTES on a code
 * point boundary; bytes that are not valid UTF-8 end it). Cursor at the end.
 * The buffer grows as text is typed. Returns AV_OK or AV_ERR_NOMEM. */
int edit_init(EditBuf *e, const char *text);
void edit_free(EditBuf *e);

/* Replace the text, as edit_init. */
void edit_set(EditBuf *e, const char *text);

/* Insert bytes[0..n) at the cursor: only their valid UTF-8 prefix, every
 * character kept (a tab or a newline of a -f text or a paste stays one, so
 * the model reads what the exports read). Returns the bytes of input taken
 * (fewer when the limit is reached or memory runs out; then e->full is set). */
size_t edit_insert(EditBuf *e, const char *bytes, size_t n);

/* The code point the editor draws for cp: a tab as "⇥" (U+21E5), a newline
 * as "↵" (U+21B5), as the token labels show them; another control as its
 * control picture (U+2400 + cp, "␡" for DEL) or U+FFFD (C1); else cp. One
 * column each, so the widths below count a control as one column. */
unsigned edit_glyph(unsigned cp);

/* Each returns true when the text or the cursor changed. */
bool edit_backspace(EditBuf *e);
bool edit_delete(EditBuf *e);
bool edit_delete_word(EditBuf *e); /* the word before the cursor (Ctrl-W) */
bool edit_clear(EditBuf *e);
bool edit_left(EditBuf *e);
bool edit_right(EditBuf *e);
bool edit_home(EditBuf *e);
bool edit_end(EditBuf *e);
bool edit_word_left(EditBuf *e);  /* to the start of this or the previous word */
bool edit_word_right(EditBuf *e); /* to the end of this or the next word */

/* Display columns of s[0..off) (wcwidth; the caller sets a UTF-8 locale). */
int edit_width(const EditBuf *e, size_t off);

/* The byte offset of the code point at display column col (clamped). */
size_t edit_offset_at(const EditBuf *e, int col);

/* The token under or just before byte offset off, or -1 when none. */
int edit_token_at(const TokenList *t, size_t off);

#endif
