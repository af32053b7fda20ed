/* dump.h - --dump DIR: every intermediate tensor of a run as .npy files, and
 * the combined views (attention.npy, rollout.npy, norms.npy) of issue 14,
 * also for imported attention.
 *
 * Files are written one by one, each atomically (a temporary file renamed),
 * so a failed dump leaves whole files and no partial one. The (L, H, n_q,
 * n_k) arrays are streamed row by row to their temporary file, so a dump
 * never holds a second copy of the weights.
 */
#ifndef ATTNVIZ_DUMP_H
#define ATTNVIZ_DUMP_H

#include "core/combine.h"
#include "core/lens.h"
#include "core/model.h"
#include "io/attnimport.h"

/* Write tokens.txt, X.npy (after PE), Q.npy, K.npy, V.npy, scores.npy
 * (H, n, n), weights.npy (H, n, n), output.npy (n, d_model), heads.txt; with
 * L > 1 also layerN/ with each layer's files and its heads.txt; then attention.npy (L, H, n_q,
 * n_k: every layer's weights, bit for bit) and, for self-attention,
 * rollout.npy (n, n) after all layers. The folder is created when missing.
 * Returns AV_OK, AV_ERR_IO (*which names the file at fault, or is NULL when
 * a folder could not be made), AV_ERR_NOMEM (*which names the file),
 * AV_ERR_TOO_LARGE when the result did not keep its scores (a text past the
 * memory budget) or AV_ERR_NEEDS_MODEL (*which NULL, nothing written) when
 * it has no output (a weights_only run). */
int dump_write(const char *dir, const ModelResult *r, const ModelConfig *c, const char **which);

/* norms.npy (L, H, n_q, n_k): value-weighted norms ||alpha_hij V_j,h W_O,h||
 * (combine.h) of every layer, from r's weights and V and Wo[l], layer l's
 * W_O (d_model, d_model), for l < r->L (toy weights: w->layer[l].Wo; a
 * trained model's own). For attnviz's own models, after dump_write.
 * Returns AV_OK, AV_ERR_IO or AV_ERR_NOMEM (*which is "norms.npy"). */
int dump_write_norms(const char *dir, const ModelResult *r, const float *const *Wo,
                     const char **which);

/* lens_ids.npy (L+1, n, K) int32 and lens_probs.npy (L+1, n, K) float32
 * of ls (core/lens.h, K = LENS_K): DESIGN.md "The logit lens", for a model
 * that predicts tokens. Returns AV_OK, AV_ERR_IO or AV_ERR_NOMEM (*which
 * names the file). */
int dump_write_lens(const char *dir, const Lens *ls, const char **which);

/* dump_write, then dump_write_norms: --dump of attnviz's own models. */
int dump_write_model(const char *dir, const ModelResult *r, const ModelConfig *c,
                     const ModelWeights *w, const char **which);

/* --dump of imported attention (no vectors): attention.npy (L, H, n_q, n_k
 * float32, bit for bit the file's float32 values or its float64 values
 * rounded to float32), tokens.txt, key_tokens.txt for cross-attention, and
 * rollout.npy (n, n) when n_q == n_k. Reads the map layer by layer and drops
 * each layer's pages after it. Returns as dump_write. */
int dump_write_import(const char *dir, const AttnImport *im, const char **which);

/* Any AttnSource as one (L, H, n_q, n_k) float32 .npy file at path, streamed
 * row by row and written atomically; the source's release is called after
 * each layer. Returns AV_OK, AV_ERR_IO (errno set) or AV_ERR_NOMEM. */
int dump_source_npy(const char *path, const AttnSource *src);

/* Whether a dump may replace dir: AV_OK when dir is missing, empty, or holds
 * only what a dump writes (its .npy arrays, tokens.txt, key_tokens.txt,
 * heads.txt, layerN/ folders of these, a killed write's temporary files),
 * so that an earlier dump is replaced whole. Else AV_ERR_IO: errno ENOTDIR
 * (dir is not a folder), ENOTEMPTY with the first other entry in which
 * ("notes.md", "layer2/model.json"), or what opening it failed with. */
int dump_check_folder(const char *dir, char *which, size_t whichlen);

#endif
