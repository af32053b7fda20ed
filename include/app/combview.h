/* combview.h - the rules of the views that combine attention weights (heads
 * combined: mean, max, sum; attention rollout across layers; value-weighted
 * norms), whose results app/combsrc.h makes and the interface draws: which
 * key switches to which view, what is refused and why, which actions leave a
 * combining view for the plain weights first, and the status line of a
 * switch; and the view shown (CombView, the session's: its keys go through
 * session_input like every other key). Unit-tested without a terminal.
 */
#ifndef ATTNVIZ_COMBVIEW_H
#define ATTNVIZ_COMBVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "app/kind.h"
#include "app/state.h"
#include "core/av.h"

typedef enum {
    COMB_WEIGHTS, /* the plain weights: no combining view */
    COMB_MEAN,    /* heads combined */
    COMB_MAX,
    COMB_SUM,
    COMB_ROLLOUT, /* attention rollout of layers 1..l */
    COMB_NORMS,   /* value-weighted norms as shares of their row */
    COMB_SINK     /* what-if: the first key's weight set aside, the rest renormalised */
} CombMode;

/* A combining view's state, the session's (Session.comb): the mode shown
 * and what a one-head mode replaced in the AppState (the model's number of
 * heads, the focused head, the head labels), with the labels it shows. */
typedef struct {
    CombMode mode;
    int saved_H, saved_head;         /* the model's, while a one-head mode is shown */
    const char *const *saved_labels; /* s->cfg.head_labels before a combining view */
    char label_buf[AV_MAX_LAYERS][48];
    const char *labels[AV_MAX_LAYERS * AV_MAX_HEADS];
} CombView;

/* Whether m shows one head a layer (heads combined, rollout). */
bool comb_one_head(CombMode m);

/* m's name on the status line and as the head's label: "the weights",
 * "heads combined: mean", ... */
const char *comb_name(CombMode m);

/* The view the key a switches to from m: A cycles mean, max, sum and back
 * to the weights, O, V and K turn the rollout, the norms and the sink
 * what-if (core/sink.h) on and off. False
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

/* Switch cv to m on s: s->cfg.H and s->head become 1 and 0 while a
 * one-head mode is shown (the model's put back after it), s->cfg.head_labels
 * name the combining view ("rollout of layers 1-l", its comb_name) or are
 * the model's again, and the rows summed together (M) are cleared. Sets no
 * message. */
void comb_set(CombView *cv, AppState *s, CombMode m);

/* Input a offered to the combining views (typed: text typed, a ACT_NONE),
 * kind k on s. A combining key is taken (1): switched with comb_message's
 * line and APP_RUN added to *flags, or refused with comb_refuses's reason
 * in s->msg and nothing run. A key that leaves (comb_leaves) puts the plain
 * weights back first (APP_RUN added) and is not taken (0), nor is any other
 * key: action_apply has it. Never quits. */
int comb_input(CombView *cv, const Kind *k, AppState *s, Action a, bool typed, unsigned *flags);

#endif
