/* hfbertconf.c - a BERT-family config.json into a BertConfig (hfbert.h's
 * hfbert_parse_config), and where a sentence-transformers folder keeps its
 * BERT (modules.json). BERT and DistilBERT name the same sizes differently;
 * both sets of keys are read and the model type picks one. Keys that would
 * change the maths in a way the forward does not compute are refused.
 */
#include "io/hfbert.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/hfmodel.h"
#include "io/json.h"

enum { T_INT, T_NUM, T_STR, T_BOOL };

/* The keys read: BERT's, then DistilBERT's. */
enum {
    K_TYPE,
    K_VOCAB,
    K_POS,
    K_HIDDEN,
    K_LAYERS,
    K_HEADS,
    K_INTER,
    K_ACT,
    K_TYPES,
    K_EPS,
    K_POSTYPE,
    K_DECODER,
    K_CROSS,
    K_DIM,
    K_NLAYERS,
    K_NHEADS,
    K_HDIM,
    K_DACT,
    K_SINUS,
    K_TIE,
    K_N
};
static const struct {
    const char *name;
    int type;
} keys[K_N] = {
    {"model_type", T_STR},
    {"vocab_size", T_INT},
    {"max_position_embeddings", T_INT},
    {"hidden_size", T_INT},
    {"num_hidden_layers", T_INT},
    {"num_attention_heads", T_INT},
    {"intermediate_size", T_INT},
    {"hidden_act", T_STR},
    {"type_vocab_size", T_INT},
    {"layer_norm_eps", T_NUM},
    {"position_embedding_type", T_STR},
    {"is_decoder", T_BOOL},
    {"add_cross_attention", T_BOOL},
    {"dim", T_INT},
    {"n_layers", T_INT},
    {"n_heads", T_INT},
    {"hidden_dim", T_INT},
    {"activation", T_STR},
    {"sinusoidal_pos_embds", T_BOOL},
    {"tie_word_embeddings", T_BOOL},
};

typedef struct {
    Json j;
    char jwhy[200];
    int ints[K_N];
    double eps;
    char str[K_N][64];
    bool flag[K_N];
    unsigned seen;
} Conf;

static int take_value(Conf *c, int k)
{
    Json *j = &c->j;
    switch (keys[k].type) {
    case T_STR: {
        char *s;
        if (json_word(j, "null")) /* position_embedding_type: null is absolute */
            return AV_OK;
        if (json_string(j, &s))
            return j->err;
        st_printable(c->str[k], sizeof c->str[k], s);
        free(s);
        return AV_OK;
    }
    case T_BOOL:
        if (json_word(j, "true"))
            return c->flag[k] = true, AV_OK;
        if (json_word(j, "false"))
            return c->flag[k] = false, AV_OK;
        return json_fail(j, "\"%s\" is not true or false", keys[k].name);
    case T_NUM: return json_number(j, keys[k].name, &c->eps);
    default: return json_int(j, keys[k].name, &c->ints[k]);
    }
}

static int parse_object(Conf *c)
{
    Json *j = &c->j;
    if (!json_eat(j, '{'))
        return json_fail(j, "not a JSON object");
    if (json_eat(j, '}'))
        return AV_OK;
    do {
        char *key;
        if (json_key(j, &key, "a key is malformed"))
            return j->err;
        int k = 0;
        while (k < K_N && strcmp(key, keys[k].name) != 0)
            k++;
        free(key);
        if (k < K_N && (c->seen & 1u << k))
            return json_fail(j, "\"%s\" appears twice", keys[k].name);
        if (k < K_N)
            c->seen |= 1u << k;
        if (k < K_N ? take_value(c, k) : json_skip_value(j, 0))
            return j->err;
    } while (json_eat(j, ','));
    if (!json_eat(j, '}'))
        return json_fail(j, "the object is not closed");
    json_skip_ws(j);
    return j->p == j->end ? AV_OK : json_fail(j, "bytes follow the JSON object");
}

static bool out_of(Conf *c, int k, int lo, int hi)
{
    if (c->ints[k] >= lo && c->ints[k] <= hi)
        return false;
    json_fail(&c->j, "\"%s\" is %d; attnviz reads %d to %d", keys[k].name, c->ints[k], lo, hi);
    return true;
}

