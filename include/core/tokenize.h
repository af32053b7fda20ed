/* tokenize.h - UTF-8 text to tokens with their byte spans.
 *
 * The rule (also in README.md and attnviz.1):
 *  - a word is a run of letters and digits; every code point at or above U+0080
 *    counts as a letter except the spaces and punctuation listed in tokenize.c
 *    (Latin-1 punctuation, General Punctuation, CJK punctuation, fullwidth forms);
 *  - an apostrophe (' or U+2019) between two letters stays inside the word, so
 *    "didn't", "it's" and "O'Neil" are single tokens;
 *  - a number is a run of digits, with '.' or ',' kept when a digit follows
 *    ("3.14", "1,024");
 *  - every other visible character (punctuation, symbols) is a token of its own;
 *  - whitespace and control characters separate tokens and are never tokens;
 *  - a word longer than AV_MAX_TOKEN_BYTES bytes is cut into pieces of at most
 *    that many bytes, at code point boundaries;
 *  - invalid UTF-8 (bad lead or continuation bytes, overlong forms, surrogates,
 *    code points above U+10FFFF) is an error, AV_ERR_UTF8, reported with its
 *    byte offset; the interface never inserts invalid bytes.
 */
#ifndef ATTNVIZ_TOKENIZE_H
#define ATTNVIZ_TOKENIZE_H

#include <stddef.h>

typedef struct {
    size_t start;    /* byte offset in the text */
    size_t len;      /* byte length */
    const char *str; /* NUL-terminated copy of the token, owned by the TokenList */
} Token;

typedef struct {
    Token *tok;
    int n;
    char *pool;         /* the copies of all tokens, NUL-separated */
    size_t bad_offset;  /* with AV_ERR_UTF8: byte offset of the first bad byte */
} TokenList;

/* Split text[0..len) into at most max_tokens tokens, into *out (which must be
 * zeroed or previously freed with tokens_free). Returns AV_OK,
 * AV_ERR_TOO_MANY (more than max_tokens), AV_ERR_UTF8 (out->bad_offset set)
 * or AV_ERR_NOMEM. An empty or all-space text gives AV_OK with n = 0. */
int tokenize(const char *text, size_t len, int max_tokens, TokenList *out);

/* Free what tokenize allocated; accepts a zeroed list. Leaves it zeroed. */
void tokens_free(TokenList *tl);

/* Decode one UTF-8 code point from s[0..len). Returns its byte length (1-4)
 * and stores it in *cp, or 0 when the bytes are not valid UTF-8. */
int utf8_decode(const char *s, size_t len, unsigned *cp);

/* Encode cp into buf (at least 4 bytes); returns the byte length (1-4). */
int utf8_encode(unsigned cp, char *buf);

/* Length in bytes of the longest valid UTF-8 prefix of s[0..len). */
size_t utf8_valid_prefix(const char *s, size_t len);

#endif
