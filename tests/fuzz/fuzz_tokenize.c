/* fuzz_tokenize.c - libFuzzer harness for the tokeniser and the UTF-8 helpers.
 *
 * The input is the text itself. Besides the sanitizers, the harness checks the
 * contract of tokenize.h and aborts when it is broken: spans inside the text,
 * increasing and non-overlapping, each token's copy equal to its span, no
 * empty or separator-only token, pieces of at most AV_MAX_TOKEN_BYTES that are
 * valid UTF-8, and only separators between tokens (nothing is dropped). The
 * UTF-8 validator is compared with an independent decoder written here, and a
 * list cut at 64 tokens must be a prefix of the uncut one. Not a unit test: it
 * never prints unless an invariant fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/tokenize.h"
#include "core/utf8.h"

#define FUZZ_MAX_TOKENS 64

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_tokenize: invariant broken: %s\n", what);
        abort();
    }
}

/* An independent strict decoder (the generic shift-and-check way, not the
 * RFC 3629 table of tokenize.c): length 1-4, or 0 when invalid. */
static int ref_decode(const unsigned char *p, size_t len, unsigned *cp)
{
    static const unsigned min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    int n;
    unsigned c;
    if (len == 0)
        return 0;
    if (p[0] < 0x80)
        return *cp = p[0], 1;
    else if ((p[0] & 0xE0) == 0xC0)
        n = 2, c = p[0] & 0x1F;
    else if ((p[0] & 0xF0) == 0xE0)
        n = 3, c = p[0] & 0x0F;
    else if ((p[0] & 0xF8) == 0xF0)
        n = 4, c = p[0] & 0x07;
    else
        return 0;
    if (len < (size_t)n)
        return 0;
    for (int k = 1; k < n; k++) {
        if ((p[k] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (p[k] & 0x3F);
    }
    if (c < min_cp[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

/* The separators of tokenize.h: whitespace, ASCII and C1 controls, Unicode spaces. */
static int ref_is_separator(unsigned cp)
{
    return cp <= 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0xA0) ||
           (cp >= 0x2000 && cp <= 0x200D) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

/* Walk s[0..len) with the reference decoder; returns the valid prefix length.
 * Also checks utf8_decode and utf8_encode against it, code point by code point. */
static size_t ref_valid_prefix(const char *s, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        unsigned cp = 0, cp2 = 0;
        int n = ref_decode((const unsigned char *)s + pos, len - pos, &cp);
        int n2 = utf8_decode(s + pos, len - pos, &cp2);
        check(n == n2, "utf8_decode length differs from the reference decoder");
        if (n == 0)
            break;
        check(cp == cp2, "utf8_decode code point differs from the reference decoder");
        char enc[4];
        check(utf8_encode(cp, enc) == n && memcmp(enc, s + pos, (size_t)n) == 0,
              "utf8_encode does not round-trip a valid code point");
        pos += (size_t)n;
    }
    return pos;
}

/* Every code point of s[0..len) is a separator. */
static int all_separators(const char *s, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        unsigned cp = 0;
        int n = ref_decode((const unsigned char *)s + pos, len - pos, &cp);
        if (n == 0 || !ref_is_separator(cp))
            return 0;
        pos += (size_t)n;
    }
    return 1;
}

static void check_list(const char *text, size_t len, const TokenList *tl, int max)
{
    size_t prev_end = 0;
    check(tl->n >= 0 && tl->n <= max, "token count outside 0..max_tokens");
    check(tl->n == 0 || (tl->tok && tl->pool), "tokens without storage");
    for (int i = 0; i < tl->n; i++) {
        const Token *t = &tl->tok[i];
        check(t->len > 0 && t->len <= AV_MAX_TOKEN_BYTES, "token length 0 or over the limit");
        check(t->start <= len && t->len <= len - t->start, "token span outside the text");
        check(t->start >= prev_end, "tokens overlap or go backwards");
        check(t->str && strlen(t->str) == t->len, "token copy has the wrong length");
        check(memcmp(t->str, text + t->start, t->len) == 0, "token copy differs from span");
        check(utf8_valid_prefix(t->str, t->len) == t->len, "token cut inside a code point");
        check(!all_separators(t->str, t->len), "token made of separators only");
        check(all_separators(text + prev_end, t->start - prev_end),
              "non-separator text between tokens was dropped");
        prev_end = t->start + t->len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t valid = utf8_valid_prefix(text, size);
    check(valid <= size, "valid prefix longer than the text");
    check(valid == ref_valid_prefix(text, size), "utf8_valid_prefix differs from reference");
    check(utf8_valid_prefix(text, valid) == valid, "valid prefix is not valid");

    TokenList tl = {0}, all = {0};
    int rc = tokenize(text, size, FUZZ_MAX_TOKENS, &tl);
    if (valid < size) {
        check(rc == AV_ERR_UTF8 && tl.bad_offset == valid, "invalid UTF-8 not reported there");
        check(tl.n == 0 && !tl.tok && !tl.pool, "error left tokens behind");
        return 0;
    }
    check(rc == AV_OK || rc == AV_ERR_TOO_MANY, "unexpected tokenize result on valid UTF-8");
    int rc_all = tokenize(text, size, AV_MAX_TOKENS * 64, &all);
    check(rc_all == AV_OK, "unbounded tokenize failed on valid UTF-8");
    check_list(text, size, &all, AV_MAX_TOKENS * 64);
    if (all.n > 0)
        check(all_separators(text + all.tok[all.n - 1].start + all.tok[all.n - 1].len,
                             size - all.tok[all.n - 1].start - all.tok[all.n - 1].len),
              "non-separator text after the last token was dropped");
    else
        check(all_separators(text, size), "a text with no token holds non-separators");
    if (rc == AV_ERR_TOO_MANY) {
        check(all.n > FUZZ_MAX_TOKENS && tl.n == 0 && !tl.tok, "TOO_MANY with few tokens");
    } else {
        check(tl.n == all.n, "bounded and unbounded counts differ");
        check_list(text, size, &tl, FUZZ_MAX_TOKENS);
        for (int i = 0; i < tl.n; i++)
            check(tl.tok[i].start == all.tok[i].start && tl.tok[i].len == all.tok[i].len,
                  "bounded and unbounded spans differ");
    }
    tokenize_free(&tl);
    tokenize_free(&all);
    check(!tl.tok && !tl.pool && tl.n == 0, "tokenize_free left the list non-zero");
    return 0;
}
