/* test_frame.c - the frame's label arrays and the layout a click is mapped
 * to (src/ui/frame.c), without a terminal: when a run in the middle of a
 * burst of input grows the arrays for more tokens, the last frame's layout
 * follows them (the storm soak's heap-use-after-free in click_chip).
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "../../src/ui/frame.h"

static void test_frame_chips_follow_the_labels(void **state)
{
    /* expect: the layout's chips are the live array after every growth, and
     * the chips of the last frame keep their rectangles */
    (void)state;
    UiState *u = calloc(1, sizeof *u);
    assert_non_null(u);
    u->a.ses.res.shape.n_q = u->a.ses.res.shape.n_k = 1;
    frame_labels_fit(u);
    u->lay.chips = u->chips;            /* as a frame lays its chips out */
    for (int n = 3; n <= 300; n *= 3) { /* runs within one burst: no frame between */
        u->a.ses.res.shape.n_q = u->a.ses.res.shape.n_k = n;
        frame_labels_fit(u);
        assert_true(u->labels_cap >= n);
        assert_ptr_equal(u->lay.chips, u->chips);
        u->lay.n_chips = n;
        u->chips[n - 1] = (Rect){n, 1, 4, 1};
    }
    assert_int_equal(u->lay.chips[242].x, 243);
    free(u->labels_q), free(u->labels_k), free(u->abbr_k), free(u->abbr_p), free(u->chips);
    free(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_chips_follow_the_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
