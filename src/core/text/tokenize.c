/* tokenize.c - UTF-8 text to tokens with their byte spans.
 *
 * The rule is the one documented in tokenize.h. The text is validated first
 * (strictly: no overlong forms, surrogates or code points above U+10FFFF), so
 * the scanner below only sees well-formed UTF-8. The same scanner runs twice:
 * once to count tokens and pool bytes, once to fill the two allocations made in
 * between, so nothing is allocated inside the loop. It does not normalise or
 * case-fold (embed.c folds) and never prints.
 */
#include "core/tokenize.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"

enum { CLS_SPACE, CLS_PUNCT, CLS_LETTER, CLS_DIGIT };

/* Non-ASCII code points that are spaces; all are separators. The zero-width
 * (non-)joiners U+200C and U+200D count here where they join nothing. */
static int is_unicode_space(unsigned cp)
{
    return cp == 0x00A0 || (cp >= 0x2000 && cp <= 0x200D) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

/* Latin-1 punctuation, General Punctuation, CJK punctuation, fullwidth forms. */
static int is_unicode_punct(unsigned cp)
{
    static const unsigned ranges[][2] = {
        {0x00A0, 0x00BF}, {0x00D7, 0x00D7}, {0x00F7, 0x00F7}, {0x2000, 0x206F}, {0x3000, 0x303F},
        {0xFF01, 0xFF0F}, {0xFF1A, 0xFF20}, {0xFF3B, 0xFF40}, {0xFF5B, 0xFF65},
    };
    for (size_t k = 0; k < sizeof(ranges) / sizeof(ranges[0]); k++)
        if (cp >= ranges[k][0] && cp <= ranges[k][1])
            return 1;
    return 0;
}

static int classify(unsigned cp)
{
    if (cp >= '0' && cp <= '9')
        return CLS_DIGIT;
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z'))
        return CLS_LETTER;
    /* ASCII and C1 controls separate tokens, like whitespace */
    if (cp <= 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
        return CLS_SPACE;
    if (cp < 0x80)
        return CLS_PUNCT;
    if (is_unicode_space(cp))
        return CLS_SPACE;
    return is_unicode_punct(cp) ? CLS_PUNCT : CLS_LETTER;
}

/* classify() of every ASCII byte: read on every byte of most texts. */
static const unsigned char ascii_class[128] = {
#define C4(c) c, c, c, c
#define C16(c) C4(c), C4(c), C4(c), C4(c)
    /* 0x00-0x20 controls and space */ C16(CLS_SPACE),
    C16(CLS_SPACE),
    CLS_SPACE,
    /* !"#$%&'()*+,-./ */ C4(CLS_PUNCT),
    C4(CLS_PUNCT),
    C4(CLS_PUNCT),
    CLS_PUNCT,
    CLS_PUNCT,
    CLS_PUNCT,
    /* 0-9 */ C4(CLS_DIGIT),
    C4(CLS_DIGIT),
    CLS_DIGIT,
    CLS_DIGIT,
    /* :;<=>?@ */ C4(CLS_PUNCT),
    CLS_PUNCT,
    CLS_PUNCT,
    CLS_PUNCT,
    /* A-Z */ C16(CLS_LETTER),
    C4(CLS_LETTER),
    C4(CLS_LETTER),
    CLS_LETTER,
    CLS_LETTER,
    /* [\]^_` */ C4(CLS_PUNCT),
    CLS_PUNCT,
    CLS_PUNCT,
    /* a-z */ C16(CLS_LETTER),
    C4(CLS_LETTER),
    C4(CLS_LETTER),
    CLS_LETTER,
    CLS_LETTER,
    /* {|}~ DEL */ C4(CLS_PUNCT),
    CLS_SPACE,
#undef C16
#undef C4
};

/* Class of the code point at s[pos]; *n gets its length (0 at the end).
 * ASCII, nearly every byte of most texts, skips the decoder. */
static inline int class_at(const char *s, size_t len, size_t pos, int *n)
{
    if (pos < len && (unsigned char)s[pos] < 0x80) {
        *n = 1;
        return ascii_class[(unsigned char)s[pos]];
    }
    unsigned cp = 0;
    *n = pos < len ? utf8_decode(s + pos, len - pos, &cp) : 0;
    return *n > 0 ? classify(cp) : CLS_SPACE;
}

/* Length of a joiner at s[pos] that stays inside the word: an apostrophe or
 * a zero-width joiner (U+200D, which glues emoji sequences such as a family
 * or a profession) between letters, or '.' / ',' between digits. 0 when there
 * is none. */
static int joiner_len(const char *s, size_t len, size_t pos, int prev)
{
    unsigned cp = 0;
    int n = utf8_decode(s + pos, len - pos, &cp);
    int want;
    if (cp == '\'' || cp == 0x2019 || cp == 0x200D)
        want = CLS_LETTER;
    else if (cp == '.' || cp == ',')
        want = CLS_DIGIT;
    else
        return 0;
    int next_n;
    if (prev != want || class_at(s, len, pos + (size_t)n, &next_n) != want)
        return 0;
    return n;
}

/* Find the next token at or after *pos in valid UTF-8; 0 when none is left. */
static __attribute__((noinline)) int next_token_general(const char *s, size_t len, size_t *pos,
                                                        size_t *start, size_t *tlen)
{
    int n, cls;
    while ((cls = class_at(s, len, *pos, &n)) == CLS_SPACE && n > 0)
        *pos += (size_t)n;
    if (n == 0)
        return 0;
    *start = *pos;
    size_t end = *pos + (size_t)n;
    if (cls != CLS_PUNCT) {
        int prev = cls;
        while (end < len) {
            /* ASCII letters and digits, most of a word, go straight on */
            const unsigned char b = (unsigned char)s[end];
            const int ac = b < 0x80 ? ascii_class[b] : CLS_SPACE;
            if ((ac == CLS_LETTER || ac == CLS_DIGIT) && end + 1 - *start <= AV_MAX_TOKEN_BYTES) {
                prev = ac;
                end++;
                continue;
            }
            /* any other ASCII byte ends the word unless it may join (', . ,) */
            if (b < 0x80 && ac != CLS_LETTER && ac != CLS_DIGIT && b != '\'' && b != '.' &&
                b != ',')
                break;
            int take, c = class_at(s, len, end, &take);
            if (c != CLS_LETTER && c != CLS_DIGIT) {
                take = joiner_len(s, len, end, prev);
                c = prev;
            }
            /* a word longer than the limit is cut at a code point boundary */
            if (take == 0 || end + (size_t)take - *start > AV_MAX_TOKEN_BYTES)
                break;
            prev = c;
            end += (size_t)take;
        }
    }
    *tlen = end - *start;
    *pos = end;
    return 1;
}

/* next_token_general's token, found here without it where the text is
 * ASCII: spaces skipped, then a punctuation byte, or a word of letters and
 * digits that ends at the end of the text or at an ASCII byte that cannot
 * join (not ', . or ,) within the length limit. Anything else goes to
 * next_token_general from the first byte after the spaces. Small, so that
 * most tokens cost no saved registers. */
static inline bool is_ascii_word(unsigned char b)
{
    return b < 0x80 && ascii_class[b] >= CLS_LETTER; /* CLS_LETTER or CLS_DIGIT */
}

static int next_token(const char *s, size_t len, size_t *pos, size_t *start, size_t *tlen)
{
    size_t p = *pos;
    while (p < len && (unsigned char)s[p] < 0x80 && ascii_class[(unsigned char)s[p]] == CLS_SPACE)
        p++;
    *pos = p;
    if (p < len && (unsigned char)s[p] < 0x80) {
        const int cls = ascii_class[(unsigned char)s[p]];
        size_t e = p + 1;
        if (cls != CLS_PUNCT) {
            const size_t lim = len - p < AV_MAX_TOKEN_BYTES ? len : p + AV_MAX_TOKEN_BYTES;
            while (e < lim && is_ascii_word((unsigned char)s[e]))
                e++;
            const unsigned char b = e < len ? (unsigned char)s[e] : 0;
            if (e < len && (e == lim || b >= 0x80 || b == '\'' || b == '.' || b == ','))
                return next_token_general(s, len, pos, start, tlen);
        }
        *start = p, *tlen = e - p, *pos = e;
        return 1;
    }
    return next_token_general(s, len, pos, start, tlen);
}

/* Spans the counting pass keeps: a sentence's tokens are not found twice. */
enum { SPANS_KEPT = 64 };
typedef struct {
    size_t start, len;
} Span;

/* First pass: count tokens (stopping past max) and their pooled bytes; the
 * first SPANS_KEPT tokens' spans into kept. */
static int count_tokens(const char *text, size_t len, int max_tokens, int *n, size_t *bytes,
                        Span *kept)
{
    size_t pos = 0, start, tlen;
    *n = 0;
    *bytes = 0;
    while (next_token(text, len, &pos, &start, &tlen)) {
        if (*n >= max_tokens)
            return AV_ERR_TOO_MANY;
        if (*n < SPANS_KEPT)
            kept[*n] = (Span){start, tlen};
        (*n)++;
        *bytes += tlen + 1;
    }
    return AV_OK;
}

static void add_token(TokenList *out, char **dst, const char *text, size_t start, size_t tlen)
{
    memcpy(*dst, text + start, tlen);
    (*dst)[tlen] = '\0';
    out->tok[out->n++] = (Token){.start = start, .len = tlen, .str = *dst};
    *dst += tlen + 1;
}

/* tokenize into out, reusing tok (room for tcap Tokens) and pool (pcap
 * bytes), which out owns afterwards whatever the outcome. */
static int tokenize_with(const char *text, size_t len, int max_tokens, TokenList *out, Token *tok,
                         int tcap, char *pool, size_t pcap)
{
    memset(out, 0, sizeof(*out));
    out->tok = tok, out->tok_cap = tcap, out->pool = pool, out->pool_cap = pcap;
    size_t valid = utf8_valid_prefix(text, len);
    if (valid < len) {
        out->bad_offset = valid;
        return AV_ERR_UTF8;
    }
    int n;
    size_t bytes;
    Span kept[SPANS_KEPT];
    int rc = count_tokens(text, len, max_tokens, &n, &bytes, kept);
    if (rc != AV_OK || n == 0)
        return rc;
    if (n > out->tok_cap) {
        free(out->tok);
        out->tok = malloc((size_t)n * sizeof(*out->tok));
        out->tok_cap = out->tok ? n : 0;
    }
    if (bytes > out->pool_cap) {
        free(out->pool);
        out->pool = malloc(bytes);
        out->pool_cap = out->pool ? bytes : 0;
    }
    if (!out->tok || !out->pool) {
        tokenize_free(out);
        return AV_ERR_NOMEM;
    }
    char *dst = out->pool;
    if (n <= SPANS_KEPT) {
        for (int k = 0; k < n; k++)
            add_token(out, &dst, text, kept[k].start, kept[k].len);
        return AV_OK;
    }
    size_t pos = 0, start, tlen;
    while (out->n < n && next_token(text, len, &pos, &start, &tlen))
        add_token(out, &dst, text, start, tlen);
    return AV_OK;
}

int tokenize(const char *text, size_t len, int max_tokens, TokenList *out)
{
    return tokenize_with(text, len, max_tokens, out, NULL, 0, NULL, 0);
}

int tokenize_again(const char *text, size_t len, int max_tokens, TokenList *out)
{
    return tokenize_with(text, len, max_tokens, out, out->tok, out->tok_cap, out->pool,
                         out->pool_cap);
}

void tokenize_free(TokenList *tl)
{
    free(tl->tok);
    free(tl->pool);
    memset(tl, 0, sizeof(*tl));
}

int tokenize_copy(const TokenList *in, TokenList *out)
{
    size_t bytes = 1;
    tokenize_free(out);
    for (int k = 0; k < in->n; k++)
        bytes += strlen(in->tok[k].str) + 1;
    out->tok = malloc(sizeof *out->tok * (size_t)(in->n > 0 ? in->n : 1));
    out->pool = malloc(bytes);
    if (!out->tok || !out->pool) {
        tokenize_free(out);
        return AV_ERR_NOMEM;
    }
    char *p = out->pool;
    for (int k = 0; k < in->n; k++) {
        size_t len = strlen(in->tok[k].str) + 1;
        memcpy(p, in->tok[k].str, len);
        out->tok[k] = in->tok[k];
        out->tok[k].str = p;
        p += len;
    }
    out->n = in->n;
    return AV_OK;
}
