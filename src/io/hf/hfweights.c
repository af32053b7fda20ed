/* hfweights.c - a checkpoint's weights by name (hfweights.h): which files
 * hold them (one model.safetensors, or the index's shards), then a reader's
 * table of wanted tensors in three passes: find each (and check its dtype
 * and shape), size the arena for those that must be copied, then read each
 * one (in place or converted) and check its values. The safetensors format
 * itself is safetensors.c's.
 */
#include "io/hfweights.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "core/hugemem.h"
#include "hfindex.h"
#include "io/hfshards.h"

#define HF_CHUNK ((size_t)1 << 20) /* elements copied between drops of the map's pages */
#define HF_LINE 16                 /* floats of a cache line: where each copy begins */

static int fail(char *why, size_t whylen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *why, size_t whylen, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return rc;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int open_files(const char *dir, HfWeights *hw, char *why, size_t whylen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (exists(path)) {
        hw->shard = calloc(1, sizeof(*hw->shard));
        if (!hw->shard)
            return fail(why, whylen, AV_ERR_NOMEM, "%s", av_strerror(AV_ERR_NOMEM));
        int rc = st_open(path, &hw->shard[0], why, whylen);
        hw->n_shards = rc == AV_OK;
        return rc;
    }
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    if (exists(path))
        return hfindex_open(dir, &hw->shard, &hw->n_shards, why, whylen);
    snprintf(path, sizeof path, "%s/pytorch_model.bin", dir);
    if (exists(path))
        return fail(why, whylen, AV_ERR_MODEL,
                    "%s: only pytorch_model.bin, which attnviz does "
                    "not read: convert it to model.safetensors (Python: safetensors.torch."
                    "save_file)",
                    dir);
    if (hfmodel_has_shards(dir))
        return fail(why, whylen, AV_ERR_MODEL,
                    "%s: shards of the weights but no model.safetensors.index.json, "
                    "which names the shard of every tensor",
                    dir);
    return fail(why, whylen, AV_ERR_MODEL,
                "%s: no model.safetensors (nor "
                "model.safetensors.index.json)",
                dir);
}

int hfweights_open(const char *dir, HfWeights *hw, char *why, size_t whylen)
{
    memset(hw, 0, sizeof *hw);
    int rc = open_files(dir, hw, why, whylen);
    if (rc != AV_OK) {
        int e = errno;
        hfweights_close(hw);
        errno = e;
    }
    return rc;
}

const StTensor *hfweights_lookup(const HfWeights *hw, const char *name, const StFile **f)
{
    for (int s = 0; s < hw->n_shards; s++) {
        const StTensor *t = st_find(&hw->shard[s], name);
        if (t) {
            if (f)
                *f = &hw->shard[s];
            return t;
        }
    }
    return NULL;
}

void hfweights_shape_text(char *buf, size_t size, const StTensor *t)
{
    size_t at = (size_t)snprintf(buf, size, "(");
    for (int k = 0; k < t->ndim && at < size; k++)
        at += (size_t)snprintf(buf + at, size - at, "%s%llu", k ? ", " : "",
                               (unsigned long long)t->shape[k]);
    if (at < size)
        snprintf(buf + at, size - at, t->ndim == 1 ? ",)" : ")");
}

/* name in the shards, in one only: w->t and w->f set when found. */
static int find_name(const HfWeights *hw, HfWant *w, const char *name, char *why, size_t whylen)
{
    for (int s = 0; s < hw->n_shards; s++) {
        const StTensor *t = st_find(&hw->shard[s], name);
        if (t && w->t)
            return fail(why, whylen, AV_ERR_MODEL, "tensor \"%s\" is in both %s and %s", name,
                        w->f->name, hw->shard[s].name);
        if (t)
            w->t = t, w->f = &hw->shard[s];
    }
    return AV_OK;
}

int hfweights_find(const HfWeights *hw, HfWant *w, char *why, size_t whylen)
{
    w->t = NULL, w->f = NULL;
    int rc = find_name(hw, w, w->name, why, whylen);
    if (!rc && !w->t && w->alt[0])
        rc = find_name(hw, w, w->alt, why, whylen);
    if (rc)
        return rc;
    if (!w->t)
        return w->optional
                   ? AV_OK
                   : fail(why, whylen, AV_ERR_MODEL, "%s: no tensor \"%s\"",
                          hw->n_shards == 1 ? hw->shard[0].name : "model.safetensors.index.json",
                          w->name);
    const StTensor *t = w->t;
    if (t->dtype != ST_F32 && t->dtype != ST_F16 && t->dtype != ST_BF16)
        return fail(why, whylen, AV_ERR_MODEL,
                    "%s: tensor \"%s\" is %s; attnviz reads F32, "
                    "F16 and BF16",
                    w->f->name, t->name, st_dtype_name(t->dtype));
    int ndim = w->cols ? 2 : 1;
    if (t->ndim != ndim || t->shape[0] != (uint64_t)w->rows ||
        (ndim == 2 && t->shape[1] != (uint64_t)w->cols)) {
        char got[160];
        hfweights_shape_text(got, sizeof got, t);
        if (ndim == 2)
            return fail(why, whylen, AV_ERR_MODEL,
                        "%s: tensor \"%s\" has shape %s; config.json"
                        " says (%d, %d)",
                        w->f->name, t->name, got, w->rows, w->cols);
        return fail(why, whylen, AV_ERR_MODEL,
                    "%s: tensor \"%s\" has shape %s; config.json "
                    "says (%d,)",
                    w->f->name, t->name, got, w->rows);
    }
    return AV_OK;
}

/* Index of the first NaN, Inf or value past limit in magnitude of
 * x[0..n), or n. */
static size_t first_out_of_range(const float *x, size_t n, float limit)
{
    /* on the bits: |x| is x without its sign bit, an integer whose order is
     * the values' (NaN and Inf above every finite one), so one compare a
     * value, and no branch in the loop */
    int32_t lim;
    memcpy(&lim, &limit, 4);
    uint32_t any = 0;
    for (size_t k = 0; k < n; k++) {
        int32_t b;
        memcpy(&b, &x[k], 4);
        any |= (b & 0x7fffffff) > lim;
    }
    if (!any)
        return n;
    size_t k = 0;
    while (k < n && fabsf(x[k]) <= limit)
        k++;
    return k;
}

float hfweights_limit(int d_model, int n_head)
{
    const double D = d_model, d_k = (double)d_model / n_head, row = sqrt(D) + 1;
    /* sqrt(d_k) (D m^2 row)^2 = FLT_MAX / 16, the m of Q and K dropped */
    const double m = pow(FLT_MAX / 16 / (sqrt(d_k) * D * D * row * row), 0.25);
    return m < FLT_MAX ? (float)m : FLT_MAX;
}

/* Drop the map's pages holding bytes [lo, hi) of t's data from resident
 * memory: the map is never written, so they come back from the page cache
 * if touched again. */
static void drop_pages(const StFile *f, const StTensor *t, size_t lo, size_t hi)
{
    static long page;
    if (!f->mapped || hi == lo)
        return;
    if (!page)
        page = sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)st_data(f, t) + lo, b = (uintptr_t)st_data(f, t) + hi;
    a -= (a - (uintptr_t)f->base) % (uintptr_t)page;
    madvise((void *)a, b - a, MADV_DONTNEED);
}

