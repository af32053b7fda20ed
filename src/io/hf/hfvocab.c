/* hfvocab.c - GPT-2's vocabulary files (hfvocab.h): vocab.json and
 * merges.txt, or tokenizer.json, decoded from GPT-2's printable byte alphabet
 * into raw-byte tokens and given to core/bpe.c, which checks ids and merges.
 * Reads the files whole; nothing is printed.
 */
#include "io/hfvocab.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"
#include "io/fileio.h"
#include "io/json.h"

/* One token of vocab.json, its bytes at pool[off, off + len). */
typedef struct {
    int id;
    size_t off, len;
} Entry;

typedef struct {
    Entry *e;
    int n, cap;
    char *pool;
    size_t used, cap_pool;
} Entries;

/* A token being decoded from the byte alphabet into buf (at most 1024 bytes). */
typedef struct {
    char buf[1024];
    size_t n;
    unsigned bad; /* the first code point outside the alphabet, or 0 */
    int too_long;
} TokBytes;

static int tok_put(void *ctx, unsigned cp)
{
    TokBytes *t = ctx;
    int c = bpe_unicode_byte(cp);
    if (c < 0) {
        if (!t->bad)
            t->bad = cp ? cp : 0x110000;
    } else if (t->n == sizeof t->buf) {
        t->too_long = 1;
    } else {
        t->buf[t->n++] = (char)c;
    }
    return AV_OK;
}

/* Fail with "NAME: byte K: ..." unless a reason is already set. */
static int refuse(Json *j, const char *file, const char *base, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(Json *j, const char *file, const char *base, const char *fmt, ...)
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

/* One JSON string as a token in GPT-2's alphabet, into *t. */
static int read_token(Json *j, const char *file, const char *base, TokBytes *t)
{
    t->n = 0, t->bad = 0, t->too_long = 0;
    int rc = json_string_each(j, tok_put, t);
    if (rc == AV_ERR_UTF8 || (rc && j->err == AV_ERR_MODEL)) {
        char inner[128];
        snprintf(inner, sizeof inner, "%s", j->why);
        j->err = AV_OK;
        return refuse(j, file, base, "%s", inner);
    }
    if (rc)
        return rc;
    if (t->bad == 0x110000)
        return refuse(j, file, base, "a token holds U+0000, outside GPT-2's byte alphabet");
    if (t->bad)
        return refuse(j, file, base, "a token holds U+%04X, outside GPT-2's byte alphabet", t->bad);
    if (t->too_long || t->n == 0)
        return refuse(j, file, base, "a token is %s", t->n ? "longer than 1024 bytes" : "empty");
    return AV_OK;
}

static int entries_add(Entries *es, int id, const TokBytes *t)
{
    if (es->n == es->cap) {
        int cap = es->cap ? es->cap * 2 : 1024;
        Entry *e = realloc(es->e, (size_t)cap * sizeof *e);
        if (!e)
            return AV_ERR_NOMEM;
        es->e = e, es->cap = cap;
    }
    if (es->used + t->n > es->cap_pool) {
        size_t cap = (es->cap_pool + t->n) * 2;
        char *p = realloc(es->pool, cap);
        if (!p)
            return AV_ERR_NOMEM;
        es->pool = p, es->cap_pool = cap;
    }
    memcpy(es->pool + es->used, t->buf, t->n);
    es->e[es->n++] = (Entry){id, es->used, t->n};
    es->used += t->n;
    return AV_OK;
}

/* The vocabulary object at j into es. */
static int read_vocab_object(Json *j, const char *file, const char *base, Entries *es)
{
    TokBytes t;
    if (!json_eat(j, '{'))
        return refuse(j, file, base, "the vocabulary is not a JSON object");
    if (json_eat(j, '}'))
        return refuse(j, file, base, "the vocabulary is empty");
    do {
        int id;
        if (read_token(j, file, base, &t))
            return j->err;
        if (!json_eat(j, ':'))
            return refuse(j, file, base, "a ':' was expected after a token");
        json_skip_ws(j);
        if (json_int(j, "id", &id)) {
            j->err = AV_OK;
            return refuse(j, file, base, "a token's id is not a whole number from 0");
        }
        if (entries_add(es, id, &t))
            return j->err = AV_ERR_NOMEM;
    } while (json_eat(j, ','));
    if (!json_eat(j, '}'))
        return refuse(j, file, base, "the vocabulary object is not closed");
    return AV_OK;
}

/* es into a fresh *b (ids must run 0..n-1: bpe_set_token refuses the rest). */
static int build_vocab(const Entries *es, int n_merges, const char *file, Bpe *b, char *why,
                       size_t whylen)
{
    int rc = bpe_init(b, es->n, n_merges);
    if (rc == AV_ERR_CONFIG) {
        snprintf(why, whylen, "%s: more than 16,777,216 tokens", file);
        return AV_ERR_MODEL;
    }
    if (rc)
        return rc;
    char msg[160];
    for (int k = 0; k < es->n; k++) {
        rc = bpe_set_token(b, es->e[k].id, es->pool + es->e[k].off, es->e[k].len, msg, sizeof msg);
        if (rc) {
            if (rc == AV_ERR_MODEL)
                snprintf(why, whylen, "%s: %s", file, msg);
            return rc;
        }
    }
    return AV_OK;
}

static void entries_free(Entries *es)
{
    free(es->e);
    free(es->pool);
    memset(es, 0, sizeof *es);
}

/* At most the first 40 bytes of s[0..n) (valid UTF-8), cut at a character
 * boundary, with control characters shown as '?': for a one-line message. */
static void excerpt(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t k = 0; k < n && o + 5 < cap && k < 40;) {
        unsigned cp;
        int m = utf8_decode(s + k, n - k, &cp);
        if (m == 0)
            break;
        if (cp < 0x20 || cp == 0x7F)
            out[o++] = '?';
        else
            memcpy(out + o, s + k, (size_t)m), o += (size_t)m;
        k += (size_t)m;
    }
    out[o] = 0;
}

