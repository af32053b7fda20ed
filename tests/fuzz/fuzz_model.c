/* fuzz_model.c - libFuzzer harness for model folders: model.json
 * (modelfile_parse_json) and the folder's tensors (infer_load).
 *
 * The input is model.json's text up to the first NUL byte; the bytes after
 * it decide the tensors. A refused model.json must leave the spec empty
 * (nothing allocated; LeakSanitizer checks the rest) with one line of
 * reason. An accepted one of a modest size is written out as a folder in
 * which each tensor is, by the next control byte, whole (values from the
 * input), missing, of the wrong shape or holding a NaN; infer_load must
 * refuse exactly the folders with a damaged tensor, naming it, and an
 * accepted model must run forward on a sequence of its vocabulary with
 * finite logits and attention rows that sum to 1 (masked weights exactly 0).
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/modelfile.h"
#include "io/npy.h"
#include "train/infer.h"
#include "train/net.h"

#define MAX_FLOATS 8000 /* larger models are parsed only: each run writes the folder */

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_model: invariant broken: %s\n", what);
        abort();
    }
}

static void check_line(const char *why)
{
    check(why[0] != '\0', "a refusal without a reason");
    for (const char *c = why; *c; c++)
        check((unsigned char)*c >= 0x20 || *c == '\t', "a reason that is not one line");
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

/* A private scratch folder, made empty for each run. */
static const char *scratch(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/fuzz_model.%ld", base, (long)getpid());
    }
    nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
    check(mkdir(dir, 0700) == 0, "cannot make the scratch folder");
    return dir;
}

typedef struct {
    const uint8_t *p;
    size_t n, at;
} Bytes;

static uint8_t next(Bytes *b)
{
    return b->n ? b->p[b->at++ % b->n] : 0;
}

/* Write the folder; returns the index of the first damaged tensor or -1. */
static int write_folder(const char *dir, const char *json, size_t jlen, const ModelSpec *s,
                        Bytes *b)
{
    char path[512];
    snprintf(path, sizeof path, "%s/model.json", dir);
    check(file_write_atomic(path, json, jlen, false) == AV_OK, "cannot write model.json");
    for (int l = 1; l <= s->layers; l++) {
        snprintf(path, sizeof path, "%s/layer%d", dir, l);
        check(mkdir(path, 0700) == 0, "cannot make a layer folder");
    }
    ModelLayout lay;
    modelfile_layout(s, &lay);
    float *v = malloc((lay.total ? lay.total : 1) * sizeof *v);
    check(v != NULL, "out of memory in the harness");
    int damaged = -1;
    for (int k = 0; k < lay.n; k++) {
        const ModelTensor *t = &lay.t[k];
        for (size_t i = 0; i < t->count; i++)
            v[i] = (float)(int8_t)next(b) / 64.0f;
        uint8_t c = next(b) % 32;
        size_t shape[2] = {t->shape[0], t->ndim == 2 ? t->shape[1] : 0};
        if (c == 1)
            shape[0]++;
        if (c == 2 && t->count)
            v[t->count / 2] = NAN;
        snprintf(path, sizeof path, "%s/%s.npy", dir, t->name);
        if (c != 0)
            check(npy_write(path, t->ndim, shape, v) == AV_OK, "cannot write a tensor");
        if ((c == 0 || c == 1 || (c == 2 && t->count)) && damaged < 0)
            damaged = k;
    }
    free(v);
    return damaged;
}

/* A forward on ids 0, 1, ... (cycled through the vocabulary). */
static void run_forward(Net *net)
{
    const ModelSpec *s = &net->spec;
    int n = s->context < 8 ? s->context : 8, ids[8];
    for (int i = 0; i < n; i++)
        ids[i] = i % s->V;
    check(infer_run(net, ids, n) == AV_OK, "infer_run failed on a loaded model");
    for (size_t i = 0; i < (size_t)n * (size_t)s->V; i++)
        check(isfinite(net->logits[i]), "a logit is not finite");
    for (int l = 0; l < s->layers; l++)
        for (int h = 0; h < s->heads; h++)
            for (int i = 0; i < n; i++) {
                const float *row = net->layer[l].P + ((size_t)h * n + i) * n;
                double sum = 0;
                for (int j = 0; j < n; j++) {
                    check(row[j] >= 0.0f && row[j] <= 1.0f, "a weight outside [0, 1]");
                    check(j <= i || row[j] == 0.0f, "a masked weight is not 0");
                    sum += row[j];
                }
                check(fabs(sum - 1.0) < 1e-4, "an attention row does not sum to 1");
            }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t jlen = nul ? (size_t)(nul - data) : size;
    Bytes b = {nul ? nul + 1 : data + size, nul ? size - jlen - 1 : 0, 0};
    ModelSpec s;
    char why[512] = "";
    memset(&s, 0xA5, sizeof s);
    int rc = modelfile_parse_json((const char *)data, jlen, &s, why, sizeof why);
    if (rc != AV_OK) {
        check(rc == AV_ERR_MODEL || rc == AV_ERR_NOMEM, "an undocumented error code");
        check(s.vocab == NULL && s.V == 0, "a refused model.json left a vocabulary");
        if (rc == AV_ERR_MODEL)
            check_line(why);
        return 0;
    }
    check(modelfile_check(&s) == AV_OK, "an accepted model.json fails modelfile_check");
    ModelLayout lay;
    modelfile_layout(&s, &lay);
    if (lay.total > MAX_FLOATS || s.layers > 3) {
        modelfile_spec_free(&s);
        return 0;
    }
    const char *dir = scratch();
    int damaged = write_folder(dir, (const char *)data, jlen, &s, &b);
    Net net;
    memset(&net, 0, sizeof net);
    why[0] = '\0';
    rc = infer_load(&net, dir, why, sizeof why);
    if (damaged >= 0) {
        check(rc == AV_ERR_MODEL, "a damaged folder was loaded");
        check_line(why);
        check(strstr(why, lay.t[damaged].name) != NULL, "the reason names another file");
    } else {
        check(rc == AV_OK, "a whole folder was refused");
        run_forward(&net);
        net_free(&net);
    }
    modelfile_spec_free(&s);
    return 0;
}
