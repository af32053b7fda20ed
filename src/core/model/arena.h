/* arena.h - carving consecutive runs of floats out of one arena, private to
 * src/core/model/: a carve function calls arena_take once with base NULL to
 * count the floats it needs, then again with the allocation to point into it.
 */
#ifndef ATTNVIZ_MODEL_ARENA_H
#define ATTNVIZ_MODEL_ARENA_H

#include <stddef.h>

/* The next count floats of an arena at base (NULL when only counting). */
static inline float *arena_take(float *base, size_t *used, size_t count)
{
    float *q = base ? base + *used : NULL;
    *used += count;
    return q;
}

#endif
