/* input.c - keys to Actions through one const table, and the help overlay
 * generated from that same table, so the help always lists every key.
 *
 * The live training view (W, --train) reads its keys from the same table, in
 * a mode of its own (input_read_train); its rows are in the help too.
 *
 * Two modes. Browsing (the start): single letters are commands (q quits, m
 * toggles the mask ...). Editing (Enter, e or i; or a click on the sentence):
 * printable keys type into the sentence, Esc or Enter goes back. Function
 * keys, Ctrl keys, Tab and Up/Down work in both modes.
 */
#include "input.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <term.h>
#include <wchar.h>

#include "core/utf8.h"
#include "mouse.h"
#include "views/view_lesson.h"
#include "widgets.h"

enum { IN_BROWSE = 1, IN_EDIT = 2, IN_BOTH = 3, IN_TRAIN = 4 }; /* TRAIN: the live view */

/* Extra key codes above ncurses' own, for keys it reports in other ways. */
enum { UIKEY_CTRL_LEFT = KEY_MAX + 1, UIKEY_CTRL_RIGHT, UIKEY_ALT_B, UIKEY_ALT_F };

typedef struct {
    int key;
    unsigned char modes;
    Action action;
    int arg;
    const char *name;
} Binding;

#define KEY_CTRL(c) ((c) & 0x1f)

