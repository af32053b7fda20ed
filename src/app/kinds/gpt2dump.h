/* gpt2dump.h - DESIGN.md's --dump of a GPT-2 model (gpt2dump.c), for
 * kind_gpt2.c. Private to src/app/kinds/.
 */
#ifndef ATTNVIZ_GPT2DUMP_H
#define ATTNVIZ_GPT2DUMP_H

#include "core/bpe.h"
#include "core/gpt2.h"
#include "core/model.h"

/* Into dir: what dump_write writes of r (run with c), norms.npy (through
 * w's output projections), attention.npy (L, H, n, n), rollout.npy,
 * tokens.txt (each token's own text a line, escaped), ids.npy (n,) and
 * logits.npy (V,) of the last position of st, lens_ids.npy and
 * lens_probs.npy (L+1, n, LENS_K). logits holds V floats, overwritten.
 * Returns AV_OK or an error, the file it was writing in *which. */
int gpt2dump_write(const char *dir, const ModelResult *r, const ModelConfig *c,
                   const Gpt2Weights *w, const Bpe *bpe, Gpt2State *st, float *logits,
                   const char **which);

#endif
