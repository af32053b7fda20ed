/* weights.c - model weights read from a folder of .npy files (--weights DIR).
 *
 * DIR/Wq.npy, Wk.npy, Wv.npy, Wo.npy must each be (d_model, d_model); they are
 * the first layer's. DIR/X.npy, when present, is (n, d_model) and replaces the
 * toy embeddings of the query sentence. Deeper layers (--layers N > 1) and the
 * feed-forward weights keep their toy values from the seed.
 */
#include "io/weights.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/npy.h"

static int load_matrix(const char *dir, const char *name, int rows, int cols, float *dst)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return AV_ERR_IO;
    }
    NpyArray a = {0};
    int err = npy_read(path, &a);
    if (err)
        return err;
    if (a.ndim != 2 || a.shape[0] != (size_t)rows || (cols && a.shape[1] != (size_t)cols))
        err = AV_ERR_NPY_SHAPE;
    else
        memcpy(dst, a.data, a.count * sizeof *dst);
    npy_free(&a);
    return err;
}

/* X.npy: any number of rows, d_model columns; absent is fine. */
static int load_x(const char *dir, int d, ModelWeights *w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/X.npy", dir);
    if (access(path, F_OK) != 0)
        return AV_OK;
    NpyArray a = {0};
    int err = npy_read(path, &a);
    if (err)
        return err;
    if (a.ndim != 2 || a.shape[1] != (size_t)d || a.shape[0] < 1 || a.shape[0] > AV_MAX_TOKENS) {
        npy_free(&a);
        return AV_ERR_NPY_SHAPE;
    }
    w->X = a.data; /* ownership moves to w */
    w->n_x = (int)a.shape[0];
    return AV_OK;
}

int weights_load(const ModelConfig *c, const char *dir, ModelWeights *w, const char **which)
{
    static const char *const names[4] = {"Wq.npy", "Wk.npy", "Wv.npy", "Wo.npy"};
    int d = c->d_model;
    int err = model_weights_toy(c, w);
    if (err)
        return err;
    float *dst[4] = {w->layer[0].Wq, w->layer[0].Wk, w->layer[0].Wv, w->layer[0].Wo};
    for (int k = 0; k < 4 && !err; k++) {
        *which = names[k];
        err = load_matrix(dir, names[k], d, d, dst[k]);
    }
    if (!err) {
        *which = "X.npy";
        err = load_x(dir, d, w);
    }
    if (err)
        model_weights_free(w);
    else
        model_weights_measure(w); /* layer 0 is the folder's now */
    return err;
}
