/* headtable.h - the state and the decisions of two views of every head at
 * once (drawn by src/ui/views/view_heads.c): the head scores table (f: each head
 * scored by app/headscan.h, the best of each kind marked) and the model view
 * (F: a pooled thumbnail per head). Which one is open, the head selected,
 * the score shown one at a time on a narrow screen, and the scores, run once
 * per model and settings (they stay until the kind or its sizes change).
 * No curses: unit-tested through app_input (tests/app/test_input.c).
 */
#ifndef ATTNVIZ_HEADTABLE_H
#define ATTNVIZ_HEADTABLE_H

#include <stdbool.h>

#include "app/headscan.h"
#include "app/kind.h"
#include "app/state.h"
#include "io/views.h"

typedef enum { HT_OFF, HT_TABLE, HT_MODEL } HtMode;

typedef struct {
    HtMode mode;
    int sel_l, sel_h; /* the head selected (layer, head), 0-based */
    int kind;         /* the score shown one at a time on narrow screens, or the page */
    int pages;        /* the pages of scores the table drew (app_layout): 1, Tab has none to turn */
    HeadScan scan;    /* the table's scores, of scan_kind and scan_cfg */
    bool have;
    const Kind *scan_kind;
    ModelConfig scan_cfg;
} HeadTable;

/* The settings the scores run with: s's, as session_run gives them
 * (budget: the session's weights_budget), weights only. */
ModelConfig headtable_config(const AppState *s, double budget);

/* Whether the scores held are those of kind k with settings c. */
bool headtable_fresh(const HeadTable *ht, const Kind *k, const ModelConfig *c);

/* Run the scores of k with c (headtable_config's) and open the table on
 * s's head. The reason or the best induction head on s->msg. Returns AV_OK,
 * AV_ERR_NOMEM or the scan's error (the table stays closed). */
int headtable_score(HeadTable *ht, Kind *k, const ModelConfig *c, AppState *s);

/* Input a (arg, col: ACT_CELL_SET's layer and head; key: the name of a key
 * bound to nothing, AppInput's, or "") offered to the two views. f and F open (the table only when
 * its scores are fresh: else *score is set and the caller runs headtable_score first) or close
 * them; while one is open the arrows move the selection, Tab turns the table's scores (on the
 * status line why not, when they are all on one page) and in the model view selects the next head,
 * Enter or a click focuses the head in s and closes, Esc closes, a key bound to nothing says so on
 * the status line, and any other key but help and quit closes and is not taken. Returns true when
 * taken. */
bool headtable_input(HeadTable *ht, AppState *s, const Kind *k, double budget, Action a, int arg,
                     int col, const char *key, bool *score);

/* The one of the two views open (VIEW_ID_HEAD_SCORES once its scores ran,
 * VIEW_ID_MODEL), or VIEW_ID_COUNT when neither is. */
ViewId headtable_shown(const HeadTable *ht);

/* The selection kept within L layers and H heads (the model view's result). */
void headtable_fit(HeadTable *ht, int L, int H);

void headtable_free(HeadTable *ht);

#endif
