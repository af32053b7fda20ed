/* axis.c - the geometry of a long text pooled to the screen: which tokens
 * an axis shows at a zoom level, how they split into cells, and the labels of
 * the cells' token ranges. Arithmetic only; the views draw with it.
 */
#include "render/axis.h"

#include <stdio.h>

int axis_zoom_span(int n, int zoom, int fit)
{
    int least = n < fit ? n : fit;
    long span = n;
    for (int z = 0; z < zoom && span > least; z++)
        span = (span + 1) / 2;
    return span < least ? least : (int)span;
}

int axis_zoom_max(int n, int fit)
{
    int z = 0, least = n < fit ? n : fit;
    while (axis_zoom_span(n, z, fit) > least)
        z++;
    return z;
}

ViewAxis axis_view(int n, int cap, int zoom, int sel, int first, bool recentre)
{
    ViewAxis a = {.n = n};
    cap = cap < 1 ? 1 : cap;
    if (n <= 0)
        return a;
    a.span = axis_zoom_span(n, zoom, cap);
    a.cells = a.span < cap ? a.span : cap;
    sel = sel < 0 ? 0 : sel >= n ? n - 1 : sel;
    if (recentre)
        first = sel - a.span / 2;
    else if (sel < first)
        first = sel;
    else if (sel >= first + a.span)
        first = sel - a.span + 1;
    first = first > n - a.span ? n - a.span : first;
    a.first = first < 0 ? 0 : first;
    return a;
}

void axis_cell_range(const ViewAxis *a, int k, int *t0, int *t1)
{
    int c = a->cells > 0 ? a->cells : 1;
    *t0 = a->first + (int)((long)k * a->span / c);
    *t1 = a->first + (int)((long)(k + 1) * a->span / c);
}

int axis_cell_of(const ViewAxis *a, int t)
{
    if (a->cells <= 0 || t < a->first || t >= a->first + a->span)
        return -1;
    /* the largest k with first + k*span/cells <= t */
    int k = (int)(((long)(t - a->first) * a->cells + a->cells - 1) / a->span);
    int t0, t1;
    for (;;) {
        axis_cell_range(a, k, &t0, &t1);
        if (t < t0)
            k--;
        else if (t >= t1)
            k++;
        else
            return k;
    }
}

void axis_range_label(int t0, int t1, char *buf, int size)
{
    if (t1 - t0 <= 1)
        snprintf(buf, (size_t)size, "%d", t0 + 1);
    else
        snprintf(buf, (size_t)size, "%d-%d", t0 + 1, t1);
}