/* What changes the maths and is not computed: refused with the reason. */
static int refuse_maths(Conf *c, bool distil)
{
    Json *j = &c->j;
    const int act = distil ? K_DACT : K_ACT;
    if (strcmp(c->str[act], "gelu") != 0 && strcmp(c->str[act], "gelu_python") != 0)
        return json_fail(j,
                         "\"%s\" is \"%s\"; attnviz's BERT computes GELU's erf form only "
                         "(\"gelu\")",
                         keys[act].name, c->str[act]);
    if (distil && c->flag[K_SINUS])
        return json_fail(j, "\"sinusoidal_pos_embds\" is true; attnviz's DistilBERT reads "
                            "learned positions only");
    if (!distil && c->str[K_POSTYPE][0] && strcmp(c->str[K_POSTYPE], "absolute") != 0)
        return json_fail(j,
                         "\"position_embedding_type\" is \"%s\", which changes the maths; "
                         "attnviz computes \"absolute\" positions only",
                         c->str[K_POSTYPE]);
    if (!distil && (c->flag[K_DECODER] || c->flag[K_CROSS]))
        return json_fail(j,
                         "\"%s\" is true, which changes the maths; attnviz's BERT is an "
                         "encoder without cross-attention",
                         keys[c->flag[K_DECODER] ? K_DECODER : K_CROSS].name);
    return AV_OK;
}

static int check(Conf *c, BertConfig *cfg, bool *distil)
{
    Json *j = &c->j;
    if (!(c->seen & 1u << K_TYPE))
        return json_fail(j, "no \"model_type\"; a BERT folder says \"model_type\": \"bert\"");
    *distil = strcmp(c->str[K_TYPE], "distilbert") == 0;
    if (!*distil && strcmp(c->str[K_TYPE], "bert") != 0)
        return json_fail(j,
                         "\"model_type\" is \"%s\"; attnviz reads \"bert\" and "
                         "\"distilbert\" here",
                         c->str[K_TYPE]);
    if (refuse_maths(c, *distil))
        return j->err;
    const int D = *distil ? K_DIM : K_HIDDEN, L = *distil ? K_NLAYERS : K_LAYERS,
              H = *distil ? K_NHEADS : K_HEADS, F = *distil ? K_HDIM : K_INTER;
    if (out_of(c, K_VOCAB, 1, HF_MAX_VOCAB) || out_of(c, K_POS, 1, AV_MAX_TOKENS) ||
        out_of(c, D, 1, AV_MAX_D_MODEL) || out_of(c, H, 1, AV_MAX_HEADS) ||
        out_of(c, L, 1, AV_MAX_LAYERS) || out_of(c, F, 1, HF_MAX_D_FF) ||
        (!*distil && out_of(c, K_TYPES, 1, 64)))
        return j->err;
    if (c->ints[D] % c->ints[H] != 0)
        return json_fail(j, "\"%s\" %d is not divisible by \"%s\" %d", keys[D].name, c->ints[D],
                         keys[H].name, c->ints[H]);
    if (!((float)c->eps > 0 && c->eps < 1))
        return json_fail(j,
                         "\"layer_norm_eps\" is %g; it must be above 0 (as a float32) and "
                         "below 1",
                         c->eps);
    *cfg = (BertConfig){
        c->ints[K_VOCAB], c->ints[K_POS], *distil ? 0 : c->ints[K_TYPES],  c->ints[D], c->ints[H],
        c->ints[L],       c->ints[F],     *distil ? 1e-12f : (float)c->eps};
    return AV_OK;
}

static void defaults(Conf *c)
{
    static const int v[K_N] = {
        [K_VOCAB] = 30522, [K_POS] = 512,    [K_HIDDEN] = 768, [K_LAYERS] = 12,
        [K_HEADS] = 12,    [K_INTER] = 3072, [K_TYPES] = 2,    [K_DIM] = 768,
        [K_NLAYERS] = 6,   [K_NHEADS] = 12,  [K_HDIM] = 3072};
    memcpy(c->ints, v, sizeof v);
    c->eps = 1e-12;
    snprintf(c->str[K_ACT], sizeof c->str[K_ACT], "gelu");
    snprintf(c->str[K_DACT], sizeof c->str[K_DACT], "gelu");
}

int hfbert_parse_config(const char *text, size_t len, const char *name, BertConfig *cfg,
                        bool *distil, bool *tie, char *why, size_t whylen)
{
    Conf *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, whylen, "%s: %s", name, av_strerror(AV_ERR_NOMEM));
        return AV_ERR_NOMEM;
    }
    c->j = (Json){text, text + len, c->jwhy, sizeof c->jwhy, 0};
    defaults(c);
    memset(cfg, 0, sizeof *cfg);
    *distil = false;
    int rc = parse_object(c);
    if (rc == AV_ERR_NOMEM)
        snprintf(why, whylen, "%s: %s", name, av_strerror(rc));
    else if (rc != AV_OK)
        snprintf(why, whylen, "%s: byte %zu: %s", name, (size_t)(c->j.p - text), c->jwhy);
    else if ((rc = check(c, cfg, distil)) != AV_OK)
        snprintf(why, whylen, "%s: %s", name, c->jwhy);
    if (tie) /* transformers ties the decoder unless told not to */
        *tie = !(c->seen & 1u << K_TIE) || c->flag[K_TIE];
    if (rc != AV_OK && rc != AV_ERR_NOMEM)
        rc = AV_ERR_MODEL;
    free(c);
    return rc;
}

