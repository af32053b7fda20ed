/* combview.c - the combining views' rules and state (combview.h). */
#include "app/combview.h"

#include <stdio.h>

/* each says what its cells are: a mean of rows is a distribution, a max or a
 * sum is not (its entropy says "rows normalised", its cells may pass 100) */
static const char *const names[] = {"the weights",
                                    "heads combined: mean over heads",
                                    "heads combined: max over heads",
                                    "heads combined: sum over heads",
                                    "attention rollout",
                                    "value-weighted norms (row shares)",
                                    "what-if: first token set aside"};

bool comb_one_head(CombMode m)
{
    return m >= COMB_MEAN && m <= COMB_ROLLOUT;
}

const char *comb_name(CombMode m)
{
    return names[m];
}

bool comb_next(CombMode m, Action a, CombMode *next)
{
    if (a == ACT_COMBINE_HEADS)
        *next = m == COMB_MEAN  ? COMB_MAX
                : m == COMB_MAX ? COMB_SUM
                : m == COMB_SUM ? COMB_WEIGHTS
                                : COMB_MEAN;
    else if (a == ACT_ROLLOUT)
        *next = m == COMB_ROLLOUT ? COMB_WEIGHTS : COMB_ROLLOUT;
    else if (a == ACT_NORMS)
        *next = m == COMB_NORMS ? COMB_WEIGHTS : COMB_NORMS;
    else if (a == ACT_SINK)
        *next = m == COMB_SINK ? COMB_WEIGHTS : COMB_SINK;
    else
        return false;
    return true;
}

const char *comb_refuses(CombMode m, const Kind *k, const AppState *s)
{
    if (m == COMB_NORMS)
        return kind_refuses(k, KIND_ASK_NORMS);
    if (m == COMB_ROLLOUT && s->n_q != s->n_k)
        return "rollout needs self-attention (as many queries as keys)";
    return NULL;
}

bool comb_leaves(Action a, bool typed)
{
    switch (a) {
    case ACT_EDIT:
    case ACT_EDIT_CROSS:
    case ACT_MASK:
    case ACT_PE:
    case ACT_SCALE:
    case ACT_HEADS_DEC:
    case ACT_HEADS_INC:
    case ACT_DMODEL_DEC:
    case ACT_DMODEL_INC:
    case ACT_SEED_DEC:
    case ACT_SEED_INC:
    case ACT_SENT_NEXT:
    case ACT_SENT_PREV:
    case ACT_PRESET:
    case ACT_TEMP_DOWN:
    case ACT_TEMP_UP:
    case ACT_LAYERS_DEC:
    case ACT_LAYERS_INC:
    case ACT_CROSS:
    case ACT_CMP_MASK:
    case ACT_GENERATE:
    case ACT_TRACE:
    case ACT_VIEW:
    case ACT_HEADS_HELP:
    case ACT_DIMS_NEXT:
    case ACT_DIMS_PREV: return true;
    default: return typed;
    }
}

void comb_message(CombMode m, char *msg, size_t len)
{
    if (m == COMB_SINK) {
        snprintf(msg, len,
                 "what-if: each row without the first token's weight, the rest "
                 "renormalised to 1: what a sink hides (K: back to the weights)");
        return;
    }
    snprintf(msg, len, "showing %s%s", names[m],
             m == COMB_WEIGHTS   ? ""
             : m == COMB_NORMS   ? " (V: back to the weights)"
             : m == COMB_ROLLOUT ? " (O: back to the weights)"
                                 : " (A: next)");
}

