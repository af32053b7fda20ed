/* view_table.c - each view of io/views.def as the interface shows it
 * (view_table.h): a draw function for the views a frame draws (the state's,
 * VIEW_HOME_STATE, and the interface's own, VIEW_HOME_UI), the function
 * that opens it for a view with its own loop (VIEW_HOME_LOOP), its keys,
 * help line, title, hint and clicks, all from its row there. A view's
 * functions are named from its row (DRAW(lens): view_lens_draw, in
 * src/ui/views/lens.c), so a new view adds no line here.
 */
#include "view_table.h"

#include <curses.h>
#include <stddef.h>

#include "app/state.h"
#include "view_heads.h"

typedef void (*ViewDraw)(UiState *u, Grid *g, Rect r);
typedef bool (*ViewOpen)(UiState *u);
typedef bool (*ViewClick)(const UiState *u, int x, int y, AppInput *in);

/* Each view's functions, declared from its row. */
#define VIEW_ROW(id, name, what, needs, home, state, act, keys, help, title, hint, fn, click)      \
    fn click
#define DRAW(f) void view_##f##_draw(UiState *u, Grid *g, Rect r);
#define OPEN(f) bool view_##f##_loop(UiState *u);
#define CLICK(f) bool view_##f##_click(const UiState *u, int x, int y, AppInput *in);
#define NO_CLICK
#include "io/views.def"

#define VIEW_KEYS_MAX 2 /* keys of one view */

typedef struct {
    int key;
    unsigned char modes; /* IN_* */
    const char *name;    /* in the help */
} ViewKey;

static const struct {
    Action act;
    ViewKey keys[VIEW_KEYS_MAX];
    const char *help, *title, *hint;
    ViewDraw draw; /* a frame draws it (NULL: its own loop draws it) */
    ViewOpen open; /* VIEW_HOME_LOOP: runs it until left */
    ViewClick click;
} VIEW_TABLE[VIEW_ID_COUNT] = {
#define VIEW_ROW(id, name, what, needs, home, state, act, keys, help, title, hint, fn, click)      \
    [VIEW_ID_##id] = {act, keys, help, title, hint, fn, click},
#define ACTION(a) ACT_##a
#define NO_ACTION ACT_NONE
/* clang-format 14 breaks a braced list in a macro into a line a brace */
/* clang-format off */
#define KEYS(...) {__VA_ARGS__}
#define K(key, modes, name) {key, modes, name}
#define NO_KEYS {{0, 0, NULL}}
/* clang-format on */
#define DRAW(f) view_##f##_draw, NULL
#define OPEN(f) NULL, view_##f##_loop
#define CLICK(f) view_##f##_click
#define NO_CLICK NULL
#include "io/views.def"
};

void view_table_draw(UiState *u, Grid *g, Rect r)
{
    ViewId v = view_heads_shown(u); /* the interface's own over the state's */
    if (v < 0 || v >= VIEW_ID_COUNT)
        v = app_view_base(&u->a.app);
    ViewDraw draw = v >= 0 && v < VIEW_ID_COUNT ? VIEW_TABLE[v].draw : NULL;
    (draw ? draw : view_attn_draw)(u, g, r);
}

bool view_table_open(UiState *u, ViewId v)
{
    ViewOpen open = v >= 0 && v < VIEW_ID_COUNT ? VIEW_TABLE[v].open : NULL;
    return open ? open(u) : false;
}

bool view_table_key(unsigned mode, int key, Action *a)
{
    for (int v = 0; v < VIEW_ID_COUNT; v++)
        for (int k = 0; k < VIEW_KEYS_MAX && VIEW_TABLE[v].keys[k].modes; k++)
            if (VIEW_TABLE[v].keys[k].key == key && (VIEW_TABLE[v].keys[k].modes & mode)) {
                *a = VIEW_TABLE[v].act;
                return true;
            }
    return false;
}

int view_table_key_names(Action a, const char **names, int max)
{
    int n = 0;
    for (int v = 0; v < VIEW_ID_COUNT && a != ACT_NONE; v++)
        for (int k = 0; VIEW_TABLE[v].act == a && k < VIEW_KEYS_MAX && n < max; k++)
            if (VIEW_TABLE[v].keys[k].name)
                names[n++] = VIEW_TABLE[v].keys[k].name;
    return n;
}

const char *view_table_help(Action a)
{
    for (int v = 0; v < VIEW_ID_COUNT && a != ACT_NONE; v++)
        if (VIEW_TABLE[v].act == a)
            return VIEW_TABLE[v].help;
    return NULL;
}

bool view_table_help_at(int k, Action *a)
{
    for (int v = 0; v < VIEW_ID_COUNT; v++)
        if (VIEW_TABLE[v].help && k-- == 0) {
            *a = VIEW_TABLE[v].act;
            return true;
        }
    return false;
}

const char *view_table_title(ViewId v)
{
    const char *t = v >= 0 && v < VIEW_ID_COUNT ? VIEW_TABLE[v].title : NULL;
    return t ? t : VIEW_TABLE[VIEW_ID_ATTN].title;
}

const char *view_table_hint(ViewId v)
{
    const char *h = v >= 0 && v < VIEW_ID_COUNT ? VIEW_TABLE[v].hint : NULL;
    return h ? h : VIEW_TABLE[VIEW_ID_ATTN].hint;
}

bool view_table_clicks(const UiState *u)
{
    return VIEW_TABLE[app_view_base(&u->a.app)].click != NULL;
}

bool view_table_click(const UiState *u, int x, int y, AppInput *in)
{
    ViewClick click = VIEW_TABLE[app_view_base(&u->a.app)].click;
    return click && click(u, x, y, in);
}
