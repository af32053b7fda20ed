/* tokenize.h - UTF-8 text to tokens with their byte spans.
 *
 * The rule (also in README.md and attnviz.1):
 *  - a word is a run of letters and digits; every code point at or above U+0080
 *    counts as a letter except the spaces and punctuation listed in tokenize.c
 *    (Latin-1 punctuation, General Punctuation, CJK punctuation, fullwidth forms);
 *  - an apostrophe (' or U+2019) between two letters stays inside the word, so
 *    "didn't", "it's" and "O'Neil" are single tokens; so does a zero-width
 *    joiner (U+200D), so an emoji sequence such as a family is one token, and
 *    a joiner that joins nothing separates like a space;
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
    char *pool;        /* the copies of all tokens, NUL-separated */
    size_t bad_offset; /* with AV_ERR_UTF8: byte offset of the first bad byte */
    int tok_cap;       /* Tokens tok has room for, 0 when not known (a list */
    size_t pool_cap;   /* built by hand); bytes of pool: tokenize_again */
} TokenList;

/* Split text[0..len) into at most max_tokens tokens, into *out (which must be
 * zeroed or previously freed with tokenize_free). Returns AV_OK,
 * AV_ERR_TOO_MANY (more than max_tokens), AV_ERR_UTF8 (out->bad_offset set)
 * or AV_ERR_NOMEM. An empty or all-space text gives AV_OK with n = 0. */
int tokenize(const char *text, size_t len, int max_tokens, TokenList *out);

/* tokenize into a list that may hold an earlier result of tokenize or
 * tokenize_again (or be zeroed): its two allocations are kept when they have
 * room (tok_cap, pool_cap), so retokenising a text as it is typed allocates
 * nothing. The same tokens and returns as tokenize; on an error the list has
 * n = 0 (and bad_offset) and may keep its allocations: tokenize_free it. */
int tokenize_again(const char *text, size_t len, int max_tokens, TokenList *out);

/* A copy of in (its own tok and pool: any list, tokenize's or built by
 * hand) into out, whose earlier contents are freed first. Returns AV_OK or
 * AV_ERR_NOMEM (out then zeroed). */
int tokenize_copy(const TokenList *in, TokenList *out);

/* Free what tokenize allocated; accepts a zeroed list. Leaves it zeroed. */
void tokenize_free(TokenList *tl);

#endif
