/* hfwordpiece.c - BERT's tokenizer files (hfwordpiece.h): vocab.txt or
 * tokenizer.json's WordPiece model, and tokenizer_config.json's
 * do_lower_case, given to core/wordpiece.c, which checks ids and the special
 * tokens. Reads the files whole; nothing is printed.
 */
#include "io/hfwordpiece.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/json.h"

/* One line break at text[p] (\n, \r\n or \r): its length, or 0. */
static size_t line_break(const char *text, size_t len, size_t p)
{
    if (text[p] == '\n')
        return 1;
    if (text[p] == '\r')
        return p + 1 < len && text[p + 1] == '\n' ? 2 : 1;
    return 0;
}

/* The tokens of vocab.txt: the count of lines (a last one without a break
 * counts, an empty text has none). */
static int count_lines(const char *txt, size_t len)
{
    long n = 0;
    for (size_t p = 0; p < len && n <= (1L << 24);) {
        size_t q = p;
        while (q < len && !line_break(txt, len, q))
            q++;
        n++;
        p = q < len ? q + line_break(txt, len, q) : len;
    }
    return n > (1L << 24) ? -1 : (int)n;
}

static int finish(WordPiece *w, const char *file, const char *unk, char *why, size_t whylen)
{
    char msg[160];
    int rc = wp_finish(w, unk, msg, sizeof msg);
    if (rc)
        snprintf(why, whylen, "%s: %s", file, msg);
    return rc;
}

int hfwp_parse_vocab(const char *txt, size_t len, bool lower, WordPiece *w, char *why,
                     size_t whylen)
{
    const char *f = "vocab.txt";
    int n = count_lines(txt, len);
    memset(w, 0, sizeof *w);
    if (n <= 0) {
        snprintf(why, whylen, "%s: %s", f, n ? "more than 16,777,216 lines" : "empty");
        return AV_ERR_MODEL;
    }
    int rc = wp_init(w, n);
    if (rc)
        return rc;
    w->lower = w->strip = lower;
    size_t p = 0;
    char msg[160];
    for (int id = 0; id < n && !rc; id++) {
        size_t q = p;
        while (q < len && !line_break(txt, len, q))
            q++;
        rc = wp_set_token(w, id, txt + p, q - p, msg, sizeof msg);
        if (rc == AV_ERR_MODEL)
            snprintf(why, whylen, "%s: line %d: %s", f, id + 1, msg);
        p = q < len ? q + line_break(txt, len, q) : len;
    }
    if (!rc)
        rc = finish(w, f, NULL, why, whylen);
    if (rc)
        wp_free(w);
    return rc;
}

