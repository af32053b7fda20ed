/* uistate.h - the interface's state and its sentence editor, without curses.
 *
 * The ncurses front end (src/ui/) turns keys and clicks into Actions and
 * hands them to app_apply, which changes the state and says what must be
 * recomputed; it never runs the model and never touches the terminal, so it
 * is unit-tested (tests/test_uistate.c). The editor keeps the sentence as
 * valid UTF-8 with a cursor on a code point boundary.
 */
#ifndef ATTNVIZ_UISTATE_H
#define ATTNVIZ_UISTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "sentences.h"
#include "tokenize.h"

#define EDIT_MAX_BYTES 4096 /* the sentence limit of the editor (SENTENCES_MAX_LINE) */

typedef struct {
    char *s;    /* len bytes of valid UTF-8, NUL-terminated */
    size_t len;
    size_t cap; /* bytes allocated (EDIT_MAX_BYTES + 1) */
    size_t cur; /* cursor: byte offset on a code point boundary, 0..len */
} EditBuf;

/* Allocate the buffer and set it to text (cut at EDIT_MAX_BYTES on a code
 * point boundary; bytes that are not valid UTF-8 end it). Cursor at the end.
 * Returns AV_OK or AV_ERR_NOMEM. */
int edit_init(EditBuf *e, const char *text);
void edit_free(EditBuf *e);

/* Replace the text, as edit_init. */
void edit_set(EditBuf *e, const char *text);

/* Insert bytes[0..n) at the cursor: only their valid UTF-8 prefix, with
 * control characters (tab, newline) turned into spaces. Returns the bytes
 * inserted (fewer when the limit is reached). */
size_t edit_insert(EditBuf *e, const char *bytes, size_t n);

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

typedef enum { VIEW_ATTN, VIEW_PE, VIEW_COUNT } AppView;
typedef enum { MODE_BROWSE, MODE_EDIT } AppMode;

typedef enum {
    ACT_NONE,
    ACT_QUIT,
    ACT_HELP,        /* toggle the help overlay */
    ACT_EDIT,        /* start editing the sentence */
    ACT_EDIT_DONE,   /* leave the editor (browse mode) */
    ACT_ESCAPE,      /* leave help, else leave the editor, else quit */
    ACT_VIEW,        /* attention <-> positional encodings */
    ACT_HEAD_NEXT,
    ACT_HEAD_PREV,
    ACT_HEAD_SET,    /* arg: 0-based head */
    ACT_ROW_NEXT,    /* query token down */
    ACT_ROW_PREV,
    ACT_ROW_PGDN,
    ACT_ROW_PGUP,
    ACT_ROW_FIRST,
    ACT_ROW_LAST,
    ACT_ROW_SET,     /* arg: 0-based query token; clears the key selection */
    ACT_CELL_SET,    /* arg: row * 65536 + column */
    ACT_COL_NEXT,    /* key token right */
    ACT_COL_PREV,
    ACT_MASK,
    ACT_PE,
    ACT_SCALE,
    ACT_HEADS_DEC,
    ACT_HEADS_INC,
    ACT_DMODEL_DEC,
    ACT_DMODEL_INC,
    ACT_SEED_DEC,
    ACT_SEED_INC,
    ACT_LAYER_NEXT,
    ACT_SENT_NEXT,
    ACT_SENT_PREV,
    ACT_EXPORT_HEAD,
    ACT_EXPORT_ALL,
    ACT_DIMS_NEXT,   /* positional encodings: next pair of plotted dimensions */
    ACT_DIMS_PREV,
    ACT_PRESET,      /* designed heads <-> random toy weights */
    ACT_CUR_LEFT,
    ACT_CUR_RIGHT,
    ACT_CUR_HOME,
    ACT_CUR_END,
    ACT_WORD_LEFT,
    ACT_WORD_RIGHT,
    ACT_BACKSPACE,
    ACT_DELETE,
    ACT_DEL_WORD,
    ACT_CLEAR,
    ACT_COUNT
} Action;

/* What app_apply asks of the caller. */
#define APP_RUN 1u          /* re-run the model (text or settings changed) */
#define APP_WEIGHTS 2u      /* rebuild the toy weights first (seed or d_model changed) */
#define APP_QUIT 4u
#define APP_EXPORT_HEAD 8u
#define APP_EXPORT_ALL 16u
#define APP_CURSOR 32u      /* the editor's cursor moved: the selection may follow it */

typedef struct {
    ModelConfig cfg;
    EditBuf text;
    AppMode mode;
    AppView view;
    bool help;
    bool fixed_weights;  /* --weights: d_model and seed cannot change */
    int head;            /* focused head, 0-based */
    int layer;           /* shown layer, 0-based */
    int sel_row;         /* selected query token, or -1 */
    int sel_col;         /* selected key token (the inspected cell), or -1 */
    int n_q, n_k;        /* tokens of the last model run (0 after an error) */
    int page;            /* rows of a page for PgUp/PgDn */
    int pe_dim;          /* first plotted dimension of the PE view (even) */
    const SentenceList *sentences;
    int sentence;        /* index of the example shown, or -1 after editing */
    char msg[160];       /* one-line message for the status line, "" when none */
} AppState;

/* Set up from a configuration and a starting text (NULL: the first example).
 * Returns AV_OK or AV_ERR_NOMEM. */
int app_init(AppState *s, const ModelConfig *cfg, const char *text,
             const SentenceList *sentences, bool fixed_weights);
void app_free(AppState *s);

/* Apply one action; arg is used by ACT_HEAD_SET, ACT_ROW_SET, ACT_CELL_SET.
 * Returns APP_* flags. */
unsigned app_apply(AppState *s, Action a, int arg);

/* Insert typed or pasted text at the cursor (edit mode). Returns APP_RUN when
 * the text changed. */
unsigned app_type(AppState *s, const char *bytes, size_t n);

/* After a model run: the token counts (0, 0 after an error); clamps the
 * selection. */
void app_set_tokens(AppState *s, int n_q, int n_k);

/* The next number of heads that divides d_model, above (dir > 0) or below H;
 * H itself when there is none. */
int app_heads_step(int d_model, int H, int dir);

/* The next d_model of the ladder 8, 16, 24, 32, 48, 64, 96, 128, 192, 256,
 * 384, 512, 768, 1024 above (dir > 0) or below d; d when there is none. */
int app_dmodel_step(int d, int dir);

/* The largest divisor of d_model that is at most H (at least 1). */
int app_heads_fit(int d_model, int H);

#endif
