/* test_views.c - the one table of views (io/views.h) and lessons naming
 * views by it: every name found, unique, and round-tripped through a
 * lesson's `view:` line when a lesson page can show it, the ids in order,
 * the interface's own views (head scores, model view, training) refused by
 * the parser with a line saying so, an unknown or mis-cased name refused
 * with the names a lesson may write in the message. */
#include "test_common.h"

#include <stdio.h>
#include <string.h>

#include "core/av.h"
#include "io/lesson.h"
#include "io/views.h"

static void test_views_table_names_and_ids(void **state)
{
    (void)state;
    for (int k = 0; k < VIEW_ID_COUNT; k++) {
        const ViewInfo *v = view_info((ViewId)k);
        assert_int_equal(v->id, k);
        assert_non_null(v->name);
        assert_true(v->what && v->what[0]);
        assert_int_equal(view_find(v->name), k);
        for (int j = 0; j < k; j++) /* names are unique */
            assert_string_not_equal(view_info((ViewId)j)->name, v->name);
    }
    assert_int_equal(view_find("graph"), -1);
    assert_int_equal(view_find("Pipeline"), -1);
    assert_int_equal(view_find(""), -1);
    assert_int_equal(view_info(VIEW_ID_COUNT)->id, VIEW_ID_ATTN); /* out of range */
    /* what the interface relies on: the pipeline and the trace need the
     * heads' outputs, side by side with the mask a flipped run */
    assert_true(view_info(VIEW_ID_PIPELINE)->needs & VIEW_NEEDS_OUTPUTS);
    assert_true(view_info(VIEW_ID_TRACE)->needs & VIEW_NEEDS_OUTPUTS);
    assert_true(view_info(VIEW_ID_CMP_MASK)->needs & VIEW_NEEDS_FLIPPED);
    assert_int_equal(view_info(VIEW_ID_ATTN)->needs, 0);
    /* the interface's own views, where they live and what they run */
    assert_int_equal(view_find("head-scores"), VIEW_ID_HEAD_SCORES);
    assert_int_equal(view_find("model"), VIEW_ID_MODEL);
    assert_int_equal(view_find("train"), VIEW_ID_TRAIN);
    assert_int_equal(view_info(VIEW_ID_HEAD_SCORES)->home, VIEW_HOME_UI);
    assert_int_equal(view_info(VIEW_ID_MODEL)->home, VIEW_HOME_UI);
    assert_int_equal(view_info(VIEW_ID_TRAIN)->home, VIEW_HOME_LOOP);
    assert_int_equal(view_info(VIEW_ID_HEAD_SCORES)->needs, VIEW_NEEDS_HEADSCAN);
    assert_int_equal(view_info(VIEW_ID_MODEL)->needs, 0); /* the text's result, every layer */
    assert_int_equal(view_info(VIEW_ID_TRAIN)->needs, VIEW_NEEDS_TRAINING);
    assert_int_equal(view_find("lens"), VIEW_ID_LENS);
    for (int k = 0; k <= VIEW_ID_LENS; k++)
        assert_int_equal(view_info((ViewId)k)->home, VIEW_HOME_STATE);
    char list[160];
    view_name_list(list, sizeof list);
    assert_string_equal(
        list, "attention, pipeline, trace, pe, compare-mask, compare-heads, heads or lens");
}

static void test_views_lesson_names_views_by_the_table(void **state)
{
    (void)state;
    int shown = 0;
    for (int k = 0; k < VIEW_ID_COUNT; k++) {
        if (view_info((ViewId)k)->home != VIEW_HOME_STATE)
            continue;
        shown++;
        char text[128];
        snprintf(text, sizeof text, "title: T\n== P\nview: %s\nSome text.\n",
                 view_info((ViewId)k)->name);
        Lesson l;
        LessonError e;
        assert_int_equal(lesson_parse(text, strlen(text), "t", "", &l, &e), AV_OK);
        assert_int_equal(l.pages[0].set.view, k);
        lesson_free(&l);
    }
    assert_int_equal(shown, VIEW_ID_LENS + 1);
    const char *bad = "title: T\n== P\nview: Trace\n";
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(bad, strlen(bad), "t", "", &l, &e), AV_ERR_LESSON);
    assert_int_equal(e.line, 3);
    assert_non_null(strstr(e.msg, "view takes attention, pipeline, trace, pe, compare-mask, "
                                  "compare-heads, heads or lens, not 'Trace'"));
    lesson_free(&l);
}

/* The interface's own views exist under their names, but no lesson page
 * can show them: the parser refuses each with its line and says why. */
static void test_views_lesson_refuses_the_interfaces_own(void **state)
{
    (void)state;
    const char *names[] = {"head-scores", "model", "train"};
    for (int k = 0; k < 3; k++) {
        char text[128], want[200];
        snprintf(text, sizeof text, "title: T\n== P\n# a comment\nview: %s\n", names[k]);
        Lesson l;
        LessonError e;
        assert_int_equal(lesson_parse(text, strlen(text), "t", "", &l, &e), AV_ERR_LESSON);
        assert_int_equal(e.line, 4);
        snprintf(want, sizeof want,
                 "view %s is the interface's own, no lesson page shows it; view takes attention, "
                 "pipeline, trace, pe, compare-mask, compare-heads, heads or lens",
                 names[k]);
        assert_string_equal(e.msg, want);
        lesson_free(&l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views_table_names_and_ids),
        cmocka_unit_test(test_views_lesson_names_views_by_the_table),
        cmocka_unit_test(test_views_lesson_refuses_the_interfaces_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
