/* dump.c - --dump DIR: every intermediate tensor as a .npy file, for NumPy.
 *
 * tokens.txt, X.npy (after PE), Q.npy, K.npy, V.npy, scores.npy (H, n, n;
 * scaled, masked = -inf), weights.npy (H, n, n), output.npy (n, d_model) and
 * heads.txt. With more than one layer, layerN/ holds each layer's files and
 * the top-level ones are layer 1's, output.npy the last layer's output. Each
 * file is written atomically (npy_write, file_write_atomic).
 */
#include "io/dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/fileio.h"
#include "io/npy.h"

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            return AV_OK;
        errno = ENOTDIR;
    }
    return AV_ERR_IO;
}

static int write_npy(const char *dir, const char *name, int ndim, size_t d0, size_t d1,
                     size_t d2, const float *data, const char **which)
{
    char path[4096];
    size_t shape[3] = {d0, d1, d2};
    *which = name;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return AV_ERR_IO;
    }
    return npy_write(path, ndim, shape, data);
}

/* The tokens one a line, or with t NULL the label of each head. */
static int write_lines(const char *dir, const char *name, const TokenList *t,
                       const ModelConfig *c, const char **which)
{
    char path[4096];
    MemFile m;
    *which = name;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (memfile_open(&m))
        return AV_ERR_NOMEM;
    int count = t ? t->n : c->H;
    for (int k = 0; k < count; k++)
        fprintf(m.f, "%s\n", t ? t->tok[k].str : model_head_label(c, 0, k));
    int err = memfile_close(&m);
    if (!err)
        err = file_write_atomic(path, m.buf, m.len, false);
    memfile_free(&m);
    return err;
}

/* One layer's Q, K, V, scores, weights into dir. */
static int dump_layer(const char *dir, const ModelResult *r, int l, const char **which)
{
    const AttnShape *s = &r->shape;
    const AttnBuffers *b = &r->layer[l].ab;
    size_t n_q = (size_t)s->n_q, n_k = (size_t)s->n_k, d = (size_t)s->d_model;
    int err = write_npy(dir, "Q.npy", 2, n_q, d, 0, b->Q, which);
    if (!err)
        err = write_npy(dir, "K.npy", 2, n_k, d, 0, b->K, which);
    if (!err)
        err = write_npy(dir, "V.npy", 2, n_k, d, 0, b->V, which);
    if (!err && b->S)
        err = write_npy(dir, "scores.npy", 3, (size_t)s->H, n_q, n_k, b->S, which);
    if (!err)
        err = write_npy(dir, "weights.npy", 3, (size_t)s->H, n_q, n_k, b->P, which);
    if (!err && r->L > 1)
        err = write_npy(dir, "layer_output.npy", 2, n_q, d, 0, r->layer[l].x_out, which);
    return err;
}

int dump_write(const char *dir, const ModelResult *r, const ModelConfig *c, const char **which)
{
    const AttnShape *s = &r->shape;
    *which = NULL; /* the folder itself */
    int err = make_dir(dir);
    if (!err)
        err = write_lines(dir, "tokens.txt", &r->tokens, c, which);
    if (!err && r->cross_tokens.n)
        err = write_lines(dir, "key_tokens.txt", &r->cross_tokens, c, which);
    if (!err)
        err = write_lines(dir, "heads.txt", NULL, c, which);
    if (!err)
        err = write_npy(dir, "X.npy", 2, (size_t)s->n_q, (size_t)s->d_model, 0, r->X, which);
    if (!err)
        err = dump_layer(dir, r, 0, which);
    if (!err)
        err = write_npy(dir, "output.npy", 2, (size_t)s->n_q, (size_t)s->d_model, 0, r->out,
                        which);
    for (int l = 0; l < r->L && r->L > 1 && !err; l++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/layer%d", dir, l + 1);
        *which = NULL;
        err = make_dir(sub);
        if (!err)
            err = dump_layer(sub, r, l, which);
    }
    return err;
}
