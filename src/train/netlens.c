/* netlens.c - the logit lens of a trained Net (train/netlens.h), with the
 * forward's own operations (train/ops.h). No global state.
 */
#include "train/netlens.h"

#include <stdlib.h>

#include "core/av.h"
#include "train/ops.h"

int netlens_run(const Net *net, Lens *ls)
{
    const ModelSpec *s = &net->spec;
    const int n = net->n, D = s->d_model, V = s->V, L = s->layers;
    if (net->B != 1 || n < 1 || net->has_loss)
        return AV_ERR_CONFIG;
    int err = lens_reserve(ls, L + 1, n);
    float *xf = malloc(sizeof *xf * ((size_t)n * D + 2 * (size_t)n + (size_t)n * V));
    if (err || !xf) {
        free(xf);
        ls->n = 0;
        return AV_ERR_NOMEM;
    }
    float *mean = xf + (size_t)n * D, *rstd = mean + n, *logits = rstd + n;
    for (int l = 0; l <= L; l++) {
        const float *row = net->logits;
        if (l < L) {
            const float *x = net->layer[l].x, *in = x;
            if (s->layernorm) {
                /* (n, D) = LN_f(x_l), as the forward normalises x_L */
                ops_layernorm_forward(xf, mean, rstd, x, net->p.lnf_g, net->p.lnf_b, n, D);
                in = xf;
            }
            /* logits (n, V) = in (n, D) unembed (D, V) */
            ops_linear_forward(logits, in, net->p.unembed, NULL, n, D, V);
            row = logits;
        }
        for (int i = 0; i < n; i++) {
            lens_set(ls, l, i, row + (size_t)i * V, V);
            lens_set_next(ls, l, i, row + (size_t)i * V, V, i + 1 < n ? net->tok[i + 1] : -1);
        }
    }
    for (int i = 0; i < n; i++)
        ls->tok[i] = net->tok[i];
    ls->n = n;
    free(xf);
    return AV_OK;
}
