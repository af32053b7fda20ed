/* test_view_cost.c - the cost line's form (src/ui/views/view_cost.c) does
 * not change with the time's digits: it was chosen by the line's own width,
 * so at some widths a key that ran in 0.473 ms said "| 0.473 ms |" and the
 * next, in 1.9 ms, "| run 1.9 ms |" (or dropped the doubling's words), the
 * line jumping from one key to the next.
 */
#include "test_common.h"

#include <stdio.h>
#include <string.h>

#include "render/grid.h"
#include "../../src/ui/views/view_cost.h"

/* line with its time (the digits before " ms") as "T" into form */
static void form_of(const char *line, char *form, size_t size)
{
    const char *ms = strstr(line, " ms");
    assert_non_null(ms);
    const char *t = ms;
    while (t > line && (t[-1] == '.' || (t[-1] >= '0' && t[-1] <= '9')))
        t--;
    snprintf(form, size, "%.*sT%s", (int)(t - line), line, ms);
}

static void test_cost_form_steady_as_the_time_changes(void **state)
{
    /* expect: at every width from 40 to 140 columns, the trained grammar
     * model's line (33 tokens) has one form for every time, and fits */
    (void)state;
    static const double times[] = {0.047, 0.473, 0.999, 1.0, 1.9, 9.9, 12.3, 123.4, 999.9};
    int steady = 0;
    for (int w = 40; w <= 140; w++) {
        char first[320] = "", line[320], form[320];
        for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
            double ms = times[k];
            CostParts c = {"33",           "1.1k", "17.0 KiB", "819.5k FLOP", {"run ", ""}, "",
                           ms < 1 ? 3 : 1, ms,     2.7};
            view_cost_line(&c, w, line, sizeof line);
            form_of(line, form, sizeof form);
            if (k == 0)
                snprintf(first, sizeof first, "%s", form);
            else if (strcmp(first, form) != 0)
                fail_msg("at %d columns, %.3f ms: \"%s\", at %.3f ms: \"%s\"", w, ms, form,
                         times[0], first);
            if (w >= 60) /* from 60 columns the shortest form fits */
                assert_true(grid_text_width(line) <= w);
        }
        steady += strstr(first, "run T ms") != NULL;
    }
    assert_true(steady > 0); /* ... and "run" is said where there is room */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cost_form_steady_as_the_time_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
