/* lesson_kind.c - the names of a lesson's answers (io/lesson_kind.h). */
#include "io/lesson_kind.h"

#include <string.h>

static const char *const answer_names[LESSON_ANS_COUNT] = {
    "top",    "low",   "weight", "score", "dot", "max",       "sum",    "entropy",   "visible",
    "output", "cells", "tokens", "d_k",   "pe",  "lens_rows", "layers", "lens_prob",
};

const char *lesson_kind_name(LessonAnswerKind k)
{
    return k >= 0 && k < LESSON_ANS_COUNT ? answer_names[k] : "";
}

LessonAnswerKind lesson_kind_of(const char *name)
{
    int k = 0;
    while (k < LESSON_ANS_COUNT && strcmp(name, answer_names[k]) != 0)
        k++;
    return (LessonAnswerKind)k;
}