static const Binding bindings[] = {
    /* everywhere, the live training view too */
    {KEY_F(1), IN_BOTH | IN_TRAIN, ACT_HELP, 0, "F1"},
    {KEY_CTRL('g'), IN_BOTH | IN_TRAIN, ACT_HELP, 0, "^G"},
    {KEY_CTRL('c'), IN_BOTH | IN_TRAIN, ACT_QUIT, 0, "^C"}, /* raw mode: Ctrl-C is a key */
    {KEY_CTRL('\\'), IN_BOTH | IN_TRAIN, ACT_QUIT, 0, NULL},
    {27, IN_BOTH | IN_TRAIN, ACT_ESCAPE, 0, "Esc"},
    {KEY_F(10), IN_BOTH | IN_TRAIN, ACT_QUIT, 0, "F10"},
    {KEY_F(2), IN_BOTH, ACT_VIEW, 0, "F2"},
    {'\t', IN_EDIT, ACT_FIELD_NEXT, 0, "Tab"},
    {'\t', IN_BOTH, ACT_HEAD_NEXT, 0, "Tab"},
    {KEY_BTAB, IN_BOTH, ACT_HEAD_PREV, 0, "Shift-Tab"},
    {KEY_UP, IN_BOTH | IN_TRAIN, ACT_ROW_PREV, 0, "Up"}, /* training: scroll the help */
    {KEY_DOWN, IN_BOTH | IN_TRAIN, ACT_ROW_NEXT, 0, "Down"},
    {KEY_PPAGE, IN_BOTH | IN_TRAIN, ACT_ROW_PGUP, 0, "PgUp"},
    {KEY_NPAGE, IN_BOTH | IN_TRAIN, ACT_ROW_PGDN, 0, "PgDn"},
    {KEY_F(9), IN_BOTH, ACT_MASK, 0, "F9"},
    {KEY_CTRL('k'), IN_BOTH, ACT_MASK, 0, "^K"},
    {KEY_CTRL('p'), IN_BOTH, ACT_PE, 0, "^P"},
    {KEY_CTRL('t'), IN_BOTH, ACT_SCALE, 0, "^T"},
    {KEY_F(3), IN_BOTH, ACT_HEADS_DEC, 0, "F3"},
    {KEY_F(4), IN_BOTH, ACT_HEADS_INC, 0, "F4"},
    {KEY_F(5), IN_BOTH, ACT_DMODEL_DEC, 0, "F5"},
    {KEY_F(6), IN_BOTH, ACT_DMODEL_INC, 0, "F6"},
    {KEY_F(7), IN_BOTH, ACT_SEED_DEC, 0, "F7"},
    {KEY_F(8), IN_BOTH, ACT_SEED_INC, 0, "F8"},
    {KEY_CTRL('n'), IN_BOTH, ACT_SENT_NEXT, 0, "^N"},
    {KEY_CTRL('o'), IN_BOTH, ACT_EXPORT_HEAD, 0, "^O"},
    {KEY_CTRL('x'), IN_BOTH, ACT_EXPORT_ALL, 0, "^X"},
    /* browsing: letters are commands */
    {'q', IN_BROWSE | IN_TRAIN, ACT_QUIT, 0, "q"},
    {'?', IN_BROWSE | IN_TRAIN, ACT_HELP, 0, "?"},
    {'\r', IN_BROWSE, ACT_EDIT, 0, "Enter"},
    {KEY_ENTER, IN_BROWSE, ACT_EDIT, 0, NULL},
    {'\n', IN_BROWSE, ACT_EDIT, 0, NULL},
    {'e', IN_BROWSE, ACT_EDIT, 0, "e"},
    {'i', IN_BROWSE, ACT_EDIT, 0, "i"},
    {'v', IN_BROWSE, ACT_VIEW, 0, "v"},
    {'k', IN_BROWSE, ACT_ROW_PREV, 0, "k"},
    {'j', IN_BROWSE, ACT_ROW_NEXT, 0, "j"},
    {KEY_HOME, IN_BROWSE, ACT_ROW_FIRST, 0, "Home"},
    {KEY_END, IN_BROWSE, ACT_ROW_LAST, 0, "End"},
    {KEY_LEFT, IN_BROWSE, ACT_COL_PREV, 0, "Left"},
    {KEY_RIGHT, IN_BROWSE, ACT_COL_NEXT, 0, "Right"},
    {'1', IN_BROWSE, ACT_HEAD_SET, 0, "1-9"},
    {'2', IN_BROWSE, ACT_HEAD_SET, 1, NULL},
    {'3', IN_BROWSE, ACT_HEAD_SET, 2, NULL},
    {'4', IN_BROWSE, ACT_HEAD_SET, 3, NULL},
    {'5', IN_BROWSE, ACT_HEAD_SET, 4, NULL},
    {'6', IN_BROWSE, ACT_HEAD_SET, 5, NULL},
    {'7', IN_BROWSE, ACT_HEAD_SET, 6, NULL},
    {'8', IN_BROWSE, ACT_HEAD_SET, 7, NULL},
    {'9', IN_BROWSE, ACT_HEAD_SET, 8, NULL},
    {'m', IN_BROWSE, ACT_MASK, 0, "m"},
    {'c', IN_BROWSE, ACT_MASK, 0, "c"},
    {'p', IN_BROWSE, ACT_PE, 0, "p"},
    {'s', IN_BROWSE, ACT_SCALE, 0, "s"},
    {'h', IN_BROWSE, ACT_HEADS_DEC, 0, "h"},
    {'H', IN_BROWSE, ACT_HEADS_INC, 0, "H"},
    {'d', IN_BROWSE, ACT_DMODEL_DEC, 0, "d"},
    {'D', IN_BROWSE, ACT_DMODEL_INC, 0, "D"},
    {'r', IN_BROWSE, ACT_SEED_DEC, 0, "r"},
    {'R', IN_BROWSE, ACT_SEED_INC, 0, "R"},
    {'l', IN_BROWSE, ACT_LAYER_NEXT, 0, "l"},
    {'n', IN_BROWSE, ACT_SENT_NEXT, 0, "n"},
    {'N', IN_BROWSE, ACT_SENT_PREV, 0, "N"},
    {'x', IN_BROWSE, ACT_EXPORT_HEAD, 0, "x"},
    {'X', IN_BROWSE, ACT_EXPORT_ALL, 0, "X"},
    {'G', IN_BROWSE, ACT_EXPORT_SVG, 0, "G"},
    {'P', IN_BROWSE, ACT_PRESET, 0, "P"},
    {'[', IN_BROWSE, ACT_DIMS_PREV, 0, "["},
    {']', IN_BROWSE, ACT_DIMS_NEXT, 0, "]"},
    {'w', IN_BROWSE, ACT_TRACE, 0, "w"},
    {'S', IN_BROWSE, ACT_PIPELINE, 0, "S"},
    {'o', IN_BROWSE, ACT_LESSONS, 0, "o"},
    {'{', IN_BROWSE, ACT_LESSON_TEXT_UP, 0, "{"},
    {'}', IN_BROWSE, ACT_LESSON_TEXT_DOWN, 0, "}"},
    {KEY_SR, IN_BROWSE, ACT_LESSON_TEXT_UP, 0, "S-Up"},
    {KEY_SF, IN_BROWSE, ACT_LESSON_TEXT_DOWN, 0, "S-Down"},
    {KEY_F(11), IN_BOTH, ACT_TRACE, 0, "F11"},
    {'I', IN_BROWSE, ACT_HEADS_HELP, 0, "I"},
    {'t', IN_BROWSE, ACT_TEMP_DOWN, 0, "t"},
    {'T', IN_BROWSE, ACT_TEMP_UP, 0, "T"},
    {'L', IN_BROWSE, ACT_LAYER_PREV, 0, "L"},
    {'<', IN_BROWSE, ACT_LAYERS_DEC, 0, "<"},
    {'>', IN_BROWSE, ACT_LAYERS_INC, 0, ">"},
    {'C', IN_BROWSE, ACT_CROSS, 0, "C"},
    {'E', IN_BROWSE, ACT_EDIT_CROSS, 0, "E"},
    {'b', IN_BROWSE, ACT_CMP_MASK, 0, "b"},
    {'B', IN_BROWSE, ACT_CMP_HEADS, 0, "B"},
    {'a', IN_BROWSE, ACT_POOL, 0, "a"},
    {'z', IN_BROWSE, ACT_ZOOM_IN, 0, "z"},
    {'+', IN_BROWSE, ACT_ZOOM_IN, 0, "+"},
    {'=', IN_BROWSE, ACT_ZOOM_IN, 0, NULL},
    {'Z', IN_BROWSE, ACT_ZOOM_OUT, 0, "Z"},
    {'-', IN_BROWSE, ACT_ZOOM_OUT, 0, "-"},
    {'0', IN_BROWSE, ACT_ZOOM_ALL, 0, "0"},
    {'g', IN_BROWSE, ACT_GENERATE, 0, "g"},
    {'A', IN_BROWSE, ACT_COMBINE_HEADS, 0, "A"},
    {'O', IN_BROWSE, ACT_ROLLOUT, 0, "O"},
    {'V', IN_BROWSE, ACT_NORMS, 0, "V"},
    {'M', IN_BROWSE, ACT_MULTI_ROW, 0, "M"},
    {'W', IN_BROWSE, ACT_TRAIN, 0, "W"},
    {'f', IN_BROWSE, ACT_HEAD_TABLE, 0, "f"},
    {'F', IN_BROWSE, ACT_MODEL_VIEW, 0, "F"},
    {'u', IN_BROWSE, ACT_LENS, 0, "u"},
    {'K', IN_BROWSE, ACT_SINK, 0, "K"},
    /* the live training view (W, --train) */
    {' ', IN_TRAIN, ACT_TRAIN_PAUSE, 0, "Space"},
    {'p', IN_TRAIN, ACT_TRAIN_PAUSE, 0, "p"},
    {'.', IN_TRAIN, ACT_TRAIN_STEP, 0, "."},
    {'+', IN_TRAIN, ACT_TRAIN_FASTER, 0, "+"},
    {'=', IN_TRAIN, ACT_TRAIN_FASTER, 0, NULL},
    {'-', IN_TRAIN, ACT_TRAIN_SLOWER, 0, "-"},
    {'_', IN_TRAIN, ACT_TRAIN_SLOWER, 0, NULL},
    {'r', IN_TRAIN, ACT_TRAIN_RESET, 0, "r"},
    {'s', IN_TRAIN, ACT_TRAIN_SAVE, 0, "s"},
    {'Q', IN_TRAIN, ACT_QUIT, 0, NULL},
    /* editing: letters type */
    {'\r', IN_EDIT, ACT_EDIT_DONE, 0, "Enter"},
    {KEY_ENTER, IN_EDIT, ACT_EDIT_DONE, 0, NULL},
    {'\n', IN_EDIT, ACT_EDIT_DONE, 0, NULL},
    {KEY_LEFT, IN_EDIT, ACT_CUR_LEFT, 0, "Left"},
    {KEY_RIGHT, IN_EDIT, ACT_CUR_RIGHT, 0, "Right"},
    {KEY_HOME, IN_EDIT, ACT_CUR_HOME, 0, "Home"},
    {KEY_CTRL('a'), IN_EDIT, ACT_CUR_HOME, 0, "^A"},
    {KEY_END, IN_EDIT, ACT_CUR_END, 0, "End"},
    {KEY_CTRL('e'), IN_EDIT, ACT_CUR_END, 0, "^E"},
    {UIKEY_CTRL_LEFT, IN_EDIT, ACT_WORD_LEFT, 0, "^Left"},
    {UIKEY_ALT_B, IN_EDIT, ACT_WORD_LEFT, 0, NULL},
    {UIKEY_CTRL_RIGHT, IN_EDIT, ACT_WORD_RIGHT, 0, "^Right"},
    {UIKEY_ALT_F, IN_EDIT, ACT_WORD_RIGHT, 0, NULL},
    {KEY_BACKSPACE, IN_EDIT, ACT_BACKSPACE, 0, "BkSp"},
    {127, IN_EDIT, ACT_BACKSPACE, 0, NULL},
    {KEY_CTRL('h'), IN_EDIT, ACT_BACKSPACE, 0, NULL},
    {KEY_DC, IN_EDIT, ACT_DELETE, 0, "Del"},
    {KEY_CTRL('d'), IN_EDIT, ACT_DELETE, 0, "^D"},
    {KEY_CTRL('w'), IN_EDIT, ACT_DEL_WORD, 0, "^W"},
    {KEY_CTRL('u'), IN_EDIT, ACT_CLEAR, 0, "^U"},
};

