/* tokfile.c - token files for imported attention (tokfile.h): one token a
 * line, or a JSON list of strings.
 *
 * Both formats feed one builder that keeps every token printable (control
 * characters as Control Pictures, an empty token as U+2205) and at most
 * AV_MAX_TOKEN_BYTES long, in one NUL-separated pool like the tokeniser's.
 * The JSON reader accepts exactly a list of strings, read by io/json's
 * strings: RFC 8259 escapes, surrogate pairs joined, raw bytes strictly UTF-8.
 */
#include "io/tokfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"
#include "io/fileio.h"
#include "io/json.h"

/* Tokens under construction: their bytes in one pool, NUL-terminated. */
typedef struct {
    char *pool;
    size_t len, cap;
    size_t *off; /* where each token starts in pool */
    int n, cap_n, max;
    size_t start; /* bytes of the current token so far start here */
} TokBuild;

static int tb_bytes(TokBuild *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->pool, cap);
        if (!p)
            return AV_ERR_NOMEM;
        b->pool = p;
        b->cap = cap;
    }
    memcpy(b->pool + b->len, s, n);
    b->len += n;
    return AV_OK;
}

static int tb_begin(TokBuild *b)
{
    if (b->n == b->max)
        return AV_ERR_TOO_MANY;
    if (b->n == b->cap_n) {
        int cap = b->cap_n ? b->cap_n * 2 : 64;
        size_t *p = realloc(b->off, (size_t)cap * sizeof(size_t));
        if (!p)
            return AV_ERR_NOMEM;
        b->off = p;
        b->cap_n = cap;
    }
    b->off[b->n++] = b->start = b->len;
    return AV_OK;
}

/* Append code point cp, printable (controls as Control Pictures), unless the
 * token would pass AV_MAX_TOKEN_BYTES: then the rest of it is dropped. */
static int tb_cp(TokBuild *b, unsigned cp)
{
    char enc[4];
    if (cp < 0x20)
        cp += 0x2400;
    else if (cp == 0x7F)
        cp = 0x2421;
    else if (cp >= 0x80 && cp < 0xA0)
        cp = 0xFFFD; /* a C1 control (U+009B is CSI to some terminals): found by fuzz_attn */
    int n = utf8_encode(cp, enc);
    if (b->len - b->start + (size_t)n > AV_MAX_TOKEN_BYTES)
        return AV_OK;
    return tb_bytes(b, enc, (size_t)n);
}

static int tb_end(TokBuild *b)
{
    if (b->len == b->start) {
        int rc = tb_bytes(b, "\xE2\x88\x85", 3); /* U+2205 for an empty token */
        if (rc != AV_OK)
            return rc;
    }
    return tb_bytes(b, "", 1); /* the NUL */
}

/* Move the built tokens into a TokenList; start/len index the space-joined text. */
static int tb_finish(TokBuild *b, TokenList *out)
{
    out->tok = calloc((size_t)(b->n ? b->n : 1), sizeof(Token));
    if (!out->tok)
        return AV_ERR_NOMEM;
    size_t pos = 0;
    for (int k = 0; k < b->n; k++) {
        Token *t = &out->tok[k];
        t->str = b->pool + b->off[k];
        t->len = strlen(t->str);
        t->start = pos;
        pos += t->len + 1;
    }
    out->n = b->n;
    out->pool = b->pool;
    b->pool = NULL;
    return AV_OK;
}

/* Decode the UTF-8 of s[0..n) into the current token. AV_OK or AV_ERR_UTF8
 * with *bad the offset of the first bad byte. */
static int tb_utf8(TokBuild *b, const char *s, size_t n, size_t *bad)
{
    for (size_t k = 0; k < n;) {
        unsigned cp;
        int m = utf8_decode(s + k, n - k, &cp);
        if (m == 0) {
            *bad = k;
            return AV_ERR_UTF8;
        }
        int rc = tb_cp(b, cp);
        if (rc != AV_OK)
            return rc;
        k += (size_t)m;
    }
    return AV_OK;
}

static int read_lines(TokBuild *b, const char *p, const char *end, const char *name, char *msg,
                      size_t msglen)
{
    if (end > p && end[-1] == '\n')
        end--; /* the final newline ends the last line */
    int line = 1, rc = AV_OK;
    if (p == end)
        return AV_OK; /* no line at all */
    for (const char *nl = p; nl && rc == AV_OK; line++) {
        nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        size_t bad = 0, n = (size_t)(e - p);
        if (n > 0 && p[n - 1] == '\r')
            n--;
        if ((rc = tb_begin(b)) == AV_OK && (rc = tb_utf8(b, p, n, &bad)) == AV_OK)
            rc = tb_end(b);
        if (rc == AV_ERR_UTF8)
            snprintf(msg, msglen, "%s: line %d is not valid UTF-8 (byte %zu of the line)", name,
                     line, bad + 1);
        p = nl ? nl + 1 : end;
    }
    return rc;
}

