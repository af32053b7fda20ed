/* hfconfig.c - a Hugging Face GPT-2 config.json into a Gpt2Config
 * (hfmodel.h's hfmodel_parse_config). Reads the keys that set GPT-2's sizes
 * and refuses those that would change its maths in a way the forward does not
 * implement; every other key is skipped (architectures, task_specific_params
 * and the like) but "attnviz", what attnviz's own --format hf wrote (its
 * task and seed) and tie_word_embeddings. A key missing takes GPT2Config's
 * default.
 */
#include "io/hfmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/json.h"

/* The keys read; a key read twice is refused (Python would keep the last). */
enum {
    K_TYPE,
    K_VOCAB,
    K_NVOCAB,
    K_POS,
    K_CTX,
    K_EMBD,
    K_HEAD,
    K_LAYER,
    K_INNER,
    K_EPS,
    K_ACT,
    K_SCALE,
    K_CROSS,
    K_SCALE_W,
    K_TIE,
    K_N
};
static const char *const keys[K_N] = {
    "model_type",
    "vocab_size",
    "n_vocab",
    "n_positions",
    "n_ctx",
    "n_embd",
    "n_head",
    "n_layer",
    "n_inner",
    "layer_norm_epsilon",
    "activation_function",
    "scale_attn_by_inverse_layer_idx",
    "add_cross_attention",
    "scale_attn_weights",
    "tie_word_embeddings",
};

typedef struct {
    Json j;
    char jwhy[200];
    int ints[K_N]; /* for the whole-number keys; -1 when n_inner is null */
    double eps;
    char type[64], act[64];
    bool flag[K_N];
    unsigned seen;
    HfOrigin origin; /* the "attnviz" object's */
} Conf;

/* A string value into buf, printable (cut when long; such a value cannot
 * match a name anyway). */
static int take_string(Conf *c, char *buf, size_t size)
{
    char *s;
    if (json_string(&c->j, &s))
        return c->j.err;
    st_printable(buf, size, s);
    free(s);
    return AV_OK;
}

static int take_value(Conf *c, int k)
{
    Json *j = &c->j;
    switch (k) {
    case K_TYPE: return take_string(c, c->type, sizeof c->type);
    case K_ACT: return take_string(c, c->act, sizeof c->act);
    case K_EPS: return json_number(j, keys[k], &c->eps);
    case K_SCALE:
    case K_CROSS:
    case K_SCALE_W:
    case K_TIE:
        if (json_word(j, "true"))
            return c->flag[k] = true, AV_OK;
        if (json_word(j, "false"))
            return c->flag[k] = false, AV_OK;
        return json_fail(j, "\"%s\" is not true or false", keys[k]);
    case K_INNER:
        if (json_word(j, "null"))
            return c->ints[k] = -1, AV_OK;
        return json_int(j, keys[k], &c->ints[k]);
    default: return json_int(j, keys[k], &c->ints[k]);
    }
}

static bool next_is(Json *j, const char *chars)
{
    json_skip_ws(j);
    return j->p < j->end && strchr(chars, *j->p);
}

/* "attnviz": {"task": "induction", "seed": 1, ...} (hfwrite.c's): task and
 * seed kept when they are a string and a whole number, every other key and
 * value skipped; another tool's value of another type is skipped whole. */
static int parse_origin(Conf *c)
{
    Json *j = &c->j;
    if (!json_eat(j, '{'))
        return json_skip_value(j, 0);
    if (json_eat(j, '}'))
        return AV_OK;
    do {
        char *key;
        if (json_key(j, &key, "a key of \"attnviz\" is malformed"))
            return j->err;
        int which = !strcmp(key, "task") ? 1 : !strcmp(key, "seed") ? 2 : 0;
        free(key);
        double seed;
        if (which == 1 && next_is(j, "\"")) {
            if (take_string(c, c->origin.task, sizeof c->origin.task))
                return j->err;
        } else if (which == 2 && next_is(j, "0123456789")) {
            if (json_number(j, "seed", &seed))
                return j->err;
            if (seed == floor(seed) && seed < 18446744073709551616.0)
                c->origin.seed = (unsigned long long)seed;
        } else if (json_skip_value(j, 1)) {
            return j->err;
        }
    } while (json_eat(j, ','));
    return json_eat(j, '}') ? AV_OK : json_fail(j, "\"attnviz\" is not closed");
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
        while (k < K_N && strcmp(key, keys[k]) != 0)
            k++;
        bool origin = strcmp(key, "attnviz") == 0;
        free(key);
        if (k < K_N && (c->seen & 1u << k))
            return json_fail(j, "\"%s\" appears twice", keys[k]);
        if (k < K_N)
            c->seen |= 1u << k;
        if (k < K_N ? take_value(c, k) : origin ? parse_origin(c) : json_skip_value(j, 0))
            return j->err;
    } while (json_eat(j, ','));
    if (!json_eat(j, '}'))
        return json_fail(j, "the object is not closed");
    json_skip_ws(j);
    return j->p == j->end ? AV_OK : json_fail(j, "bytes follow the JSON object");
}

