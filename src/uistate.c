/* uistate.c - the interface's state and sentence editor, without curses.
 *
 * Pure bookkeeping: app_apply changes the state for an Action and returns what
 * the caller must redo (run the model, rebuild weights, export, quit). The
 * editor keeps valid UTF-8 and a cursor on a code point boundary. Nothing here
 * draws, prints or runs the model.
 */
#include "uistate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "av.h"
#include "grid.h"

static const int dmodel_ladder[] = {8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
#define LADDER_LEN ((int)(sizeof dmodel_ladder / sizeof dmodel_ladder[0]))

/* ---- editor ---------------------------------------------------------- */

int edit_init(EditBuf *e, const char *text)
{
    memset(e, 0, sizeof *e);
    e->s = malloc(EDIT_MAX_BYTES + 1);
    if (!e->s)
        return AV_ERR_NOMEM;
    e->cap = EDIT_MAX_BYTES + 1;
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
    if (text)
        edit_insert(e, text, strlen(text));
    e->cur = e->len;
}

size_t edit_insert(EditBuf *e, const char *bytes, size_t n)
{
    size_t ok = utf8_valid_prefix(bytes, n), room = EDIT_MAX_BYTES - e->len, k = 0;
    while (k < ok) {
        unsigned cp;
        int src = utf8_decode(bytes + k, ok - k, &cp);
        bool ctrl = cp < 0x20 || (cp >= 0x7f && cp < 0xA0); /* tab, newline, C1 */
        int cl = ctrl ? 1 : src;
        if (src <= 0 || (size_t)cl > room)
            break;
        memmove(e->s + e->cur + cl, e->s + e->cur, e->len - e->cur + 1);
        if (ctrl)
            e->s[e->cur] = ' ';
        else
            memcpy(e->s + e->cur, bytes + k, (size_t)cl);
        e->len += (size_t)cl, e->cur += (size_t)cl, room -= (size_t)cl;
        k += (size_t)src;
    }
    return k;
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
    buf[utf8_encode(cp, buf)] = '\0';
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

/* ---- settings -------------------------------------------------------- */

int app_heads_step(int d_model, int H, int dir)
{
    int limit = d_model < AV_MAX_HEADS ? d_model : AV_MAX_HEADS;
    for (int h = H + (dir > 0 ? 1 : -1); h >= 1 && h <= limit; h += dir > 0 ? 1 : -1)
        if (d_model % h == 0)
            return h;
    return H;
}

int app_heads_fit(int d_model, int H)
{
    int h = H < AV_MAX_HEADS ? H : AV_MAX_HEADS;
    while (h > 1 && d_model % h != 0)
        h--;
    return h < 1 ? 1 : h;
}

int app_dmodel_step(int d, int dir)
{
    if (dir > 0) {
        for (int k = 0; k < LADDER_LEN; k++)
            if (dmodel_ladder[k] > d)
                return dmodel_ladder[k];
    } else {
        for (int k = LADDER_LEN - 1; k >= 0; k--)
            if (dmodel_ladder[k] < d)
                return dmodel_ladder[k];
    }
    return d;
}

static void app_msg(AppState *s, const char *m)
{
    snprintf(s->msg, sizeof s->msg, "%s", m);
}

/* ---- actions --------------------------------------------------------- */

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Actions that only ask something of the caller: arg is the APP_* flags. */
static unsigned act_flags(AppState *s, int arg)
{
    (void)s;
    return (unsigned)arg;
}

/* The switches: 0 causal mask, 1 positional encoding, 2 scaling. */
static unsigned act_toggle(AppState *s, int which)
{
    static const char *const msgs[3][2] = {
        {"causal mask off: every token sees every token",
         "causal mask on: token i sees tokens 1..i only"},
        {"positional encoding off", "positional encoding on"},
        {"scores not scaled", "scores divided by sqrt(d_k)"},
    };
    bool *flag = which == 0 ? &s->cfg.causal : which == 1 ? &s->cfg.pe : &s->cfg.scale;
    *flag = !*flag;
    app_msg(s, msgs[which][*flag]);
    return APP_RUN;
}

static unsigned act_help(AppState *s, int arg)
{
    (void)arg;
    s->help = !s->help;
    return 0;
}

static unsigned act_edit(AppState *s, int arg)
{
    (void)arg;
    s->mode = MODE_EDIT;
    s->help = false;
    return 0;
}

static unsigned act_edit_done(AppState *s, int arg)
{
    (void)arg;
    s->mode = MODE_BROWSE;
    return 0;
}

static unsigned act_escape(AppState *s, int arg)
{
    (void)arg;
    if (s->help)
        s->help = false;
    else if (s->mode == MODE_EDIT)
        s->mode = MODE_BROWSE;
    else
        return APP_QUIT;
    return 0;
}

static unsigned act_view(AppState *s, int arg)
{
    (void)arg;
    s->view = (AppView)((s->view + 1) % VIEW_COUNT);
    return 0;
}

static unsigned act_head(AppState *s, int arg)
{
    s->head = ((arg % s->cfg.H) + s->cfg.H) % s->cfg.H;
    return 0;
}

static unsigned act_row(AppState *s, int arg)
{
    if (s->n_q > 0)
        s->sel_row = clampi(arg, 0, s->n_q - 1);
    return 0;
}

static unsigned act_row_set(AppState *s, int arg)
{
    s->sel_col = -1;
    return act_row(s, arg);
}

static unsigned act_cell_set(AppState *s, int arg)
{
    act_row(s, arg / 65536);
    if (s->n_k > 0)
        s->sel_col = clampi(arg % 65536, 0, s->n_k - 1);
    return 0;
}

static unsigned act_col(AppState *s, int step)
{
    if (s->n_k <= 0)
        return 0;
    if (s->sel_row < 0)
        s->sel_row = 0;
    s->sel_col = s->sel_col < 0 ? (step > 0 ? 0 : s->n_k - 1) : s->sel_col + step;
    s->sel_col = clampi(s->sel_col, 0, s->n_k - 1);
    return 0;
}

/* The designed preset fixes d_model and H: a message says so. */
static bool preset_fixed(AppState *s)
{
    if (s->cfg.preset != PRESET_DESIGNED)
        return false;
    app_msg(s, "the designed heads fix d_model 192 and 6 heads (P: random weights)");
    return true;
}

static unsigned act_preset(AppState *s, int arg)
{
    (void)arg;
    if (s->fixed_weights) {
        app_msg(s, "the weights come from --weights");
        return 0;
    }
    if (s->cfg.preset == PRESET_DESIGNED) {
        ModelConfig d;
        model_config_default(&d);
        s->cfg.preset = PRESET_RANDOM, s->cfg.d_model = d.d_model, s->cfg.H = d.H;
        app_msg(s, "random toy weights from the seed");
    } else {
        model_config_designed(&s->cfg);
        app_msg(s, "designed heads: previous token, self, first token, same word, "
                   "pronoun -> noun, verb -> subject");
    }
    s->head = s->head < s->cfg.H ? s->head : 0;
    s->pe_dim = s->pe_dim < s->cfg.d_model ? s->pe_dim : 0;
    return APP_RUN | APP_WEIGHTS;
}

static unsigned act_heads(AppState *s, int dir)
{
    if (preset_fixed(s))
        return 0;
    int H = app_heads_step(s->cfg.d_model, s->cfg.H, dir);
    if (H == s->cfg.H) {
        app_msg(s, dir > 0 ? "no more heads: H must divide d_model" : "at least one head");
        return 0;
    }
    s->cfg.H = H;
    s->head = s->head < H ? s->head : H - 1;
    s->msg[0] = '\0';
    return APP_RUN;
}

static unsigned act_dmodel(AppState *s, int dir)
{
    if (s->fixed_weights) {
        app_msg(s, "d_model is fixed by --weights");
        return 0;
    }
    if (preset_fixed(s))
        return 0;
    int d = app_dmodel_step(s->cfg.d_model, dir);
    if (d == s->cfg.d_model) {
        app_msg(s, dir > 0 ? "d_model is at its largest" : "d_model is at its smallest");
        return 0;
    }
    s->cfg.d_model = d;
    s->cfg.H = app_heads_fit(d, s->cfg.H);
    s->head = s->head < s->cfg.H ? s->head : s->cfg.H - 1;
    s->pe_dim = s->pe_dim < d ? s->pe_dim : 0;
    s->msg[0] = '\0';
    return APP_RUN | APP_WEIGHTS;
}

static unsigned act_seed(AppState *s, int dir)
{
    if (s->fixed_weights) {
        app_msg(s, "the seed is fixed by --weights");
        return 0;
    }
    s->cfg.seed += dir > 0 ? 1u : (uint64_t)-1;
    s->msg[0] = '\0';
    return APP_RUN | APP_WEIGHTS;
}

static unsigned act_layer(AppState *s, int arg)
{
    (void)arg;
    if (s->cfg.layers <= 1) {
        app_msg(s, "one layer only (start with more layers to step through them)");
        return 0;
    }
    s->layer = (s->layer + 1) % s->cfg.layers;
    return 0;
}

static unsigned act_sentence(AppState *s, int step)
{
    if (!s->sentences || s->sentences->n <= 0)
        return 0;
    int n = s->sentences->n;
    s->sentence = s->sentence < 0 ? (step > 0 ? 0 : n - 1) : ((s->sentence + step) % n + n) % n;
    edit_set(&s->text, s->sentences->items[s->sentence]);
    s->sel_row = s->sel_col = -1;
    snprintf(s->msg, sizeof s->msg, "example %d of %d", s->sentence + 1, n);
    return APP_RUN;
}

static unsigned act_dims(AppState *s, int step)
{
    int d = s->cfg.d_model - s->cfg.d_model % 2;
    if (d >= 2)
        s->pe_dim = ((s->pe_dim + step) % d + d) % d;
    return 0;
}

/* ---- editing --------------------------------------------------------- */

typedef struct {
    bool (*fn)(EditBuf *);
    bool changes_text;
} EditOp;

static const EditOp edit_ops[ACT_COUNT] = {
    [ACT_CUR_LEFT] = {edit_left, false},       [ACT_CUR_RIGHT] = {edit_right, false},
    [ACT_CUR_HOME] = {edit_home, false},       [ACT_CUR_END] = {edit_end, false},
    [ACT_WORD_LEFT] = {edit_word_left, false}, [ACT_WORD_RIGHT] = {edit_word_right, false},
    [ACT_BACKSPACE] = {edit_backspace, true},  [ACT_DELETE] = {edit_delete, true},
    [ACT_DEL_WORD] = {edit_delete_word, true}, [ACT_CLEAR] = {edit_clear, true},
};

static unsigned act_edit_op(AppState *s, Action a)
{
    const EditOp *op = &edit_ops[a];
    if (!op->fn(&s->text))
        return 0;
    if (!op->changes_text)
        return APP_CURSOR;
    s->sentence = -1;
    return APP_RUN | APP_CURSOR;
}

unsigned app_type(AppState *s, const char *bytes, size_t n)
{
    if (n == 0)
        return 0;
    if (edit_insert(&s->text, bytes, n) == 0) {
        app_msg(s, "the sentence is at its length limit");
        return 0;
    }
    s->sentence = -1;
    return APP_RUN | APP_CURSOR;
}

/* ---- dispatch -------------------------------------------------------- */

static unsigned act_head_step(AppState *s, int step)
{
    return act_head(s, s->head + step);
}

/* step: +-1 a token, +-2 a page. */
static unsigned act_row_step(AppState *s, int step)
{
    int page = s->page > 1 ? s->page : 1;
    return act_row(s, s->sel_row + (step == 2 ? page : step == -2 ? -page : step));
}

#define ARG_CALLER (-1000000) /* pass app_apply's arg through */

typedef struct {
    unsigned (*fn)(AppState *, int);
    int arg;
} ActEntry;

static const ActEntry act_table[ACT_COUNT] = {
    [ACT_QUIT] = {act_flags, APP_QUIT},
    [ACT_HELP] = {act_help, 0},
    [ACT_EDIT] = {act_edit, 0},
    [ACT_EDIT_DONE] = {act_edit_done, 0},
    [ACT_ESCAPE] = {act_escape, 0},
    [ACT_VIEW] = {act_view, 0},
    [ACT_HEAD_NEXT] = {act_head_step, 1},
    [ACT_HEAD_PREV] = {act_head_step, -1},
    [ACT_HEAD_SET] = {act_head, ARG_CALLER},
    [ACT_ROW_NEXT] = {act_row_step, 1},
    [ACT_ROW_PREV] = {act_row_step, -1},
    [ACT_ROW_PGDN] = {act_row_step, 2},
    [ACT_ROW_PGUP] = {act_row_step, -2},
    [ACT_ROW_FIRST] = {act_row, 0},
    [ACT_ROW_LAST] = {act_row, 1 << 30},
    [ACT_ROW_SET] = {act_row_set, ARG_CALLER},
    [ACT_CELL_SET] = {act_cell_set, ARG_CALLER},
    [ACT_COL_NEXT] = {act_col, 1},
    [ACT_COL_PREV] = {act_col, -1},
    [ACT_MASK] = {act_toggle, 0},
    [ACT_PE] = {act_toggle, 1},
    [ACT_SCALE] = {act_toggle, 2},
    [ACT_HEADS_DEC] = {act_heads, -1},
    [ACT_HEADS_INC] = {act_heads, 1},
    [ACT_DMODEL_DEC] = {act_dmodel, -1},
    [ACT_DMODEL_INC] = {act_dmodel, 1},
    [ACT_SEED_DEC] = {act_seed, -1},
    [ACT_SEED_INC] = {act_seed, 1},
    [ACT_LAYER_NEXT] = {act_layer, 0},
    [ACT_SENT_NEXT] = {act_sentence, 1},
    [ACT_SENT_PREV] = {act_sentence, -1},
    [ACT_EXPORT_HEAD] = {act_flags, APP_EXPORT_HEAD},
    [ACT_EXPORT_ALL] = {act_flags, APP_EXPORT_ALL},
    [ACT_DIMS_NEXT] = {act_dims, 2},
    [ACT_DIMS_PREV] = {act_dims, -2},
    [ACT_PRESET] = {act_preset, 0},
};

unsigned app_apply(AppState *s, Action a, int arg)
{
    if (a <= ACT_NONE || a >= ACT_COUNT)
        return 0;
    if (edit_ops[a].fn)
        return act_edit_op(s, a);
    const ActEntry *e = &act_table[a];
    return e->fn ? e->fn(s, e->arg == ARG_CALLER ? arg : e->arg) : 0;
}

void app_set_tokens(AppState *s, int n_q, int n_k)
{
    s->n_q = n_q, s->n_k = n_k;
    if (n_q <= 0) {
        s->sel_row = -1;
    } else {
        s->sel_row = s->sel_row < 0 ? 0 : s->sel_row;
        s->sel_row = s->sel_row >= n_q ? n_q - 1 : s->sel_row;
    }
    if (s->sel_col >= n_k)
        s->sel_col = n_k > 0 ? n_k - 1 : -1;
    if (s->layer >= s->cfg.layers)
        s->layer = 0;
}

int app_init(AppState *s, const ModelConfig *cfg, const char *text,
             const SentenceList *sentences, bool fixed_weights)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->sentences = sentences;
    s->fixed_weights = fixed_weights;
    s->sentence = -1;
    s->sel_row = 0, s->sel_col = -1;
    s->page = 5;
    if (!text && sentences && sentences->n > 0)
        text = sentences->items[0], s->sentence = 0;
    return edit_init(&s->text, text ? text : "");
}

void app_free(AppState *s)
{
    edit_free(&s->text);
}
