/* input.c - keys to Actions through one const table (and the views' keys,
 * from their rows in io/views.def); the help overlay (views/view_help.c)
 * lists the keys from the same tables, so it always lists every key.
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
#include "views/view_table.h"

/* Extra key codes above ncurses' own, for keys it reports in other ways. */
enum {
    UIKEY_CTRL_LEFT = KEY_MAX + 1,
    UIKEY_CTRL_RIGHT,
    UIKEY_ALT_B,
    UIKEY_ALT_F,
    UIKEY_PASTE_START, /* ESC [200~: bracketed paste (term.c turns it on) */
    UIKEY_PASTE_END,   /* ESC [201~ */
};

typedef struct {
    int key;
    unsigned char modes;
    Action action;
    int arg;
    const char *name;
} Binding;

#define KEY_CTRL(c) ((c)&0x1f)

static const Binding bindings[] = {
    /* everywhere, the live training view too */
    {KEY_F(1), IN_BOTH | IN_TRAIN, ACT_HELP, 0, "F1"},
    {KEY_CTRL('g'), IN_BOTH | IN_TRAIN, ACT_HELP, 0, "^G"},
    {KEY_CTRL('c'), IN_BOTH | IN_TRAIN, ACT_QUIT, 0, "^C"}, /* raw mode: Ctrl-C is a key */
    {KEY_CTRL('\\'), IN_BOTH | IN_TRAIN, ACT_QUIT, 0, NULL},
    {27, IN_BOTH | IN_TRAIN, ACT_ESCAPE, 0, "Esc"},
    {KEY_F(10), IN_BOTH | IN_TRAIN, ACT_QUIT, 0, "F10"},
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
    {'o', IN_BROWSE, ACT_LESSONS, 0, "o"},
    {'{', IN_BROWSE, ACT_LESSON_TEXT_UP, 0, "{"},
    {'}', IN_BROWSE, ACT_LESSON_TEXT_DOWN, 0, "}"},
    {KEY_SR, IN_BROWSE, ACT_LESSON_TEXT_UP, 0, "S-Up"},
    {KEY_SF, IN_BROWSE, ACT_LESSON_TEXT_DOWN, 0, "S-Down"},
    {'I', IN_BROWSE, ACT_HEADS_HELP, 0, "I"},
    {'t', IN_BROWSE, ACT_TEMP_DOWN, 0, "t"},
    {'T', IN_BROWSE, ACT_TEMP_UP, 0, "T"},
    {'L', IN_BROWSE, ACT_LAYER_PREV, 0, "L"},
    {'<', IN_BROWSE, ACT_LAYERS_DEC, 0, "<"},
    {'>', IN_BROWSE, ACT_LAYERS_INC, 0, ">"},
    {'C', IN_BROWSE, ACT_CROSS, 0, "C"},
    {'E', IN_BROWSE, ACT_EDIT_CROSS, 0, "E"},
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

/* Home and End as other terminals send them, when the terminfo entry does
 * not name these sequences (tmux sends ESC [1~ under TERM=xterm). */
static void define_extra_keys(void)
{
    static const struct {
        const char *seq;
        int code;
    } extra[] = {
        {"\033[1~", KEY_HOME}, {"\033[4~", KEY_END}, {"\033[7~", KEY_HOME}, {"\033[8~", KEY_END},
        {"\033[H", KEY_HOME},  {"\033[F", KEY_END},  {"\033OH", KEY_HOME},  {"\033OF", KEY_END},
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
    return view_table_key(mode, key, &in->action); /* a view's key (views.def) */
}

bool input_bound(int key)
{
    for (int k = 0; k < N_BINDINGS; k++)
        if (bindings[k].key == key && (bindings[k].modes & IN_BROWSE))
            return true;
    Action a;
    return view_table_key(IN_BROWSE, key, &a);
}

/* Esc alone is Esc, also when a key curses decoded itself (a resize) or a
 * second Esc (two pressed quickly, tmux's "Escape Escape") follows at once. Esc then b or f at once
 * is Alt-b / Alt-f; Esc then anything else at once is another Alt-key or an escape sequence curses
 * does not know (a key of another terminal): it is read and ignored, so that an unknown key never
 * quits. */
static int read_escape(void)
{
    int delay = wgetdelay(stdscr), key = 27;
    timeout(0);
    int ch = getch();
    if (ch >= KEY_MIN || ch == 27) { /* a key curses decoded (a resize), or Esc again: */
        ungetch(ch);                 /* no sequence, Esc alone, then that key */
    } else if (ch != ERR) {
        key = ch == 'b' ? UIKEY_ALT_B : ch == 'f' ? UIKEY_ALT_F : 0;
        char seq[18] = {(char)ch};
        int len = 1;
        for (int k = 0; k < 16 && key == 0 && ch != '~' && !(ch >= 'A' && ch <= 'z' && k > 0);
             k++) {
            if ((ch = getch()) == ERR)
                break;
            seq[len++] = (char)ch;
        }
        seq[len] = '\0';
        key = strcmp(seq, "[200~") == 0   ? UIKEY_PASTE_START
              : strcmp(seq, "[201~") == 0 ? UIKEY_PASTE_END
                                          : key;
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
    int need = b >= 0xC2 && b <= 0xDF   ? 1
               : b >= 0xE0 && b <= 0xEF ? 2
               : b >= 0xF0 && b <= 0xF4 ? 3
                                        : 0;
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

/* A key's name into buf: the character itself when printable ("*", "é"),
 * else curses' name ("KEY_F(12)", "^Y"); "" when it has none. */
static void name_key(int key, bool code, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!code && key >= 0x20 && key != 0x7f && (key < 0x80 || key >= 0xA0) && size >= 5) {
        buf[utf8_encode((unsigned)key, buf)] = '\0';
        return;
    }
    const char *name = keyname(key);
    if (name)
        snprintf(buf, size, "%s", name);
}

/* A character typed into the sentence (true), or a key (false). Pasted text
 * keeps its tabs and line breaks: inside a bracketed paste, or a line break
 * with more input already waiting (a terminal without bracketed paste). */
static bool typed(const UiState *u, wint_t ch, AppInput *in)
{
    bool edit = u->a.app.mode == MODE_EDIT, brk = ch == '\r' || ch == '\n';
    if (edit && (brk || ch == '\t') && (u->pasting || (brk && more_pending()))) {
        in->text[0] = brk ? '\n' : '\t', in->text[1] = '\0';
        return true;
    }
    if (!edit || ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch < 0xA0))
        return false;
    in->text[utf8_encode((unsigned)ch, in->text)] = '\0';
    return true;
}

bool input_read(UiState *u, AppInput *in)
{
    wint_t ch;
    int r = read_input(&ch);
    memset(in, 0, sizeof *in);
    if (r == ERR) {
        /* a paste comes as one burst: once the input runs dry it is over,
         * its end marker seen or not (a lost one must not hold the keys) */
        u->pasting = false;
        return false;
    }
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
        if (key == UIKEY_PASTE_START || key == UIKEY_PASTE_END) {
            u->pasting = key == UIKEY_PASTE_START;
            /* text pasted while browsing is a sentence, not keys: it opens
             * the editor as e does (or is refused where e is) */
            if (u->pasting && u->a.app.mode != MODE_EDIT)
                lookup(IN_BROWSE, 'e', in);
            return true;
        }
    } else if (u->pasting && u->a.app.mode != MODE_EDIT) {
        return true; /* a paste the editor did not take: dropped, never read as keys */
    } else if (typed(u, ch, in)) {
        return true;
    } else if (key == KEY_CTRL('l')) { /* the whole screen again, as after a resize */
        clearok(curscr, TRUE);
        return true;
    }
    view_lesson_key(u, key, r == KEY_CODE_YES, in);
    lookup(u->a.app.mode == MODE_EDIT ? IN_EDIT : IN_BROWSE, key, in);
    if (in->action == ACT_NONE && !in->lesson_in && key > 0 && key != KEY_RESIZE)
        name_key(key, r == KEY_CODE_YES, in->key, sizeof in->key); /* a view may say so */
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

int input_key_names(Action a, const char **names, int max)
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
    return n + view_table_key_names(a, names + n, max - n); /* a view's (views.def) */
}