/* One size within [lo, hi], or a reason. */
static bool out_of(Conf *c, int k, int lo, int hi)
{
    if (c->ints[k] >= lo && c->ints[k] <= hi)
        return false;
    json_fail(&c->j, "\"%s\" is %d; attnviz reads %d to %d", keys[k], c->ints[k], lo, hi);
    return true;
}

/* What the keys say, or the first thing refused. */
static int check(Conf *c, Gpt2Config *cfg)
{
    Json *j = &c->j;
    int *v = c->ints;
    if (!(c->seen & 1u << K_TYPE))
        return json_fail(j, "no \"model_type\"; a GPT-2 folder says \"model_type\": \"gpt2\"");
    if (strcmp(c->type, "gpt2") != 0)
        return json_fail(j,
                         "\"model_type\" is \"%s\"; attnviz reads GPT-2 (\"gpt2\"), BERT "
                         "(\"bert\") and DistilBERT (\"distilbert\") only",
                         c->type);
    if (strcmp(c->act, "gelu_new") != 0 && strcmp(c->act, "gelu_pytorch_tanh") != 0)
        return json_fail(j,
                         "\"activation_function\" is \"%s\"; attnviz's GPT-2 has GELU's tanh "
                         "form only (gelu_new, gelu_pytorch_tanh)",
                         c->act);
    if (c->flag[K_SCALE] || c->flag[K_CROSS])
        return json_fail(j,
                         "\"%s\" is true, which changes the maths; attnviz does not "
                         "implement it",
                         keys[c->flag[K_SCALE] ? K_SCALE : K_CROSS]);
    if ((c->seen & 1u << K_SCALE_W) && !c->flag[K_SCALE_W]) /* scores not divided by sqrt(d_k) */
        return json_fail(j, "\"scale_attn_weights\" is false, which changes the maths; "
                            "attnviz's GPT-2 divides the scores by sqrt(d_k)");
    if ((c->seen & 1u << K_VOCAB) && (c->seen & 1u << K_NVOCAB) && v[K_VOCAB] != v[K_NVOCAB])
        return json_fail(j, "\"vocab_size\" %d and \"n_vocab\" %d differ", v[K_VOCAB], v[K_NVOCAB]);
    if (!(c->seen & 1u << K_VOCAB) && (c->seen & 1u << K_NVOCAB))
        v[K_VOCAB] = v[K_NVOCAB];
    if (!(c->seen & 1u << K_POS) && (c->seen & 1u << K_CTX))
        v[K_POS] = v[K_CTX];
    if (out_of(c, K_VOCAB, 1, HF_MAX_VOCAB) || out_of(c, K_POS, 1, HF_MAX_CTX) ||
        out_of(c, K_EMBD, 1, HF_MAX_D_MODEL) || out_of(c, K_HEAD, 1, AV_MAX_HEADS) ||
        out_of(c, K_LAYER, 1, AV_MAX_LAYERS))
        return j->err;
    if (v[K_EMBD] % v[K_HEAD] != 0)
        return json_fail(j, "\"n_embd\" %d is not divisible by \"n_head\" %d", v[K_EMBD],
                         v[K_HEAD]);
    if (v[K_INNER] < 0)
        v[K_INNER] = 4 * v[K_EMBD];
    if (out_of(c, K_INNER, 1, HF_MAX_D_FF))
        return j->err;
    if (!((float)c->eps > 0 && c->eps < 1)) /* above 0 as a float32 too */
        return json_fail(j,
                         "\"layer_norm_epsilon\" is %g; it must be above 0 (as a float32) "
                         "and below 1",
                         c->eps);
    *cfg = (Gpt2Config){v[K_VOCAB], v[K_POS],   v[K_EMBD],    v[K_HEAD],
                        v[K_LAYER], v[K_INNER], (float)c->eps};
    return AV_OK;
}

int hfmodel_parse_config(const char *text, size_t len, const char *name, Gpt2Config *cfg,
                         HfOrigin *origin, char *why, size_t whylen)
{
    Conf c = {.eps = 1e-5, .act = "gelu_new", .origin = {.seed = 1}};
    c.j = (Json){text, text + len, c.jwhy, sizeof c.jwhy, 0};
    /* GPT2Config's defaults: gpt2's own sizes */
    c.ints[K_VOCAB] = 50257;
    c.ints[K_POS] = 1024;
    c.ints[K_EMBD] = 768;
    c.ints[K_HEAD] = 12;
    c.ints[K_LAYER] = 12;
    c.ints[K_INNER] = -1;
    memset(cfg, 0, sizeof(*cfg));
    int rc = parse_object(&c);
    if (rc == AV_ERR_NOMEM) {
        snprintf(why, whylen, "%s: %s", name, av_strerror(rc));
        return rc;
    }
    if (rc != AV_OK) {
        snprintf(why, whylen, "%s: byte %zu: %s", name, (size_t)(c.j.p - text), c.jwhy);
        return AV_ERR_MODEL;
    }
    if (check(&c, cfg) != AV_OK) {
        snprintf(why, whylen, "%s: %s", name, c.jwhy);
        return AV_ERR_MODEL;
    }
    /* transformers ties lm_head to wte unless told not to, whatever the file holds */
    c.origin.tie = !(c.seen & 1u << K_TIE) || c.flag[K_TIE];
    if (origin)
        *origin = c.origin;
    return AV_OK;
}
