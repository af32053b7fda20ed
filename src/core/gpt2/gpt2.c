/* gpt2.c - the check of GPT-2's sizes (core/gpt2.h has the maths; the
 * state and the forward pass are fast/gpt2/gpt2_forward.c's, the logits
 * and a generation step gpt2_logits.c's, the choice of a token
 * core/sample.c's). No global state.
 */
#include "core/gpt2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gpt2_check(const Gpt2Weights *w)
{
    const Gpt2Config *c = &w->cfg;
    if (c->n_vocab < 1 || c->n_ctx < 1 || c->n_ctx > AV_MAX_TOKENS || c->d_model < 1 ||
        c->d_model > AV_MAX_D_MODEL || c->n_head < 1 || c->n_head > AV_MAX_HEADS ||
        c->d_model % c->n_head != 0 || c->n_layer < 1 || c->n_layer > AV_MAX_LAYERS ||
        c->d_ff < 1 || !(c->ln_eps > 0.0f) || !isfinite(c->ln_eps))
        return AV_ERR_CONFIG;
    if (!w->wte || !w->wpe || !w->lnf_g || !w->lnf_b || !w->lm_head)
        return AV_ERR_CONFIG;
    for (int l = 0; l < c->n_layer; l++) {
        const Gpt2Layer *y = &w->layer[l];
        const float *p[] = {y->ln1_g, y->ln1_b, y->attn_w, y->attn_b, y->proj_w,   y->proj_b,
                            y->ln2_g, y->ln2_b, y->fc_w,   y->fc_b,   y->fcproj_w, y->fcproj_b};
        for (size_t k = 0; k < sizeof p / sizeof *p; k++)
            if (!p[k])
                return AV_ERR_CONFIG;
    }
    return AV_OK;
}
