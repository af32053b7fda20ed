/* bench_util.h - what bench.c and bench_tty.c share: a monotonic clock in
 * milliseconds and the median of a sample.
 */
#ifndef ATTNVIZ_BENCH_UTIL_H
#define ATTNVIZ_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
