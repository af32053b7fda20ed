/* fuzz_lesson.c - libFuzzer harness for lesson files (io/lesson.h) and
 * their pages applied (app/lesson.h).
 *
 * The input is a lesson file. A refusal must be AV_ERR_LESSON (or
 * AV_ERR_NOMEM) with a line from 0 (the file as a whole) to the file's last
 * line and a one-line message, and leave the lesson empty. An accepted
 * lesson has pages whose settings are in range (heads divide d_model, the
 * focused head and the layer exist, narration lines within the file's) and
 * every page (the first 8, to bound one input's time) applies: lesson_state_goto sets the page up
 * and the model runs on its sentence with the toy weights (a folder that cannot be read is the
 * page's problem line, as on screen, never a failure; a weights folder made
 * for another sentence may refuse the page's, which the status line says).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/lesson.h"
#include "app/state.h"
#include "core/av.h"
#include "core/model.h"
#include "io/lesson.h"
#include "io/sentences.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_lesson: invariant broken: %s\n", what);
        abort();
    }
}

static void check_line(const char *msg)
{
    check(msg[0] != '\0', "a refusal without a message");
    for (const char *c = msg; *c; c++)
        check((unsigned char)*c >= 0x20 || *c == '\t', "a message that is not one line");
}

static int count_lines(const uint8_t *d, size_t n)
{
    int lines = 1;
    for (size_t i = 0; i < n; i++)
        lines += d[i] == '\n';
    return lines;
}

static void check_page(const Lesson *l, const LessonPage *p, int lines)
{
    const LessonSettings *s = &p->set;
    check(p->title != NULL, "a page without a title");
    check(p->line >= 1 && p->line <= lines, "a page's line outside the file");
    check(p->text_first >= 0 && p->n_text >= 0 && p->text_first + p->n_text <= l->n_lines,
          "narration outside the lines");
    check(s->d_model >= 1 && s->H >= 1 && s->d_model % s->H == 0, "heads do not divide d_model");
    /* a page with a trained model may name a layer of the model's: src/io/lesson/lesson.c leaves
     * it to src/app/lesson.c, which brings it within the model's layers when the page is
     * applied (every page is applied below) */
    check(s->layers >= 1 && s->layer >= 0 && (s->layer <= s->layers || s->model),
          "a layer out of range");
    check(s->head >= 1 && s->head <= s->H, "a focused head out of range");
    check(s->token.index >= 0 && s->key.index >= 0, "a negative token index");
    check(s->stage >= 0 && s->stage <= 8, "a pipeline stage out of range");
    check(s->stage_last >= s->stage && s->stage_last <= 8, "a stage range out of order");
}

/* Apply every page as the interface does and run the model on it. */
static void apply_pages(Lesson *l)
{
    static SentenceList sent;
    static int have_sent;
    if (!have_sent)
        check(sentences_builtin(&sent) == AV_OK, "the built-in sentences"), have_sent = 1;
    AppState s;
    LessonState ls;
    ModelConfig c;
    model_config_default(&c);
    check(app_init(&s, &c, "some text", &sent, false) == AV_OK, "app_init");
    lesson_state_init(&ls);
    int n = l->n_pages < 8 ? l->n_pages : 8; /* each page runs a model: bound one input's time */
    lesson_state_start(&ls, l, &s);
    for (int k = 0; k < n; k++) {
        if (k)
            lesson_state_goto(&ls, &s, k);
        check(ls.page == k, "lesson_state_goto went elsewhere");
        for (const char *c2 = ls.problem; *c2; c2++)
            check((unsigned char)*c2 >= 0x20, "a problem line that is not one line");
        const ModelWeights *w = lesson_state_weights(&ls);
        ModelWeights toy = {0};
        if (!w && !ls.have_model) {
            check(model_weights_toy(&s.cfg, &toy) == AV_OK, "the page's toy weights");
            w = &toy;
        }
        if (w) {
            ModelResult r = {0};
            int rc = model_run(&s.cfg, w, s.text.s, s.text.len, NULL, 0, &r);
            /* with the toy weights every page runs (an empty or too long
             * sentence is the status line's); a weights folder made for
             * another sentence may refuse one, as on screen */
            check(rc == AV_OK || rc == AV_ERR_EMPTY || rc == AV_ERR_TOO_MANY || w != &toy,
                  "a page's model does not run");
            check(rc != AV_ERR_NOMEM, "out of memory running a page");
            if (rc == AV_OK) {
                app_set_tokens(&s, r.shape.n_q, r.shape.n_k);
                lesson_state_after_run(&ls, &s, &r);
            }
            model_result_free(&r);
        }
        model_weights_free(&toy);
    }
    lesson_state_free(&ls);
    app_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Lesson l;
    LessonError e;
    memset(&e, 0, sizeof e);
    int rc = lesson_parse((const char *)data, size, "fuzz", "", &l, &e);
    int lines = count_lines(data, size);
    if (rc != AV_OK) {
        check(rc == AV_ERR_LESSON || rc == AV_ERR_NOMEM, "an undocumented error code");
        check(l.n_pages == 0 && l.pages == NULL && l.buf == NULL, "a refusal left a lesson");
        if (rc == AV_ERR_LESSON) {
            check(e.line >= 0 && e.line <= lines, "the error's line is outside the file");
            check_line(e.msg);
        }
        lesson_free(&l);
        return 0;
    }
    check(l.n_pages >= 1 && l.title != NULL, "an accepted lesson without pages or title");
    for (int k = 0; k < l.n_pages; k++)
        check_page(&l, &l.pages[k], lines);
    apply_pages(&l);
    lesson_free(&l);
    return 0;
}
