/* fuzz_json.c - libFuzzer harness for the JSON reader (io/json.h).
 *
 * The input is one JSON text. The harness reads it as a tree with the
 * reader's own calls (json_string_each, json_number, json_word, json_eat)
 * and aborts when a contract is broken:
 *   - json_skip_value accepts exactly what the tree reader accepts (the
 *     same bytes consumed), and refuses past 32 levels of nesting;
 *   - an accepted number is a JSON number (-?int frac? exp?), finite;
 *   - a string's code points are Unicode scalar values, and json_string
 *     gives their UTF-8 (or refuses a NUL, and only then);
 *   - what is accepted round-trips: written back canonically (strings with
 *     \u escapes for control characters, numbers with %.17g) and read
 *     again, it gives the same canonical text;
 *   - a refusal sets AV_ERR_MODEL (or AV_ERR_UTF8 from json_string_each)
 *     and one line of reason, with no control character.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"
#include "io/json.h"

#define MAX_DEPTH 32

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_json: invariant broken: %s\n", what);
        abort();
    }
}

typedef struct {
    char *buf;
    size_t len, cap;
} Out;

static void put_bytes(Out *o, const char *s, size_t n)
{
    if (o->len + n + 1 > o->cap) {
        o->cap = (o->len + n + 1) * 2;
        o->buf = realloc(o->buf, o->cap);
        check(o->buf != NULL, "out of memory in the harness");
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void put_str(Out *o, const char *s)
{
    put_bytes(o, s, strlen(s));
}

/* A code point of a string, written canonically. */
typedef struct {
    Out *o;
    size_t n;
    char utf8[4096]; /* the first code points as UTF-8, to compare with json_string */
    size_t ulen;
    int has_nul;
} StrCtx;

static int put_cp(void *ctx, unsigned cp)
{
    StrCtx *s = ctx;
    check(cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff), "a code point is not a scalar value");
    char u[4], esc[8];
    int m = utf8_encode(cp, u);
    check(m >= 1 && m <= 4, "utf8_encode of an accepted code point");
    if (s->ulen + (size_t)m < sizeof s->utf8)
        memcpy(s->utf8 + s->ulen, u, (size_t)m), s->ulen += (size_t)m;
    s->has_nul |= cp == 0;
    if (cp == '"' || cp == '\\') {
        esc[0] = '\\', esc[1] = (char)cp;
        put_bytes(s->o, esc, 2);
    } else if (cp < 0x20) {
        snprintf(esc, sizeof esc, "\\u%04x", cp);
        put_str(s->o, esc);
    } else {
        put_bytes(s->o, u, (size_t)m);
    }
    s->n++;
    return AV_OK;
}

/* Whether [p, p + n) is a JSON number. */
static int is_json_number(const char *p, size_t n)
{
    size_t i = 0;
    if (i < n && p[i] == '-')
        i++;
    if (i < n && p[i] == '0')
        i++;
    else if (i < n && p[i] >= '1' && p[i] <= '9')
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    else
        return 0;
    if (i < n && p[i] == '.') {
        size_t d = ++i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == d)
            return 0;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        size_t d = i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == d)
            return 0;
    }
    return i == n;
}

static int value(Json *j, Out *o, int depth);

static int string(Json *j, Out *o)
{
    const char *start = (json_skip_ws(j), j->p);
    StrCtx s = {.o = o};
    put_str(o, "\"");
    int rc = json_string_each(j, put_cp, &s);
    if (rc != AV_OK)
        return rc;
    put_str(o, "\"");
    /* json_string agrees: the same UTF-8, or a refusal for a NUL */
    Json k = *j;
    k.p = start, k.err = AV_OK;
    char why[128], *str = NULL;
    k.why = why, k.whylen = sizeof why;
    int r2 = json_string(&k, &str);
    check(r2 == (s.has_nul ? AV_ERR_MODEL : AV_OK), "json_string disagrees on a string");
    check(r2 != AV_OK || k.p == j->p, "json_string ends elsewhere");
    if (str && s.ulen + 4 < sizeof s.utf8)
        check(strlen(str) == s.ulen && memcmp(str, s.utf8, s.ulen) == 0,
              "json_string gives other bytes");
    free(str);
    return AV_OK;
}

