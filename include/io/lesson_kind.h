/* lesson_kind.h - what a lesson's question or claim computes
 * (lesson_kind.c): the kinds of answer by their names in a lesson file, and
 * a token named by index or text. The bottom of the lesson format: the
 * parser (lesson.h) and the claims (lesson_claim.h) both read these.
 */
#ifndef ATTNVIZ_LESSON_KIND_H
#define ATTNVIZ_LESSON_KIND_H

/* What a question's answer is, computed from the result on screen for the
 * focused head, the shown layer and the selected query token (the row). */
typedef enum {
    LESSON_ANS_TOP,     /* token: the key with the largest weight in the row */
    LESSON_ANS_LOW,     /* token: the visible key with the smallest weight */
    LESSON_ANS_WEIGHT,  /* number: the row's weight on key K, in per cent */
    LESSON_ANS_SCORE,   /* number: the scaled (and masked) score of the row on key K */
    LESSON_ANS_DOT,     /* number: the raw dot product q . k of the row and key K */
    LESSON_ANS_MAX,     /* number: the row's largest weight, per cent */
    LESSON_ANS_SUM,     /* number: the sum of the row's weights, per cent */
    LESSON_ANS_ENTROPY, /* number: the row's entropy in bits */
    LESSON_ANS_VISIBLE, /* number: the keys the row sees (the mask) */
    LESSON_ANS_OUTPUT,  /* number: component D (1-based) of the head's output row */
    LESSON_ANS_CELLS,   /* number: weights one head computes, n_q x n_k */
    LESSON_ANS_TOKENS,  /* number: tokens of the sentence */
    LESSON_ANS_DK,      /* number: d_k */
    LESSON_ANS_PE,      /* number: PE(pos, dim), both 0-based as in the formula */
    /* the logit lens (core/lens.h), claims only: a question has no lens */
    LESSON_ANS_LENS_ROWS, /* number: the lens grid's rows, layers + 1 */
    LESSON_ANS_LAYERS,    /* number: the model's layers */
    LESSON_ANS_LENS_PROB, /* number: a lens cell's top token's probability, per cent */
    LESSON_ANS_COUNT
} LessonAnswerKind;

/* LessonTokenRef.index of "last": the text's last token, whatever the
 * tokenizer makes of it (a lesson that runs on any model). */
#define LESSON_TOKEN_LAST (-1)

/* A key named in an answer: a 1-based index, "last", or a token's text. */
typedef struct {
    int index;        /* 1-based, LESSON_TOKEN_LAST, or 0 when text names it */
    const char *text; /* the token's text (matched ignoring ASCII case), or NULL */
} LessonTokenRef;

/* An answer's name in a lesson file ("top", "weight", "d_k", ...), and
 * the kind a name stands for (LESSON_ANS_COUNT: none). */
const char *lesson_kind_name(LessonAnswerKind k);
LessonAnswerKind lesson_kind_of(const char *name);

#endif
