/* scores.h - what each head of a trained net does, measured on probe
 * sequences, and the label it gets.
 *
 * Scores of layer l, head h (each a mean attention weight, 0..1):
 *   previous-token  weight of query i on key i-1, over i >= 1, on the task's
 *                   own probe batch;
 *   induction       DESIGN.md's: on sequences of a random segment of length
 *                   P = context / 2 (distinct tokens when the vocabulary
 *                   allows) followed by one repetition, the weight of query t
 *                   on key t-P+1 over the second copy's positions t;
 *   self            weight of query i on key i, over i >= 1;
 *   first-token     weight of query i on key 0, over i >= 1;
 *   antecedent      (grammar) weight of each pronoun on its antecedent noun.
 * A head's label is its best score when above 0.5 ("induction 0.83"), else
 * "mixed".
 */
#ifndef ATTNVIZ_SCORES_H
#define ATTNVIZ_SCORES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "train/net.h"
#include "train/task.h"

typedef enum {
    SCORE_PREV,
    SCORE_INDUCTION,
    SCORE_SELF,
    SCORE_FIRST,
    SCORE_ANTECEDENT,
    SCORE_KINDS
} ScoreKind;

typedef struct {
    float s[SCORE_KINDS];
    bool has[SCORE_KINDS]; /* antecedent only for grammar */
} HeadScore;

/* "previous-token", "induction", "self", "first-token", "antecedent". */
const char *scores_name(ScoreKind k);

/* Short names for progress lines: "prev", "ind", "self", "first", "ante". */
const char *scores_short_name(ScoreKind k);

/* Measure every head of net: out has layers * heads entries, row-major
 * (layer, head). The probes are drawn from seed (the same seed, the same
 * probes) and use at most net->batch sequences; net's activations are
 * overwritten. Returns AV_OK or AV_ERR_NOMEM. */
int scores_measure(Net *net, const Task *task, uint64_t seed, HeadScore *out);

/* The induction probe: B sequences of P distinct (when V allows) random
 * tokens of 0 .. V - 1 followed by the same P again, into tok (B * 2P ints),
 * drawn from seed (the same seed, the same sequences). */
void scores_repeat_probe(int *tok, int B, int P, int V, uint64_t seed);

/* The probe sequence the views draw: the first sequence of the task's probe
 * batch (step -1 of seed), context tokens into tok (context ints), run
 * forward alone (B = 1), so that net_weights(net, l, 0, h) is head h's
 * (context, context) weights in layer l. AV_OK or AV_ERR_NOMEM. */
int scores_probe_weights(Net *net, const Task *task, uint64_t seed, int *tok);

/* The label of one head into buf: "induction 0.83" or "mixed". */
void scores_label(const HeadScore *hs, char *buf, size_t cap);

/* The best score's kind and value (ties: the first). */
ScoreKind scores_best(const HeadScore *hs, float *value);

/* heads.txt: one line per head, "layer L head H: LABEL" (1-based) followed by
 * every score, malloc'd (NULL when out of memory). */
char *scores_heads_txt(const HeadScore *scores, int layers, int heads);

#endif