#define N_BINDINGS ((int)(sizeof bindings / sizeof bindings[0]))

/* The help overlay: one line per action or -/+ pair; keys come from the table. */
typedef struct {
    Action a, b; /* b: the pair's second action, or ACT_NONE */
    const char *text;  /* with a == ACT_NONE: a heading */
} HelpLine;

static const HelpLine help_lines[] = {
    {ACT_NONE, ACT_NONE, "Commands (letters while browsing)"},
    {ACT_QUIT, ACT_NONE, "quit (also Ctrl-C)"},
    {ACT_ESCAPE, ACT_NONE, "back out one level (never quits)"},
    {ACT_HELP, ACT_NONE, "this help"},
    {ACT_EDIT, ACT_NONE, "edit the sentence"},
    {ACT_VIEW, ACT_NONE, "attention <-> PE view"},
    {ACT_HEAD_NEXT, ACT_HEAD_PREV, "next / previous head"},
    {ACT_HEAD_SET, ACT_NONE, "focus head 1-9"},
    {ACT_ROW_PREV, ACT_ROW_NEXT, "token up / down"},
    {ACT_ROW_PGUP, ACT_ROW_PGDN, "a page up / down"},
    {ACT_ROW_FIRST, ACT_ROW_LAST, "first / last token"},
    {ACT_COL_PREV, ACT_COL_NEXT, "cell weight & score"},
    {ACT_MASK, ACT_NONE, "causal mask on/off"},
    {ACT_PE, ACT_NONE, "pos. encoding on/off"},
    {ACT_SCALE, ACT_NONE, "1/sqrt(d_k) on/off"},
    {ACT_HEADS_DEC, ACT_HEADS_INC, "fewer / more heads"},
    {ACT_DMODEL_DEC, ACT_DMODEL_INC, "d_model down / up"},
    {ACT_SEED_DEC, ACT_SEED_INC, "seed - / +"},
    {ACT_SENT_NEXT, ACT_SENT_PREV, "next / prev. example"},
    {ACT_EXPORT_HEAD, ACT_NONE, "export this head"},
    {ACT_EXPORT_ALL, ACT_NONE, "export all heads"},
    {ACT_EXPORT_SVG, ACT_NONE, "save the view as SVG"},
    {ACT_PRESET, ACT_NONE, "designed/random heads"},
    {ACT_LAYER_NEXT, ACT_LAYER_PREV, "next / previous layer"},
    {ACT_LAYERS_DEC, ACT_LAYERS_INC, "fewer / more layers"},
    {ACT_NONE, ACT_NONE, "Teaching"},
    {ACT_TRACE, ACT_NONE, "calculation trace"},
    {ACT_PIPELINE, ACT_NONE, "pipeline: every stage"},
    {ACT_HEAD_TABLE, ACT_NONE, "find heads: every head's scores"},
    {ACT_MODEL_VIEW, ACT_NONE, "model view: every layer x head"},
    {ACT_LENS, ACT_NONE, "logit lens: layers' next token"},
    {ACT_LESSONS, ACT_NONE, "lessons (n/p pages, Esc)"},
    {ACT_LESSON_TEXT_UP, ACT_LESSON_TEXT_DOWN, "lesson text back / on"},
    {ACT_HEADS_HELP, ACT_NONE, "how the heads were built"},
    {ACT_TEMP_DOWN, ACT_TEMP_UP, "temperature x0.5 / x2"},
    {ACT_CMP_MASK, ACT_NONE, "side by side: mask off/on"},
    {ACT_CMP_HEADS, ACT_NONE, "side by side: next head"},
    {ACT_CROSS, ACT_NONE, "cross-attention on/off"},
    {ACT_EDIT_CROSS, ACT_NONE, "edit the 2nd sentence"},
    {ACT_GENERATE, ACT_NONE, "--model: next token"},
    {ACT_NONE, ACT_COUNT, "title: entropy (bits, mean"},
    {ACT_NONE, ACT_COUNT, " of rows), max: mean top weight"},
    {ACT_NONE, ACT_NONE, "Training view (W)"},
    {ACT_TRAIN, ACT_NONE, "watch a model train"},
    {ACT_TRAIN_PAUSE, ACT_NONE, "pause / train on"},
    {ACT_TRAIN_STEP, ACT_NONE, "one step (pauses)"},
    {ACT_TRAIN_FASTER, ACT_TRAIN_SLOWER, "more / fewer steps"},
    {ACT_TRAIN_RESET, ACT_NONE, "from step 0, next seed"},
    {ACT_TRAIN_SAVE, ACT_NONE, "save the model"},
    {ACT_NONE, ACT_NONE, "Combining (also imported)"},
    {ACT_COMBINE_HEADS, ACT_NONE, "heads mean/max/sum"},
    {ACT_ROLLOUT, ACT_NONE, "rollout across layers"},
    {ACT_NORMS, ACT_NONE, "value-weighted norms"},
    {ACT_SINK, ACT_NONE, "what-if: no first token"},
    {ACT_MULTI_ROW, ACT_NONE, "query +/- rows summed"},
    {ACT_NONE, ACT_NONE, "Long texts (pooled)"},
    {ACT_ZOOM_IN, ACT_ZOOM_OUT, "zoom in / out"},
    {ACT_ZOOM_ALL, ACT_NONE, "every token"},
    {ACT_POOL, ACT_NONE, "max / mean pooling"},
    {ACT_DIMS_PREV, ACT_DIMS_NEXT, "PE dims; pipeline pages"},
    {ACT_NONE, ACT_NONE, "Editing (letters type)"},
    {ACT_EDIT_DONE, ACT_NONE, "stop editing (or Esc)"},
    {ACT_FIELD_NEXT, ACT_NONE, "other sentence (cross)"},
    {ACT_CUR_LEFT, ACT_CUR_RIGHT, "cursor left / right"},
    {ACT_CUR_HOME, ACT_CUR_END, "start / end"},
    {ACT_WORD_LEFT, ACT_WORD_RIGHT, "word left/right; Alt-b/f"},
    {ACT_BACKSPACE, ACT_DELETE, "delete back / fwd"},
    {ACT_DEL_WORD, ACT_NONE, "delete word back"},
    {ACT_CLEAR, ACT_NONE, "clear the sentence"},
    {ACT_NONE, ACT_NONE, "Mouse"},
    {ACT_NONE, ACT_COUNT, "click chip/row/cell: select"},
    {ACT_NONE, ACT_COUNT, "click a small head: focus it"},
    {ACT_NONE, ACT_COUNT, "click sentence: edit there"},
    {ACT_NONE, ACT_COUNT, "wheel: token up / down"},
};

