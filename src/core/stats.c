/* stats.c - how focused a head is: the entropy of its rows and their
 * largest weights, from kept weights or computed a row at a time for a long
 * text (pool.h), sampled so that a bounded number of weights is read.
 */
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/pool.h"

double stats_row_entropy(const float *row, int len)
{
    double e = 0;
    for (int j = 0; j < len; j++)
        if (row[j] > 0.0f)
            e -= (double)row[j] * log2((double)row[j]);
    return e > 0 ? e : 0; /* a one-hot row rounds to -0 */
}

void stats_add(HeadStats *st, const float *row, int len)
{
    float top = 0.0f;
    for (int j = 0; j < len; j++)
        top = row[j] > top ? row[j] : top;
    st->entropy += stats_row_entropy(row, len);
    st->top += top;
    st->max = top > st->max ? top : st->max;
    st->rows++;
}

void stats_finish(HeadStats *st)
{
    if (st->rows > 0)
        st->entropy /= st->rows, st->top /= st->rows;
}

int stats_sample_stride(int n_q, int n_k, long budget)
{
    long all = (long)n_q * n_k;
    if (all <= budget || n_k <= 0)
        return 1;
    long rows = budget / n_k > 0 ? budget / n_k : 1;
    return (int)((n_q + rows - 1) / rows);
}

int stats_head(const AttnShape *s, int h, const float *Q, const float *K,
                    const float *P_h, long budget, HeadStats *st)
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
