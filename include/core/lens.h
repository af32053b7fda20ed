/* lens.h - the logit lens (DESIGN.md "The logit lens"): for a model that
 * predicts tokens, the residual stream after l blocks (l = 0: the
 * embeddings) at position i, through the final LayerNorm and the
 * unembedding, kept as its top LENS_K tokens and their probabilities.
 *
 * A Lens holds rows = L + 1 layers for n positions, position-major so that
 * it grows with the text without moving a row (as Gpt2State does):
 *
 *   ids   (cap, rows, LENS_K)  [i][l][q]: the q-th most probable token of
 *                              layer l's stream at position i
 *   probs (cap, rows, LENS_K)  its probability under softmax(logits)
 *   tok   (cap)                the token at position i the numbers are of
 *   next  (cap)                the token after it in the text, -1 at the last
 *   rank  (cap, rows)          [i][l]: where next stands in layer l's
 *                              distribution at i, 1-based (0: no next)
 *   nprob (cap, rows)          its probability there
 *
 * Row L is the model's own next-token distribution. A cell's probabilities
 * come from sample_top_k (softmax in double, ties: the smaller id first); a
 * vocabulary smaller than LENS_K leaves id -1 and probability 0 after its
 * last token. The makers of the numbers are the models' own: gpt2_lens
 * (below, in gpt2_logits.c beside the logits) and netlens_run
 * (train/netlens.h). No global state.
 */
#ifndef ATTNVIZ_LENS_H
#define ATTNVIZ_LENS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gpt2.h"

#define LENS_K 10

typedef struct {
    int rows;     /* L + 1 */
    int n;        /* positions held */
    int cap;      /* positions the arrays have room for */
    int *tok;     /* (cap) */
    int *ids;     /* (cap, rows, LENS_K) */
    float *probs; /* (cap, rows, LENS_K) */
    int *next;    /* (cap) */
    int *rank;    /* (cap, rows) */
    float *nprob; /* (cap, rows) */
} Lens;

/* A zeroed lens. */
void lens_init(Lens *ls);

/* Release the arrays; accepts a zeroed lens. Leaves it zeroed. */
void lens_free(Lens *ls);

/* Room for n positions of rows layers, keeping the positions held (up to n)
 * when rows is unchanged; another rows empties the lens (ls->n 0). Returns
 * AV_OK, AV_ERR_CONFIG (rows or n below 1) or AV_ERR_NOMEM. */
int lens_reserve(Lens *ls, int rows, int n);

/* dst made a copy of src's positions (its arrays grown as needed).
 * Returns AV_OK, or AV_ERR_NOMEM (dst->n is then 0). */
int lens_copy(Lens *dst, const Lens *src);

/* Offset of cell (l, i) in ids and probs. */
static inline size_t lens_at(const Lens *ls, int l, int i)
{
    return ((size_t)i * ls->rows + l) * LENS_K;
}

/* Cell (l, i) from that stream's logits (V): its top LENS_K under the
 * model's own softmax (sample_top_k at temperature 1). */
void lens_set(Lens *ls, int l, int i, const float *logits, int V);

/* Where token next (-1: none, the last position) stands in cell (l, i)
 * from the same logits as lens_set: its rank and probability
 * (sample_rank), or 0 and 0 without one. The makers call it for every cell
 * with the token that follows position i in their text. */
void lens_set_next(Lens *ls, int l, int i, const float *logits, int V, int next);

/* The numbers in DESIGN.md's order, (rows, n, LENS_K), into ids and probs
 * (rows n LENS_K each): what --dump writes. */
void lens_gather(const Lens *ls, int32_t *ids, float *probs);

/* ------------------------------------------------------------------ GPT-2 */

/* GPT-2's lens (core/gpt2.h) of st's positions into ls (L + 1 rows, st->n
 * positions), logits (V floats) the caller's scratch. Call it after
 * gpt2_forward: rows of the
 * positions before st->from whose tokens ls holds are kept (their residual
 * streams are the cache's, the same bits), the rest computed, (L + 1)
 * unembeddings a position, lm_head read once for every few of them (each
 * cell's bits those of gpt2_lens_logits); so a key typed at the end costs
 * one position's.
 * When the weights change, set ls->n to 0 as for the state. stop (NULL:
 * none) is read between batches of cells: once true, the lens ends there,
 * ls->n the positions whose rows are all done (a later call keeps them as
 * it keeps a cached run's). Returns AV_OK, AV_ERR_CONFIG (st holds no
 * positions, or another model's), AV_ERR_NOMEM (ls->n is then 0) or
 * AV_ERR_STOPPED. */
int gpt2_lens(const Gpt2Weights *w, const Gpt2State *st, Lens *ls, float *logits,
              const atomic_bool *stop);

#endif
