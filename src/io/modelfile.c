/* modelfile.c - trained model folders: the layout table, model.json written
 * and read, and the tensors saved and loaded as .npy.
 *
 * The JSON reader knows only what model.json needs: one object whose values
 * are strings (with every JSON escape, \uXXXX surrogate pairs included),
 * numbers, true/false/null and arrays of strings. Unknown keys are skipped,
 * so later versions may add fields. Every failure is AV_ERR_MODEL with one
 * line naming the file and the fault; nothing here prints.
 */
#include "io/modelfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/av.h"
#include "io/fileio.h"
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
    if (s->d_model < 1 || s->d_model > AV_MAX_D_MODEL || s->heads < 1 ||
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

static void json_string(FILE *f, const char *str)
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
    json_string(f, s->task);
    fputs(",\n \"vocab\": [", f);
    for (int i = 0; i < s->V; i++) {
        fputs(i ? (i % 16 ? ", " : ",\n   ") : "", f);
        json_string(f, s->vocab[i]);
    }
    fprintf(f, "],\n \"tokenizer\": \"%s\", \"d_model\": %d, \"heads\": %d, \"layers\": %d,"
            " \"context\": %d, \"causal\": true,\n \"pe\": \"%s\", \"layernorm\": %s,"
            " \"mlp\": %d,", s->tokenizer == MODEL_TOK_WORDS ? "words" : "chars",
            s->d_model, s->heads, s->layers, s->context, PE_NAMES[s->pe],
            s->layernorm ? "\"pre\"" : "false", s->mlp);
    if (s->mlp)
        fprintf(f, " \"activation\": \"%s\",", s->activation == MODEL_ACT_RELU ? "relu" : "gelu");
    fprintf(f, " \"steps\": %ld, \"seed\": %llu}\n", s->steps, (unsigned long long)s->seed);
    if (memfile_close(&m)) {
        memfile_free(&m);
        return NULL;
    }
    return m.buf;
}

/* ---- model.json in ---- */

typedef struct {
    const char *p, *end;
    char *why;
    size_t whylen;
    int err;
} Json;

static int jfail(Json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int jfail(Json *j, const char *fmt, ...)
{
    if (!j->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->why, j->whylen, fmt, ap);
        va_end(ap);
        j->err = AV_ERR_MODEL;
    }
    return j->err;
}

static void skip_ws(Json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool eat(Json *j, char c)
{
    skip_ws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return true;
    }
    return false;
}

static int hex4(Json *j, unsigned *u)
{
    *u = 0;
    if (j->end - j->p < 4)
        return jfail(j, "a \\u escape is cut short");
    for (int k = 0; k < 4; k++) {
        char c = *j->p++;
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0)
            return jfail(j, "a \\u escape has a non-hex digit");
        *u = *u * 16 + (unsigned)v;
    }
    return AV_OK;
}

static size_t put_utf8(char *o, unsigned u)
{
    if (u < 0x80)
        return o[0] = (char)u, 1;
    if (u < 0x800)
        return o[0] = (char)(0xc0 | u >> 6), o[1] = (char)(0x80 | (u & 0x3f)), 2;
    if (u < 0x10000) {
        o[0] = (char)(0xe0 | u >> 12), o[1] = (char)(0x80 | (u >> 6 & 0x3f));
        return o[2] = (char)(0x80 | (u & 0x3f)), 3;
    }
    o[0] = (char)(0xf0 | u >> 18), o[1] = (char)(0x80 | (u >> 12 & 0x3f));
    return o[2] = (char)(0x80 | (u >> 6 & 0x3f)), o[3] = (char)(0x80 | (u & 0x3f)), 4;
}

/* One \-escape after the backslash, appended to o; returns bytes written. */
static size_t escape(Json *j, char *o)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char c = j->p < j->end ? *j->p++ : 0;
    const char *k = c ? strchr(from, c) : NULL;
    if (k)
        return o[0] = to[k - from], 1;
    if (c != 'u')
        return jfail(j, "a string has a bad escape"), 0;
    unsigned u, lo;
    if (hex4(j, &u))
        return 0;
    if (u >= 0xd800 && u < 0xdc00) {
        if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
            return jfail(j, "a string has a lone surrogate"), 0;
        j->p += 2;
        if (hex4(j, &lo))
            return 0;
        if (lo < 0xdc00 || lo > 0xdfff)
            return jfail(j, "a string has a lone surrogate"), 0;
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
    } else if (u >= 0xdc00 && u < 0xe000) {
        return jfail(j, "a string has a lone surrogate"), 0;
    }
    if (u == 0)
        return jfail(j, "a string holds a NUL character"), 0;
    return put_utf8(o, u);
}

