/* bert.c - a BERT-family encoder's check of its sizes and its state
 * (core/bert.h has the maths: the forward is src/core/fast/bert_forward.c,
 * its plain oracle bert_ref.c, the views' result bert_result.c). No global
 * state.
 */
#include "core/bert.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int bert_check(const BertWeights *w)
{
    const BertConfig *c = &w->cfg;
    if (c->n_vocab < 1 || c->n_pos < 1 || c->n_pos > AV_MAX_TOKENS || c->n_types < 0 ||
        c->d_model < 1 || c->d_model > AV_MAX_D_MODEL || c->n_head < 1 ||
        c->n_head > AV_MAX_HEADS || c->d_model % c->n_head != 0 || c->n_layer < 1 ||
        c->n_layer > AV_MAX_LAYERS || c->d_ff < 1 || !(c->ln_eps > 0.0f) || !isfinite(c->ln_eps))
        return AV_ERR_CONFIG;
    if (!w->word || !w->pos || !w->emb_ln_g || !w->emb_ln_b || (c->n_types > 0) != !!w->type)
        return AV_ERR_CONFIG;
    for (int l = 0; l < c->n_layer; l++) {
        const BertLayer *y = &w->layer[l];
        const float *p[] = {y->q_w,   y->q_b,   y->k_w,   y->k_b,   y->v_w,  y->v_b,
                            y->o_w,   y->o_b,   y->ln1_g, y->ln1_b, y->fc_w, y->fc_b,
                            y->out_w, y->out_b, y->ln2_g, y->ln2_b};
        for (size_t k = 0; k < sizeof p / sizeof *p; k++)
            if (!p[k])
                return AV_ERR_CONFIG;
    }
    const float *m[] = {w->mlm_w, w->mlm_b, w->mlm_ln_g, w->mlm_ln_b, w->decoder, w->mlm_bias};
    int have = 0;
    for (size_t k = 0; k < sizeof m / sizeof *m; k++)
        have += m[k] != NULL;
    return have == 0 || have == (int)(sizeof m / sizeof *m) ? AV_OK : AV_ERR_CONFIG;
}

bool bert_has_mlm(const BertWeights *w)
{
    return w->decoder != NULL;
}

void bert_state_free(BertState *st)
{
    free(st->ids), free(st->types), free(st->x), free(st->q), free(st->k), free(st->v);
    free(st->P), free(st->concat), free(st->attn), free(st->work);
    memset(st, 0, sizeof *st);
}
