/* vecadd.h - the elementwise sum of two float arrays in vectors, private to
 * src/core/ (model.c adds the positional encodings with it).
 */
#ifndef ATTNVIZ_VECADD_H
#define ATTNVIZ_VECADD_H

#include <stddef.h>

/* X[k] += pe[k] for k < count: the same additions as the plain loop. */
void vec_add(float *X, const float *pe, size_t count);

#endif
