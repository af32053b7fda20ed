/* axis.h - the geometry of a long text pooled, zoomed and scrolled on the
 * screen: one ViewAxis per direction (query rows, key columns).
 */
#ifndef ATTNVIZ_AXIS_H
#define ATTNVIZ_AXIS_H

#include <stdbool.h>

/* One axis of the pooled view: tokens [first, first + span) shown in cells
 * cells; cell k covers tokens first + k*span/cells .. first + (k+1)*span/cells
 * - 1 (pool.h's split). */
typedef struct {
    int n;     /* tokens on the axis */
    int first; /* first token shown */
    int span;  /* tokens shown */
    int cells; /* cells they are pooled into, 1 <= cells <= span */
} ViewAxis;

/* Tokens shown at zoom level z of n tokens: ceil(n / 2^z), but never fewer
 * than min(n, fit) (one token a cell on fit cells). */
int axis_zoom_span(int n, int zoom, int fit);

/* The first zoom level at which span == min(n, fit): one token a cell. */
int axis_zoom_max(int n, int fit);

/* Lay an axis out: n tokens, at most cap cells, zoom level z. The window
 * keeps token sel in view, moving from first as little as it must; with
 * recentre it is centred on sel instead. */
ViewAxis axis_view(int n, int cap, int zoom, int sel, int first, bool recentre);

/* Tokens [*t0, *t1) of cell k. */
void axis_cell_range(const ViewAxis *a, int k, int *t0, int *t1);

/* The cell holding token t, or -1 when t is not shown. */
int axis_cell_of(const ViewAxis *a, int t);

/* "129-192" (1-based, inclusive) for tokens [t0, t1), or "129" for one. */
void axis_range_label(int t0, int t1, char *buf, int size);

#endif
