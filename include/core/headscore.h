/* headscore.h - what a head does, scored on token sequences: the kinds of
 * head a reader of a real model looks for first.
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
 *                   sink");
 *   next-token      weight of query i on key i+1, over i <= n-2 (0 under the
 *                   causal mask, which hides it);
 *   no-op [CLS], no-op [SEP]
 *                   the weight of query i on every key holding [CLS] (or
 *                   [SEP]), over the queries that hold neither: Clark et al.
 *                   ("What Does BERT Look At?", 2019) found BERT's heads park
 *                   most of their weight there when what they look for is
 *                   not in the text. Absent (headscore_value -1, never 0)
 *                   for a model without the token.
 * With a [CLS] first the segment starts at position 1 (HeadProbe.at); the
 * other scores count every position, the special tokens' too.
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
    HEADSCORE_NEXT,
    HEADSCORE_CLS,
    HEADSCORE_SEP,
    HEADSCORE_KINDS
} HeadScoreKind;

/* The sums of one head over the sequences seen so far (zero it first). */
typedef struct {
    double sum[HEADSCORE_KINDS];
    double count[HEADSCORE_KINDS];
} HeadTally;

/* One sequence's tokens as the scores read them. */
typedef struct {
    const int *ids; /* (n) the token ids */
    int P;          /* > 0: ids[at .. at + 2P) are a segment and its repetition; 0: none */
    int at;         /* where the segment starts: 1 after a [CLS], else 0 */
    int cls, sep;   /* the ids of [CLS] and [SEP], or -1 when the model has none */
} HeadProbe;

/* "previous-token", "induction", "duplicate-token", "first-token",
 * "next-token", "no-op on [CLS]", "no-op on [SEP]". */
const char *headscore_name(HeadScoreKind k);

/* "prev", "ind", "dup", "first", "next", "cls", "sep": table headers. */
const char *headscore_short(HeadScoreKind k);

/* "previous_token", ..., "next_token", "noop_cls", "noop_sep": the CSV's. */
const char *headscore_column(HeadScoreKind k);

/* Add one sequence: src (L, H, n, n) holds its weights, p its tokens (n of
 * them). t has L * H tallies, row-major (layer, head). buf: n floats of
 * scratch. Returns false (nothing added) when the source is not square or
 * the segment does not fit n. */
bool headscore_add(const AttnSource *src, const HeadProbe *p, float *buf, HeadTally *t);

/* The mean of kind k in t, or -1 when no query applied (or the model has
 * no token of the kind: no-op on [CLS] or [SEP]). */
float headscore_value(const HeadTally *t, HeadScoreKind k);

/* A score (0 to 1) as the whole percent the head-score table and its status
 * line show, rounded half up. */
int headscore_percent(float v);

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
 *   duplicate-token, first-token, next-token: no usual cut-off in that
 *                   literature; the same 0.5 (for first-token a uniform
 *                   head already gives key 0 a mean of 1/(i+1), 0.16 on 16
 *                   tokens);
 *   no-op [CLS], [SEP]: Clark et al. call a head's weight on [SEP] "most"
 *                   from about half; the same 0.5.
 * A random untrained head stays well under it on these probes. */
float headscore_threshold(HeadScoreKind k);

/* headscore_best's head when its score reaches headscore_threshold(k),
 * else -1: the head that may be named of kind k. */
int headscore_named(const HeadTally *t, int count, HeadScoreKind k);

#endif
