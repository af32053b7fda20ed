/* lessonleak.h - the lesson checker's search for a question's answer
 * where a student can read it before the reveal (lessonleak.c): every form
 * the screen writes the number in, the answer token first in a ranked
 * list, the text of the pages before; and the checks of a page's text
 * alone. Private to src/ui/.
 */
#ifndef ATTNVIZ_LESSONLEAK_H
#define ATTNVIZ_LESSONLEAK_H

#include <stdbool.h>

#include "lessonfind.h"

/* The answer a of f's page (atext as revealed) on frame s: drawn before
 * its reveal (seen < 0: anywhere on the screen), or on the frame of the
 * earlier page `seen` (0-based) as it opened at the same size (in a row
 * naming the question's query token, row 0-based, or its key). r is the
 * result the answer was read from. */
void lessonleak_screen(Finder *f, ShotState st, const Shot *s, const LessonAnswer *a,
                       const char *atext, const ModelResult *r, int row, int seen);

/* The page's text alone, at every size: a question without narration,
 * model settings changed from the page before without a word of the
 * narration on them, the answer (when have) stated in the text of a page
 * before. */
void lessonleak_text(Finder *f, const LessonAnswer *a, bool have);

#endif
