/* combview.h - the rules of the views that combine attention weights (heads
 * combined: mean, max, sum; attention rollout across layers; value-weighted
 * norms), which the interface computes and draws (src/ui/imported.c): which
 * key switches to which view, what is refused and why, which actions leave a
 * combining view for the plain weights first, and the status line of a
 * switch. Unit-tested without a terminal.
 */
#ifndef ATTNVIZ_COMBVIEW_H
#define ATTNVIZ_COMBVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "app/kind.h"
#include "app/state.h"

typedef enum {
    COMB_WEIGHTS, /* the plain weights: no combining view */
    COMB_MEAN,    /* heads combined */
    COMB_MAX,
    COMB_SUM,
    COMB_ROLLOUT, /* attention rollout of layers 1..l */
    COMB_NORMS    /* value-weighted norms as shares of their row */
} CombMode;

/* Whether m shows one head a layer (heads combined, rollout). */
bool comb_one_head(CombMode m);

/* m's name on the status line and as the head's label: "the weights",
 * "heads combined: mean", ... */
const char *comb_name(CombMode m);

/* The view the key a switches to from m: A cycles mean, max, sum and back
 * to the weights, O and V turn the rollout and the norms on and off. False
 * (*next untouched) when a is no combining key. */
bool comb_next(CombMode m, Action a, CombMode *next);

/* Why switching to m is refused for the kind k on s, or NULL: the norms
 * when the kind refuses them (KIND_ASK_NORMS: no V or W_O to weigh by), the
 * rollout without self-attention (as many queries as keys). */
const char *comb_refuses(CombMode m, const Kind *k, const AppState *s);

/* Whether action a (typed: text typed while browsing, a ACT_NONE) changes
 * or needs the model's own weights, so that a combining view gives way to
 * the plain weights first. */
bool comb_leaves(Action a, bool typed);

/* The status line after switching to m: "showing NAME" and the key back. */
void comb_message(CombMode m, char *msg, size_t len);

#endif
