/* headscore.h - what a head does, scored on token sequences: the four
 * kinds of head a reader of a real model looks for first.
 *
 * Each score is a mean attention weight (0..1) over the queries it applies
 * to, summed over every sequence given (headscore_add) before the mean:
 *   previous-token  weight of query i on key i-1, over i >= 1;
 *   induction       DESIGN.md's: on a sequence of a random segment of length
 *                   P followed by one repetition (n = 2P), the weight of
 *                   query t on key t-P+1 over the second copy's t = P..2P-1;
 *   duplicate-token the weight of query i on every earlier key j < i holding
 *                   the same token id, over the queries i that have one;
 *   first-token     weight of query i on key 0 over i >= 1 (the "attention
 *                   sink").
 * Pure: the weights come through an AttnSource (combine.h), the tallies are
 * the caller's.
 */
#ifndef ATTNVIZ_HEADSCORE_H
#define ATTNVIZ_HEADSCORE_H

#include <stdbool.h>

#include "core/combine.h"

typedef enum {
    HEADSCORE_PREV,
    HEADSCORE_INDUCTION,
    HEADSCORE_DUP,
    HEADSCORE_FIRST,
    HEADSCORE_KINDS
} HeadScoreKind;

/* The sums of one head over the sequences seen so far (zero it first). */
typedef struct {
    double sum[HEADSCORE_KINDS];
    double count[HEADSCORE_KINDS];
} HeadTally;

/* "previous-token", "induction", "duplicate-token", "first-token". */
const char *headscore_name(HeadScoreKind k);

/* "prev", "ind", "dup", "first": table headers. */
const char *headscore_short(HeadScoreKind k);

/* Add one sequence: src (L, H, n, n) holds its weights, ids[0..n) its token
 * ids; P > 0 when it is a segment of length P and one repetition (n == 2P),
 * which adds the induction score, else 0. t has L * H tallies, row-major
 * (layer, head). buf: n floats of scratch. Returns false (nothing added)
 * when the source is not square or P does not fit n. */
bool headscore_add(const AttnSource *src, const int *ids, int P, float *buf, HeadTally *t);

/* The mean of kind k in t, or -1 when no query applied. */
float headscore_value(const HeadTally *t, HeadScoreKind k);

/* The index (layer * H + head) of the head scoring highest on k among
 * t[0..count), ties to the first; -1 when none has the score. */
int headscore_best(const HeadTally *t, int count, HeadScoreKind k);

/* The score from which a head is named a head of kind k (the table's
 * capital letter, "induction head: layer 2 head 2"); below it the best is
 * only "the best", never "an induction head". Each score is a mean weight,
 * and each threshold 0.5, half the query's weight on the kind's keys:
 *   previous-token, induction: the detectors of ARENA's interpretability
 *                   course (chapter 1.2, "Finding induction heads") score
 *                   heads exactly so, the mean weight on the kind's stripe
 *                   over random tokens repeated once, and name a head from
 *                   0.4; attnviz takes 0.5, the line at which its training
 *                   view says a head "became" a kind (train/scores.c,
 *                   scores_label), so that the two never disagree;
 *   duplicate-token, first-token: no usual cut-off in that literature;
 *                   the same 0.5 (for first-token a uniform head already
 *                   gives key 0 a mean of 1/(i+1), 0.16 on 16 tokens).
 * A random untrained head stays well under it on these probes. */
float headscore_threshold(HeadScoreKind k);

/* headscore_best's head when its score reaches headscore_threshold(k),
 * else -1: the head that may be named of kind k. */
int headscore_named(const HeadTally *t, int count, HeadScoreKind k);

#endif
