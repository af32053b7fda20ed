/* stats.c - how focused a head is: the entropy of its rows and their
 * largest weights, from kept weights or computed a row at a time for a long
 * text (pool.h), sampled so that a bounded number of weights is read. A
 * row's own measures are rowstat.c's.
 */
#include "core/stats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/pool.h"
#include "fast/rowstat.h"

double stats_row_entropy(const float *row, int len)
{
    return rowstat_entropy(row, len);
}

float stats_row_top(const float *row, int len)
{
    return rowstat_top(row, len);
}

void stats_add(HeadStats *st, const float *row, int len)
{
    float top = stats_row_top(row, len);
    bool norm;
    st->entropy += rowstat_entropy_norm(row, len, &norm);
    st->normalised |= norm;
    st->top += top;
    st->max = top > st->max ? top : st->max;
    st->rows++;
}

void stats_finish(HeadStats *st)
{
    if (st->rows > 0)
        st->entropy /= st->rows, st->top /= st->rows;
}

void stats_from_rows(const double *entropy, const float *top, int rows, int stride, HeadStats *st)
{
    memset(st, 0, sizeof *st);
    for (int k = 0; k < rows; k++) { /* stats_add's sums, in the same order */
        st->entropy += entropy[k];
        st->top += top[k];
        st->max = top[k] > st->max ? top[k] : st->max;
        st->rows++;
    }
    st->sampled = stride > 1;
    stats_finish(st);
}

int stats_sample_stride(int n_q, int n_k, long budget)
{
    return rowstat_stride(n_q, n_k, budget);
}

int stats_head(const AttnShape *s, int h, const float *Q, const float *K, const float *P_h,
               long budget, HeadStats *st)
{
    int stride = stats_sample_stride(s->n_q, s->n_k, budget);
    float *row = P_h ? NULL : malloc(sizeof *row * (size_t)s->n_k);
    memset(st, 0, sizeof *st);
    if (!P_h && !row)
        return AV_ERR_NOMEM;
    for (int i = 0; i < s->n_q; i += stride) {
        if (!P_h)
            pool_rows(s, h, Q, K, i, i + 1, row);
        stats_add(st, P_h ? P_h + (size_t)i * s->n_k : row, attention_visible_keys(s, i));
    }
    free(row);
    st->sampled = stride > 1;
    stats_finish(st);
    return AV_OK;
}

int stats_head_source(const AttnShape *s, const AttnSource *src, int l, int h, long budget,
                      HeadStats *st)
{
    int stride = stats_sample_stride(s->n_q, s->n_k, budget);
    float *buf = malloc(sizeof *buf * (size_t)s->n_k);
    memset(st, 0, sizeof *st);
    if (!buf)
        return AV_ERR_NOMEM;
    for (int i = 0; i < s->n_q; i += stride)
        stats_add(st, combine_row(src, l, h, i, buf), attention_visible_keys(s, i));
    free(buf);
    st->sampled = stride > 1;
    stats_finish(st);
    return AV_OK;
}