/* Fail with "FILE: byte K: ..." unless a reason is already set. */
static int refuse_in(Json *j, const char *file, const char *base, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse_in(Json *j, const char *file, const char *base, const char *fmt, ...)
{
    if (j->err)
        return j->err;
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return json_fail(j, "%s: byte %zu: %s", file, (size_t)(j->p - base), msg);
}

#define refuse(j, base, ...) refuse_in(j, "tokenizer.json", base, __VA_ARGS__)

/* A reason from json.c (bad JSON) prefixed with the file's name. */
static int name_file(int rc, const char *file, char *why, size_t whylen)
{
    if (rc == AV_ERR_MODEL && strncmp(why, file, strlen(file)) != 0) {
        char inner[200];
        snprintf(inner, sizeof inner, "%s", why);
        snprintf(why, whylen, "%s: %s", file, inner);
    }
    return rc;
}

/* Walk an object's members, calling member(key) with j at the value; the
 * callback reads or skips the value. */
typedef int (*MemberFn)(void *ctx, Json *j, const char *key);

static int each_member(Json *j, const char *file, const char *base, const char *what, MemberFn fn,
                       void *ctx)
{
    if (!json_eat(j, '{'))
        return refuse_in(j, file, base, "%s is not a JSON object", what);
    if (json_eat(j, '}'))
        return AV_OK;
    do {
        char *key;
        if (json_string(j, &key))
            return j->err;
        int rc =
            json_eat(j, ':') ? fn(ctx, j, key) : refuse_in(j, file, base, "a ':' was expected");
        free(key);
        if (rc)
            return rc;
    } while (json_eat(j, ','));
    if (!json_eat(j, '}'))
        return refuse_in(j, file, base, "%s is not closed", what);
    return AV_OK;
}

/* What tokenizer.json's model says. */
typedef struct {
    const char *base;
    const char *vocab; /* where model.vocab begins */
    char *unk;         /* model.unk_token, or NULL */
    char prefix[WP_PREFIX_MAX];
    int prefix_len; /* -1: not given */
    int max_chars;  /* 0: not given */
    int model_seen;
} TokJson;

static int model_string(Json *j, const char *base, const char *key, char **out)
{
    free(*out);
    *out = NULL;
    if (json_string(j, out))
        return j->err = AV_OK, refuse(j, base, "model.%s is not a string", key);
    return AV_OK;
}

static int model_member(void *ctx, Json *j, const char *key)
{
    TokJson *t = ctx;
    json_skip_ws(j);
    char *s = NULL;
    int rc = AV_OK;
    if (strcmp(key, "type") == 0) {
        if (!(rc = model_string(j, t->base, key, &s)) && strcmp(s, "WordPiece") != 0)
            rc = refuse(j, t->base, "model.type is not \"WordPiece\"");
    } else if (strcmp(key, "unk_token") == 0) {
        rc = model_string(j, t->base, key, &t->unk);
    } else if (strcmp(key, "continuing_subword_prefix") == 0) {
        if (!(rc = model_string(j, t->base, key, &s))) {
            if (strlen(s) >= WP_PREFIX_MAX)
                rc = refuse(j, t->base, "model.%s is longer than %d bytes", key, WP_PREFIX_MAX - 1);
            else
                t->prefix_len = (int)strlen(s), memcpy(t->prefix, s, strlen(s));
        }
    } else if (strcmp(key, "max_input_chars_per_word") == 0) {
        if (json_int(j, key, &t->max_chars) || t->max_chars < 1)
            rc = j->err = AV_OK, refuse(j, t->base, "model.%s is not a whole number from 1", key);
    } else {
        if (strcmp(key, "vocab") == 0)
            t->vocab = j->p;
        rc = json_skip_value(j, 1);
    }
    free(s);
    return rc;
}

static int top_member(void *ctx, Json *j, const char *key)
{
    TokJson *t = ctx;
    if (strcmp(key, "model") != 0)
        return json_skip_value(j, 1);
    t->model_seen = 1;
    return each_member(j, "tokenizer.json", t->base, "model", model_member, t);
}

/* model.vocab, counted (count: w NULL) or given to w. */
static int read_vocab(Json *j, const char *base, WordPiece *w, int *count)
{
    if (!json_eat(j, '{'))
        return refuse(j, base, "model.vocab is not a JSON object");
    if (json_eat(j, '}'))
        return refuse(j, base, "model.vocab is empty");
    *count = 0;
    do {
        char *tok, msg[160];
        int id;
        if (json_string(j, &tok))
            return j->err;
        const char *at = j->p;
        if (!json_eat(j, ':')) {
            free(tok);
            return refuse(j, base, "a ':' was expected after a token");
        }
        json_skip_ws(j);
        if (json_int(j, "id", &id)) {
            free(tok);
            return j->err = AV_OK, refuse(j, base, "a token's id is not a whole number from 0");
        }
        int rc = w ? wp_set_token(w, id, tok, strlen(tok), msg, sizeof msg) : AV_OK;
        free(tok);
        if (rc == AV_ERR_MODEL)
            return j->p = at, refuse(j, base, "model.vocab: %s", msg);
        if (rc)
            return j->err = rc;
        if (++*count > (1 << 24))
            return refuse(j, base, "model.vocab has more than 16,777,216 tokens");
    } while (json_eat(j, ','));
    if (!json_eat(j, '}'))
        return refuse(j, base, "model.vocab is not closed");
    return AV_OK;
}

/* The vocabulary of a parsed tokenizer.json into a fresh *w. */
static int build(Json *j, const TokJson *t, bool lower, WordPiece *w)
{
    int n = 0, rc;
    j->p = t->vocab;
    if ((rc = read_vocab(j, t->base, NULL, &n)))
        return rc;
    if ((rc = wp_init(w, n)))
        return rc;
    w->lower = w->strip = lower;
    if (t->prefix_len >= 0)
        memcpy(w->prefix, t->prefix, (size_t)t->prefix_len), w->prefix_len = (size_t)t->prefix_len;
    if (t->max_chars > 0)
        w->max_chars = t->max_chars;
    j->p = t->vocab;
    return read_vocab(j, t->base, w, &n);
}

int hfwp_parse_tokenizer(const char *json, size_t len, bool lower, WordPiece *w, char *why,
                         size_t whylen)
{
    TokJson t = {.base = json, .prefix_len = -1};
    Json j = {json, json + len, why, whylen, AV_OK};
    memset(w, 0, sizeof *w);
    int rc = each_member(&j, "tokenizer.json", json, "the file", top_member, &t);
    json_skip_ws(&j);
    if (!rc && j.p != j.end)
        rc = refuse(&j, json, "text follows the top object");
    if (!rc && (!t.model_seen || !t.vocab)) {
        snprintf(why, whylen, "tokenizer.json: no %s", t.model_seen ? "model.vocab" : "\"model\"");
        rc = AV_ERR_MODEL;
    }
    if (!rc)
        rc = build(&j, &t, lower, w);
    if (!rc)
        rc = finish(w, "tokenizer.json", t.unk, why, whylen);
    free(t.unk);
    name_file(rc, "tokenizer.json", why, whylen);
    if (rc)
        wp_free(w);
    return rc;
}

/* The config's base, for byte offsets in its messages. */
typedef struct {
    const char *base;
    bool *lower;
    int strip; /* -1: absent or null */
} Config;

static int config_member(void *ctx, Json *j, const char *key)
{
    Config *c = ctx;
    int lower = strcmp(key, "do_lower_case") == 0;
    if (!lower && strcmp(key, "strip_accents") != 0)
        return json_skip_value(j, 1);
    int v = json_word(j, "true") ? 1 : json_word(j, "false") ? 0 : -1;
    if (v < 0 && (lower || !json_word(j, "null")))
        return refuse_in(j, "tokenizer_config.json", c->base, "%s is not true or false", key);
    if (lower)
        *c->lower = v;
    else
        c->strip = v;
    return AV_OK;
}

int hfwp_parse_config(const char *json, size_t len, bool *lower, bool *strip, char *why,
                      size_t whylen)
{
    const char *f = "tokenizer_config.json";
    Json j = {json, json + len, why, whylen, AV_OK};
    Config c = {json, lower, -1};
    *lower = true;
    int rc = each_member(&j, f, json, "the file", config_member, &c);
    json_skip_ws(&j);
    if (!rc && j.p != j.end)
        rc = refuse_in(&j, f, json, "text follows the top object");
    *strip = c.strip < 0 ? *lower : c.strip;
    return name_file(rc, f, why, whylen);
}

/* Read dir/name whole (file_read_in), at most HFWP_MAX_FILE bytes. */
static int read_file(const char *dir, const char *name, char **data, size_t *len, char *why,
                     size_t whylen)
{
    return file_read_in(dir, name, HFWP_MAX_FILE, data, len, why, whylen);
}

int hfwp_read_dir(const char *dir, WordPiece *w, char *why, size_t whylen)
{
    char *data = NULL;
    size_t len = 0;
    bool lower = true, strip = true;
    memset(w, 0, sizeof *w);
    int rc = read_file(dir, "tokenizer_config.json", &data, &len, why, whylen);
    if (rc == AV_ERR_IO && errno == ENOENT)
        rc = AV_OK; /* absent: the tokenizer's default, lower-casing */
    else if (!rc)
        rc = hfwp_parse_config(data, len, &lower, &strip, why, whylen);
    free(data), data = NULL;
    if (rc)
        return rc;
    const char *name = "vocab.txt";
    rc = read_file(dir, name, &data, &len, why, whylen);
    if (rc == AV_ERR_IO && errno == ENOENT) {
        name = "tokenizer.json";
        rc = read_file(dir, name, &data, &len, why, whylen);
        if (rc == AV_ERR_IO && errno == ENOENT) {
            snprintf(why, whylen, "%s: no vocab.txt nor tokenizer.json", dir);
            rc = AV_ERR_MODEL;
        }
    }
    if (!rc && name[0] == 'v')
        rc = hfwp_parse_vocab(data, len, lower, w, why, whylen);
    else if (!rc)
        rc = hfwp_parse_tokenizer(data, len, lower, w, why, whylen);
    free(data);
    if (!rc)
        w->strip = strip;
    return rc;
}