/* Home and End as other terminals send them, when the terminfo entry does
 * not name these sequences (tmux sends ESC [1~ under TERM=xterm). */
static void define_extra_keys(void)
{
    static const struct {
        const char *seq;
        int code;
    } extra[] = {
        {"\033[1~", KEY_HOME}, {"\033[4~", KEY_END}, {"\033[7~", KEY_HOME},
        {"\033[8~", KEY_END},  {"\033[H", KEY_HOME}, {"\033[F", KEY_END},
        {"\033OH", KEY_HOME},  {"\033OF", KEY_END},
    };
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++)
        if (key_defined(extra[k].seq) == 0)
            define_key(extra[k].seq, extra[k].code);
}

void input_init(UiState *u)
{
    define_extra_keys();
    static const char *const caps[2] = {"kLFT5", "kRIT5"};
    int *codes[2] = {&u->key_ctrl_left, &u->key_ctrl_right};
    for (int k = 0; k < 2; k++) {
        char *s = tigetstr(caps[k]);
        int code = s && s != (char *)-1 ? key_defined(s) : 0;
        *codes[k] = code > 0 ? code : 0;
    }
}

static bool lookup(unsigned mode, int key, AppInput *in)
{
    for (int k = 0; k < N_BINDINGS; k++)
        if (bindings[k].key == key && (bindings[k].modes & mode)) {
            in->action = bindings[k].action;
            in->arg = bindings[k].arg;
            return true;
        }
    return false;
}