static int members(Json *j, Out *o, int depth, char close)
{
    put_bytes(o, close == ']' ? "[" : "{", 1);
    if (json_eat(j, close))
        return put_bytes(o, &close, 1), AV_OK;
    for (int first = 1;; first = 0) {
        if (!first)
            put_str(o, ",");
        if (close == '}') {
            if (string(j, o) != AV_OK)
                return json_fail(j, "an object key is not a string");
            if (!json_eat(j, ':'))
                return json_fail(j, "no colon");
            put_str(o, ":");
        }
        if (value(j, o, depth + 1))
            return j->err ? j->err : AV_ERR_MODEL;
        if (!json_eat(j, ','))
            break;
    }
    if (!json_eat(j, close))
        return json_fail(j, "not closed");
    put_bytes(o, &close, 1);
    return AV_OK;
}

static int value(Json *j, Out *o, int depth)
{
    json_skip_ws(j);
    if (depth > MAX_DEPTH)
        return json_fail(j, "too deep");
    if (j->p < j->end && *j->p == '"')
        return string(j, o);
    if (json_eat(j, '['))
        return members(j, o, depth, ']');
    if (json_eat(j, '{'))
        return members(j, o, depth, '}');
    static const char *const words[] = {"true", "false", "null"};
    for (int w = 0; w < 3; w++)
        if (json_word(j, words[w]))
            return put_str(o, words[w]), AV_OK;
    const char *start = j->p;
    double v;
    if (json_number(j, "n", &v))
        return j->err;
    check(isfinite(v), "a number is not finite");
    check(is_json_number(start, (size_t)(j->p - start)), "a number that is not JSON");
    char num[40];
    snprintf(num, sizeof num, "%.17g", v);
    put_str(o, num);
    return AV_OK;
}

static void check_reason(const Json *j, const char *why)
{
    check(j->err == AV_ERR_MODEL || j->err == AV_ERR_UTF8 || j->err == AV_ERR_NOMEM,
          "an undocumented error code");
    check(why[0] != '\0', "a refusal without a reason");
    for (const char *c = why; *c; c++)
        check((unsigned char)*c >= 0x20, "a reason with a control character");
}

/* Read text[0..n) as one value; canonical text into o. AV_OK or an error. */
static int read_tree(const char *text, size_t n, Out *o, const char **end)
{
    char why[256] = "";
    Json j = {text, text + n, why, sizeof why, AV_OK};
    int rc = value(&j, o, 0);
    if (rc == AV_ERR_UTF8)
        rc = AV_ERR_MODEL;
    if (rc != AV_OK) {
        check(j.err != AV_OK, "a refusal that sets no error");
        check_reason(&j, why);
    }
    *end = j.p;
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data, *end;
    Out a = {0}, b = {0};
    int rc = read_tree(text, size, &a, &end);
    /* json_skip_value agrees, to the byte */
    char why[256] = "";
    Json k = {text, text + size, why, sizeof why, AV_OK};
    int rs = json_skip_value(&k, 0);
    check((rs == AV_OK) == (rc == AV_OK), "json_skip_value and the reader disagree");
    if (rs != AV_OK)
        check_reason(&k, why);
    if (rc == AV_OK) {
        check(k.p == end, "json_skip_value stops elsewhere");
        /* the canonical text reads back to itself */
        const char *end2;
        check(read_tree(a.buf, a.len, &b, &end2) == AV_OK, "the canonical text is refused");
        check(end2 == a.buf + a.len, "the canonical text is not read whole");
        check(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0, "the round trip changed it");
    }
    free(a.buf);
    free(b.buf);
    return 0;
}
