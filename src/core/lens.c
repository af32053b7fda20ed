/* lens.c - the logit lens's table of top tokens (core/lens.h). No global
 * state.
 */
#include "core/lens.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/gpt2.h"
#include "core/sample.h"

void lens_init(Lens *ls)
{
    memset(ls, 0, sizeof *ls);
}

void lens_free(Lens *ls)
{
    free(ls->tok), free(ls->ids), free(ls->probs);
    free(ls->next), free(ls->rank), free(ls->nprob);
    memset(ls, 0, sizeof *ls);
}

int lens_reserve(Lens *ls, int rows, int n)
{
    if (rows < 1 || n < 1)
        return AV_ERR_CONFIG;
    if (rows != ls->rows) {
        lens_free(ls);
        ls->rows = rows;
    }
    if (n > ls->cap) {
        int cap = ls->cap * 2 > n ? ls->cap * 2 : n;
        size_t cells = (size_t)cap * rows * LENS_K;
        int *tok = realloc(ls->tok, (size_t)cap * sizeof *tok);
        if (tok)
            ls->tok = tok;
        int *ids = tok ? realloc(ls->ids, cells * sizeof *ids) : NULL;
        if (ids)
            ls->ids = ids;
        float *probs = ids ? realloc(ls->probs, cells * sizeof *probs) : NULL;
        if (probs)
            ls->probs = probs;
        int *next = probs ? realloc(ls->next, (size_t)cap * sizeof *next) : NULL;
        if (next)
            ls->next = next;
        int *rank = next ? realloc(ls->rank, (size_t)cap * rows * sizeof *rank) : NULL;
        if (rank)
            ls->rank = rank;
        float *nprob = rank ? realloc(ls->nprob, (size_t)cap * rows * sizeof *nprob) : NULL;
        if (!nprob)
            return AV_ERR_NOMEM;
        ls->nprob = nprob, ls->cap = cap;
    }
    if (ls->n > n)
        ls->n = n;
    return AV_OK;
}

int lens_copy(Lens *dst, const Lens *src)
{
    if (src->n < 1 || src->rows < 1) {
        dst->n = 0;
        return AV_OK;
    }
    if (lens_reserve(dst, src->rows, src->n) != AV_OK) {
        dst->n = 0;
        return AV_ERR_NOMEM;
    }
    const size_t n = (size_t)src->n, cells = n * src->rows;
    memcpy(dst->tok, src->tok, n * sizeof *dst->tok);
    memcpy(dst->next, src->next, n * sizeof *dst->next);
    memcpy(dst->ids, src->ids, cells * LENS_K * sizeof *dst->ids);
    memcpy(dst->probs, src->probs, cells * LENS_K * sizeof *dst->probs);
    memcpy(dst->rank, src->rank, cells * sizeof *dst->rank);
    memcpy(dst->nprob, src->nprob, cells * sizeof *dst->nprob);
    dst->n = src->n;
    return AV_OK;
}

void lens_set(Lens *ls, int l, int i, const float *logits, int V)
{
    int *ids = ls->ids + lens_at(ls, l, i);
    float *probs = ls->probs + lens_at(ls, l, i);
    int count = sample_top_k(logits, V, 1.0f, LENS_K, ids, probs);
    for (int q = count; q < LENS_K; q++)
        ids[q] = -1, probs[q] = 0.0f;
}

void lens_set_next(Lens *ls, int l, int i, const float *logits, int V, int next)
{
    const size_t at = (size_t)i * ls->rows + l;
    ls->next[i] = next >= 0 && next < V ? next : -1;
    ls->rank[at] = 0, ls->nprob[at] = 0.0f;
    if (ls->next[i] >= 0)
        ls->rank[at] = sample_rank(logits, V, next, &ls->nprob[at]);
}

void lens_gather(const Lens *ls, int32_t *ids, float *probs)
{
    for (int l = 0; l < ls->rows; l++)
        for (int i = 0; i < ls->n; i++) {
            size_t to = ((size_t)l * ls->n + i) * LENS_K, from = lens_at(ls, l, i);
            for (int q = 0; q < LENS_K; q++)
                ids[to + q] = ls->ids[from + q], probs[to + q] = ls->probs[from + q];
        }
}