bool input_bound(int key)
{
    for (int k = 0; k < N_BINDINGS; k++)
        if (bindings[k].key == key && (bindings[k].modes & IN_BROWSE))
            return true;
    return false;
}

/* Esc alone is Esc, also when a key curses decoded itself (a resize)
 * follows at once. Esc then b or f at once is Alt-b / Alt-f; Esc then
 * anything else at once is another Alt-key or an escape sequence curses does
 * not know (a key of another terminal): it is read and ignored, so that an
 * unknown key never quits. */
static int read_escape(void)
{
    int delay = wgetdelay(stdscr), key = 27;
    timeout(0);
    int ch = getch();
    if (ch >= KEY_MIN) { /* a key curses decoded (a resize): no sequence, Esc alone */
        ungetch(ch);
    } else if (ch != ERR) {
        key = ch == 'b' ? UIKEY_ALT_B : ch == 'f' ? UIKEY_ALT_F : 0;
        for (int k = 0; k < 16 && key == 0 && ch != '~' && !(ch >= 'A' && ch <= 'z' && k > 0);
             k++)
            if ((ch = getch()) == ERR)
                break;
    }
    timeout(delay);
    return key;
}

/* Is more input already waiting? (Then Enter is part of a paste.) */
static bool more_pending(void)
{
    int delay = wgetdelay(stdscr);
    timeout(0);
    int b = getch();
    timeout(delay);
    if (b == ERR)
        return false;
    ungetch(b);
    return true;
}

