/* lessonnote.h - what a lesson page's narration says that the model on
 * screen does not bear out (lessonnote.c). A lesson is written for one
 * model (its pages' settings, weights or model: folder); run on another
 * (--lesson NAME --model DIR, a lesson from the list under --model, or toy
 * weights standing in for a page's missing model), a number of its text may
 * be false for what the student sees. Each of the page's claim: lines that
 * is false on the result shown becomes one line of the page, "d_k is 12
 * (the text: 256)", with the value a question still hides left out until
 * its reveal. No curses: view_lesson.c draws the lines, render/handout.c writes
 * them into the Markdown handout.
 */
#ifndef ATTNVIZ_LESSONNOTE_H
#define ATTNVIZ_LESSONNOTE_H

#include <stdbool.h>

#include "core/lens.h"
#include "core/model.h"
#include "io/lesson_answer.h"
#include "io/lesson_claim.h"

#define LESSON_NOTES_MAX 4 /* false claims said one a line; the rest counted */

typedef struct {
    char said[480];           /* "d_k is 12 (the text: 256)" */
    char veiled[480];         /* "max(it) differs from the text here: ..." (no value) */
    LessonAnswerKind kind[2]; /* what each side reads, when hides[k] */
    bool reads[2];            /* side k is an answer (not a constant written) */
} LessonNote;

typedef struct {
    int n;              /* false claims said */
    int more;           /* false claims beyond LESSON_NOTES_MAX */
    char more_text[48]; /* "and 2 more of its claims" when more */
    LessonNote note[LESSON_NOTES_MAX];
} LessonNotes;

/* The n claims c checked on result r (configuration cfg, the lens lens or
 * NULL) for the page's layer, head and row (0-based), as
 * lesson_answer_claim: those that are false go into *out, the first after
 * lessonnote_header ("On this model the text's numbers differ: d_k is 12
 * (the text: 256)"), each with its line veiled ("max(it) (shown with the
 * answer)"); those that hold, or cannot be checked on r (a token this
 * model does not have, a lens not computed), say nothing. */
void lessonnote_make(LessonNotes *out, const LessonClaim *c, int n, const ModelResult *r,
                     const ModelConfig *cfg, const Lens *lens, int layer, int head, int row);

/* What the first note starts with: "On this model the text's numbers differ:". */
const char *lessonnote_header(void);

#endif
