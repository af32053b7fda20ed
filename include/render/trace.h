/* trace.h - the calculation of one attention row written out step by step.
 */
#ifndef ATTNVIZ_TRACE_H
#define ATTNVIZ_TRACE_H

#include <stdio.h>

#include "core/model.h"

/* The calculation trace of query token i (0-based) in head h of a layer:
 * seed 001's five steps with the sentence's numbers. Needs the result's
 * vectors (Q, K, V); returns AV_OK, AV_ERR_CONFIG for an index out of range,
 * AV_ERR_NEEDS_MODEL when the layer has none (model_has_vectors),
 * AV_ERR_NOMEM, or AV_ERR_IO when writing to f failed. */
int trace_write(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h, int i);

#endif
