/* lessonclaim.h - the lesson checker's reading of a page's claims
 * (lessonclaim.c): each claim checked on the page's own numbers, and the
 * narration's sentences that state a number, a ranking or a comparison on
 * a page with no claim. Private to src/ui/ (lessoncheck.c calls it).
 */
#ifndef ATTNVIZ_LESSONCLAIM_H
#define ATTNVIZ_LESSONCLAIM_H

#include "lessonfind.h"

/* Every claim of f's page checked on the result u shows for it: one
 * finding for a claim that is false, one for a claim that cannot be
 * checked (a token not in the sentence, a head the model lacks). */
void lessonclaim_check(Finder *f, const UiState *u);

/* On a page without a claim, one finding for each narration sentence that
 * states a number, a ranking or a comparison. */
void lessonclaim_unclaimed(Finder *f);

#endif
