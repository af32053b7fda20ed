/* modelfile.h - a trained model folder (DESIGN.md "A trained model folder"):
 * its settings (model.json), its tensors (.npy files) and their layout in one
 * float arena.
 *
 * The layout table is the one statement of which tensors a model has, in
 * which order and of which shape: the trainer carves its parameter, gradient
 * and AdamW arenas with it, and save/load walk it to name the files. Shapes
 * use DESIGN.md's letters: V vocabulary, D d_model, T context, W MLP width.
 * Order: embed (V,D); pe (T,D) when learned; per layer N = 1..L: ln1_g ln1_b
 * (D) when layernorm, Wq Wk Wv Wo (D,D), ln2_g ln2_b (D) when layernorm and
 * mlp, W1 (D,W) b1 (W) W2 (W,D) b2 (D) when mlp; ln_f_g ln_f_b (D) when
 * layernorm; unembed (D,V).
 */
#ifndef ATTNVIZ_MODELFILE_H
#define ATTNVIZ_MODELFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/av.h"

typedef enum { MODEL_PE_SINUSOIDAL, MODEL_PE_LEARNED, MODEL_PE_NONE } ModelPe;
typedef enum { MODEL_ACT_GELU, MODEL_ACT_RELU } ModelAct;
typedef enum { MODEL_TOK_CHARS, MODEL_TOK_WORDS } ModelTok;

#define MODEL_MAX_VOCAB 65536
#define MODEL_MAX_CONTEXT 4096
#define MODEL_MAX_MLP 16384
#define MODEL_NAME_MAX 24
/* embed, pe, unembed, ln_f x2, and at most 14 a layer, for as many layers as
 * modelfile_check lets through (it was 12 layers while the check allowed
 * AV_MAX_LAYERS: a 26-layer model.json overran the layout, found by
 * fuzz_model) */
#define MODEL_MAX_TENSORS (5 + 14 * AV_MAX_LAYERS)

/* A model's settings: model.json without the tensors. */
typedef struct {
    char task[64]; /* "induction", "text", ... (free text, no quote or backslash) */
    ModelTok tokenizer;
    int V;        /* vocabulary size */
    char **vocab; /* V NUL-terminated UTF-8 strings, owned (modelfile_spec_free) */
    int d_model, heads, layers, context;
    ModelPe pe;
    bool layernorm; /* "pre" LayerNorm, eps 1e-5 */
    int mlp;        /* MLP width W, 0 = no MLP */
    ModelAct activation;
    long steps;
    uint64_t seed;
} ModelSpec;

/* One tensor of the layout: its file name without ".npy" ("layer2/Wq"). */
typedef struct {
    char name[MODEL_NAME_MAX];
    int ndim; /* 1 or 2 */
    size_t shape[2];
    size_t offset; /* first float in the arena */
    size_t count;
} ModelTensor;

typedef struct {
    int n;
    ModelTensor t[MODEL_MAX_TENSORS];
    size_t total; /* floats in the arena */
} ModelLayout;

/* Whether the settings are usable: sizes positive and within the limits
 * (AV_MAX_LAYERS, AV_MAX_D_MODEL_OWN, AV_MAX_HEADS, MODEL_MAX_*), heads divides
 * d_model, V == the number of vocab strings, each non-empty and distinct.
 * Returns AV_OK or AV_ERR_MODEL. */
int modelfile_check(const ModelSpec *s);

/* Fill lay from s (which must pass modelfile_check). */
void modelfile_layout(const ModelSpec *s, ModelLayout *lay);

/* The tensor called name in lay, or NULL. */
const ModelTensor *modelfile_find(const ModelLayout *lay, const char *name);

/* model.json's text for s, malloc'd and NUL-terminated (NULL when out of
 * memory). Strings are JSON-escaped; non-ASCII is written as UTF-8. */
char *modelfile_json(const ModelSpec *s);

/* Parse model.json's text into *s (owned strings; free with modelfile_spec_free).
 * Returns AV_OK, AV_ERR_NOMEM, or AV_ERR_MODEL with a reason in why[0..whylen). */
int modelfile_parse_json(const char *text, size_t len, ModelSpec *s, char *why, size_t whylen);

/* Write the folder dir whole: model.json, every tensor of the layout taken
 * from params (lay.total floats), and heads.txt when heads_txt is not NULL,
 * into a sibling folder that then replaces dir in one step (io/dirswap.h), so
 * that dir holds the previous model or the new one, never a mix, whenever the
 * program is stopped. A dir that holds anything but a model folder's files is
 * refused (modelfile_save_check). Returns AV_OK, AV_ERR_IO (errno set;
 * which[0..whichlen) names the file within dir, or is "" for dir itself),
 * AV_ERR_NOMEM or AV_ERR_MODEL (s fails modelfile_check). */
int modelfile_save(const char *dir, const ModelSpec *s, const float *params, const char *heads_txt,
                   char *which, size_t whichlen);

/* Whether a save may replace dir: AV_OK when dir is missing or holds only a
 * model folder's files (model.json, heads.txt, .npy tensors, layerN folders
 * of tensors); AV_ERR_IO with errno ENOTDIR (dir is a file) or ENOTEMPTY
 * (which names the first other entry, e.g. "notes.txt" or "layer1/x.txt"),
 * or the error of reading dir. */
int modelfile_save_check(const char *dir, char *which, size_t whichlen);

/* Read the folder dir: *s from model.json and *params (malloc'd, lay.total
 * floats, owned by the caller) from the tensors. Returns AV_OK, AV_ERR_NOMEM,
 * or AV_ERR_MODEL with one line in why naming the file and what is wrong
 * (missing, unreadable, not .npy, wrong shape, non-finite). On error *s and
 * *params are left empty. */
int modelfile_load(const char *dir, ModelSpec *s, float **params, char *why, size_t whylen);

/* Free the vocabulary and zero *s; accepts a zeroed spec. */
void modelfile_spec_free(ModelSpec *s);

/* Copy src into *dst (a deep copy of the vocabulary). AV_OK or AV_ERR_NOMEM. */
int modelfile_spec_copy(ModelSpec *dst, const ModelSpec *src);

#endif
