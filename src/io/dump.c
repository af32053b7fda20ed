/* dump.c - --dump DIR: every intermediate tensor as a .npy file, for NumPy.
 *
 * tokens.txt, X.npy (after PE), Q.npy, K.npy, V.npy, scores.npy (H, n, n;
 * scaled, masked = -inf), weights.npy (H, n, n), output.npy (n, d_model) and
 * heads.txt. With more than one layer, layerN/ holds each layer's files and
 * the top-level ones are layer 1's, output.npy the last layer's output. Each
 * file is written atomically (npy_write, file_write_atomic). The combined
 * views follow: attention.npy (L, H, n_q, n_k), rollout.npy and, with the
 * weights, norms.npy; the (L, H, n_q, n_k) ones are streamed from an
 * AttnSource (combine.h) to a temporary file that is fsync'd and renamed like
 * file_write_atomic's, so neither a 1 GiB result nor a 2.4 GB imported map
 * is ever copied whole. Imported attention dumps the same way.
 */
#include "io/dump.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/dirswap.h"
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

static int write_npy(const char *dir, const char *name, int ndim, size_t d0, size_t d1, size_t d2,
                     const float *data, const char **which)
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

/* The tokens one a line, or with t NULL the label of each head of layer l. */
static int write_lines(const char *dir, const char *name, const TokenList *t, const ModelConfig *c,
                       int l, const char **which)
{
    char path[4096];
    MemFile m;
    *which = name;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (memfile_open(&m))
        return AV_ERR_NOMEM;
    int count = t ? t->n : c->H;
    for (int k = 0; k < count; k++)
        fprintf(m.f, "%s\n", t ? t->tok[k].str : model_head_label(c, l, k));
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

static int dump_tensors(const char *dir, const ModelResult *r, const ModelConfig *c,
                        const char **which)
{
    const AttnShape *s = &r->shape;
    *which = NULL; /* the folder itself */
    if (!r->out)   /* a run of the weights alone (ModelConfig.weights_only) */
        return AV_ERR_NEEDS_MODEL;
    int err = make_dir(dir);
    if (!err)
        err = write_lines(dir, "tokens.txt", &r->tokens, c, 0, which);
    if (!err && r->cross_tokens.n)
        err = write_lines(dir, "key_tokens.txt", &r->cross_tokens, c, 0, which);
    if (!err)
        err = write_lines(dir, "heads.txt", NULL, c, 0, which);
    if (!err)
        err = write_npy(dir, "X.npy", 2, (size_t)s->n_q, (size_t)s->d_model, 0, r->X, which);
    if (!err)
        err = dump_layer(dir, r, 0, which);
    if (!err)
        err = write_npy(dir, "output.npy", 2, (size_t)s->n_q, (size_t)s->d_model, 0, r->out, which);
    for (int l = 0; l < r->L && r->L > 1 && !err; l++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/layer%d", dir, l + 1);
        *which = NULL;
        err = make_dir(sub);
        if (!err)
            err = dump_layer(sub, r, l, which);
        if (!err) /* each layer's own labels: a trained model's heads differ by layer */
            err = write_lines(sub, "heads.txt", NULL, c, l, which);
    }
    return err;
}

/* ---- streamed .npy files and the combined views ---- */

#define STREAM_BUF ((size_t)1 << 20)

/* A temporary file in the target's folder, filled through a buffer. */
typedef struct {
    int fd;
    char *tmp;
    unsigned char *buf;
    size_t len;
} Stream;

static int stream_open(Stream *st, const char *path)
{
    memset(st, 0, sizeof(*st));
    st->fd = -1;
    st->buf = malloc(STREAM_BUF);
    if (!st->buf)
        return AV_ERR_NOMEM;
    st->fd = file_temp_open(path, &st->tmp);
    return st->fd >= 0 ? AV_OK : errno == ENOMEM ? AV_ERR_NOMEM : AV_ERR_IO;
}

static int stream_flush(Stream *st)
{
    const unsigned char *p = st->buf;
    while (st->len > 0) {
        ssize_t w = write(st->fd, p, st->len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return AV_ERR_IO;
        p += w;
        st->len -= (size_t)w;
    }
    return AV_OK;
}

/* n floats, little-endian whatever the host. */
static int stream_floats(Stream *st, const float *x, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (st->len + 4 > STREAM_BUF && stream_flush(st) != AV_OK)
            return AV_ERR_IO;
        uint32_t b;
        memcpy(&b, &x[k], 4);
        for (int i = 0; i < 4; i++)
            st->buf[st->len++] = (unsigned char)(b >> (8 * i));
    }
    return AV_OK;
}

/* Flush, give the mode open(2) would, fsync, close and rename; on any
 * failure (rc != AV_OK on entry too) remove the temporary file. */
static int stream_close(Stream *st, const char *path, int rc)
{
    if (rc == AV_OK && stream_flush(st) != AV_OK)
        rc = AV_ERR_IO;
    if (st->fd >= 0) {
        mode_t mask = umask(0);
        umask(mask);
        if (rc == AV_OK && (fchmod(st->fd, 0666 & ~mask) != 0 || fsync(st->fd) != 0))
            rc = AV_ERR_IO;
        int saved = errno;
        if (close(st->fd) != 0 && rc == AV_OK)
            rc = AV_ERR_IO;
        else
            errno = saved;
        if (rc == AV_OK && rename(st->tmp, path) != 0)
            rc = AV_ERR_IO;
        if (rc != AV_OK) {
            saved = errno;
            unlink(st->tmp);
            errno = saved;
        }
    }
    free(st->tmp);
    free(st->buf);
    return rc;
}

int dump_source_npy(const char *path, const AttnSource *src)
{
    Stream st = {.fd = -1};
    unsigned char hdr[256];
    size_t shape[4] = {(size_t)src->L, (size_t)src->H, (size_t)src->n_q, (size_t)src->n_k};
    size_t hl = npy_format_header(4, shape, hdr, sizeof hdr);
    float *row = malloc((size_t)src->n_k * sizeof(float));
    int rc = row ? stream_open(&st, path) : AV_ERR_NOMEM;
    if (rc == AV_OK) {
        memcpy(st.buf, hdr, hl);
        st.len = hl;
    }
    for (int l = 0; l < src->L && rc == AV_OK; l++) {
        for (int h = 0; h < src->H && rc == AV_OK; h++)
            for (int i = 0; i < src->n_q && rc == AV_OK; i++)
                rc = stream_floats(&st, combine_row(src, l, h, i, row), (size_t)src->n_k);
        if (src->release)
            src->release(src->ctx, l);
    }
    int saved = errno;
    free(row);
    errno = saved;
    return stream_close(&st, path, rc);
}

static int join(char *path, size_t cap, const char *dir, const char *name)
{
    if (snprintf(path, cap, "%s/%s", dir, name) >= (int)cap) {
        errno = ENAMETOOLONG;
        return AV_ERR_IO;
    }
    return AV_OK;
}

/* attention.npy of src and, when it is square, rollout.npy after all layers. */
static int dump_combined(const char *dir, const AttnSource *src, const char **which)
{
    char path[4096];
    *which = "attention.npy";
    int rc = join(path, sizeof path, dir, "attention.npy");
    if (rc == AV_OK)
        rc = dump_source_npy(path, src);
    if (rc != AV_OK || src->n_q != src->n_k)
        return rc;
    *which = "rollout.npy";
    size_t n = (size_t)src->n_q, shape[2] = {n, n};
    float *out = malloc(n * n * sizeof(float));
    if (!out)
        return AV_ERR_NOMEM;
    rc = combine_rollout(src, src->L - 1, out);
    if (rc == AV_OK)
        rc = join(path, sizeof path, dir, "rollout.npy");
    if (rc == AV_OK)
        rc = npy_write(path, 2, shape, out);
    int saved = errno;
    free(out);
    errno = saved;
    return rc;
}

static const float *result_row(const void *ctx, int l, int h, int i, float *buf)
{
    return model_head_row(ctx, l, h, i, buf);
}

static AttnSource result_source(const ModelResult *r)
{
    return (AttnSource){r->L, r->shape.H, r->shape.n_q, r->shape.n_k, result_row, NULL, r};
}

int dump_write(const char *dir, const ModelResult *r, const ModelConfig *c, const char **which)
{
    int rc = dump_tensors(dir, r, c, which);
    if (rc == AV_OK) {
        AttnSource src = result_source(r);
        rc = dump_combined(dir, &src, which);
    }
    return rc;
}

int dump_write_norms(const char *dir, const ModelResult *r, const float *const *Wo,
                     const char **which)
{
    const AttnShape *s = &r->shape;
    char path[4096];
    *which = "norms.npy";
    float *fnorm = calloc((size_t)r->L * s->H * s->n_k, sizeof(float));
    if (!fnorm)
        return AV_ERR_NOMEM;
    int rc = AV_OK;
    for (int l = 0; l < r->L && rc == AV_OK; l++)
        rc = combine_value_norms(s->n_k, s->d_model, s->H, r->layer[l].ab.V, Wo[l],
                                 fnorm + (size_t)l * s->H * s->n_k);
    AttnSource weights = result_source(r);
    NormsSource ns;
    combine_norms_init(&ns, &weights, fnorm);
    if (rc == AV_OK)
        rc = join(path, sizeof path, dir, "norms.npy");
    if (rc == AV_OK)
        rc = dump_source_npy(path, &ns.src);
    int saved = errno;
    free(fnorm);
    errno = saved;
    return rc;
}

int dump_write_lens(const char *dir, const Lens *ls, const char **which)
{
    const size_t cells = (size_t)ls->rows * ls->n * LENS_K;
    const size_t shape[3] = {(size_t)ls->rows, (size_t)ls->n, LENS_K};
    char path[4096];
    *which = "lens_ids.npy";
    int32_t *ids = malloc(cells * sizeof *ids);
    float *probs = malloc(cells * sizeof *probs);
    int rc = ids && probs ? AV_OK : AV_ERR_NOMEM;
    if (rc == AV_OK) {
        lens_gather(ls, ids, probs);
        rc = join(path, sizeof path, dir, "lens_ids.npy");
    }
    if (rc == AV_OK)
        rc = npy_write_int32(path, 3, shape, ids);
    if (rc == AV_OK) {
        *which = "lens_probs.npy";
        rc = join(path, sizeof path, dir, "lens_probs.npy");
    }
    if (rc == AV_OK)
        rc = npy_write(path, 3, shape, probs);
    int saved = errno;
    free(ids), free(probs);
    errno = saved;
    return rc;
}

int dump_write_model(const char *dir, const ModelResult *r, const ModelConfig *c,
                     const ModelWeights *w, const char **which)
{
    const float *Wo[AV_MAX_LAYERS];
    for (int l = 0; l < r->L && l < AV_MAX_LAYERS; l++)
        Wo[l] = w->layer[l].Wo;
    int rc = dump_write(dir, r, c, which);
    return rc == AV_OK ? dump_write_norms(dir, r, Wo, which) : rc;
}

int dump_write_import(const char *dir, const AttnImport *im, const char **which)
{
    AttnSource src;
    *which = NULL;
    int rc = make_dir(dir);
    if (rc == AV_OK)
        rc = write_lines(dir, "tokens.txt", &im->tokens, NULL, 0, which);
    if (rc == AV_OK && im->key_tokens.n)
        rc = write_lines(dir, "key_tokens.txt", &im->key_tokens, NULL, 0, which);
    attnfile_source(&im->a, &src);
    return rc == AV_OK ? dump_combined(dir, &src, which) : rc;
}

/* ---- the folder a dump replaces ---- */

/* A dump's own files (dirswap_only): its text files and .npy arrays. */
static bool dump_file(const char *name, bool in_layer)
{
    size_t len = strlen(name);
    if (!strcmp(name, "heads.txt") ||
        (!in_layer && (!strcmp(name, "tokens.txt") || !strcmp(name, "key_tokens.txt"))))
        return true;
    return len > 4 && !strcmp(name + len - 4, ".npy");
}

int dump_check_folder(const char *dir, char *which, size_t whichlen)
{
    return dirswap_only(dir, dump_file, which, whichlen);
}
