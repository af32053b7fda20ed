/* modelfile.c - trained model folders: the layout table, model.json written
 * and read, and the tensors saved and loaded as .npy.
 *
 * model.json is read with io/json.h: one object whose values are strings,
 * numbers, true/false/null and arrays of strings. Unknown keys are skipped,
 * so later versions may add fields. Every failure is AV_ERR_MODEL with one
 * line naming the file and the fault; nothing here prints. A folder is saved
 * whole or not at all (io/dirswap.h): written beside its place, then swapped in.
 */
#include "io/modelfile.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/av.h"
#include "io/dirswap.h"
#include "io/fileio.h"
#include "io/json.h"
#include "io/npy.h"

#define JSON_MAX_BYTES (8 << 20)

static void add(ModelLayout *lay, const char *name, int ndim, size_t a, size_t b)
{
    ModelTensor *t = &lay->t[lay->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ndim = ndim;
    t->shape[0] = a;
    t->shape[1] = ndim == 2 ? b : 0;
    t->count = ndim == 2 ? a * b : a;
    t->offset = lay->total;
    lay->total += t->count;
}

void modelfile_layout(const ModelSpec *s, ModelLayout *lay)
{
    const size_t V = s->V, D = s->d_model, W = s->mlp;
    char name[MODEL_NAME_MAX];
    static const char *const attn[] = {"Wq", "Wk", "Wv", "Wo"};
    static const char *const mlp[] = {"W1", "b1", "W2", "b2"};
    memset(lay, 0, sizeof *lay);
    add(lay, "embed", 2, V, D);
    if (s->pe == MODEL_PE_LEARNED)
        add(lay, "pe", 2, s->context, D);
    for (int l = 1; l <= s->layers; l++) {
        if (s->layernorm) {
            snprintf(name, sizeof name, "layer%d/ln1_g", l), add(lay, name, 1, D, 0);
            snprintf(name, sizeof name, "layer%d/ln1_b", l), add(lay, name, 1, D, 0);
        }
        for (int k = 0; k < 4; k++)
            snprintf(name, sizeof name, "layer%d/%s", l, attn[k]), add(lay, name, 2, D, D);
        if (s->layernorm && W) {
            snprintf(name, sizeof name, "layer%d/ln2_g", l), add(lay, name, 1, D, 0);
            snprintf(name, sizeof name, "layer%d/ln2_b", l), add(lay, name, 1, D, 0);
        }
        const size_t rows[4] = {D, W, W, D}, cols[4] = {W, 0, D, 0};
        for (int k = 0; W && k < 4; k++) {
            snprintf(name, sizeof name, "layer%d/%s", l, mlp[k]);
            add(lay, name, cols[k] ? 2 : 1, rows[k], cols[k]);
        }
    }
    if (s->layernorm) {
        add(lay, "ln_f_g", 1, D, 0);
        add(lay, "ln_f_b", 1, D, 0);
    }
    add(lay, "unembed", 2, D, V);
}

const ModelTensor *modelfile_find(const ModelLayout *lay, const char *name)
{
    for (int k = 0; k < lay->n; k++)
        if (strcmp(lay->t[k].name, name) == 0)
            return &lay->t[k];
    return NULL;
}

static int vocab_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int modelfile_check(const ModelSpec *s)
{
    if (s->V < 1 || s->V > MODEL_MAX_VOCAB || !s->vocab)
        return AV_ERR_MODEL;
    if (s->d_model < 1 || s->d_model > AV_MAX_D_MODEL_OWN || s->heads < 1 ||
        s->heads > AV_MAX_HEADS || s->d_model % s->heads != 0)
        return AV_ERR_MODEL;
    if (s->layers < 1 || s->layers > AV_MAX_LAYERS || s->context < 1 ||
        s->context > MODEL_MAX_CONTEXT || s->mlp < 0 || s->mlp > MODEL_MAX_MLP)
        return AV_ERR_MODEL;
    if (s->pe < MODEL_PE_SINUSOIDAL || s->pe > MODEL_PE_NONE)
        return AV_ERR_MODEL;
    char **sorted = malloc((size_t)s->V * sizeof *sorted);
    if (!sorted)
        return AV_ERR_NOMEM;
    int err = AV_OK;
    for (int i = 0; i < s->V; i++) {
        sorted[i] = s->vocab[i];
        if (!s->vocab[i] || !s->vocab[i][0])
            err = AV_ERR_MODEL;
    }
    if (!err) {
        qsort(sorted, (size_t)s->V, sizeof *sorted, vocab_cmp);
        for (int i = 1; i < s->V; i++)
            if (strcmp(sorted[i - 1], sorted[i]) == 0)
                err = AV_ERR_MODEL;
    }
    free(sorted);
    return err;
}

/* ---- model.json out ---- */

static void put_string(FILE *f, const char *str)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static const char *const PE_NAMES[] = {"sinusoidal", "learned", "none"};

char *modelfile_json(const ModelSpec *s)
{
    MemFile m;
    if (memfile_open(&m))
        return NULL;
    FILE *f = m.f;
    fputs("{\"format\": \"attnviz-model\", \"version\": 1, \"task\": ", f);
    put_string(f, s->task);
    fputs(",\n \"vocab\": [", f);
    for (int i = 0; i < s->V; i++) {
        fputs(i ? (i % 16 ? ", " : ",\n   ") : "", f);
        put_string(f, s->vocab[i]);
    }
    fprintf(f,
            "],\n \"tokenizer\": \"%s\", \"d_model\": %d, \"heads\": %d, \"layers\": %d,"
            " \"context\": %d, \"causal\": true,\n \"pe\": \"%s\", \"layernorm\": %s,"
            " \"mlp\": %d,",
            s->tokenizer == MODEL_TOK_WORDS ? "words" : "chars", s->d_model, s->heads, s->layers,
            s->context, PE_NAMES[s->pe], s->layernorm ? "\"pre\"" : "false", s->mlp);
    if (s->mlp)
        fprintf(f, " \"activation\": \"%s\",", s->activation == MODEL_ACT_RELU ? "relu" : "gelu");
    fprintf(f, " \"steps\": %ld, \"seed\": %llu}\n", s->steps, (unsigned long long)s->seed);
    if (memfile_close(&m)) {
        memfile_free(&m);
        return NULL;
    }
    return m.buf;
}

static int get_vocab(Json *j, ModelSpec *s)
{
    int cap = 0;
    if (!json_eat(j, '['))
        return json_fail(j, "\"vocab\" is not an array");
    if (json_eat(j, ']'))
        return json_fail(j, "\"vocab\" is empty");
    do {
        if (s->V == cap) {
            cap = cap ? 2 * cap : 64;
            char **v = cap <= MODEL_MAX_VOCAB ? realloc(s->vocab, (size_t)cap * sizeof *v) : NULL;
            if (!v)
                return cap > MODEL_MAX_VOCAB ? json_fail(j, "\"vocab\" is too long")
                                             : (j->err = AV_ERR_NOMEM);
            s->vocab = v;
        }
        if (json_string(j, &s->vocab[s->V]))
            return j->err;
        s->V++;
    } while (json_eat(j, ','));
    return json_eat(j, ']') ? AV_OK : json_fail(j, "\"vocab\" is not closed");
}

/* Index of str in names (n of them), or -1. */
static int pick(const char *str, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (strcmp(str, names[k]) == 0)
            return k;
    return -1;
}

static int get_enum(Json *j, const char *key, const char *const *names, int n, int *out)
{
    char *str;
    if (json_string(j, &str))
        return j->err;
    *out = pick(str, names, n);
    free(str);
    return *out < 0 ? json_fail(j, "\"%s\" has an unknown value", key) : AV_OK;
}

/* One key's value into s; seen collects which keys were present. */
static int get_field(Json *j, const char *key, ModelSpec *s, unsigned *seen)
{
    static const char *const keys[] = {
        "format",  "version", "task", "vocab",     "tokenizer", "d_model",    "heads", "layers",
        "context", "causal",  "pe",   "layernorm", "mlp",       "activation", "steps", "seed"};
    static const char *const toks[] = {"chars", "words"}, *const acts[] = {"gelu", "relu"};
    int k = pick(key, keys, (int)(sizeof keys / sizeof *keys)), v = 0;
    char *str = NULL;
    double num;
    /* a key given twice is refused (a second "vocab" was appended past the
     * first one's array: found by fuzz_model) */
    if (k >= 0 && (*seen & 1u << k))
        return json_fail(j, "\"%s\" is given twice", key);
    if (k >= 0)
        *seen |= 1u << k;
    switch (k) {
    case 0:
        if (json_string(j, &str) == AV_OK && strcmp(str, "attnviz-model") != 0)
            json_fail(j, "\"format\" is not \"attnviz-model\"");
        free(str);
        return j->err;
    case 1:
        return json_int(j, key, &v) ? j->err : v != 1 ? json_fail(j, "version %d unknown", v) : 0;
    case 2:
        if (json_string(j, &str) == AV_OK)
            snprintf(s->task, sizeof s->task, "%s", str);
        free(str);
        return j->err;
    case 3: return get_vocab(j, s);
    case 4: return get_enum(j, key, toks, 2, &v) ? j->err : (s->tokenizer = (ModelTok)v, 0);
    case 5: return json_int(j, key, &s->d_model);
    case 6: return json_int(j, key, &s->heads);
    case 7: return json_int(j, key, &s->layers);
    case 8: return json_int(j, key, &s->context);
    case 9:
        return json_word(j, "true") ? AV_OK : json_fail(j, "only \"causal\": true is supported");
    case 10: return get_enum(j, key, PE_NAMES, 3, &v) ? j->err : (s->pe = (ModelPe)v, 0);
    case 11:
        if (json_word(j, "false"))
            return s->layernorm = false, AV_OK;
        return json_string(j, &str) ? j->err
               : (v = strcmp(str, "pre"), free(str), v)
                   ? json_fail(j, "\"layernorm\" is neither false nor \"pre\"")
                   : (s->layernorm = true, 0);
    case 12: return json_int(j, key, &s->mlp);
    case 13: return get_enum(j, key, acts, 2, &v) ? j->err : (s->activation = (ModelAct)v, 0);
    case 14:
    case 15: /* whole numbers the integer types hold (a cast out of range is undefined) */
        if (json_number(j, key, &num))
            return j->err;
        if (num < 0 || num >= (k == 14 ? 9.2e18 : 1.8e19) || num != floor(num))
            return json_fail(j, "\"%s\" is not a whole number in range", key);
        if (k == 14)
            s->steps = (long)num;
        else
            s->seed = (uint64_t)num;
        return AV_OK;
    default: return json_skip_value(j, 0);
    }
}

int modelfile_parse_json(const char *text, size_t len, ModelSpec *s, char *why, size_t whylen)
{
    Json j = {.p = text, .end = text + len, .why = why, .whylen = whylen};
    unsigned seen = 0;
    memset(s, 0, sizeof *s);
    if (!json_eat(&j, '{'))
        json_fail(&j, "not a JSON object");
    if (!j.err && !json_eat(&j, '}')) {
        do {
            char *key;
            if (json_string(&j, &key))
                break;
            if (!json_eat(&j, ':'))
                json_fail(&j, "':' expected after \"%s\"", key);
            else
                get_field(&j, key, s, &seen);
            free(key);
        } while (!j.err && json_eat(&j, ','));
        if (!j.err && !json_eat(&j, '}'))
            json_fail(&j, "'}' or ',' expected at byte %ld", (long)(j.p - text));
    }
    /* every key but "activation" must be there; "activation" too with an MLP */
    const unsigned need = 0xffffu & ~(1u << 13);
    if (!j.err && (seen & need) != need)
        json_fail(&j, "a required field is missing");
    if (!j.err && s->mlp && !(seen & (1u << 13)))
        json_fail(&j, "\"activation\" is missing (\"mlp\" is not 0)");
    if (!j.err && modelfile_check(s))
        json_fail(&j, "the settings are inconsistent (sizes, limits or a repeated vocab entry)");
    if (j.err)
        modelfile_spec_free(s);
    return j.err;
}

/* ---- folders ---- */

static int tensor_path(char *path, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(path, cap, "%s/%s.npy", dir, name);
    return n < 0 || (size_t)n >= cap ? AV_ERR_IO : AV_OK;
}

static int join(char *path, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(path, cap, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= cap ? (errno = ENAMETOOLONG, AV_ERR_IO) : AV_OK;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST)
        return AV_OK;
    return AV_ERR_IO;
}

/* A model folder's own files (dirswap_only): model.json and heads.txt at
 * the top, tensors (.npy) anywhere. */
static bool model_file(const char *name, bool in_layer)
{
    size_t len = strlen(name);
    if (!in_layer && (!strcmp(name, "model.json") || !strcmp(name, "heads.txt")))
        return true;
    return len > 4 && !strcmp(name + len - 4, ".npy");
}

/* Every file of the folder into dir, which exists and is empty. */
static int write_folder(const char *dir, const ModelSpec *s, const float *params,
                        const char *heads_txt, char *which, size_t whichlen)
{
    char path[4096];
    ModelLayout lay;
    for (int l = 1; l <= s->layers; l++) {
        snprintf(which, whichlen, "layer%d", l);
        if (join(path, sizeof path, dir, which) || make_dir(path))
            return AV_ERR_IO;
    }
    modelfile_layout(s, &lay);
    int err;
    for (int k = 0; k < lay.n; k++) {
        const ModelTensor *t = &lay.t[k];
        snprintf(which, whichlen, "%s.npy", t->name);
        if (tensor_path(path, sizeof path, dir, t->name))
            return AV_ERR_IO;
        if ((err = npy_write(path, t->ndim, t->shape, params + t->offset)))
            return err;
    }
    char *json = modelfile_json(s);
    if (!json)
        return AV_ERR_NOMEM;
    snprintf(which, whichlen, "model.json");
    err = join(path, sizeof path, dir, "model.json");
    if (!err)
        err = file_write_atomic(path, json, strlen(json), false);
    free(json);
    if (!err && heads_txt) {
        snprintf(which, whichlen, "heads.txt");
        err = join(path, sizeof path, dir, "heads.txt");
        if (!err)
            err = file_write_atomic(path, heads_txt, strlen(heads_txt), false);
    }
    return err;
}

int modelfile_save_check(const char *dir, char *which, size_t whichlen)
{
    return dirswap_only(dir, model_file, which, whichlen);
}

int modelfile_save(const char *dir, const ModelSpec *s, const float *params, const char *heads_txt,
                   char *which, size_t whichlen)
{
    snprintf(which, whichlen, "%s", "");
    int err = modelfile_check(s);
    if (err || (err = modelfile_save_check(dir, which, whichlen)))
        return err;
    DirSwap swap;
    if (dirswap_begin(&swap, dir))
        return AV_ERR_IO;
    err = write_folder(swap.tmp, s, params, heads_txt, which, whichlen);
    if (err) {
        dirswap_abort(&swap);
        return err;
    }
    snprintf(which, whichlen, "%s", "");
    return dirswap_commit(&swap);
}

static void shape_text(char *buf, size_t cap, int ndim, const size_t *shape)
{
    int n = snprintf(buf, cap, "(");
    for (int k = 0; k < ndim && n < (int)cap - 24; k++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%zu", k ? ", " : "", shape[k]);
    snprintf(buf + n, cap - (size_t)n, "%s)", ndim == 1 ? "," : "");
}

/* Read one tensor of the layout into params, or say why not. */
static int load_tensor(const char *dir, const ModelTensor *t, float *params, char *why,
                       size_t whylen)
{
    char path[4096], have[96], want[96];
    NpyArray a = {0};
    if (tensor_path(path, sizeof path, dir, t->name))
        return snprintf(why, whylen, "%s: path too long", dir), AV_ERR_MODEL;
    int err = npy_read(path, &a);
    if (err == AV_ERR_NOMEM)
        return err;
    if (err) {
        snprintf(why, whylen, "%s: %s", path,
                 err == AV_ERR_IO ? strerror(errno) : av_strerror(err));
        return AV_ERR_MODEL;
    }
    bool ok = a.ndim == t->ndim && a.shape[0] == t->shape[0] &&
              (t->ndim == 1 || a.shape[1] == t->shape[1]);
    if (!ok) {
        shape_text(have, sizeof have, a.ndim, a.shape);
        shape_text(want, sizeof want, t->ndim, t->shape);
        snprintf(why, whylen, "%s has shape %s; model.json needs %s", path, have, want);
    } else {
        memcpy(params + t->offset, a.data, t->count * sizeof *params);
    }
    npy_free(&a);
    return ok ? AV_OK : AV_ERR_MODEL;
}

int modelfile_load(const char *dir, ModelSpec *s, float **params, char *why, size_t whylen)
{
    char path[4096], reason[256];
    char *text = NULL;
    size_t len;
    ModelLayout lay;
    memset(s, 0, sizeof *s);
    *params = NULL;
    snprintf(path, sizeof path, "%s/model.json", dir);
    int err = file_read_regular(path, JSON_MAX_BYTES, &text, &len);
    if (err == AV_ERR_NOMEM)
        return err;
    if (err) {
        snprintf(why, whylen, "%s: %s", path,
                 err == AV_ERR_IO      ? strerror(errno)
                 : err == AV_ERR_MODEL ? "not a regular file"
                                       : av_strerror(err));
        return AV_ERR_MODEL;
    }
    err = modelfile_parse_json(text, len, s, reason, sizeof reason);
    free(text);
    if (err) {
        if (err == AV_ERR_MODEL)
            snprintf(why, whylen, "%s: %s", path, reason);
        return err;
    }
    modelfile_layout(s, &lay);
    *params = malloc(lay.total * sizeof **params);
    err = *params ? AV_OK : AV_ERR_NOMEM;
    for (int k = 0; !err && k < lay.n; k++)
        err = load_tensor(dir, &lay.t[k], *params, why, whylen);
    if (err) {
        free(*params);
        *params = NULL;
        modelfile_spec_free(s);
    }
    return err;
}

void modelfile_spec_free(ModelSpec *s)
{
    for (int i = 0; s->vocab && i < s->V; i++)
        free(s->vocab[i]);
    free(s->vocab);
    memset(s, 0, sizeof *s);
}

int modelfile_spec_copy(ModelSpec *dst, const ModelSpec *src)
{
    *dst = *src;
    dst->vocab = calloc(src->V > 0 ? (size_t)src->V : 1, sizeof *dst->vocab);
    if (!dst->vocab)
        return dst->V = 0, AV_ERR_NOMEM;
    for (int i = 0; i < src->V; i++)
        if (!(dst->vocab[i] = strdup(src->vocab[i])))
            return modelfile_spec_free(dst), AV_ERR_NOMEM;
    return AV_OK;
}
