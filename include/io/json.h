/* json.h - a small JSON reader over a byte range (json.c).
 *
 * A Json cursor walks text[p, end); the first failure sets err (AV_ERR_MODEL,
 * or AV_ERR_NOMEM) and a one-line reason in why[0..whylen), and every later
 * call keeps the first reason. Single-threaded per cursor; no global state.
 */
#ifndef ATTNVIZ_JSON_H
#define ATTNVIZ_JSON_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *p, *end; /* the text still to read */
    char *why;           /* the caller's buffer for the reason */
    size_t whylen;
    int err; /* AV_OK, or the first failure */
} Json;

/* Record a failure (the first one only); returns j->err. */
int json_fail(Json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Skip white space. */
void json_skip_ws(Json *j);

/* After white space, take character c when it is next; whether it was. */
bool json_eat(Json *j, char c);

/* After white space, take the literal w (true, false, null) when it is next. */
bool json_word(Json *j, const char *w);

/* One string value, code point by code point: the opening quote after white
 * space, then raw bytes (strict UTF-8, no control characters) and escapes
 * (\uXXXX surrogate pairs joined, \u0000 included), each code point given to
 * put(ctx, cp), which returns AV_OK or a code that ends the walk. Returns
 * AV_OK (j->p after the closing quote), put's code, AV_ERR_UTF8 (raw bytes
 * that are not UTF-8; the reason is set and j->p is at the first bad byte),
 * or j->err (AV_ERR_MODEL, malformed; j->p near where it failed). */
int json_string_each(Json *j, int (*put)(void *ctx, unsigned cp), void *ctx);

/* A string value into *out (malloc'd, NUL-terminated UTF-8; NULL on error).
 * Refuses control characters, bad escapes, lone surrogates, NUL and bytes
 * that are not UTF-8. Returns AV_OK, AV_ERR_MODEL or AV_ERR_NOMEM. */
int json_string(Json *j, char **out);

/* An object's next key and the ':' after it: the key into *key (as
 * json_string's; NULL on failure). Returns AV_OK, or j->err with `what`
 * as the reason. */
int json_key(Json *j, char **key, const char *what);

/* Skip any value (nested at most 32 deep). Returns AV_OK or j->err. */
int json_skip_value(Json *j, int depth);

/* A finite number; key names it in the reason. Returns AV_OK or j->err. */
int json_number(Json *j, const char *key, double *v);

/* A whole number from 0 to 1e9; key names it in the reason. */
int json_int(Json *j, const char *key, int *out);

#endif
