/* modelrun.h - the one place that chooses between attnviz's own pipeline
 * (core/model.h: toy, designed or --weights) and a saved trained model
 * (train/netresult.h, --model DIR), for the batch run and the interface alike.
 */
#ifndef ATTNVIZ_MODELRUN_H
#define ATTNVIZ_MODELRUN_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "train/netresult.h"

typedef struct {
    const ModelWeights *w;  /* attnviz's own weights (toy or --weights) */
    NetModel *net;          /* a trained model, or NULL: then w runs */
    char bad[64];           /* after AV_ERR_VOCAB: the piece outside the vocabulary */
} ModelSource;

/* Run text[0..len) (and cross[0..cross_len) when cross is not NULL) through
 * the model ms chooses into r: model_run with ms->w, or netresult_run with
 * ms->net (no cross-attention: AV_ERR_CONFIG; the mask is the model's, causal,
 * whatever c says). Returns what they return; after AV_ERR_VOCAB ms->bad
 * holds the piece, made printable (control bytes as '?'). */
int modelrun_run(ModelSource *ms, const ModelConfig *c, const char *text, size_t len,
                 const char *cross, size_t cross_len, ModelResult *r);

/* The next token of text[0..len) from a trained model, sampled with
 * temperature and top_k from seed, appended: *out (malloc'd, the caller
 * frees it) is the text and the token, *cont where the token starts. Returns
 * AV_OK, AV_ERR_CONFIG (no trained model in ms) or what netresult_generate
 * returns (ms->bad as in modelrun_run). */
int modelrun_next(ModelSource *ms, const char *text, size_t len, float temperature, int top_k,
                  uint64_t seed, char **out, size_t *cont);

#endif
