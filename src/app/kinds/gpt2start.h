/* gpt2start.h - the text a GPT-2 folder that attnviz trained opens on
 * (gpt2start.c), for kind_gpt2.c. Private to src/app/kinds/.
 */
#ifndef ATTNVIZ_GPT2START_H
#define ATTNVIZ_GPT2START_H

#include "core/bpe.h"
#include "core/gpt2.h"
#include "io/hfmodel.h"

/* For a model whose config.json names the task it was trained on
 * (origin->task, written by `attnviz train --format hf`): a sequence of that
 * task, the one attnviz's own folder of the same model opens on (the batch
 * of origin->seed at step 0, cut to the context); else, as for that folder,
 * "the cat sat on the mat" when the model can read it; else its first few
 * printable tokens. A text is taken only when it is cfg->n_ctx tokens or
 * fewer, each one the model has a row for. Returns it malloc'd, or NULL
 * when memory runs out. */
char *gpt2start_text(const Bpe *bpe, const Gpt2Config *cfg, const HfOrigin *origin);

#endif
