/* infer.c - saved models run forward, text encoded in their vocabulary, and
 * seeded sampling one token at a time (the articles' decoder).
 */
#include "train/infer.h"

#include "core/sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"

int infer_load(Net *net, const char *dir, char *why, size_t whylen)
{
    ModelSpec s;
    float *params;
    memset(net, 0, sizeof *net);
    int err = modelfile_load(dir, &s, &params, why, whylen);
    if (err)
        return err;
    err = net_init(net, &s, 1, false);
    if (!err)
        memcpy(net->params, params, net->layout.total * sizeof *params);
    else if (err == AV_ERR_MODEL)
        snprintf(why, whylen, "%s/model.json: a model attnviz cannot run", dir);
    free(params);
    modelfile_spec_free(&s);
    return err;
}

/* Bytes of the UTF-8 character at p (1 for a bad lead byte: caught later). */
static int char_len(unsigned char c)
{
    return c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

static int lookup(const ModelSpec *s, const char *piece, size_t len)
{
    for (int i = 0; i < s->V; i++)
        if (strlen(s->vocab[i]) == len && memcmp(s->vocab[i], piece, len) == 0)
            return i;
    return -1;
}

int infer_encode(const ModelSpec *s, const char *text, size_t len, int *ids, int max, int *n,
                 char *bad, size_t badlen)
{
    *n = 0;
    for (size_t at = 0; at < len;) {
        size_t k;
        if (s->tokenizer == MODEL_TOK_WORDS) {
            if (strchr(" \t\r\n", text[at])) {
                at++;
                continue;
            }
            for (k = 0; at + k < len && !strchr(" \t\r\n", text[at + k]); k++)
                ;
        } else {
            k = (size_t)char_len((unsigned char)text[at]);
            if (at + k > len)
                return AV_ERR_UTF8;
            for (size_t j = 1; j < k; j++)
                if (((unsigned char)text[at + j] & 0xc0) != 0x80)
                    return AV_ERR_UTF8;
        }
        int id = lookup(s, text + at, k);
        if (id < 0) {
            snprintf(bad, badlen, "%.*s", (int)k, text + at);
            return AV_ERR_VOCAB;
        }
        if (*n == max)
            return AV_ERR_TOO_MANY;
        ids[(*n)++] = id;
        at += k;
    }
    return *n ? AV_OK : AV_ERR_EMPTY;
}

size_t infer_decode(const ModelSpec *s, const int *ids, int n, char *buf, size_t cap)
{
    size_t need = 0;
    for (int i = 0; i < n; i++) {
        const char *sep = s->tokenizer == MODEL_TOK_WORDS && i ? " " : "";
        int w = snprintf(buf + (need < cap ? need : cap), need < cap ? cap - need : 0, "%s%s", sep,
                         ids[i] >= 0 && ids[i] < s->V ? s->vocab[ids[i]] : "?");
        need += (size_t)w;
    }
    if (cap)
        buf[need < cap ? need : cap - 1] = 0;
    return need;
}

int infer_run(Net *net, const int *ids, int n)
{
    if (n < 1)
        return AV_ERR_CONFIG;
    int first = n > net->spec.context ? n - net->spec.context : 0;
    return net_forward(net, ids + first, NULL, NULL, 1, n - first, NULL);
}

int infer_next(Net *net, const int *ids, int n, float temperature, int top_k, Rng *r, int *next)
{
    int err = infer_run(net, ids, n);
    if (err)
        return err;
    const float *row = net->logits + (long)(net->n - 1) * net->spec.V;
    Sampling smp = {.temperature = temperature, .top_k = top_k};
    *next = sample_token(row, net->spec.V, &smp, r);
    return AV_OK;
}

int infer_generate(Net *net, int *ids, int n0, int count, float temperature, int top_k,
                   uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < count; i++) {
        int err = infer_next(net, ids, n0 + i, temperature, top_k, &r, &ids[n0 + i]);
        if (err)
            return err;
    }
    return AV_OK;
}
