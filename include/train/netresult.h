/* netresult.h - a saved trained model (--model DIR) as a ModelResult, so every
 * view, export, trace and --dump that reads core/model.h's result draws it;
 * and generation, the articles' decoder, one token at a time.
 *
 * A NetModel is the loaded Net (infer.h), its heads' labels (heads.txt in the
 * folder, written by the trainer; measured with scores.h when it is missing)
 * and the ModelConfig the views read: the Net's sizes, causal, scaled,
 * temperature 1, preset PRESET_TRAINED, cfg.head_labels pointing into the
 * NetModel (so a copy of cfg is valid while the NetModel lives and does not
 * move).
 *
 * The result of a text of n tokens (at most the model's context T; a longer
 * text shows its last T tokens, the window the model attends over):
 * tokens are the model's pieces (chars: one code point each; words: runs
 * between whitespace) with their spans in the text and a visible copy (a space
 * is "␣", a newline "↵", a tab "⇥", another control character "^X"); X is
 * layer 1's input (embed + PE); per layer Q, K, V are the attention's
 * projections (of LN1(x) with LayerNorm), P the weights (bit for bit the
 * Net's), S the scaled masked scores when cfg.keep_scores, concat, out =
 * concat W_o, and x_out the residual stream after the layer (after the MLP
 * when there is one, before the final LayerNorm); r->out is the last x_out.
 */
#ifndef ATTNVIZ_NETRESULT_H
#define ATTNVIZ_NETRESULT_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "train/net.h"

#define NETRESULT_LABEL_MAX 48

typedef struct {
    Net net;
    ModelConfig cfg; /* what the views read (see above) */
    char label[AV_MAX_LAYERS * AV_MAX_HEADS][NETRESULT_LABEL_MAX];
    const char *label_ptr[AV_MAX_LAYERS * AV_MAX_HEADS];
    int total;                /* tokens of the last text given to netresult_run */
    int first;                /* the first of them the result shows (total - context, or 0) */
    float sample_temperature; /* the interface's generation (g): --temperature (1 when */
    int sample_top_k;         /* opened) and --top-k (0: all), netresult_generate's */
} NetModel;

/* Load the model folder dir into *m (which may be uninitialised): the Net, the
 * labels, m->cfg, sample_temperature 1 and sample_top_k 0. Returns AV_OK,
 * AV_ERR_NOMEM, or AV_ERR_MODEL with one line in why naming the file at
 * fault (a heads.txt that is unreadable or does not list every head is an
 * error; a missing one is measured). */
int netresult_open(NetModel *m, const char *dir, char *why, size_t whylen);

/* Free what netresult_open made; accepts a zeroed NetModel. */
void netresult_close(NetModel *m);

/* Whether the model generates text a reader can continue: a "text" or
 * "grammar" model. */
bool netresult_generates(const NetModel *m);

/* Run the model on text[0..len) into r (zeroed before the first call, reused
 * after). c gives the layout: normally m->cfg, with keep_scores and
 * weights_budget as the caller wants; its sizes must be m->cfg's. Returns
 * AV_OK, AV_ERR_VOCAB (the piece outside the vocabulary in bad[0..badlen)),
 * AV_ERR_UTF8, AV_ERR_EMPTY, AV_ERR_CONFIG, AV_ERR_TOO_LARGE or AV_ERR_NOMEM;
 * on error r->shape.n_q is 0. m->total and m->first say which tokens r shows. */
int netresult_run(NetModel *m, const ModelConfig *c, const char *text, size_t len, ModelResult *r,
                  char *bad, size_t badlen);

/* Run the model on the token ids ids[0..n) (n at most the context) into r as
 * netresult_run does, its tokens the ids written as the model's pieces (the
 * head scores' probe sequences). Returns AV_OK, AV_ERR_CONFIG (an id out of
 * range, n out of 1..context, other sizes than m->cfg's) or AV_ERR_NOMEM. */
int netresult_run_ids(NetModel *m, const ModelConfig *c, const int *ids, int n, ModelResult *r);

/* Continue text[0..len) by count tokens sampled with temperature (0: the most
 * likely token) and top_k (0: all) from a stream seeded by seed (the same
 * arguments, the same tokens). *out (malloc'd, NUL-terminated, the caller
 * frees it) is the whole sequence written in the model's pieces (chars: the
 * text as it was; words: one space between words) and *cont the byte offset
 * in *out where the continuation starts (after the separating space).
 * Returns AV_OK or what netresult_run returns (bad as there). */
int netresult_generate(NetModel *m, const char *text, size_t len, int count, float temperature,
                       int top_k, uint64_t seed, char **out, size_t *cont, char *bad,
                       size_t badlen);

#endif