/* The next input: a curses key code, or a code point decoded here from the
 * bytes wgetch returns. get_wch dropped the rest of a burst after one bad
 * byte (a Latin-1 paste lost all of its text); here a byte that does not
 * start or continue a valid UTF-8 sequence becomes U+FFFD and the next byte
 * is read afresh. Returns ERR, KEY_CODE_YES (*ch a key code) or OK. */
static int read_input(wint_t *ch)
{
    int b = getch();
    if (b == ERR)
        return ERR;
    *ch = (wint_t)b;
    if (b >= KEY_MIN)
        return KEY_CODE_YES;
    if (b < 0x80)
        return OK;
    int need = b >= 0xC2 && b <= 0xDF ? 1 : b >= 0xE0 && b <= 0xEF ? 2
             : b >= 0xF0 && b <= 0xF4 ? 3 : 0;
    char buf[4] = {(char)b};
    int len = 1, delay = wgetdelay(stdscr);
    timeout(20); /* the rest of a character arrives with its first byte */
    for (int k = 0; k < need; k++) {
        int c = getch();
        if (c == ERR || c >= KEY_MIN || (c & 0xC0) != 0x80) {
            if (c != ERR)
                ungetch(c);
            break;
        }
        buf[len++] = (char)c;
    }
    timeout(delay);
    unsigned cp;
    *ch = need && len == need + 1 && utf8_decode(buf, (size_t)len, &cp) == len ? cp : 0xFFFD;
    return OK;
}

static bool typed(const UiState *u, wint_t ch, AppInput *in)
{
    if (u->a.app.mode == MODE_EDIT && (ch == '\r' || ch == '\n') && more_pending())
        ch = ' '; /* a line break inside pasted text joins the lines */
    if (u->a.app.mode != MODE_EDIT || ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch < 0xA0))
        return false;
    in->text[utf8_encode((unsigned)ch, in->text)] = '\0';
    return true;
}

