/* json.c - a small JSON reader over a byte range: what attnviz's own files
 * need (model.json): strings with every JSON escape (\uXXXX surrogate pairs
 * joined, encoded with utf8.h), numbers, true/false/null, and any value
 * skipped. No allocation but the strings it returns; nothing printed.
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
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0)
            return json_fail(j, "a \\u escape has a non-hex digit");
        *u = *u * 16 + (unsigned)v;
    }
    return AV_OK;
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
        return json_fail(j, "a string has a bad escape"), 0;
    unsigned u, lo;
    if (hex4(j, &u))
        return 0;
    if (u >= 0xd800 && u < 0xdc00) {
        if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
            return json_fail(j, "a string has a lone surrogate"), 0;
        j->p += 2;
        if (hex4(j, &lo))
            return 0;
        if (lo < 0xdc00 || lo > 0xdfff)
            return json_fail(j, "a string has a lone surrogate"), 0;
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
    } else if (u >= 0xdc00 && u < 0xe000) {
        return json_fail(j, "a string has a lone surrogate"), 0;
    }
    if (u == 0)
        return json_fail(j, "a string holds a NUL character"), 0;
    return (size_t)utf8_encode(u, o);
}

/* A string value, malloc'd into *out. */
int json_string(Json *j, char **out)
{
    *out = NULL;
    if (!json_eat(j, '"'))
        return json_fail(j, "a string was expected");
    const char *start = j->p;
    while (j->p < j->end && *j->p != '"')
        j->p += *j->p == '\\' && j->p + 1 < j->end ? 2 : 1;
    if (j->p >= j->end)
        return json_fail(j, "a string is not closed");
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
            json_fail(j, "a string holds a control character");
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
int json_skip_value(Json *j, int depth)
{
    json_skip_ws(j);
    if (depth > 32)
        return json_fail(j, "nested too deeply");
    if (j->p < j->end && *j->p == '"') {
        char *s;
        json_string(j, &s);
        free(s);
        return j->err;
    }
    if (json_eat(j, '[') || json_eat(j, '{')) {
        char close = j->p[-1] == '[' ? ']' : '}';
        if (json_eat(j, close))
            return AV_OK;
        do {
            if (close == '}' && (json_skip_value(j, depth + 1) || !json_eat(j, ':')))
                return json_fail(j, "an object is malformed");
            if (json_skip_value(j, depth + 1))
                return j->err;
        } while (json_eat(j, ','));
        return json_eat(j, close) ? AV_OK : json_fail(j, "an array or object is not closed");
    }
    const char *start = j->p;
    while (j->p < j->end && strchr("+-.0123456789eEtruefalsn", *j->p))
        j->p++;
    return j->p > start ? AV_OK : json_fail(j, "a value was expected");
}

int json_number(Json *j, const char *key, double *v)
{
    json_skip_ws(j);
    char buf[64];
    size_t n = 0;
    while (j->p < j->end && n + 1 < sizeof buf && strchr("+-.0123456789eE", *j->p))
        buf[n++] = *j->p++;
    buf[n] = 0;
    char *e;
    *v = strtod(buf, &e);
    if (!n || *e || !isfinite(*v))
        return json_fail(j, "\"%s\" is not a number", key);
    return AV_OK;
}

int json_int(Json *j, const char *key, int *out)
{
    double v;
    if (json_number(j, key, &v))
        return j->err;
    if (v != floor(v) || v < 0 || v > 1e9)
        return json_fail(j, "\"%s\" is not a whole number", key);
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