/* Add the merge of the two tokens a and b (alphabet text, decoded here). */
static int add_merge_text(Bpe *b, Json *j, const char *file, const char *base, const char *a,
                          size_t alen, const char *bb, size_t blen)
{
    int id[2];
    const char *s[2] = {a, bb};
    size_t n[2] = {alen, blen};
    for (int k = 0; k < 2; k++) {
        TokBytes t = {.n = 0};
        for (size_t p = 0; p < n[k];) {
            unsigned cp;
            int m = utf8_decode(s[k] + p, n[k] - p, &cp);
            if (!m)
                return refuse(j, file, base, "a merge is not valid UTF-8");
            tok_put(&t, cp);
            p += (size_t)m;
        }
        if (t.bad == 0x110000 || (t.bad && !t.too_long))
            return refuse(j, file, base,
                          "a merge names a token holding U+%04X, outside GPT-2's byte alphabet",
                          t.bad == 0x110000 ? 0 : t.bad);
        if (t.too_long || !t.n) /* the vocabulary's tokens are 1 to 1024 bytes */
            return refuse(j, file, base, "a merge names a token %s",
                          t.n ? "longer than 1024 bytes" : "that is empty");
        id[k] = bpe_find(b, t.buf, t.n);
        if (id[k] < 0) {
            char shown[48];
            excerpt(s[k], n[k], shown, sizeof shown);
            return refuse(j, file, base, "a merge names '%s', which is not in the vocabulary",
                          shown);
        }
    }
    char msg[160];
    int rc = bpe_add_merge(b, id[0], id[1], msg, sizeof msg);
    if (rc == AV_ERR_MODEL)
        return refuse(j, file, base, "%s", msg);
    return rc ? (j->err = rc) : AV_OK;
}

/* merges.txt: lines "a b", after an optional first line "#version...";
 * CRLF line ends too (a folder checked out on Windows; GPT-2's byte
 * alphabet has no '\r', and the reference reader splits on white space). */
static int read_merges_txt(Bpe *b, const char *m, size_t len, char *why, size_t whylen)
{
    Json j = {m, m + len, why, whylen, AV_OK};
    int line = 0;
    for (const char *p = m, *next; p < m + len && !j.err; line++, p = next) {
        const char *nl = memchr(p, '\n', (size_t)(m + len - p));
        const char *end = nl ? nl : m + len;
        next = nl ? nl + 1 : m + len;
        if (end > p && end[-1] == '\r')
            end--;
        j.p = p;
        if (line == 0 && end - p >= 8 && memcmp(p, "#version", 8) == 0)
            continue;
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        if (!sp || sp == p || sp + 1 == end || memchr(sp + 1, ' ', (size_t)(end - sp - 1)))
            return json_fail(&j, "merges.txt: line %d is not two tokens with one space between",
                             line + 1);
        if (add_merge_text(b, &j, "merges.txt", m, p, (size_t)(sp - p), sp + 1,
                           (size_t)(end - sp - 1)))
            break;
    }
    if (j.err == AV_ERR_MODEL && strstr(why, "merges.txt: byte"))
        snprintf(why + strlen(why), whylen - strlen(why), " (line %d)", line + 1);
    return j.err;
}

/* A vocabulary with tokens of several bytes needs merges to reach them: none
 * at all (an empty merges.txt) is a broken folder, not a tokenizer of bytes. */