bool input_read(UiState *u, AppInput *in)
{
    wint_t ch;
    int r = read_input(&ch);
    memset(in, 0, sizeof *in);
    if (r == ERR)
        return false;
    int key = (int)ch;
    if (r == KEY_CODE_YES) {
        if (key == KEY_MOUSE)
            return mouse_read(u, in), true;
        /* After a resize the terminal may not hold what curses thinks it
         * does (tmux keeps old cells when a pane grows): repaint it all. */
        if (key == KEY_RESIZE)
            clearok(curscr, TRUE);
        if (key != 0 && key == u->key_ctrl_left)
            key = UIKEY_CTRL_LEFT;
        else if (key != 0 && key == u->key_ctrl_right)
            key = UIKEY_CTRL_RIGHT;
    } else if (key == 27) {
        key = read_escape();
    } else if (typed(u, ch, in)) {
        return true;
    } else if (key == KEY_CTRL('l')) { /* the whole screen again, as after a resize */
        clearok(curscr, TRUE);
        return true;
    }
    view_lesson_key(u, key, r == KEY_CODE_YES, in);
    lookup(u->a.app.mode == MODE_EDIT ? IN_EDIT : IN_BROWSE, key, in);
    return true; /* an unbound key (or KEY_RESIZE) just redraws */
}

bool input_read_train(AppInput *in, int *key)
{
    wint_t ch;
    int r = read_input(&ch);
    memset(in, 0, sizeof *in);
    *key = 0;
    if (r == ERR)
        return false;
    int k = (int)ch;
    if (r == KEY_CODE_YES && k == KEY_MOUSE) { /* the view takes no clicks */
        MEVENT ev;
        getmouse(&ev);
        return true;
    }
    if (r == KEY_CODE_YES && k == KEY_RESIZE) {
        clearok(curscr, TRUE);
        return true;
    }
    if (r == OK && k == KEY_CTRL('l')) {
        clearok(curscr, TRUE);
        return true;
    }
    if (r == OK && k == 27)
        k = read_escape(); /* 0: a sequence curses did not know, dropped */
    *key = k;
    lookup(IN_TRAIN, k, in);
    return true;
}

/* The key names of action a in the table, space-separated, into names[]. */
static int key_names(Action a, const char **names, int max)
{
    int n = 0;
    for (int k = 0; k < N_BINDINGS && n < max; k++)
        if (bindings[k].action == a && bindings[k].name) {
            bool seen = false;
            for (int m = 0; m < n; m++)
                seen = seen || strcmp(names[m], bindings[k].name) == 0;
            if (!seen)
                names[n++] = bindings[k].name;
        }
    return n;
}

/* "h/H F3/F4" for a pair with as many keys each, else "a b / c d". */
static void help_keys(const HelpLine *hl, char *buf, size_t size)
{
    const char *na[8], *nb[8];
    int ka = key_names(hl->a, na, 8), kb = hl->b != ACT_NONE ? key_names(hl->b, nb, 8) : 0;
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < ka && len < size; k++) {
        if (kb == ka)
            len += (size_t)snprintf(buf + len, size - len, "%s%s/%s", k ? " " : "", na[k], nb[k]);
        else
            len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? " " : "", na[k]);
    }
    for (int k = 0; kb != ka && k < kb && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? " " : " / ", nb[k]);
}

/* The widest key list among lines first .. first+count-1. */
static int keys_width(int first, int count)
{
    int w = 0;
    for (int k = first; k < first + count; k++) {
        char keys[96];
        if (help_lines[k].a == ACT_NONE)
            continue;
        help_keys(&help_lines[k], keys, sizeof keys);
        int kw = (int)strlen(keys);
        w = kw > w ? kw : w;
    }
    return w + 1;
}

static void help_line(Grid *g, const HelpLine *hl, int x, int y, int col_w, int key_w)
{
    char keys[96];
    if (hl->a == ACT_NONE && hl->b == ACT_NONE) {
        grid_puts(g, x + 1, y, hl->text, col_w - 2, STYLE_ACCENT);
    } else if (hl->b == ACT_COUNT) {
        grid_puts(g, x + 2, y, hl->text, col_w - 3, STYLE_TEXT);
    } else {
        help_keys(hl, keys, sizeof keys);
        grid_puts(g, x + 1, y, keys, key_w - 1, STYLE_LABEL);
        grid_puts(g, x + 1 + key_w, y, hl->text, col_w - key_w - 2, STYLE_TEXT);
    }
}

/* Columns of at least HELP_COL_W, as many as the width allows and the lines
 * need; a screen too short for them scrolls (Up/Down, PgUp/PgDn). */