/* Floats of the arena a copy of count floats takes: up to the next cache
 * line, so that every copy begins on one and a kernel's 64-byte loads along
 * a row never straddle two lines. */
static size_t line_floats(size_t count)
{
    return (count + HF_LINE - 1) / HF_LINE * HF_LINE;
}

/* t converted into out, HF_CHUNK elements at a time, each chunk's source
 * pages dropped behind it: resident memory never holds more than a chunk
 * of a tensor twice. */
static void copy_tensor(const StFile *f, const StTensor *t, float *out)
{
    size_t n = (size_t)t->count, size = (size_t)st_dtype_size(t->dtype);
    for (size_t at = 0; at < n; at += HF_CHUNK) {
        size_t k = n - at < HF_CHUNK ? n - at : HF_CHUNK;
        st_load_f32_part(f, t, at, k, out + at);
        drop_pages(f, t, at * size, (at + k) * size);
    }
}

/* w's (rows, cols) matrix converted into out as two panels of columns,
 * split at w->split, a chunk of rows at a time as copy_tensor does. */
static void copy_panels(const StFile *f, const HfWant *w, float *out)
{
    const size_t R = (size_t)w->rows, C = (size_t)w->cols, s = (size_t)w->split;
    const size_t size = (size_t)st_dtype_size(w->t->dtype), chunk = HF_CHUNK / C + 1;
    for (size_t r0 = 0; r0 < R; r0 += chunk) {
        const size_t r1 = R - r0 < chunk ? R : r0 + chunk;
        for (size_t r = r0; r < r1; r++) {
            st_load_f32_part(f, w->t, r * C, s, out + r * s);
            st_load_f32_part(f, w->t, r * C + s, C - s, out + R * s + r * (C - s));
        }
        drop_pages(f, w->t, r0 * C * size, r1 * C * size);
    }
}

