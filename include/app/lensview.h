/* lensview.h - the state and the decisions of the logit lens view (drawn
 * by src/ui/views/lens.c): a grid of layers x positions, each cell the
 * likeliest next token of that layer's residual stream at that position
 * (core/lens.h), and the cell selected with its ten likeliest tokens and
 * the rank and probability of the token that really comes next.
 *
 * The view is one of the state's (VIEW_ID_LENS, so a lesson page can show
 * it: `view: lens`). Which cell is selected (the layer here, the position
 * the state's selected token s->sel_row, so the heatmaps and the lens
 * follow one token), and the lens of the text shown, asked
 * of the kind (kind_lens) whenever the result the views read is new: a kind
 * with a cache keeps the rows it can, so a token typed at the end costs
 * that position's rows. No curses: unit-tested through app_input
 * (tests/app/test_input_lens.c).
 */
#ifndef ATTNVIZ_LENSVIEW_H
#define ATTNVIZ_LENSVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "app/kind.h"
#include "app/state.h"
#include "core/lens.h"

typedef struct {
    int sel_l;        /* the layer selected: 0 (the embeddings) .. L (the output) */
    Lens ls;          /* the lens of the text shown (the kind's rows reused) */
    unsigned gen;     /* the run of the session's result it is of (Session.gen); 0: none */
    const Kind *kind; /* the kind it is of */
    int err;          /* the last kind_lens code: AV_OK, KIND_BUSY or an error */
    char why[480];    /* with err AV_ERR_NEEDS_MODEL: why the kind shown has no lens */
} LensView;

/* Input a (arg, col: ACT_CELL_SET's layer and position) offered to the
 * view, kind k on s. ACT_LENS shows it (s->view VIEW_ID_LENS; on the last
 * token, whose next token is the text's continuation, and on the output
 * layer for a new kind)
 * when the kind predicts tokens, else says why not in s->msg; or goes back
 * to the attention view. While it is shown and s browses: Up/Down (k/j)
 * move the layer, PgUp/PgDn to the first or last layer, Left/Right the
 * position, Home/End to the first or last position, a click (ACT_CELL_SET)
 * selects a cell. The keys of views over the heatmaps (b, B, w, I) go back
 * to the attention view first and are not taken; Esc, S, v and every other
 * key (editing, typing, g) are not taken either: the action table has them
 * (Esc leaves the view), and the lens follows the text. Returns true when
 * taken. */
bool lensview_input(LensView *lv, AppState *s, const Kind *k, Action a, int arg, int col);

/* Whether the lens held is that of run gen of kind k. */
bool lensview_fresh(const LensView *lv, const Kind *k, unsigned gen);

/* While the view is shown and the lens not fresh (the result's run gen, ok false when that run
 * failed: nothing to ask): the kind's lens of s's text into lv->ls. A kind
 * with no lens (a lesson page's view: lens on toy weights) leaves in
 * lv->why the sentence the view shows: stand_in, when not NULL, is why
 * that kind runs instead of the one meant (lesson_state_stand_in), else
 * the kind's own refusal. Returns
 * 1 when the lens or its error changed (draw again), 0 when there was
 * nothing to do or the kind still computes (KIND_BUSY in lv->err: ask
 * again), AV_ERR_NOMEM. */
int lensview_update(LensView *lv, Kind *k, const AppState *s, unsigned gen, bool ok,
                    const char *stand_in);

/* The cell selected within the lens held, *l its layer and *i its
 * position: false when the lens holds no position. */
bool lensview_cell(const LensView *lv, const AppState *s, int *l, int *i);

/* The view's title into out: what the rows of the lens held are ("layer
 * 0: embeddings, 4: output"); with no lens held (none yet, or the kind has
 * none) only what the view shows, no layer count it does not have. */
void lensview_title(const LensView *lv, char *out, size_t cap);

/* The token that comes after position i in the text (-1 at the last),
 * and its rank (1-based) and probability in layer l's distribution there:
 * false when there is none. */
bool lensview_next(const LensView *lv, int l, int i, int *id, int *rank, float *prob);

void lensview_free(LensView *lv);

#endif