#define HELP_COL_W 38

/* Whether lines first .. first+count-1 fit whole in a column col_w wide:
 * keys, a gap, the description and the box's margins. */
static bool help_fits(int first, int count, int col_w)
{
    int key_w = keys_width(first, count);
    key_w = key_w > col_w / 2 ? col_w / 2 : key_w;
    for (int k = first; k < first + count; k++) {
        int tw = grid_text_width(help_lines[k].text);
        const HelpLine *hl = &help_lines[k]; /* as help_line lays it out */
        int need = hl->a == ACT_NONE ? tw + 2 : hl->b == ACT_COUNT ? tw + 3 : key_w + tw + 2;
        if (need > col_w)
            return false;
    }
    return true;
}

#define N_HELP ((int)(sizeof help_lines / sizeof help_lines[0]))

/* The help's columns on a screen gw x gh: the box's width, the rows a
 * column shows and the lines a column holds. */
static int help_layout(int gw, int gh, int *w, int *rows, int *per_col)
{
    const int n = N_HELP;
    *w = gw - 2 > 120 ? 120 : gw - 2;
    *rows = gh - 2 - 3;
    int cols = (*w - 2) / HELP_COL_W;
    cols = cols < 1 ? 1 : cols;
    if (*rows > 0 && cols > (n + *rows - 1) / *rows)
        cols = (n + *rows - 1) / *rows;
    cols = cols < 1 ? 1 : cols;
    /* fewer columns (and more scrolling) rather than a description cut */
    for (bool fit = false; cols > 1 && !fit;) {
        int per = (n + cols - 1) / cols;
        fit = true;
        for (int c = 0; c < cols && fit; c++)
            fit = help_fits(c * per, n - c * per < per ? n - c * per : per, (*w - 2) / cols);
        cols -= !fit;
    }
    *per_col = (n + cols - 1) / cols;
    return cols;
}

void input_help_at(UiState *u, int gw, int gh, Action a)
{
    int w, rows, per_col;
    help_layout(gw, gh, &w, &rows, &per_col);
    for (int k = 0; k < N_HELP; k++)
        if (help_lines[k].a == a) {
            /* its heading first, when the line under one */
            int line = k > 0 && help_lines[k - 1].a == ACT_NONE && help_lines[k - 1].b == ACT_NONE
                           ? k - 1
                           : k;
            line %= per_col; /* within its column; already in sight: no scroll */
            u->a.app.help_scroll = line < rows ? 0 : line; /* input_help_draw clamps the end */
            return;
        }
}

void input_help_draw(UiState *u, Grid *g)
{
    int n = N_HELP, w, rows, per_col;
    int cols = help_layout(g->w, g->h, &w, &rows, &per_col), h = g->h - 2;
    int col_w = (w - 2) / cols;
    int most = per_col - rows > 0 ? per_col - rows : 0, box_h = per_col + 3 < h ? per_col + 3 : h;
    const AppState *s = &u->a.app;
    u->report.help_most = most;
    int x0 = (g->w - w) / 2, y0 = 1, top = s->help_scroll > most ? most : s->help_scroll;
    widget_box(g, (Rect){x0, y0, w, box_h});
    for (int y = y0; y < y0 + box_h; y++) { /* a blank column each side: no cut text's "…" */
        grid_put(g, x0 - 1, y, ' ', STYLE_TEXT, 0);
        grid_put(g, x0 + w, y, ' ', STYLE_TEXT, 0);
    }
    if (most > 0)
        grid_printf(g, x0 + w - 32, y0 + box_h - 1, 30, STYLE_DIM, " Up/Down: more (%d-%d of %d) ",
                    top + 1, top + rows, per_col);
    grid_puts(g, x0 + 2, y0, " attnviz keys - Esc, ? or F1 closes ", w - 4, STYLE_TITLE);
    for (int c = 0; c < cols; c++) {
        int first = c * per_col, count = n - first < per_col ? n - first : per_col;
        int key_w = keys_width(first, count);
        key_w = key_w > col_w / 2 ? col_w / 2 : key_w;
        for (int k = top; k < count && k - top < rows; k++)
            help_line(g, &help_lines[first + k], x0 + 1 + c * col_w, y0 + 1 + k - top, col_w,
                      key_w);
    }
}
