/* headscan.h - the heads that mean something: every head of a model that
 * runs text scored as previous-token, induction, duplicate-token and
 * first-token (core/headscore.h), on random repeated sequences from the
 * model's own vocabulary.
 *
 * The probes are train/scores.h's induction probe (DESIGN.md "Induction
 * score"): HEADSCAN_SEQS sequences of a random segment of P tokens (distinct
 * when the vocabulary allows) and one repetition, P = min(context / 2,
 * HEADSCAN_MAX_P), drawn from a seed; each is run through the kind by its
 * ids (kind_run_ids) and every score is summed over all of them. A model
 * whose texts are wrapped in [CLS] and [SEP] (kind_wrap: BERT) gets its
 * probes wrapped so, [CLS] seg seg [SEP] (P = min((context - 2) / 2,
 * HEADSCAN_MAX_P)), the segment drawn from the other ids; only then are
 * the no-op scores present.
 */
#ifndef ATTNVIZ_HEADSCAN_H
#define ATTNVIZ_HEADSCAN_H

#include <stdint.h>
#include <stdio.h>

#include "app/kind.h"
#include "core/headscore.h"

#define HEADSCAN_SEQS 4
#define HEADSCAN_MAX_P 20
#define HEADSCAN_SEED 1

typedef struct {
    int L, H;     /* the model's layers and heads */
    int P, seqs;  /* the probes: seqs sequences of n tokens, a segment of P twice */
    int n, at;    /* n = at + 2P (+ 1 with [SEP]); the segment starts at at */
    int cls, sep; /* the ids of [CLS] and [SEP] the probes are wrapped in, or -1 */
    int V;        /* drawn from ids 0 .. V - 1 (the wrapping tokens' aside) */
    uint64_t seed;
    int *ids;                   /* (seqs, n) the probes' ids */
    HeadTally *t;               /* (L, H) the scores */
    int best[HEADSCORE_KINDS];  /* layer * H + head of each kind's best, or -1 */
    int named[HEADSCORE_KINDS]; /* best[] when it reaches headscore_threshold, or -1 */
} HeadScan;

/* Score every head of k with the settings c (kind_config'd) on the probes of
 * seed into *s (zeroed or headscan_free'd first). Returns AV_OK,
 * AV_ERR_CONFIG (the kind runs no ids, or its context is under 2 tokens),
 * AV_ERR_NOMEM or what the kind's run returns. */
int headscan_run(Kind *k, const ModelConfig *c, uint64_t seed, HeadScan *s);

/* Free what headscan_run made and zero *s. */
void headscan_free(HeadScan *s);

/* The table as CSV into f: lines starting '#' say the probes (and list each
 * sequence's ids) and the best head of each kind (1-based; none for a kind
 * every head scores 0 on), then the header
 * "layer,head,previous_token,induction,duplicate_token,first_token,
 * next_token,noop_cls,noop_sep" and one line per head (1-based layer and
 * head, scores to 6 decimals; a score the model cannot have, the no-op ones
 * without [CLS] and [SEP], empty, and a '#' line says why). Returns 0, or
 * -1 when f failed. */
int headscan_write_csv(const HeadScan *s, FILE *f);

/* The one-line reason headscan_run cannot score k ("imported attention runs
 * no text: ..."), or NULL when it can. */
const char *headscan_refuses(const Kind *k, const ModelConfig *c);

#endif
