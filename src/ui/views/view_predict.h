/* view_predict.h - what the model predicts after the selected token
 * (view_predict.c): its most probable next tokens with their probabilities,
 * for kinds with a next-token distribution (GPT-2, attnviz's trained text
 * models); nothing for the others.
 */
#ifndef ATTNVIZ_VIEW_PREDICT_H
#define ATTNVIZ_VIEW_PREDICT_H

#include "../uistate.h"

/* The most rows the predictions take: a title and SESSION_PREDICT_MAX tokens. */
#define VIEW_PREDICT_ROWS_MOST (1 + SESSION_PREDICT_MAX)

/* Rows the predictions want at the foot of a panel h rows high: 0 when the
 * kind predicts nothing or there is no result, else a title and up to 10
 * tokens (fewer on a short screen; the caller may give them the rows the
 * panel above leaves, up to VIEW_PREDICT_ROWS_MOST). */
int view_predict_rows(const UiState *u, int h);

/* Draw the selected row's predictions into r (r.h from view_predict_rows).
 * When the run or the selection changed since they were asked, draw "…"
 * and report pred_wanted: app_poll asks them after the frame when no key
 * waits, so typing is never slowed by it. */
void view_predict_draw(UiState *u, Grid *g, Rect r);

#endif