static int refuse_no_merges(const Bpe *b, const char *file, char *why, size_t whylen)
{
    if (b->n_merges > 0)
        return AV_OK;
    for (int id = 0; id < b->n_vocab; id++) {
        size_t len;
        const char *t = bpe_token(b, id, &len);
        if (t && len > 1 && !(len == strlen(BPE_EOT_TEXT) && memcmp(t, BPE_EOT_TEXT, len) == 0)) {
            snprintf(why, whylen, "%s: no merge, yet the vocabulary has tokens of several bytes",
                     file);
            return AV_ERR_MODEL;
        }
    }
    return AV_OK;
}

/* How many lines a merges text has (a capacity hint). */
static int count_lines(const char *s, size_t len)
{
    int n = 1;
    for (const char *p = s; (p = memchr(p, '\n', (size_t)(s + len - p))) != NULL; p++)
        n++;
    return n;
}

int hfvocab_parse(const char *vocab, size_t vlen, const char *merges, size_t mlen, Bpe *b,
                  char *why, size_t whylen)
{
    Entries es = {0};
    Json j = {vocab, vocab + vlen, why, whylen, AV_OK};
    memset(b, 0, sizeof *b);
    int rc = read_vocab_object(&j, "vocab.json", vocab, &es);
    json_skip_ws(&j);
    if (!rc && j.p != j.end)
        rc = refuse(&j, "vocab.json", vocab, "text follows the vocabulary object");
    if (!rc)
        rc = build_vocab(&es, count_lines(merges, mlen), "vocab.json", b, why, whylen);
    entries_free(&es);
    size_t valid = utf8_valid_prefix(merges, mlen);
    if (!rc && valid < mlen) {
        snprintf(why, whylen, "merges.txt: byte %zu is not UTF-8", valid);
        rc = AV_ERR_MODEL;
    }
    if (!rc)
        rc = read_merges_txt(b, merges, mlen, why, whylen);
    if (!rc)
        rc = bpe_finish(b, why, whylen);
    if (!rc)
        rc = refuse_no_merges(b, "merges.txt", why, whylen);
    if (rc)
        bpe_free(b);
    return rc;
}

/* One merge of tokenizer.json's model.merges: "a b" or ["a", "b"]. */
static int read_json_merge(Bpe *b, Json *j, const char *base)
{
    const char *f = "tokenizer.json";
    char *s[2] = {NULL, NULL};
    const char *at = j->p;
    int pair = json_eat(j, '[');
    if (pair) {
        if (!json_string(j, &s[0]) && json_eat(j, ',') && !json_string(j, &s[1]) &&
            !json_eat(j, ']'))
            j->err = AV_OK, refuse(j, f, base, "a merge pair is not two strings");
    } else if (!json_string(j, &s[0])) {
        char *sp = strchr(s[0], ' ');
        if (!sp || sp == s[0] || !sp[1] || strchr(sp + 1, ' '))
            refuse(j, f, base, "a merge is not two tokens with one space between");
        else
            *sp = 0, s[1] = sp + 1;
    }
    if (!j->err && (!s[0] || !s[1]))
        refuse(j, f, base, "a merge is not two tokens");
    if (j->err == AV_ERR_MODEL && !strstr(j->why, "tokenizer.json")) {
        char inner[128];
        snprintf(inner, sizeof inner, "%s", j->why);
        j->err = AV_OK, j->p = at;
        refuse(j, f, base, "a merge: %s", inner);
    }
    if (!j->err)
        add_merge_text(b, j, f, base, s[0], strlen(s[0]), s[1], strlen(s[1]));
    free(s[0]);
    if (pair)
        free(s[1]);
    return j->err;
}

/* model.merges: an array of merges. */
static int read_json_merges(Bpe *b, Json *j, const char *base)
{
    if (!json_eat(j, '['))
        return refuse(j, "tokenizer.json", base, "model.merges is not an array");
    if (json_eat(j, ']'))
        return AV_OK;
    do {
        if (read_json_merge(b, j, base))
            return j->err;
    } while (json_eat(j, ','));
    if (!json_eat(j, ']'))
        return refuse(j, "tokenizer.json", base, "model.merges is not closed");
    return AV_OK;
}

/* Walk an object's members, calling member(key) with j at the value; the
 * callback must read or skip the value. */
typedef int (*MemberFn)(void *ctx, Json *j, const char *key);

