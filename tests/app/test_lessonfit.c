/* test_lessonfit.c - whether a model can give the views of a lesson's
 * pages (app/lessonfit.h): the built-in lessons on attnviz's own heads
 * (no logit lens) and on the trained character model (causal: no mask
 * comparison), the line that says which page and why, and a page's view
 * the model can always give (the heatmaps).
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "app/lessonfit.h"
#include "core/av.h"
#include "io/lesson_builtin.h"
#include "io/weights.h"

/* Whether the built-in lesson name fits k, its line in why. */
static bool fits(const char *name, const Kind *k, const char *model, char *why, size_t len)
{
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_open(name, &l, &e), AV_OK);
    bool ok = lessonfit_lesson(&l, k, model, why, len);
    lesson_free(&l);
    return ok;
}

/* attnviz's own heads predict no tokens: the lens lesson is refused at its
 * first page with the kind's own reason; the others fit. */
static void test_lessonfit_pipeline(void **state)
{
    (void)state;
    ModelConfig c;
    ModelWeights w;
    Kind k;
    char why[640];
    model_config_default(&c);
    assert_int_equal(model_weights_toy(&c, &w), AV_OK);
    kind_pipeline_open(&k, &w);
    assert_false(fits("lens", &k, NULL, why, sizeof why));
    assert_string_equal(why, "the lesson lens shows the view \"lens\" on page 1, which this model "
                             "cannot give: attnviz's own heads predict no tokens: the logit lens "
                             "needs GPT-2, or a trained text, grammar or task model (--model DIR)");
    for (const char *const *n = (const char *const[]){"qkv", "causal-mask", "positions", NULL}; *n;
         n++) {
        assert_true(fits(*n, &k, NULL, why, sizeof why));
        assert_string_equal(why, "");
    }
    assert_null(lessonfit_view(&k, VIEW_ID_ATTN));
    assert_null(lessonfit_view(&k, VIEW_ID_PIPELINE));
    assert_non_null(lessonfit_view(&k, VIEW_ID_LENS));
    kind_close(&k);
    model_weights_free(&w);
}

/* The trained character model, causal with sinusoidal positions: its mask
 * stays on, so the causal-mask lesson's comparison (page 5) is refused,
 * named by the model given; the lens and positions lessons fit. */
static void test_lessonfit_trained(void **state)
{
    (void)state;
    Kind k;
    char why[640];
    assert_int_equal(kind_open_folder(&k, "assets/models/chars", NULL, NULL, why, sizeof why),
                     AV_OK);
    assert_false(fits("causal-mask", &k, "assets/models/chars", why, sizeof why));
    assert_string_equal(why, "the lesson causal-mask shows the view \"compare-mask\" on page 5, "
                             "which assets/models/chars cannot give: this model was trained "
                             "causal: the mask stays on");
    assert_true(fits("lens", &k, NULL, why, sizeof why));
    assert_true(fits("positions", &k, NULL, why, sizeof why));
    assert_null(lessonfit_view(&k, VIEW_ID_LENS));
    kind_close(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lessonfit_pipeline),
        cmocka_unit_test(test_lessonfit_trained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
