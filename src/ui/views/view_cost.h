/* view_cost.h - the cost line (view_cost.c). */
#ifndef ATTNVIZ_VIEW_COST_H
#define ATTNVIZ_VIEW_COST_H

#include <stddef.h>

#include "../uistate.h"

/* The parts of a cost line without a kind's own (kind_cost): the time's
 * words in full and short ("run ", ""), FLOPs NULL and grow 0 where nothing
 * ran here (imported attention, a view combined from a run). */
typedef struct {
    const char *n, *nn, *bytes, *flop, *how[2], *after;
    int digits;
    double ms, grow;
} CostParts;

/* The fullest cost line of c that fits w columns into line; its form is
 * chosen with the time in a field of fixed width, so it stays as the
 * time's digits change. */
void view_cost_line(const CostParts *c, int w, char *line, size_t len);

/* The cost line of the text shown (or "computing...") at row y. */
void view_cost_draw(const UiState *u, Grid *g, int y);

#endif