static int each_member(Json *j, const char *base, const char *what, MemberFn fn, void *ctx)
{
    if (!json_eat(j, '{'))
        return refuse(j, "tokenizer.json", base, "%s is not a JSON object", what);
    if (json_eat(j, '}'))
        return AV_OK;
    do {
        char *key;
        if (json_string(j, &key))
            return j->err;
        int rc = json_eat(j, ':') ? fn(ctx, j, key)
                                  : refuse(j, "tokenizer.json", base, "a ':' was expected");
        free(key);
        if (rc)
            return rc;
    } while (json_eat(j, ','));
    if (!json_eat(j, '}'))
        return refuse(j, "tokenizer.json", base, "%s is not closed", what);
    return AV_OK;
}

/* Where model.vocab and model.merges begin. */
typedef struct {
    const char *base, *vocab, *merges;
    int model_seen;
} TokJson;

static int model_member(void *ctx, Json *j, const char *key)
{
    TokJson *t = ctx;
    json_skip_ws(j);
    if (strcmp(key, "type") == 0) {
        char *type;
        if (json_string(j, &type))
            return j->err;
        int bpe = strcmp(type, "BPE") == 0;
        free(type);
        if (!bpe)
            return refuse(j, "tokenizer.json", t->base, "model.type is not \"BPE\"");
        return AV_OK;
    }
    if (strcmp(key, "vocab") == 0)
        t->vocab = j->p;
    else if (strcmp(key, "merges") == 0)
        t->merges = j->p;
    return json_skip_value(j, 1);
}

static int top_member(void *ctx, Json *j, const char *key)
{
    TokJson *t = ctx;
    if (strcmp(key, "model") != 0)
        return json_skip_value(j, 1);
    t->model_seen = 1;
    return each_member(j, t->base, "model", model_member, t);
}

int hfvocab_parse_tokenizer(const char *json, size_t len, Bpe *b, char *why, size_t whylen)
{
    const char *f = "tokenizer.json";
    TokJson t = {json, NULL, NULL, 0};
    Json j = {json, json + len, why, whylen, AV_OK};
    Entries es = {0};
    memset(b, 0, sizeof *b);
    int rc = each_member(&j, json, "the file", top_member, &t);
    json_skip_ws(&j);
    if (!rc && j.p != j.end)
        rc = refuse(&j, f, json, "text follows the top object");
    if (!rc && (!t.model_seen || !t.vocab || !t.merges)) {
        const char *lacks = !t.model_seen ? "\"model\"" : !t.vocab ? "model.vocab" : "model.merges";
        snprintf(why, whylen, "%s: no %s", f, lacks);
        rc = AV_ERR_MODEL;
    }
    if (!rc) {
        j.p = t.vocab;
        rc = read_vocab_object(&j, f, json, &es);
    }
    if (!rc)
        rc = build_vocab(&es, es.n, f, b, why, whylen);
    entries_free(&es);
    if (!rc) {
        j.p = t.merges;
        rc = read_json_merges(b, &j, json);
    }
    if (!rc)
        rc = bpe_finish(b, why, whylen);
    if (!rc)
        rc = refuse_no_merges(b, f, why, whylen);
    if (rc)
        bpe_free(b);
    return rc;
}

/* Read dir/name whole (file_read_in), at most HFVOCAB_MAX_FILE bytes. */
static int read_file(const char *dir, const char *name, char **data, size_t *len, char *why,
                     size_t whylen)
{
    return file_read_in(dir, name, HFVOCAB_MAX_FILE, data, len, why, whylen);
}

int hfvocab_read_dir(const char *dir, Bpe *b, char *why, size_t whylen)
{
    char *v = NULL, *m = NULL;
    size_t vlen = 0, mlen = 0;
    memset(b, 0, sizeof *b);
    int rc = read_file(dir, "vocab.json", &v, &vlen, why, whylen);
    const bool no_vocab = rc == AV_ERR_IO && errno == ENOENT;
    if (!rc)
        rc = read_file(dir, "merges.txt", &m, &mlen, why, whylen);
    const bool absent = rc == AV_ERR_IO && errno == ENOENT;
    if (!rc)
        rc = hfvocab_parse(v, vlen, m, mlen, b, why, whylen);
    free(v);
    free(m);
    if (!absent)
        return rc;
    /* vocab.json or merges.txt absent: tokenizer.json holds both (a
     * repository may have it beside a vocab.json alone) */
    rc = read_file(dir, "tokenizer.json", &v, &vlen, why, whylen);
    if (rc == AV_ERR_IO && errno == ENOENT) { /* an incomplete folder, as without config */
        snprintf(why, whylen,
                 no_vocab ? "%s: no vocab.json (with merges.txt) nor tokenizer.json"
                          : "%s: vocab.json without merges.txt (or tokenizer.json instead)",
                 dir);
        rc = AV_ERR_MODEL;
    }
    if (!rc)
        rc = hfvocab_parse_tokenizer(v, vlen, b, why, whylen);
    free(v);
    return rc;
}
