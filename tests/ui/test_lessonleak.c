/* test_lessonleak.c - the lesson checker's search for a question's answer
 * on a drawn frame (src/ui/lessonleak.c), on frames written by hand: the
 * interface now writes '?' for the d_k or n² a page asks (so no lesson can
 * plant that fault any more), and the search must still find the figure
 * on a status or cost line that shows it, and not find it once hidden.
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ui/lessonleak.h"
#include "io/lesson.h"

static const char lesson[] = "title: T\n== Width\nheads: 4\nText.\nask: d_k?\nanswer: d_k\n"
                             "== Cells\nText.\nask: weights?\nanswer: cells\n";

/* The findings of the answer v of page k on a frame of the given rows. */
static char *findings(int k, double v, const char *const *rows, int n)
{
    static char out[2048];
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(lesson, strlen(lesson), "t", "", &l, &e), AV_OK);
    FILE *f = tmpfile();
    assert_non_null(f);
    Finder fi;
    assert_int_equal(finder_init(&fi, f, "t.lesson", &l), AV_OK);
    fi.page = k, fi.w = 80, fi.h = 24;
    Shot s = {.w = 80, .h = n};
    s.row = calloc((size_t)n, sizeof *s.row);
    for (int y = 0; y < n; y++)
        s.row[y] = strdup(rows[y]);
    LessonAnswer a = {.value = v, .unit = "", .choice = -1};
    ModelResult r;
    memset(&r, 0, sizeof r);
    char text[16];
    snprintf(text, sizeof text, "%.0f", v);
    lessonleak_screen(&fi, SHOT_BEFORE, &s, &a, text, &r, 0, -1);
    shot_free(&s);
    finder_free(&fi);
    lesson_free(&l);
    rewind(f);
    size_t got = fread(out, 1, sizeof out - 1, f);
    out[got] = '\0';
    fclose(f);
    return out;
}

static void test_leak_status_and_cost(void **state)
{
    (void)state;
    const char *shown[] = {"Head 1 of 4", "Cost: n 9 | n\u00b2 81 | weights 1.3 KiB | 84.1k FLOP",
                           " tokens 9  d_model 32  heads 4  d_k 8  seed 42"};
    const char *hidden[] = {"Head 1 of 4", "Cost: n 9 | n\u00b2 ? | weights ? | 84.1k FLOP",
                            " tokens 9  d_model 32  heads 4  d_k ?  seed 42"};
    const char *got = findings(0, 8, shown, 3);
    assert_non_null(strstr(got, "t.lesson:2: 80x24 page 1 (before the prediction): the answer 8 "
                                "is on screen as \"d_k 8\" (row 3: \"tokens 9 d_model 32"));
    assert_string_equal(findings(0, 8, hidden, 3), "");
    got = findings(1, 81, shown, 3);
    assert_non_null(strstr(got, "t.lesson:7: 80x24 page 2 (before the prediction): the answer 81 "
                                "is on screen as \"n\u00b2 81\" (row 2: "));
    assert_string_equal(findings(1, 81, hidden, 3), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leak_status_and_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
