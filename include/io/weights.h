/* weights.h - first-layer weights read from a folder of .npy files (--weights).
 */
#ifndef ATTNVIZ_WEIGHTS_H
#define ATTNVIZ_WEIGHTS_H

#include "core/model.h"

/* Weights from DIR/Wq.npy Wk.npy Wv.npy Wo.npy, each (d_model, d_model), and
 * DIR/X.npy when present. Deeper layers and the FFN weights come from the
 * seed (model_weights_toy). Returns AV_OK or an AV_ERR_* code (AV_ERR_IO,
 * AV_ERR_NPY_*, AV_ERR_NOMEM); *which names the file at fault. On error w
 * holds nothing to free beyond what model_weights_free accepts. */
int weights_load(const ModelConfig *c, const char *dir, ModelWeights *w, const char **which);

#endif
