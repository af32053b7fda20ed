/* view_lesson.h - a lesson on the screen (view_lesson.c): its page beside
 * or below the view (narration, question, prediction, answer), the list of
 * lessons over everything, and the keys a lesson takes.
 */
#ifndef ATTNVIZ_VIEW_LESSON_H
#define ATTNVIZ_VIEW_LESSON_H

#include <stdbool.h>

#include "../uistate.h"

/* When a lesson is active or its list open (and neither the editor nor the
 * help is), translate key (an ncurses code when code, else a character) to
 * in->lesson_in (LessonInput + 1) and in->lesson_arg; else leave them 0. */
void view_lesson_key(const UiState *u, int key, bool code, AppInput *in);

/* Split the middle of the screen for an active lesson: *panel gets the
 * page's part (the right side on wide screens, the bottom on narrow ones)
 * and *mid keeps the rest for the view. Without a lesson *panel is empty. */
void view_lesson_split(const UiState *u, Rect *mid, Rect *panel);

/* Predict, then see: while the lesson's question waits (lesson_state_veiled)
 * hide what would answer it in the view drawn in r: weight cells, their
 * numbers and shades, the ranked bars with their labels, the inspected
 * cell's weight. The pipeline view hides its own stages (PipelineSpec.veil)
 * and the trace is left whole (its inputs are what a student computes from). */
void view_lesson_veil(const UiState *u, Grid *g, Rect r);

/* The page of the active lesson in r. */
void view_lesson_draw(UiState *u, Grid *g, Rect r);

/* The list of lessons over the whole screen, when open. */
void view_lesson_list_draw(const UiState *u, Grid *g);

#endif
