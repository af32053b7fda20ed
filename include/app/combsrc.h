/* combsrc.h - what the combining views show (heads combined, rollout,
 * value-weighted norms) made as the shown result: the session's runs of res
 * ask combsrc_make first while a combining view is on (Session.comb, whose
 * rules are app/combview.h's).
 *
 * The weights come from a base AttnSource: the attention as the kind keeps
 * it (kind_source: an imported file's map), else the kind's run (model_source
 * over base). A combining view wraps the base in a source of core/combine.h
 * and model_result_import makes res of it, kept in memory for a short text,
 * read on demand for a long one. Nothing is computed here but what
 * combine.h computes. No curses; the interface draws res as any result.
 */
#ifndef ATTNVIZ_COMBSRC_H
#define ATTNVIZ_COMBSRC_H

#include <stdbool.h>

#include "app/combview.h"
#include "app/kind.h"
#include "app/rollout.h"
#include "app/state.h"
#include "core/combine.h"
#include "core/model.h"
#include "core/sink.h"

typedef struct {
    bool file;           /* the kind keeps its attention (kind_source): a file */
    ModelResult base;    /* with a combining view on: the kind's run */
    AttnSource base_src; /* kind_source's, or model_source(&base) */
    CombinedHeads ch;
    RolloutSource ro;
    NormsSource ns;
    SinkSource sink;
    AttnSource shares; /* ns's rows divided by their sums: comparable with the weights */
    float *fnorm;      /* (L, H, n_k) */
    float *multi_buf;  /* (2, n_k): the summed row and scratch */
    int multi_cap;
} CombSrc;

/* Set cs up for kind k (the combining views read every head of a row, the
 * rollout all: a file's are read where the kind keeps them). */
void combsrc_init(CombSrc *cs, const Kind *k);

/* While cv shows a combining view: the kind's run of s's text (causal as
 * given, budget the session's) and res r made of the view's source; true
 * with *err AV_OK or the run's error (AV_ERR_NOMEM). False when the plain
 * run applies: no combining view on, or one refused on this result (cv back
 * to the weights, the reason in s->msg). */
bool combsrc_make(CombSrc *cs, CombView *cv, Kind *k, AppState *s, double budget, bool causal,
                  ModelResult *r, int *err);

/* The rollout's layers made on a thread meanwhile: APP_RUN added to
 * *pending when more are done (layers drawn blank may be there), a
 * progress line in s->msg until the one shown is. Returns 1 when the
 * screen should be drawn again, 0 when not, or the rollout's failure
 * (-ROLLOUT_NOMEM, -ROLLOUT_NOTHREAD). */
int combsrc_poll(CombSrc *cs, AppState *s, unsigned *pending);

/* The query rows selected together (M) summed, for head h of the shown
 * layer of res: n_k weights (cs's buffer, valid until the next call), or
 * NULL when none is selected (*n_rows 0) or out of memory (*n_rows -1). */
const float *combsrc_multi_row(CombSrc *cs, const AppState *s, const ModelResult *res, int h,
                               int *n_rows);

/* Stop the rollout's thread (before the program ends on a bad file). */
void combsrc_stop(CombSrc *cs);

void combsrc_free(CombSrc *cs);

#endif