static int tb_put(void *ctx, unsigned cp)
{
    return tb_cp(ctx, cp);
}

/* A JSON list of strings, each a token (json.h reads the strings). */
static int read_json(TokBuild *b, const char *p, const char *end, const char *name, char *msg,
                     size_t msglen)
{
    char why[128] = "";
    Json j = {p, end, why, sizeof why, AV_OK};
    int rc = AV_OK;
    json_eat(&j, '[');
    if (!json_eat(&j, ']')) {
        do {
            if ((rc = tb_begin(b)) != AV_OK || (rc = json_string_each(&j, tb_put, b)) != AV_OK ||
                (rc = tb_end(b)) != AV_OK)
                break;
        } while (json_eat(&j, ','));
        if (rc == AV_OK && !json_eat(&j, ']'))
            rc = json_fail(&j, "a comma or ] was expected");
    }
    json_skip_ws(&j);
    if (rc == AV_OK && j.p != j.end)
        rc = json_fail(&j, "text after the list");
    if (rc == AV_ERR_MODEL)
        rc = TOKFILE_ERR;
    if (rc == TOKFILE_ERR || rc == AV_ERR_UTF8)
        snprintf(msg, msglen, "%s: byte %zu: %s", name, (size_t)(j.p - p) + 1,
                 rc == AV_ERR_UTF8 ? "not valid UTF-8" : why);
    return rc;
}

/* Whether the text is a JSON list: '[' then '"' or ']' after spaces. */
static int looks_json(const char *p, const char *end)
{
    Json j = {p, end, NULL, 0, AV_OK};
    if (!json_eat(&j, '['))
        return 0;
    json_skip_ws(&j);
    return j.p < j.end && (*j.p == '"' || *j.p == ']');
}

static int numbered_tokens(TokBuild *b, int n)
{
    int rc = AV_OK;
    for (int k = 1; k <= n && rc == AV_OK; k++) {
        char num[16];
        int len = snprintf(num, sizeof num, "%d", k);
        if ((rc = tb_begin(b)) == AV_OK && (rc = tb_bytes(b, num, (size_t)len)) == AV_OK)
            rc = tb_end(b);
    }
    return rc;
}

int tokfile_read(const char *path, int n_default, int max_tokens, TokenList *out, char *msg,
                 size_t msglen)
{
    TokBuild b = {.max = max_tokens};
    char *data = NULL;
    size_t len = 0;
    const char *name = path ? file_base_name(path) : "tokens";
    int rc = AV_OK;
    memset(out, 0, sizeof(*out));
    if (!path) {
        rc = numbered_tokens(&b, n_default);
    } else if ((rc = file_read_all(path, TOKFILE_MAX_BYTES, &data, &len)) != AV_OK) {
        if (rc == AV_ERR_IO)
            snprintf(msg, msglen, "%s: %s", path, strerror(errno));
        else
            snprintf(msg, msglen, "%s: %s (at most %d MiB)", name, av_strerror(rc),
                     TOKFILE_MAX_BYTES >> 20);
        return rc;
    } else {
        const char *p = data, *end = data + len;
        if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
            p += 3;
        rc = looks_json(p, end) ? read_json(&b, p, end, name, msg, msglen)
                                : read_lines(&b, p, end, name, msg, msglen);
    }
    free(data);
    if (rc == AV_OK && b.n == 0)
        rc = AV_ERR_EMPTY;
    if (rc == AV_OK)
        rc = tb_finish(&b, out);
    if (rc == AV_ERR_TOO_MANY)
        snprintf(msg, msglen, "%s: more than %d tokens", name, max_tokens);
    else if (rc == AV_ERR_EMPTY || rc == AV_ERR_NOMEM)
        snprintf(msg, msglen, "%s: %s", name, rc == AV_ERR_EMPTY ? "no token" : av_strerror(rc));
    free(b.pool);
    free(b.off);
    if (rc != AV_OK)
        tokenize_free(out);
    return rc;
}

int tokfile_text(const TokenList *t, char **text, size_t *len)
{
    size_t total = 0;
    for (int k = 0; k < t->n; k++)
        total += t->tok[k].len + 1;
    char *s = malloc(total ? total : 1);
    if (!s)
        return AV_ERR_NOMEM;
    size_t pos = 0;
    for (int k = 0; k < t->n; k++) {
        memcpy(s + pos, t->tok[k].str, t->tok[k].len);
        pos += t->tok[k].len;
        s[pos++] = ' ';
    }
    *len = pos ? pos - 1 : 0;
    s[*len] = '\0';
    *text = s;
    return AV_OK;
}