/* A string value, malloc'd into *out. */
static int get_string(Json *j, char **out)
{
    *out = NULL;
    if (!eat(j, '"'))
        return jfail(j, "a string was expected");
    const char *start = j->p;
    while (j->p < j->end && *j->p != '"')
        j->p += *j->p == '\\' && j->p + 1 < j->end ? 2 : 1;
    if (j->p >= j->end)
        return jfail(j, "a string is not closed");
    size_t cap = (size_t)(j->p - start) + 1;
    const char *stop = j->p;
    char *o = malloc(cap), *w = o;
    if (!o)
        return j->err = AV_ERR_NOMEM;
    for (j->p = start; j->p < stop && !j->err;) {
        unsigned char c = (unsigned char)*j->p++;
        if (c == '\\')
            w += escape(j, w);
        else if (c < 0x20)
            jfail(j, "a string holds a control character");
        else
            *w++ = (char)c;
    }
    j->p = stop + 1;
    *w = 0;
    if (j->err)
        free(o);
    else
        *out = o;
    return j->err;
}

/* Any value, skipped (for unknown keys). */
static int skip_value(Json *j, int depth)
{
    skip_ws(j);
    if (depth > 32)
        return jfail(j, "nested too deeply");
    if (j->p < j->end && *j->p == '"') {
        char *s;
        get_string(j, &s);
        free(s);
        return j->err;
    }
    if (eat(j, '[') || eat(j, '{')) {
        char close = j->p[-1] == '[' ? ']' : '}';
        if (eat(j, close))
            return AV_OK;
        do {
            if (close == '}' && (skip_value(j, depth + 1) || !eat(j, ':')))
                return jfail(j, "an object is malformed");
            if (skip_value(j, depth + 1))
                return j->err;
        } while (eat(j, ','));
        return eat(j, close) ? AV_OK : jfail(j, "an array or object is not closed");
    }
    const char *start = j->p;
    while (j->p < j->end && strchr("+-.0123456789eEtruefalsn", *j->p))
        j->p++;
    return j->p > start ? AV_OK : jfail(j, "a value was expected");
}

static int get_number(Json *j, const char *key, double *v)
{
    skip_ws(j);
    char buf[64];
    size_t n = 0;
    while (j->p < j->end && n + 1 < sizeof buf && strchr("+-.0123456789eE", *j->p))
        buf[n++] = *j->p++;
    buf[n] = 0;
    char *e;
    *v = strtod(buf, &e);
    if (!n || *e || !isfinite(*v))
        return jfail(j, "\"%s\" is not a number", key);
    return AV_OK;
}

static int get_int(Json *j, const char *key, int *out)
{
    double v;
    if (get_number(j, key, &v))
        return j->err;
    if (v != floor(v) || v < 0 || v > 1e9)
        return jfail(j, "\"%s\" is not a whole number", key);
    *out = (int)v;
    return AV_OK;
}

static bool word(Json *j, const char *w)
{
    size_t n = strlen(w);
    skip_ws(j);
    if ((size_t)(j->end - j->p) >= n && memcmp(j->p, w, n) == 0) {
        j->p += n;
        return true;
    }
    return false;
}

static int get_vocab(Json *j, ModelSpec *s)
{
    int cap = 0;
    if (!eat(j, '['))
        return jfail(j, "\"vocab\" is not an array");
    if (eat(j, ']'))
        return jfail(j, "\"vocab\" is empty");
    do {
        if (s->V == cap) {
            cap = cap ? 2 * cap : 64;
            char **v = cap <= MODEL_MAX_VOCAB ? realloc(s->vocab, (size_t)cap * sizeof *v) : NULL;
            if (!v)
                return cap > MODEL_MAX_VOCAB ? jfail(j, "\"vocab\" is too long")
                                             : (j->err = AV_ERR_NOMEM);
            s->vocab = v;
        }
        if (get_string(j, &s->vocab[s->V]))
            return j->err;
        s->V++;
    } while (eat(j, ','));
    return eat(j, ']') ? AV_OK : jfail(j, "\"vocab\" is not closed");
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
    if (get_string(j, &str))
        return j->err;
    *out = pick(str, names, n);
    free(str);
    return *out < 0 ? jfail(j, "\"%s\" has an unknown value", key) : AV_OK;
}

