/* lesson_answer.h - a lesson page's settings and answers at run time
 * (lesson_answer.c): the configuration a page asks for, the head and tokens
 * it names, and its question's answer computed from the result on screen.
 */
#ifndef ATTNVIZ_LESSON_ANSWER_H
#define ATTNVIZ_LESSON_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/lens.h"
#include "core/model.h"
#include "core/tokenize.h"
#include "io/lesson.h"
#include "io/lesson_claim.h"

/* The settings as a model configuration: c starts from model_config_default
 * and takes heads, d_model, layers, seed, mask, PE, scaling, temperature and
 * the preset (PRESET_LOADED when weights are set). */
void lesson_config(const LessonSettings *s, ModelConfig *c);

/* The focused head (0-based) of settings s on a model of configuration c
 * at layer (0-based): s->head, or the first head whose label (as
 * model_head_label) holds s->head_label ignoring case; -1 when no label
 * holds it. */
int lesson_head_index(const LessonSettings *s, const ModelConfig *c, int layer);

/* The 0-based index of ref among tokens t (text matched ignoring ASCII
 * case, the first match; failing that, the first token that is the text
 * after spaces or their marks, as GPT-2's "␣bank" is "bank"), or -1 when
 * none or out of range. */
int lesson_token_index(const LessonTokenRef *ref, const TokenList *t);

typedef struct {
    bool is_token;    /* a token (index) or a number (value) */
    int token;        /* 0-based key token when is_token */
    double value;     /* the number (per cent for weights) */
    const char *unit; /* "%", " bits", "" */
    int choice;       /* 0-based matching choice, or -1 */
} LessonAnswer;

/* What the answer to q reads of a result, as model_holds' bits (0: the
 * shape alone). */
unsigned lesson_answer_needs(const LessonQuestion *q);

/* The answer to q on result r (config c) for head h (0-based), layer
 * (0-based) and query row i (0-based; ignored by cells, tokens, d_k, pe).
 * Returns AV_OK, AV_ERR_CONFIG when the row or a named key is not there (a
 * lesson written for another sentence), or AV_ERR_NEEDS_MODEL when the result
 * does not hold what the answer reads (lesson_answer_needs): no kept weights
 * (a long text), no Q and K (imported or combined weights), no vectors (a
 * weights_only run). A choice question's matching choice is
 * the one naming the answer token, or the one whose first number is nearest
 * the answer. */
int lesson_answer(const LessonQuestion *q, const ModelResult *r, const ModelConfig *c, int layer,
                  int h, int i, LessonAnswer *a);

/* The answer as text: "fish", "38.2%", "1.58 bits". */
void lesson_answer_text(const LessonAnswer *a, const ModelResult *r, char *buf, size_t size);

/* The tolerance a typed number is judged with: q's, or 5% of the answer
 * (at least 0.01; at least 2 points for a percentage). */
double lesson_tolerance(const LessonQuestion *q, const LessonAnswer *a);

/* Whether the number typed is a's value within lesson_tolerance. A weight
 * in per cent may also be typed as the fraction the screen writes weights
 * in elsewhere (0.72 for 72.3%): a number from 0 to 1 is judged both ways. */
bool lesson_typed_right(const LessonQuestion *q, const LessonAnswer *a, const char *typed);

typedef struct {
    bool holds;
    char a[96], b[96]; /* each side's value as text: "river (52.2%)", "2.31 bits" */
    char why[96];      /* when it cannot be checked: what is not there */
} LessonClaimVerdict;

/* Claim c (io/lesson_claim.h) on result r (config cfg) for the page's
 * layer, head and query row (0-based; a term naming its own replaces
 * them), each side computed as a question's answer. Returns AV_OK with *v
 * filled, AV_ERR_CONFIG when a named token, head or layer is not there,
 * AV_ERR_NEEDS_MODEL when r does not hold what a side reads; either way
 * v->why says what. ls is the logit lens the page shows (core/lens.h), or
 * NULL: a side that reads it (lens_rows, lens_prob) then cannot be checked. */
int lesson_answer_claim(const LessonClaim *c, const ModelResult *r, const ModelConfig *cfg,
                        const Lens *ls, int layer, int head, int row, LessonClaimVerdict *v);

#endif
