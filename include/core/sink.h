/* sink.h - the attention-sink what-if: many trained heads put most of a
 * row's weight on the first token when nothing else in the row matters to
 * them (an "attention sink", Xiao et al. 2023), which hides what else the
 * head looks at. The what-if sets the first key's weight aside and spreads
 * the row over the other keys in proportion to their own weights:
 *
 *   out[0] = 0,   out[j] = row[j] / sum_{k >= 1} row[k]   (j >= 1)
 *
 * so each row still sums to 1 and a masked weight stays exactly 0. A row
 * with nothing outside the first key (the first query under the causal
 * mask, or a row whose every weight is on key 0) has nothing to show and is
 * left as it is. A SinkSource applies it to every row of an AttnSource
 * (core/combine.h), so any model's weights (imported ones too) can be
 * drawn so. Pure: no globals, caller-owned buffers.
 */
#ifndef ATTNVIZ_SINK_H
#define ATTNVIZ_SINK_H

#include <stdbool.h>

#include "core/combine.h"

/* Row row[0..n_k) with key 0 set aside into out (n_k floats; out may equal
 * row). The sum is taken in double. Returns true when the row was
 * renormalised, false when it was copied as it is (nothing outside key 0,
 * or n_k < 2). */
bool sink_aside_row(const float *row, int n_k, float *out);

/* A source of in's shape whose rows are in's with sink_aside_row applied.
 * Keeps the pointer to in; allocates nothing. */
typedef struct {
    AttnSource src; /* read this */
    const AttnSource *in;
} SinkSource;

void sink_source_init(SinkSource *s, const AttnSource *in);

#endif
