/* test_common.h - what every cmocka test includes.
 *
 * Debian ships cmocka 1.1.5, whose header needs these standard headers first.
 * assert_floats_near reports the first bad index, both values and the largest
 * difference over the whole array (llm.c's check_tensor).
 */
#ifndef ATTNVIZ_TEST_COMMON_H
#define ATTNVIZ_TEST_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/data"
#endif

static inline void check_floats_near(const float *a, const float *b, size_t n, double tol,
                                     const char *file, int line)
{
    size_t bad = n;
    double maxdiff = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (isinf(a[i]) && isinf(b[i]) && (a[i] > 0) == (b[i] > 0))
            d = 0;
        if (!(d <= tol) && bad == n)
            bad = i;
        if (d > maxdiff || d != d)
            maxdiff = d;
    }
    if (bad != n) {
        print_error("%s:%d: arrays differ at [%zu]: %.9g vs %.9g (max diff %.3g, tol %.3g)\n", file,
                    line, bad, (double)a[bad], (double)b[bad], maxdiff, tol);
        fail();
    }
}

#define assert_floats_near(a, b, n, tol) check_floats_near((a), (b), (n), (tol), __FILE__, __LINE__)

/* A UTF-8 locale for the tests that measure display widths (wcwidth). */
#include <locale.h>
static inline void test_utf8_locale(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8"))
        setlocale(LC_ALL, "");
}

#endif
