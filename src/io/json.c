/* json.c - a small JSON reader over a byte range: what attnviz's own files
 * and the token files need (model.json, a JSON list of tokens): strings
 * with every JSON escape (\uXXXX surrogate pairs joined) and strict UTF-8
 * (utf8.h), code point by code point or whole, numbers, true/false/null, and
 * any value skipped. No allocation but the strings it returns; nothing printed.
 */
#include "io/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"

int json_fail(Json *j, const char *fmt, ...)
{
    if (!j->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->why, j->whylen, fmt, ap);
        va_end(ap);
        /* a key or value from the file may hold control characters: the
         * reason stays one line that a terminal shows as it is */
        for (char *c = j->why; j->whylen && *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        j->err = AV_ERR_MODEL;
    }
    return j->err;
}

void json_skip_ws(Json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

bool json_eat(Json *j, char c)
{
    json_skip_ws(j);
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
        return json_fail(j, "a \\u escape is cut short");
    for (int k = 0; k < 4; k++) {
        char c = *j->p++;
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0)
            return json_fail(j, "a \\u escape has a non-hex digit");
        *u = *u * 16 + (unsigned)v;
    }
    return AV_OK;
}

/* One \-escape after the backslash, as a code point in *cp. */
static int escape(Json *j, unsigned *cp)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char c = j->p < j->end ? *j->p++ : 0;
    const char *k = c ? strchr(from, c) : NULL;
    if (k)
        return *cp = (unsigned char)to[k - from], AV_OK;
    if (c != 'u')
        return json_fail(j, "a string has a bad escape");
    unsigned u, lo;
    if (hex4(j, &u))
        return j->err;
    if (u >= 0xd800 && u < 0xdc00) {
        if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
            return json_fail(j, "a string has a lone surrogate");
        j->p += 2;
        if (hex4(j, &lo))
            return j->err;
        if (lo < 0xdc00 || lo > 0xdfff)
            return json_fail(j, "a string has a lone surrogate");
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
    } else if (u >= 0xdc00 && u < 0xe000) {
        return json_fail(j, "a string has a lone surrogate");
    }
    *cp = u;
    return AV_OK;
}

int json_string_each(Json *j, int (*put)(void *ctx, unsigned cp), void *ctx)
{
    if (!json_eat(j, '"'))
        return json_fail(j, "a string was expected");
    while (!j->err) {
        if (j->p >= j->end)
            return json_fail(j, "a string is not closed");
        unsigned char c = (unsigned char)*j->p;
        unsigned cp;
        if (c == '"') {
            j->p++;
            return AV_OK;
        }
        if (c < 0x20)
            return json_fail(j, "a string holds a control character");
        if (c == '\\') {
            j->p++;
            if (escape(j, &cp))
                break;
        } else {
            int m = utf8_decode(j->p, (size_t)(j->end - j->p), &cp);
            if (m == 0) {
                json_fail(j, "a string is not valid UTF-8");
                return j->err = AV_ERR_UTF8;
            }
            j->p += m;
        }
        int rc = put(ctx, cp);
        if (rc != AV_OK)
            return rc;
    }
    return j->err;
}

/* A string being decoded by json_string: o has room for the whole raw text. */
typedef struct {
    Json *j;
    char *o, *w;
} StrOut;

static int str_put(void *ctx, unsigned cp)
{
    StrOut *s = ctx;
    if (cp == 0)
        return json_fail(s->j, "a string holds a NUL character");
    s->w += utf8_encode(cp, s->w);
    return AV_OK;
}

/* A string value, malloc'd into *out. No escape's UTF-8 is longer than the
 * escape itself (\uXXXX is 6 bytes for at most 3, a pair 12 for 4), so the
 * raw text up to the closing quote bounds the result. */
int json_string(Json *j, char **out)
{
    *out = NULL;
    json_skip_ws(j);
    if (j->p >= j->end || *j->p != '"')
        return json_fail(j, "a string was expected");
    const char *q = j->p + 1;
    while (q < j->end && *q != '"')
        q += *q == '\\' && q + 1 < j->end ? 2 : 1;
    if (q >= j->end)
        return json_fail(j, "a string is not closed");
    StrOut s = {j, malloc((size_t)(q - j->p)), NULL};
    if (!s.o)
        return j->err = AV_ERR_NOMEM;
    s.w = s.o;
    int rc = json_string_each(j, str_put, &s);
    if (rc != AV_OK) {
        free(s.o);
        if (rc == AV_ERR_UTF8)
            j->err = AV_ERR_MODEL; /* one code for a malformed file; why says UTF-8 */
        return j->err;
    }
    *s.w = 0;
    *out = s.o;
    return AV_OK;
}

