/* lessonfit.h - whether a model can give the views a lesson's pages show:
 * the one place that decides it, for a page (its view shown or the
 * heatmaps with the reason) and for a whole lesson run on one model
 * (--lesson NAME --model DIR, and the interface's list of lessons under
 * --model), which is refused before it opens when a page needs a view the
 * model cannot give (the logit lens on a BERT, the PE view on a model that
 * learned its positions, the mask comparison on a causal one).
 */
#ifndef ATTNVIZ_LESSONFIT_H
#define ATTNVIZ_LESSONFIT_H

#include <stdbool.h>
#include <stddef.h>

#include "app/kind.h"
#include "io/lesson.h"
#include "io/views.h"

/* Why kind k cannot show view v, as the kind refuses the key that shows it
 * (the logit lens on a BERT: "BERT fills in a [MASK] rather than ..."), or
 * NULL when it can (the heatmaps always can). */
const char *lessonfit_view(const Kind *k, ViewId v);

/* Whether every page of l can run on k with its view: true, or false with
 * one line in why (at most len bytes) naming the lesson, the page, its view
 * and the kind's reason; model names the model in it (NULL: "this model"). */
bool lessonfit_lesson(const Lesson *l, const Kind *k, const char *model, char *why, size_t len);

#endif
