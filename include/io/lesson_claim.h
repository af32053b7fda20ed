/* lesson_claim.h - a lesson page's claims parsed (lesson_claim.c): what
 * its narration says of the numbers on screen, written so a machine can
 * check it; lesson_answer_claim (lesson_answer.h) checks one on the page's
 * own result with the questions' answer code. A claim line:
 *
 *   claim: top(bank) != river            the strongest key of bank's row
 *   claim: entropy(head 3) > 2.5 bits    the page's row, head 3
 *   claim: weight(saw, cat) > weight(saw, the)
 *   claim: d_k == 8                      to the precision written: 7.5 .. 8.5
 *
 * A term is a constant (a number, optionally with % or bits; a token's
 * text, quoted or not) or one of the answers' names with its arguments in
 * parentheses: top, low, max, sum, entropy, visible (QUERY); weight, score,
 * dot ([QUERY,] KEY); output ([QUERY,] D); pe (POS, DIM); d_k, tokens,
 * cells, layers (the model's) (no argument). Any of them may add "head N"
 * and "layer N"; what is left out is the page's (its selected token,
 * focused head, shown layer). The logit lens the page shows (core/lens.h)
 * is read by lens_rows (the grid's rows, layers + 1; no argument) and
 * lens_prob ([QUERY][, layer N]: the top token's probability, per cent, in
 * grid row N, 0 the embedding; no layer: the last row); without a lens on
 * the page they cannot be checked. An answer may end in "+ N" or "- N", a
 * whole number added to it: lens_rows == layers + 1.
 * The operators are ==, !=, <, <=, >, >=. A token is compared with a token,
 * a number with a number; == with a written number holds within half a unit
 * of its last digit ("52.2%": 52.15 .. 52.25).
 */
#ifndef ATTNVIZ_LESSON_CLAIM_H
#define ATTNVIZ_LESSON_CLAIM_H

#include <stdbool.h>
#include <stddef.h>

#include "io/lesson_kind.h"

typedef enum { CLAIM_EQ, CLAIM_NE, CLAIM_LT, CLAIM_LE, CLAIM_GT, CLAIM_GE } LessonClaimOp;

typedef struct {
    bool is_const;
    /* a constant: */
    bool is_token; /* a token's text (token), or a number (value) */
    const char *token;
    double value, half_ulp; /* half a unit of the number's last written digit */
    /* an answer, as a question's: its kind, key and numbers */
    LessonAnswerKind answer;
    LessonTokenRef key;   /* weight, score, dot */
    int arg1, arg2;       /* output: D; pe: pos, dim */
    LessonTokenRef query; /* the row; none (0, NULL): the page's selected token */
    int head, layer;      /* 1-based; 0: the page's (lens_prob: grid row + 1; 0: the last) */
    int offset;           /* "+ N" / "- N" after an answer: added to its value */
} LessonClaimTerm;

typedef struct {
    int line;       /* the claim's line in the file */
    char text[120]; /* as written, after "claim:" (cut at 119 bytes) */
    LessonClaimTerm a, b;
    LessonClaimOp op;
} LessonClaim;

/* Parse text (cut in place: the terms' strings point into it; c->text
 * keeps a copy of it whole) into *c.
 * Returns AV_OK, or AV_ERR_LESSON with what is wrong in msg[0..len). */
int lesson_claim_parse(char *text, LessonClaim *c, char *msg, size_t len);

/* "==", "!=", "<", "<=", ">", ">=". */
const char *lesson_claim_op_text(LessonClaimOp op);

#endif