/* The file's index of element e of w's copy (laid in panels or not). */
static size_t file_index(const HfWant *w, size_t e)
{
    const size_t R = (size_t)w->rows, C = (size_t)w->cols, s = (size_t)w->split;
    if (!s)
        return e;
    if (e < R * s)
        return e / s * C + e % s;
    e -= R * s;
    return e / (C - s) * C + s + e % (C - s);
}

/* w's data where it lies in the map, or NULL when it must be copied. */
static const float *in_place(const HfWant *w)
{
    return w->split ? NULL : st_f32_in_place(w->f, w->t);
}

/* Read every found tensor: in place, or into the arena; check its values. */
static int read_all(HfWeights *hw, HfWant *w, int n, HfProgress progress, void *ctx, char *why,
                    size_t whylen)
{
    size_t total = 0, done = 0, at = 0;
    for (int k = 0; k < n; k++)
        total += w[k].t ? (size_t)(w[k].t->end - w[k].t->begin) : 0;
    for (int k = 0; k < n; k++) {
        const StTensor *t = w[k].t;
        if (!t)
            continue;
        const float *x = in_place(&w[k]);
        if (!x) {
            float *out = hw->arena + at;
            if (w[k].split)
                copy_panels(w[k].f, &w[k], out);
            else
                copy_tensor(w[k].f, t, out);
            at += line_floats((size_t)t->count);
            x = out;
        }
        const float limit = hw->limit > 0 ? hw->limit : FLT_MAX;
        size_t bad = first_out_of_range(x, (size_t)t->count, limit);
        if (bad < t->count && isfinite(x[bad]))
            return fail(why, whylen, AV_ERR_MODEL,
                        "%s: tensor \"%s\": %g at element %zu; a weight past %.2g could "
                        "overflow float32 in this model's attention scores",
                        w[k].f->name, t->name, (double)x[bad], file_index(&w[k], bad),
                        (double)limit);
        if (bad < t->count)
            return fail(why, whylen, AV_ERR_MODEL,
                        "%s: tensor \"%s\": %s at element %zu; "
                        "weights must be finite",
                        w[k].f->name, t->name, isnan(x[bad]) ? "NaN" : "Inf",
                        file_index(&w[k], bad));
        *w[k].dst = x;
        hw->n_params += (size_t)t->count;
        done += (size_t)(t->end - t->begin);
        if (progress)
            progress(ctx, total ? (double)done / (double)total : 1.0, t->name);
    }
    return AV_OK;
}

int hfweights_load(HfWeights *hw, HfWant *w, int n, HfProgress progress, void *ctx, char *why,
                   size_t whylen)
{
    int rc = AV_OK;
    size_t copies = 0, floats = 0; /* the copies' floats, and the arena's with its gaps */
    for (int k = 0; k < n && rc == AV_OK; k++) {
        rc = hfweights_find(hw, &w[k], why, whylen);
        if (rc == AV_OK && w[k].t && !in_place(&w[k])) {
            copies += (size_t)w[k].t->count;
            floats += line_floats((size_t)w[k].t->count);
        }
    }
    if (rc == AV_OK && copies) {
        hw->arena = huge_alloc(floats * sizeof(float));
        if (!hw->arena)
            return fail(why, whylen, AV_ERR_NOMEM, "%zu MB for the converted weights: %s",
                        floats * sizeof(float) >> 20, av_strerror(AV_ERR_NOMEM));
        hw->copied_bytes = copies * sizeof(float);
    }
    return rc == AV_OK ? read_all(hw, w, n, progress, ctx, why, whylen) : rc;
}

void hfweights_close(HfWeights *hw)
{
    for (int s = 0; s < hw->n_shards; s++)
        st_close(&hw->shard[s]);
    free(hw->shard);
    free(hw->arena);
    memset(hw, 0, sizeof *hw);
}