/* One key's value into s; seen collects which keys were present. */
static int get_field(Json *j, const char *key, ModelSpec *s, unsigned *seen)
{
    static const char *const keys[] = {"format", "version", "task", "vocab", "tokenizer",
        "d_model", "heads", "layers", "context", "causal", "pe", "layernorm", "mlp",
        "activation", "steps", "seed"};
    static const char *const toks[] = {"chars", "words"}, *const acts[] = {"gelu", "relu"};
    int k = pick(key, keys, (int)(sizeof keys / sizeof *keys)), v = 0;
    char *str = NULL;
    double num;
    if (k >= 0)
        *seen |= 1u << k;
    switch (k) {
    case 0:
        if (get_string(j, &str) == AV_OK && strcmp(str, "attnviz-model") != 0)
            jfail(j, "\"format\" is not \"attnviz-model\"");
        free(str);
        return j->err;
    case 1: return get_int(j, key, &v) ? j->err : v != 1 ? jfail(j, "version %d unknown", v) : 0;
    case 2:
        if (get_string(j, &str) == AV_OK)
            snprintf(s->task, sizeof s->task, "%s", str);
        free(str);
        return j->err;
    case 3: return get_vocab(j, s);
    case 4: return get_enum(j, key, toks, 2, &v) ? j->err : (s->tokenizer = (ModelTok)v, 0);
    case 5: return get_int(j, key, &s->d_model);
    case 6: return get_int(j, key, &s->heads);
    case 7: return get_int(j, key, &s->layers);
    case 8: return get_int(j, key, &s->context);
    case 9: return word(j, "true") ? AV_OK : jfail(j, "only \"causal\": true is supported");
    case 10: return get_enum(j, key, PE_NAMES, 3, &v) ? j->err : (s->pe = (ModelPe)v, 0);
    case 11:
        if (word(j, "false"))
            return s->layernorm = false, AV_OK;
        return get_string(j, &str) ? j->err : (v = strcmp(str, "pre"), free(str), v)
               ? jfail(j, "\"layernorm\" is neither false nor \"pre\"") : (s->layernorm = true, 0);
    case 12: return get_int(j, key, &s->mlp);
    case 13: return get_enum(j, key, acts, 2, &v) ? j->err : (s->activation = (ModelAct)v, 0);
    case 14:
    case 15: /* whole numbers the integer types hold (a cast out of range is undefined) */
        if (get_number(j, key, &num))
            return j->err;
        if (num < 0 || num >= (k == 14 ? 9.2e18 : 1.8e19) || num != floor(num))
            return jfail(j, "\"%s\" is not a whole number in range", key);
        if (k == 14)
            s->steps = (long)num;
        else
            s->seed = (uint64_t)num;
        return AV_OK;
    default: return skip_value(j, 0);
    }
}

int modelfile_parse_json(const char *text, size_t len, ModelSpec *s, char *why,
                         size_t whylen)
{
    Json j = {.p = text, .end = text + len, .why = why, .whylen = whylen};
    unsigned seen = 0;
    memset(s, 0, sizeof *s);
    if (!eat(&j, '{'))
        jfail(&j, "not a JSON object");
    if (!j.err && !eat(&j, '}')) {
        do {
            char *key;
            if (get_string(&j, &key))
                break;
            if (!eat(&j, ':'))
                jfail(&j, "':' expected after \"%s\"", key);
            else
                get_field(&j, key, s, &seen);
            free(key);
        } while (!j.err && eat(&j, ','));
        if (!j.err && !eat(&j, '}'))
            jfail(&j, "'}' or ',' expected at byte %ld", (long)(j.p - text));
    }
    /* every key but "activation" must be there; "activation" too with an MLP */
    const unsigned need = 0xffffu & ~(1u << 13);
    if (!j.err && (seen & need) != need)
        jfail(&j, "a required field is missing");
    if (!j.err && s->mlp && !(seen & (1u << 13)))
        jfail(&j, "\"activation\" is missing (\"mlp\" is not 0)");
    if (!j.err && modelfile_check(s))
        jfail(&j, "the settings are inconsistent (sizes, limits or a repeated vocab entry)");
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

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST)
        return AV_OK;
    return AV_ERR_IO;
}

int modelfile_save(const char *dir, const ModelSpec *s, const float *params,
                   const char *heads_txt, char *which, size_t whichlen)
{
    char path[4096];
    ModelLayout lay;
    snprintf(which, whichlen, "%s", "");
    int err = modelfile_check(s);
    if (err)
        return err;
    if (make_dir(dir))
        return AV_ERR_IO;
    snprintf(which, whichlen, "%s", "");
    for (int l = 1; l <= s->layers; l++) {
        snprintf(path, sizeof path, "%s/layer%d", dir, l);
        snprintf(which, whichlen, "layer%d", l);
        if (make_dir(path))
            return AV_ERR_IO;
    }
    modelfile_layout(s, &lay);
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
    snprintf(path, sizeof path, "%s/model.json", dir);
    err = file_write_atomic(path, json, strlen(json), false);
    free(json);
    if (!err && heads_txt) {
        snprintf(which, whichlen, "heads.txt");
        snprintf(path, sizeof path, "%s/heads.txt", dir);
        err = file_write_atomic(path, heads_txt, strlen(heads_txt), false);
    }
    return err;
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
        snprintf(why, whylen, "%s: %s", path, err == AV_ERR_IO ? strerror(errno)
                 : av_strerror(err));
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
    int err = file_read_all(path, JSON_MAX_BYTES, &text, &len);
    if (err == AV_ERR_NOMEM)
        return err;
    if (err) {
        snprintf(why, whylen, "%s: %s", path, err == AV_ERR_IO ? strerror(errno)
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