int json_key(Json *j, char **key, const char *what)
{
    if (json_string(j, key) || !json_eat(j, ':')) {
        free(*key);
        *key = NULL;
        return json_fail(j, "%s", what);
    }
    return AV_OK;
}

/* Past the digits at q (none: q itself). */
static const char *digits(const char *q, const char *end)
{
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    return q;
}

/* The length of the JSON number at [p, end): -?(0|[1-9][0-9]*)(.[0-9]+)?
 * ([eE][+-]?[0-9]+)?, or 0 when none starts there. */
static size_t number_len(const char *p, const char *end)
{
    const char *q = p + (p < end && *p == '-');
    if (q < end && *q == '0')
        q++;
    else if (q < end && *q >= '1' && *q <= '9')
        q = digits(q, end);
    else
        return 0;
    if (q < end && *q == '.') {
        const char *d = digits(q + 1, end);
        if (d == q + 1)
            return 0;
        q = d;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        const char *d = digits(q, end);
        if (d == q)
            return 0;
        q = d;
    }
    return (size_t)(q - p);
}

static int ignore_cp(void *ctx, unsigned cp)
{
    (void)ctx, (void)cp;
    return AV_OK;
}

/* Any value, skipped (for unknown keys): the same grammar the other calls
 * read, object keys strings. */
int json_skip_value(Json *j, int depth)
{
    json_skip_ws(j);
    if (depth > 32)
        return json_fail(j, "nested too deeply");
    if (j->p < j->end && *j->p == '"') {
        /* any string, \u0000 too: nothing is kept */
        if (json_string_each(j, ignore_cp, NULL) == AV_ERR_UTF8)
            j->err = AV_ERR_MODEL;
        return j->err;
    }
    if (json_eat(j, '[') || json_eat(j, '{')) {
        char close = j->p[-1] == '[' ? ']' : '}';
        if (json_eat(j, close))
            return AV_OK;
        do {
            json_skip_ws(j);
            if (close == '}' && (j->p >= j->end || *j->p != '"' || json_skip_value(j, depth + 1) ||
                                 !json_eat(j, ':')))
                return json_fail(j, "an object is malformed");
            if (json_skip_value(j, depth + 1))
                return j->err;
        } while (json_eat(j, ','));
        return json_eat(j, close) ? AV_OK : json_fail(j, "an array or object is not closed");
    }
    if (json_word(j, "true") || json_word(j, "false") || json_word(j, "null"))
        return AV_OK;
    if (!number_len(j->p, j->end))
        return json_fail(j, "a value was expected");
    double v;
    return json_number(j, "a number", &v);
}

int json_number(Json *j, const char *key, double *v)
{
    json_skip_ws(j);
    char buf[400];
    size_t n = number_len(j->p, j->end);
    if (!n)
        return json_fail(j, "\"%s\" is not a number", key);
    if (n >= sizeof buf)
        return json_fail(j, "\"%s\" is a number too long to read", key);
    memcpy(buf, j->p, n);
    buf[n] = 0;
    *v = strtod(buf, NULL);
    if (!isfinite(*v))
        return json_fail(j, "\"%s\" is not a finite number", key);
    j->p += n;
    return AV_OK;
}

int json_int(Json *j, const char *key, int *out)
{
    double v;
    if (json_number(j, key, &v))
        return j->err;
    if (v != floor(v))
        return json_fail(j, "\"%s\" is not a whole number", key);
    if (v < 0 || v > 1e9) /* said as it is: -2 or 2^40 is a whole number */
        return json_fail(j, "\"%s\" is %.17g; a whole number from 0 to 1000000000 was expected",
                         key, v);
    *out = (int)v;
    return AV_OK;
}

bool json_word(Json *j, const char *w)
{
    size_t n = strlen(w);
    json_skip_ws(j);
    if ((size_t)(j->end - j->p) >= n && memcmp(j->p, w, n) == 0) {
        j->p += n;
        return true;
    }
    return false;
}