bool hfbert_config_is_bert(const char *text, size_t len)
{
    Conf *c = calloc(1, sizeof *c);
    if (!c)
        return false;
    c->j = (Json){text, text + len, c->jwhy, sizeof c->jwhy, 0};
    parse_object(c); /* a fault after "model_type" is hfbert_parse_config's to say */
    bool yes = (c->seen & 1u << K_TYPE) &&
               (strcmp(c->str[K_TYPE], "bert") == 0 || strcmp(c->str[K_TYPE], "distilbert") == 0);
    free(c);
    return yes;
}

/* ------------------------------------------------ the sentence-transformers layout */

#define MODULES_MAX_BYTES (1 << 20)

/* One object of modules.json: its "path" into path when its "type" is a
 * Transformer module (*found set). */
static int module_object(Json *j, char *path, size_t size, bool *found)
{
    char type[128] = "", where[1024] = "";
    bool has_path = false;
    if (!json_eat(j, '{'))
        return json_fail(j, "a module is not a JSON object");
    if (json_eat(j, '}'))
        return AV_OK;
    do {
        char *key = NULL, *s = NULL;
        if (json_key(j, &key, "a key is malformed"))
            return j->err;
        bool is_type = strcmp(key, "type") == 0, is_path = strcmp(key, "path") == 0;
        free(key);
        if (!is_type && !is_path) {
            if (json_skip_value(j, 0))
                return j->err;
            continue;
        }
        if (json_string(j, &s))
            return j->err;
        snprintf(is_type ? type : where, is_type ? sizeof type : sizeof where, "%s", s);
        has_path |= is_path;
        free(s);
    } while (json_eat(j, ','));
    if (!json_eat(j, '}'))
        return json_fail(j, "a module is not closed");
    if (!*found && file_name_ends(type, "models.Transformer")) {
        if (!has_path)
            return json_fail(j, "the Transformer module has no \"path\"");
        if (where[0] == '/' || strstr(where, "..") || strlen(where) >= size)
            return json_fail(j, "the Transformer module's path \"%s\" leaves the folder",
                             st_printable((char[96]){0}, 96, where));
        snprintf(path, size, "%s", where);
        *found = true;
    }
    return AV_OK;
}

static int parse_modules(Json *j, char *path, size_t size)
{
    bool found = false;
    if (!json_eat(j, '['))
        return json_fail(j, "not a JSON array of modules");
    if (!json_eat(j, ']')) {
        do
            if (module_object(j, path, size, &found))
                return j->err;
        while (json_eat(j, ','));
        if (!json_eat(j, ']'))
            return json_fail(j, "the array is not closed");
    }
    json_skip_ws(j);
    if (j->p != j->end)
        return json_fail(j, "bytes follow the JSON array");
    return found ? AV_OK : json_fail(j, "no sentence_transformers.models.Transformer module");
}

int hfbert_model_dir(const char *dir, char *out, size_t size, char *why, size_t whylen)
{
    char path[4096], *text;
    size_t len;
    struct stat st;
    snprintf(path, sizeof path, "%s/modules.json", dir);
    if (stat(path, &st) != 0) {
        snprintf(out, size, "%s", dir);
        return AV_OK;
    }
    int rc = file_read_in(dir, "modules.json", MODULES_MAX_BYTES, &text, &len, why, whylen);
    if (rc)
        return rc == AV_ERR_IO ? rc : AV_ERR_MODEL;
    char jwhy[200], sub[1024] = "";
    Json j = {text, text + len, jwhy, sizeof jwhy, 0};
    rc = parse_modules(&j, sub, sizeof sub);
    if (rc == AV_ERR_NOMEM)
        snprintf(why, whylen, "modules.json: %s", av_strerror(rc));
    else if (rc)
        snprintf(why, whylen, "modules.json: byte %zu: %s", (size_t)(j.p - text), jwhy);
    free(text);
    if (rc)
        return rc == AV_ERR_NOMEM ? rc : AV_ERR_MODEL;
    size_t n = strlen(sub);
    while (n && sub[n - 1] == '/')
        sub[--n] = 0;
    if ((size_t)snprintf(out, size, n ? "%s/%s" : "%s", dir, sub) >= size) {
        snprintf(why, whylen, "modules.json: the path is too long");
        return AV_ERR_MODEL;
    }
    return AV_OK;
}

bool hfbert_is_folder(const char *dir)
{
    char sub[4096], why[256], *text;
    size_t len;
    struct stat st;
    snprintf(sub, sizeof sub, "%s/modules.json", dir);
    if (stat(sub, &st) == 0)
        return true;
    snprintf(sub, sizeof sub, "%s/config.json", dir);
    if (stat(sub, &st) != 0 || !S_ISREG(st.st_mode) ||
        file_read_in(dir, "config.json", HF_MAX_CONFIG_BYTES, &text, &len, why, sizeof why))
        return false;
    bool yes = hfbert_config_is_bert(text, len);
    free(text);
    return yes;
}