void comb_set(CombView *cv, AppState *s, CombMode m)
{
    if (comb_one_head(m) && !comb_one_head(cv->mode)) {
        cv->saved_H = s->cfg.H, cv->saved_head = s->head;
        s->cfg.H = 1, s->head = 0;
    } else if (!comb_one_head(m) && comb_one_head(cv->mode)) {
        s->cfg.H = cv->saved_H, s->head = cv->saved_head;
    }
    if (m != COMB_WEIGHTS && cv->mode == COMB_WEIGHTS)
        cv->saved_labels = s->cfg.head_labels;
    int L = s->cfg.layers, H = s->cfg.H, model_H = comb_one_head(m) ? cv->saved_H : H;
    static const char *const how[] = {"", "mean", "max", "sum"};
    for (int l = 0; l < L && m != COMB_WEIGHTS; l++) {
        /* the label is the head's name in titles, bars and exports: what
         * the one head shown stands for, never "head 1" */
        if (m == COMB_ROLLOUT)
            snprintf(cv->label_buf[l], sizeof cv->label_buf[l],
                     "rollout of layers 1-%d (%d heads averaged)", l + 1, model_H);
        else if (m >= COMB_MEAN && m <= COMB_SUM)
            snprintf(cv->label_buf[l], sizeof cv->label_buf[l], "%d heads combined: %s", model_H,
                     how[m]);
        else /* a view of every head (norms, the sink's what-if): its name */
            snprintf(cv->label_buf[l], sizeof cv->label_buf[l], "%s", names[m]);
        for (int h = 0; h < H; h++)
            cv->labels[l * H + h] = cv->label_buf[l];
    }
    s->cfg.head_labels = m == COMB_WEIGHTS ? cv->saved_labels : cv->labels;
    cv->mode = m;
    s->n_multi = 0;
}

int comb_model_heads(const CombView *cv, const AppState *s)
{
    return comb_one_head(cv->mode) ? cv->saved_H : s->cfg.H;
}

float comb_full(const CombView *cv)
{
    return cv->mode == COMB_SUM && cv->saved_H > 1 ? (float)cv->saved_H : 1.0f;
}

int comb_heads_text(const CombView *cv, const AppState *s, const char *sep, bool dk_hidden,
                    char *buf, size_t len)
{
    int H = comb_model_heads(cv, s);
    int d_k = s->cfg.preset != PRESET_IMPORTED && H > 0 ? s->cfg.d_model / H : 0;
    char dk[32] = "";
    if (d_k > 0 && dk_hidden)
        snprintf(dk, sizeof dk, "%sd_k ?", sep);
    else if (d_k > 0)
        snprintf(dk, sizeof dk, "%sd_k %d", sep, d_k);
    if (comb_one_head(cv->mode))
        return snprintf(buf, len, "%d heads %s%s", H,
                        cv->mode == COMB_ROLLOUT ? "rolled out" : "combined", dk);
    return snprintf(buf, len, "heads %d%s", H, dk);
}

int comb_head_title(const CombView *cv, const AppState *s, char *buf, size_t len)
{
    if (comb_one_head(cv->mode)) { /* the label, as a title: "Rollout of ..." */
        int n = snprintf(buf, len, "%s", model_head_label(&s->cfg, s->layer, 0));
        if (len > 0 && buf[0] >= 'a' && buf[0] <= 'z')
            buf[0] = (char)(buf[0] - 'a' + 'A');
        return n;
    }
    return snprintf(buf, len, "Head %d of %d", s->head + 1, s->cfg.H);
}

int comb_input(CombView *cv, const Kind *k, AppState *s, Action a, bool typed, unsigned *flags)
{
    CombMode m;
    if (comb_next(cv->mode, a, &m)) {
        const char *why = comb_refuses(m, k, s);
        if (why) {
            snprintf(s->msg, sizeof s->msg, "%s", why);
            return 1;
        }
        comb_set(cv, s, m);
        comb_message(m, s->msg, sizeof s->msg);
        *flags |= APP_RUN;
        return 1;
    }
    if (comb_leaves(a, typed) && cv->mode != COMB_WEIGHTS) { /* the plain weights first */
        comb_set(cv, s, COMB_WEIGHTS);
        *flags |= APP_RUN;
    }
    return 0;
}
