/* hfweights.h - a Hugging Face checkpoint's weights by name (hfweights.c):
 * the files that hold them (model.safetensors, or the shards that
 * model.safetensors.index.json lists), and a table of wanted tensors found,
 * checked (dtype, shape) and read as float32. Shared by every model kind's
 * reader (hfmodel.c for GPT-2, hfbert.c for BERT), which owns its table.
 *
 * F32 data is used in place when it is 4-byte aligned, copied when not or
 * when the reader wants a matrix's columns laid as two panels; F16 and
 * BF16 are converted on load; either way the map's pages are dropped
 * from resident memory behind the copy. Every value is checked finite.
 * Nothing prints: a failure is an AV_ERR_* code and one line in why naming
 * the file and the tensor.
 */
#ifndef ATTNVIZ_HFWEIGHTS_H
#define ATTNVIZ_HFWEIGHTS_H

#include <stdbool.h>
#include <stddef.h>

#include "io/safetensors.h"

/* Loading progress: fraction of the bytes read so far (0..1) and what is being
 * read (a tensor's name, or a file's), valid during the call only. */
typedef void (*HfProgress)(void *ctx, double fraction, const char *what);

/* One tensor a reader wants: its full name in the file (and another name
 * tried when that one is absent, or ""), its shape (cols 0: a vector of
 * rows), where its columns split into two panels (split > 0: columns
 * [0, split) of every row, then the rest, each panel row after row, as
 * core/gpt2.h's panels lie), the pointer it fills; hfweights_find sets f
 * and t. */
typedef struct {
    char name[96], alt[96];
    int rows, cols;
    int split; /* 0: row after row, as in the file */
    const float **dst;
    bool optional; /* absent: *dst stays NULL, no error */
    const StFile *f;
    const StTensor *t;
} HfWant;

typedef struct {
    StFile *shard; /* n_shards files, malloc'd */
    int n_shards;
    float *arena;        /* the tensors copied or converted */
    size_t n_params;     /* floats read */
    size_t copied_bytes; /* bytes of weights copied into the arena */
    float limit;         /* a weight's largest magnitude (hfweights_limit); 0: FLT_MAX */
} HfWeights;

/* The largest magnitude of a weight, bias or layer norm parameter of a
 * transformer of width d_model with n_head heads whose attention reads
 * layer-normed rows (GPT-2, BERT) below which no score can leave float32:
 * with every parameter at most m, a row after the norm is at most
 * m (sqrt(d_model) + 1), Q and K at most d_model m^2 (sqrt(d_model) + 1) + m,
 * a score sqrt(d_k) times the square of that; 1/16 of FLT_MAX is left for
 * the sums beside them. About 8.6e6 for gpt2, whose weights are below 10. */
float hfweights_limit(int d_model, int n_head);

/* Open dir's model.safetensors, or the shards its index lists. A folder
 * with only pytorch_model.bin is refused with a line that says to convert
 * it. Returns AV_OK, AV_ERR_IO (errno set), AV_ERR_MODEL or AV_ERR_NOMEM;
 * on error *hw is zeroed. */
int hfweights_open(const char *dir, HfWeights *hw, char *why, size_t whylen);

/* The tensor called name in the shards (and its file into *f), or NULL. */
const StTensor *hfweights_lookup(const HfWeights *hw, const char *name, const StFile **f);

/* Find w (name, else alt) in the shards, in one only, and check its dtype
 * (F32, F16, BF16) and shape. Returns AV_OK (w->t NULL when optional and
 * absent) or AV_ERR_MODEL. */
int hfweights_find(const HfWeights *hw, HfWant *w, char *why, size_t whylen);

/* Find each of w[0..n), size the arena for those that must be copied, then
 * read each one (in place or converted) into *dst, checking its values
 * (finite, and at most hw->limit in magnitude);
 * progress (may be NULL) after each tensor with the bytes done so far.
 * Returns AV_OK, AV_ERR_MODEL or AV_ERR_NOMEM. */
int hfweights_load(HfWeights *hw, HfWant *w, int n, HfProgress progress, void *ctx, char *why,
                   size_t whylen);

/* "(2, 3)" or "(4,)": t's shape for a message. */
void hfweights_shape_text(char *buf, size_t size, const StTensor *t);

/* Unmap and free; accepts a zeroed or closed HfWeights, and leaves it zeroed. */
void hfweights_close(HfWeights *hw);

#endif
